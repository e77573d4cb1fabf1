"""Empty cups told from balls by the lamp's glint a ball there would show.

Every glossy ball shows the lamp as a small bright glint, at the point of its
surface whose normal halves the angle between the lamp and the camera; as the
lamp is the same for every ball, so is that point, but for the small change of
view from cell to cell. From low down an empty cup is not seen alone: the line
of sight through where a ball's top would stand runs on into the ball behind it,
whose colour the cell's reading then shows, and the colour models doubt it
(runner-up: that ball's colour). But no glint stands where a ball in the cell
would show one: the ball behind shows its own a cell further on.

The lamp is found in the same frame, from the balls read surely: each ball's
brightest spot is taken for its glint, the camera's ray through it meets the
ball's sphere (the pose behind the grid, :class:`~rolit.vision.pose.Pose`), and
the line of sight reflected in the surface there points at the lamp. The median
of those directions is the lamp's, when most of them agree with it (with two
lamps a ball's brightest spot may be either's).

Glints are bright spots narrower than a ball (a morphological top-hat of the
grey level), so a lit cup's broad shading is not one. The lamp is white, and on
a yellow ball (nearly as bright as white in grey) it brightens the grey level
little and the blue channel much: where a ball's glint must not be missed, it
is looked for in each pixel's least channel. There a white board's plastic
between its cups shows narrow bright spots too.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt

from .lattice import cell_centres
from .pose import BALL_CENTRE_HEIGHT, BALL_RADIUS, Pose

__all__ = ["Glints", "glints", "seen_on_balls_behind"]

F64 = npt.NDArray[np.float64]
Bools = npt.NDArray[np.bool_]

LEAST_BALLS = 3  # balls whose glints must give the lamp's direction
LAMP_AGREE, LAMP_AGREEING = 20.0, 0.5  # degrees from the median within which this share of the balls' lamps lie
SPOT_WIDTH = 0.6  # ball radii: spots narrower than this are glints (the top-hat's width)
DISC = 0.95  # ball radii round its centre: where a ball's brightest spot is looked for
AT_GLINT = 0.2  # ball radii round where the glint would be: a glint there is the ball's own
FAINTEST = 10.0  # grey levels over the ball round it: the sure balls' glints (their median) at least this bright
# No ball's glint stands over a cell when the brightest spot there lies at least GLINT_APART radii from where it
# would, and what lies there is at most GLINT_FAINT of the sure balls' glints (their median); one does when it lies
# within GLINT_NEAR radii and is at least GLINT_BRIGHT of theirs. In a blurred frame a far ball's glint can be
# fainter than its neighbour's spilling into its disc: development 433 (35 degrees up, defocused), at its true grid,
# had 7 of 25 balls so, their own glints 0.48-0.68 of the median; on development 0-599 a bound of 0.5 rather than
# 0.7 left 2 more cells unknown and as many boards exact.
GLINT_APART, GLINT_FAINT = 0.6, 0.5
GLINT_NEAR, GLINT_BRIGHT = 0.15, 0.7


@dataclass(frozen=True)
class Glints:
    """Per cell (row-major) of those measured: the brightest spot round where a ball's glint would stand (as a share
    of the sure balls' glints, their median), and how far (ball radii) the brightest spot over the cell lies from
    there. Cells not measured read 0 and infinitely far."""

    there: F64
    apart: F64

    def none_there(self) -> Bools:
        """The cells where no ball's glint stands: the brightest spot over them lies at least :data:`GLINT_APART`
        radii from where it would, and what lies there is at most :data:`GLINT_FAINT` of a ball's glint."""
        return np.asarray(np.isfinite(self.apart) & (self.apart >= GLINT_APART) & (self.there <= GLINT_FAINT), bool)

    def one_there(self) -> Bools:
        """The cells where a ball's glint stands: within :data:`GLINT_NEAR` radii of where it would, and at least
        :data:`GLINT_BRIGHT` of a ball's glint."""
        return np.asarray((self.apart <= GLINT_NEAR) & (self.there >= GLINT_BRIGHT), bool)


