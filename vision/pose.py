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

import functools
import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

__all__ = [
    "Pose", "lifted_homography", "square_misfit",
    "BALL_CENTRE_HEIGHT", "BALL_TOP_HEIGHT", "BALL_RADIUS", "CUP_RADIUS", "TOP_LEAN_MAX",
]  # fmt: skip

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
        hm = np.asarray(h, np.float64).tolist()
        f, cx, cy, r1, r2, r3, t, to_rigid = _rigid(hm, size, hfov_prior)
        k = np.array([[f, 0.0, cx], [0.0, f, cy], [0.0, 0.0, 1.0]])
        fix = None if to_rigid is None else np.array(_product(hm, to_rigid))
        return cls(k, np.array(r1 + r2 + r3).reshape(3, 3).T.copy(), np.array(t), fix)

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
        centres = np.column_stack((c, np.full(len(c), BALL_CENTRE_HEIGHT)))
        sight = self.centre[None, :] - centres
        sight /= np.linalg.norm(sight, axis=1, keepdims=True)
        from_up = np.degrees(np.arccos(np.clip(sight[:, 2], -1.0, 1.0)))
        lean = np.radians(np.clip(from_up - TOP_VIEW_ANGLE, 0.0, TOP_LEAN_MAX))
        towards = sight[:, :2] / np.maximum(np.linalg.norm(sight[:, :2], axis=1, keepdims=True), 1e-9)
        normal = np.column_stack((np.sin(lean)[:, None] * towards, np.cos(lean)))
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


# The pose's arithmetic is on 3x3 matrices and 3-vectors, where a numpy call costs far more than its sums
# (a board is searched for with a dozen poses a frame): it is done on Python floats.
Row = tuple[float, float, float]
Matrix = tuple[Row, Row, Row]


def _product(a: Sequence[Sequence[float]], b: Sequence[Sequence[float]]) -> Matrix:
    """The product of two 3x3 matrices."""
    (a00, a01, a02), (a10, a11, a12), (a20, a21, a22) = a
    (b00, b01, b02), (b10, b11, b12), (b20, b21, b22) = b
    return (
        (a00 * b00 + a01 * b10 + a02 * b20, a00 * b01 + a01 * b11 + a02 * b21, a00 * b02 + a01 * b12 + a02 * b22),
        (a10 * b00 + a11 * b10 + a12 * b20, a10 * b01 + a11 * b11 + a12 * b21, a10 * b02 + a11 * b12 + a12 * b22),
        (a20 * b00 + a21 * b10 + a22 * b20, a20 * b01 + a21 * b11 + a22 * b21, a20 * b02 + a21 * b12 + a22 * b22),
    )


def _inverse(m: Sequence[Sequence[float]]) -> Matrix | None:
    """The inverse of a 3x3 matrix (its adjugate over its determinant), or ``None`` when it is singular.

    >>> _inverse([[2.0, 0.0, 0.0], [0.0, 4.0, 0.0], [0.0, 0.0, 1.0]])
    ((0.5, 0.0, 0.0), (0.0, 0.25, 0.0), (0.0, 0.0, 1.0))
    >>> _inverse([[1.0, 2.0, 3.0], [2.0, 4.0, 6.0], [0.0, 0.0, 1.0]]) is None
    True
    """
    (a, b, c), (d, e, f), (g, h, i) = m
    c00, c01, c02 = e * i - f * h, f * g - d * i, d * h - e * g
    det = a * c00 + b * c01 + c * c02
    if det == 0.0:
        return None
    s = 1.0 / det
    return (
        (c00 * s, (c * h - b * i) * s, (b * f - c * e) * s),
        (c01 * s, (a * i - c * g) * s, (c * d - a * f) * s),
        (c02 * s, (b * g - a * h) * s, (a * e - b * d) * s),
    )


@functools.lru_cache(maxsize=16)
def _prior_focal(width: float, hfov: float) -> float:
    """The focal length (pixels) of a field of view ``hfov`` degrees across ``width`` pixels."""
    return float((width / 2.0) / np.tan(np.radians(hfov / 2.0)))


def _rigid(
    hm: Sequence[Sequence[float]], size: tuple[int, int], hfov_prior: float
) -> tuple[float, float, float, Row, Row, Row, Row, Matrix | None]:
    """The pose behind a board homography (see :meth:`Pose.from_homography`): the focal length, the principal
    point, the rotation's columns (u axis, v axis, up), the translation, and the inverse of the rigid camera's
    picture of the board plane (``None``: singular).

    A degenerate homography (a column of zeros) gives infinities and NaN, as numpy's arithmetic does (with its
    warnings), not an error: callers check for them.
    """
    try:
        return _rigid_of(hm, size, hfov_prior)
    except ZeroDivisionError:
        return _rigid_of([[np.float64(v) for v in row] for row in hm], size, hfov_prior)


