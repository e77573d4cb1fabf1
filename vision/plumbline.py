"""The camera's lens measured from the board's straight edges (a plumb-line fit).

A board's outline, the walls of its tray and its printed border are straight
on the table; a lens bends them in the picture (see :mod:`rolit.vision.lens`).
Round a grid already found, each side is looked along for the edges that run
beside it, each edge followed from end to end, and the lens is the one under
which those edges are straightest once the picture is straightened.

The grid need not be exact (a tenth of a cell or two out is fine): the edges
are followed where they lie, and only their shape counts.
"""

from __future__ import annotations

import logging

import cv2
import numpy as np
import numpy.typing as npt

from .lattice import grid_homography
from .lens import Lens
from .locate import apply_homography

__all__ = ["edges_beside", "measure_lens", "straightness"]

log = logging.getLogger(__name__)

F64 = npt.NDArray[np.float64]
U8 = npt.NDArray[np.uint8]

# Each side is looked at from INSIDE cells within the grid to OUTSIDE cells beyond it (a tray's wall, a wide
# border), in steps of STEP cells, at ALONG places spread over all but the ends of the side (where a corner turns).
STEP = 0.025
INSIDE, OUTSIDE = 0.3, 2.0
ALONG = 48
ENDS = 0.04
# Up to EDGES edges a side: the strongest in the side's mean profile, each at least EDGE_SHARE of the strongest's
# strength and EDGE_GAP steps from the others (a tray's top and foot, a printed border).
EDGES = 3
EDGE_SHARE = 0.4
EDGE_GAP = 6
# An edge is followed within BAND steps of where the mean profile has it, moving a step at most from one place
# to the next, and a place kept where the edge is at least FAINT of its mean strength.
BAND = 12
FAINT = 0.3
# Residuals past TAU pixels count as TAU (a ball beside the board, a corner of the cloth's pattern).
TAU = 1.5
# The lenses tried: from a strong barrel to a mild pincushion, then in FINE steps about the best.
COARSE = np.round(np.arange(-0.45, 0.1001, 0.01), 3)
FINE = 0.0025


def measure_lens(image: U8, corners: npt.ArrayLike, n: int) -> float | None:
    """The lens ``k`` (see :class:`~rolit.vision.lens.Lens`) under which the edges beside the grid ``corners``
    (``n`` cells a side) in ``image`` are straightest; ``None`` when fewer than two edges are found, or they
    are hardly straighter under it than with no lens at all (a board small in the middle of the picture says
    little of the lens).

    Each edge is weighed by how straight it can be: the misfit is the sum over
    edges of ``count * log(mean squared residual + FLOOR)``, the likelihood of
    Gaussian residuals of each edge's own spread. A ragged edge (a cloth's
    checks along the board) then counts for little, a crisp one for much.
    """
    h, w = image.shape[:2]
    edges = edges_beside(image, corners, n)
    if len(edges) < 2:
        return None
    counts = np.array([len(e) for e in edges], np.float64)

    def misfit(k: float) -> float:
        return float(np.sum(counts * np.log(straightness(edges, k, (w, h)) + FLOOR)))

    coarse = [misfit(float(k)) for k in COARSE]
    best = float(COARSE[int(np.argmin(coarse))])
    fine = np.arange(best - 0.01, best + 0.01 + 1e-9, FINE)
    fine_misfits = [misfit(float(k)) for k in fine]
    best = float(fine[int(np.argmin(fine_misfits))])
    gain = misfit(0.0) - min(fine_misfits)
    log.debug("lens %.4f from %d edges: %.1f likelier than none", best, len(edges), gain)
    return best if gain >= SURE_GAIN else None


# The least a residual's mean square (pixels squared) is taken to be: the edges are found to a tenth of a pixel.
FLOOR = 0.01
# How much likelier (the misfit's fall, see measure_lens) the edges must be under the lens than under none. On the
# start positions of development scenes 3000-3199, edges found round the true grid moved by 0.2 cells at random
# at each corner: 114 lenses measured so, 6 of them more than 0.05 from the renderer's (at 10: 134, 11).
SURE_GAIN = 20.0


