"""Colour features of each cell, read where the ball's top appears.

A ball's top colour is what the player rolled up; near its rim the neighbouring
segments show, and in an oblique view the top is well away from the cell's
centre on the board (parallax), so each cell is read in a small disc round the
projected top of a ball standing in it (from low down, a point of the up
segment leaning towards the camera: see :meth:`Pose.visible_tops`), placed by
the camera pose behind the grid, which keeps the grid's own plane (see
:class:`Pose`). No cell searches for a ball-like spot nearby: from low down that
finds the ball behind. Features are robust statistics in Lab
(medians and quantiles, which a highlight or a dark seam does not move much),
taken relative to the board's plastic, so that the light's colour and strength
matter less; the plastic is read at the grid-line crossings, where no ball ever is.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt

from .lattice import median
from .locate import apply_homography
from .pose import BALL_CENTRE_HEIGHT, BALL_TOP_HEIGHT, Pose

__all__ = ["CellSamples", "FEATURE_NAMES", "sample_cells", "features_from_lab"]

F64 = npt.NDArray[np.float64]
F32 = npt.NDArray[Any]  # float32 images; OpenCV's stubs widen dtypes freely
U8 = npt.NDArray[np.uint8]

FEATURE_NAMES = (
    "L", "a", "b", "dL", "da", "db", "chroma", "hue_cos", "hue_sin", "L_q25", "L_q75", "chroma_q75",
    "cup_dL", "cup_dchroma", "plastic_L", "plastic_a", "plastic_b", "ring_dL", "ring_dchroma",
)  # fmt: skip

_DISC = 24  # sample points in a reading disc


@dataclass(frozen=True)
class CellSamples:
    """Per cell (row-major, n * n): where it was read (ball tops, image pixels) and its raw Lab readings.

    ``top`` is the Lab of the disc round the ball's top (n*n x _DISC x 3);
    ``cup`` the Lab at the cup's centre on the plane, ``ring`` round the ball's
    waist; ``plastic`` the board's plastic colour (3,).
    """

    points: F64
    top: F32
    cup: F32
    ring: F32
    plastic: F32


def _disc_offsets(count: int) -> F64:
    """Points filling a unit disc evenly (a sunflower pattern)."""
    k = np.arange(count) + 0.5
    r = np.sqrt(k / count)
    theta = np.pi * (1 + 5**0.5) * k
    return np.asarray(np.c_[r * np.cos(theta), r * np.sin(theta)], np.float64)


_OFFSETS = _disc_offsets(_DISC)
_ANGLES = np.linspace(0, 2 * np.pi, 12, endpoint=False)
_RING = np.c_[np.cos(_ANGLES), np.sin(_ANGLES)]


# Sub-pixel steps a pixel is cut into for bilinear weights (as cv2.remap does, INTER_TAB_SIZE).
_TAB = 32


def _lab_at(image: U8, pts: F64, origin: tuple[int, int] = (0, 0)) -> F32:
    """Lab (float, as ``cv2.cvtColor`` of the BGR scaled to 0..1) of a BGR image, bilinear at points: (count, 3).

    The same as converting the whole picture to Lab and sampling it bilinearly
    with ``cv2.remap`` (edges replicated), but only the four pixels round each
    point are converted: a frame's few thousand readings need a few thousand
    pixels, where converting the board's part of the frame cost milliseconds.
    The points are rounded (to 1/32 pixel, as cv2.remap does) as seen from
    ``origin``, as if sampling the part of the picture from there on.
    """
    h, w = image.shape[:2]
    local = np.asarray(np.asarray(pts, np.float64) - np.asarray(origin, np.float64), np.float32)
    fixed = np.rint(local * np.float32(_TAB)).astype(np.int64)
    ix, iy = (fixed[:, 0] >> 5) + origin[0], (fixed[:, 1] >> 5) + origin[1]
    fx = ((fixed[:, 0] & (_TAB - 1)).astype(np.float32) * np.float32(1.0 / _TAB))[:, None]
    fy = ((fixed[:, 1] & (_TAB - 1)).astype(np.float32) * np.float32(1.0 / _TAB))[:, None]
    xs = np.clip(np.stack((ix, ix + 1), axis=1), 0, w - 1)
    ys = np.clip(np.stack((iy, iy + 1), axis=1), 0, h - 1)
    # Per point: (y0 x0, y0 x1, y1 x0, y1 x1); taken by the pixels' flat indices, far faster than indexing by rows
    # and columns.
    if image.flags.c_contiguous:
        quad = np.take(image.reshape(-1, 3), (ys[:, :, None] * w + xs[:, None, :]).ravel(), axis=0).reshape(-1, 4, 3)
    else:
        quad = image[ys[:, :, None], xs[:, None, :]].reshape(-1, 4, 3)
    bgr = quad.astype(np.float32)
    bgr /= 255.0
    lab = cv2.cvtColor(bgr, cv2.COLOR_BGR2LAB)
    one = np.float32(1.0)
    top = lab[:, 0] * (one - fx) + lab[:, 1] * fx
    bottom = lab[:, 2] * (one - fx) + lab[:, 3] * fx
    return np.asarray(top * (one - fy) + bottom * fy, np.float32)


@functools.lru_cache(maxsize=4)
def _grid_points(n: int) -> tuple[F64, F64, F64, F64]:
    """Grid points :func:`sample_cells` reads an n x n grid at (shared, not to be written to): the cells' centres
    (row-major), their balls' tops and centres (u, v, height), and points a little inside each cell's corners."""
    g = np.arange(n, dtype=np.float64) + 0.5
    cu, cv_ = np.meshgrid(g, g)
    cells = np.column_stack((cu.ravel(), cv_.ravel()))
    count = len(cells)
    tops3 = np.column_stack((cells, np.full(count, BALL_TOP_HEIGHT)))
    centres3 = np.column_stack((cells, np.full(count, BALL_CENTRE_HEIGHT)))
    k = np.concatenate((np.arange(n) + 0.14, np.arange(1, n + 1) - 0.14))
    xu, xv = np.meshgrid(k, k)
    plastic = np.column_stack((xu.ravel(), xv.ravel()))
    for a in (cells, tops3, centres3, plastic):
        a.flags.writeable = False
    return cells, tops3, centres3, plastic


def sample_cells(image: U8, homography: F64, n: int) -> CellSamples:
    """Read every cell of the grid ``homography`` maps (grid coordinates -> image pixels)."""
    size = (image.shape[1], image.shape[0])
    pose = Pose.from_homography(homography, size)
    cells, tops3, centres3, plastic_cells = _grid_points(n)
    count = len(cells)
    # Where the up colour shows best: the top, or from low down a point leaning towards the camera.
    tops = pose.project(pose.visible_tops(cells))
    centres = pose.project(centres3)
    radius = pose.ball_radius_px(tops3)
    plastic_pts = apply_homography(homography, plastic_cells)
    cup = apply_homography(homography, cells)
    # Readings are rounded as seen from the corner of the board's part of the frame.
    pad = 2.0 * float(radius.max()) + 4.0
    everything = np.vstack([tops, centres, cup, plastic_pts])
    x0, y0 = (max(0, int(v)) for v in everything.min(axis=0) - pad)
    plastic = median(_lab_at(image, plastic_pts, (x0, y0)), axis=0).astype(np.float32)
    # The top disc: a third of the ball's apparent radius, round the top.
    disc = (tops[:, None, :] + (0.33 * radius)[:, None, None] * _OFFSETS[None, :, :]).reshape(-1, 2)
    ring = (centres[:, None, :] + (0.8 * radius)[:, None, None] * _RING[None, :, :]).reshape(-1, 2)
    lab = _lab_at(image, np.vstack([disc, ring, cup]), (x0, y0))
    top_lab = lab[: len(disc)].reshape(count, _DISC, 3)
    ring_lab = lab[len(disc) : len(disc) + len(ring)].reshape(count, len(_RING), 3)
    cup_lab = lab[len(disc) + len(ring) :]
    return CellSamples(tops, top_lab, cup_lab, ring_lab, plastic)


def _percentiles(values: F64, qs: Sequence[float]) -> list[F64]:
    """``np.percentile(values, q, axis=1)`` (linear interpolation; no NaN among the values) for each ``q``, the
    same numbers from one partition of the values: np.percentile partitions them again for each ``q``, and its
    calls cost far more than the sorting on these small arrays.

    >>> x = np.random.default_rng(0).normal(size=(5, 24))
    >>> all(np.array_equal(p, np.percentile(x, q, axis=1)) for p, q in zip(_percentiles(x, (25, 75)), (25, 75)))
    True
    """
    last = values.shape[1] - 1
    spots = []
    for q in qs:
        virtual = last * (q / 100)  # where the percentile falls among the sorted values, as np.percentile has it
        below = min(math.floor(virtual), last)
        spots.append((virtual - below, below, min(below + 1, last)))
    part = np.partition(values, sorted({i for _, below, above in spots for i in (below, above)}), axis=1)
    out = []
    for t, below, above in spots:
        a, b = part[:, below], part[:, above]
        # np.percentile's interpolation: from whichever of the two values is nearer.
        out.append(b - (b - a) * (1 - t) if t >= 0.5 else a + (b - a) * t)
    return out


def features_from_lab(samples: CellSamples, transform: F64 | None = None) -> F64:
    """The feature matrix (cells x len(FEATURE_NAMES)); ``transform`` (3x4) corrects Lab colours first."""

    def fix(lab: npt.NDArray[np.floating]) -> F64:
        arr = np.asarray(lab, np.float64)
        if transform is None:
            return arr
        flat = arr.reshape(-1, 3)
        out = flat @ transform[:, :3].T + transform[:, 3]
        return np.asarray(out.reshape(arr.shape), np.float64)

    top = fix(samples.top)
    cup = fix(samples.cup)
    ring = fix(samples.ring)
    plastic = fix(samples.plastic.reshape(1, 3))[0]
    med = median(top, axis=1)
    chroma_all = np.hypot(top[..., 1], top[..., 2])
    l_q25, l_q75 = _percentiles(top[..., 0], (25.0, 75.0))
    (chroma_q75,) = _percentiles(chroma_all, (75.0,))
    chroma = np.hypot(med[:, 1], med[:, 2])
    hue = np.arctan2(med[:, 2], med[:, 1])
    p_chroma = float(np.hypot(plastic[1], plastic[2]))
    ring_med = median(ring, axis=1)
    cols = [
        med[:, 0], med[:, 1], med[:, 2],
        med[:, 0] - plastic[0], med[:, 1] - plastic[1], med[:, 2] - plastic[2],
        chroma, np.cos(hue), np.sin(hue),
        l_q25, l_q75, chroma_q75,
        cup[:, 0] - plastic[0], np.hypot(cup[:, 1], cup[:, 2]) - p_chroma,
        np.full(len(med), plastic[0]), np.full(len(med), plastic[1]), np.full(len(med), plastic[2]),
        ring_med[:, 0] - plastic[0], np.hypot(ring_med[:, 1], ring_med[:, 2]) - p_chroma,
    ]  # fmt: skip
    return np.asarray(np.column_stack(cols), np.float64)
