"""Cells under a sleeve or a hand the colour of a ball, told from balls by the plastic round them.

The colour models read one cell at a time, at the ball's top. A red sleeve
laid over empty cups shows, at each cup, what a red ball's top shows: the
models read it as red balls, surely (development scene 209: six cells at
98.7-99.7%). What a ball cannot do is cover the plastic round its cup: a
ball is a bounded thing, the plastic between the cups shows round it, while
a sleeve or an arm runs on across the cells. So round each cell read as a
ball, the board points that no ball's outline can cover from this camera
(the pose behind the grid; balls of the cells not read empty, a little grown)
are read, and where most of them are far from the plastic's colour and near
the cell's own top colour, the cell is under something larger than a ball.
Such a cell is covered (see :func:`covered_cells`), and where two or more
are, so is every ball cell of their colour joined to them (:func:`spread`):
a hand reaches further than the cells it clearly covers.

Seen from low down the balls in front cover most of a crowded board's
plastic, so a cell needs a few such points, most of them like its top, far
from the plastic's colour and much nearer the top's, before it counts: on
development game frames 0-339 this found the two scenes where a sleeve was
read as balls, no cell of a board without a hand, and (uncalibrated, on a
grid 0.29 cells out) one ball of a board whose hand covered no cell (143).
"""

from __future__ import annotations

import functools

import numpy as np
import numpy.typing as npt

from .features import _lab_at
from .lattice import cell_centres
from .plastic import LAB_WEIGHT
from .pose import BALL_CENTRE_HEIGHT, Pose

__all__ = ["covered_cells", "free_points", "plastic_unseen", "spread"]

F64 = npt.NDArray[np.float64]
Bools = npt.NDArray[np.bool_]

# Board points read round each cell (cell units from its centre): a ring just inside the cell's edges,
# outside its cup (radius 11/30), and four points towards its corners.
RING_RADIUS = 0.47
CORNER_REACH = 0.36
# A ball's outline is taken as this much larger than its apparent radius (and a pixel more): the
# outline of a sphere in perspective is a little wider than its centre's distance gives, and the
# grid may be a little out.
OUTLINE_MARGIN = 1.15
# A point is like the top when it lies within TOP_SHARE of its distance from the plastic to the top's
# colour, and at least PLASTIC_APART from the plastic (Lab, lightness counting half).
TOP_SHARE = 0.35
PLASTIC_APART = 20.0
# A cell is covered when at least MIN_FREE points round it are free of balls and LIKE_SHARE of them are
# like its top.
MIN_FREE = 2
LIKE_SHARE = 0.6
# Beside a hand, a ball is trusted only where this share of the free points round it, at least, are like the
# plastic (see plastic_unseen). Not two-thirds: development scene 317's sleeve-covered ball (below) has six
# free points, four of them plastic, and with numpy's AVX-512 paths it was read green at 99.3% under a hand.
# On the 1,000 development scenes' hand frames (uncalibrated, camera still and nudged) 0.7 made 26 cells
# unknown that were read right, of some 12,500 read, and none wrong.
PLASTIC_SHOWS = 0.7
# Cells found covered, at least, for those of their colour joined to them to be taken too (see spread).
MIN_SPREAD = 2


@functools.lru_cache(maxsize=4)
def _offsets() -> F64:
    angles = np.linspace(0, 2 * np.pi, 8, endpoint=False)
    ring = RING_RADIUS * np.c_[np.cos(angles), np.sin(angles)]
    corners = CORNER_REACH * np.array([[1.0, 1.0], [1.0, -1.0], [-1.0, 1.0], [-1.0, -1.0]])
    out = np.vstack([ring, corners])
    out.flags.writeable = False
    return out


def free_points(pose: Pose, n: int, occupied: Bools) -> tuple[F64, Bools]:
    """Image pixels of the board points read round each cell (n*n x k x 2, row-major cells), and which of
    them no ball's outline covers, a ball standing in every ``occupied`` cell.

    >>> from rolit.vision.locate import grid_homography
    >>> corners = np.array([[100.0, 100.0], [500.0, 100.0], [500.0, 500.0], [100.0, 500.0]])
    >>> pose = Pose.from_homography(grid_homography(corners, 8), (640, 640))
    >>> pts, free = free_points(pose, 8, np.zeros(64, bool))
    >>> pts.shape, bool(free.all())
    ((64, 12, 2), True)
    >>> bool(free_points(pose, 8, np.ones(64, bool))[1].any())  # straight down, the plastic between shows
    True
    """
    cells = cell_centres(n)
    offsets = _offsets()
    pts = (cells[:, None, :] + offsets[None, :, :]).reshape(-1, 2)
    image_pts = pose.project(np.c_[pts, np.zeros(len(pts))]).reshape(len(cells), len(offsets), 2)
    if not occupied.any():
        return image_pts, np.ones(image_pts.shape[:2], bool)
    centres = np.c_[cells[occupied], np.full(int(occupied.sum()), BALL_CENTRE_HEIGHT)]
    middles = pose.project(centres)
    reach = OUTLINE_MARGIN * pose.ball_radius_px(centres) + 1.0
    # Squared distances, each axis apart: a frame's n*n*12 points against every ball, on each tracked frame.
    du = image_pts[:, :, 0, None] - middles[None, None, :, 0]
    dv = image_pts[:, :, 1, None] - middles[None, None, :, 1]
    return image_pts, ~np.any(du * du + dv * dv < (reach * reach)[None, None, :], axis=-1)


