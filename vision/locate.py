"""Finding the grid: guesses from the board's outline (or its balls), aligned by the cells themselves.

No markers. A Rolit board is a tray whose top shows an n x n lattice of cups
(and balls) on flat plastic, inside a frame. Guesses for the grid come from
quadrilateral outlines in edge and region maps (each taken for the board's
outline, its frame's inner edge, or the grid itself; each outline also with
its sides fitted again to the contour's straight runs, so that a ball or a
hand sticking out does not tilt them). Every guess gets a cheap first look
(:func:`.lattice.survey`: do the cells' contents sit on a lattice near it?),
and the most promising few are aligned cell by cell (:mod:`.lattice`: each
cell's content, cups on the board's plane and balls on theirs, pulls the grid
onto it) and scored by how many cells lock onto their centres. When no
outline leads to a clear board, the balls' highlights give more guesses
(:mod:`.balls`), and failing those the empty cups' lattice (:mod:`.cups`),
taken only where it locks on surely and ends round the grid (a chequered
cloth's squares go on). A printed pattern of one-coloured dots scores less than
balls, which wear every colour. When nothing locks on well enough (few balls,
cups that hardly show: the start position on a dark board), the board's
outline alone may still give the grid, if the balls there are sit on its
cells' centres at its own pitch (see ``Locator._from_outline``); such a grid
comes with a low quality. Last, a slip by a whole cell is settled by an
outline found where the board's edge would then be, or by where the cells
stop (cups and balls on the grid's outer lines, none beyond).

Grid coordinates: ``(u, v)``, 0..n across the grid, ``u`` along row 1; the
centre of cell ``(col, row)`` is at ``(col + 0.5, row + 0.5)``.
"""

from __future__ import annotations

import itertools
import logging
import math
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt

from . import balls, cups, lattice, linegrid, plastic
from .lattice import grid_homography
from .pose import Pose, square_misfit

__all__ = ["GridFit", "Locator", "apply_homography", "cells_apart", "grid_homography", "grids_apart", "order_corners"]

log = logging.getLogger(__name__)

F64 = npt.NDArray[np.float64]
U8 = npt.NDArray[Any]  # 8-bit images; OpenCV's stubs widen dtypes freely

# The board's frame round the grid, in cells, for a classic set (2 cm of frame
# round 3 cm cells), its inner edge (4 mm out), and none: an outline found in the
# image may be any of the three.
FRAME_RATIOS = (20.0 / 30.0, 4.0 / 30.0, 0.0)
TOP = 4  # candidate grids aligned in full (the most promising after a first look)
# The same, for a grid the board's outline confirms, when the best found is not confirmed; and how much less
# such a grid may lock on and still be taken instead.
CONFIRMED_TOP, CONFIRMED_MARGIN = 8, 0.1
BALL_TOP, BALL_PENALTY = 3, 0.1  # the same for guesses from the balls' lattice, and how much they give way
BALL_DRIFT = 0.4  # cells a guess from the balls' lattice may move in alignment (more: the lattice was not the cells')
CUP_TOP = 4  # the same for guesses from the cups' lattice (they may move further: a cup's blob is off its centre)
ACCEPT_CUPS = 0.8  # least lattice quality for a grid from the cups' lattice (see rolit.vision.cups)
REFINE_STEPS = (False, False, True, True)  # cell-by-cell alignment: scale and shift twice, then affine twice
# A slip by a cell: the line gained must beat the line given up by this much (in typical lines), the line
# given up must look less like cells than this, and the line gained more than this.
SLIP_GAIN, SLIP_DROP, SLIP_LINE = 0.2, 0.6, 0.3
# An outer line with no cells in it, one that surely has them, and a line gained that is not empty (see _settle).
SLIP_EMPTY, SLIP_FULL, SLIP_GAINED = 0.1, 0.5, 0.15
SLIP_SPILL = 1.0  # more evidence needed for a cell gained on the far side, per cell of parallax
OUTLINE_TOL, OUTLINE_FAR = 0.6, 1.0  # cells: outlines that agree with a grid, and that do not (see _clear_slip)
OUTLINE_CLEARER = 0.5  # or the slipped grid's outline agrees this many times better than the grid's own
FAIR = 0.75  # lattice quality below which the balls' lattice is tried too
SURE = 0.9  # lattice quality no other object in the picture comes near: the search stops there
# A grid the balls' lattice led to that locks on below this has the straight runs of merged outlines searched too
# (see Locator.locate). Development scene 645: a hand merged with a Junior board's outline, and the balls' lattice
# locked on fairly (0.76) on a grid 1.2 cells out that read four cells under the hand as the balls beside them;
# the runs lead to the board (1.01). Tried after any grid under SURE, the runs moved 17 other development
# scenes' grids (0-999, camera still), as many worse as better: one read 10 cells wrong.
RUNS_OVER_BALLS = SURE
PLAIN, PLAIN_PENALTY = 0.08, 0.12  # see lattice.ball_colours
ACCEPT = 0.55  # least lattice quality (share of cells locked on, plus a third of the lattice's strength) for a board
ACCEPT_BALLS = 0.45  # the same for a grid found from the balls' lattice
# The most a grid may be from any camera's picture of a square board (see pose.square_misfit). The balls of a
# full board sit on a lattice along their diagonals too, and the cells align onto such a sheared grid as
# well as onto the board's own; no camera sees the board so. True grids of development scenes (the lens
# bending them) reach 0.07, sheared ones found there 0.36-1.4.
SQUARE_MISFIT = 0.3
FAST_SOURCES = 2  # maps of outlines tried first (the grey level's two halves; see Locator.locate)
# Cells within which an outline must lie of the board's edge (at all four corners) for a grid found from those
# maps alone to stand: looser, a grid a whole cell out was let through now and then (its outline half a cell off).
CONFIRM_TOL = 0.3
# A grid from the board's outline alone (see Locator._from_outline): cells with a ball in their middle, at least,
# how much of a cell's middle a ball fills (and above which it holds part of one), the most the balls may sit
# off their cells' centres together and each after that, how near their highlights' offsets agree, and the
# least share of cells locked on. Such a grid is given this quality (too low to be followed from frame to frame).
OUTLINE_BALLS, OUTLINE_BALL, OUTLINE_PART = 3, 0.6, 0.25
OUTLINE_SHIFT, OUTLINE_CENTRED, OUTLINE_LIT, OUTLINE_LOCKED = 0.35, 0.12, 0.1, 0.15
OUTLINE_ALL_LIT = 0.9  # the share of those cells whose highlights must agree (at another pitch one drifts off)
OUTLINE_AMBIGUOUS, OUTLINE_QUALITY = 0.4, 0.25
OUTLINE_RIVAL = 0.8  # a grid elsewhere scoring this share of the best one's makes the outline fallback ambiguous


