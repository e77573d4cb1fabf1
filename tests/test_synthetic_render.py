"""Renders: the ground truth agrees with the pixels, seeds repeat, every condition is reachable."""

from __future__ import annotations

import dataclasses

import cv2
import numpy as np
import pytest

from rolit.engine import BLUE, GREEN, GREY, RED, YELLOW, Board, Colour, Position
from rolit.vision.errors import RenderError
from rolit.vision.synthetic import RANGES, Hand, Renderer, RenderParams, render
from rolit.vision.synthetic.params import BOARD_STYLES

# OpenCV hue (0-180) of each ball colour.
HUES = {RED: 0.0, YELLOW: 26.0, GREEN: 65.0, BLUE: 115.0}

MIDGAME = Board.from_text(
    """
    ........
    ..YRB...
    .GRRYB..
    ..GRGYY.
    ..BBGRR.
    ...YG...
    ........
    ........
    """
)


def _hsv_at(image: np.ndarray, p: tuple[float, float]) -> tuple[float, float, float]:
    hsv = cv2.cvtColor(image, cv2.COLOR_BGR2HSV).astype(np.float32)
    x, y = round(p[0]), round(p[1])
    patch = hsv[max(0, y - 1) : y + 2, max(0, x - 1) : x + 2].reshape(-1, 3)
    # Hue is circular: take the median of the angle through its vector mean.
    ang = patch[:, 0] * np.pi / 90.0
    hue = (np.degrees(np.arctan2(np.sin(ang).mean(), np.cos(ang).mean())) / 2.0) % 180.0
    return float(hue), float(np.median(patch[:, 1])), float(np.median(patch[:, 2]))


def _hue_colour(hue: float) -> Colour:
    return min(HUES, key=lambda c: min(abs(hue - HUES[c]), 180 - abs(hue - HUES[c])))


def _clean(**kw: object) -> RenderParams:
    base = RenderParams(size=(640, 480), noise=0.0, jpeg_quality=None, defocus=0.0, motion_blur=0.0)
    return dataclasses.replace(base, **kw)  # type: ignore[arg-type]


@pytest.mark.parametrize("seed", range(8))
def test_ball_tops_show_the_ball_colour(seed: int) -> None:
    # Ordinary conditions (the extremes are checked to render, below): light blur, decent balance.
    params = RenderParams.random(np.random.default_rng(seed), size=(640, 480), fill=0.9, white_balance=0.8)
    params = dataclasses.replace(params, defocus=min(params.defocus, 1.0), motion_blur=0.0)
    image, truth = render(MIDGAME, params)
    assert set(truth.ball_tops) == {sq for sq, c in MIDGAME.items() if c is not None}
    wrong = []
    for sq, p in truth.ball_tops.items():
        hue, sat, _ = _hsv_at(image, p)
        if _hue_colour(hue) != MIDGAME[sq] or sat < 30:
            wrong.append((sq, hue, sat))
    assert not wrong, wrong


def test_ball_tops_sit_on_the_balls_that_appear() -> None:
    # Take one ball away: the pixels that change are that ball, around its ground-truth top.
    for elevation in (30.0, 55.0, 90.0):
        params = _clean(elevation=elevation, azimuth=25.0, fill=0.8, k1=-0.2)
        r = Renderer("classic", params)
        with_ball, truth = r.frame(MIDGAME)
        sq = 27  # d4
        without, _ = r.frame(MIDGAME.replace({sq: None}))
        diff = np.abs(with_ball.astype(int) - without.astype(int)).sum(axis=2) > 60
        ys, xs = np.nonzero(diff)
        top = np.array(truth.ball_tops[sq])
        radius = truth.ball_radii[sq]
        # The top is inside the changed blob, within a radius of its middle, and the blob is ball-sized.
        assert diff[round(top[1]), round(top[0])]
        assert np.hypot(xs.mean() - top[0], ys.mean() - top[1]) < radius
        assert 0.6 < np.sqrt(diff.sum() / np.pi) / radius < 1.6


def test_parallax_moves_ball_tops_away_from_cell_centres_in_oblique_views() -> None:
    _, straight = render(MIDGAME, _clean(elevation=90.0, k1=0.0))
    _, oblique = render(MIDGAME, _clean(elevation=35.0, k1=0.0))
    shift = lambda t, sq: np.subtract(t.ball_tops[sq], t.cells[sq])  # noqa: E731
    assert np.hypot(*shift(straight, 27)) < 0.25 * straight.ball_radii[27]
    assert np.hypot(*shift(oblique, 27)) > 0.5 * oblique.ball_radii[27]


