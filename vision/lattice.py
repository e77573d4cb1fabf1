"""The lattice seen square-on: aligning a grid guess cell by cell, parallax included.

A grid guess (four corners) is checked and moved by the cells themselves. The
region round it is rectified twice: on the board's plane, where the cups are,
and on the plane of the balls' centres, which the camera pose behind the guess
(:mod:`.pose`) puts above it; a "cell content" map (how far each pixel is from
the plastic's colour) takes its cup-like part from the first view and its
ball-like part from the second, so that cups and balls alike sit on the cells'
centres however oblique the view. Round each cell a window two cells wide
gives, from the Fourier component at one cycle per cell along each axis, how
far the content sits from where the guess puts the cell's centre (the phase)
and how clearly (the amplitude); a weighted, outlier-resistant fit of those
offsets moves the guess: scale and shift first, then a full affine map. In an
oblique view a ball hides the near part of whatever stands behind it, so what
is seen of a cell behind a ball sits a little further from the camera than its
centre; a share of the parallax is taken off for it.

The same map says how well the guess holds: how many cells lock onto their
centres, and how strong the lattice is along each axis. Line by line round the
grid it says where the cups and balls stop, which settles a slip by a whole
cell: the grid's outer rows hold cups and balls, the rows beyond (the frame,
the table) do not.

Grid coordinates are those of :mod:`.locate`: ``(u, v)``, 0..n across the grid.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt
from threadpoolctl import ThreadpoolController

from .pose import BALL_CENTRE_HEIGHT, _inverse, lifted_homography

__all__ = [
    "LatticeView",
    "PAD",
    "PX",
    "ball_colours",
    "ball_share",
    "cell_centres",
    "cell_phases",
    "grid_homography",
    "inverted",
    "lifted",
    "line_evidence",
    "look",
    "lock",
    "offsets_homography",
    "realign",
    "shifted",
    "survey",
]

F64 = npt.NDArray[np.float64]
F32 = npt.NDArray[Any]  # float32 images; OpenCV's stubs widen dtypes freely
C128 = npt.NDArray[np.complex128]

PX = 16  # pixels per cell in the rectified views
PAD = 2  # whole cells of margin round the grid in the rectified views
# How far (Lab) a pixel's colour is from the plastic's in shade, or how much
# brighter it is, for it to be taken for a ball rather than a cup (see content_map).
BALL_COLOUR = (8.0, 16.0)
# What is seen of a cup or a ball behind a ball (nearer the camera) sits this share of the balls'
# parallax further from the camera than its centre: the ball in front hides its near part.
OCCLUSION = 0.4
# Parallax (cells) below which the balls' plane is not worth a second view, and
# above which the pose behind a guess is not believed.
PARALLAX_MIN, PARALLAX_MAX = 0.03, 0.6
EDGE_CLEAR = 0.12  # cells inside the grid's edge left out of the alignment (see cell_phases)
SURVEY_PX = 8  # pixels per cell for survey's first look
FAINT = 0.005  # a cell's Fourier amplitude (content units) below which nothing is there to lock on
LOCKED = 0.15  # a cell's content within this many cells of its centre along both axes: locked on
# See inverted(): a cell with no ball (its middle's Lab chroma this near the plastic's), the least share of such
# cells for a board to be judged, and how much lighter (Lab lightness) than the plastic their middles are half a
# cell out.
PLAIN_CHROMA, INVERTED_SHARE, INVERTED_LIGHTER = 12.0, 0.75, 2.0


@functools.lru_cache(maxsize=4)
def _waves(px: int) -> tuple[C128, C128, float]:
    """The Hann-windowed waves (two cells wide, one cycle per cell) along u and v, and their window's sum."""
    x = (np.arange(2 * px) + 0.5) / px - 1.0  # cells from the cell's centre
    hann = np.cos(np.pi * x / 2.0) ** 2
    wave_u = (hann * np.exp(-2j * np.pi * x))[None, :] * hann[:, None]
    return wave_u, np.ascontiguousarray(wave_u.T), float(hann.sum() ** 2)


@functools.lru_cache(maxsize=1)
def _threadpools() -> ThreadpoolController:
    return ThreadpoolController()


def _one_blas_thread() -> Any:
    """BLAS held to one thread. The products here take a fraction of a millisecond, and on a busy
    machine waiting for a second thread to be scheduled took several (0.1 ms became 8)."""
    return _threadpools().limit(limits=1, user_api="blas")


@functools.lru_cache(maxsize=4)
def _quadrant_waves(px: int) -> F64:
    """:func:`_waves` cut into the four cell-sized quadrants of their window, as columns (px * px, 8 * 2):
    for each quadrant (top-left, top-right, bottom-left, bottom-right), the real and imaginary parts of
    the wave along u, then those along v."""
    wave_u, wave_v, _ = _waves(px)
    columns = []
    for a in (0, 1):
        for b in (0, 1):
            for wave in (wave_u, wave_v):
                quadrant = wave[a * px : (a + 1) * px, b * px : (b + 1) * px].ravel()
                columns.extend([quadrant.real, quadrant.imag])
    return np.ascontiguousarray(np.column_stack(columns), np.float64)


