"""Grid guesses from the balls themselves, for boards whose outline is not found.

A board's outline can merge with the table's edge, or a hand can cover a
corner, and then no four-cornered outline leads to the grid. The balls still
show it: each glossy ball has a small, bright highlight, and as the light is
the same for all, the highlights sit on a lattice, one cell apart. Here the
highlights are found (small bright spots, taken twice: only those on strong
colour, and all), the commonest steps between neighbouring highlights are
paired, and the lattice each pair spans is grown from its best-connected
highlight (whole steps along both, followed across the perspective); the
pairs that reach the most highlights, within the board's n cells, give a
homography from lattice steps to the image. Lowered from the highlights'
height to the board's plane (the camera pose behind it), it gives grid
guesses: one per placement of the board's n x n cells round the balls found.
With two lamps each ball shows two highlights, always the same small step
apart; that step is common too, but a lattice grown along it soon stops.
"""

from __future__ import annotations

import itertools
from collections import deque
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt

from .lattice import cell_centres, grid_homography
from .pose import BALL_CENTRE_HEIGHT, BALL_RADIUS, Pose, lifted_homography

__all__ = [
    "block_sides",
    "centre_block",
    "highlights",
    "lattice_guesses",
    "on_highlights",
    "placed",
    "steps",
]

F64 = npt.NDArray[np.float64]
U8 = npt.NDArray[Any]  # 8-bit images; OpenCV's stubs widen dtypes freely

SPOT = 9  # pixels: bright spots narrower than this (in the work image) are highlights
MAX_SPOTS = 80
COLOURED = 60.0  # mean saturation (0..255) round a highlight, for it to be on a ball
# Where the highlight is taken to stand, in cells above the board: between the
# ball's centre and its top (the lamp is above, a little to one side).
HIGHLIGHT_HEIGHT = BALL_CENTRE_HEIGHT + 0.7 * BALL_RADIUS
NEIGHBOURS = (4, 8)  # nearest points whose steps are counted (two ways)
GROWN_PAIRS = 4  # pairs of steps grown into a lattice in full
COMMON_STEPS = 5  # the commonest steps tried in pairs for the lattice's
STEP_TOL = 0.3  # a neighbour within this share of a step of where the lattice puts it is on it
MIN_BALLS = 5  # highlights on a lattice, at least, for it to count
MAX_PLACEMENTS = 12  # placements of the n x n cells round the balls, at most (nearest the middle first)
# A grid moved onto the highlights (see on_highlights): how near (cells) where the grid puts a ball's highlight
# one must lie to be taken for it; how near the fit (cells) one must lie to agree with it; the least that must;
# and the fits, each from the last one's grid.
ONTO_REACH, ONTO_TOLERANCE, ONTO_LEAST, ONTO_LOOKS = 0.3, 0.08, 12, 3
# The start position's centre block (see centre_block): how near (cells) where a grid puts a ball's highlight
# the highlights tried for it lie, how many of the nearest are tried, and how far (cells, the two pairs of
# opposite sides' differences added) the four taken may lie from a parallelogram.
BLOCK_REACH, BLOCK_TRIES, BLOCK_SKEW = 0.45, 3, 0.25


def highlights(image: U8, coloured: bool = True) -> F64:
    """Small bright spots (x, y, work-image pixels), brightest first; ``coloured``: only those on strong colour."""
    grey = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY).astype(np.float32)
    kernel = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (SPOT, SPOT))
    spots = cv2.GaussianBlur(grey - cv2.morphologyEx(grey, cv2.MORPH_OPEN, kernel), (0, 0), 1.0)
    peaks = (spots == cv2.dilate(spots, np.ones((7, 7), np.uint8))) & (
        spots > max(12.0, float(np.percentile(spots, 99.5)))
    )
    # A ball's highlight sits on its colours: the spot's surroundings are strongly coloured
    # (a glint on the grey frame, a cup's rim or the table is not).
    hsv_s = cv2.cvtColor(image, cv2.COLOR_BGR2HSV)[..., 1].astype(np.float32)
    saturation = np.maximum(cv2.blur(hsv_s, (5, 5)), cv2.blur(hsv_s, (SPOT, SPOT)))  # small balls and large
    if coloured:
        peaks &= saturation > COLOURED
    ys, xs = np.nonzero(peaks)
    order = np.argsort(-spots[ys, xs])[:MAX_SPOTS]
    return np.asarray(np.c_[xs[order], ys[order]], np.float64)


