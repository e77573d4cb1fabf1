"""The start position's picture a profile keeps: read as the reader reads a frame, and refused when damaged."""

from __future__ import annotations

import numpy as np
import pytest

from rolit.calibration.picture import StartPicture
from rolit.engine import Position
from rolit.vision.features import features_from_lab, sample_cells
from rolit.vision.lattice import shifted
from rolit.vision.locate import grid_homography
from rolit.vision.synthetic.renderer import render

from helpers import unseen_scene


@pytest.fixture(scope="module")
def start() -> tuple[np.ndarray, np.ndarray]:
    # Development scene 399: a board seen from 36 degrees, whose far balls stand out over the cells behind them.
    variant, _, params = unseen_scene(399)
    image, truth = render(Position.start(variant).board(), params, variant=variant)
    return image, np.asarray(truth.corners, np.float64)


def _read(image: np.ndarray, corners: np.ndarray) -> np.ndarray:
    return features_from_lab(sample_cells(image, grid_homography(corners, 8), 8))


def test_the_picture_reads_as_the_whole_frame_on_grids_up_to_a_cell_and_a_half_away(start: tuple) -> None:
    image, corners = start
    picture = StartPicture.take(image, corners, 8)
    assert picture.pixels.size < image.size / 2 and picture.frame == image.shape[:2]
    for du, dv in [(0, 0), (1.2, 0), (0, -1.2), (-1, 1), (0.3, 0.2)]:
        moved = shifted(corners, 8, du, dv)
        assert picture.holds(moved, 8)
        assert np.array_equal(picture.features_on(moved, 8), _read(image, moved))
    far = shifted(corners, 8, 3, 0)
    assert not picture.holds(far, 8)
    assert not np.array_equal(picture.features_on(far, 8), _read(image, far))


def test_a_grid_at_the_frames_edge_is_held_as_the_frame_reads_it() -> None:
    # Beyond the frame the readings take the edge's pixels; the picture reaches the edge, so holds them too.
    image = np.random.default_rng(3).integers(0, 255, (200, 300, 3), dtype=np.uint8)
    corners = np.array([[-20.0, 10.0], [150.0, 10.0], [150.0, 180.0], [-20.0, 180.0]])
    picture = StartPicture.take(image, corners, 8)
    assert picture.origin[0] == 0 and picture.holds(corners, 8)
    assert np.array_equal(picture.features_on(corners, 8), _read(image, corners))


def test_a_grid_off_the_picture_is_refused() -> None:
    image = np.zeros((100, 100, 3), np.uint8)
    with pytest.raises(ValueError, match="not in the picture"):
        StartPicture.take(image, [[500, 500], [600, 500], [600, 600], [500, 600]], 6)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"origin": [-1, 0]}, "not inside its frame"),
        ({"frame": [10, 10]}, "not inside its frame"),
        ({"origin": "x"}, "needs an origin"),
        ({"frame": [1, 2, 3]}, "needs an origin"),
        ({"webp": ""}, "not a WebP"),
    ],
)
def test_damaged_pictures_are_refused(change: dict, message: str) -> None:
    image = np.random.default_rng(4).integers(0, 255, (120, 160, 3), dtype=np.uint8)
    data = StartPicture.take(image, [[40, 30], [120, 30], [120, 90], [40, 90]], 6).to_json()
    with pytest.raises(ValueError, match=message):
        StartPicture.from_json({**data, **change})
