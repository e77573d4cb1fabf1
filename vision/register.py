"""Registering a frame to the picture taken at calibration: where the grid seen then is now.

At calibration the reader keeps a small grey picture of the board's frame and of
what lies just round it (:class:`ReferenceView`). In a later frame, enhanced
correlation (OpenCV's ``findTransformECC``) finds the homography that best maps
that picture onto the same part of the frame, and so where the grid seen at
calibration lies now. Only a ring round the grid is compared: the balls change
during a game, the board's frame and the table next to it do not. A hand or an
arm over part of that ring is left out: where the two pictures differ in a
patch too large to be an edge that moved, the rest of the ring is compared.

It needs no lattice, so it holds on a black board whose cups do not show, where
a search may find nothing. And it follows a bumped camera onto the very grid the
profile's per-cell references were read on.

>>> import numpy as np
>>> rng = np.random.default_rng(0)
>>> frame = cv2.GaussianBlur(rng.integers(0, 255, (240, 320, 3), dtype=np.uint8), (0, 0), 1.5)
>>> corners = np.array([[100.0, 60.0], [220.0, 60.0], [220.0, 180.0], [100.0, 180.0]])
>>> view = ReferenceView.take(frame, corners, 8)
>>> moved = np.roll(frame, 3, axis=1)  # the camera turned a little: everything 3 pixels to the right
>>> found = register(view, moved, corners, 8)
>>> (found.corners - corners).round().astype(int).tolist()
[[3, 0], [3, 0], [3, 0], [3, 0]]
"""

from __future__ import annotations

import base64
import logging
from dataclasses import dataclass
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt

from .locate import apply_homography, cells_apart, grid_homography
from .pose import BALL_CENTRE_HEIGHT, Pose

__all__ = ["ReferenceView", "Registration", "grey_picture", "register", "ACCEPT"]

log = logging.getLogger(__name__)

F64 = npt.NDArray[np.float64]
U8 = npt.NDArray[np.uint8]

SIDE = 384  # the longest side of the reference picture kept, in pixels: a bumped camera is followed at this size
# Registration is first done on the picture shrunk to COARSE_SIDE: whether the frame registers at all, and whether
# the camera moved or a hand lies over the ring, were tuned there (ACCEPT, STILL_GAIN, COVER_DIFFERS). Only where that
# moves the grid BUMPED cells or more is it done again on the whole picture, from where the grid was (see register).
# A smaller move is the correlation's jitter round a still camera (0.01-0.05 cells), not a bump: a second pass there
# only moves the start of the lattice's alignment, which on a grid the outline placed can tip it either way.
COARSE_SIDE = 256
BUMPED = 0.1
RING_OUT = 1.5  # the ring compared reaches this many cells beyond the grid (the board's frame and a little table)
RING_IN = 0.2  # and this far into the outer cells (their rims; a ball stands further in)
# Least correlation to take a registration. On development scenes the same camera, or one bumped by a few
# degrees, gave 0.92-1.0, a hand over part of the ring rather less.
ACCEPT = 0.9
BALL_MARGIN = 1.2  # a ball's circle masked out, as a share of its radius (its shadow, a ball off centre)
# A registration that moves the grid must correlate at least this much better than the pictures as they were.
# On development scenes a bumped camera gained 0.03-0.06 and more; a hand over part of the ring, with the
# camera still, 0.001-0.01 for a move of up to a cell.
STILL_GAIN = 0.01
MAX_MOVE = 2.0  # cells the grid may move (at its worst cell): further is a new search's job (the board was moved)
ITERATIONS = 50


@dataclass(frozen=True)
class Registration:
    """Where the grid seen at calibration is in a frame, and how well the pictures correlate there (0-1)."""

    corners: F64
    correlation: float


