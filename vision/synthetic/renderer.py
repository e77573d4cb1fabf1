"""Photo-like renders of a board position, with exact ground truth.

>>> from rolit.engine import Position
>>> board = Position.start("quick6").board()
>>> image, truth = render(board, RenderParams(size=(320, 240), scene_seed=3))
>>> image.shape, truth.board == board, len(truth.ball_tops)
((240, 320, 3), True, 4)
"""

from __future__ import annotations

import dataclasses
import logging
import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt

from rolit.engine import Board, Colour, Square, Variant, get_variant, square_name

from ..errors import RenderError
from .balls import Ball, render_balls
from .camera import Camera
from .geometry import BoardGeometry
from .hand import Hand, HandLayers, draw_hand, held_ball_centre
from .lighting import Lighting
from .params import RenderParams
from .post import Optics, auto_gain, develop, white_balance
from .scene import Scene, ball_for, render_planes

__all__ = ["GroundTruth", "Renderer", "place_camera", "render", "variant_for_board"]

log = logging.getLogger(__name__)

F32 = npt.NDArray[Any]  # float32 arrays; numpy and OpenCV stubs widen dtypes freely
U8 = npt.NDArray[np.uint8]
Point = tuple[float, float]

MIN_SIZE, MAX_SIZE = (160, 120), (3840, 2160)


@dataclass(frozen=True)
class GroundTruth:
    """What a render shows, exactly.

    Image positions are pixels of the delivered (distorted, shaken) image.
    ``corners`` are the grid's outer corners beside a1, beside the last column
    of row 1, then clockwise (with the camera on the default side: top-left,
    top-right, bottom-right, bottom-left). ``cells`` are the centres of every
    cup on the board's surface; ``ball_tops`` where the top of each ball
    appears (parallax included), ``ball_radii`` the balls' apparent radii.
    ``hidden`` are the squares a hand covers (``coverage`` is how much of each
    square's ball-sized disc it covers, for the squares it touches).
    """

    board: Board
    variant: str
    size: tuple[int, int]
    corners: tuple[Point, Point, Point, Point]
    cells: dict[Square, Point]
    ball_tops: dict[Square, Point]
    ball_radii: dict[Square, float]
    camera: Camera
    params: RenderParams
    hidden: frozenset[Square] = frozenset()
    coverage: dict[Square, float] = field(default_factory=dict)
    shake: tuple[tuple[float, float, float], tuple[float, float, float]] | None = None

    def to_json(self) -> dict[str, Any]:
        """JSON-ready form; squares are named (``"d4"``)."""

        def pt(p: Point) -> list[float]:
            return [round(p[0], 2), round(p[1], 2)]

        return {
            "n": self.board.size,
            "variant": self.variant,
            "rows": self.board.text().splitlines(),
            "size": list(self.size),
            "corners": [pt(c) for c in self.corners],
            "cells": {square_name(sq): pt(p) for sq, p in self.cells.items()},
            "ball_tops": {square_name(sq): pt(p) for sq, p in self.ball_tops.items()},
            "ball_radii": {square_name(sq): round(r, 2) for sq, r in self.ball_radii.items()},
            "hidden": sorted(square_name(sq) for sq in self.hidden),
            "coverage": {square_name(sq): round(c, 3) for sq, c in sorted(self.coverage.items())},
            "camera": self.camera.to_json(),
            "shake": [list(row) for row in self.shake] if self.shake else None,
            "params": self.params.to_json(),
        }


def variant_for_board(board: Board, variant: str | Variant | None = None) -> Variant:
    """The edition to draw ``board`` as: the one given, else the one its size and colours suggest."""
    if variant is not None:
        v = get_variant(variant)
        board.check_variant(v)
        return v
    if board.size == 8:
        return get_variant("classic")
    if board.size == 4:
        return get_variant("quick4")
    return get_variant("junior" if Colour.GREY in board.colours() else "quick6")


