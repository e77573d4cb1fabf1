"""The board's printed grid lines: moving a grid guess onto them, perspective included.

Many boards print thin lines between the cells (a black board's lighter
lines, a white board's darker ones). Where they show they pin the grid far
better than the cups and balls do: they lie on the board's plane, have no
shading of their own and run the board's whole width. On a black board they
are often all there is (its cups hardly show), and a grid found from the
board's outline or from the four balls of the start position can be half a
cell out at a corner, with its centre right.

The region round a guess is rectified, and each inner line (between two rows
or columns of cells, clear of the frame) is looked for as a straight ridge
within :data:`REACH` cells of where the guess puts it: the candidate whose
ridge response, along its whole length, has the highest median. The median
ignores what crosses a line for a cell or two (a ball, a hand's edge) and
scores low where there is no line: a row of cup rims touches a straight line
only once a cell. The lines' crossings give the grid's homography.

>>> import numpy as np
>>> image = np.full((400, 400, 3), 20, np.uint8)
>>> for k in range(9):
...     image[:, 40 + 40 * k] = image[40 + 40 * k, :] = 90
>>> corners = np.array([[50.0, 46.0], [366.0, 40.0], [362.0, 362.0], [44.0, 356.0]])
>>> found = on_lines(image, corners, 8)
>>> float(np.abs(found - [[40, 40], [360, 40], [360, 360], [40, 360]]).max()) < 1.5  # pixels; a cell is 40
True
>>> on_lines(np.full((400, 400, 3), 20, np.uint8), corners, 8) is None  # no lines there
True
"""

from __future__ import annotations

import logging
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt

from .lattice import grid_homography, rectify
from .locate import apply_homography, cells_apart

__all__ = ["grown_on_lines", "on_lines"]

log = logging.getLogger(__name__)

F64 = npt.NDArray[np.float64]
F32 = npt.NDArray[np.float32]
Line = tuple[int, float, float, float]  # see _lines

PX, PAD = 32, 1  # pixels a cell, and cells round the grid, in the rectified view
REACH = 0.45  # cells either side of where the guess puts a line that it is looked for
DRIFT = 0.6  # cells a line may lean over its length, relative to the guess
SHIFTS = np.arange(-REACH, REACH + 1e-9, 1.0 / PX)  # the candidates looked at
LEANS = np.arange(-DRIFT, DRIFT + 1e-9, 0.5 / PX)
# Lines are taken when the median of the inner lines' responses is this many times the typical ridge
# response anywhere in the view, and their crossings fit one homography to within this many cells. On
# development start positions boards without lines reached 0.6-1.7 and boards with them 0.8-9: the fit
# is what tells a board's lines from cup rims or a cloth's pattern. Of 309 calibration grids, 79 came more
# than 0.1 cells nearer the truth and one went further out (0.19 to 0.29 cells, a green board's).
STRENGTH, RESIDUAL = 0.8, 0.08
# Looks at most; a look that moves the grid less than this many cells is the last. A guess half a cell out can
# take four to come in: development start position 92's crossings lay 0.28, 0.13, 0.09, then 0.06 cells off one
# grid. With three looks, of 584 calibrations 92 stayed 0.44 cells out and 424 0.79; with five, 0.25 and 0.10
# (three more nearer by 0.05 or more, one further: 0.15 to 0.19).
LOOKS, SETTLED = 5, 0.05


def on_lines(image: npt.NDArray[Any], corners: F64, n: int) -> F64 | None:
    """The grid (corners tl, tr, br, bl) moved onto the board's printed lines near ``corners``, or ``None``
    when there are none to be seen (or they do not agree on one grid).

    The guess must be within about :data:`REACH` cells everywhere: a guess a
    whole cell out stays a whole cell out. Each look starts from the last
    one's answer (up to :data:`LOOKS`), so a corner too far out for the first
    look comes in on the next; only an answer whose lines fit one grid counts.
    """
    if n < 3:
        return None
    found = None
    grid = np.asarray(corners, np.float64)
    for _ in range(LOOKS):
        look = _look(image, grid, n)
        if look is None:
            break
        moved = cells_apart(grid, look[0], n)
        grid, residual = look
        if residual <= RESIDUAL:
            found = grid
            if moved < SETTLED:
                break
    return found


def grown_on_lines(image: npt.NDArray[Any], corners: F64, n: int) -> F64 | None:
    """:func:`on_lines` for a guess right only near its middle (its centre right, its corners cells out):
    the middle four by four cells are moved onto their lines first, then the whole grid from them.

    ``None`` when either has no lines to be seen. The board's size must be
    even (the middle block is centred).
    """
    if n <= 4:
        return on_lines(image, corners, n)
    lo, hi = n / 2 - 2, n / 2 + 2
    middle = apply_homography(grid_homography(corners, n), np.array([[lo, lo], [hi, lo], [hi, hi], [lo, hi]]))
    block = on_lines(image, middle, 4)
    if block is None:
        return None
    whole = np.array([[-lo, -lo], [n - lo, -lo], [n - lo, n - lo], [-lo, n - lo]])
    return on_lines(image, apply_homography(grid_homography(block, 4), whole), n)