@dataclass(frozen=True, eq=False)
class ReferenceView:
    """A small grey picture of a board's surroundings: ``pixels`` shows ``box`` (x0, y0, x1, y1, full-size
    pixels) of frames ``frame`` (height, width) pixels in size, scaled down."""

    pixels: U8
    box: tuple[int, int, int, int]
    frame: tuple[int, int]

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, ReferenceView):
            return NotImplemented
        return self.box == other.box and self.frame == other.frame and np.array_equal(self.pixels, other.pixels)

    __hash__ = None  # type: ignore[assignment]  # equal views may be built apart; pixels are not hashed

    @property
    def scale(self) -> F64:
        """Picture pixels per full-size pixel (x, y)."""
        x0, y0, x1, y1 = self.box
        return np.array([self.pixels.shape[1] / (x1 - x0), self.pixels.shape[0] / (y1 - y0)])

    def shrunk(self, side: int) -> ReferenceView:
        """The view with its picture at most ``side`` pixels on its longer side (itself when it already is)."""
        size = _picture_size(self.box, side)
        if size[0] >= self.pixels.shape[1] and size[1] >= self.pixels.shape[0]:
            return self
        return ReferenceView(np.asarray(cv2.resize(self.pixels, size, interpolation=cv2.INTER_AREA), np.uint8),
                             self.box, self.frame)

    @classmethod
    def take(cls, image: U8, corners: npt.ArrayLike, n: int) -> ReferenceView:
        """The view round the n x n grid at ``corners`` (tl, tr, br, bl) in a BGR ``image``."""
        outer = _ring(grid_homography(np.asarray(corners, np.float64), n), n)[0]
        height, width = image.shape[:2]
        x0, y0 = (max(0, int(np.floor(v))) for v in outer.min(axis=0))
        x1, y1 = min(width, int(np.ceil(outer[:, 0].max())) + 1), min(height, int(np.ceil(outer[:, 1].max())) + 1)
        if x1 - x0 < 8 or y1 - y0 < 8:
            raise ValueError("the grid is not in the picture")
        box = (x0, y0, x1, y1)
        return cls(grey_picture(image, box, _picture_size(box, SIDE)), box, (height, width))

    def to_json(self) -> dict[str, Any]:
        """JSON-ready form (the picture as a base64 PNG)."""
        ok, png = cv2.imencode(".png", self.pixels)
        if not ok:
            raise ValueError("cannot encode the reference view")
        return {
            "png": base64.b64encode(png.tobytes()).decode("ascii"),
            "box": list(self.box),
            "frame": list(self.frame),
        }

    @classmethod
    def from_json(cls, data: Any) -> ReferenceView:
        """The view from its JSON form; ``ValueError`` says what is wrong."""
        if not isinstance(data, dict):
            raise ValueError("the reference view must be an object")
        try:
            raw = base64.b64decode(str(data["png"]), validate=True)
        except (KeyError, ValueError) as exc:
            raise ValueError(f"the reference view's picture is not base64: {exc}") from None
        pixels = cv2.imdecode(np.frombuffer(raw, np.uint8), cv2.IMREAD_GRAYSCALE) if raw else None
        if pixels is None or min(pixels.shape) < 8:
            raise ValueError("the reference view's picture is not a PNG")
        try:
            box = [int(v) for v in data.get("box", ())]
            frame = [int(v) for v in data.get("frame", ())]
        except (TypeError, ValueError, OverflowError):
            box, frame = [], []
        if len(box) != 4 or len(frame) != 2 or box[2] - box[0] < 8 or box[3] - box[1] < 8:
            raise ValueError("the reference view needs a box (x0, y0, x1, y1) and a frame size (height, width)")
        if min(box) < 0 or box[2] > frame[1] or box[3] > frame[0]:
            raise ValueError("the reference view's box is not inside its frame")
        return cls(np.ascontiguousarray(pixels), (box[0], box[1], box[2], box[3]), (frame[0], frame[1]))


def register(view: ReferenceView, image: U8, corners: npt.ArrayLike, n: int) -> Registration | None:
    """Where the grid at ``corners`` when ``view`` was taken lies in ``image`` (``None``: not found there).

    ``None`` when the frame has another size, the pictures do not correlate
    at :data:`ACCEPT` or better (another scene), or the grid would have moved
    more than :data:`MAX_MOVE` cells, or folded over. When the whole ring does
    not register, large patches where the pictures differ (a hand or an arm
    over the ring, see :func:`_covered`) are left out and the rest compared.

    This is decided on the picture shrunk to :data:`COARSE_SIDE`. Where the
    camera moved (the grid by :data:`BUMPED` cells or more), the whole picture
    is registered again from where the grid was, and its answer taken when it
    has one. On development game frames 0-599 with the camera nudged
    (:data:`rolit.calibration.bench.NUDGE`), that left 47 cells wrong, not
    52, and 780 unknown, not 924: the larger picture follows the board's
    edges where the smaller one slid along them (scenes 133, 271 and 509
    went from 0.7-2.0 cells out to 0.2 or less). Registered from scratch at
    the larger size alone, a hand over the ring with the camera still was
    taken for a bump, or not registered at all.
    """
    if tuple(image.shape[:2]) != view.frame:
        return None
    c = np.asarray(corners, np.float64)
    coarse = view.shrunk(COARSE_SIDE)
    found = _register_view(coarse, image, c, n)
    if found is None or coarse is view or cells_apart(c, found.corners, n) < BUMPED:
        return found
    again = _register_view(view, image, c, n)
    return found if again is None else again