def _window_coefficients(content: F32, px: int, m: int) -> tuple[C128, C128]:
    """The Fourier coefficients (one cycle per cell, along u and along v) of the Hann windows two cells wide
    whose top-left corners are ``px`` apart from the top-left of ``content``: per window (rows, columns),
    ``m`` x ``m`` of them; over a stack of images (leading axis) too. Not normalised (see :func:`_waves`).

    Each window spans four cell-sized blocks, so every block is multiplied
    with each quadrant of the waves once (one matrix product) and each window
    adds up its four: far cheaper than a product per window.
    """
    size = (m + 1) * px
    lead = content.shape[:-2]
    blocks = np.asarray(content[..., :size, :size], np.float64).reshape(*lead, m + 1, px, m + 1, px)
    blocks = np.swapaxes(blocks, -3, -2).reshape(-1, px * px)
    with _one_blas_thread():
        q = (blocks @ _quadrant_waves(px)).reshape(*lead, m + 1, m + 1, 4, 2, 2)
    total = q[..., :m, :m, 0, :, :] + q[..., :m, 1:, 1, :, :] + q[..., 1:, :m, 2, :, :] + q[..., 1:, 1:, 3, :, :]
    coef = total[..., 0] + 1j * total[..., 1]
    return np.asarray(coef[..., 0], np.complex128), np.asarray(coef[..., 1], np.complex128)


@dataclass(frozen=True)
class LatticeView:
    """A grid guess seen square-on: its homography (grid -> image), the cell-content map, the parallax.

    ``content`` covers grid coordinates ``-pad .. n + pad`` at ``px`` pixels a
    cell; ``parallax`` is, per cell (rows, columns, then u and v), how far a
    ball's centre appears from its cell's centre (zero when not modelled).
    """

    n: int
    homography: F64
    content: F32
    parallax: F64
    px: int = PX
    pad: int = PAD
    balls: F64 | None = None  # per cell, how much of its middle looks like a ball (0..1), when known
    # How much lighter than the plastic the middles of the cells with no ball are (Lab lightness, the median),
    # and the share of such cells; see :func:`inverted`.
    shade: tuple[float, float] = (0.0, 0.0)

    @functools.cached_property
    def phases(self) -> tuple[C128, C128]:
        """:func:`cell_phases` of the grid's own cells (computed once)."""
        return cell_phases(self)

    @functools.cached_property
    def offsets(self) -> tuple[F64, F64]:
        """Per cell, how far (cells, along u and along v) its content sits from its centre (from :attr:`phases`)."""
        cu, cv = self.phases
        return np.asarray(-np.angle(cu) / (2 * np.pi), np.float64), np.asarray(-np.angle(cv) / (2 * np.pi), np.float64)


def rectify(image: npt.NDArray[Any], h: F64, n: int, pad: int = PAD, px: int = PX) -> F32:
    """The image round a grid (homography ``h``: grid -> image) at ``px`` pixels a cell, in Lab.

    ``image`` is Lab (float32), or BGR (uint8, turned into Lab after the warp: far cheaper).
    """
    return _lab(_warp(image, h, n, pad, px))


def _warp(image: npt.NDArray[Any], h: F64, n: int, pad: int, px: int) -> npt.NDArray[Any]:
    """:func:`rectify` without the conversion to Lab (the image's own type)."""
    size = (n + 2 * pad) * px
    a = np.array([[1.0 / px, 0.0, 0.5 / px - pad], [0.0, 1.0 / px, 0.5 / px - pad], [0.0, 0.0, 1.0]])
    return np.asarray(
        cv2.warpPerspective(
            image, h @ a, (size, size), flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP, borderMode=cv2.BORDER_REPLICATE
        )
    )


def _lab(view: npt.NDArray[Any]) -> F32:
    """A BGR view (uint8) in Lab (float32); a Lab view as it is. Views may be stacked (leading axes)."""
    if view.dtype != np.uint8:
        return np.asarray(view, np.float32)
    flat = view.reshape(-1, view.shape[-2], 3)  # cv2 takes one image: stacked views one under another
    lab = cv2.cvtColor(flat.astype(np.float32) * np.float32(1.0 / 255.0), cv2.COLOR_BGR2LAB)
    return np.asarray(lab, np.float32).reshape(view.shape)


def median(values: npt.NDArray[Any], axis: int | None = None) -> Any:
    """``np.median`` of an array with no NaN in it (the same values, of the same type: an array, or with no
    ``axis`` a scalar), by one partition: ``np.median`` costs several times as much on the small arrays here.

    >>> a = np.array([[3.0, 1.0], [2.0, 5.0], [4.0, 0.5], [1.5, 2.5]], np.float32)
    >>> bool(np.array_equal(median(a, 0), np.median(a, 0)) and median(a) == np.median(a))
    True
    """
    if axis is None:
        values, axis = values.ravel(), 0
    half = values.shape[axis] // 2
    if values.shape[axis] % 2:
        return np.take(np.partition(values, half, axis=axis), half, axis=axis)
    part = np.partition(values, (half - 1, half), axis=axis)
    # The mean of the middle two, as np.median takes it (their sum halved, in the array's own type).
    return (np.take(part, half - 1, axis=axis) + np.take(part, half, axis=axis)) / 2


