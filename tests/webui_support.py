"""Test-only stand-ins for the camera and the board reader: the demo clip's ground truth.

:class:`TruthSource` plays the demo clip's script as tiny frames that carry
their frame number in their pixels; :class:`TruthReader` reads that number back
and answers with the clip's true board (a hand over the board hides every
cell). Together they run the live session exactly as a perfect camera would,
without rendering, so the session's logic can be tested quickly.
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import numpy.typing as npt

from rolit.engine import UNKNOWN, Board
from rolit.vision.observation import Observation
from rolit.vision.sources import FrameSource
from rolit.vision.synthetic.clip import ClipFrame
from rolit.vision.synthetic.demo import demo_clip

Image = npt.NDArray[np.uint8]

_FRAMES: list[ClipFrame] | None = None


def demo_script() -> list[ClipFrame]:
    """The demo clip's frames (the script only, no rendering; cached)."""
    global _FRAMES
    if _FRAMES is None:
        _FRAMES = demo_clip(size=(160, 120)).frames
    return _FRAMES


def _encode(index: int) -> Image:
    image = np.zeros((32, 32, 3), np.uint8)
    image[0, 0] = (index % 256, (index // 256) % 256, 7)
    return image


class TruthSource(FrameSource):
    """The demo clip's frames as tiny images numbered in their pixels, at ``fps``."""

    def __init__(self, fps: float = 50.0, loop: bool = False, render: tuple[int, int] | None = None) -> None:
        super().__init__("truth", fps)
        self.loop = loop
        self.render = render  # a frame size: render the real demo pictures (number in the corner pixel)
        self._rendered: Iterator[tuple[Image, object, object]] | None = None
        self._it: Iterator[int] | None = None

    def _open(self) -> None:
        n = len(demo_script())
        self._it = iter(range(n * (1000 if self.loop else 1)))

    def _read(self) -> Image | None:
        assert self._it is not None
        index = next(self._it, None)
        if index is None:
            return None
        if self.render is not None:
            if self._rendered is None:
                self._rendered = iter(demo_clip(size=self.render))
            image = next(self._rendered)[0].copy()
            image[0, 0] = _encode(index)[0, 0]
            return image
        return _encode(index % len(demo_script()))


class TruthReader:
    """Reads the frame number from a :class:`TruthSource` image and returns the true board."""

    def __init__(self, variant: str = "quick6") -> None:
        self.variant = variant
        self.reads = 0

    def read(self, image: Image) -> Observation:
        self.reads += 1
        index = int(image[0, 0, 0]) + 256 * int(image[0, 0, 1])
        frame = demo_script()[index]
        board: Board = frame.board
        if frame.hand is not None:
            board = Board(board.size, [UNKNOWN] * (board.size * board.size))
            return Observation(board, corners=((1, 1), (30, 1), (30, 30), (1, 30)), quality=1.0, status="occluded")
        return Observation(board, corners=((1, 1), (30, 1), (30, 30), (1, 30)), quality=1.0, status="ok")

    def reset(self) -> None:
        pass

    def set_manual_corners(self, corners: object) -> None:
        self.corners = corners