def order_corners(points: npt.ArrayLike) -> F64:
    """Four points ordered clockwise in the image, starting nearest the top-left."""
    # On plain floats: four points are far fewer sums than numpy's calls would cost.
    pts = np.asarray(points, np.float64).reshape(4, 2).tolist()
    cx = (pts[0][0] + pts[1][0] + pts[2][0] + pts[3][0]) / 4
    cy = (pts[0][1] + pts[1][1] + pts[2][1] + pts[3][1]) / 4
    angles = [math.atan2(y - cy, x - cx) for x, y in pts]
    pts = [pts[i] for i in sorted(range(4), key=angles.__getitem__)]  # clockwise in image coordinates (y down)
    start = min(range(4), key=lambda i: pts[i][0] + pts[i][1])
    return np.array(pts[start:] + pts[:start], np.float64)


def apply_homography(h: npt.ArrayLike, pts: npt.ArrayLike) -> F64:
    """Points mapped by a homography."""
    p = np.asarray(pts, np.float64).reshape(-1, 2)
    # Homogeneous points filled in place (np.column_stack costs more than the product).
    ph = np.empty((len(p), 3))
    ph[:, :2] = p
    ph[:, 2] = 1.0
    q = ph @ np.asarray(h, np.float64).T
    return np.asarray(q[:, :2] / q[:, 2:3], np.float64)


@dataclass
class _Seen:
    """What one search has worked out for its guesses (keyed by their corners' bytes): the first look's
    promise, the alignment (``None``: it failed), and the view of each aligned grid."""

    promise: dict[bytes, float] = field(default_factory=dict)
    refined: dict[bytes, tuple[F64, lattice.LatticeView] | None] = field(default_factory=dict)
    views: dict[bytes, lattice.LatticeView] = field(default_factory=dict)


@dataclass(frozen=True)
class GridFit:
    """A located grid: corners (tl, tr, br, bl image pixels), homography from grid coordinates, quality 0..1."""

    corners: F64
    homography: F64
    quality: float
    score: float