def plastic_colour(view: F32, n: int, pad: int = PAD, px: int = PX) -> F64:
    """The plastic's Lab colour: the median a little inside each cell's corners (clear of cups and lines)."""
    near = round(0.14 * px)
    k = np.concatenate((np.arange(n) * px + near, np.arange(1, n + 1) * px - near - 1)) + pad * px
    return np.asarray(median(view[k][:, k].reshape(-1, 3), axis=0), np.float64)


def content_map(view: F32, plastic: F64, px: int = PX) -> tuple[F32, F32]:
    """How far each pixel is from the plastic's colour, compressed (so a few bright balls do not drown the cups),
    and how much it looks like a ball rather than a cup (0..1).

    A cup is the plastic in shade: darker, its colour fading with its lightness.
    A ball is another colour, or brighter (its highlight).
    """
    blurred = cv2.GaussianBlur(view, (0, 0), px * 0.12)
    p = plastic.astype(np.float32)
    lightness, a, b = cv2.split(blurred)
    # content = log(sqrt(dl^2 + 2 (da^2 + db^2)) / 3 + 1)
    dl, da, db = lightness - p[0], a - p[1], b - p[2]
    content = np.asarray(cv2.sqrt(_colour_distance_sq(dl, da, db)), np.float32)
    content *= np.float32(1.0 / 3.0)
    content += np.float32(1.0)
    content = np.asarray(cv2.log(content), np.float32)
    shade = lightness * np.float32(1.0 / max(float(p[0]), 1.0))
    return content, _ball_likeness(a, b, dl, shade, p[1], p[2])


def _colour_distance_sq(dl: F32, da: F32, db: F32) -> F32:
    """``dl^2 + 2 (da^2 + db^2)``: how far from the plastic's colour (Lab differences), squared; ``da`` and ``db``
    are overwritten. The arithmetic is in place (each new image-sized array costs more than its sums)."""
    da *= da
    db *= db
    da += db
    da *= 2.0
    dist = np.square(dl)
    dist += da
    return dist


def _ball_likeness(a: F32, b: F32, dl: F32, shade: F32, plastic_a: Any, plastic_b: Any) -> F32:
    """How much each pixel looks like a ball rather than a cup (0..1, smoothed): its colour against the plastic's
    in the same shade (``shade``: its lightness over the plastic's, clipped here to 0.2..1), or its lightness
    above the plastic's (``dl``). ``dl`` and ``shade`` are overwritten; in place, as :func:`_colour_distance_sq`.

    x = clip((max(|(a, b) - plastic's (a, b) * shade|, 1.5 dl) - lo) / (hi - lo), 0, 1), then x^2 (3 - 2 x).
    """
    np.clip(shade, 0.2, 1.0, out=shade)
    oa, ob = shade * plastic_a, shade * plastic_b
    np.subtract(a, oa, out=oa)
    np.subtract(b, ob, out=ob)
    oa *= oa
    ob *= ob
    oa += ob
    x = np.sqrt(oa, out=oa)
    dl *= 1.5
    np.maximum(x, dl, out=x)
    lo, hi = BALL_COLOUR
    x -= lo
    x /= hi - lo
    np.clip(x, 0.0, 1.0, out=x)
    smooth = x * -2.0
    smooth += 3.0
    x *= x
    x *= smooth
    return np.asarray(x, np.float32)


def _lifted(h: F64, shape: tuple[int, ...], height: float) -> F64:
    """The homography of the plane ``height`` cells above the grid's, from the camera pose behind ``h``."""
    return lifted_homography(h, (int(shape[1]), int(shape[0])), height)


def lifted(corners: F64, n: int, shape: tuple[int, ...], height: float) -> F64:
    """The homography (grid -> image) of the plane ``height`` cells above a grid's (corners tl, tr, br, bl in a
    picture of ``shape``), from the camera pose behind it."""
    h = grid_homography(corners, n)
    return _lifted(h, shape, height)


def _raised(h: F64, shape: tuple[int, ...], n: int, origin: tuple[float, float] = (0.0, 0.0)) -> F64 | None:
    """The homography (grid -> image) of the plane of the balls' centres, when the parallax is worth modelling.

    ``shape`` is the whole picture's; the image ``h`` maps into may be a part of
    it whose top-left corner is at ``origin`` in the whole (the camera's axis
    goes through the whole picture's centre).
    """
    try:
        if origin[0] == 0.0 and origin[1] == 0.0:  # the whole picture: no move to make
            hb = _lifted(h, shape, BALL_CENTRE_HEIGHT)
        else:
            move = np.array([[1.0, 0.0, origin[0]], [0.0, 1.0, origin[1]], [0.0, 0.0, 1.0]])
            hb = np.linalg.inv(move) @ _lifted(move @ h, shape, BALL_CENTRE_HEIGHT)
        # How far the middle of the grid moves, seen on the balls' plane (on plain floats: numpy's calls on a
        # 3x3 cost more than the sums).
        back = _inverse(h.tolist())
        if back is None:
            return None
        mid = n / 2.0
        x, y = _map_point(back, *_map_point(hb.tolist(), mid, mid))
    except (np.linalg.LinAlgError, ValueError, ZeroDivisionError):
        return None
    return hb if PARALLAX_MIN < math.hypot(x - mid, y - mid) < PARALLAX_MAX else None


