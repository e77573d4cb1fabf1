"""Move suggestions: ranked moves with scores, the expected line of play and a
reason a family understands.

:func:`suggest` searches the position within a time limit and explains every
legal move from what it does on the board: the corners it takes, gives away or
keeps from another player, the balls it rolls and makes safe for good, the risky
squares beside an empty corner, and near the end the exact result.

>>> from rolit.engine import Board, Position, RED
>>> board = Board.from_text('''
... ........
... .G......
... ..R.....
... ...RY...
... ...BG...
... ........
... ........
... ........
... ''')
>>> pos = Position.from_board(board, "classic", turn=RED, players=4)
>>> s = suggest(pos, time_limit=0.2)
>>> s.best.name, s.best.reason
('a1', 'Takes the a1 corner, which can never be lost, and rolls 1 ball.')
>>> str(s.best.line[0]), str(s.best.line[1])[:2]
('R:a1', 'Y:')
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass, field
from typing import Any

from .bitboard import iter_bits
from .colours import Colour
from .errors import GameOverError, SetupError
from .evaluate import BALL, WIN, evaluator
from .messages import Colour_word, _, join_words, sentence
from .players import DEFAULT_ENGINE, EngineRunner
from .position import Move, Position
from .search import SearchResult
from .squares import Square, square_name

__all__ = ["MoveSuggestion", "Suggestion", "suggest", "explain"]

log = logging.getLogger(__name__)

# Share of the time limit the search may use; the rest pays for the reasons
# and the expected lines, so the whole call stays within the limit.
SEARCH_SHARE = 0.75
# Plies of expected line shown per move (the move itself included), per player.
LINE_ROUNDS = 2


@dataclass(frozen=True)
class MoveSuggestion:
    """One legal move, ranked: its ``score`` (for the alpha-beta engines the
    mover's lead over the best other player in balls, as the search expects it;
    for MCTS the expected share of the win in percent), the expected ``line``
    of play starting with the move, the balls it rolls and a ``reason``."""

    move: Move
    score: float
    reason: str
    line: tuple[Move, ...]
    flips: tuple[Square, ...]
    exact: bool = False

    @property
    def name(self) -> str:
        """The square's name, such as ``"f4"``."""
        return square_name(self.move.square)

    def to_json(self) -> dict[str, Any]:
        """JSON-ready form."""
        return {
            "square": self.name,
            "move": str(self.move),
            "score": self.score,
            "exact": self.exact,
            "reason": self.reason,
            "line": [str(m) for m in self.line],
            "flips": [square_name(s) for s in self.flips],
        }


@dataclass(frozen=True)
class Suggestion:
    """The ranked moves (best first) for the colour to move and how they were
    found: ``engine``, ``depth`` (plies, 0 for MCTS), ``nodes`` (positions or
    playouts), ``elapsed`` seconds, ``solved`` (scores are the exact result),
    and the score ``unit`` (``"balls"`` or ``"win%"``)."""

    position: Position
    moves: tuple[MoveSuggestion, ...]
    engine: str
    depth: int
    nodes: int
    elapsed: float
    solved: bool
    unit: str
    time_limit: float = field(default=1.0)

    @property
    def best(self) -> MoveSuggestion:
        """The best move."""
        return self.moves[0]

    def to_json(self) -> dict[str, Any]:
        """JSON-ready form (the ``rolit suggest --json`` output)."""
        return {
            "to_move": self.position.turn.label,
            "variant": self.position.variant.name,
            "players": [c.label for c in self.position.order],
            "engine": self.engine,
            "time_limit": self.time_limit,
            "elapsed": round(self.elapsed, 4),
            "depth": self.depth,
            "nodes": self.nodes,
            "solved": self.solved,
            "unit": self.unit,
            "moves": [m.to_json() for m in self.moves],
        }