class Locator:
    """Finds and tracks the n x n grid in frames.

    >>> Locator(8).n
    8
    """

    def __init__(self, n: int, work_width: int = 640) -> None:
        self.n = n
        self.work_width = work_width

    # Candidates ---------------------------------------------------------------

    def candidates(
        self, image: U8, sources: int | None = None, start: bool = False, merged: bool = False
    ) -> list[F64]:
        """Quadrilaterals (4x2, image pixels) that may be the board's outline, its frame's inner edge, or its grid.

        ``sources``: only the first few of the maps they are taken from (see
        :func:`_outline_sources`; ``None``: all of them). ``start``: the picture
        shows the start position, whose balls mark the board's plastic, and
        the outlines of that plastic are taken too (see :mod:`.plastic`).
        ``merged``: instead, the outlines on the straight runs of contours that
        merged with something touching the board (see :func:`_run_quads`).
        """
        maps = list(itertools.islice(_outline_sources(image), sources))
        return _outlines([*maps, plastic.contours(image)] if start else maps, image.shape, merged)

    # Locating -------------------------------------------------------------------

    def locate(self, image: U8) -> GridFit | None:
        """The best grid in ``image`` (full-resolution pixels), or ``None``: a full search.

        Frame to frame, :meth:`track` follows a grid found before far more cheaply.
        """
        work, scale = self._work(image)
        n = self.n
        # A first look at every guess, on a pyramid level where a cell is a few pixels across
        # (smoothed a little against noise); the most promising few are aligned in full.
        pyramid = [cv2.GaussianBlur(work, (0, 0), 1.0)]
        for _ in range(3):
            pyramid.append(cv2.pyrDown(pyramid[-1]))
        seen = _Seen()
        # First the outlines of the grey level alone: a board in plain view is found from them, and when
        # the grid they lead to locks on surely and the board's outline is found where that grid puts it,
        # the other maps could not change the answer (see _confirmed). Otherwise the search is made
        # again from every outline, as if this had not been tried (what was worked out is kept). Among
        # that many guesses, the most promising few may miss the first grid: it stays when it is good
        # enough to take and the board's outline confirms it, and the new search found nothing better.
        # (Kept unconfirmed, it also won where a grid a little off had locked on more than the right one.)
        outlines = self.candidates(work, FAST_SOURCES)
        guesses = self._guesses(outlines, work.shape)
        best = self._best(work, pyramid, guesses, TOP, 0.0, None, seen=seen)
        maps: list[Sequence[Any]] = []  # every map's contours, once the search is made from all of them
        if best is None or best[0] < SURE or not _confirmed(outlines, best[1], n, work.shape):
            first = best
            maps = list(_outline_sources(work))
            outlines = _outlines(maps, work.shape)
            guesses = self._guesses(outlines, work.shape)
            best = self._best(work, pyramid, guesses, TOP, 0.0, None, seen=seen)
            if first is not None and first[0] >= ACCEPT and (best is None or best[0] < first[0]) and _confirmed(
                outlines, first[1], n, work.shape
            ):
                best = first
            if best is None or best[0] < FAIR:
                # The balls' own lattice, for a board whose outline merges with something else (a hand,
                # the table's edge). Its guesses give way to an outline's as good (which also places the
                # grid among the cells the balls leave open).
                from_balls = _usable(balls.lattice_guesses(work, n), work.shape, n)
                best = self._best(work, pyramid, from_balls, BALL_TOP, BALL_PENALTY, best, BALL_DRIFT, seen)
            if best is None or best[0] < FAIR:
                # The cups' own lattice, for a board whose outline is lost and that has few balls (the start
                # position). A chequered cloth's squares lock on as surely: the grid must lock on surely,
                # better than any other, and the lattice end round it, all in the picture.
                from_cups = _usable(cups.lattice_guesses(work, n), work.shape, n)
                cupped = self._best(work, pyramid, from_cups, CUP_TOP, 0.0, None, seen=seen)
                if (
                    cupped is not None
                    and cupped[0] >= ACCEPT_CUPS
                    and (best is None or cupped[0] > best[0] - best[2])
                    and _inside(cupped[1], n, work.shape, 1.0)
                    and _ends(seen.views[cupped[1].tobytes()])
                ):
                    best = cupped
        if best is not None and best[0] < SURE and not _confirmed(outlines, best[1], n, work.shape):
            # No outline is the board's where the grid is: a grid a little off may have locked on better than
            # the right one, and the right one may not have been among the most promising few.
            confirmed = self._best(work, pyramid, guesses, CONFIRMED_TOP, 0.0, None, seen=seen, confirm=outlines)
            if (
                confirmed is not None
                and confirmed[0] >= ACCEPT
                and confirmed[0] > best[0] - best[2] - CONFIRMED_MARGIN
            ):
                best = confirmed
        # A grid the balls' own lattice led to has that lattice for it too: it may show fewer of its
        # cells (a hand over half the board).
        if best is None or best[0] < (RUNS_OVER_BALLS if best[2] else ACCEPT):
            # The outline of a board merged with something touching it (a dark card at its corner, a hand
            # reaching over it): the contours' own straight runs. Only when nothing else is a board, or only
            # the balls' lattice led to one (no outline did), and only a grid that locks on surely: among the
            # many quads they give, a few lead the alignment astray where the board's outline or its balls'
            # lattice is found, and others end on grids a little out that lock on fairly, where calibration
            # would go on to place the grid by the board's lines or cups.
            merged = _outlines(maps, work.shape, merged=True)
            surely = self._best(work, pyramid, self._guesses(merged, work.shape), TOP, 0.0, None, seen=seen)
            if surely is not None and surely[0] >= SURE:
                best = surely
        if best is None or best[0] < (ACCEPT_BALLS if best[2] else ACCEPT):
            # Few balls and faint cups (the start position on a dark board): the board's outline, checked
            # by the balls there are.
            found = self._from_outline(work, outlines)
            if found is None:
                return None
            corners, score = found
            corners = corners / scale
            return GridFit(corners, grid_homography(corners, n), OUTLINE_QUALITY, score)
        corners = best[1]
        view = seen.views.get(corners.tobytes())
        slip = self._settle(work, corners, outlines, view)
        moved = lattice.shifted(corners, n, *slip)
        if slip != (0, 0) and _plausible(moved, work.shape, n):
            again = self._refine(work, moved, (True, True))
            corners, view = (moved, None) if again is None else again
        if view is None:
            view = lattice.look(work, corners, n, pad=1)
        return self._fit(corners / scale, lattice.quality(view))

    def _work(self, image: U8) -> tuple[U8, float]:
        """The picture at most :attr:`work_width` pixels wide, where grids are searched for, and its scale."""
        scale = min(1.0, self.work_width / image.shape[1])
        work = cv2.resize(image, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA) if scale < 1 else image
        return work, scale

    def _guesses(self, outlines: Sequence[F64], shape: Sequence[int]) -> list[F64]:
        """Grid guesses from outlines: each taken for the board's outline, its frame's inner edge or its grid."""
        n = self.n
        guesses = [g for quad in outlines for g in (_inset(quad, r, n) for r in FRAME_RATIOS)]
        return _usable(guesses, shape, n)

    def _from_outline(self, image: U8, outlines: Sequence[F64]) -> tuple[F64, float] | None:
        """A grid from the board's outline alone, for a board whose cells hardly show (few balls, faint cups):
        its corners and lattice score, or ``None``.

        Each outline is taken for the board's outline or its frame's inner edge
        (see :data:`FRAME_RATIOS`), moved to centre the balls in their cells, and
        kept only when it passes :meth:`_outline_holds`. When outlines lead to
        grids more than :data:`OUTLINE_AMBIGUOUS` cells apart, none is taken.
        """
        n = self.n
        points = balls.highlights(image, coloured=False)
        passed: list[tuple[F64, float]] = []
        for quad in outlines:
            for ratio in FRAME_RATIOS[:2]:
                guess = _inset(quad, ratio, n)
                if _plausible(guess, image.shape, n):
                    held = self._outline_holds(image, guess, points)
                    if held is not None:
                        passed.append(held)
        if not passed:
            return None
        best = max(passed, key=lambda p: p[1])
        # Nested outlines (the board's edge, its frame's) lead to grids of slightly different pitch that
        # all centre a few balls; another grid counts against the best only when it locks on nearly as well.
        if any(cells_apart(best[0], p[0], n) > OUTLINE_AMBIGUOUS and p[1] > OUTLINE_RIVAL * best[1] for p in passed):
            return None
        return best

    def centred_guesses(self, image: U8, merged: bool = False) -> list[F64]:
        """Grids (corners, full-resolution pixels) from every outline in ``image`` and from the board's printed
        lines (see :mod:`.linegrid`), each moved by under a cell to centre what stands in its middle two-by-two
        cells: the start position's balls, on a board whose cups do not show (a black board), where
        :meth:`locate` finds no lattice to lock on.

        The outlines include those of the plastic round the start position's
        balls (see :mod:`.plastic`). Every outline is taken for the board's
        outline, its frame's inner edge and the grid (see :data:`FRAME_RATIOS`), and the lines' grids come with
        their neighbours a cell either way, so most of these are wrong: the
        caller picks by what the cells hold (see ``rolit.calibration``).
        With ``merged``, instead, only the outlines on the straight runs of
        outlines merged with something touching the board (see :meth:`candidates`).
        """
        n = self.n
        work, scale = self._work(image)
        c = n // 2 - 1
        out = []
        if merged:
            guesses = self._guesses(self.candidates(work, start=True, merged=True), work.shape)
        else:
            # The board's printed lines seen anywhere in the picture too: a black board's outline may merge with a
            # dark table, and its cups hardly show (see linegrid).
            lined = [g for g in map(order_corners, linegrid.line_guesses(work, n)) if _plausible(g, work.shape, n)]
            guesses = self._guesses(self.candidates(work, start=True), work.shape) + _distinct(lined, n)
        for guess in guesses:
            du, dv = lattice.look(work, guess, n, pad=1).offsets
            su, sv = float(np.median(du[c : c + 2, c : c + 2])), float(np.median(dv[c : c + 2, c : c + 2]))
            out.append(lattice.shifted(guess, n, su, sv) / scale)
        return out

    def align(self, image: U8, corners: F64) -> tuple[F64, float, float] | None:
        """A grid guess (full-resolution corners) aligned cell by cell as :meth:`locate` aligns its most promising
        guesses, with the lattice quality (as :meth:`locate` scores grids) of the guess as it was and where it
        ends; ``None`` when the alignment leaves the picture or ends on no camera's picture of a square board."""
        work, scale = self._work(image)
        guess = np.asarray(corners, np.float64) * scale
        view = lattice.look(work, guess, self.n, pad=1)  # scores the guess and is the alignment's first look
        refined = self._refine(work, guess, REFINE_STEPS, view)
        if refined is None:
            return None
        return refined[0] / scale, lattice.quality(view), lattice.quality(refined[1])

    def onto_highlights(self, image: U8, corners: F64) -> tuple[F64, float, float] | None:
        """A grid (full-resolution corners) moved onto the balls' highlights near where it puts them (see
        :func:`balls.on_highlights`), with the lattice quality of the grid as it was and as moved; ``None`` when
        the highlights do not agree on a grid, or it leaves the picture."""
        work, scale = self._work(image)
        guess = np.asarray(corners, np.float64) * scale
        moved = balls.on_highlights(work, guess, self.n)
        if moved is None or not _plausible(moved, work.shape, self.n):
            return None
        before = lattice.quality(lattice.look(work, guess, self.n, pad=1))
        return moved / scale, before, lattice.quality(lattice.look(work, moved, self.n, pad=1))

    def centre_block_sides(self, image: U8, grids: Sequence[F64]) -> list[tuple[float, float] | None]:
        """For each grid (full-resolution corners), the start position's centre block as the balls' highlights
        measure it in the grid's cells: its side along the grid's rows and along its columns (see
        :func:`balls.block_sides`); ``None`` where they do not."""
        return [None if q is None else balls.block_sides(q) for q in self.centre_blocks(image, grids)]

    def centre_blocks(self, image: U8, grids: Sequence[F64]) -> list[F64 | None]:
        """For each grid (full-resolution corners), the start position's centre balls' highlights in the grid's
        cells (see :func:`balls.centre_block`); ``None`` where they do not make a block."""
        work, scale = self._work(image)
        points = balls.highlights(work, coloured=False)
        size = (int(work.shape[1]), int(work.shape[0]))
        return [balls.centre_block(points, size, grid_homography(np.asarray(g) * scale, self.n), self.n)
                for g in grids]  # fmt: skip

    def _outline_holds(self, image: U8, guess: F64, points: F64) -> tuple[F64, float] | None:
        """A grid guess from an outline moved (by a fraction of a cell) onto the balls in it, and its lattice
        score, when it holds; ``None`` when not.

        It holds when at least :data:`OUTLINE_BALLS` cells hold a ball and few
        hold part of one; the balls sit on the cells' centres, all of them, after
        one common shift of under :data:`OUTLINE_SHIFT` cells; their highlights,
        lit by the same lamp, sit at one offset from their cells' centres in
        nearly all of those cells (:data:`OUTLINE_ALL_LIT`; which holds only at the
        grid's own pitch: at another the offsets drift from ball to ball); and
        the cups and balls lock on its lattice, if weakly (:func:`lattice.lock`).
        """
        n = self.n
        share = lattice.ball_share(image, guess, n)
        full = share > OUTLINE_BALL
        if int(full.sum()) < OUTLINE_BALLS or int(((share > OUTLINE_PART) & ~full).sum()) > 1:
            return None
        du, dv = lattice.look(image, guess, n, pad=1).offsets
        su, sv = float(np.median(du[full])), float(np.median(dv[full]))
        if max(abs(su), abs(sv)) > OUTLINE_SHIFT:
            return None
        grid = lattice.shifted(guess, n, su, sv)
        view = lattice.look(image, grid, n, pad=1)
        du, dv = view.offsets
        if not np.all((np.abs(du[full]) < OUTLINE_CENTRED) & (np.abs(dv[full]) < OUTLINE_CENTRED)):
            return None
        if _lit_alike(points, grid, image.shape, n, full) < max(OUTLINE_BALLS, OUTLINE_ALL_LIT * int(full.sum())):
            return None
        locked, strength = lattice.lock(view)
        if locked < OUTLINE_LOCKED or strength < 0.0:
            return None
        return grid, locked + strength / 3.0

    def track(self, image: U8, corners: F64) -> GridFit | None:
        """Follow a grid found before: a small alignment from ``corners``, no search (``None`` if it is lost).

        Only the part of the picture round the grid is looked at. The score is
        the lattice quality there (as :meth:`locate` scores what it finds).
        """
        n = self.n
        scale = min(1.0, self.work_width / image.shape[1])
        c = np.asarray(corners, np.float64)
        pitch = float(np.linalg.norm(c[1] - c[0])) / n
        margin = (lattice.PAD + 1) * pitch
        x0, y0 = (max(0, int(v - margin)) for v in c.min(axis=0))
        x1 = int(min(image.shape[1], c[:, 0].max() + margin)) + 1
        y1 = int(min(image.shape[0], c[:, 1].max() + margin)) + 1
        if x1 - x0 < 16 or y1 - y0 < 16:
            return None
        part = image[y0:y1, x0:x1]
        work = cv2.resize(part, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA) if scale < 1 else part
        origin = np.array([x0, y0], np.float64) * scale
        start = (c - [x0, y0]) * scale
        whole = ((round(image.shape[0] * scale), round(image.shape[1] * scale)), (float(origin[0]), float(origin[1])))
        view = lattice.look(work, start, n, whole=whole, pad=1)
        moved = lattice.realign(view, affine=True)
        # Follow small moves (a shaking camera) only; a big one is for a new search.
        jump = float(np.max(np.linalg.norm(moved - start, axis=1)))
        if not _plausible(moved + origin, whole[0], n) or jump > 0.4 * pitch * scale:
            moved = start
        return self._fit((moved + origin) / scale, lattice.quality(view))

    def _fit(self, corners: F64, score: float) -> GridFit:
        """A grid (full-size pixels) and its lattice quality; ``quality`` 0 at :data:`ACCEPT`, 1 at :data:`SURE`."""
        quality = float(np.clip((score - ACCEPT) / (SURE - ACCEPT), 0.0, 1.0))
        return GridFit(corners, grid_homography(corners, self.n), quality, score)

    def _best(
        self,
        work: U8,
        pyramid: list[U8],
        guesses: list[F64],
        count: int,
        penalty: float,
        best: tuple[float, F64, float] | None,
        drift: float = np.inf,
        seen: _Seen | None = None,
        confirm: Sequence[F64] | None = None,
    ) -> tuple[float, F64, float] | None:
        """The best of ``best`` and the ``count`` most promising ``guesses`` aligned cell by cell:
        (quality, corners, penalty).

        A guess's quality is the lattice quality of where it ends; it competes
        with the others less its ``penalty``. A guess that the alignment moves
        more than ``drift`` cells somewhere is dropped, and so is one that ends
        where none of the outlines ``confirm`` (when given) is the board's (see
        :func:`_confirmed`). ``seen`` keeps what was worked out for a guess (its
        first look, its alignment) for another call.
        """
        n = self.n
        seen = _Seen() if seen is None else seen
        keys = [g.tobytes() for g in guesses]
        new = [i for i, key in enumerate(keys) if key not in seen.promise]
        for i, value in zip(new, lattice.survey(pyramid, [guesses[i] for i in new], n), strict=True):
            seen.promise[keys[i]] = float(value)
        promise = np.array([seen.promise[key] for key in keys])
        for i in np.argsort(-promise, kind="stable")[:count]:
            if best is not None and best[0] >= SURE:
                break  # no other object is as like a board (a slip is settled later)
            if keys[i] not in seen.refined:
                seen.refined[keys[i]] = self._refine(work, guesses[i], REFINE_STEPS)
            refined = seen.refined[keys[i]]
            if refined is None or cells_apart(refined[0], guesses[i], n) > drift:
                continue
            if lattice.inverted(refined[1]):
                refined = self._uninverted(work, refined)
            if confirm is not None and not _confirmed(confirm, refined[0], n, work.shape):
                continue
            seen.views[refined[0].tobytes()] = refined[1]
            quality = lattice.quality(refined[1])
            if ACCEPT <= quality < SURE and lattice.ball_colours(work, refined[0], n) < PLAIN:
                quality -= PLAIN_PENALTY  # one-coloured dots: a printed pattern more likely than balls
            if best is None or quality - penalty > best[0] - best[2]:
                best = (quality, refined[0], penalty)
        return best

    def _uninverted(
        self, image: U8, refined: tuple[F64, lattice.LatticeView]
    ) -> tuple[F64, lattice.LatticeView]:
        """An aligned grid that locked onto the plastic between the cups (see :func:`lattice.inverted`) moved onto
        the cups, when that locks on better; as it is, when not.

        The cups are half a cell away along both axes, but which way is not
        known: of the four ways, the grid goes the one whose outer lines of
        cells look most like cells and the lines beyond them least.
        """
        n = self.n
        quality = lattice.quality(refined[1])
        best, best_edges = refined, -np.inf
        for du, dv in itertools.product((-0.5, 0.5), repeat=2):
            half = lattice.shifted(refined[0], n, du, dv)
            again = self._refine(image, half, REFINE_STEPS) if _plausible(half, image.shape, n) else None
            if again is None or lattice.inverted(again[1]) or lattice.quality(again[1]) <= quality:
                continue
            edges = sum(
                float(e[1] + e[n] - e[0] - e[n + 1]) for e in _relative_lines(again[1]) if e is not None
            )
            if edges > best_edges:
                best, best_edges = again, edges
        return best

    def _refine(
        self, image: U8, corners: F64, steps: Sequence[bool], view: lattice.LatticeView | None = None
    ) -> tuple[F64, lattice.LatticeView] | None:
        """A guess aligned cell by cell (each step scale and shift, or affine), and the view of the result;
        ``None`` when a step leaves the picture or the result is no camera's picture of a square board.
        ``view``: the guess's :func:`lattice.look` (one cell round it), when already made."""
        c = corners
        for affine in steps:
            if view is None:
                view = lattice.look(image, c, self.n, pad=1)
            moved = lattice.realign(view, affine)
            view = None
            if not _plausible(moved, image.shape, self.n):
                return None
            c = moved
        if square_misfit(grid_homography(c, self.n), (image.shape[1], image.shape[0])) > SQUARE_MISFIT:
            return None  # sheared along the balls' diagonals (judged where the alignment ends: guesses are rough)
        # Two cells round the grid, not one: the same view then settles a slip (see _settle) too.
        return c, lattice.look(image, c, self.n, pad=lattice.PAD)

    def _settle(
        self, image: U8, corners: F64, outlines: Sequence[F64] = (), view: lattice.LatticeView | None = None
    ) -> tuple[int, int]:
        """How many whole cells (u, v) the grid should move, by the board's outline or its cells (-1, 0 or 1 each).

        First the outlines found in the picture: a board's outline and its
        frame's inner edge lie a known way beyond the grid, so the grid goes
        where one of them clearly says (see :func:`_clear_slip`). Failing that,
        the cells, along each axis: the line of cells beyond one side is weighed
        against the outer line on the other (measured against the grid's typical
        line, see :func:`lattice.line_evidence`), and the grid moves towards the
        first when it looks clearly more like cells and the second does not look
        much like them. ``view`` is the grid's :func:`lattice.look` (two cells round it), when already made.
        """
        n = self.n
        miss = _outline_misses(outlines, corners, n, image.shape)
        slip = _clear_slip(miss)
        if slip is not None:
            return slip
        view = lattice.look(image, corners, n) if view is None else view
        parallax = view.parallax.mean(axis=(0, 1))
        shifts = []
        for axis, evidence in enumerate(_relative_lines(view)):
            step = 0
            if evidence is not None:
                # Seen obliquely, the balls of the far outer line reach over the line beyond it, so
                # a cell gained on the far side must show more.
                spill = SLIP_SPILL * abs(float(parallax[axis]))
                lo = evidence[0] - evidence[n] - (spill if parallax[axis] < 0 else 0.0)  # one cell towards 0
                hi = evidence[n + 1] - evidence[1] - (spill if parallax[axis] > 0 else 0.0)  # one cell towards n
                # Either the line gained clearly beats the one given up, or the one given up is
                # empty while the grid's other outer line is full and the line gained is not empty.
                lo_ok = (lo > SLIP_GAIN and evidence[n] < SLIP_DROP and evidence[0] > SLIP_LINE) or (
                    evidence[n] < SLIP_EMPTY and evidence[1] > SLIP_FULL and evidence[0] > SLIP_GAINED
                )
                hi_ok = (hi > SLIP_GAIN and evidence[1] < SLIP_DROP and evidence[n + 1] > SLIP_LINE) or (
                    evidence[1] < SLIP_EMPTY and evidence[n] > SLIP_FULL and evidence[n + 1] > SLIP_GAINED
                )
                if lo_ok and (not hi_ok or lo > hi):
                    step = -1
                elif hi_ok:
                    step = 1
            shifts.append(step)
        cells = (shifts[0], shifts[1])
        # The board's outline, found where the grid puts it and nearer than where the move would, overrules
        # the cells: from low down the far outer line's cups hardly show, and the near frame's side face does.
        if cells != (0, 0) and miss and miss[(0, 0)] < CONFIRM_TOL and miss[(0, 0)] < miss[cells]:
            return (0, 0)
        return cells


