"""Grid guesses from the board's printed lines, found anywhere in the picture.

For a board whose outline is not found (it merges with a dark table, a hand
covers a corner) and whose cups hardly show (a black board), the lines many
boards print between the cells may be all there is to go on. Here thin
ridges, lighter or darker than either side, are found in the whole picture
and taken as straight segments (probabilistic Hough). Segments of one family
of the board's lines meet at one vanishing point; the commonest points are
found by RANSAC over pairs of segments. For each pair of them the picture is
rectified up to an affine map (their horizon sent to infinity: see Hartley
and Zisserman, section 2.7), where each family's lines are parallel and, if
they are the board's, evenly spaced. The spacing and phase that put the
most length of segments on n + 1 evenly spaced lines give the grid along that
family. The table's grain or a cloth's weave make families too, but not
evenly spaced ones of the board's count.

The answer is a guess, often a cell out at one side (the frame's edges run
along the lines too), so each comes with its neighbours a cell either way.
Calibration takes them among its grid guesses for the start position (see
:meth:`rolit.vision.locate.Locator.centred_guesses`): the four centre balls
tell the right one. (Tried in the locator's own search too, they found one
more board of 340 development game frames, and now and then a grid on a
chequered cloth: not taken there.)

>>> import numpy as np
>>> image = np.full((360, 640, 3), 20, np.uint8)
>>> for k in range(9):
...     _ = cv2.line(image, (200 + 30 * k, 60), (200 + 30 * k, 300), (90, 90, 90), 1)
...     _ = cv2.line(image, (200, 60 + 30 * k), (440, 60 + 30 * k), (90, 90, 90), 1)
>>> corners = [sorted(np.round(g).astype(int).tolist()) for g in line_guesses(image, 8)]
>>> [[200, 60], [200, 300], [440, 60], [440, 300]] in corners
True
"""

from __future__ import annotations

import itertools
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt

__all__ = ["line_guesses"]

F64 = npt.NDArray[np.float64]
Lines = tuple[float, float, int]  # a family's evenly spaced lines: spacing, phase, the first of the board's

RIDGE_SHARE = 0.08  # the strongest share of the picture's ridge responses taken as line pixels
RIDGE_LEAST = 2.0  # and never weaker than this (a picture with no lines at all)
MIN_SEGMENTS = 6
HOUGH_VOTES, SEGMENT_LEAST, SEGMENT_GAP = 30, 1.0 / 25.0, 4  # votes, length (share of the width), gap (pixels)
VANISHING_POINTS = 5  # families of segments looked for
VP_TRIES = 300  # pairs of segments tried for each family's vanishing point
VP_TOL = np.radians(1.0)  # a segment within this angle of the line to a vanishing point is of its family
PERIODS = np.geomspace(6.0, 160.0, 600)  # spacings tried (rectified pixels, about the picture's near the middle)
PERIOD_CANDIDATES = 24  # spacings, the best by the length of segments on them, judged in full
SPAN_MOST = 8  # boards' worth of lines a family's segments may spread over
ON_LINE = 0.1  # a segment this many spacings from a lattice line is on it
# How far from the horizon (the rectified weight, 1 at the picture's centre) a segment must stay.
HORIZON_CLEAR = 0.2
SLIPS = (-1, 0, 1)  # whole cells each family's guess is also moved by


def line_guesses(image: npt.NDArray[Any], n: int, rng: np.random.Generator | None = None) -> list[F64]:
    """Grid guesses (corners tl, tr, br, bl; ``image`` pixels) from printed lines, likeliest first; maybe none.

    Lighter lines than the board (a black board's) and darker ones (a white
    board's) are looked for in turn. The same picture always gives the same
    guesses (the random search is seeded).
    """
    rng = np.random.default_rng(0) if rng is None else rng
    centre = np.array([image.shape[1] / 2.0, image.shape[0] / 2.0])
    found: list[tuple[int, float, F64, F64, Lines, F64, Lines]] = []
    grey = np.asarray(cv2.GaussianBlur(cv2.cvtColor(image, cv2.COLOR_BGR2GRAY).astype(np.float32), (0, 0), 1.0))
    for lighter in (True, False):
        segs = _segments(grey, lighter, image.shape[1])
        if len(segs) < MIN_SEGMENTS:
            continue
        families = _vanishing_points(segs, rng)
        for (va, in_a), (vb, in_b) in itertools.combinations(families, 2):
            h = _rectifier(va, vb, centre)
            if h is None:
                continue
            sa, wa, na = _positions(segs[in_a], h, va)
            sb, wb, nb = _positions(segs[in_b], h, vb)
            fa, fb = _lattice(sa, wa, n), _lattice(sb, wb, n)
            if fa is None or fb is None:
                continue
            found.append((fa[3] + fb[3], fa[4] + fb[4], h, na, fa[:3], nb, fb[:3]))
    found.sort(key=lambda f: (-f[0], -f[1]))
    out = []
    for _, _, h, na, a, nb, b in found:
        for da, db in itertools.product(SLIPS, SLIPS):
            corners = _corners(h, na, a, nb, b, n, da, db)
            if corners is not None:
                out.append(corners)
    return out