@pytest.mark.parametrize("elevation,k1", [(90.0, 0.0), (45.0, -0.25), (60.0, 0.08)])
def test_corners_lie_on_the_grid_outline(elevation: float, k1: float) -> None:
    # The white board has dark grid lines: the ground-truth corner is on the
    # line, darker than the plastic just inside the corner cell.
    params = _clean(elevation=elevation, k1=k1, board_style=1, fill=0.9, size=(1280, 720), vignetting=0.0)
    image, truth = render(Board.empty(8), params)
    grey = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY).astype(float)
    cells = truth.cells
    for corner, sq in zip(truth.corners, (0, 7, 63, 56), strict=False):
        x, y = corner
        on_line = grey[round(y), round(x)]
        # Between the corner and the corner cell's centre, off the cup.
        inside = np.add(np.multiply(corner, 0.85), np.multiply(cells[sq], 0.15))
        plastic = grey[round(inside[1]), round(inside[0])]
        assert on_line < plastic - 12, (corner, on_line, plastic)


def test_empty_cells_show_the_board_not_a_ball() -> None:
    image, truth = render(MIDGAME, _clean(board_style=1, elevation=80.0, fill=0.85))
    for sq, cell in MIDGAME.items():
        if cell is None:
            _, sat, _ = _hsv_at(image, truth.cells[sq])
            assert sat < 50, sq  # white plastic, not a coloured ball


def test_junior_grey_balls_are_grey() -> None:
    board = Position.start("junior").board()
    image, truth = render(board, _clean(fill=0.8))
    for sq, p in truth.ball_tops.items():
        hue, sat, _ = _hsv_at(image, p)
        if board[sq] is GREY:
            assert sat < 60
        else:
            assert _hue_colour(hue) == board[sq] and sat >= 60


def test_same_seed_same_image_and_other_seed_other_image() -> None:
    board = Position.start("quick6").board()
    a, ta = render(board, seed=11)
    b, tb = render(board, seed=11)
    c, _ = render(board, seed=12)
    assert np.array_equal(a, b) and ta.corners == tb.corners
    assert a.shape != c.shape or not np.array_equal(a, c)


def test_every_condition_range_is_reached() -> None:
    rng = np.random.default_rng(0)
    drawn = [RenderParams.random(rng) for _ in range(400)]
    for name, (lo, hi) in RANGES.items():
        if name == "k1":
            values = [p.k1 for p in drawn]
        elif name == "kelvin":
            values = [light.kelvin for p in drawn for light in p.lights]
        elif name == "lights":
            values = [len(p.lights) for p in drawn]
        else:
            values = [float(getattr(p, name)) for p in drawn if getattr(p, name) is not None]
        span = hi - lo
        assert lo - 1e-9 <= min(values) and max(values) <= hi + 1e-9, name
        assert min(values) < lo + 0.1 * span and max(values) > hi - 0.1 * span, name
    sizes = {p.size for p in drawn}
    assert (640, 480) in sizes and (1920, 1080) in sizes
    assert {p.board_style for p in drawn} == set(range(len(BOARD_STYLES)))
    assert any(p.jpeg_quality is None for p in drawn)


@pytest.mark.parametrize(
    "overrides",
    [
        {"size": (1920, 1080), "elevation": 30.0, "fill": 0.95, "k1": -0.28},
        {"size": (640, 480), "elevation": 90.0, "fill": 0.30, "light_level": 0.12, "noise": 0.03},
        {"size": (640, 480), "defocus": 2.5, "motion_blur": 9.0, "jpeg_quality": 30, "vignetting": 0.55},
    ],
)
def test_extreme_conditions_render_with_the_board_in_frame(overrides: dict[str, object]) -> None:
    params = RenderParams.random(np.random.default_rng(3), **overrides)  # type: ignore[arg-type]
    image, truth = render(MIDGAME, params)
    h, w = image.shape[:2]
    assert (w, h) == params.size
    assert all(0 <= x < w and 0 <= y < h for x, y in truth.corners)
    assert image.std() > 5  # not blank


def test_a_hand_hides_exactly_the_cells_its_pixels_cover() -> None:
    board = Board.from_text("\n".join(["BBBBBBBB"] * 8))
    params = _clean(elevation=70.0, fill=0.85)
    r = Renderer("classic", params)
    hand = Hand(target=r.geometry.cell_centre(27), height=30.0, approach=20.0, sleeve=None)
    image, truth = r.frame(board, hand=hand)
    assert 3 <= len(truth.hidden) < 40
    assert 27 in truth.hidden
    for sq, top in truth.ball_tops.items():
        hue, _sat, _ = _hsv_at(image, top)
        if truth.coverage.get(sq, 0.0) == 0.0:
            assert _hue_colour(hue) is BLUE, sq
        elif truth.coverage[sq] >= 0.95:
            assert _hue_colour(hue) is not BLUE, sq  # skin, not ball


def test_bad_boards_and_sizes_are_refused() -> None:
    with pytest.raises(RenderError):
        render(MIDGAME.replace({0: next(iter([None]))}).replace({0: Board.from_text("?...\n....\n....\n....")[0]}))
    with pytest.raises(RenderError):
        Renderer("classic", RenderParams(size=(100, 50)))
    with pytest.raises(RenderError):
        Renderer("quick6", RenderParams(size=(320, 240))).frame(MIDGAME)
