"""Tournaments between engines: whole games, seats rotated, win rates with 95%
confidence intervals, several games at once on the machine's cores.

The line-up: with no more engines than seats, the engines take the seats in the
order given and the last one fills the rest (``brs,greedy`` at four players is
BRS against three greedy players). With more engines than seats every group of
``players`` engines plays. Game ``i`` turns the line-up round by ``i`` seats, so
every engine plays every colour (and so every place in the turn order) equally
often when the number of games is a multiple of the number of seats.

A win scores 1, a k-way shared win 1/k; an engine's win rate is its points per
seat-game, with a Wilson score interval.

>>> lo, hi = wilson_interval(45, 50)
>>> round(lo, 3), round(hi, 3)
(0.786, 0.957)
>>> [list(x) for x in lineups(["brs", "greedy"], 4)]
[['brs', 'greedy', 'greedy', 'greedy']]
"""

from __future__ import annotations

import itertools
import logging
import math
import multiprocessing
import os
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from .errors import SetupError
from .players import ENGINES, LEVELS, make_player
from .position import Position
from .variants import get_variant, standard_order

__all__ = ["EngineStanding", "GameResult", "TournamentResult", "lineups", "play_game", "run_tournament",
           "wilson_interval"]

log = logging.getLogger(__name__)


def wilson_interval(successes: float, n: int, z: float = 1.959964) -> tuple[float, float]:
    """The Wilson score interval (95% by default) of a success rate.

    >>> wilson_interval(0, 0)
    (0.0, 1.0)
    """
    if n <= 0:
        return (0.0, 1.0)
    p = successes / n
    z2 = z * z
    denom = 1 + z2 / n
    centre = (p + z2 / (2 * n)) / denom
    half = z * math.sqrt(max(0.0, p * (1 - p) / n + z2 / (4 * n * n))) / denom
    return (max(0.0, centre - half), min(1.0, centre + half))


def lineups(engines: Sequence[str], players: int) -> list[tuple[str, ...]]:
    """The line-ups a tournament cycles through (see the module's notes)."""
    if not engines:
        raise SetupError("name at least one engine")
    if len(engines) <= players:
        return [tuple(engines) + (engines[-1],) * (players - len(engines))]
    return list(itertools.combinations(engines, players))


@dataclass
class GameResult:
    """One finished game: the engine in each seat (colour label), balls per
    colour in play, the winners, and the longest time each engine took for a
    move (seconds)."""

    index: int
    seats: dict[str, str]
    scores: dict[str, int]
    winners: list[str]
    slowest: dict[str, float]
    seconds: float

    def to_json(self) -> dict[str, Any]:
        """JSON-ready form."""
        return {"game": self.index, "seats": self.seats, "scores": self.scores, "winners": self.winners,
                "slowest_move": self.slowest, "seconds": round(self.seconds, 2)}


def play_game(index: int, lineup: Sequence[str], variant: str, players: int, time_limit: float,
              seed: int) -> GameResult:
    """Play one game with ``lineup`` turned round by ``index`` seats."""
    v = get_variant(variant)
    colours = standard_order(v, players)
    shift = index % players
    seated = list(lineup[shift:]) + list(lineup[:shift])
    pos = Position.start(v, players=players)
    movers = {c: make_player(name, seed=seed * 16 + i) for i, (c, name) in enumerate(zip(colours, seated, strict=True))}
    slowest: dict[str, float] = {}
    t0 = time.perf_counter()
    while not pos.is_full():
        player = movers[pos.turn]
        start = time.perf_counter()
        move = player.choose(pos, time_limit)
        took = time.perf_counter() - start
        name = seated[colours.index(pos.turn)]
        slowest[name] = max(slowest.get(name, 0.0), took)
        pos = pos.play(move)
    outcome = pos.outcome()
    assert outcome is not None
    return GameResult(
        index,
        {c.label: name for c, name in zip(colours, seated, strict=True)},
        {c.label: outcome.scores[c] for c in colours},
        [c.label for c in outcome.winners],
        {k: round(v, 4) for k, v in slowest.items()},
        time.perf_counter() - t0,
    )


def _play(spec: tuple[int, tuple[str, ...], str, int, float, int]) -> GameResult:
    return play_game(*spec)