def _look(image: npt.NDArray[Any], corners: F64, n: int) -> tuple[F64, float] | None:
    """One look for the lines near ``corners``: the grid their crossings fit, and how far the crossings lie
    from it at worst (cells); ``None`` when the lines do not stand out."""
    h = grid_homography(corners, n)
    lightness = np.asarray(rectify(image, h, n, PAD, PX)[..., 0], np.float32)
    across, down = _ridges(lightness)
    typical = float(np.median(np.abs(across))) + 1e-6
    # The medians of every candidate line, once: those of darker lines than the plastic are their negatives.
    across_medians, down_medians = _medians(across, n), _medians(down.T, n)
    looks = []
    for sign in (1.0, -1.0):  # lighter lines, or darker
        columns, rows = _lines(sign * across_medians), _lines(sign * down_medians)
        looks.append((float(np.median([line[1] for line in columns + rows])) / typical, columns, rows))
    strength, columns, rows = max(looks, key=lambda look: look[0])
    if strength < STRENGTH:
        return None
    grid, seen = _crossings(columns, rows, n)
    found: Any = cv2.findHomography(grid, seen, 0)[0]  # None for crossings all on one line
    if found is None:
        return None
    fit = np.asarray(found, np.float64)
    residual = float(np.max(np.linalg.norm(apply_homography(fit, grid) - seen, axis=1)))
    log.debug("grid lines: strength %.1f, crossings %.2f cells off one grid", strength, residual)
    box = np.array([[0, 0], [n, 0], [n, n], [0, n]], np.float64)
    return apply_homography(h @ fit, box), residual


def _ridges(lightness: F32) -> tuple[F32, F32]:
    """How much lighter than either side each pixel is, across (for lines running down) and down the view."""
    g = cv2.GaussianBlur(lightness, (0, 0), 1.0)
    return (
        np.asarray(-cv2.Sobel(g, cv2.CV_32F, 2, 0, ksize=3), np.float32),
        np.asarray(-cv2.Sobel(g, cv2.CV_32F, 0, 2, ksize=3), np.float32),
    )


def _medians(ridge: F32, n: int) -> F64:
    """For each inner line running down the view (u = i = 1 .. n-1) and each candidate (lean, shift) for it,
    the median of ``ridge`` along the candidate: ``u = i + shift + lean * (v - n/2) / n`` (cells)."""
    v = (np.arange(n * PX) + 0.5) / PX
    ys = np.round((v + PAD) * PX - 0.5).astype(np.int64)
    offsets = SHIFTS[None, :, None] + LEANS[:, None, None] * (v[None, None, :] - n / 2) / n
    out = np.empty((n - 1, len(LEANS), len(SHIFTS)))
    for i in range(1, n):
        xs = (i + offsets + PAD) * PX - 0.5
        x0 = np.clip(np.floor(xs).astype(np.int64), 0, ridge.shape[1] - 2)
        f = xs - x0
        # Sampled between columns.
        out[i - 1] = np.median(ridge[ys, x0] * (1 - f) + ridge[ys, x0 + 1] * f, axis=2)
    return out


def _lines(medians: F64) -> list[Line]:
    """Each inner line's best candidate (see :func:`_medians`): ``i``, its median response, ``shift``, ``lean``."""
    out = []
    for i, score in enumerate(medians, start=1):
        li, si = np.unravel_index(int(np.argmax(score)), score.shape)
        out.append((i, float(score[li, si]), float(SHIFTS[si]) + _vertex(score[li], int(si)) / PX, float(LEANS[li])))
    return out


def _vertex(values: F64, k: int) -> float:
    """Where a parabola through the peak ``values[k]`` and its neighbours peaks, in steps from ``k``."""
    if not 0 < k < len(values) - 1:
        return 0.0
    left, mid, right = (float(x) for x in values[k - 1 : k + 2])
    curve = left - 2 * mid + right
    return 0.5 * (left - right) / curve if curve < 0 else 0.0


def _crossings(columns: list[Line], rows: list[Line], n: int) -> tuple[F64, F64]:
    """Where each column line crosses each row line: grid coordinates, and the guess's."""
    grid, seen = [], []
    for i, _, a, b in columns:
        for j, _, c, d in rows:
            # u = i + a + b (v - n/2) / n and v = j + c + d (u - n/2) / n, solved together.
            m = np.array([[1.0, -b / n], [-d / n, 1.0]])
            u, w = np.linalg.solve(m, [i + a - b / 2, j + c - d / 2])
            grid.append((i, j))
            seen.append((u, w))
    return np.array(grid, np.float64), np.array(seen, np.float64)