def _map_point(h: Sequence[Sequence[float]], x: float, y: float) -> tuple[float, float]:
    """One point mapped by a homography (a 3x3 of floats)."""
    (a, b, c), (d, e, f), (g, i, j) = h
    w = g * x + i * y + j
    return (a * x + b * y + c) / w, (d * x + e * y + f) / w


def grid_homography(corners: npt.ArrayLike, n: int) -> F64:
    """The homography from grid coordinates (0..n) to the image of a grid with ``corners`` (tl, tr, br, bl)."""
    src = np.array([[0, 0], [n, 0], [n, n], [0, n]], np.float32)
    return np.asarray(cv2.getPerspectiveTransform(src, np.asarray(corners, np.float32).reshape(4, 2)), np.float64)


def _apply(h: F64, pts: F64) -> F64:
    # Homogeneous points filled in place (np.c_ and np.column_stack cost more than the product).
    p = np.empty((len(pts), 3))
    p[:, :2] = pts
    p[:, 2] = 1.0
    q = p @ h.T
    return np.asarray(q[:, :2] / q[:, 2:3], np.float64)


def look(
    image: npt.NDArray[Any],
    corners: F64,
    n: int,
    px: int = PX,
    parallax: bool = True,
    whole: tuple[tuple[int, ...], tuple[float, float]] | None = None,
    pad: int = PAD,
) -> LatticeView:
    """The cell-content map of a grid guess (corners tl, tr, br, bl in ``image``'s pixels), parallax included
    unless told not to (a rougher, cheaper look).

    ``image`` is BGR (uint8) or Lab (float32). ``whole`` is the whole picture's
    shape and where ``image`` starts in it, when ``image`` is only a part of it
    (the camera pose depends on where the grid is in the whole). ``pad`` cells
    round the grid are looked at (two for :func:`line_evidence`, one will do
    for :func:`realign` and :func:`lock`).
    """
    h = grid_homography(corners, n)
    view = rectify(image, h, n, pad, px)
    plastic = plastic_colour(view, n, pad, px)
    content, ball = content_map(view, plastic, px)
    shade = _middle_shade(view, plastic, n, pad, px)
    shape, origin = whole if whole is not None else (image.shape, (0.0, 0.0))
    hb = _raised(h, shape, n, origin) if parallax else None
    if hb is None:
        return LatticeView(n, h, content, np.zeros((n, n, 2)), px, pad, shade=shade)
    raised, raised_ball = content_map(rectify(image, hb, n, pad, px), plastic, px)
    # Balls stand only on the grid; a ring of cells beyond it is treated alike too, for line_evidence
    # (a grid a cell out has balls there). Further out the board's plane view stays as it is.
    ring = slice((pad - 1) * px, (pad + n + 1) * px) if pad >= 1 else slice(0, n * px)
    content[ring, ring] = content[ring, ring] * (1.0 - ball[ring, ring]) + raised[ring, ring] * raised_ball[ring, ring]
    cells = cell_centres(n)
    shift = (_apply(np.asarray(np.linalg.inv(h), np.float64), _apply(hb, cells)) - cells).reshape(n, n, 2)
    inner = raised_ball[pad * px : (pad + n) * px, pad * px : (pad + n) * px].reshape(n, px, n, px)
    occupied = np.einsum("jyix,yx->ji", inner, _middle(px)) / float(_middle(px).sum())
    return LatticeView(n, h, content, shift, px, pad, np.asarray(occupied, np.float64), shade)


def _middle_shade(view: F32, plastic: F64, n: int, pad: int, px: int) -> tuple[float, float]:
    """How much lighter than the plastic the cells' middles are where they have its hue (the median: no ball
    there), and the share of such cells."""
    k = (np.arange(n) + pad) * px + px // 2
    middles = view[k][:, k].reshape(-1, 3)
    plain = np.hypot(middles[:, 1] - plastic[1], middles[:, 2] - plastic[2]) < PLAIN_CHROMA
    if not plain.any():
        return 0.0, 0.0
    return float(median(middles[plain, 0]) - plastic[0]), float(plain.mean())


def inverted(view: LatticeView) -> bool:
    """Whether the grid looks half a cell out along both axes, on a board of empty cups.

    There the plastic between four cups makes a lattice as clear as the cups'
    (its Fourier component at one cycle a cell is the cups' turned half a
    cycle), and the cell-content map, which measures only how far a pixel is
    from the plastic, locks onto it as well. But a cup is the plastic in shade:
    on the right grid the middles of empty cells are darker than the plastic
    found at the cells' corners; half a cell out they are lighter. Only a
    board with mostly empty cells is judged (balls fill the middles otherwise).
    """
    lighter, share = view.shade
    return share >= INVERTED_SHARE and lighter > INVERTED_LIGHTER


@functools.lru_cache(maxsize=8)
def cell_centres(n: int) -> F64:
    """The cells' centres in grid coordinates, row by row (cells x 2; shared, not to be written to)."""
    g = np.arange(n) + 0.5
    cells = np.column_stack([a.ravel() for a in np.meshgrid(g, g)])
    cells.flags.writeable = False
    return cells


@functools.lru_cache(maxsize=4)
def _middle(px: int) -> npt.NDArray[np.float32]:
    """A cell's middle (within 0.3 cells of its centre) as a mask of its pixels."""
    x = (np.arange(px) + 0.5) / px - 0.5
    return (np.hypot(x[:, None], x[None, :]) < 0.3).astype(np.float32)