def place_camera(geo: BoardGeometry, params: RenderParams) -> Camera:
    """A camera at ``params``' angle and lens, at the distance where the board fills ``params.fill``."""
    w, h = params.size
    corners = geo.board_corners(0.0) + geo.board_corners(-geo.thickness)
    target = np.zeros(3)
    dist = 2.2 * geo.half_board / params.fill / math.tan(math.radians(params.hfov) / 2)
    cam = None
    # Fit without distortion first (always well behaved), then refine with it.
    for i in range(16):
        distort = i >= 10
        cam = Camera.look_at(
            params.size,
            elevation=params.elevation,
            azimuth=params.azimuth,
            distance=dist,
            hfov=params.hfov,
            roll=params.roll,
            target=(float(target[0]), float(target[1]), 0.0),
            dist=(params.k1, params.k2),
        )
        pts = cam.project(corners, distort=distort)
        lo, hi = pts.min(axis=0), pts.max(axis=0)
        bw, bh = hi - lo
        fill = max(bw / w, bh / h)
        if not np.isfinite(fill) or fill > 3:
            break
        dist *= float(np.clip(fill / params.fill, 0.7, 1.4))
        # Put the board's middle where asked: centred, or shifted into the free margin.
        want = np.array(
            [
                (w - 1) / 2 + params.offset[0] * max(0.0, w - bw) * 0.3,
                (h - 1) / 2 + params.offset[1] * max(0.0, h - bh) * 0.3,
            ]
        )
        hinv = np.linalg.inv(cam.homography(0.0))

        def on_plane(p: npt.NDArray[Any], hinv: npt.NDArray[Any] = hinv) -> npt.NDArray[np.float64]:
            q = hinv @ np.array([p[0], p[1], 1.0])
            result: npt.NDArray[np.float64] = q[:2] / q[2]
            return result

        # Damped and bounded: near the horizon the plane's map is steep.
        step = 0.6 * (on_plane((lo + hi) / 2) - on_plane(want))
        norm = float(np.hypot(*step))
        if norm > geo.half_board:
            step *= geo.half_board / norm
        target[:2] += step
    assert cam is not None
    return cam


def _project_truth(
    cam: Camera, geo: BoardGeometry, shake: npt.NDArray[np.float64] | None, points: list[tuple[float, float, float]]
) -> npt.NDArray[np.float64]:
    p = cam.project(points)
    if shake is not None:
        p = p @ shake[:, :2].T + shake[:, 2]
    return p


