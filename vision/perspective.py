"""A grid guess moved onto the cups' own centres, perspective included, where no printed lines show.

The lattice alignment of :mod:`.lattice` moves a guess by an affine map of
the grid, which cannot change its perspective: the guess's vanishing lines
stay where the outline or the balls put them, and from low down a grid can lie
a third of a cell out at a far corner while every cell still locks on. On a
start position almost every cell is an empty cup, each a small mark of its
own centre, so a homography fitted to where each cell's content sits
(:func:`.lattice.realign_projective`) places the grid, perspective too.

It is taken only where the cups show surely: the guess must lock on well
(:data:`SURE`), no worse after the move, and move by less than :data:`REACH`
cells. Where the cups hardly show (a black board's, a dim one's) the
homography follows noise, and a move of more than a third of a cell is
another row of cups. A board's printed lines, where they show, place a grid
better still (:mod:`.gridlines`): a few hundredths of a cell against the
cups' few more.

Where a cup's content sits is not quite its centre, though: light falls into a
cup from one side, and from low down its far wall shows more than its near one.
The lattice alignment follows that content, so from the true grid it drifts a
tenth of a cell or two (a far row outwards, as the view gets lower there). Every
cup is biased alike, so each is compared with the mean of all the empty cups
instead (:func:`on_cup_template`): what differs from that mean is the grid's
own error. It cannot see a move of the whole grid (that moves the mean too), so
it only refines a grid found otherwise.

A cup's rim does not move with the light, though: the cup is darker than the
plastic round it and its rim is rounded, so its edges are circles round its
centre, on the board's plane, however the light falls (it only changes which
side of each circle is the brighter). :func:`on_cup_rims` finds each empty cup
by its rim (where a ring of the rim's size meets the most edge), fits a
homography to the cups robustly and takes it only where most cups agree with it
to a twentieth of a cell. That places the whole grid, its shift too, to a few
hundredths of a cell wherever the cups show at all, and refuses black and dim
boards whose cups do not.

>>> import numpy as np
>>> from .locate import apply_homography, grid_homography
>>> image = np.full((420, 420, 3), (150, 190, 210), np.uint8)  # plastic, BGR
>>> true = np.array([[60.0, 70.0], [350.0, 60.0], [380.0, 370.0], [40.0, 360.0]])
>>> h = grid_homography(true, 8)
>>> import cv2
>>> for v in range(8):
...     for u in range(8):
...         x, y = apply_homography(h, np.array([[u + 0.5, v + 0.5]]))[0]
...         _ = cv2.circle(image, (round(x), round(y)), 11, (90, 120, 140), -1)
>>> guess = true + [[4.0, -3.0], [-2.0, 5.0], [9.0, 8.0], [-3.0, 2.0]]
>>> placed = on_cups(image, guess, 8)
>>> placed is not None and float(np.abs(placed - true).max()) < 3.0  # pixels; a cell is about 37
True
>>> on_cups(np.full((420, 420, 3), 128, np.uint8), guess, 8) is None  # no cups to be seen
True
"""

from __future__ import annotations

import logging
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt

from . import lattice
from .locate import apply_homography, cells_apart
from .pose import CUP_RADIUS

__all__ = ["REACH", "SURE", "on_cup_rims", "on_cup_template", "on_cups", "rim_centres"]

log = logging.getLogger(__name__)

F64 = npt.NDArray[np.float64]

# Least lattice quality (lattice.quality: about 1.2 at best) for the cups to place a grid. On development start
# positions without printed lines, guesses under 0.9 were as often moved further out as nearer.
SURE = 0.9
# Most a grid may move (cells, at its worst cell): further is another row of cups, or noise followed.
REACH = 0.3
# Fits, each from the last one's grid (the cells' offsets are measured from where the grid puts them).
LOOKS = 3