def _spot_map(image: npt.NDArray[Any], box: tuple[int, int, int, int], radius: float, least: bool = False) -> F64:
    """Bright spots narrower than :data:`SPOT_WIDTH` ball radii in ``image[y0:y1, x0:x1]`` (``box``: x0, y0, x1, y1):
    the grey level (with ``least``, each pixel's least channel) less its morphological opening, smoothed a little
    against noise."""
    x0, y0, x1, y1 = box
    part = image[y0:y1, x0:x1]
    if least:
        level = cv2.min(cv2.min(part[:, :, 0], part[:, :, 1]), part[:, :, 2])  # numpy's min: 20x slower
    else:
        level = cv2.cvtColor(np.ascontiguousarray(part), cv2.COLOR_BGR2GRAY)
    flat = level.astype(np.float32)
    width = max(3, round(SPOT_WIDTH * radius) | 1)
    # A square window: OpenCV opens with one far faster than with a disc, and a glint is as narrow either way.
    kernel = cv2.getStructuringElement(cv2.MORPH_RECT, (width, width))
    spots = cv2.GaussianBlur(flat - cv2.morphologyEx(flat, cv2.MORPH_OPEN, kernel), (0, 0), 1.0)
    return np.asarray(spots, np.float64)


def _brightest(spots: F64, origin: tuple[int, int], centres: F64, radii: F64) -> tuple[F64, F64]:
    """For each disc (centres and radii, image pixels; a radius of 0: not looked at): its brightest spot (x, y; NaN
    where the disc is off the map or not looked at) and how bright (0 there)."""
    h, w = spots.shape
    where = np.full((len(centres), 2), np.nan)
    value = np.zeros(len(centres))
    looked = np.flatnonzero(radii > 0)
    if not len(looked):
        return where, value
    reach = int(np.ceil(radii[looked].max())) + 1
    step = np.arange(-reach, reach + 1)
    dx, dy = (a.ravel() for a in np.meshgrid(step, step))
    local = centres[looked] - np.asarray(origin, np.float64)
    xs = np.floor(local[:, :1]).astype(np.int64) + dx[None, :]
    ys = np.floor(local[:, 1:]).astype(np.int64) + dy[None, :]
    inside = (xs - local[:, :1]) ** 2 + (ys - local[:, 1:]) ** 2 <= radii[looked, None] ** 2
    inside &= (xs >= 0) & (xs < w) & (ys >= 0) & (ys < h)
    values = np.where(inside, spots[ys.clip(0, h - 1), xs.clip(0, w - 1)], -np.inf)
    best = np.argmax(values, axis=1)
    rows = np.arange(len(looked))
    seen = inside[rows, best]
    where[looked[seen]] = np.c_[xs[rows, best], ys[rows, best]][seen] + np.asarray(origin, np.float64)
    value[looked[seen]] = values[rows, best][seen]
    return where, value


def _lamp(pose: Pose, centres: F64, spots_at: F64) -> F64 | None:
    """The lamp's direction (board coordinates, a unit vector) from balls centred at ``centres`` (u, v, height)
    whose glints the image shows at ``spots_at`` (pixels); ``None`` when too few of them give one alike."""
    if len(centres) < LEAST_BALLS:
        return None
    camera = pose.centre
    m = pose.K if pose.fix is None else pose.fix @ pose.K
    rays = np.c_[spots_at, np.ones(len(spots_at))] @ np.linalg.inv(m).T @ pose.R  # camera rays, board axes
    rays /= np.linalg.norm(rays, axis=1, keepdims=True)
    # Where each ray first meets its ball's sphere (a ray that passes by, a grid a little out, touches it).
    to_centre = centres - camera
    along = np.sum(rays * to_centre, axis=1)
    rays *= np.where(along < 0.0, -1.0, 1.0)[:, None]  # a projective scale may turn the rays round
    along = np.abs(along)
    miss = np.sum(to_centre**2, axis=1) - along**2
    depth = along - np.sqrt(np.maximum(BALL_RADIUS**2 - miss, 0.0))
    normal = camera + rays * depth[:, None] - centres
    normal /= np.linalg.norm(normal, axis=1, keepdims=True)
    view = -rays
    lamps = 2.0 * np.sum(normal * view, axis=1)[:, None] * normal - view
    lamp = np.median(lamps, axis=0)
    if not np.linalg.norm(lamp):
        return None
    lamp /= np.linalg.norm(lamp)
    if np.mean(lamps @ lamp >= np.cos(np.radians(LAMP_AGREE))) < LAMP_AGREEING:
        return None
    return np.asarray(lamp, np.float64)