def _hidden(view: LatticeView) -> F64:
    """Per cell, how much a ball in the cell in front of it (nearer the camera) hides it (0..1)."""
    if view.balls is None:
        return np.zeros((view.n, view.n))
    p = view.parallax.mean(axis=(0, 1))
    weight = np.abs(p) / (float(np.abs(p).sum()) + 1e-9)
    out = np.zeros((view.n, view.n))
    for axis, w in ((1, weight[0]), (0, weight[1])):  # u runs along columns (axis 1), v along rows
        step = int(np.sign(p[0 if axis == 1 else 1]))
        if step == 0:
            continue
        # The cell in front is one step against the parallax: balls appear shifted away from the camera.
        # (The balls moved one cell along the axis, none coming in at the edge: np.roll costs more.)
        ahead, behind = (slice(1, None), slice(None, -1)) if step > 0 else (slice(None, -1), slice(1, None))
        front = np.zeros_like(view.balls)
        if axis == 1:
            front[:, ahead] = view.balls[:, behind]
        else:
            front[ahead, :] = view.balls[behind, :]
        out += w * front
    return np.asarray(np.clip(out, 0.0, 1.0), np.float64)


def cell_phases(view: LatticeView, lo: int = 0, hi: int | None = None, inside: bool = True) -> tuple[C128, C128]:
    """Per cell (rows, columns lo..hi-1, which may reach a cell beyond the grid): the Fourier coefficient at one
    cycle per cell along u and along v, in a Hann window two cells wide centred on the cell.

    Content centred on the cell gives a positive real coefficient; content ``d``
    cells off its centre turns it by ``-2 pi d``. With ``inside`` the content
    beyond the grid counts as plastic: the frame, half a cell beyond the outer
    cells, would pull them outwards (and so does its edge, blurred, a little way into the grid).
    """
    hi = view.n if hi is None else hi
    m, px, pad = hi - lo, view.px, view.pad
    norm = _waves(px)[2]
    start = (pad + lo) * px - px // 2
    if start < 0:
        raise ValueError("the view does not reach that far beyond the grid")
    content = view.content
    if inside:
        # The cups keep 0.13 cells clear of the grid's edge; the frame's edge, blurred, reaches in further.
        content = np.zeros_like(content)
        edge = round(EDGE_CLEAR * px)
        grid = slice(pad * px + edge, (pad + view.n) * px - edge)
        content[grid, grid] = view.content[grid, grid]
    cu, cv = _window_coefficients(content[start:, start:], px, m)
    return cu / norm, cv / norm


@functools.lru_cache(maxsize=8)
def _designs(n: int) -> tuple[F64, tuple[F64, F64]]:
    """Least-squares designs over the cells' centres (from the grid's middle): affine, and shift-and-scale per axis."""
    g = np.arange(n) + 0.5 - n / 2.0
    x, y = (a.ravel() for a in np.meshgrid(g, g))
    one = np.ones_like(x)
    return np.column_stack([one, x, y]), (np.column_stack([one, x]), np.column_stack([one, y]))


@functools.lru_cache(maxsize=4)
def _ridge(k: int) -> F64:
    """What holds :func:`_fit` with ``k`` unknowns a little towards no change (shared, not to be written to)."""
    ridge = np.eye(k) * 1e-6
    ridge.flags.writeable = False
    return ridge


def _fit(n: int, du: F64, dv: F64, wu: F64, wv: F64, affine: bool) -> F64:
    """The grid-to-grid map that moves each cell centre by its offset (least squares, weighted).

    Scale and shift per axis, or (``affine``) a full affine map.
    """
    design, own = _designs(n)
    rows = []
    for axis, d, w in ((0, du.ravel(), wu.ravel()), (1, dv.ravel(), wv.ravel())):
        a = design if affine else own[axis]
        # The weighted normal equations, held a little towards no change.
        aw = a.T * w
        coef = np.linalg.solve(aw @ a + _ridge(a.shape[1]), aw @ d)
        if not affine:
            coef = np.array([coef[0], coef[1], 0.0]) if axis == 0 else np.array([coef[0], 0.0, coef[1]])
        rows.append(coef)
    (a0, a1, a2), (b0, b1, b2) = rows
    c = n / 2.0
    return np.array([[1 + a1, a2, a0 - (a1 + a2) * c], [b1, 1 + b2, b0 - (b1 + b2) * c], [0.0, 0.0, 1.0]])


def _votes(view: LatticeView) -> tuple[F64, F64, F64, F64]:
    """Per cell, how far its content sits from its centre along u and v (the hidden share of the parallax
    taken off), and how much each of those counts."""
    cu, cv = view.phases
    du, dv = view.offsets
    hidden = OCCLUSION * _hidden(view)
    du, dv = du - hidden * view.parallax[..., 0], dv - hidden * view.parallax[..., 1]
    # Every cell one vote, more or less sure: clear content counts up to about
    # twice the typical, faint content (a cup under dim light) still counts.
    wu, wv = np.abs(cu), np.abs(cv)
    wu = wu / (wu + float(median(wu)) + 1e-9)
    wv = wv / (wv + float(median(wv)) + 1e-9)
    return du, dv, wu, wv