class Renderer:
    """Renders positions of one scene through one camera; caches what does not change.

    A clip renders many frames of the same scene: the table, board and balls
    are shaded once per position and only the hand and the camera's own
    effects are redone per frame.
    """

    def __init__(self, variant: str | Variant, params: RenderParams) -> None:
        w, h = params.size
        if not (MIN_SIZE[0] <= w <= MAX_SIZE[0] and MIN_SIZE[1] <= h <= MAX_SIZE[1]):
            raise RenderError(
                f"image size {w}x{h} is outside {MIN_SIZE[0]}x{MIN_SIZE[1]} to {MAX_SIZE[0]}x{MAX_SIZE[1]}"
            )
        self.variant = get_variant(variant)
        self.params = params
        self.scene = Scene.build(self.variant, params)
        self.geometry = self.scene.geometry
        self.camera = place_camera(self.geometry, params)
        left, top, cw, ch = self.camera.canvas_for_distortion()
        self.offset = (left, top)
        self.canvas = self.camera.with_canvas(left, top, cw, ch)
        self.lighting = Lighting.from_params(params)
        self.wb = white_balance(self.lighting.cast(), params.white_balance)
        self._cache: tuple[Board, F32] | None = None
        self._gain: float | None = None

    def balls(self, board: Board) -> list[Ball]:
        """The balls on ``board``: each square's ball keeps its own random axis while it stays put."""
        out = []
        for sq, cell in board.items():
            if isinstance(cell, Colour):
                rng = np.random.default_rng([self.params.scene_seed, sq, int(cell)])
                out.append(
                    ball_for(
                        self.scene.palette,
                        self.variant,
                        cell,
                        self.geometry.ball_centre(sq),
                        self.geometry,
                        rng,
                        gloss=self.params.ball_gloss,
                    )
                )
        return out

    def linear(self, board: Board) -> F32:
        """The scene with ``board``'s balls, in linear light on the canvas (cached for the last board)."""
        if self._cache is not None and self._cache[0] == board:
            return self._cache[1]
        balls = self.balls(board)
        image, _ = render_planes(self.scene, self.canvas, self.lighting, balls)
        render_balls(image, self.canvas, [*balls, *self.scene.spare_balls], self.lighting)
        self._cache = (board, image)
        return image

    def frame(
        self,
        board: Board,
        *,
        hand: Hand | None = None,
        rng: np.random.Generator | None = None,
        light_scale: float = 1.0,
        exposure: float | None = None,
        shake: npt.NDArray[np.float64] | None = None,
    ) -> tuple[U8, GroundTruth]:
        """One delivered image of ``board`` and its ground truth.

        ``light_scale`` dims or brightens the lamps (flicker); ``exposure``
        overrides the auto-exposure gain; ``shake`` is a 2x3 affine map
        applied to the image (and the ground truth).
        """
        if board.size != self.variant.size:
            raise RenderError(
                f"{self.variant.name} is played on {self.variant.size}x{self.variant.size}, "
                f"this board is {board.size}x{board.size}"
            )
        if not board.is_complete:
            raise RenderError("a board to render cannot have unknown (?) cells")
        rng = rng if rng is not None else np.random.default_rng(self.params.scene_seed)
        image = self.linear(board)
        layers: HandLayers | None = None
        if hand is not None or light_scale != 1.0:
            image = image * np.float32(light_scale)
        if hand is not None:
            layers = draw_hand(hand, self.canvas, self.lighting)
            direct = float(np.sum(self.lighting.colours[0]))
            total = (
                direct + float(np.sum(self.lighting.ambient)) + sum(float(np.sum(c)) for c in self.lighting.colours[1:])
            )
            image = image * (1.0 - 0.85 * (direct / total) * layers.shadow)[..., None]
            if hand.holding is not None:
                held = ball_for(
                    self.scene.palette,
                    self.variant,
                    hand.holding,
                    held_ball_centre(hand, self.geometry.ball_radius),
                    self.geometry,
                    np.random.default_rng(7),
                    floor=-1e9,
                    gloss=self.params.ball_gloss,
                )
                render_balls(image, self.canvas, [held], self.lighting)
            image = image + (layers.colour * np.float32(light_scale) - image) * layers.alpha[..., None]
        gain = exposure if exposure is not None else auto_gain(image, self.params)
        optics = Optics(gain, self.wb, shake)
        out = develop(image, self.camera, self.offset, self.params, optics, rng)
        return out, self.truth(board, layers, shake)

    def truth(
        self, board: Board, layers: HandLayers | None = None, shake: npt.NDArray[np.float64] | None = None
    ) -> GroundTruth:
        """Ground truth of ``board`` seen by this renderer (with a hand's ``layers``, if any)."""
        geo, cam = self.geometry, self.camera
        squares = list(board.squares)
        corners = _project_truth(cam, geo, shake, list(geo.grid_corners()))
        cells = _project_truth(cam, geo, shake, [(*geo.cell_centre(sq), 0.0) for sq in squares])
        tops = _project_truth(cam, geo, shake, [geo.ball_top(sq) for sq in squares])
        # Apparent radius: the ball's centre against a point one radius across, seen square-on.
        centres = np.array([geo.ball_centre(sq) for sq in squares])
        radii = geo.ball_radius * cam.fx / cam.depth(centres)
        occupied = {sq for sq, cell in board.items() if isinstance(cell, Colour)}
        coverage: dict[Square, float] = {}
        if layers is not None:
            coverage = self._coverage(layers.alpha, squares)
        return GroundTruth(
            board=board,
            variant=self.variant.name,
            size=self.params.size,
            corners=tuple((float(x), float(y)) for x, y in corners),  # type: ignore[arg-type]
            cells={sq: (float(p[0]), float(p[1])) for sq, p in zip(squares, cells, strict=False)},
            ball_tops={sq: (float(p[0]), float(p[1])) for sq, p in zip(squares, tops, strict=False) if sq in occupied},
            ball_radii={sq: float(r) for sq, r in zip(squares, radii, strict=False) if sq in occupied},
            camera=cam,
            params=self.params,
            hidden=frozenset(sq for sq, c in coverage.items() if c >= HIDDEN_COVERAGE),
            coverage=coverage,
            shake=tuple(tuple(float(v) for v in row) for row in shake) if shake is not None else None,  # type: ignore[arg-type]
        )

    def _coverage(self, alpha: F32, squares: list[Square]) -> dict[Square, float]:
        """How much of each square's ball-sized disc (at ball height) the hand covers, on the canvas."""
        geo = self.geometry
        # Sample a disc of points on the ball's silhouette-facing circle and its top.
        angles = np.linspace(0, 2 * math.pi, 12, endpoint=False)
        out: dict[Square, float] = {}
        h, w = alpha.shape
        for sq in squares:
            cx, cy, cz = geo.ball_centre(sq)
            pts = [(cx, cy, cz + geo.ball_radius)]
            for rr in (0.45, 0.9):
                pts += [
                    (cx + rr * geo.ball_radius * math.cos(a), cy + rr * geo.ball_radius * math.sin(a), cz)
                    for a in angles
                ]
            pix = self.canvas.project(pts, distort=False)
            xi = np.clip(np.round(pix[:, 0]).astype(int), 0, w - 1)
            yi = np.clip(np.round(pix[:, 1]).astype(int), 0, h - 1)
            c = float(np.mean(alpha[yi, xi] > 0.5))
            if c > 0:
                out[sq] = c
        return out


# A square counts as hidden when a hand covers at least this much of its ball.
HIDDEN_COVERAGE = 0.04


def render(
    board: Board,
    params: RenderParams | None = None,
    *,
    variant: str | Variant | None = None,
    hand: Hand | None = None,
    seed: int | None = None,
) -> tuple[U8, GroundTruth]:
    """A photo-like BGR image of ``board`` and its ground truth.

    Without ``params`` the conditions are drawn at random from ``seed``.
    """
    v = variant_for_board(board, variant)
    if params is None:
        params = RenderParams.random(np.random.default_rng(seed))
    renderer = Renderer(v, params)
    return renderer.frame(board, hand=hand, rng=np.random.default_rng([params.scene_seed, 1]))


def replace_params(params: RenderParams, **changes: Any) -> RenderParams:
    """``params`` with some knobs changed."""
    return dataclasses.replace(params, **changes)