def steps(points: F64, n: int) -> list[tuple[F64, F64, dict[tuple[int, int], int]]]:
    """The lattice's two steps: of the commonest steps between neighbouring points, the pairs (not parallel)
    along which the lattice reaches the most points (within n cells), the best two, with the lattice each
    reaches (see :func:`_grow`)."""
    if len(points) < MIN_BALLS:
        return []
    d = points[None, :, :] - points[:, None, :]
    dist = np.linalg.norm(d, axis=2)
    np.fill_diagonal(dist, np.inf)
    order = np.argsort(dist, axis=1)
    common: list[F64] = []
    # Steps to the nearest few points, and to a few more (two highlights a ball crowd the nearest).
    for count in NEIGHBOURS:
        near = order[:, :count]
        vecs = np.concatenate([d[i, near[i]] for i in range(len(points))])
        vecs = vecs[np.isfinite(vecs).all(axis=1)]
        # Fold opposite steps together, and count each different step once (with how often it is taken).
        vecs = np.where((vecs[:, :1] < 0) | ((vecs[:, :1] == 0) & (vecs[:, 1:] < 0)), -vecs, vecs)
        vecs, taken = np.unique(np.round(vecs), axis=0, return_counts=True)
        length = np.linalg.norm(vecs, axis=1)
        # How many steps agree with each (either way round).
        minus = ((vecs[:, None, :] - vecs[None, :, :]) ** 2).sum(axis=2)
        plus = ((vecs[:, None, :] + vecs[None, :, :]) ** 2).sum(axis=2)
        agree = np.minimum(minus, plus) < (STEP_TOL * length[:, None]) ** 2
        scores = agree @ taken
        chosen: list[int] = []
        for i in np.lexsort((length, -scores)):
            if scores[i] < 2 or len(chosen) >= COMMON_STEPS:
                break
            if not agree[i, chosen].any():
                chosen.append(int(i))
        for i in chosen:
            v = vecs[i]
            if not any(min(np.linalg.norm(v - c), np.linalg.norm(v + c)) < STEP_TOL * length[i] for c in common):
                common.append(v)
    # First by how many points have neighbours along both steps, then the best few grown in full.
    links = [_linked(points, c) for c in common]
    tried: list[tuple[int, int, int]] = []
    for i, a in enumerate(common):
        for j in range(i + 1, len(common)):
            b = common[j]
            la, lb = float(np.linalg.norm(a)), float(np.linalg.norm(b))
            if abs(float(a @ b)) / (la * lb) > 0.6 or not 0.4 < lb / la < 2.5:
                continue
            tried.append((int(np.sum(links[i] & links[j])), i, j))
    tried.sort(reverse=True)
    pairs: list[tuple[int, float, F64, F64, dict[tuple[int, int], int]]] = []
    for _, i, j in tried[:GROWN_PAIRS]:
        a, b = common[i], common[j]
        if a[0] * b[1] - a[1] * b[0] < 0:
            a, b = b, a  # u then v clockwise, as the grid's corners go
        grown = _grow(points, a, b)
        ij = np.array(list(grown.keys()))
        if np.any(ij.max(axis=0) - ij.min(axis=0) > n - 1):
            continue  # finer than the board's cells
        pairs.append((len(grown), float(np.linalg.norm(a) + np.linalg.norm(b)), a, b, grown))
    pairs.sort(key=lambda p: (-p[0], p[1]))
    return [(a, b, grown) for _, _, a, b, grown in pairs[:2]]


def _linked(points: F64, step: F64) -> npt.NDArray[np.bool_]:
    """Which points have another one a ``step`` away (either way)."""
    d = points[None, :, :] - points[:, None, :]  # d[i, j] = p_j - p_i
    tol = STEP_TOL * float(np.linalg.norm(step))
    fwd = np.linalg.norm(d - step, axis=2) < tol
    back = np.linalg.norm(d + step, axis=2) < tol
    return np.asarray(fwd.any(axis=1) | back.any(axis=1))


def _grow(points: F64, a: F64, b: F64) -> dict[tuple[int, int], int]:
    """Lattice indices of the points reached from the best-connected one by whole steps (followed locally)."""

    def neighbour(p: F64, step: F64) -> int | None:
        dist = np.linalg.norm(points - (p + step), axis=1)
        i = int(np.argmin(dist))
        return i if dist[i] < STEP_TOL * float(np.linalg.norm(step)) else None

    seed = int(np.argmax(_linked(points, a).astype(int) + _linked(points, b)))
    index: dict[int, tuple[int, int]] = {seed: (0, 0)}
    local: dict[int, tuple[F64, F64]] = {seed: (a, b)}
    queue = deque([seed])
    while queue:
        i = queue.popleft()
        sa, sb = local[i]
        for (di, dj), step in (((1, 0), sa), ((-1, 0), -sa), ((0, 1), sb), ((0, -1), -sb)):
            j = neighbour(points[i], step)
            if j is None or j in index:
                continue
            index[j] = (index[i][0] + di, index[i][1] + dj)
            # The step as measured here carries on (perspective changes it slowly).
            got = points[j] - points[i]
            if di:
                local[j] = (got * di, sb)
            else:
                local[j] = (sa, got * dj)
            queue.append(j)
    return {v: k for k, v in index.items()}


