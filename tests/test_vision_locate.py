"""Finding the grid on synthetic renders, with the camera pose for parallax."""

from __future__ import annotations

import numpy as np
import pytest

from rolit.engine import Position
from rolit.vision.locate import Locator, apply_homography, grid_homography, order_corners
from rolit.vision.pose import BALL_TOP_HEIGHT, Pose
from rolit.vision.synthetic.demo import DEMO_PARAMS
from rolit.vision.synthetic.params import RenderParams
from rolit.vision.synthetic.renderer import render


def _error_in_cells(found: np.ndarray, truth: list[tuple[float, float]], n: int) -> float:
    gt = np.asarray(truth, np.float64)
    pitch = np.linalg.norm(gt[0] - gt[1]) / n
    return min(float(np.max(np.linalg.norm(np.roll(found, s, axis=0) - gt, axis=1))) for s in range(4)) / pitch


def test_order_corners_is_clockwise_from_top_left() -> None:
    pts = [[10, 90], [90, 10], [10, 10], [90, 90]]
    assert order_corners(pts).tolist() == [[10, 10], [90, 10], [90, 90], [10, 90]]


@pytest.mark.parametrize("variant", ["quick6", "classic"])
def test_finds_the_demo_camera_board(variant: str) -> None:
    image, truth = render(Position.start(variant).board(), DEMO_PARAMS, variant=variant)
    fit = Locator(truth.board.size).locate(image)
    assert fit is not None
    assert _error_in_cells(fit.corners, truth.corners, truth.board.size) < 0.15
    assert fit.quality > 0.5


@pytest.mark.parametrize(
    "knobs",
    [
        {"elevation": 88.0, "azimuth": 0.0},
        {"elevation": 45.0, "azimuth": 20.0, "k1": -0.02},
        {"elevation": 60.0, "azimuth": 200.0, "board_style": 3, "table_style": 5},
        {"elevation": 70.0, "azimuth": 95.0, "board_style": 0, "table_style": 4, "fill": 0.5},
    ],
)
def test_finds_boards_under_varied_conditions(knobs: dict[str, float]) -> None:
    position = Position.start("classic")
    for move in ("f4", "f3", "e3", "f5", "d6", "c5"):
        position = position.play(position.to_move(move)) if position.is_legal(move) else position
    params = RenderParams(size=(960, 540), scene_seed=11, **knobs)  # type: ignore[arg-type]
    image, truth = render(position.board(), params, variant="classic")
    fit = Locator(8).locate(image)
    assert fit is not None
    assert _error_in_cells(fit.corners, truth.corners, 8) < 0.35


def test_no_board_in_a_plain_picture() -> None:
    rng = np.random.default_rng(0)
    noise = np.clip(rng.normal(120, 25, (360, 640, 3)), 0, 255).astype(np.uint8)
    assert Locator(8).locate(noise) is None


def test_tracking_keeps_the_grid() -> None:
    image, _ = render(Position.start("quick6").board(), DEMO_PARAMS, variant="quick6")
    loc = Locator(6)
    fit = loc.locate(image)
    assert fit is not None
    again = loc.track(image, fit.corners)
    assert again is not None and float(np.max(np.abs(again.corners - fit.corners))) < 3.0


def test_pose_puts_ball_tops_where_the_renderer_does() -> None:
    params = RenderParams(size=(1280, 720), elevation=40.0, k1=0.0, k2=0.0, scene_seed=3)
    board = Position.start("classic").board()
    _, truth = render(board, params, variant="classic")
    h = grid_homography(truth.corners, 8)
    pose = Pose.from_homography(h, (1280, 720))
    gt = np.asarray(truth.corners)
    pitch = np.linalg.norm(gt[0] - gt[1]) / 8
    for sq, (x, y) in truth.ball_tops.items():
        row, col = divmod(sq, 8)
        top = pose.project([[col + 0.5, row + 0.5, BALL_TOP_HEIGHT]])[0]
        on_plane = apply_homography(h, [[col + 0.5, row + 0.5]])[0]
        assert np.linalg.norm(top - [x, y]) < 0.08 * pitch  # parallax modelled
        assert np.linalg.norm(on_plane - [x, y]) > 0.3 * pitch  # and it matters at 40 degrees