def realign(view: LatticeView, affine: bool) -> F64:
    """The guess moved onto the cells: new corners (tl, tr, br, bl, image pixels).

    Scale and shift per axis, or (``affine``) a full affine map of the grid.
    """
    n = view.n
    du, dv, wu, wv = _votes(view)
    grid = cell_centres(n)
    fit = _fit(n, du, dv, wu, wv, affine)
    for _ in range(2):
        # Cells far from the fit (a hand, a ball the parallax does not explain) count less.
        pred = _apply(fit, grid) - grid
        ru = np.abs(pred[:, 0] - du.ravel()).reshape(n, n)
        rv = np.abs(pred[:, 1] - dv.ravel()).reshape(n, n)
        fit = _fit(n, du, dv, wu / np.maximum(1.0, ru / 0.1), wv / np.maximum(1.0, rv / 0.1), affine)
    return _moved_corners(view, fit)


def realign_projective(view: LatticeView) -> F64:
    """The guess moved onto the cells by a homography of the grid (perspective too, which :func:`realign`
    cannot change): new corners (tl, tr, br, bl, image pixels).

    Only cells whose content shows along both axes count, and cells with a
    ball less (its parallax is modelled, not measured); cells far from the
    fit count less, as in :func:`realign`.
    """
    n = view.n
    du, dv, wu, wv = _votes(view)
    weight = np.minimum(wu, wv).ravel()
    if view.balls is not None:
        weight = weight * (1.0 - np.clip(view.balls.ravel(), 0.0, 1.0))
    return _moved_corners(view, offsets_homography(n, np.stack([du, dv], axis=-1), weight, 0.1))


def offsets_homography(n: int, offsets: F64, weight: F64, tolerance: float) -> F64:
    """The homography of the grid (grid to grid) that moves each cell's centre by its offset (rows, columns, then
    u and v; cells) as nearly as it can, weighted (one weight a cell, row-major); cells further from the fit
    than ``tolerance`` cells count less, the further the less (fitted three times)."""
    grid = cell_centres(n)
    moved = grid + offsets.reshape(-1, 2)
    fit = _weighted_homography(grid, moved, weight)
    for _ in range(2):
        far = np.linalg.norm(_apply(fit, grid) - moved, axis=1)
        fit = _weighted_homography(grid, moved, weight / np.maximum(1.0, far / tolerance))
    return fit


def _moved_corners(view: LatticeView, fit: F64) -> F64:
    """The corners (tl, tr, br, bl, image pixels) of the view's grid moved by ``fit`` (grid to grid)."""
    n = view.n
    box = np.array([[0, 0], [n, 0], [n, n], [0, n]], np.float64)
    return _apply(view.homography @ fit, box)


def _weighted_homography(src: F64, dst: F64, weight: F64) -> F64:
    """The homography taking ``src`` points to ``dst`` (weighted least squares on the direct linear transform).

    >>> src = np.array([[0.0, 0.0], [1.0, 0.0], [1.0, 1.0], [0.0, 1.0], [0.5, 0.5]])
    >>> h = np.array([[1.1, 0.1, 0.2], [0.0, 0.9, -0.1], [0.05, 0.02, 1.0]])
    >>> np.allclose(_weighted_homography(src, _apply(h, src), np.ones(5)), h)
    True
    """
    x, y = src[:, 0], src[:, 1]
    u, v = dst[:, 0], dst[:, 1]
    zero, one = np.zeros_like(x), np.ones_like(x)
    rows = np.concatenate([
        np.column_stack([-x, -y, -one, zero, zero, zero, u * x, u * y, u]),
        np.column_stack([zero, zero, zero, -x, -y, -one, v * x, v * y, v]),
    ]) * np.sqrt(np.concatenate([weight, weight]))[:, None]  # fmt: skip
    h = np.linalg.svd(rows, full_matrices=False)[2][-1].reshape(3, 3)  # (the full U is large, and unused)
    return np.asarray(h / h[2, 2], np.float64)


def quality(view: LatticeView) -> float:
    """How well the guess sits on a lattice, in one number: the share of cells locked on (:func:`lock`) plus a
    third of the lattice's strength (about 1.2 at best)."""
    locked, strength = lock(view)
    return locked + strength / 3.0


def lock(view: LatticeView) -> tuple[float, float]:
    """How well the guess sits on a lattice: the share of cells locked onto their centres, and the lattice's strength.

    The strength is, along the weaker axis, the Fourier component of the
    content's profile at one cycle per cell, in phase with the cells' centres,
    over the profile's spread: about 0.7 for a perfect lattice, 0 or below for
    none or one half a cell out.
    """
    n = view.n
    cu, cv = view.phases
    du, dv = view.offsets
    # Locked on: centred along both axes, and something there at all (not flat plastic, or a blank wall).
    there = (np.abs(cu) > FAINT) & (np.abs(cv) > FAINT)
    locked = float(np.mean((np.abs(du) < LOCKED) & (np.abs(dv) < LOCKED) & there))
    px = view.px
    s = view.pad * px
    inner = view.content[s : s + n * px, s : s + n * px]
    wave = _cell_wave(n, px)
    strength = []
    for profile in (inner.mean(axis=0), inner.mean(axis=1)):
        p = profile - profile.mean()
        strength.append(float(np.real(np.dot(p, wave))) / len(p) / (float(np.std(p)) + 1e-6))
    return locked, min(strength)