def lattice_guesses(image: U8, n: int) -> list[F64]:
    """Grid guesses (corners tl, tr, br, bl, work-image pixels) from the balls' highlights; maybe none.

    The highlights are taken twice: those on strong colour only (glints on the
    frame and the cups' rims make a second lattice, a fraction of a cell off),
    and all (dim balls show little colour).
    """
    out: list[F64] = []
    for coloured in (True, False):
        out.extend(_guesses(highlights(image, coloured), image.shape, n))
    return out


def _guesses(points: F64, shape: tuple[int, ...], n: int) -> list[F64]:
    out: list[F64] = []
    for a, _, on in steps(points, n):
        out.extend(placed(points, a, on, shape, n))
    return out


def placed(
    points: F64,
    a: F64,
    on: dict[tuple[int, int], int],
    shape: tuple[int, ...],
    n: int,
    height: float = HIGHLIGHT_HEIGHT,
    least: int = MIN_BALLS,
) -> list[F64]:
    """Grid guesses from the lattice ``on`` (index -> point, see :func:`steps`) with first step ``a``, of
    points ``height`` cells above the board, one a cell; none when it has fewer than ``least`` points."""
    if len(on) < least:
        return []
    ij = np.array(list(on.keys()), np.float64)
    xy = points[list(on.values())]
    span = ij.max(axis=0) - ij.min(axis=0)
    if np.any(span > n - 1):
        return []
    tol = 0.3 * float(np.linalg.norm(a))
    found: Any = cv2.findHomography(ij.astype(np.float32), xy.astype(np.float32), cv2.RANSAC, tol)[0]
    if found is None:
        return []
    plane = _lowered(np.asarray(found, np.float64), shape, height) if height else np.asarray(found, np.float64)
    if plane is None:
        return []
    lo = ij.min(axis=0)
    out: list[F64] = []
    # Every placement of the n x n cells that takes in all the balls found, nearest the middle first.
    placements = [
        (i0, j0)
        for i0 in range(int(lo[0] + span[0]) - n + 1, int(lo[0]) + 1)
        for j0 in range(int(lo[1] + span[1]) - n + 1, int(lo[1]) + 1)
    ]
    centre = lo + span / 2.0 - (n - 1) / 2.0
    placements.sort(key=lambda p: float(np.hypot(p[0] - centre[0], p[1] - centre[1])))
    for i0, j0 in placements[:MAX_PLACEMENTS]:
        # Lattice index (i, j) is the ball in cell (i - i0, j - j0): its centre at grid (i - i0 + 0.5, ...).
        box = np.array([[i0, j0], [i0 + n, j0], [i0 + n, j0 + n], [i0, j0 + n]], np.float64) - 0.5
        q = np.c_[box, np.ones(4)] @ plane.T
        out.append(np.asarray(q[:, :2] / q[:, 2:3], np.float64))
    return out


def _lowered(h: F64, shape: tuple[int, ...], height: float) -> F64 | None:
    """The homography of the plane ``height`` cells below the one ``h`` maps (the camera pose behind ``h``)."""
    try:
        pose = Pose.from_homography(h, (int(shape[1]), int(shape[0])))
    except (np.linalg.LinAlgError, ValueError):
        return None
    k, r, t = pose.K, pose.R, pose.t
    here = k @ np.column_stack([r[:, 0], r[:, 1], t])
    below = k @ np.column_stack([r[:, 0], r[:, 1], t - r[:, 2] * height])
    try:
        return np.asarray(below @ np.linalg.inv(here) @ h, np.float64)
    except np.linalg.LinAlgError:
        return None


