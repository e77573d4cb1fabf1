"""Engine speed figures for ``rolit bench engine``.

Each figure is the median of several timed runs; the machines are shared and
noisy, so the spread (min and max) is reported too.
"""

from __future__ import annotations

import platform
import random
import statistics
import time
from collections.abc import Callable
from typing import Any

from . import bitboard
from .position import Position
from .search import Algorithm, Searcher

__all__ = ["bench_engine"]


def _timed(fn: Callable[[], int], repeats: int) -> dict[str, float]:
    rates = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        count = fn()
        rates.append(count / (time.perf_counter() - t0))
    return {"median": statistics.median(rates), "min": min(rates), "max": max(rates), "runs": repeats}


def _sample_positions(count: int, seed: int) -> list[Position]:
    """Positions from random 4-player classic games, spread over the whole game."""
    rng = random.Random(seed)
    out: list[Position] = []
    while len(out) < count:
        pos = Position.start("classic", players=4)
        while not pos.is_full():
            out.append(pos)
            pos = pos._play_unchecked(rng.choice(pos.legal_moves()))
    return out[:count]


def bench_engine(repeats: int = 5, quick: bool = False) -> dict[str, Any]:
    """Measure the engine; returns a JSON-ready dict.

    - ``perft_leaves_per_second``: perft(6) of 4-player classic from the start
      (44,154 leaves); every node, leaves included, is a make and an unmake.
    - ``make_unmake_per_second``: the same run counted by every node made and
      unmade (all depths), the figure the engine's speed target is set in.
    - ``movegen_per_second``: legal-move generations (capture test included)
      over positions from random games.
    - ``playouts_per_second``: random games to the end through the public
      immutable :class:`Position` API.
    - ``search_nodes_per_second``: BRS and paranoid alpha-beta nodes (table
      hits included) per second of search, over positions from random games.
    - ``mcts_playouts_per_second``: MCTS playouts per second, same positions.
    - ``suggest_time_overrun``: elapsed time of whole ``suggest`` calls over
      their time limit (1.0 = exactly on time; the promise is under 1.1).
    """
    depth = 4 if quick else 6
    start = Position.start("classic", players=4)
    slots = tuple(start.variant.slot(c) for c in start.order)

    def run_perft() -> int:
        return bitboard.perft(start.geometry, list(start.bitboards), slots, 0, depth)

    leaves = bitboard.perft(start.geometry, list(start.bitboards), slots, 0, depth)
    nodes = sum(bitboard.perft(start.geometry, list(start.bitboards), slots, 0, d) for d in range(1, depth + 1))
    perft_rates = _timed(run_perft, repeats)
    scale = nodes / leaves

    samples = _sample_positions(500 if quick else 2000, seed=1)
    prepared = []
    for p in samples:
        occ = 0
        for b in p.bitboards:
            occ |= b
        prepared.append((p.bitboards[p.variant.slot(p.turn)], occ))
    geom = start.geometry

    def run_movegen() -> int:
        legal = geom.legal_moves
        for own, occ in prepared:
            legal(own, occ)
        return len(prepared)

    search_samples = _sample_positions(60, seed=3)[8:56:8 if not quick else 24]

    def run_search(algorithm: Algorithm) -> Callable[[], int]:
        def run() -> int:
            nodes = 0
            for pos in search_samples:
                nodes += Searcher.for_position(pos, algorithm).search(pos, time_limit=0.1 if quick else 0.25).nodes
            return nodes
        return run

    def run_mcts() -> int:
        from .mcts import MCTS

        count = 0
        for pos in search_samples:
            count += MCTS.for_position(pos, seed=1).search(pos, time_limit=0.1 if quick else 0.25).nodes
        return count

    rng = random.Random(2)

    def run_playouts() -> int:
        games = 3 if quick else 10
        for _ in range(games):
            pos = start
            while not pos.is_full():
                pos = pos._play_unchecked(rng.choice(pos.legal_moves()))
        return games

    return {
        "python": platform.python_version(),
        "machine": platform.machine(),
        "perft_depth": depth,
        "perft_leaves_per_second": perft_rates,
        "make_unmake_per_second": {k: (v * scale if k != "runs" else v) for k, v in perft_rates.items()},
        "movegen_per_second": _timed(run_movegen, repeats),
        "playouts_per_second": _timed(run_playouts, repeats),
        "search_nodes_per_second": {
            "brs": _timed(run_search("brs"), repeats),
            "paranoid": _timed(run_search("paranoid"), repeats),
        },
        "mcts_playouts_per_second": _timed(run_mcts, repeats),
        "suggest_time_overrun": _overrun(search_samples, 0.05 if quick else 0.1, 1 if quick else 3),
    }


def _overrun(positions: list[Position], limit: float, rounds: int) -> dict[str, Any]:
    """How far :func:`~rolit.engine.suggest.suggest` goes past its time limit:
    the worst and median ratio of elapsed time to the limit, every engine."""
    from .suggest import suggest

    ratios = []
    for _ in range(rounds):
        for engine in ("brs", "paranoid", "mcts"):
            for pos in positions:
                t0 = time.perf_counter()
                suggest(pos, time_limit=limit, engine=engine)
                ratios.append((time.perf_counter() - t0) / limit)
    return {"time_limit": limit, "calls": len(ratios), "median_ratio": round(statistics.median(ratios), 4),
            "max_ratio": round(max(ratios), 4)}
