"""The balls' highlights: a grid moved onto them (``balls.on_highlights``)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from rolit.vision import balls
from rolit.vision.synthetic.renderer import render

from helpers import grids_apart, start_scene, unseen_scene


def _game_frame(k: int) -> tuple[Any, np.ndarray, int]:
    """Development scene ``k``'s game position (no hand): the picture, the true grid's corners and the board's size."""
    variant, board, params = unseen_scene(k)
    image, truth = render(board, params, variant=variant)
    return image, np.asarray(truth.corners, np.float64), board.size


def _scaled(corners: np.ndarray, by: float) -> np.ndarray:
    centre = corners.mean(axis=0)
    return centre + (corners - centre) * by


@pytest.mark.parametrize(("k", "by"), [(142, 0.95), (196, 1.05)])
def test_a_grid_out_in_scale_moves_onto_a_game_positions_highlights(k: int, by: float) -> None:
    # Scene 142 (a teal board, 47 degrees up, 38 balls lit) and 196 (Junior, 36 degrees): the true grid made 5%
    # larger or smaller about its centre lies 0.18-0.22 cells out; the highlights' homography puts it within 0.1.
    image, truth, n = _game_frame(k)
    start = _scaled(truth, by)
    assert grids_apart(start, truth, n) > 0.15
    moved = balls.on_highlights(image, start, n)
    assert moved is not None
    corners, used = moved
    assert used >= balls.ON_HIGHLIGHTS_LEAST
    assert grids_apart(corners, truth, n) < 0.1


def test_the_true_grid_stays_near_where_it_was() -> None:
    image, truth, n = _game_frame(142)
    moved = balls.on_highlights(image, truth, n)
    assert moved is not None
    assert grids_apart(moved[0], truth, n) < 0.1


def test_too_few_highlights_move_nothing() -> None:
    # The start position's four balls, and a picture with no balls at all.
    image, truth, n = start_scene(142)
    assert balls.on_highlights(image, np.asarray(truth), n) is None
    blank = np.full_like(image, 128)
    assert balls.on_highlights(blank, np.asarray(truth), n) is None
