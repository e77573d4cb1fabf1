"""Renderer speed for ``rolit bench render``: milliseconds per 1280x720 frame."""

from __future__ import annotations

import statistics
import time
from typing import Any

import numpy as np

from rolit.engine import Position

from .params import RenderParams
from .renderer import Renderer

__all__ = ["bench_render"]


def _timed_ms(fn: Any, repeats: int) -> dict[str, float]:
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t0) * 1000.0)
    return {"median": statistics.median(times), "min": min(times), "max": max(times), "runs": repeats}


def bench_render(repeats: int = 5, quick: bool = False) -> dict[str, Any]:
    """Time the renderer on a mid-game classic position.

    - ``still_ms``: a whole new 1280x720 render (scene, table, board, balls, camera effects).
    - ``clip_frame_ms``: a clip frame with a hand, where the scene and balls are cached.
    """
    size = (640, 360) if quick else (1280, 720)
    pos = Position.start("classic", players=4)
    rng = np.random.default_rng(5)
    for _ in range(20):
        pos = pos.play(pos.legal_moves()[int(rng.integers(len(pos.legal_moves())))])
    board = pos.board()
    params = RenderParams.random(np.random.default_rng(1), size=size)
    Renderer("classic", params).frame(board)  # warm the texture caches

    def still() -> None:
        Renderer("classic", params).frame(board)

    renderer = Renderer("classic", params)
    renderer.frame(board)
    from .hand import random_hand

    hand = random_hand(np.random.default_rng(2), renderer.geometry.cell_centre(27), 0.0)

    def clip_frame() -> None:
        renderer.frame(board, hand=hand)

    return {
        "size": f"{size[0]}x{size[1]}",
        "still_ms": _timed_ms(still, repeats),
        "clip_frame_ms": _timed_ms(clip_frame, repeats),
    }