def _rigid_of(
    hm: Sequence[Sequence[float]], size: tuple[int, int], hfov_prior: float
) -> tuple[float, float, float, Row, Row, Row, Row, Matrix | None]:
    """:func:`_rigid`, in whatever arithmetic the homography's numbers have."""
    w, ht = size
    cx, cy = w / 2.0, ht / 2.0
    (h00, h01, h02), (h10, h11, h12), (h20, h21, h22) = hm
    # The homography with the principal point moved to the origin, scaled to a unit first column.
    p00, p01, p02 = h00 - cx * h20, h01 - cx * h21, h02 - cx * h22
    p10, p11, p12 = h10 - cy * h20, h11 - cy * h21, h12 - cy * h22
    s = math.sqrt(p00 * p00 + p10 * p10 + h20 * h20)
    p00, p01, p02, p10, p11, p12 = p00 / s, p01 / s, p02 / s, p10 / s, p11 / s, p12 / s
    p20, p21, p22 = h20 / s, h21 / s, h22 / s
    f = _focal(((p00, p01), (p10, p11), (p20, p21)), _prior_focal(w, hfov_prior))
    q = 1.0 / f  # diag(f, f, 1)^-1 @ hp
    a00, a01, a02, a10, a11, a12 = p00 * q, p01 * q, p02 * q, p10 * q, p11 * q, p12 * q
    scale = 2.0 / (math.sqrt(a00 * a00 + a10 * a10 + p20 * p20) + math.sqrt(a01 * a01 + a11 * a11 + p21 * p21))
    r1 = (a00 * scale, a10 * scale, p20 * scale)
    r2 = (a01 * scale, a11 * scale, p21 * scale)
    t = (a02 * scale, a12 * scale, p22 * scale)
    if t[2] < 0:  # the board is in front of the camera
        r1, r2, t = _neg(r1), _neg(r2), _neg(t)
    r1 = _unit(r1)
    d = r1[0] * r2[0] + r1[1] * r2[1] + r1[2] * r2[2]
    r2 = _unit((r2[0] - r1[0] * d, r2[1] - r1[1] * d, r2[2] - r1[2] * d))
    r3 = (r1[1] * r2[2] - r1[2] * r2[1], r1[2] * r2[0] - r1[0] * r2[2], r1[0] * r2[1] - r1[1] * r2[0])
    if r3[0] * t[0] + r3[1] * t[1] + r3[2] * t[2] > 0:  # "up" points from the board towards the camera
        r3 = _neg(r3)
    return f, cx, cy, r1, r2, r3, t, _inverse(_plane(f, cx, cy, r1, r2, t))


def _plane(f: float, cx: float, cy: float, r1: Row, r2: Row, t: Row) -> Matrix:
    """``K @ [r1 r2 t]``: a rigid camera's picture of a plane (spanned by ``r1``, ``r2``, through ``t``)."""
    return (
        (f * r1[0] + cx * r1[2], f * r2[0] + cx * r2[2], f * t[0] + cx * t[2]),
        (f * r1[1] + cy * r1[2], f * r2[1] + cy * r2[2], f * t[1] + cy * t[2]),
        (r1[2], r2[2], t[2]),
    )


def _neg(v: Row) -> Row:
    return (-v[0], -v[1], -v[2])


def _unit(v: Row) -> Row:
    n = math.sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2])
    return (v[0] / n, v[1] / n, v[2] / n)


def lifted_homography(h: npt.ArrayLike, size: tuple[int, int], height: float) -> F64:
    """The homography of the plane ``height`` cells above the board's, from the camera pose behind the board's
    homography ``h``; ``size`` is the image's (width, height). Singular: :class:`numpy.linalg.LinAlgError`.

    >>> from rolit.vision.locate import grid_homography
    >>> h = grid_homography([[100, 100], [500, 100], [500, 500], [100, 500]], 8)
    >>> np.allclose(lifted_homography(h, (600, 600), 0.0), h)
    True
    """
    hm = np.asarray(h, np.float64).tolist()
    f, cx, cy, r1, r2, r3, t, to_rigid = _rigid(hm, size, 64.0)
    if to_rigid is None:
        raise np.linalg.LinAlgError("Singular matrix")
    raised = _plane(f, cx, cy, r1, r2, (t[0] + r3[0] * height, t[1] + r3[1] * height, t[2] + r3[2] * height))
    return np.array(_product(_product(raised, to_rigid), hm))


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


def _focal(hp: Sequence[Sequence[float]], prior: float) -> float:
    """Focal length from a centred homography's orthogonality constraints, or the prior."""
    (h11, h12), (h21, h22), (h31, h32) = ((row[0], row[1]) for row in hp)
    estimates = []
    if abs(h31 * h32) > 1e-12:
        f2 = -(h11 * h12 + h21 * h22) / (h31 * h32)
        if f2 > 0:
            estimates.append((math.sqrt(f2), abs(h31 * h32)))
    d = h31 * h31 - h32 * h32
    if abs(d) > 1e-12:
        f2 = (h12 * h12 + h22 * h22 - h11 * h11 - h21 * h21) / d
        if f2 > 0:
            estimates.append((math.sqrt(f2), abs(d)))
    good = [(f, wgt) for f, wgt in estimates if 0.3 * prior < f < 4.0 * prior]
    if not good:
        return prior
    # Weight by how strongly the view constrains f; near-frontal views lean on the prior.
    total = sum(wgt for _, wgt in good)
    f_est = sum(f * wgt for f, wgt in good) / total
    strength = min(1.0, total * prior * prior * 4.0)
    return float(strength * f_est + (1.0 - strength) * prior)