def on_cups(image: npt.NDArray[Any], corners: F64, n: int) -> F64 | None:
    """The grid (corners tl, tr, br, bl in ``image``'s pixels) moved onto its cells' own centres by a
    homography, or ``None`` when the cups do not place it surely (see the module's docstring)."""
    start = np.asarray(corners, np.float64)
    view = lattice.look(image, start, n)
    before = lattice.quality(view)
    if before < SURE:
        return None
    for _ in range(LOOKS):
        grid = lattice.realign_projective(view)
        if not np.all(np.isfinite(grid)):
            return None
        view = lattice.look(image, grid, n)
    moved = cells_apart(start, grid, n)
    after = lattice.quality(view)
    if moved > REACH or after < before:
        log.debug("the cups' homography not taken: moved %.2f cells, quality %.2f -> %.2f", moved, before, after)
        return None
    return grid


# The cups compared with their mean (see on_cup_template): pixels a cell, the window round each cup (cells), the
# blur taken off to leave the cups' own shading (cells), and the fits from each start.
TEMPLATE_PX, TEMPLATE_WINDOW, TEMPLATE_FLAT, TEMPLATE_LOOKS = 32, 0.9, 0.6, 3
# A refined grid is taken when its cups sit this much nearer (cells, on average) the mean cup than on the grid as
# it was, it moved less than TEMPLATE_REACH cells, its cups match the mean at least TEMPLATE_MATCH (the median
# phase-correlation peak), and the grid as it was locked on the lattice at least TEMPLATE_SURE (lattice.quality).
# On development start positions 0-339 not placed on printed lines, this moved 36 grids nearer the truth by
# more than 0.03 cells and none further (median 0.070 -> 0.058 cells out at the worst cell; more than 0.3 cells
# out: 25 -> 21). With the least match at 0.3, 45 nearer and 4 further (by up to 0.17 cells).
TEMPLATE_GAIN, TEMPLATE_REACH, TEMPLATE_MATCH, TEMPLATE_SURE = 0.01, 0.35, 0.4, 0.6
# The lattice's own homography is tried first for a grid that starts further out (see on_cup_template).
TEMPLATE_LATTICE_LOOKS = 2


def cup_offsets(image: npt.NDArray[Any], corners: F64, n: int, empty: npt.NDArray[np.bool_]) -> tuple[F64, F64]:
    """Per cell (rows, columns): how far (cells, u and v) its cup sits from where the mean of the ``empty`` cells'
    cups sits in theirs, and how well it matches that mean (the phase-correlation peak, 0..1; 0 where not
    ``empty`` or not measured)."""
    px, pad = TEMPLATE_PX, 1
    view = lattice.rectify(image, lattice.grid_homography(corners, n), n, pad, px)
    lightness = np.ascontiguousarray(view[..., 0], np.float32)
    # The cups' own shading, the light's fall across the board taken off.
    flat = lightness - cv2.GaussianBlur(lightness, (0, 0), px * TEMPLATE_FLAT)
    shade = np.asarray(cv2.copyMakeBorder(flat, px, px, px, px, cv2.BORDER_CONSTANT, value=0), np.float32)
    half = int(px * TEMPLATE_WINDOW) // 2
    middle = (np.arange(n) + pad + 1) * px + px // 2
    patches = np.stack([
        shade[y - half : y + half, x - half : x + half] for y in middle for x in middle
    ]).reshape(n, n, 2 * half, 2 * half)  # fmt: skip
    mean = np.ascontiguousarray(patches[empty].mean(axis=0), np.float32)
    window = cv2.createHanningWindow((2 * half, 2 * half), cv2.CV_32F)
    offsets, match = np.zeros((n, n, 2)), np.zeros((n, n))
    for row, col in zip(*np.nonzero(empty), strict=True):
        (dx, dy), peak = cv2.phaseCorrelate(mean, np.ascontiguousarray(patches[row, col]), window)
        # A shift of half a window or more is another cup, or nothing: not measured.
        if np.isfinite([dx, dy, peak]).all() and max(abs(dx), abs(dy)) < 0.49 * px:
            offsets[row, col], match[row, col] = (dx / px, dy / px), max(0.0, peak)
    return offsets, match


def _template_misfit(
    image: npt.NDArray[Any], corners: F64, n: int, empty: npt.NDArray[np.bool_]
) -> tuple[float, float]:
    """How far (cells, weighted mean) the empty cups sit from where their mean cup does, and how well they match
    it (median peak)."""
    offsets, match = cup_offsets(image, corners, n, empty)
    far = np.minimum(np.hypot(offsets[..., 0], offsets[..., 1])[empty], 0.3)
    weight = match[empty]
    return float(np.sum(weight * far) / max(float(np.sum(weight)), 1e-9)), float(np.median(weight))


