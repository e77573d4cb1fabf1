"""Finding the grid: board outline candidates, then the lattice of cups and balls inside.

No markers. A Rolit board is a tray whose top shows an n x n lattice of cups
(and balls) on flat plastic, inside a frame. Candidates for the board come
from quadrilateral outlines in edge and region maps; each is checked and
aligned by the lattice itself: the region is rectified, a map of "cell
content" (how far each pixel is from the plastic's colour, which cups and
balls are and the plastic between them is not) is summed along each axis, and
the Fourier component at one cycle per cell gives both how strongly a lattice
of that pitch is there (the score) and where its cells' centres are (the
phase). Scale and offset along each axis are corrected from it, a few times,
and a slip of a whole cell is settled by the frame: the true grid's outer rows
hold cups, the rows beyond it do not.

Grid coordinates: ``(u, v)``, 0..n across the grid, ``u`` along row 1; the
centre of cell ``(col, row)`` is at ``(col + 0.5, row + 0.5)``.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt

__all__ = ["GridFit", "Locator", "apply_homography", "grid_homography", "order_corners"]

log = logging.getLogger(__name__)

F64 = npt.NDArray[np.float64]
F32 = npt.NDArray[Any]  # float32 images; OpenCV's stubs widen dtypes freely
U8 = npt.NDArray[Any]

# The board's frame round the grid, in cells, for a classic set (2 cm of frame
# round 3 cm cells), its inner edge (4 mm out), and none: an outline found in the
# image may be any of the three.
FRAME_RATIOS = (20.0 / 30.0, 4.0 / 30.0, 0.0)
PX = 16  # pixels per cell in the rectified view
PAD = 1.5  # cells of margin round the grid in the rectified view
TOP = 5  # candidate grids aligned in full (the strongest after a first look)


def order_corners(points: npt.ArrayLike) -> F64:
    """Four points ordered clockwise in the image, starting nearest the top-left."""
    pts = np.asarray(points, np.float64).reshape(4, 2)
    centre = pts.mean(axis=0)
    angles = np.arctan2(pts[:, 1] - centre[1], pts[:, 0] - centre[0])
    pts = pts[np.argsort(angles)]  # clockwise in image coordinates (y down)
    start = int(np.argmin(pts[:, 0] + pts[:, 1]))
    return np.roll(pts, -start, axis=0)


def grid_homography(corners: npt.ArrayLike, n: int) -> F64:
    """Homography from grid coordinates (0..n) to the image, given the grid's corners tl, tr, br, bl."""
    src = np.array([[0, 0], [n, 0], [n, n], [0, n]], np.float64)
    h = cv2.getPerspectiveTransform(src.astype(np.float32), np.asarray(corners, np.float32).reshape(4, 2))
    return np.asarray(h, np.float64)


def apply_homography(h: npt.ArrayLike, pts: npt.ArrayLike) -> F64:
    """Points mapped by a homography."""
    p = np.asarray(pts, np.float64).reshape(-1, 2)
    q = np.c_[p, np.ones(len(p))] @ np.asarray(h, np.float64).T
    return np.asarray(q[:, :2] / q[:, 2:3], np.float64)


@dataclass(frozen=True)
class GridFit:
    """A located grid: corners (tl, tr, br, bl image pixels), homography from grid coordinates, quality 0..1."""

    corners: F64
    homography: F64
    quality: float
    score: float


@dataclass(frozen=True)
class _Lattice:
    """What the rectified view says about one axis: strength, and the correction to scale and offset."""

    strength: float
    scale: float  # true pitch / assumed pitch
    offset: float  # cells to add so the assumed centres land on the true ones


