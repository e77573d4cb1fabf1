"""Camera pose from the grid's homography, for parallax.

Balls stand above the board, so in an oblique view a ball's top is not where
its cell's centre is on the board plane. The homography of the board plane,
with the principal point at the image centre and square pixels, gives the focal
length (when the view is oblique enough to tell) and the pose; then any point at
a height above the board can be projected.

Units are cells: grid coordinates ``(u, v)`` run 0..n across the grid, and
heights are in cell pitches too.

>>> import numpy as np
>>> from rolit.vision.locate import grid_homography
>>> h = grid_homography([[100, 100], [500, 100], [500, 500], [100, 500]], 8)
>>> pose = Pose.from_homography(h, (600, 600))
>>> np.round(pose.project([[4.0, 4.0, 0.0]]), 1).tolist()   # the grid's centre, on the board
[[300.0, 300.0]]
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

__all__ = [
    "Pose", "square_misfit", "BALL_CENTRE_HEIGHT", "BALL_TOP_HEIGHT", "BALL_RADIUS", "CUP_RADIUS", "TOP_LEAN_MAX"
]

F64 = npt.NDArray[np.float64]

# A classic set, in cell pitches (3 cm): balls of 2.3 cm whose centres stand
# 7 mm above the board in their cups.
BALL_RADIUS = 11.5 / 30.0
BALL_CENTRE_HEIGHT = 7.0 / 30.0
BALL_TOP_HEIGHT = BALL_CENTRE_HEIGHT + BALL_RADIUS
CUP_RADIUS = 11.0 / 30.0

# A ball's up colour is a segment reaching 45 degrees either side of its top.
# Seen from low down, the top itself sits near the ball's outline, where a
# reading disc would spill past it; so the point read leans from the top
# towards the camera until it is at most TOP_VIEW_ANGLE from the line of sight,
# but never more than TOP_LEAN_MAX, which keeps the disc on the up segment
# (balls also sit a few degrees off straight up).
TOP_VIEW_ANGLE = 33.0
TOP_LEAN_MAX = 27.0


@dataclass(frozen=True)
class Pose:
    """Intrinsics ``K`` and the board's rotation ``R`` (columns: u axis, v axis, up) and translation ``t``.

    ``fix`` (3x3, image to image) takes the rigid camera's picture of the board
    plane onto the homography the pose came from. A homography fitted to real
    pixels (a grid a little off, lens distortion) is rarely exactly a rigid
    camera's, and the focal length behind it is ill-conditioned: from low down
    a grid a twentieth of a cell off can move the rigid camera's picture of the
    board by a whole ball. With ``fix`` applied, points on the board land
    exactly where the homography puts them and points above it move with them,
    so only the parallax (small) comes from the pose.
    """

    K: F64
    R: F64
    t: F64
    fix: F64 | None = None

    @classmethod
    def from_homography(cls, h: npt.ArrayLike, size: tuple[int, int], hfov_prior: float = 64.0) -> Pose:
        """The pose behind a board homography; ``size`` is the image's (width, height)."""
        hm = np.asarray(h, np.float64)
        w, ht = size
        cx, cy = w / 2.0, ht / 2.0
        shift = np.array([[1.0, 0.0, -cx], [0.0, 1.0, -cy], [0.0, 0.0, 1.0]])
        hp = shift @ hm
        hp = hp / np.linalg.norm(hp[:, 0])
        f_prior = (w / 2.0) / np.tan(np.radians(hfov_prior / 2.0))
        f = _focal(hp, f_prior)
        k = np.array([[f, 0.0, cx], [0.0, f, cy], [0.0, 0.0, 1.0]])
        a = hp * np.array([[1.0 / f], [1.0 / f], [1.0]])  # diag(f, f, 1)^-1 @ hp
        scale = 2.0 / (np.linalg.norm(a[:, 0]) + np.linalg.norm(a[:, 1]))
        r1, r2, t = a[:, 0] * scale, a[:, 1] * scale, a[:, 2] * scale
        if t[2] < 0:  # the board is in front of the camera
            r1, r2, t = -r1, -r2, -t
        r1 = r1 / np.linalg.norm(r1)
        r2 = r2 - r1 * (r1 @ r2)
        r2 = r2 / np.linalg.norm(r2)
        r3 = np.array([r1[1] * r2[2] - r1[2] * r2[1], r1[2] * r2[0] - r1[0] * r2[2], r1[0] * r2[1] - r1[1] * r2[0]])
        if r3 @ t > 0:  # "up" points from the board towards the camera
            r3 = -r3
        try:
            fix = hm @ np.linalg.inv(k @ np.column_stack([r1, r2, t]))
        except np.linalg.LinAlgError:
            fix = None
        return cls(k, np.column_stack([r1, r2, r3]), t, fix)

    @property
    def focal(self) -> float:
        """Focal length in pixels."""
        return float(self.K[0, 0])

    def to_camera(self, points: npt.ArrayLike) -> F64:
        """Board points ``(u, v, height)`` in camera coordinates."""
        p = np.asarray(points, np.float64).reshape(-1, 3)
        return np.asarray(p @ self.R.T + self.t, np.float64)

    def project(self, points: npt.ArrayLike) -> F64:
        """Image pixels of board points ``(u, v, height)``."""
        c = self.to_camera(points)
        p = c @ self.K.T if self.fix is None else c @ (self.fix @ self.K).T
        return np.asarray(p[:, :2] / p[:, 2:3], np.float64)

    @property
    def centre(self) -> F64:
        """The camera's position in board coordinates ``(u, v, height)``."""
        return np.asarray(-self.R.T @ self.t, np.float64)

    def visible_tops(self, cells: npt.ArrayLike) -> F64:
        """Where to read the up colour of the balls in cells ``(u, v)``: board points ``(u, v, height)``.

        Straight down this is each ball's top; from low down, a point leaning
        from the top towards the camera (see :data:`TOP_LEAN_MAX`).
        """
        c = np.asarray(cells, np.float64).reshape(-1, 2)
        centres = np.c_[c, np.full(len(c), BALL_CENTRE_HEIGHT)]
        sight = self.centre[None, :] - centres
        sight /= np.linalg.norm(sight, axis=1, keepdims=True)
        from_up = np.degrees(np.arccos(np.clip(sight[:, 2], -1.0, 1.0)))
        lean = np.radians(np.clip(from_up - TOP_VIEW_ANGLE, 0.0, TOP_LEAN_MAX))
        towards = sight[:, :2] / np.maximum(np.linalg.norm(sight[:, :2], axis=1, keepdims=True), 1e-9)
        normal = np.c_[np.sin(lean)[:, None] * towards, np.cos(lean)]
        return np.asarray(centres + BALL_RADIUS * normal, np.float64)

    def ball_radius_px(self, points: npt.ArrayLike) -> F64:
        """Apparent radius in pixels of balls centred at ``points``."""
        c = self.to_camera(points)
        return np.asarray(self.focal * BALL_RADIUS / np.linalg.norm(c, axis=1), np.float64)

    @property
    def elevation(self) -> float:
        """Degrees between the board plane and the line of sight to the grid's origin (90: straight down)."""
        up = self.R[:, 2]
        ray = self.t / np.linalg.norm(self.t)
        return float(np.degrees(np.arcsin(min(1.0, abs(float(up @ ray))))))