def on_highlights(image: U8, corners: F64, n: int) -> F64 | None:
    """The grid (corners tl, tr, br, bl, pixels of ``image``) moved onto the balls' highlights near where it
    puts them, or ``None`` when fewer than :data:`ONTO_LEAST` balls agree on one homography.

    Each highlight stands :data:`HIGHLIGHT_HEIGHT` above its cell's centre as the pose behind the grid sees
    it; the highlights found within :data:`ONTO_REACH` cells of those places are fitted by a homography from
    the cells (RANSAC, :data:`ONTO_TOLERANCE`), lowered to the board's plane, :data:`ONTO_LOOKS` times.

    >>> corners = np.array([[100.0, 100.0], [500.0, 100.0], [500.0, 500.0], [100.0, 500.0]])
    >>> on_highlights(np.zeros((600, 600, 3), np.uint8), corners, 8) is None  # no balls
    True
    """
    points = highlights(image, coloured=False)
    grid = np.asarray(corners, np.float64)
    cells = cell_centres(n)
    box = np.array([[0.0, 0.0], [n, 0.0], [n, n], [0.0, n]])
    for _ in range(ONTO_LOOKS):
        if len(points) < ONTO_LEAST:
            return None
        try:
            pose = Pose.from_homography(grid_homography(grid, n), (int(image.shape[1]), int(image.shape[0])))
        except (np.linalg.LinAlgError, ValueError):
            return None
        expected = pose.project(np.c_[cells, np.full(len(cells), HIGHLIGHT_HEIGHT)])
        pitch = float(np.mean(np.linalg.norm(grid - np.roll(grid, 1, axis=0), axis=1))) / n
        gaps = np.linalg.norm(expected[:, None, :] - points[None, :, :], axis=-1)
        nearest = gaps.argmin(axis=1)
        near = gaps[np.arange(len(cells)), nearest] < ONTO_REACH * pitch
        if int(near.sum()) < ONTO_LEAST:
            return None
        src, dst = cells[near].astype(np.float32), points[nearest[near]].astype(np.float32)
        found: Any = cv2.findHomography(src, dst, cv2.RANSAC, ONTO_TOLERANCE * pitch)
        if found[0] is None or int(found[1].sum()) < ONTO_LEAST:
            return None
        board = _lowered(np.asarray(found[0], np.float64), image.shape, HIGHLIGHT_HEIGHT)
        if board is None:
            return None
        q = np.c_[box, np.ones(4)] @ board.T
        grid = q[:, :2] / q[:, 2:3]
        if not np.all(np.isfinite(grid)):
            return None
    return np.asarray(grid, np.float64)


def centre_block(points: F64, size: tuple[int, int], homography: F64, n: int) -> F64 | None:
    """The highlights ``points`` of the start position's four centre balls in the cells of the grid of
    ``homography`` (both in pixels of a picture of ``size``, width and height), lifted to the highlights' height,
    clockwise from the block's top-left ball (4 x 2); ``None`` when four highlights near where the grid puts them
    do not make a parallelogram.

    One lamp puts each ball's highlight at one offset from its centre, so the
    four make the block's shape and size whatever the offset: on the right
    grid a cell a side. Which of the nearest highlights are the balls' is what
    makes the most nearly a parallelogram.

    >>> h = grid_homography([[100.0, 100.0], [500.0, 100.0], [500.0, 500.0], [100.0, 500.0]], 8)
    >>> centre_block(np.empty((0, 2)), (600, 600), h, 8) is None
    True
    """
    try:
        lifted = lifted_homography(homography, size, HIGHLIGHT_HEIGHT)
        back = np.asarray(np.linalg.inv(lifted), np.float64)
    except np.linalg.LinAlgError:
        return None
    m = n / 2.0
    block = np.array([[m - 0.5, m - 0.5], [m + 0.5, m - 0.5], [m + 0.5, m + 0.5], [m - 0.5, m + 0.5]])
    expected = _mapped(lifted, block)
    pitch = float(np.linalg.norm(expected[1] - expected[0]))
    tried = []
    for e in expected:
        gaps = np.linalg.norm(points - e, axis=1)
        nearest = np.argsort(gaps)[:BLOCK_TRIES]
        tried.append(nearest[gaps[nearest] < BLOCK_REACH * pitch].tolist())
    best: tuple[float, F64] | None = None
    for chosen in itertools.product(*tried):
        if len(set(chosen)) < 4:
            continue
        q = _mapped(back, points[list(chosen)])
        skew = float(np.linalg.norm(q[0] - q[1] - q[3] + q[2]) + np.linalg.norm(q[0] - q[3] - q[1] + q[2]))
        if best is None or skew < best[0]:
            best = skew, q
    if best is None or best[0] > BLOCK_SKEW:
        return None
    return best[1]


def block_sides(q: F64) -> tuple[float, float]:
    """The mean side of the centre block ``q`` (as :func:`centre_block` gives it, in a grid's cells) along the
    grid's rows and along its columns.

    A grid the wrong size (an outline taken for the board's when it is its
    frame's, or a shadow's) measures them larger or smaller than a cell.

    >>> [round(side, 2) for side in block_sides(np.array([[3.5, 3.5], [4.6, 3.5], [4.6, 4.5], [3.5, 4.5]]))]
    [1.1, 1.0]
    """
    along_rows = (float(np.linalg.norm(q[1] - q[0])) + float(np.linalg.norm(q[2] - q[3]))) / 2.0
    along_columns = (float(np.linalg.norm(q[3] - q[0])) + float(np.linalg.norm(q[2] - q[1]))) / 2.0
    return along_rows, along_columns


def _mapped(h: F64, points: F64) -> F64:
    """``points`` through the homography ``h``."""
    return np.asarray(cv2.perspectiveTransform(points.reshape(-1, 1, 2), h).reshape(-1, 2), np.float64)

