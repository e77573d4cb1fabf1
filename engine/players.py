"""Computer players: the search engines, the simple baselines and the levels.

A player chooses a move in a :class:`~rolit.engine.Position` within a time
limit. Engines (:data:`ENGINES`):

- ``brs``, ``paranoid``: alpha-beta (:mod:`rolit.engine.search`);
- ``mcts``: Monte-Carlo tree search with max^n backups (:mod:`rolit.engine.mcts`);
- ``greedy``: the move that rolls the most balls (ties at random), the way
  many people play;
- ``random``: any legal move.

Levels for playing against the computer (:data:`LEVELS`): ``easy`` plays like
a child who loves big captures (it often misses a corner and never thinks
about what its move gives away), ``medium`` looks two moves ahead and is a
little careless, ``hard`` is the default engine with the whole time.

>>> from rolit.engine import Position
>>> pos = Position.start("classic", players=2)
>>> str(make_player("greedy", seed=1).choose(pos, 0.1)) in ("R:f4", "R:d6", "R:f6")
True
>>> [name for name in LEVELS]
['easy', 'medium', 'hard']
"""

from __future__ import annotations

import logging
import random
import time
from typing import Protocol

from .errors import GameOverError, SetupError
from .evaluate import evaluator
from .mcts import MCTS
from .position import Move, Position
from .search import Searcher, SearchResult

__all__ = [
    "DEFAULT_ENGINE",
    "ENGINES",
    "LEVELS",
    "SOLVE_EMPTIES",
    "EngineRunner",
    "Player",
    "make_player",
    "run_engine",
]

log = logging.getLogger(__name__)

#: The engine ``suggest`` and the ``hard`` level use (chosen by tournament, see the README).
DEFAULT_ENGINE = "brs"
ENGINES = ("brs", "paranoid", "mcts", "greedy", "random")
LEVELS = ("easy", "medium", "hard")
#: With this many empty squares or fewer, an exact solve is tried first.
SOLVE_EMPTIES = 10


class Player(Protocol):
    """Anything that picks a move."""

    name: str

    def choose(self, position: Position, time_limit: float) -> Move:
        """A legal move for the colour to move, within ``time_limit`` seconds."""
        ...


class EngineRunner:
    """Runs one search engine, keeping its searchers (and their tables) from
    move to move, with an exact solve of the last empties when time allows."""

    def __init__(self, engine: str, seed: int | None = None) -> None:
        if engine not in ("brs", "paranoid", "mcts"):
            raise SetupError(f"unknown search engine {engine!r}: use brs, paranoid or mcts")
        self.engine = engine
        self.seed = seed
        self._searchers: dict[tuple[object, ...], Searcher | MCTS] = {}

    def _searcher(self, position: Position, kind: str) -> Searcher | MCTS:
        if kind == "brs" and len(position.order) == 2:
            # With two players best-reply search is paranoid alpha-beta; the
            # paranoid code orders the single opponent's moves better (it won
            # 9 of 12 games against the BRS code at 0.3 s per move).
            kind = "paranoid"
        key = (kind, position.size, position.order, position.turn)
        found = self._searchers.get(key)
        if found is None:
            if kind == "mcts":
                found = MCTS.for_position(position, seed=self.seed)
            else:
                found = Searcher.for_position(position, "paranoid" if kind == "paranoid" else "brs")
            self._searchers[key] = found
        return found

    def run(self, position: Position, time_limit: float, max_depth: int = 64,
            deadline: float | None = None) -> SearchResult:
        """Search ``position`` until ``deadline`` (default: now + ``time_limit``)."""
        if position.is_full():
            raise GameOverError("the board is full: the game is over")
        start = time.perf_counter()
        end = deadline if deadline is not None else start + time_limit
        empties = len(position.empty_squares())
        if empties <= SOLVE_EMPTIES and self.engine != "paranoid" and max_depth >= empties:
            # Real turn order to the end of the game: exact (for 3-4 players,
            # against the worst the others can do together).
            solver = self._searcher(position, "paranoid")
            assert isinstance(solver, Searcher)
            share = start + 0.5 * (end - start)
            result = solver.search(position, deadline=share)
            if result.solved:
                return result
        searcher = self._searcher(position, self.engine)
        if isinstance(searcher, MCTS):
            return searcher.search(position, deadline=end)
        return searcher.search(position, max_depth=max_depth, deadline=end)


