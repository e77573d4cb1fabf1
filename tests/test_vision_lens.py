"""The radial lens (rolit.vision.lens): points moved both ways, pictures straightened, against the renderer's lens."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from rolit.engine import Position
from rolit.vision.lens import Lens
from rolit.vision.synthetic.renderer import render

from helpers import renderer_lens, unseen_scene


@pytest.mark.parametrize("k", [-0.3, -0.12, 0.0, 0.06])
def test_points_go_to_the_straightened_picture_and_back(k: float) -> None:
    lens = Lens(k, (1280, 720))
    rng = np.random.default_rng(3)
    # Within what a barrel of -0.3 shows at all (it folds the picture's corners back).
    points = rng.uniform((250, 100), (1030, 620), (200, 2))
    assert np.abs(lens.to_picture(lens.to_straight(points)) - points).max() < 1e-6
    assert np.abs(lens.to_straight(lens.to_picture(points)) - points).max() < 1e-6


def test_a_barrel_pulls_points_towards_the_middle_and_leaves_the_middle_where_it_is() -> None:
    lens = Lens(-0.2, (1280, 720))
    middle = [[639.5, 359.5]]
    assert np.allclose(lens.to_picture(middle), middle)
    near, far = lens.to_picture([[1000.0, 359.5], [1200.0, 359.5]])
    assert 639.5 < near[0] < 1000.0 and near[0] < far[0] < 1200.0
    assert np.allclose([near[1], far[1]], 359.5)


@pytest.mark.parametrize("k", [3025, 3045])
def test_the_renderers_lens_straightened_puts_the_cups_on_one_homography(k: int) -> None:
    # A grid is a homography only in a picture without the lens: through the true cups of a start position seen
    # through a strong lens the best one lies a tenth of a cell or more off some cup; straightened, hundredths.
    variant, _, params = unseen_scene(k)
    _, truth = render(Position.start(variant).board(), params, variant=variant)
    n = truth.board.size
    squares = sorted(truth.cells)
    grid = np.array([(sq % 8 + 0.5, sq // 8 + 0.5) for sq in squares], np.float64)
    cups = np.array([truth.cells[sq] for sq in squares], np.float64)

    def worst(points: np.ndarray) -> float:
        fit, _ = cv2.findHomography(points, grid, 0)
        seen = cv2.perspectiveTransform(points.reshape(-1, 1, 2), fit).reshape(-1, 2)
        return float(np.abs(seen - grid).max())

    lens = Lens(renderer_lens(params), params.size)
    assert n >= 6 and worst(cups) > 0.08
    assert worst(lens.to_straight(cups)) < 0.02


def test_a_picture_is_straightened_where_its_points_go() -> None:
    lens = Lens(-0.25, (640, 360))
    dots = [(100.0, 80.0), (560.0, 300.0), (320.0, 180.0), (40.0, 320.0)]
    picture = np.zeros((360, 640, 3), np.uint8)
    for x, y in lens.to_picture(dots):
        cv2.circle(picture, (round(x * 16), round(y * 16)), 5 * 16, (255, 255, 255), -1, cv2.LINE_AA, shift=4)
    straight = cv2.cvtColor(lens.straighten(picture), cv2.COLOR_BGR2GRAY).astype(np.float64)
    for x, y in dots:
        x0, y0 = round(x) - 12, round(y) - 12
        patch = straight[y0 : y0 + 25, x0 : x0 + 25]
        ys, xs = np.mgrid[0:25, 0:25]
        centre = ((xs * patch).sum() / patch.sum() + x0, (ys * patch).sum() / patch.sum() + y0)
        assert np.hypot(centre[0] - x, centre[1] - y) < 0.5


def test_no_lens_leaves_the_picture_alone_and_a_lens_is_for_one_picture_size() -> None:
    picture = np.zeros((360, 640, 3), np.uint8)
    assert Lens(0.0, (640, 360)).straighten(picture) is picture
    with pytest.raises(ValueError, match="640x360 pictures, not 1280x720"):
        Lens(-0.1, (640, 360)).straighten(np.zeros((720, 1280, 3), np.uint8))


@pytest.mark.parametrize("box", [(100, 50, 500, 300), (-40, -10, 200, 400), (600, 300, 900, 500), (300, 200, 300, 250)])
def test_a_box_is_straightened_as_the_whole_picture_is_and_the_rest_left_black(box: tuple[int, int, int, int]) -> None:
    picture = np.random.default_rng(5).integers(0, 256, (360, 640, 3), np.uint8)
    lens = Lens(-0.2, (640, 360))
    whole, part = lens.straighten(picture), lens.straighten(picture, box)
    x0, y0, x1, y1 = max(0, box[0]), max(0, box[1]), min(640, box[2]), min(360, box[3])
    inside = np.zeros((360, 640), bool)
    inside[y0:y1, x0:x1] = True
    assert part.shape == picture.shape
    assert np.array_equal(part[inside], whole[inside])
    assert not part[~inside].any()