@functools.lru_cache(maxsize=8)
def _cell_wave(n: int, px: int) -> C128:
    """One cycle per cell across the grid, in phase with the cells' centres (for :func:`lock`; shared, not to be
    written to)."""
    x = (np.arange(n * px) + 0.5) / px - 0.5
    wave = np.asarray(np.exp(-2j * np.pi * x), np.complex128)
    wave.flags.writeable = False
    return wave


def line_evidence(view: LatticeView) -> tuple[F64, F64]:
    """How much each column and each row (-1..n: one beyond the grid each side) looks like a line of cells.

    The content along a line of cells repeats once a cell, in phase with the
    cells' centres (cups, balls); along the frame, the table or a grid line it
    does not. So each line scores the in-phase component along its own length.
    """
    n = view.n
    cu, cv = cell_phases(view, -1, n + 1, inside=False)
    columns = np.real(cv[1 : n + 1, :]).mean(axis=0)
    rows = np.real(cu[:, 1 : n + 1]).mean(axis=1)
    return np.asarray(columns, np.float64), np.asarray(rows, np.float64)


def shifted(corners: F64, n: int, du: float, dv: float) -> F64:
    """The grid moved by ``du`` cells along u and ``dv`` along v (its corners, tl, tr, br, bl)."""
    h = grid_homography(corners, n)
    return _apply(h, np.array([[du, dv], [n + du, dv], [n + du, n + dv], [du, n + dv]], np.float64))


def scaled(corners: F64, n: int, factor: float) -> F64:
    """The grid's cells made ``factor`` times as large about its centre (its corners, tl, tr, br, bl).

    >>> scaled(np.array([[0.0, 0.0], [80.0, 0.0], [80.0, 80.0], [0.0, 80.0]]), 8, 0.5).round(6).tolist()
    [[20.0, 20.0], [60.0, 20.0], [60.0, 60.0], [20.0, 60.0]]
    """
    h = grid_homography(corners, n)
    lo, hi = n / 2.0 * (1.0 - factor), n / 2.0 * (1.0 + factor)
    return _apply(h, np.array([[lo, lo], [hi, lo], [hi, hi], [lo, hi]], np.float64))


def survey(pyramid: Sequence[npt.NDArray[Any]], guesses: Sequence[F64], n: int, px: int = SURVEY_PX) -> F64:
    """A first, rough look at many guesses at once: how much each looks like the grid of a board (0 .. about 0.7).

    ``pyramid`` is the image (BGR or Lab) and its successive halvings; each guess is
    seen on the level where a cell is ``px`` to ``2 px`` pixels across. Unlike
    :func:`lock` the cells need not sit on the guess's centres, only on some
    lattice near it (a shift and scale per axis away), so the score is the
    share of cells whose offset agrees with a fit of all of them, times the
    lattice's strength: the largest Fourier component of the content's profile
    near one cycle per cell (pitch within 12%), over the profile's spread,
    along the weaker axis. Parallax is modelled as in :func:`look`.
    """
    count = len(guesses)
    if not count:
        return np.zeros(0)
    # Only the grid itself is looked at (what lies beyond counts as plastic, as in cell_phases).
    size = n * px
    # Both views of every guess warped first and turned into Lab together (one call, not two per guess).
    warped = np.empty((2 * count, size, size, 3), pyramid[0].dtype)
    lifted = np.zeros(count, bool)
    for i, corners in enumerate(guesses):
        pitch = float(np.linalg.norm(corners[1] - corners[0])) / n
        level = int(np.clip(np.floor(np.log2(max(pitch, 1.0) / px)), 0, len(pyramid) - 1))
        image = pyramid[level]
        h = grid_homography(np.asarray(corners, np.float64) / 2**level, n)
        warped[i] = _warp(image, h, n, 0, px)
        hb = _raised(h, image.shape, n)
        if hb is not None:
            warped[count + int(lifted.sum())] = _warp(image, hb, n, 0, px)
            lifted[i] = True
    lab = _lab(warped[: count + int(lifted.sum())])
    views, raised = lab[:count], lab[count:]  # raised: those of the lifted guesses, in order
    # The plastic: the median a little inside each cell's corners.
    near = round(0.14 * px)
    k = np.concatenate((np.arange(n) * px + near, np.arange(1, n + 1) * px - near - 1))
    plastic = median(views[:, k][:, :, k].reshape(count, -1, 3), axis=1).astype(np.float32)
    content, ball = _content_many(views, plastic)
    if lifted.any():
        top, top_ball = _content_many(raised, plastic[lifted])
        content[lifted] = content[lifted] * (1.0 - ball[lifted]) + top * top_ball
    # Offsets of each cell's content (the grid's edge left out, as in cell_phases).
    edge = round(EDGE_CLEAR * px)
    half = px // 2
    masked = np.zeros((count, size + 2 * half, size + 2 * half), np.float32)
    masked[:, half + edge : half + size - edge, half + edge : half + size - edge] = content[:, edge:-edge, edge:-edge]
    norm = _waves(px)[2]
    coefs = _window_coefficients(masked, px, n)
    agree = np.ones((count, n * n), bool)
    design = _designs(n)[0]  # its columns 1 and 2: the cells' centres along u and v, from the grid's middle
    for coef, along in ((coefs[0] / norm, 1), (coefs[1] / norm, 0)):
        d = (-np.angle(coef) / (2 * np.pi)).reshape(count, -1)
        w = np.abs(coef).reshape(count, -1)
        w = w / (w + median(w, axis=1)[:, None] + 1e-9)
        x = np.broadcast_to(design[:, 2 - along], d.shape)
        # Weighted least squares of offset on position (a shift and a scale), per guess.
        sw, sx, sxx = w.sum(1) + 1e-3, (w * x).sum(1), (w * x * x).sum(1) + 1e-3
        sd, sxd = (w * d).sum(1), (w * x * d).sum(1)
        det = sw * sxx - sx * sx
        a1 = (sw * sxd - sx * sd) / det
        a0 = (sd - a1 * sx) / sw
        residual = np.abs((d - a0[:, None] - a1[:, None] * x + 0.5) % 1.0 - 0.5)
        agree &= (residual < LOCKED) & (np.abs(coef).reshape(count, -1) > FAINT)
    cos, sin = _scan_waves(n, px)
    strength = np.full(count, np.inf)
    for profile in (content.mean(axis=1), content.mean(axis=2)):
        p = profile - profile.mean(axis=1, keepdims=True)
        # Real products (BLAS) for the complex one: a float32 by complex product takes numpy's slow path.
        pd = p.astype(np.float64)
        amp = np.max(np.hypot(pd @ cos, pd @ sin), axis=1) / p.shape[1] / (p.std(axis=1) + 1e-6)
        strength = np.minimum(strength, amp)
    return np.asarray(agree.mean(axis=1) * np.maximum(strength, 0.0), np.float64)