class Locator:
    """Finds and tracks the n x n grid in frames.

    >>> Locator(8).n
    8
    """

    def __init__(self, n: int, work_width: int = 640) -> None:
        self.n = n
        self.work_width = work_width

    # The lattice test -----------------------------------------------------------

    def _rectify(self, lab: F32, corners: F64) -> tuple[F32, F64]:
        """The grid region (with a margin) seen square-on, as a cell-content map."""
        n = self.n
        size = round((n + 2 * PAD) * PX)
        src = np.array([[-PAD, -PAD], [n + PAD, -PAD], [n + PAD, n + PAD], [-PAD, n + PAD]], np.float64)
        h = grid_homography(corners, n)
        quad = apply_homography(h, src)
        dst = np.array([[0, 0], [size, 0], [size, size], [0, size]], np.float32)
        warp = cv2.getPerspectiveTransform(quad.astype(np.float32), dst)
        view = cv2.warpPerspective(lab, warp, (size, size), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
        inner = view[int(PAD * PX) : size - int(PAD * PX), int(PAD * PX) : size - int(PAD * PX)]
        # The plastic is the colour between the cups, a little inside each cell's
        # corners (clear of the cup, and of any printed grid line).
        near = round(0.14 * PX)
        k = np.r_[np.arange(n) * PX + near, np.arange(1, n + 1) * PX - near]
        plastic = np.median(inner[k][:, k].reshape(-1, 3), axis=0)
        diff = view - plastic[None, None, :]
        content = np.sqrt(diff[..., 0] ** 2 + 2.0 * (diff[..., 1] ** 2 + diff[..., 2] ** 2))
        # Compress: a few bright balls must not drown the many faint cups.
        content = np.log1p(content / 3.0)
        content = cv2.GaussianBlur(content, (0, 0), PX * 0.12)
        return content.astype(np.float32), h

    def _axis(self, profile: F64) -> _Lattice:
        """Strength, scale and phase of the one-cycle-per-cell component of a profile across the grid."""
        n = self.n
        start, stop = int(PAD * PX), int((PAD + n) * PX)
        middle = (start + stop) / 2.0
        x = np.arange(start, stop, dtype=np.float64) + 0.5 - middle
        p = profile[start:stop] - profile[start:stop].mean()
        best = (0.0, 1.0, 0.0)
        for scale in np.linspace(0.88, 1.12, 25):
            f = scale / PX  # cycles per pixel if the true pitch is PX / scale
            a = complex(np.dot(p, np.exp(-2j * np.pi * f * x))) / len(x)
            if abs(a) > best[0]:
                best = (abs(a), float(scale), float(np.angle(a)))
        amp, scale, phase = best
        # Content peaks at cell centres: the component cos(2 pi f x - phi) peaks at
        # x = (phi / 2 pi + k) / f with phi = -phase. The assumed centre just right
        # of the middle is half a cell out; the offset is how far the true one is from it.
        peak = (-phase / (2 * np.pi)) / scale  # cells from the middle
        spacing = 1.0 / scale
        offset = (peak - 0.5 + spacing / 2) % spacing - spacing / 2
        noise = float(np.std(p)) + 1e-6
        return _Lattice(amp / noise, scale, float(offset))

    def examine(self, lab: F32, corners: F64) -> tuple[float, F64]:
        """Lattice strength of a grid guess, and the corrected guess."""
        n = self.n
        content, h = self._rectify(lab, corners)
        lo, hi = int(PAD * PX), int((PAD + n) * PX)
        inner = content[lo:hi, lo:hi]
        # Profiles along u (sum over rows) and along v (sum over columns), over the grid only.
        pu = np.zeros(content.shape[1])
        pv = np.zeros(content.shape[0])
        pu[lo:hi] = inner.mean(axis=0)
        pv[lo:hi] = inner.mean(axis=1)
        lu, lv = self._axis(pu), self._axis(pv)
        strength = min(lu.strength, lv.strength)
        # Correct: centres move by the offset, pitch by the scale (about the grid's middle).
        mid = n / 2.0

        def fix(t: F64, lat: _Lattice) -> F64:
            # The true grid's middle boundary, then n / 2 true pitches either side.
            middle = mid + 0.5 + lat.offset - 0.5 / lat.scale
            return np.asarray(middle + (t - mid) / lat.scale, np.float64)

        box = np.array([[0, 0], [n, 0], [n, n], [0, n]], np.float64)
        new = np.c_[fix(box[:, 0], lu), fix(box[:, 1], lv)]
        return strength, apply_homography(h, new)

    def border(self, lab: F32, corners: F64) -> float:
        """How well the grid ends at the frame: cups on its outer rows and columns, none beyond (about -1..1).

        Each outer line of cells is compared with the line just outside it by how
        much the cell content varies along it (cups and balls make it vary, the
        frame does not); the weakest of the four sides decides.
        """
        n = self.n
        content, _ = self._rectify(lab, corners)
        lo = int(PAD * PX)
        span = slice(lo, lo + n * PX)

        def varies(band: F32, along: int) -> float:
            return float(np.std(band.mean(axis=along)))

        rows = [varies(content[lo + k * PX : lo + (k + 1) * PX, span], 0) for k in range(n)]
        cols = [varies(content[span, lo + k * PX : lo + (k + 1) * PX], 1) for k in range(n)]
        typical = float(np.median(rows + cols)) + 1e-6
        outside = [
            varies(content[lo - PX : lo, span], 0),
            varies(content[lo + n * PX : lo + (n + 1) * PX, span], 0),
            varies(content[span, lo - PX : lo], 1),
            varies(content[span, lo + n * PX : lo + (n + 1) * PX], 1),
        ]
        inside = [rows[0], rows[-1], cols[0], cols[-1]]
        return float(min((i - o) / typical for i, o in zip(inside, outside, strict=True)))

    # Candidates ---------------------------------------------------------------

    def candidates(self, image: U8) -> list[F64]:
        """Quadrilaterals (4x2, image pixels) that may be the board's outline, its frame's inner edge, or its grid."""
        grey = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
        lab = cv2.cvtColor(image, cv2.COLOR_BGR2LAB)
        hsv = cv2.cvtColor(image, cv2.COLOR_BGR2HSV)
        area_min = 0.01 * image.shape[0] * image.shape[1]
        quads: list[F64] = []
        for channel in (grey, hsv[..., 1], lab[..., 1], lab[..., 2]):
            blur = cv2.GaussianBlur(channel, (7, 7), 0)
            _, mask = cv2.threshold(blur, 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
            for m in (mask, 255 - mask):
                m = cv2.morphologyEx(m, cv2.MORPH_CLOSE, np.ones((9, 9), np.uint8))
                m = cv2.morphologyEx(m, cv2.MORPH_OPEN, np.ones((5, 5), np.uint8))
                contours, _ = cv2.findContours(m, cv2.RETR_CCOMP, cv2.CHAIN_APPROX_SIMPLE)
                quads.extend(_quads(contours, area_min))
        for channel in (grey, lab[..., 1], lab[..., 2]):
            blur = cv2.GaussianBlur(channel, (5, 5), 0)
            for lo, hi in ((20, 60), (40, 120)):
                edges = cv2.dilate(cv2.Canny(blur, lo, hi), np.ones((3, 3), np.uint8))
                contours, _ = cv2.findContours(edges, cv2.RETR_LIST, cv2.CHAIN_APPROX_SIMPLE)
                quads.extend(_quads(contours, area_min))
        return _dedupe(quads)

    # Locating -------------------------------------------------------------------

    def locate(self, image: U8) -> GridFit | None:
        """The best grid in ``image`` (full-resolution pixels), or ``None``: a full search.

        Frame to frame, :meth:`track` follows a grid found before far more cheaply.
        """
        scale = min(1.0, self.work_width / image.shape[1])
        work = cv2.resize(image, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA) if scale < 1 else image
        lab = cv2.cvtColor(work.astype(np.float32) / 255.0, cv2.COLOR_BGR2LAB)
        n = self.n
        guesses: list[tuple[float, F64]] = []
        for quad in self.candidates(work):
            for ratio in FRAME_RATIOS:
                corners = _inset(quad, ratio, n)
                if not _plausible(corners, work.shape, n):
                    continue
                strength, _ = self.examine(lab, corners)
                guesses.append((strength, corners))
        guesses.sort(key=lambda g: -g[0])
        best: tuple[float, F64] | None = None
        for _strength, corners in guesses[:TOP]:
            aligned = self._align(lab, corners, rounds=4)
            if aligned is None:
                continue
            total = aligned[0] * (1.0 + max(-1.0, min(1.0, self.border(lab, aligned[1]))))
            if best is None or total > best[0]:
                best = (total, aligned[1])
        if best is None or best[0] < 0.25:
            return None
        return self._fit(best[1], best[0], scale)

    def track(self, image: U8, corners: F64) -> GridFit | None:
        """Follow a grid found before: a small alignment from ``corners``, no search (``None`` if it is lost)."""
        scale = min(1.0, self.work_width / image.shape[1])
        work = cv2.resize(image, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA) if scale < 1 else image
        lab = cv2.cvtColor(work.astype(np.float32) / 255.0, cv2.COLOR_BGR2LAB)
        start = np.asarray(corners, np.float64) * scale
        strength, moved = self.examine(lab, start)
        pitch = float(np.linalg.norm(start[1] - start[0])) / self.n
        # Follow small moves (a shaking camera) only; a big one is for a new search.
        jump = float(np.max(np.linalg.norm(moved - start, axis=1)))
        if not _plausible(moved, lab.shape, self.n) or jump > 0.4 * pitch:
            moved = start
        return self._fit(moved, strength, scale)

    def _align(self, lab: F32, corners: F64, rounds: int) -> tuple[float, F64] | None:
        """Align a guess to the lattice, then settle a one-cell slip by the frame."""
        c = corners
        strength = 0.0
        for _ in range(rounds):
            strength, c2 = self.examine(lab, c)
            if not _plausible(c2, lab.shape, self.n):
                return None
            moved = float(np.max(np.linalg.norm(c2 - c, axis=1)))
            c = c2
            if moved < 0.3:
                break
        strength, _ = self.examine(lab, c)
        h = grid_homography(c, self.n)
        n = self.n
        best = (self.border(lab, c), c)
        for du, dv in ((1, 0), (-1, 0), (0, 1), (0, -1)):
            trial = apply_homography(h, np.array([[du, dv], [n + du, dv], [n + du, n + dv], [du, n + dv]], np.float64))
            if _plausible(trial, lab.shape, n):
                b = self.border(lab, trial)
                if b > best[0] + 0.1:
                    best = (b, trial)
        return strength, best[1]

    def _fit(self, corners: F64, strength: float, scale: float) -> GridFit:
        full = corners / scale
        quality = float(np.clip((strength - 0.15) / 0.35, 0.0, 1.0))
        return GridFit(full, grid_homography(full, self.n), quality, strength)


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
    return bool(np.all(c[:, 0] > -margin) and np.all(c[:, 0] < w + margin) and np.all(c[:, 1] > -margin)
                and np.all(c[:, 1] < h + margin))


def _quads(contours: Sequence[Any], area_min: float) -> list[F64]:
    """Convex four-cornered outlines of the large contours."""
    out = []
    for cnt in contours:
        if cv2.contourArea(cnt) < area_min:
            continue
        hull = cv2.convexHull(cnt)
        peri = cv2.arcLength(hull, True)
        for eps in (0.015, 0.03, 0.05):
            approx = cv2.approxPolyDP(hull, eps * peri, True)
            if len(approx) == 4:
                out.append(order_corners(approx.reshape(4, 2)))
                break
    return out


def _inset(quad: F64, ratio: float, n: int) -> F64:
    """The grid's corners inside an outline ``quad`` whose frame is ``ratio`` cells wide."""
    if not ratio:
        return quad
    total = n + 2 * ratio
    h = grid_homography(quad, n)
    k = n / total
    pts = np.array([[ratio, ratio], [n + ratio, ratio], [n + ratio, n + ratio], [ratio, n + ratio]]) * k
    return apply_homography(h, pts)


def _dedupe(quads: list[F64], tol: float = 4.0) -> list[F64]:
    out: list[F64] = []
    for q in quads:
        if all(np.max(np.abs(q - o)) > tol for o in out):
            out.append(q)
    return out