def _template_fit(image: npt.NDArray[Any], corners: F64, n: int, empty: npt.NDArray[np.bool_]) -> F64 | None:
    """The grid moved by the homography that best takes each empty cup onto the mean cup's place (weighted by how
    well each matches it; cups far from the fit count less)."""
    offsets, match = cup_offsets(image, corners, n, empty)
    fit = lattice.offsets_homography(n, offsets, match.ravel(), 0.05)
    box = np.array([[0, 0], [n, 0], [n, n], [0, n]], np.float64)
    placed = apply_homography(lattice.grid_homography(corners, n) @ fit, box)
    return placed if np.all(np.isfinite(placed)) else None


def on_cup_template(image: npt.NDArray[Any], corners: F64, n: int, empty: npt.NDArray[np.bool_]) -> F64 | None:
    """The grid (corners tl, tr, br, bl) refined so that its ``empty`` cells' cups (rows, columns) sit alike, or
    ``None`` when that does not place it surely (see the module's docstring and :data:`TEMPLATE_GAIN`).

    Two refinements are tried: from the grid as it is, and from the lattice's own homography
    (:func:`.lattice.realign_projective`, which reaches further but is biased); the one whose cups sit nearest
    their mean is taken, if it is clearly nearer than the grid as it was.
    """
    start = np.asarray(corners, np.float64)
    if lattice.quality(lattice.look(image, start, n)) < TEMPLATE_SURE:
        return None
    starts = [start]
    try:
        grid = start
        for _ in range(TEMPLATE_LATTICE_LOOKS):
            grid = lattice.realign_projective(lattice.look(image, grid, n))
        if np.all(np.isfinite(grid)):
            starts.insert(0, grid)
    except np.linalg.LinAlgError:
        pass
    best, (least, _) = None, _template_misfit(image, start, n, empty)
    least -= TEMPLATE_GAIN
    for grid in starts:
        refined: F64 | None = grid
        try:
            for _ in range(TEMPLATE_LOOKS):
                if refined is None:
                    break
                refined = _template_fit(image, refined, n, empty)
        except np.linalg.LinAlgError:
            refined = None
        if refined is None or cells_apart(start, refined, n) >= TEMPLATE_REACH:
            continue
        misfit, match = _template_misfit(image, refined, n, empty)
        log.debug("cup template: misfit %.3f (as it was %.3f), match %.2f", misfit, least + TEMPLATE_GAIN, match)
        if match > TEMPLATE_MATCH and misfit < least:
            best, least = refined, misfit
    return best


# The cups placed by their rims (see on_cup_rims): pixels a cell; the ring (cells from the cup's centre) that
# holds its edges, from the dark line inside the lip to the rim's outer edge; how far from where the grid puts
# it a cup is looked for (cells); how near the fit a cup must lie to agree with it (cells); the least cups that
# must agree, and their least share of the cups measured; the fits, each from the last one's grid.
RIM_PX = 32
RIM_RING = (CUP_RADIUS - 1.0 / 30.0, CUP_RADIUS + 1.4 / 30.0)
RIM_SEARCH = 0.35
RIM_TOLERANCE = 0.05
RIM_LEAST, RIM_SHARE = 12, 0.5
RIM_LOOKS = 3


def _ring(px: int) -> npt.NDArray[np.float32]:
    """The rim's ring as a kernel (summing to one) at ``px`` pixels a cell."""
    inner, outer = RIM_RING
    half = int(outer * px) + 2
    yy, xx = np.mgrid[-half : half + 1, -half : half + 1]
    r = np.hypot(xx, yy) / px
    ring = ((r >= inner) & (r <= outer)).astype(np.float32)
    return np.asarray(ring / ring.sum(), np.float32)


def _peak(a: float, b: float, c: float) -> float:
    """Where a parabola through three samples one apart (the middle the largest) peaks, from the middle."""
    d = a - 2.0 * b + c
    return 0.0 if d >= 0.0 else 0.5 * (a - c) / d