def _segments(grey: npt.NDArray[Any], lighter: bool, width: int) -> F64:
    """Straight runs (x1, y1, x2, y2) of thin ridges lighter (or darker) than both sides, in any direction."""
    dxx = cv2.Sobel(grey, cv2.CV_32F, 2, 0, ksize=3)
    dyy = cv2.Sobel(grey, cv2.CV_32F, 0, 2, ksize=3)
    dxy = cv2.Sobel(grey, cv2.CV_32F, 1, 1, ksize=3)
    # The Hessian's eigenvalues: across a light line the curvature is strongly negative, along it small.
    spread = np.sqrt((dxx - dyy) ** 2 + 4.0 * dxy**2)
    ridge = (spread - dxx - dyy) / 2.0 if lighter else (dxx + dyy + spread) / 2.0
    threshold = max(float(np.percentile(ridge, 100.0 * (1.0 - RIDGE_SHARE))), RIDGE_LEAST)
    mask = (ridge > threshold).astype(np.uint8) * 255
    least = max(15, int(SEGMENT_LEAST * width))
    found = cv2.HoughLinesP(mask, 1, np.pi / 360, threshold=HOUGH_VOTES, minLineLength=least, maxLineGap=SEGMENT_GAP)
    return np.zeros((0, 4)) if found is None else np.asarray(found[:, 0, :], np.float64)


def _homogeneous(segs: F64) -> F64:
    """Each segment's line (a, b, c: a x + b y + c = 0, with a, b a unit normal)."""
    ones = np.ones((len(segs), 1))
    lines = np.cross(np.c_[segs[:, :2], ones], np.c_[segs[:, 2:], ones])
    return np.asarray(lines / np.linalg.norm(lines[:, :2], axis=1, keepdims=True), np.float64)


def _towards(segs: F64, points: F64) -> npt.NDArray[np.bool_]:
    """Which segments (columns) point at which vanishing points (rows; homogeneous) within :data:`VP_TOL`."""
    middle = (segs[:, :2] + segs[:, 2:]) / 2.0
    d = segs[:, 2:] - segs[:, :2]
    d = d / np.linalg.norm(d, axis=1, keepdims=True)
    to = points[:, None, :2] - middle[None, :, :] * points[:, None, 2:3]
    to = to / np.maximum(np.linalg.norm(to, axis=2, keepdims=True), 1e-12)
    sine = np.abs(d[None, :, 0] * to[..., 1] - d[None, :, 1] * to[..., 0])
    return np.asarray(sine < np.sin(VP_TOL))


def _vanishing_points(segs: F64, rng: np.random.Generator) -> list[tuple[F64, npt.NDArray[np.bool_]]]:
    """Up to :data:`VANISHING_POINTS` families: each one's vanishing point (homogeneous) and its segments.

    Each is the point of :data:`VP_TRIES` pairs' crossings that the greatest
    length of the segments left points at, refined by least squares on them.
    """
    lines = _homogeneous(segs)
    length = np.linalg.norm(segs[:, 2:] - segs[:, :2], axis=1)
    left = np.ones(len(segs), bool)
    out = []
    for _ in range(VANISHING_POINTS):
        idx = np.flatnonzero(left)
        if len(idx) < 4:
            break
        p = length[idx] / length[idx].sum()
        pairs = rng.choice(idx, (VP_TRIES, 2), p=p)
        pairs = pairs[pairs[:, 0] != pairs[:, 1]]
        points = np.cross(lines[pairs[:, 0]], lines[pairs[:, 1]])
        norm = np.linalg.norm(points, axis=1)
        points = points[norm > 1e-12] / norm[norm > 1e-12, None]
        if not len(points):
            break
        scores = _towards(segs[idx], points).astype(np.float64) @ length[idx]
        best = points[int(np.argmax(scores))]
        mine = np.zeros(len(segs), bool)
        mine[idx] = _towards(segs[idx], best[None])[0]
        if mine.sum() < 3:
            break
        # The point nearest all its segments' lines (weighted by length), if it keeps them.
        refined = np.linalg.svd(lines[mine] * length[mine, None])[2][-1]
        if _towards(segs[mine], refined[None])[0].mean() > 0.8:
            best = refined
            mine[idx] = _towards(segs[idx], best[None])[0]
        out.append((np.asarray(best, np.float64), mine))
        left &= ~mine
    return out


def _rectifier(va: F64, vb: F64, centre: F64) -> F64 | None:
    """The homography sending the horizon through ``va`` and ``vb`` to infinity and fixing ``centre``."""
    horizon = np.cross(va, vb)
    w = float(horizon @ np.array([centre[0], centre[1], 1.0]))
    if abs(w) < 1e-12 * float(np.linalg.norm(horizon)):
        return None
    return np.array([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], horizon / w])


