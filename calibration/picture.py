"""The start position's picture, kept where only a board's outline placed calibration's grid.

A black board whose cups do not show is placed at calibration by its outline
and four balls, often a fifth of a cell or more off its cups; every cell's
empty reference is then read a little off its cup. A game frame with many
balls locks the lattice on far more surely, and the references can be read
again from this picture on that grid (see
:meth:`rolit.calibration.reader.BoardReader.readings`). The picture is kept at
full size and in colour, as the readings are taken, and only round the grid.

>>> import numpy as np
>>> image = np.full((120, 160, 3), 90, np.uint8)
>>> corners = [[40, 20], [120, 20], [120, 100], [40, 100]]
>>> picture = StartPicture.take(image, corners, 6)
>>> picture.features_on(corners, 6).shape
(36, 19)
>>> StartPicture.from_json(picture.to_json()) == picture
True
"""

from __future__ import annotations

import base64
from dataclasses import dataclass
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt

from rolit.vision.features import features_from_lab, sample_cells, sampled_box
from rolit.vision.locate import grid_homography

__all__ = ["StartPicture"]

U8 = npt.NDArray[np.uint8]
F64 = npt.NDArray[np.float64]

# Cells kept beyond what the readings of calibration's grid need, on each side: the grid the references are read on
# again may lie more than a cell from calibration's (1.15 on development scene 276).
MARGIN = 1.5
LOSSLESS = 101  # cv2.IMWRITE_WEBP_QUALITY above 100: lossless


@dataclass(frozen=True, eq=False)
class StartPicture:
    """A BGR picture of ``frame`` (height, width) pixels, cut to the part whose top-left pixel is ``origin``
    (x, y)."""

    pixels: U8
    origin: tuple[int, int]
    frame: tuple[int, int]

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, StartPicture):
            return NotImplemented
        return self.origin == other.origin and self.frame == other.frame and np.array_equal(self.pixels, other.pixels)

    __hash__ = None  # type: ignore[assignment]  # pixels are not hashed

    @classmethod
    def take(cls, image: U8, corners: npt.ArrayLike, n: int) -> StartPicture:
        """The part of a BGR ``image`` round the n x n grid at ``corners`` (tl, tr, br, bl)."""
        c = np.asarray(corners, np.float64)
        height, width = image.shape[:2]
        margin = MARGIN * float(np.max(np.linalg.norm(c - np.roll(c, 1, axis=0), axis=1))) / n
        box = np.asarray(sampled_box((width, height), grid_homography(c, n), n))
        x0, y0 = (max(0, int(np.floor(v - margin))) for v in box[:2])
        x1, y1 = (min(limit, int(np.ceil(v + margin))) for v, limit in zip(box[2:], (width, height), strict=True))
        if x1 - x0 < 8 or y1 - y0 < 8:
            raise ValueError("the grid is not in the picture")
        return cls(np.ascontiguousarray(image[y0:y1, x0:x1]), (x0, y0), (height, width))

    def holds(self, corners: npt.ArrayLike, n: int) -> bool:
        """Whether the picture holds every pixel the readings of the grid at ``corners`` need (beyond the frame's
        edges, the edge's own)."""
        height, width = self.frame
        x0, y0 = self.origin
        x1, y1 = x0 + self.pixels.shape[1], y0 + self.pixels.shape[0]
        lo_x, lo_y, hi_x, hi_y = sampled_box((width, height), grid_homography(np.asarray(corners, np.float64), n), n)
        return bool((lo_x >= x0 or x0 == 0) and (lo_y >= y0 or y0 == 0)
                    and (hi_x <= x1 or x1 == width) and (hi_y <= y1 or y1 == height))  # fmt: skip

    def features_on(self, corners: npt.ArrayLike, n: int) -> F64:
        """Every cell's readings (row-major) on the grid at ``corners`` (frame pixels), as a reader takes them."""
        # The frame is made whole again: the camera's pose behind the grid, which says where each ball's top
        # appears, takes the picture's centre for the lens's.
        frame = np.zeros((*self.frame, 3), np.uint8)
        x0, y0 = self.origin
        frame[y0 : y0 + self.pixels.shape[0], x0 : x0 + self.pixels.shape[1]] = self.pixels
        return features_from_lab(sample_cells(frame, grid_homography(np.asarray(corners, np.float64), n), n))

    def to_json(self) -> dict[str, Any]:
        """JSON-ready form (the picture as a base64 lossless WebP: two thirds the size of a PNG)."""
        ok, webp = cv2.imencode(".webp", self.pixels, [cv2.IMWRITE_WEBP_QUALITY, LOSSLESS])
        if not ok:
            raise ValueError("cannot encode the start picture")
        return {"webp": base64.b64encode(webp.tobytes()).decode("ascii"), "origin": list(self.origin),
                "frame": list(self.frame)}  # fmt: skip

    @classmethod
    def from_json(cls, data: Any) -> StartPicture:
        """The picture from its JSON form; ``ValueError`` says what is wrong."""
        if not isinstance(data, dict):
            raise ValueError("the start picture must be an object")
        try:
            raw = base64.b64decode(str(data["webp"]), validate=True)
        except (KeyError, ValueError) as exc:
            raise ValueError(f"the start picture is not base64: {exc}") from None
        pixels = cv2.imdecode(np.frombuffer(raw, np.uint8), cv2.IMREAD_COLOR) if raw else None
        if pixels is None or min(pixels.shape[:2]) < 8:
            raise ValueError("the start picture is not a WebP picture")
        try:
            origin = [int(v) for v in data.get("origin", ())]
            frame = [int(v) for v in data.get("frame", ())]
        except (TypeError, ValueError, OverflowError):
            origin, frame = [], []
        if len(origin) != 2 or len(frame) != 2:
            raise ValueError("the start picture needs an origin (x, y) and a frame size (height, width)")
        if (min(origin) < 0 or origin[0] + pixels.shape[1] > frame[1]
                or origin[1] + pixels.shape[0] > frame[0]):  # fmt: skip
            raise ValueError("the start picture is not inside its frame")
        return cls(np.ascontiguousarray(pixels), (origin[0], origin[1]), (frame[0], frame[1]))