def rim_centres(
    image: npt.NDArray[Any], corners: F64, n: int, empty: npt.NDArray[np.bool_]
) -> tuple[F64, npt.NDArray[np.bool_]]:
    """Per cell (rows, columns): how far (cells, u and v) the cup of each ``empty`` cell sits from where the grid
    (corners tl, tr, br, bl) puts its centre, found by its rim; and where one was found (a clear peak inside the
    search window, not on its edge)."""
    px, pad = RIM_PX, 1
    view = lattice.rectify(image, lattice.grid_homography(corners, n), n, pad, px)
    lightness = cv2.GaussianBlur(np.ascontiguousarray(view[..., 0], np.float32), (0, 0), 0.8)
    gx = cv2.Sobel(lightness, cv2.CV_32F, 1, 0, ksize=3)
    gy = cv2.Sobel(lightness, cv2.CV_32F, 0, 1, ksize=3)
    rims = cv2.filter2D(cv2.magnitude(gx, gy), -1, _ring(px))
    s = int(RIM_SEARCH * px)
    offsets, found = np.zeros((n, n, 2)), np.zeros((n, n), bool)
    for row, col in zip(*np.nonzero(empty), strict=True):
        cy, cx = (row + pad + 0.5) * px - 0.5, (col + pad + 0.5) * px - 0.5
        y0, x0 = round(cy) - s, round(cx) - s
        window = rims[y0 : y0 + 2 * s + 1, x0 : x0 + 2 * s + 1]
        iy, ix = np.unravel_index(int(np.argmax(window)), window.shape)
        if not (0 < iy < window.shape[0] - 1 and 0 < ix < window.shape[1] - 1):
            continue  # the best ring lies on the window's edge: no cup within reach
        if window[iy, ix] <= float(np.median(window)):
            continue
        fy = iy + _peak(window[iy - 1, ix], window[iy, ix], window[iy + 1, ix])
        fx = ix + _peak(window[iy, ix - 1], window[iy, ix], window[iy, ix + 1])
        offsets[row, col] = ((x0 + fx - cx) / px, (y0 + fy - cy) / px)
        found[row, col] = True
    return offsets, found


def on_cup_rims(image: npt.NDArray[Any], corners: F64, n: int, empty: npt.NDArray[np.bool_]) -> F64 | None:
    """The grid (corners tl, tr, br, bl) moved onto its ``empty`` cells' cups, each found by its rim, or ``None``
    when the cups do not agree on one homography (see the module's docstring).

    Each fit is robust (RANSAC, :data:`RIM_TOLERANCE`), then least squares on
    the cups that agree; at least :data:`RIM_LEAST` must, and
    :data:`RIM_SHARE` of those measured, on every fit.
    """
    grid = np.asarray(corners, np.float64)
    g = np.arange(n) + 0.5
    cells = np.column_stack([v.ravel() for v in np.meshgrid(g, g)])
    box = np.array([[0, 0], [n, 0], [n, n], [0, n]], np.float64)
    for _ in range(RIM_LOOKS):
        offsets, found = rim_centres(image, grid, n, empty)
        measured = found.ravel()
        if measured.sum() < RIM_LEAST:
            return None
        src = cells[measured].astype(np.float32)
        dst = (cells[measured] + offsets.reshape(-1, 2)[measured]).astype(np.float32)
        robust: Any = cv2.findHomography(src, dst, cv2.RANSAC, RIM_TOLERANCE, maxIters=2000, confidence=0.999)
        if robust[0] is None:
            return None
        agree = robust[1].ravel().astype(bool)
        if agree.sum() < max(RIM_LEAST, RIM_SHARE * measured.sum()):
            log.debug("cup rims: %d of %d cups agree", agree.sum(), measured.sum())
            return None
        fitted: Any = cv2.findHomography(src[agree], dst[agree], 0)
        if fitted[0] is None:
            return None
        grid = apply_homography(lattice.grid_homography(grid, n) @ np.asarray(fitted[0], np.float64), box)
        if not np.all(np.isfinite(grid)):
            return None
    log.debug("cup rims: the grid moved %.2f cells", cells_apart(np.asarray(corners, np.float64), grid, n))
    return grid