def square_misfit(h: npt.ArrayLike, size: tuple[int, int], hfov: tuple[float, float] = (28.0, 115.0)) -> float:
    """How far a board homography is from any camera's picture of a square grid: 0 for a true picture.

    A camera (square pixels, principal point at the image centre, a
    horizontal field of view within ``hfov`` degrees) sees the board's two
    axes as the columns of a rotation, scaled: at right angles and of one
    length. The misfit is the least, over the focal lengths allowed, of the
    larger of the cosine between them and the log of their lengths' ratio.
    A grid sheared along the balls' diagonals fits the balls as well as the
    board's own, but no camera sees the board so.

    >>> from rolit.vision.locate import grid_homography
    >>> square = grid_homography([[100, 100], [500, 100], [500, 500], [100, 500]], 8)
    >>> round(square_misfit(square, (600, 600)), 3)
    0.0
    >>> sheared = grid_homography([[100, 100], [500, 100], [700, 500], [300, 500]], 8)
    >>> round(square_misfit(sheared, (600, 600)), 2)
    0.45
    """
    hm = np.asarray(h, np.float64)
    w, ht = size
    hp = np.array([[1.0, 0.0, -w / 2.0], [0.0, 1.0, -ht / 2.0], [0.0, 0.0, 1.0]]) @ hm
    # 1/f^2 over the focal lengths allowed; the dot product and lengths are linear in it.
    focal = (w / 2.0) / np.tan(np.radians(np.linspace(hfov[0], hfov[1], 48) / 2.0))
    x = 1.0 / focal**2
    dot = x * (hp[0, 0] * hp[0, 1] + hp[1, 0] * hp[1, 1]) + hp[2, 0] * hp[2, 1]
    len1 = x * (hp[0, 0] ** 2 + hp[1, 0] ** 2) + hp[2, 0] ** 2
    len2 = x * (hp[0, 1] ** 2 + hp[1, 1] ** 2) + hp[2, 1] ** 2
    if np.any(len1 <= 0) or np.any(len2 <= 0):
        return float("inf")
    cosine = np.abs(dot) / np.sqrt(len1 * len2)
    ratio = 0.5 * np.abs(np.log(len1 / len2))
    return float(np.min(np.maximum(cosine, ratio)))


def _focal(hp: F64, prior: float) -> float:
    """Focal length from a centred homography's orthogonality constraints, or the prior."""
    h11, h12, h21, h22, h31, h32 = hp[0, 0], hp[0, 1], hp[1, 0], hp[1, 1], hp[2, 0], hp[2, 1]
    estimates = []
    if abs(h31 * h32) > 1e-12:
        f2 = -(h11 * h12 + h21 * h22) / (h31 * h32)
        if f2 > 0:
            estimates.append((np.sqrt(f2), abs(h31 * h32)))
    d = h31 * h31 - h32 * h32
    if abs(d) > 1e-12:
        f2 = (h12 * h12 + h22 * h22 - h11 * h11 - h21 * h21) / d
        if f2 > 0:
            estimates.append((np.sqrt(f2), abs(d)))
    good = [(f, wgt) for f, wgt in estimates if 0.3 * prior < f < 4.0 * prior]
    if not good:
        return prior
    # Weight by how strongly the view constrains f; near-frontal views lean on the prior.
    total = sum(wgt for _, wgt in good)
    f_est = sum(f * wgt for f, wgt in good) / total
    strength = min(1.0, total * prior * prior * 4.0)
    return float(strength * f_est + (1.0 - strength) * prior)