def _register_view(view: ReferenceView, image: U8, c: F64, n: int) -> Registration | None:
    """:func:`register` on ``view``'s picture at its own size."""
    h, w = view.pixels.shape
    template = view.pixels.astype(np.float32)
    now = grey_picture(image, view.box, (w, h)).astype(np.float32)
    ring = _ring_mask(c, n, view)
    found = _registered(view, template, now, c, n, ring)
    if found is None:
        # A hand or an arm over part of the ring: what differs in a large patch is left out, and the rest compared.
        covered = _covered(template, now, ring)
        if covered is not None:
            found = _registered(view, template, now, c, n, ring, covered)
    return found


def _registered(
    view: ReferenceView,
    template: npt.NDArray[np.float32],
    now: npt.NDArray[np.float32],
    c: F64,
    n: int,
    ring: U8,
    covered: U8 | None = None,
) -> Registration | None:
    """:func:`register` of the grid at ``c`` comparing the pictures over ``ring`` (the ring round it) where the grid
    was, then over the ring where the first pass put it; both less ``covered`` (what a hand covers), when given."""
    origin, scale = np.array(view.box[:2], np.float64), view.scale
    local = (c - origin) * scale
    warp: Any = np.eye(3, dtype=np.float32)
    moved = c
    # What may be compared: all of the ring, or all but what a hand covers of the ring as it was (the second pass's
    # ring, where the first put the grid, keeps what lies beyond).
    seen: Any = 255 if covered is None else ~(ring & covered)
    first_mask = ring & seen
    criteria = (cv2.TERM_CRITERIA_COUNT | cv2.TERM_CRITERIA_EPS, ITERATIONS, 1e-4)
    # The mask applies to the frame, so it is drawn where the grid is thought to be: where it was, then
    # where the first pass put it (a bumped camera moved the outer balls too, into the ring as it was).
    for again in (False, True):
        mask = _ring_mask(moved, n, view) & seen if again else first_mask
        try:
            correlation, warp = cv2.findTransformECC(template, now, warp, cv2.MOTION_HOMOGRAPHY, criteria, mask, 5)
        except cv2.error as exc:  # the iteration diverged, or the ring holds no texture at all
            log.debug("registration failed: %s", exc)
            return None
        moved = apply_homography(np.asarray(warp, np.float64), local) / scale + origin
        if not np.all(np.isfinite(moved)):
            return None
    if not cv2.isContourConvex(moved.astype(np.float32)) or cells_apart(c, moved, n) > MAX_MOVE:
        return None
    if correlation < ACCEPT:
        log.debug("registration correlates %.2f only", correlation)
        return None
    still = _correlation(template, now, first_mask)
    if correlation - still < STILL_GAIN:
        # Moved, the pictures correlate hardly better than where they were: nothing moved but something over
        # part of the ring (a hand), which a homography can take up by stretching the side it covers.
        return Registration(c, float(still))
    return Registration(moved, float(correlation))


# A hand over the ring: pixels whose grey level, each picture set to zero mean and unit spread over the ring,
# differs by more than COVER_DIFFERS, in patches that survive an opening HAND_SIZE of the picture's longer side
# wide (a bumped camera's differences lie along edges, and do not), are left out; at least RING_KEPT of the ring
# must remain.
COVER_DIFFERS = 1.0
HAND_SIZE = 0.06
RING_KEPT = 0.5


