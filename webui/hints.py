"""Hints and computer moves for the page.

When the suggestion engine (``rolit.engine.suggest``) is installed its ranking is
used; until then a simple greedy choice (the move that rolls the most balls,
corners and edges first on a tie) stands in, and every hint says so
(``source: "greedy"``).

>>> from rolit.engine import Position
>>> [h.square for h in rank_moves(Position.start("quick6", players=2))][:3]
['e3', 'c5', 'e5']
"""

from __future__ import annotations

import importlib
import logging
import random
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from rolit.engine import Position, square_col, square_name, square_row
from rolit.engine.messages import _, join_words, sentence
from rolit.engine.players import make_player

__all__ = ["Hint", "rank_moves", "choose_move", "hint_source"]

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Hint:
    """One ranked move: its square, the balls it rolls, a short reason and a score."""

    square: str
    flips: tuple[str, ...]
    reason: str
    score: float

    def to_json(self) -> dict[str, Any]:
        """JSON-ready form."""
        return {"square": self.square, "flips": list(self.flips), "reason": self.reason, "score": self.score}


def _engine_suggest() -> Callable[..., Any] | None:
    try:
        module = importlib.import_module("rolit.engine.suggest")
    except ImportError:
        return None
    fn = getattr(module, "suggest", None)
    return fn if callable(fn) else None


def hint_source() -> str:
    """``"engine"`` when the suggestion engine is installed, else ``"greedy"``."""
    return "engine" if _engine_suggest() is not None else "greedy"


def _square_bonus(size: int, sq: int) -> int:
    r, c = square_row(sq), square_col(sq)
    edge_r, edge_c = r in (0, size - 1), c in (0, size - 1)
    return 2 if edge_r and edge_c else 1 if edge_r or edge_c else 0


def _greedy(position: Position) -> list[Hint]:
    out = []
    for move in position.legal_moves():
        flips = position.flips(move)
        names = tuple(square_name(s) for s in flips)
        bonus = _square_bonus(position.size, move.square)
        if flips:
            reason = sentence("rolls {count} balls: {squares}", count=str(len(flips)), squares=join_words(names))
            if len(flips) == 1:
                reason = sentence("rolls {squares}", squares=names[0])
        else:
            reason = sentence("nothing to capture: a safe square")
        if bonus == 2:
            reason = reason.rstrip(".") + "; " + _("a corner can never be rolled back") + "."
        out.append(Hint(square_name(move.square), names, reason, float(len(flips) * 10 + bonus)))
    out.sort(key=lambda h: -h.score)
    return out


def _from_engine(fn: Callable[..., Any], position: Position, time_limit: float) -> list[Hint] | None:
    """Adapt the suggestion engine's answer (ranked moves with scores and reasons)."""
    try:
        answer = fn(position, time_limit=time_limit)
    except TypeError:
        answer = fn(position)
    except Exception:  # a bug in the engine must not take the page down
        log.exception("the suggestion engine failed; using the greedy hint")
        return None
    items = getattr(answer, "moves", answer)
    out = []
    for item in list(items)[:8]:
        data = item.to_json() if hasattr(item, "to_json") else item
        if not isinstance(data, dict):
            return None
        sq = data.get("square")
        if isinstance(sq, int):
            sq = square_name(sq)
        if not isinstance(sq, str):
            return None
        flips = tuple(square_name(s) for s in position.flips(sq))
        reason = data.get("reason") or data.get("reasons") or ""
        if isinstance(reason, list):
            reason = "; ".join(str(r) for r in reason)
        score = data.get("score", 0.0)
        out.append(Hint(sq, flips, str(reason), float(score) if isinstance(score, int | float) else 0.0))
    return out or None


def rank_moves(position: Position, time_limit: float = 0.5) -> list[Hint]:
    """The legal moves for the side to move, best first."""
    fn = _engine_suggest()
    if fn is not None:
        ranked = _from_engine(fn, position, time_limit)
        if ranked:
            return ranked
    return _greedy(position)


# Seconds the computer thinks at each level.
THINKING_TIME = {"easy": 0.2, "medium": 0.5, "hard": 1.0}


def choose_move(position: Position, level: str, rng: random.Random | None = None) -> Hint:
    """The computer's move at ``level`` (easy, medium, hard), as the engine's players choose it.

    Easy plays like a child who loves big captures and medium looks a little
    ahead (see :mod:`rolit.engine.players`); hard is the full search.
    """
    rng = rng or random.Random()
    player = make_player(level if level in THINKING_TIME else "hard", seed=rng.randrange(2**31))
    move = player.choose(position, THINKING_TIME.get(level, 1.0))
    flips = tuple(square_name(s) for s in position.flips(move))
    reason = sentence("rolls {balls}", balls=join_words(list(flips))) if flips else sentence("rolls nothing")
    return Hint(square_name(move.square), flips, reason, 0.0)