def _read_round(
    image: npt.NDArray[np.uint8], points: F64, free: Bools, cells: Bools, plastic: F64
) -> tuple[npt.NDArray[np.intp], F64, F64, Bools]:
    """Of ``cells``, those with at least :data:`MIN_FREE` free points round them (``points`` and ``free`` as
    :func:`free_points` gives them): their indices, the Lab at their points, each point's distance from the
    plastic, and which points are free."""
    idx = np.flatnonzero(cells & (free.sum(axis=1) >= MIN_FREE))
    if len(idx) == 0:
        return idx, np.zeros((0, points.shape[1], 3)), np.zeros((0, points.shape[1])), free[idx]
    lab = _lab_at(image, points[idx].reshape(-1, 2)).reshape(len(idx), points.shape[1], 3).astype(np.float64)
    from_plastic = np.sqrt(np.sum((lab - np.asarray(plastic, np.float64).reshape(1, 1, 3)) ** 2 * LAB_WEIGHT, -1))
    return idx, lab, from_plastic, free[idx]


def covered_cells(
    image: npt.NDArray[np.uint8], points: F64, free: Bools, balls: Bools, tops: F64, plastic: F64
) -> Bools:
    """The cells (n*n, row-major) read as a ball whose plastic round them looks like their top.

    ``points`` and ``free`` are :func:`free_points`' (a ball in every cell
    not read surely empty); ``balls`` marks the cells read (surely) as a ball;
    ``tops`` is each cell's median Lab at its ball's top, ``plastic`` the
    board's plastic colour (Lab). See :func:`spread` for the cells joined to them.
    """
    covered = np.zeros(len(points), bool)
    idx, lab, from_plastic, free_round = _read_round(image, points, free, balls, plastic)
    if len(idx) == 0:
        return covered
    from_top = np.sqrt(np.sum((lab - tops[idx, None, :]) ** 2 * LAB_WEIGHT, axis=-1))
    like = (from_top < TOP_SHARE * from_plastic) & (from_plastic > PLASTIC_APART) & free_round
    covered[idx[like.sum(axis=1) >= LIKE_SHARE * free_round.sum(axis=1)]] = True
    return covered


def plastic_unseen(image: npt.NDArray[np.uint8], points: F64, free: Bools, cells: Bools, plastic: F64) -> Bools:
    """Of ``cells`` (n*n, row-major), those round which the plastic does not show where no ball can hide it
    (``points`` and ``free`` as for :func:`covered_cells`): fewer than :data:`PLASTIC_SHOWS` of the free
    points lie within :data:`PLASTIC_APART` of its colour.

    For cells beside a hand: a ball read there is trusted only where the plastic round it shows, as round
    a ball it does; a sleeve's edge or a hand's fingers over it (development scene 317, straight down:
    half a green sleeve and some skin over a corner's blue ball, read green at 99.5% uncalibrated) hide
    some of it. A cell with too few free points to tell is left as it is.
    """
    unseen = np.zeros(len(points), bool)
    idx, _, from_plastic, free_round = _read_round(image, points, free, cells, plastic)
    shows = (from_plastic <= PLASTIC_APART) & free_round
    unseen[idx[shows.sum(axis=1) < PLASTIC_SHOWS * free_round.sum(axis=1)]] = True
    return unseen


def spread(covered: Bools, labels: npt.NDArray[np.int64], balls: Bools, n: int) -> Bools:
    """``covered`` grown over the ball cells of the same label joined to it (diagonals too).

    A sleeve over a row of cups is read as a row of balls of its colour, and
    only those cells whose plastic shows round them are found covered; the
    others are joined to them. A real ball of that colour beside the sleeve is
    taken too: unknown, not wrong, while the hand is there. A hand covers
    several cells: one cell found alone is not grown (uncalibrated, a grid a
    third of a cell out found one cell of a full board's red balls covered, and
    grown, it took 13 more; development scene 143).

    >>> labels = np.array([1, 1, 2, 1, 0, 1, 1, 1, 1])
    >>> spread(np.isin(np.arange(9), (0, 8)), labels, labels > 0, 3).reshape(3, 3).astype(int).tolist()
    [[1, 1, 0], [1, 0, 1], [1, 1, 1]]
    >>> int(spread(np.arange(9) == 0, labels, labels > 0, 3).sum())  # one cell alone
    1
    """
    grown = covered.copy()
    if grown.sum() < MIN_SPREAD:
        return grown
    grid_labels = labels.reshape(n, n)
    joinable = balls.reshape(n, n)
    frontier = list(zip(*np.nonzero(grown.reshape(n, n)), strict=True))
    done = grown.reshape(n, n)  # a view of grown: a cell marked done is grown
    while frontier:
        r, c = frontier.pop()
        for dr in (-1, 0, 1):
            for dc in (-1, 0, 1):
                rr, cc = r + dr, c + dc
                if 0 <= rr < n and 0 <= cc < n and not done[rr, cc] and joinable[rr, cc] \
                        and grid_labels[rr, cc] == grid_labels[r, c]:
                    done[rr, cc] = True
                    frontier.append((rr, cc))
    return grown