@dataclass
class EngineStanding:
    """An engine's record over its seat-games."""

    engine: str
    games: int = 0
    wins: int = 0
    shared: int = 0
    points: float = 0.0
    balls: int = 0
    slowest: float = 0.0

    @property
    def rate(self) -> float:
        """Points per seat-game (a shared win counts 1/k)."""
        return self.points / self.games if self.games else 0.0

    @property
    def interval(self) -> tuple[float, float]:
        """95% Wilson interval of :attr:`rate`."""
        return wilson_interval(self.points, self.games)

    def to_json(self) -> dict[str, Any]:
        """JSON-ready form."""
        lo, hi = self.interval
        return {"engine": self.engine, "games": self.games, "wins": self.wins, "shared_wins": self.shared,
                "points": round(self.points, 3), "win_rate": round(self.rate, 4),
                "ci95": [round(lo, 4), round(hi, 4)],
                "mean_balls": round(self.balls / self.games, 2) if self.games else 0.0,
                "slowest_move": round(self.slowest, 4)}


@dataclass
class TournamentResult:
    """Standings (best first) and every game."""

    variant: str
    players: int
    time_limit: float
    standings: list[EngineStanding]
    games: list[GameResult] = field(default_factory=list)
    seconds: float = 0.0

    def to_json(self) -> dict[str, Any]:
        """JSON-ready form."""
        return {"variant": self.variant, "players": self.players, "time": self.time_limit,
                "games": len(self.games), "seconds": round(self.seconds, 1),
                "standings": [s.to_json() for s in self.standings],
                "results": [g.to_json() for g in self.games]}

    def table(self) -> str:
        """The standings as a text table."""
        lines = [f"{len(self.games)} games, {self.variant}, {self.players} players, {self.time_limit:g} s per move, "
                 f"{self.seconds:.0f} s",
                 f"{'engine':10s} {'seat-games':>10s} {'wins':>5s} {'shared':>6s} {'win rate':>8s}  95% CI"
                 f"           {'balls':>5s} {'slowest':>7s}"]
        for s in self.standings:
            lo, hi = s.interval
            lines.append(f"{s.engine:10s} {s.games:10d} {s.wins:5d} {s.shared:6d} {100 * s.rate:7.1f}%  "
                         f"[{100 * lo:5.1f}%, {100 * hi:5.1f}%]  {s.balls / max(1, s.games):5.1f} "
                         f"{s.slowest:6.3f}s")
        return "\n".join(lines)


def run_tournament(engines: Sequence[str], games: int, time_limit: float, *, variant: str = "classic",
                   players: int = 2, jobs: int | None = None, seed: int = 1,
                   progress: Callable[[GameResult], None] | None = None) -> TournamentResult:
    """Play ``games`` games and tally the engines' win rates.

    ``jobs`` games run at once in separate processes (default: one per core;
    1 plays in this process).

    >>> result = run_tournament(["greedy", "random"], 2, 0.01, variant="quick4", jobs=1)
    >>> sorted(s.engine for s in result.standings), sum(s.games for s in result.standings)
    (['greedy', 'random'], 4)
    """
    names = [e.strip().lower() for e in engines if e.strip()]
    for name in names:
        if name not in ENGINES + LEVELS:
            raise SetupError(f"unknown engine {name!r}: use {', '.join(ENGINES + LEVELS)}")
    if games < 1:
        raise SetupError("play at least one game")
    if time_limit <= 0:
        raise SetupError("the time per move must be more than 0 seconds")
    v = get_variant(variant)
    standard_order(v, players)  # refuses a seating the edition does not allow
    groups = lineups(names, players)
    specs = [(i, groups[(i // players) % len(groups)], v.name, players, time_limit, seed * 100_003 + i)
             for i in range(games)]
    if games % (players * len(groups)):
        log.warning("%d games do not rotate every line-up through every seat evenly (use a multiple of %d)",
                    games, players * len(groups))
    jobs = max(1, min(jobs or os.cpu_count() or 1, games))
    t0 = time.perf_counter()
    results: list[GameResult] = []
    if jobs == 1:
        iterator: Iterator[GameResult] = map(_play, specs)
        for r in iterator:
            results.append(r)
            if progress:
                progress(r)
    else:
        # Spawned workers start clean (no copied threads or locks).
        with multiprocessing.get_context("spawn").Pool(jobs) as pool:
            for r in pool.imap_unordered(_play, specs):
                results.append(r)
                if progress:
                    progress(r)
    results.sort(key=lambda r: r.index)
    standings: dict[str, EngineStanding] = {name: EngineStanding(name) for name in dict.fromkeys(names)}
    for r in results:
        for colour, name in r.seats.items():
            s = standings[name]
            s.games += 1
            s.balls += r.scores[colour]
            if colour in r.winners:
                if len(r.winners) == 1:
                    s.wins += 1
                else:
                    s.shared += 1
                s.points += 1 / len(r.winners)
        for name, took in r.slowest.items():
            standings[name].slowest = max(standings[name].slowest, took)
    ranked = sorted(standings.values(), key=lambda s: -s.rate)
    return TournamentResult(v.name, players, time_limit, ranked, results, time.perf_counter() - t0)
