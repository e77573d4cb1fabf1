"""The built-in demo: a bundled game played out on the synthetic board, mistakes and all.

The record (``data/demo.rolit``, a four-player quick game on 6x6) is played
with every kind of scripted mistake early on, each then put right, so a page
watching the demo shows every kind of referee flag within a couple of minutes.

>>> clip = demo_clip(size=(160, 120), max_moves=12)
>>> [kind for _, kind in clip.mistakes_made]
['missed_capture', 'missing_roll', 'out_of_turn', 'extra_roll', 'takeback']
"""

from __future__ import annotations

import logging
import os
from collections.abc import Iterator
from importlib import resources
from pathlib import Path

import numpy as np
import numpy.typing as npt

from rolit.engine import Game, load_record

from .clip import ClipFrame, GameClip, Mistake, write_clip
from .params import Light, RenderParams
from .renderer import GroundTruth

__all__ = ["DEMO_MISTAKES", "cached_demo_video", "demo_clip", "demo_frames", "demo_game", "demo_record_text"]

log = logging.getLogger(__name__)

# Where in the demo game each mistake is made (move numbers), early and spread out.
DEMO_MISTAKES = (
    Mistake("missed_capture", 3),
    Mistake("missing_roll", 5),
    Mistake("out_of_turn", 7),
    Mistake("extra_roll", 9),
    Mistake("takeback", 11),
)

DEMO_PARAMS = RenderParams(
    size=(640, 360),
    elevation=62.0,
    azimuth=4.0,
    roll=-1.5,
    fill=0.78,
    hfov=62.0,
    k1=-0.06,
    board_style=1,
    table_style=0,
    clutter=4,
    lights=(Light(35.0, 62.0, 1500.0, 3600.0, 1.0, 80.0), Light(230.0, 50.0, 2200.0, 5500.0, 0.45, 200.0)),
    ambient=0.3,
    noise=0.006,
    defocus=0.5,
    jpeg_quality=85,
    scene_seed=2024,
)


def demo_record_text() -> str:
    """The bundled demo game record."""
    return resources.files("rolit.vision").joinpath("data/demo.rolit").read_text(encoding="utf-8")


def demo_game() -> Game:
    """The bundled demo game."""
    return load_record(demo_record_text())


def demo_clip(size: tuple[int, int] = (640, 360), fps: float = 10.0, max_moves: int | None = None) -> GameClip:
    """The demo clip (rendered lazily as it is iterated)."""
    params = RenderParams(**{**DEMO_PARAMS.__dict__, "size": size})
    return GameClip(demo_game(), params, fps=fps, mistakes=DEMO_MISTAKES, seed=7, max_moves=max_moves)


def demo_frames(
    size: tuple[int, int] = (640, 360), fps: float = 10.0, loop: bool = False
) -> Iterator[tuple[npt.NDArray[np.uint8], GroundTruth, ClipFrame]]:
    """Frames of the demo clip, rendered on the fly (about 25 ms each at 640x360); ``loop`` repeats forever."""
    clip = demo_clip(size, fps)
    while True:
        yield from clip
        if not loop:
            return


def _cache_dir() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "rolit-assistant"


def cached_demo_video(size: tuple[int, int] = (640, 360), fps: float = 10.0, folder: Path | None = None) -> Path:
    """The demo clip as an MJPG ``.avi`` in the user's cache folder, rendered on first use."""
    folder = folder if folder is not None else _cache_dir()
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"demo-{size[0]}x{size[1]}-{fps:g}fps.avi"
    if not path.exists():
        log.info("rendering the demo clip to %s (once)", path)
        tmp = path.with_name("partial-" + path.name)
        write_clip(demo_clip(size, fps), tmp)
        tmp.replace(path)
        tmp.with_name(tmp.name + ".truth.jsonl").replace(path.with_name(path.name + ".truth.jsonl"))
    return path
