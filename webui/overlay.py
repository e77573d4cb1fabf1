"""The annotated video: the found grid, the colour read on each cell, cells to fix, the hint.

Drawn with OpenCV on a copy of the camera frame, from an
:class:`~rolit.vision.observation.Observation` and the session's state.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

import cv2
import numpy as np
import numpy.typing as npt

from rolit.engine import UNKNOWN, Colour, Square, parse_square
from rolit.vision.observation import Observation

__all__ = ["annotate", "encode_jpeg", "placeholder"]

Image = npt.NDArray[np.uint8]

# BGR colours for drawing.
_BGR: Mapping[Colour, tuple[int, int, int]] = {
    Colour.RED: (40, 40, 220),
    Colour.YELLOW: (30, 210, 240),
    Colour.GREEN: (60, 170, 40),
    Colour.BLUE: (220, 110, 30),
    Colour.GREY: (150, 150, 150),
}


def annotate(
    image: Image,
    observation: Observation | None,
    to_fix: Iterable[str] = (),
    hint: str | None = None,
) -> Image:
    """The frame with the grid outline, a letter on each read cell, red rings on cells to fix
    and a gold ring on the hinted square."""
    out = image.copy()
    if observation is None or observation.board is None or observation.corners is None:
        return out
    pts = np.array(observation.corners, dtype=np.int32).reshape(-1, 1, 2)
    cv2.polylines(out, [pts], True, (255, 255, 255), 2, cv2.LINE_AA)
    board = observation.board
    size = board.size
    scale = max(out.shape[1] / 640.0, 0.5)
    radius = max(int(0.35 * _cell_pixels(observation.corners, size)), 5)
    points = dict(observation.cell_points) or _grid_points(observation.corners, size)
    for sq, cell in board.items():
        if sq not in points:
            continue
        x, y = (round(v) for v in points[sq])
        if cell is UNKNOWN:
            cv2.putText(out, "?", (x - 5, y + 5), cv2.FONT_HERSHEY_SIMPLEX, 0.5 * scale, (255, 255, 255), 1,
                        cv2.LINE_AA)
        elif isinstance(cell, Colour):
            cv2.circle(out, (x, y), radius // 2, _BGR[cell], -1, cv2.LINE_AA)
            cv2.putText(out, cell.letter, (x - int(5 * scale), y + int(5 * scale)), cv2.FONT_HERSHEY_SIMPLEX,
                        0.45 * scale, (0, 0, 0), 1, cv2.LINE_AA)
    for name, colour, thick in [(s, (0, 0, 255), 3) for s in to_fix] + ([(hint, (0, 215, 255), 3)] if hint else []):
        ring = _square(name, size)
        if ring is not None and ring in points:
            x, y = (round(v) for v in points[ring])
            cv2.circle(out, (x, y), radius, colour, thick, cv2.LINE_AA)
    return out


def _square(name: str, size: int) -> Square | None:
    try:
        return parse_square(name, size)
    except Exception:
        return None


def _cell_pixels(corners: tuple[tuple[float, float], ...] | list[tuple[float, float]], size: int) -> float:
    (x0, y0), (x1, y1) = corners[0], corners[1]
    return float(np.hypot(x1 - x0, y1 - y0)) / size


def _grid_points(corners: tuple[tuple[float, float], ...], size: int) -> dict[Square, tuple[float, float]]:
    """Cell centres from the four corners (a homography), when the reader gave none."""
    src = np.array([[0, 0], [size, 0], [size, size], [0, size]], dtype=np.float32)
    h = cv2.getPerspectiveTransform(src, np.array(corners, dtype=np.float32))
    centres = np.array([[[c + 0.5, r + 0.5]] for r in range(size) for c in range(size)], dtype=np.float32)
    mapped = cv2.perspectiveTransform(centres, h).reshape(-1, 2)
    return {r * 8 + c: (float(mapped[r * size + c][0]), float(mapped[r * size + c][1]))
            for r in range(size) for c in range(size)}


def placeholder(text: str, size: tuple[int, int] = (640, 360)) -> Image:
    """A dark frame with one line of text (no camera picture yet, or manual mode)."""
    image = np.full((size[1], size[0], 3), 40, np.uint8)
    cv2.putText(image, text, (20, size[1] // 2), cv2.FONT_HERSHEY_SIMPLEX, 0.8, (230, 230, 230), 2, cv2.LINE_AA)
    return image


def encode_jpeg(image: Image, quality: int = 75) -> bytes:
    """JPEG bytes of a BGR image."""
    ok, data = cv2.imencode(".jpg", image, [int(cv2.IMWRITE_JPEG_QUALITY), quality])
    if not ok:
        raise ValueError("the frame could not be encoded as JPEG")
    return bytes(data.tobytes())