def edges_beside(image: U8, corners: npt.ArrayLike, n: int) -> list[F64]:
    """The edges running beside each side of the grid ``corners`` (tl, tr, br, bl), as picture points (each
    an array of at least ``ALONG // 2`` points)."""
    lab = cv2.cvtColor(cv2.GaussianBlur(image, (0, 0), 1.0), cv2.COLOR_BGR2LAB).astype(np.float32)
    h = grid_homography(np.asarray(corners, np.float64), n)
    d = np.arange(-INSIDE, OUTSIDE + 1e-9, STEP)
    ts = np.linspace(ENDS, 1.0 - ENDS, ALONG) * n
    # Each side: where it starts (grid units), which way it runs, which way is out.
    sides = (((0, 0), (1, 0), (0, -1)), ((n, 0), (0, 1), (1, 0)), ((n, n), (-1, 0), (0, 1)), ((0, n), (0, -1), (-1, 0)))
    edges: list[F64] = []
    for (x0, y0), (ax, ay), (ox, oy) in sides:
        gx = x0 + ax * ts[:, None] + ox * d[None, :]
        gy = y0 + ay * ts[:, None] + oy * d[None, :]
        pts = apply_homography(h, np.c_[gx.ravel(), gy.ravel()]).reshape(len(ts), len(d), 2)
        mx, my = pts[..., 0].astype(np.float32), pts[..., 1].astype(np.float32)
        profiles = cv2.remap(lab, mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
        seen = (mx >= 1) & (my >= 1) & (mx < image.shape[1] - 2) & (my < image.shape[0] - 2)
        g = np.gradient(profiles, axis=1)
        strength = np.where(seen, np.sqrt(np.sum(g * g, axis=2)), 0.0)
        mean = strength.mean(axis=0)
        for j0 in _strongest(mean, d):
            kept = []
            for i, j in enumerate(_followed(strength, j0)):
                if j <= 0 or j >= len(d) - 1 or not seen[i, j] or strength[i, j] < FAINT * mean[j0]:
                    continue
                a, b, c = strength[i, j - 1], strength[i, j], strength[i, j + 1]
                curve = a - 2 * b + c
                # The edge between samples, where a parabola through the three peaks.
                off = float(np.clip(0.5 * (a - c) / curve, -0.5, 0.5)) if curve < 0 else 0.0
                out = d[j] + off * STEP
                kept.append((x0 + ax * ts[i] + ox * out, y0 + ay * ts[i] + oy * out))
            if len(kept) >= ALONG // 2:
                edges.append(apply_homography(h, np.asarray(kept, np.float64)))
    return edges


def _strongest(mean: F64, d: F64) -> list[int]:
    """Where (steps) the strongest edges of a side's mean profile lie, outside the grid's own cells."""
    peaks = [j for j in range(2, len(d) - 2) if d[j] > 0.05 and mean[j] >= mean[j - 1] and mean[j] > mean[j + 1]]
    peaks.sort(key=lambda j: -mean[j])
    chosen: list[int] = []
    for j in peaks:
        if mean[j] < EDGE_SHARE * mean[peaks[0]] or len(chosen) == EDGES:
            break
        if all(abs(j - c) >= EDGE_GAP for c in chosen):
            chosen.append(j)
    return chosen


def _followed(strength: F64, j0: int) -> npt.NDArray[np.int64]:
    """The step at each place of the strongest path within ``BAND`` steps of ``j0``, a step at most between places
    (dynamic programming; each step aside costs a share of a typical edge's strength)."""
    count, steps = strength.shape
    lo, hi = max(1, j0 - BAND), min(steps - 2, j0 + BAND)
    s = strength[:, lo : hi + 1]
    width = s.shape[1]
    aside = 0.15 * float(np.median(s.max(axis=1)))
    score = s[0].copy()
    back = np.zeros((count, width), np.int64)
    columns = np.arange(width)
    for i in range(1, count):
        ways = np.stack([np.r_[-np.inf, score[:-1]] - aside, score, np.r_[score[1:], -np.inf] - aside])
        way = np.argmax(ways, axis=0)
        back[i] = columns + way - 1
        score = ways[way, columns] + s[i]
    path = np.zeros(count, np.int64)
    path[-1] = int(np.argmax(score))
    for i in range(count - 1, 0, -1):
        path[i - 1] = back[i, path[i]]
    return lo + path


def straightness(edges: list[F64], k: float, size: tuple[int, int]) -> F64:
    """For each edge, the mean squared distance (pixels, capped at ``TAU``) of its points from a line through
    them once the picture is straightened by the lens ``k``; the line is refitted without the points far off it."""
    lens = Lens(k, size)
    out = np.zeros(len(edges))
    for e, edge in enumerate(edges):
        q = lens.to_straight(edge)
        keep = np.ones(len(q), bool)
        for _ in range(3):
            centre = q[keep].mean(axis=0)
            normal = np.linalg.svd(q[keep] - centre, full_matrices=False)[2][1]
            r = (q - centre) @ normal
            spread = float(np.median(np.abs(r - np.median(r))))
            keep = np.abs(r) < max(TAU, 3.0 * spread)
            if keep.sum() < 3:
                break
        out[e] = float(np.mean(np.minimum(r * r, TAU * TAU)))
    return out