def _content_many(views: F32, plastic: F32) -> tuple[F32, F32]:
    """:func:`content_map` of a stack of views (no blur: they come from a level of the right scale)."""
    lightness, a, b = (np.ascontiguousarray(c) for c in np.moveaxis(views, -1, 0))  # each channel a plane
    p = plastic.T[:, :, None, None]
    dl, da, db = lightness - p[0], a - p[1], b - p[2]
    content = np.sqrt(_colour_distance_sq(dl, da, db))
    content /= 3.0
    np.log1p(content, out=content)
    shade = lightness / np.maximum(p[0], 1.0)
    return content, _ball_likeness(a, b, dl, shade, p[1], p[2])


@functools.lru_cache(maxsize=16)
def _scan_waves(n: int, px: int) -> tuple[F64, F64]:
    """Waves of 0.88 to 1.12 cycles per cell across the grid, for :func:`survey`: their real and imaginary
    parts (columns: one wave each)."""
    x = (np.arange(n * px) + 0.5) / px - n / 2.0
    waves = np.exp(-2j * np.pi * np.outer(np.linspace(0.88, 1.12, 25), x))
    return np.ascontiguousarray(waves.real.T), np.ascontiguousarray(waves.imag.T)


def ball_share(image: npt.NDArray[Any], corners: F64, n: int, px: int = PX) -> F64:
    """Per cell (rows, columns), how much of its middle looks like a ball (0..1), seen on the plane of the balls'
    centres (when the parallax is worth modelling). ``image`` is BGR or Lab."""
    h = grid_homography(corners, n)
    raised = _raised(h, image.shape, n)
    flat = rectify(image, h, n, pad=0, px=px)
    view = rectify(image, raised, n, pad=0, px=px) if raised is not None else flat
    _, ball = content_map(view, plastic_colour(flat, n, 0, px), px)
    mid = _middle(px)
    share = np.einsum("jyix,yx->ji", ball.reshape(n, px, n, px), mid) / float(mid.sum())
    return np.asarray(share, np.float64)


def ball_colours(image: npt.NDArray[Any], corners: F64, n: int, px: int = PX) -> float:
    """How many-coloured the ball-like things on a grid are: the share of their strongly coloured pixels whose hue
    is far (over 50 degrees) from their mean hue. ``image`` is BGR or Lab.

    Rolit balls wear every colour of the set, so a board shows several hues
    however its balls lie; a printed pattern of dots (a game's box lid, a card)
    shows one. About 0.3 to 0.5 for a board, near 0 for such a pattern.
    """
    h = grid_homography(corners, n)
    raised = _raised(h, image.shape, n)
    view = rectify(image, raised if raised is not None else h, n, pad=0, px=px)
    _, ball = content_map(view, plastic_colour(view, n, 0, px), px)
    # Well inside the ball-like parts (their edges blend with what is round them, in every hue between).
    inside = cv2.erode((ball > 0.9).astype(np.uint8), np.ones((5, 5), np.uint8)) > 0
    a, b = view[..., 1], view[..., 2]
    strong = inside & (np.hypot(a, b) > 12.0)
    if int(strong.sum()) < 20:
        return 0.0
    hue = np.arctan2(b[strong], a[strong])
    mean = np.angle(np.mean(np.exp(1j * hue)))
    return float(np.mean(np.abs(np.angle(np.exp(1j * (hue - mean)))) > np.radians(50)))