def _lit_alike(points: F64, corners: F64, shape: Sequence[int], n: int, full: npt.NDArray[np.bool_]) -> int:
    """In how many of the cells marked ``full`` a highlight (``points``) sits at one common offset from the
    cell's centre (within :data:`OUTLINE_LIT` cells), at the best such offset; seen on the highlights' plane."""
    if not len(points):
        return 0
    try:
        h = lattice.lifted(corners, n, (int(shape[0]), int(shape[1])), balls.HIGHLIGHT_HEIGHT)
        uv = apply_homography(np.linalg.inv(h), points)
    except (np.linalg.LinAlgError, ValueError):
        return 0
    uv = uv[np.all((uv > 0) & (uv < n), axis=1)]
    cells = np.floor(uv).astype(int)
    on = full[cells[:, 1], cells[:, 0]]
    uv, cells = uv[on], cells[on]
    offset = uv - cells - 0.5
    best = 0
    for o in offset:
        near = np.abs((offset - o + 0.5) % 1.0 - 0.5).max(axis=1) < OUTLINE_LIT
        best = max(best, len({(int(c[0]), int(c[1])) for c in cells[near]}))
    return best


def _outline_sources(image: U8) -> Iterator[Sequence[Any]]:
    """The contours of the maps outlines are taken from, one map at a time, the cheapest and likeliest first:
    the grey level's two halves (Otsu), then saturation's and each colour axis's, then edges of the grey
    level and of the colour axes at two strengths."""
    grey = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    channels: dict[str, Any] = {"grey": grey}

    def channel(name: str) -> Any:
        # Converted only when a map needs it (a board found from the grey level alone needs none).
        if name not in channels:
            lab = cv2.cvtColor(image, cv2.COLOR_BGR2LAB)
            channels.update(a=lab[..., 1], b=lab[..., 2], s=cv2.cvtColor(image, cv2.COLOR_BGR2HSV)[..., 1])
        return channels[name]

    for name in ("grey", "s", "a", "b"):
        blur = cv2.GaussianBlur(channel(name), (7, 7), 0)
        _, mask = cv2.threshold(blur, 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
        for m in (mask, 255 - mask):
            m = cv2.morphologyEx(m, cv2.MORPH_CLOSE, np.ones((9, 9), np.uint8))
            m = cv2.morphologyEx(m, cv2.MORPH_OPEN, np.ones((5, 5), np.uint8))
            yield cv2.findContours(m, cv2.RETR_CCOMP, cv2.CHAIN_APPROX_SIMPLE)[0]
    for name in ("grey", "a", "b"):
        blur = cv2.GaussianBlur(channel(name), (5, 5), 0)
        for lo, hi in ((20, 60), (40, 120)):
            edges = cv2.dilate(cv2.Canny(blur, lo, hi), np.ones((3, 3), np.uint8))
            yield cv2.findContours(edges, cv2.RETR_LIST, cv2.CHAIN_APPROX_SIMPLE)[0]


def _clear_slip(miss: dict[tuple[int, int], float]) -> tuple[int, int] | None:
    """The slip (whole cells along u and v) that puts the board's outline, or its frame's inner edge, where an
    outline found in the picture is, when that is clear; ``None`` when it is not. ``miss``: :func:`_outline_misses`.

    Clear means: for the slipped grid some outline lies within ``OUTLINE_TOL``
    cells of where the board's edge would be, at all four corners, and for the
    grid as it is none comes within ``OUTLINE_FAR``, or none within
    ``1 / OUTLINE_CLEARER`` times as near.
    """
    if not miss:
        return None
    slip = min(miss, key=lambda key: miss[key])
    if slip == (0, 0) or miss[slip] >= OUTLINE_TOL:
        return None
    if miss[(0, 0)] > OUTLINE_FAR or miss[slip] < OUTLINE_CLEARER * miss[(0, 0)]:
        return slip
    return None


def _relative_lines(view: lattice.LatticeView) -> list[F64 | None]:
    """:func:`lattice.line_evidence` along u and along v, each over the grid's typical line (the median of its
    own lines); ``None`` for an axis along which the grid's lines show nothing."""
    out: list[F64 | None] = []
    for line in lattice.line_evidence(view):
        typical = float(lattice.median(line[1:-1]))
        out.append(line / typical if typical > 1e-6 else None)
    return out


def _ends(view: lattice.LatticeView) -> bool:
    """Whether the lattice ends along both axes: of the grid's lines of cells and the line beyond each side, one
    at least looks little like cells (a board's cups stop at its frame; a cloth's squares go on)."""
    lines = _relative_lines(view)
    return all(line is not None and float(line.min()) < LATTICE_END for line in lines)


# How much like the grid's typical line of cells (see _relative_lines) a line may look, at most, to end a lattice.
LATTICE_END = 0.45


# Every slip by a whole cell (u, v) a grid may need (see _clear_slip).
SLIPS = tuple((du, dv) for du in (-1, 0, 1) for dv in (-1, 0, 1))


def _outline_misses(
    outlines: Sequence[F64],
    corners: F64,
    n: int,
    shape: Sequence[int] | None = None,
    slips: Sequence[tuple[int, int]] = SLIPS,
) -> dict[tuple[int, int], float]:
    """For the grid slipped by each of ``slips`` (whole cells along u and v), how near (in cells, at the worst
    of its four corners) the nearest outline comes to the board's outline or its frame's inner edge; empty
    without outlines.

    With the picture's ``shape`` the board's outline as seen from the side counts too: from low down the
    board's near side face shows below its top, and the outline found runs round both (see :func:`_silhouettes`).
    """
    if not len(outlines):
        return {}
    h = grid_homography(corners, n)
    pitch = float(np.mean(np.linalg.norm(np.diff(np.concatenate((corners, corners[:1])), axis=0), axis=1))) / n
    found = np.asarray(outlines, np.float64)  # (k, 4, 2)
    turns = found[:, _TURNS]  # (k, 4 turns, 4, 2): each outline starting at each of its corners
    # Every slip's edges at once (slips, edges, 4 corners, xy): the board's outline, its frame's inner edge and,
    # with the picture's shape, the outline as seen from the side.
    frames = np.array([[[-r, -r], [n + r, -r], [n + r, n + r], [-r, n + r]] for r in FRAME_RATIOS[:2]])
    boxes = frames[None] + np.asarray(slips, np.float64)[:, None, None, :]  # (slips, 2, 4, 2)
    edges = apply_homography(h, boxes).reshape(len(slips), 2, 4, 2)
    if shape is not None:
        pose = Pose.from_homography(h, (int(shape[1]), int(shape[0])))
        edges = np.concatenate([edges, _silhouettes(pose, boxes[:, 0])[:, None]], axis=1)
    far = np.max(np.linalg.norm(turns[None, None] - edges[:, :, None, None], axis=-1), axis=-1)
    nearest = far.reshape(len(slips), -1).min(axis=1) / pitch
    return {slip: float(value) for slip, value in zip(slips, nearest, strict=True)}


# Each turn of four corners (listed from each of them in turn): np.roll of the corners by each step back.
_TURNS = np.array([[(s + j) % 4 for j in range(4)] for s in range(4)])

# The board's thickness in cells (a classic board: 14 mm at a 30 mm pitch).
BOARD_THICKNESS = 14.0 / 30.0


def _silhouettes(pose: Pose, boxes: F64) -> F64:
    """The pictures of boards whose top faces are ``boxes`` (each 4x2, grid coordinates) as their outlines show
    them: each corner where the top face's is, or its bottom face's where that lies further out (the near side)."""
    corners = boxes.reshape(-1, 2)
    flat = np.zeros((len(corners), 3))  # the corners at the board's top, then (below) at its bottom
    flat[:, :2] = corners
    top = pose.project(flat).reshape(boxes.shape)
    flat[:, 2] = -BOARD_THICKNESS
    bottom = pose.project(flat).reshape(boxes.shape)
    middle = top.mean(axis=1, keepdims=True)
    out = np.linalg.norm(bottom - middle, axis=2) > np.linalg.norm(top - middle, axis=2)
    return np.asarray(np.where(out[..., None], bottom, top), np.float64)


def _confirmed(outlines: Sequence[F64], corners: F64, n: int, shape: Sequence[int] | None = None) -> bool:
    """Whether some outline lies within ``CONFIRM_TOL`` cells (at all four corners) of where the board's
    outline or its frame's inner edge is for this grid: then an outline found elsewhere could make
    :func:`_clear_slip` move it only by lying ``1 / OUTLINE_CLEARER`` times nearer a slipped grid's edge."""
    return _outline_misses(outlines, corners, n, shape, ((0, 0),)).get((0, 0), np.inf) < CONFIRM_TOL


def _plausible(corners: F64, shape: Sequence[int], n: int) -> bool:
    """A convex quadrilateral of sensible size that lies mostly in the frame."""
    h, w = shape[0], shape[1]
    c = np.asarray(corners, np.float32)
    if not cv2.isContourConvex(c.reshape(-1, 1, 2)):
        return False
    area = cv2.contourArea(c)
    if area < (2.5 * n) ** 2 or area > 4.0 * w * h:
        return False
    margin = 0.25 * max(w, h)
    # The corners (float32) against the frame's bounds, as float32 too; on plain floats, which are faster here.
    x0, x1, y0, y1 = (float(np.float32(v)) for v in (-margin, w + margin, -margin, h + margin))
    return all(x0 < x < x1 and y0 < y < y1 for x, y in c.reshape(-1, 2).tolist())


def _usable(guesses: Sequence[F64], shape: Sequence[int], n: int) -> list[F64]:
    """The guesses that are plausible grids (see :func:`_plausible`), each of a cluster once (see :func:`_distinct`)."""
    return _distinct([g for g in guesses if _plausible(g, shape, n)], n)


def _inside(corners: F64, n: int, shape: Sequence[int], margin: float) -> bool:
    """Whether the grid at ``corners`` and ``margin`` cells round it lie in a picture of ``shape``."""
    box = np.array([[-margin, -margin], [n + margin, -margin], [n + margin, n + margin], [-margin, n + margin]])
    try:
        out = apply_homography(grid_homography(corners, n), box)
    except (np.linalg.LinAlgError, ValueError):
        return False
    return bool(np.all(out >= 0) and np.all(out[:, 0] < shape[1]) and np.all(out[:, 1] < shape[0]))


def _outlines(maps: Sequence[Sequence[Any]], shape: Sequence[int], merged: bool = False) -> list[F64]:
    """The distinct four-cornered outlines of the large contours of ``maps`` (each a map's contours, in a picture
    of ``shape``), each also with its sides fitted again to its contour (see :meth:`Locator.candidates`)."""
    area_min = 0.01 * int(shape[0]) * int(shape[1])
    quads = [q for contours in maps for q in _quads(contours, area_min, merged)]
    # Each distinct outline also with its sides fitted again to the contour's
    # straight runs, so that a bump (a ball on the far row, a hand) does not tilt them.
    out = []
    for index in _dedupe([q for q, _ in quads]):
        quad, contour = quads[index]
        out.append(quad)
        fitted = _fit_sides(contour.reshape(-1, 2).astype(np.float64), quad)
        if fitted is not None:
            out.append(fitted)
    return [out[i] for i in _dedupe(out)]


def _quads(contours: Sequence[Any], area_min: float, merged: bool = False) -> list[tuple[F64, Any]]:
    """Four-cornered outlines of the large contours.

    A contour's convex hull simplified to four corners, or, when something
    covers a corner or sticks out (a hand, a ball on the far row), its four
    longest sides met at their crossings. With ``merged``, instead, the
    outlines on the straight runs of each contour its hull is clearly larger
    than (see :func:`_run_quads`). Each comes with its contour.
    """
    out: list[tuple[F64, Any]] = []
    for cnt in contours:
        area = cv2.contourArea(cnt)
        if area < area_min:
            continue
        hull = cv2.convexHull(cnt)
        if merged:
            if area < MERGED * cv2.contourArea(hull):
                out.extend((quad, cnt) for quad in _run_quads(cnt, area, area_min))
            continue
        peri = cv2.arcLength(hull, True)
        quad: F64 | None = None
        for eps in (0.015, 0.03, 0.05):
            approx = cv2.approxPolyDP(hull, eps * peri, True)
            if len(approx) == 4:
                quad = order_corners(approx.reshape(4, 2))
                break
        if quad is None:
            approx = cv2.approxPolyDP(hull, 0.015 * peri, True).reshape(-1, 2).astype(np.float64)
            if 5 <= len(approx) <= 8:
                quad = _longest_sides(approx)
        if quad is None:
            continue
        out.append((quad, cnt))
    return out


def _run_quads(contour: Any, area: float, area_min: float) -> list[F64]:
    """Quadrilaterals on four of a contour's longest straight runs, for a board whose outline merged with
    something touching it (a dark card at its corner, a dark cloth along its side): the hull is then not the
    board's, but the board's sides still run along the contour.

    Each lies inside the contour (:data:`RUN_INSIDE` of points spread over
    it) and the contour runs along :data:`RUN_SUPPORT` of its sides; the
    locator's alignment judges the rest. ``area``: the contour's.
    """
    peri = cv2.arcLength(contour, True)
    poly = cv2.approxPolyDP(contour, RUN_EPSILON * peri, True).reshape(-1, 2).astype(np.float64)
    m = len(poly)
    if m < 5:
        return []
    lengths = np.linalg.norm(np.concatenate((poly[1:], poly[:1])) - poly, axis=1)
    longest = sorted(int(i) for i in np.argsort(-lengths)[:RUN_SIDES])
    # The contour drawn filled, and drawn thick, over its bounding box.
    x0, y0, w, h = cv2.boundingRect(contour)
    origin = np.array([x0, y0], np.float64)
    filled = np.zeros((h, w), np.uint8)
    cv2.drawContours(filled, [contour], -1, 1, -1, offset=(-x0, -y0))
    near = np.zeros((h, w), np.uint8)  # within RUN_NEAR pixels of it
    cv2.drawContours(near, [contour], -1, 1, 2 * RUN_NEAR + 1, offset=(-x0, -y0))

    def share(points: F64, mask: npt.NDArray[np.uint8]) -> float:
        x, y = np.round(points - origin).astype(int).T
        onto = (x >= 0) & (x < w) & (y >= 0) & (y < h)
        return float(np.count_nonzero(mask[y[onto], x[onto]])) / len(points)

    out: list[F64] = []
    for sides in itertools.combinations(longest, 4):
        quad = _quad_from_lines([(poly[i], poly[(i + 1) % m] - poly[i]) for i in sides])
        if quad is None or not area_min <= cv2.contourArea(quad.astype(np.float32)) <= area:
            continue
        inner = apply_homography(grid_homography(quad, 1), _RUN_INNER)
        along = (quad[:, None, :] + (np.roll(quad, -1, axis=0) - quad)[:, None, :] * _RUN_STEPS[None, :, None])
        if share(inner, filled) >= RUN_INSIDE and share(along.reshape(-1, 2), near) >= RUN_SUPPORT:
            out.append(quad)
    return out


# A contour under this share of its convex hull's area merged with something: its straight runs are tried for the
# board's sides (see _run_quads), simplified to within this share of its length, the longest few taken four at a
# time; a quad on them must lie this much inside the contour, and the contour within a few pixels of this share of
# the points along its sides.
MERGED = 0.95
RUN_EPSILON, RUN_SIDES = 0.01, 6
RUN_INSIDE, RUN_SUPPORT, RUN_NEAR = 0.9, 0.6, 3
_RUN_STEPS = np.linspace(0.0, 1.0, 20, endpoint=False)
_RUN_INNER = np.stack(np.meshgrid(np.linspace(0.1, 0.9, 5), np.linspace(0.1, 0.9, 5)), axis=-1).reshape(-1, 2)


def _crossing(
    p: tuple[float, float], d: tuple[float, float], q: tuple[float, float], e: tuple[float, float]
) -> tuple[float, float] | None:
    """Where the lines p + s d and q + t e cross (``None`` if nearly parallel); on plain floats (numpy's calls on
    2-vectors cost far more than the sums)."""
    det = d[0] * -e[1] + e[0] * d[1]
    lengths = math.sqrt(d[0] * d[0] + d[1] * d[1]) * math.sqrt(e[0] * e[0] + e[1] * e[1])
    if abs(det) < 1e-9 * lengths or abs(det) < 1e-12:
        return None
    s = ((q[0] - p[0]) * -e[1] + e[0] * (q[1] - p[1])) / det
    return p[0] + s * d[0], p[1] + s * d[1]


def _quad_from_lines(lines: list[tuple[F64, F64]]) -> F64 | None:
    """The quadrilateral whose sides lie on four lines (point, direction) in order round it."""
    xy = [(tuple(p.tolist()), tuple(d.tolist())) for p, d in lines]
    corners = []
    for i in range(4):
        (p, d), (q, e) = xy[i - 1], xy[i]
        x = _crossing(p, d, q, e)
        if x is None:
            return None
        corners.append(x)
    quad = np.array(corners, np.float64)
    if not cv2.isContourConvex(quad.astype(np.float32).reshape(-1, 1, 2)):
        return None
    return order_corners(quad)


def _longest_sides(polygon: F64) -> F64 | None:
    """The quadrilateral on a convex polygon's four longest sides (kept in their order round it)."""
    m = len(polygon)
    lengths = [float(np.linalg.norm(polygon[(i + 1) % m] - polygon[i])) for i in range(m)]
    keep = sorted(sorted(range(m), key=lambda i: -lengths[i])[:4])
    return _quad_from_lines([(polygon[i], polygon[(i + 1) % m] - polygon[i]) for i in keep])


def _fit_sides(points: F64, quad: F64) -> F64 | None:
    """``quad`` with each side fitted again (robustly) to the contour points along it; ``None`` if that fails."""
    # The contour is a polygon (only its turning points kept): fill in its straight runs.
    nxt = np.concatenate((points[1:], points[:1]))  # each point's next (np.roll costs more)
    steps = np.maximum(1, (np.linalg.norm(nxt - points, axis=1) / 3.0).astype(int))
    seg = np.repeat(np.arange(len(points)), steps)
    frac = (np.arange(len(seg)) - np.repeat(np.cumsum(steps) - steps, steps)) / np.repeat(steps, steps)
    dense = points[seg] + (nxt[seg] - points[seg]) * frac[:, None]
    # All four sides at once (their fits are independent; each numpy call costs more than its sums).
    a, b = quad, np.concatenate((quad[1:], quad[:1]))
    length = np.linalg.norm(b - a, axis=1)
    if float(length.min()) < 8:
        return None
    p, d = a.copy(), (b - a) / length[:, None]
    x, y = np.ascontiguousarray(dense[:, 0]), np.ascontiguousarray(dense[:, 1])
    start, end = 0.1 * length[:, None], 0.9 * length[:, None]
    # Trimmed least squares: the band round each side narrows, so a bump drops out.
    for tol in (0.08, 0.04, 0.02):
        # Each point's offset from each side's point, along the side and across it (side, point).
        rx, ry = x[None, :] - p[:, 0, None], y[None, :] - p[:, 1, None]
        along = rx * d[:, 0, None] + ry * d[:, 1, None]
        across = rx * -d[:, 1, None] + ry * d[:, 0, None]
        band = tol * length[:, None]
        near = (np.abs(across) < band) & (along > start) & (along < end)
        count = near.sum(axis=1)
        if int(count.min()) < 10:
            return None
        w = near.astype(np.float64)
        mean = (w @ dense) / count[:, None]
        cx, cy = x[None, :] - mean[:, 0, None], y[None, :] - mean[:, 1, None]
        wx, wy = w * cx, w * cy
        sxx, syy, sxy = (wx * cx).sum(1), (wy * cy).sum(1), (wx * cy).sum(1)
        # The principal axis of the points (the larger eigenvalue's eigenvector of their scatter), pointing a to b.
        angle = 0.5 * np.arctan2(2.0 * sxy, sxx - syy)
        d = np.stack((np.cos(angle), np.sin(angle)), axis=1)
        d = np.where((np.einsum("sk,sk->s", d, b - a) >= 0)[:, None], d, -d)
        p = mean + d * np.einsum("sk,sk->s", a - mean, d)[:, None]  # each line's point level with its corner a
    lines = [(p[i], d[i]) for i in range(4)]
    fitted = _quad_from_lines(lines)
    if fitted is None or float(np.max(np.linalg.norm(fitted - quad, axis=1))) > 0.2 * float(
        np.linalg.norm(quad[2] - quad[0])
    ):
        return None
    return fitted


def _inset(quad: F64, ratio: float, n: int) -> F64:
    """The grid's corners inside an outline ``quad`` whose frame is ``ratio`` cells wide."""
    if not ratio:
        return quad
    total = n + 2 * ratio
    h = grid_homography(quad, n)
    k = n / total
    pts = np.array([[ratio, ratio], [n + ratio, ratio], [n + ratio, n + ratio], [ratio, n + ratio]]) * k
    return apply_homography(h, pts)


def cells_apart(a: F64, b: F64, n: int) -> float:
    """How far apart two grids are, in cells of the first, at the worst of their cells' centres."""
    g = np.arange(n) + 0.5
    cells = np.c_[[v.ravel() for v in np.meshgrid(g, g)]].T
    there = apply_homography(np.linalg.inv(grid_homography(a, n)), apply_homography(grid_homography(b, n), cells))
    return float(np.max(np.abs(there - cells)))


def grids_apart(a: npt.ArrayLike, b: npt.ArrayLike, n: int) -> float:
    """:func:`cells_apart` whichever corner each grid lists first (both clockwise, as :func:`order_corners`)."""
    first, second = np.asarray(a, np.float64), np.asarray(b, np.float64)
    return min(cells_apart(np.roll(first, k, axis=0), second, n) for k in range(4))


def _distinct(guesses: list[F64], n: int, count: int = 10**6) -> list[F64]:
    """The first ``count`` guesses that differ from each other by more than a third of a cell somewhere."""
    out: list[F64] = []
    kept = np.zeros((0, 4, 2))
    for g in guesses:
        pitch = float(np.linalg.norm(g[1] - g[0])) / n
        if len(out) and float(np.min(np.max(np.linalg.norm(kept - g[None], axis=2), axis=1))) <= 0.3 * pitch:
            continue
        out.append(g)
        kept = np.concatenate([kept, g[None]])
        if len(out) >= count:
            break
    return out


def _dedupe(quads: list[F64], tol: float = 4.0) -> list[int]:
    """Indices of the quadrilaterals that differ from every earlier one by more than ``tol`` pixels somewhere."""
    out: list[int] = []
    kept = np.zeros((0, 4, 2))
    for i, q in enumerate(quads):
        if len(out) and float(np.min(np.max(np.abs(kept - q[None]), axis=(1, 2)))) <= tol:
            continue
        out.append(i)
        kept = np.concatenate([kept, q[None]])
    return out