def suggest(position: Position, to_move: Colour | None = None, time_limit: float = 1.0, *,
            engine: str = DEFAULT_ENGINE, runner: EngineRunner | None = None) -> Suggestion:
    """Rank every legal move of ``to_move`` (default: the colour to move) in
    ``position`` within ``time_limit`` seconds (never more than 10% over).

    ``engine`` is ``brs``, ``paranoid`` or ``mcts``; pass a ``runner`` to keep
    the engine's tables from one call to the next.
    """
    start = time.perf_counter()
    if time_limit <= 0:
        raise SetupError("the time limit must be more than 0 seconds")
    if to_move is not None and to_move != position.turn:
        position = position.with_turn(to_move)
    if position.is_full():
        raise GameOverError("the board is full: there is no move to suggest")
    runner = runner or EngineRunner(engine)
    end = start + time_limit
    result = runner.run(position, time_limit, deadline=start + SEARCH_SHARE * time_limit)
    moves = _describe(position, result, deadline=end - 0.02 * time_limit)
    unit = "win%" if result.algorithm == "mcts" and not result.solved else "balls"
    return Suggestion(position, tuple(moves), result.algorithm if not result.solved else f"{runner.engine}+solve",
                      result.depth, result.nodes, time.perf_counter() - start, result.solved, unit, time_limit)


def _describe(position: Position, result: SearchResult, deadline: float) -> list[MoveSuggestion]:
    mcts = result.algorithm == "mcts" and not result.solved
    out = []
    lines: dict[int, list[tuple[int, int]]] = {}
    if result.pv:
        lines[result.pv[0][1]] = result.pv
    colours = position.variant.colours
    for rank, rm in enumerate(result.moves):
        move = Move(position.turn, rm.square)
        after = position.play(move)
        line = [Move(colours[slot], sq) for slot, sq in lines.get(rm.square, [(0, rm.square)])]
        line[0] = move
        # Lengthen the line with each player's own best-looking reply while
        # the clock allows (the best moves first).
        if rank < 5:
            line = _extend(position, line, LINE_ROUNDS * len(position.order), deadline)
        if mcts:
            score = round(rm.score / 10, 1)
        else:
            score = round(_score_balls(rm.score), 1)
        exact = result.solved and (rm.exact or rm.score <= -WIN)  # a bound below -WIN still loses
        reason = explain(position, move, after=after, score=rm.score if exact else None, bound=not rm.exact)
        out.append(MoveSuggestion(move, score, reason, tuple(line), tuple(position.flips(move)),
                                  rm.exact and result.solved))
    return out


def _score_balls(points: int) -> float:
    if points >= WIN:
        points -= WIN
    elif points <= -WIN:
        points += WIN
    return points / BALL


def _extend(position: Position, line: list[Move], length: int, deadline: float) -> list[Move]:
    pos = position
    for m in line:
        if not pos.is_legal(m):
            return line[: line.index(m)] or [line[0]]
        pos = pos.play(m)
    ev = evaluator(position.size, tuple(sorted(position.variant.slot(c) for c in position.order)))
    while len(line) < length and not pos.is_full() and time.perf_counter() < deadline:
        slot = pos.variant.slot(pos.turn)
        best, best_value = None, -(1 << 30)
        for m in pos.legal_moves():
            nxt = pos._play_unchecked(m)
            v = ev.value(list(nxt.bitboards), slot)
            if v > best_value:
                best, best_value = m, v
        assert best is not None
        line.append(best)
        pos = pos._play_unchecked(best)
    return line


def _corner_moves(pos: Position, colour: Colour, corners: int) -> set[int]:
    """Corners ``colour`` could take if it were to move in ``pos``."""
    geom = pos.geometry
    occ = 0
    for b in pos.bitboards:
        occ |= b
    if occ == geom.full:
        return set()
    legal, _ = geom.legal_moves(pos.bitboards[pos.variant.slot(colour)], occ)
    return {geom.square_of[b] for b in iter_bits(legal & corners)}


def _balls(n: int) -> str:
    return _("1 ball") if n == 1 else _("{n} balls").format(n=n)