def _positions(segs: F64, h: F64, v: F64) -> tuple[F64, F64, F64]:
    """Where each segment of the family with vanishing point ``v`` lies across the family (rectified by
    ``h``, where its lines are parallel), its length in the picture (its weight), and the family's normal."""
    ones = np.ones((len(segs), 1))
    p = np.c_[segs[:, :2], ones] @ h.T
    q = np.c_[segs[:, 2:], ones] @ h.T
    # Segments reaching near the horizon (or beyond: not on the plane the families span) are left out.
    ahead = (p[:, 2] > HORIZON_CLEAR) & (q[:, 2] > HORIZON_CLEAR)
    middle = (p[ahead, :2] / p[ahead, 2:] + q[ahead, :2] / q[ahead, 2:]) / 2.0
    d = (h @ v)[:2]
    normal = np.array([-d[1], d[0]]) / max(float(np.linalg.norm(d)), 1e-12)
    return middle @ normal, np.linalg.norm(segs[ahead, 2:] - segs[ahead, :2], axis=1), normal


def _lattice(s: F64, w: F64, n: int) -> tuple[float, float, int, int, float] | None:
    """Evenly spaced lines through positions ``s`` (weights ``w``): the spacing, the phase and the first of
    the n + 1 lines, how many of those have a segment on them, and the segments' length on them.

    Every spacing of :data:`PERIODS` is tried: its phase is the weighted
    circular mean of the positions, then spacing and phase are fitted again by
    least squares to the segments near the lines. The best few by the length
    on lines are judged in full: each one's run of n + 1 lines with the most
    of them found (then the most length), and of those the run with the most
    length wins. A finer spacing than the board's puts as many segments on
    lines, but its n + 1 lines span only part of the board; a coarser one
    misses every other line.
    """
    periods = PERIODS[:, None]
    angle = 2.0 * np.pi * s[None, :] / periods
    z = (w * np.exp(1j * angle)).sum(axis=1, keepdims=True)
    phase = np.angle(z) / (2.0 * np.pi) * periods
    for tol in (0.25, 0.15):
        r = (s[None, :] - phase) / periods
        k = np.round(r)
        ww = w[None, :] * (np.abs(r - k) < tol)
        # Weighted least squares of s = phase + k spacing, for every spacing at once.
        s0, s1, s2 = ww.sum(1), (ww * k).sum(1), (ww * k * k).sum(1)
        t0, t1 = (ww * s[None, :]).sum(1), (ww * k * s[None, :]).sum(1)
        det = s0 * s2 - s1 * s1
        ok = np.abs(det) > 1e-9
        spacing = np.where(ok, (s0 * t1 - s1 * t0) / np.where(ok, det, 1.0), periods[:, 0])
        phase = np.where(ok, (t0 - spacing * s1) / np.where(s0 > 0, s0, 1.0), phase[:, 0])[:, None]
        periods = np.where(spacing > 1.0, spacing, periods[:, 0])[:, None]
    r = (s[None, :] - phase) / periods
    on = np.abs(r - np.round(r)) < ON_LINE
    best: tuple[float, float, int, int, float] | None = None
    for i in np.argsort(-(on * w[None, :]).sum(axis=1))[:PERIOD_CANDIDATES]:
        ks = np.round(r[i, on[i]]).astype(np.int64)
        if len(ks) < 3 or int(ks.max() - ks.min()) > SPAN_MOST * (n + 1):
            continue  # lines over far more than a board: a spacing far finer than any board's
        lo = int(ks.min())
        cover = np.zeros(int(ks.max()) - lo + 1)
        np.add.at(cover, ks - lo, w[on[i]])
        hit = (cover > 0).astype(np.float64)
        if len(hit) <= n + 1:
            hits, weight, first = float(hit.sum()), float(cover.sum()), lo
        else:
            counts = np.convolve(hit, np.ones(n + 1), "valid")
            lengths = np.convolve(cover, np.ones(n + 1), "valid")
            j = int(np.lexsort((lengths, counts))[-1])
            hits, weight, first = float(counts[j]), float(lengths[j]), lo + j
        if hits < max(3, (n + 1) // 2):
            continue
        if best is None or weight > best[4]:
            best = (float(periods[i, 0]), float(phase[i, 0]), first, int(hits), weight)
    return best


def _corners(h: F64, na: F64, a: Lines, nb: F64, b: Lines, n: int, da: int, db: int) -> F64 | None:
    """The grid's corners in the picture from each family's lines (spacing, phase, first), moved by whole
    cells ``da`` and ``db``; ``None`` when the families are parallel."""
    m = np.array([na, nb])
    if abs(float(np.linalg.det(m))) < 1e-6:
        return None
    box = []
    for i, j in ((0, 0), (n, 0), (n, n), (0, n)):
        box.append(np.linalg.solve(m, [a[1] + (a[2] + da + i) * a[0], b[1] + (b[2] + db + j) * b[0]]))
    pts = np.c_[np.array(box), np.ones(4)] @ np.linalg.inv(h).T
    if np.any(np.abs(pts[:, 2]) < 1e-12):
        return None
    return np.asarray(pts[:, :2] / pts[:, 2:], np.float64)