def glints(
    image: npt.NDArray[Any], homography: F64, n: int, balls: Bools, cells: Bools, least: bool = False
) -> Glints | None:
    """Where a ball's glint would stand in each of ``cells`` (an n x n grid, row-major), from the lamp the
    ``balls`` (cells read surely as balls) show, and what stands there; ``None`` when they show no lamp (see the
    module's docstring), or glints too faint to tell by (:data:`FAINTEST`).

    Only ``cells`` are measured; the others read 0 and infinitely far. With ``least`` glints are looked for in each
    pixel's least channel rather than the grey level (see the module's docstring).
    """
    if not cells.any() or balls.sum() < LEAST_BALLS:
        return None
    pose = Pose.from_homography(homography, (image.shape[1], image.shape[0]))
    g = cell_centres(n)
    centres = np.c_[g, np.full(len(g), BALL_CENTRE_HEIGHT)]
    radii = pose.ball_radius_px(centres)
    at = pose.project(centres)
    # Spots are looked for only round the cells wanted (a ball's disc, and where its glint would be, lie within
    # a radius of its centre).
    wanted = balls | cells
    reach = 2.0 * float(radii[wanted].max())
    (x0, y0), (x1, y1) = np.clip(at[wanted].min(axis=0) - reach, 0, None), at[wanted].max(axis=0) + reach
    box = int(x0), int(y0), min(image.shape[1], int(x1) + 1), min(image.shape[0], int(y1) + 1)
    if box[2] - box[0] < 3 or box[3] - box[1] < 3:
        return None
    spots = _spot_map(image, box, float(np.median(radii[wanted])), least)
    brightest, bright = _brightest(spots, box[:2], at, np.where(wanted, DISC * radii, 0.0))
    lit = balls & np.isfinite(brightest).all(axis=1)
    reference = float(np.median(bright[lit])) if lit.any() else 0.0
    lamp = _lamp(pose, centres[lit], brightest[lit])
    if lamp is None or reference < FAINTEST:
        return None
    sight = pose.centre[None, :] - centres
    sight /= np.linalg.norm(sight, axis=1, keepdims=True)
    normal = lamp[None, :] + sight
    normal /= np.linalg.norm(normal, axis=1, keepdims=True)
    expected = pose.project(centres + BALL_RADIUS * normal)
    _, there = _brightest(spots, box[:2], expected, np.where(cells, AT_GLINT * radii, 0.0))
    apart = np.hypot(*(brightest - expected).T) / radii
    return Glints(np.where(cells, there / reference, 0.0), np.where(cells & np.isfinite(apart), apart, np.inf))


def seen_on_balls_behind(homography: F64, size: tuple[int, int], n: int, balls: Bools) -> Bools:
    """The cells of an n x n grid (row-major) where a ball's top is read on another cell's ball: the point read
    (:meth:`~rolit.vision.pose.Pose.visible_tops`) lies within the disc of one of ``balls`` in a cell beside it,
    further from the camera. From low down an empty cup is seen so, and the colour read there is that ball's."""
    pose = Pose.from_homography(homography, size)
    g = cell_centres(n)
    centres = np.c_[g, np.full(len(g), BALL_CENTRE_HEIGHT)]
    tops = pose.project(pose.visible_tops(g))
    at = pose.project(centres)
    radii = pose.ball_radius_px(centres)
    far = np.linalg.norm(centres - pose.centre[None, :], axis=1)
    grid = np.arange(n * n).reshape(n, n)
    out = np.zeros(n * n, bool)
    for dy in (-1, 0, 1):
        for dx in (-1, 0, 1):
            if not dy and not dx:
                continue
            here = grid[max(0, -dy) : n - max(0, dy), max(0, -dx) : n - max(0, dx)].ravel()
            there = here + dy * n + dx
            on = balls[there] & (far[there] > far[here])
            on &= np.hypot(*(tops[here] - at[there]).T) < radii[there]
            out[here[on]] = True
    return out