def run_engine(position: Position, engine: str, time_limit: float) -> SearchResult:
    """One search of ``position`` with a fresh ``engine`` (brs, paranoid or mcts)."""
    return EngineRunner(engine).run(position, time_limit)


class _SearchPlayer:
    def __init__(self, engine: str, seed: int | None) -> None:
        self.name = engine
        self.runner = EngineRunner(engine, seed)

    def choose(self, position: Position, time_limit: float) -> Move:
        result = self.runner.run(position, time_limit)
        return Move(position.turn, result.best.square)


def _legal(position: Position) -> list[Move]:
    moves = position.legal_moves()
    if not moves:
        raise GameOverError("the board is full: the game is over")
    return moves


class _GreedyPlayer:
    name = "greedy"

    def __init__(self, seed: int | None) -> None:
        self.rng = random.Random(seed)

    def choose(self, position: Position, time_limit: float) -> Move:
        moves = _legal(position)
        rolled = [len(position.flips(m)) for m in moves]
        best = max(rolled)
        return self.rng.choice([m for m, n in zip(moves, rolled, strict=True) if n == best])


class _RandomPlayer:
    name = "random"

    def __init__(self, seed: int | None) -> None:
        self.rng = random.Random(seed)

    def choose(self, position: Position, time_limit: float) -> Move:
        return self.rng.choice(_legal(position))


class _EasyPlayer:
    """A child's game: the biggest capture wins its eye, a corner only
    sometimes, and what the move gives away never."""

    name = "easy"

    def __init__(self, seed: int | None) -> None:
        self.rng = random.Random(seed)

    def choose(self, position: Position, time_limit: float) -> Move:
        moves = _legal(position)
        ev = evaluator(position.size, tuple(sorted(position.variant.slot(c) for c in position.order)))
        rng = self.rng
        best, best_value = moves[0], -1.0
        for m in moves:
            value = len(position.flips(m)) + rng.uniform(0, 1.5)
            kind = ev.square_class(m.square)
            if kind == "corner" and rng.random() < 0.5:
                value += 4  # noticed the corner
            elif kind in ("edge", "c") and rng.random() < 0.3:
                value += 1  # edges look safe
            if value > best_value:
                best, best_value = m, value
        return best


class _MediumPlayer:
    """Two plies of search, and sometimes a move that is nearly as good."""

    name = "medium"

    def __init__(self, seed: int | None) -> None:
        self.rng = random.Random(seed)
        self.runner = EngineRunner("brs", seed)

    def choose(self, position: Position, time_limit: float) -> Move:
        result = self.runner.run(position, min(time_limit, 0.25), max_depth=2)
        top = result.moves[0].score
        close = [m for m in result.moves if m.score >= top - 15]
        pick = self.rng.choice(close) if self.rng.random() < 0.35 else result.moves[0]
        return Move(position.turn, pick.square)


def make_player(name: str, seed: int | None = None) -> Player:
    """A player by engine or level name (:data:`ENGINES`, :data:`LEVELS`)."""
    key = name.strip().lower()
    if key == "hard":
        player: Player = _SearchPlayer(DEFAULT_ENGINE, seed)
        player.name = "hard"
        return player
    if key in ("brs", "paranoid", "mcts"):
        return _SearchPlayer(key, seed)
    if key == "greedy":
        return _GreedyPlayer(seed)
    if key == "random":
        return _RandomPlayer(seed)
    if key == "easy":
        return _EasyPlayer(seed)
    if key == "medium":
        return _MediumPlayer(seed)
    raise SetupError(f"unknown engine or level {name!r}: use {', '.join(ENGINES + LEVELS)}")
