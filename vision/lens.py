"""A camera's radial lens: its pictures straightened, and points moved between the two.

A webcam's wide lens bends straight lines, most towards the picture's corners
(barrel distortion), and a board's grid is only a homography in a picture
without it. One number describes the common case: a point at radius ``r``
from the picture's centre (in half-diagonals) in a straight picture appears
at ``r * (1 + k * r**2)``; ``k`` is negative for a barrel. A straightened
picture has the size and centre of the picture it comes from.

>>> lens = Lens(-0.2, (1280, 720))
>>> p = lens.to_picture([[100.0, 80.0]])
>>> bool(np.allclose(lens.to_straight(p), [[100.0, 80.0]]))
True
>>> Lens(0.0, (1280, 720)).straighten(np.zeros((720, 1280, 3), np.uint8)).shape
(720, 1280, 3)
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass

import cv2
import numpy as np
import numpy.typing as npt

__all__ = ["Lens"]

F64 = npt.NDArray[np.float64]
U8 = npt.NDArray[np.uint8]


@dataclass(frozen=True)
class Lens:
    """A radial lens ``k`` (see the module) for pictures ``size`` (width, height) pixels."""

    k: float
    size: tuple[int, int]

    @property
    def _centre(self) -> F64:
        return np.array([(self.size[0] - 1) / 2, (self.size[1] - 1) / 2])

    @property
    def _scale(self) -> float:
        return math.hypot(self.size[0], self.size[1]) / 2

    @property
    def _fold(self) -> float:
        """The straight radius past which a barrel folds the picture back (no picture point lies further out)."""
        return math.sqrt(-1.0 / (3.0 * self.k)) if self.k < 0 else math.inf

    def to_picture(self, points: npt.ArrayLike) -> F64:
        """Where points of the straightened picture (N x 2) appear in the picture."""
        p = (np.asarray(points, np.float64).reshape(-1, 2) - self._centre) / self._scale
        r2 = np.minimum(np.sum(p * p, axis=1, keepdims=True), self._fold**2)
        out: F64 = p * (1.0 + self.k * r2) * self._scale + self._centre
        return out

    def to_straight(self, points: npt.ArrayLike) -> F64:
        """Where points of the picture (N x 2) lie in the straightened picture (the inverse of :meth:`to_picture`)."""
        p = (np.asarray(points, np.float64).reshape(-1, 2) - self._centre) / self._scale
        rd = np.linalg.norm(p, axis=1)
        ru = rd.copy()
        # Newton on r (1 + k r^2) = rd, from rd; a point past the fold maps onto it.
        for _ in range(12):
            f = ru + self.k * ru**3 - rd
            ru = np.clip(ru - f / np.maximum(1.0 + 3.0 * self.k * ru**2, 1e-6), 0.0, self._fold)
        scale = np.where(rd > 1e-12, ru / np.maximum(rd, 1e-12), 1.0)
        out: F64 = p * scale[:, None] * self._scale + self._centre
        return out

    def straighten(self, image: U8, box: tuple[int, int, int, int] | None = None) -> U8:
        """``image`` as a camera without this lens would show it (the same size; black where it shows nothing).

        With ``box`` (x0, y0, x1, y1 of the straightened picture) only that part is straightened, the rest
        left black: following a board needs only the picture round it.
        """
        h, w = image.shape[:2]
        if self.k == 0.0:
            return image
        if (w, h) != self.size:
            raise ValueError(f"this lens is for {self.size[0]}x{self.size[1]} pictures, not {w}x{h}")
        xy, frac = _maps(self.k, w, h)
        if box is None:
            return np.asarray(cv2.remap(image, xy, frac, cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT), np.uint8)
        x0, y0, x1, y1 = max(0, box[0]), max(0, box[1]), min(w, box[2]), min(h, box[3])
        part: U8 = np.zeros(image.shape, np.uint8)  # calloc'd: the pages left black cost nothing
        if x1 > x0 and y1 > y0:
            # Straight into the part (no copy of it): a third of the time for a board seen large.
            cv2.remap(image, xy[y0:y1, x0:x1], frac[y0:y1, x0:x1], cv2.INTER_LINEAR, dst=part[y0:y1, x0:x1],
                      borderMode=cv2.BORDER_CONSTANT)
        return part


@functools.lru_cache(maxsize=4)
def _maps(k: float, width: int, height: int) -> tuple[npt.NDArray[np.int16], npt.NDArray[np.uint16]]:
    """``cv2.remap``'s fixed-point maps from the straightened picture to the picture (made once per lens)."""
    lens = Lens(k, (width, height))
    ys, xs = np.mgrid[0:height, 0:width]
    straight = np.c_[xs.ravel(), ys.ravel()].astype(np.float64)
    seen = lens.to_picture(straight)
    r = np.linalg.norm((straight - lens._centre) / lens._scale, axis=1)
    seen[r >= lens._fold] = -10.0  # folded back: nothing there
    mx = seen[:, 0].reshape(height, width).astype(np.float32)
    my = seen[:, 1].reshape(height, width).astype(np.float32)
    xy, frac = cv2.convertMaps(mx, my, cv2.CV_16SC2)
    return np.asarray(xy, np.int16), np.asarray(frac, np.uint16)