def explain(position: Position, move: Move | Square | str, *, after: Position | None = None,
            score: int | None = None, bound: bool = False) -> str:
    """A short sentence on what ``move`` does, for the family at the table.

    ``score``, when given, is an exact search result in points (see
    :mod:`rolit.engine.evaluate`) and is said first; ``bound`` means it is only
    an upper bound (the move loses, by at least that much).

    >>> from rolit.engine import Position
    >>> explain(Position.start("classic", players=2), "f4")
    'Rolls 1 ball.'
    """
    m = position.check_move(move)
    after = after or position.play(m)
    ev = evaluator(position.size, tuple(sorted(position.variant.slot(c) for c in position.order)))
    geom = position.geometry
    name = square_name(m.square)
    bit = geom.bit[m.square]
    slot = position.variant.slot(m.colour)
    flipped = position.flips(m)
    good: list[str] = []
    bad: list[str] = []
    if score is not None:
        lead = abs(_score_balls(score))
        n = round(lead)
        if score >= WIN:
            good.append(_("wins by {balls} with best play").format(balls=_balls(n)))
        elif score <= -WIN and bound:
            bad.append(_("loses however you play"))
        elif score <= -WIN:
            bad.append(_("loses by {balls} however you play").format(balls=_balls(n)))
        else:
            good.append(_("shares the win with best play"))
    kind = ev.square_class(m.square)
    if kind == "corner":
        good.append(_("takes the {square} corner, which can never be lost").format(square=name))
    if len(position.legal_moves()) == 1:
        good.append(_("is the only legal move"))
    if flipped:
        good.append(_("rolls {balls}").format(balls=_balls(len(flipped))))
    occ_before = 0
    for b in position.bitboards:
        occ_before |= b
    occ_after = occ_before | bit
    stable_before = ev.stable(position.bitboards[slot], occ_before)
    stable_after = ev.stable(after.bitboards[slot], occ_after)
    newly = (stable_after & ~stable_before & ~bit).bit_count()
    if newly >= 2:
        good.append(_("makes {balls} safe for good").format(balls=_balls(newly)))
    elif kind in ("edge", "c") and stable_after & bit:
        good.append(_("puts a ball on the edge where it is safe for good"))
    # Corners the others can take now that they could not before, or could
    # before and cannot any more.
    corners = ev.corners
    given: list[str] = []
    stopped: list[str] = []
    for colour in position.turn_order()[1:]:
        before = _corner_moves(position.with_turn(colour), colour, corners)
        now = _corner_moves(after.with_turn(colour), colour, corners)
        for sq in sorted(now - before):
            given.append(_("gives {player} the {square} corner").format(player=Colour_word(colour.label),
                                                                        square=square_name(sq)))
        for sq in sorted(before - now):
            if sq != m.square:
                stopped.append(_("stops {player} from taking the {square} corner").format(
                    player=Colour_word(colour.label), square=square_name(sq)))
    good.extend(stopped[:1])
    bad.extend(given[:1])
    if not given and kind in ("x", "c") and not stable_after & bit:
        for cb, csq, xsq, _rays in ev.corner_info:
            if (csq | xsq) & bit and not occ_after & cb:
                bad.append(_("goes beside the empty {square} corner, which is risky").format(
                    square=square_name(geom.square_of[cb])))
                break
    if not good and not bad:
        if kind == "edge":
            good.append(_("takes an edge square"))
        else:
            good.append(_("a quiet move that opens little for the others"))
    if bad and score is not None and score <= -WIN:
        # A lost endgame is the news; what the move does comes second.
        if good:
            return sentence("{bad}, though it {good}", bad=bad[0], good=good[0])
        return sentence("{bad}", bad=bad[0])
    if good and bad:
        return sentence("{good} but {bad}", good=_join(good[:2]), bad=_join(bad[:1]))
    return sentence("{text}", text=_join((good or bad)[:3]))


def _join(parts: list[str]) -> str:
    # A part with a comma of its own needs one before "and" too.
    if len(parts) > 1 and any("," in p for p in parts[:-1]):
        return _("{first}, and {last}").format(first=", ".join(parts[:-1]), last=parts[-1])
    return join_words(parts)