def _covered(template: npt.NDArray[np.float32], now: npt.NDArray[np.float32], mask: U8) -> U8 | None:
    """The large patches of the ring ``mask`` where ``now`` differs from ``template`` (something over them, 255),
    or ``None`` when there are none or too little of the ring is left without them."""
    ring = mask > 0
    if not ring.any():
        return None

    def normed(picture: npt.NDArray[np.float32]) -> npt.NDArray[np.float32]:
        values = picture[ring]
        return (picture - float(values.mean())) / max(float(values.std()), 1.0)

    differs = ((np.abs(normed(template) - normed(now)) > COVER_DIFFERS) & ring).astype(np.uint8)
    size = max(3, round(HAND_SIZE * max(template.shape)) | 1)
    kernel = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (size, size))
    patches = cv2.morphologyEx(differs, cv2.MORPH_OPEN, kernel)
    if not patches.any():
        return None
    covered = np.zeros_like(mask)
    covered[cv2.dilate(patches, kernel) > 0] = 255
    if np.count_nonzero(mask & ~covered) < RING_KEPT * np.count_nonzero(ring):
        return None
    return covered


def _correlation(template: npt.NDArray[np.float32], image: npt.NDArray[np.float32], mask: U8) -> float:
    """The enhanced correlation of two pictures of the same size, as they are, over ``mask`` (-1 when it
    cannot be measured)."""
    try:
        return float(cv2.computeECC(template, image, mask))
    except cv2.error:
        return -1.0


def _ring(homography: F64, n: int) -> tuple[F64, F64]:
    """The outer and inner edges of the ring compared round the n x n grid of ``homography``."""
    lo, hi = -RING_OUT, n + RING_OUT
    outer = apply_homography(homography, np.array([[lo, lo], [hi, lo], [hi, hi], [lo, hi]]))
    lo, hi = RING_IN, n - RING_IN
    inner = apply_homography(homography, np.array([[lo, lo], [hi, lo], [hi, hi], [lo, hi]]))
    return outer, inner


def _ring_mask(corners: F64, n: int, view: ReferenceView) -> U8:
    """The ring round the grid at ``corners`` (full-size pixels) in the view's picture, less every ball
    the outer cells could hold: seen from low down a ball stands out over the board's frame."""
    h, w = view.pixels.shape
    origin, scale = np.array(view.box[:2], np.float64), view.scale
    homography = grid_homography(corners, n)
    mask = np.zeros((h, w), np.uint8)
    outer, inner = ((edge - origin) * scale for edge in _ring(homography, n))
    cv2.fillPoly(mask, [np.round(outer).astype(np.int32)], 255)
    cv2.fillPoly(mask, [np.round(inner).astype(np.int32)], 0)
    outside = np.array([(u, v) for u in range(n) for v in range(n) if min(u, v) == 0 or max(u, v) == n - 1], float)
    balls = np.c_[outside + 0.5, np.full(len(outside), BALL_CENTRE_HEIGHT)]
    pose = Pose.from_homography(homography, (view.frame[1], view.frame[0]))
    centres = (pose.project(balls) - origin) * scale
    radii = pose.ball_radius_px(balls) * float(np.max(scale)) * BALL_MARGIN
    for (x, y), r in zip(centres, radii, strict=True):
        if np.isfinite(x) and np.isfinite(y) and np.isfinite(r):
            cv2.circle(mask, (round(x), round(y)), max(1, round(r)), 0, -1)
    return mask


def _picture_size(box: tuple[int, int, int, int], side: int) -> tuple[int, int]:
    """The size (w, h) of a picture of ``box`` (x0, y0, x1, y1) at most ``side`` pixels on its longer side, and
    no larger than the box."""
    x0, y0, x1, y1 = box
    scale = min(1.0, side / max(x1 - x0, y1 - y0))
    return max(8, round((x1 - x0) * scale)), max(8, round((y1 - y0) * scale))


def grey_picture(image: U8, box: tuple[int, int, int, int], size: tuple[int, int]) -> U8:
    """The grey picture of ``box`` (x0, y0, x1, y1, inside the image) at ``size`` (w, h)."""
    x0, y0, x1, y1 = box
    grey = cv2.cvtColor(image[y0:y1, x0:x1], cv2.COLOR_BGR2GRAY)
    return np.asarray(cv2.resize(grey, size, interpolation=cv2.INTER_AREA), np.uint8)
