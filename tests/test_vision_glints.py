"""Where a ball's glint would stand tells an empty cup from a ball (rolit.vision.glints)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from rolit.calibration.bench import _truth_cells, draw_scene
from rolit.vision import glints as glints_module
from rolit.vision.glints import glints, seen_on_balls_behind
from rolit.vision.lattice import grid_homography
from rolit.vision.synthetic.renderer import render


def _game_frame(k: int) -> tuple[Any, Any, int, Any]:
    """Scene ``k``'s game frame, its true grid's homography, the board's size, and which image cells hold a ball."""
    variant, board, params, _, _ = draw_scene(k)
    image, truth = render(board, params, variant=variant)
    n = board.size
    corners = np.asarray(truth.corners, np.float64)
    under = _truth_cells(corners, truth, n)
    balls = np.array([sq >= 0 and truth.board[sq] is not None for sq in under])
    return image, grid_homography(corners, n), n, balls


@pytest.mark.parametrize(
    "k",
    [
        297,  # a green board from 38 degrees up, two lamps
        10,  # a board from nearly straight down, one lamp
    ],
)
def test_the_lamp_found_on_the_balls_puts_their_glints_on_them_and_none_on_the_cups(k: int) -> None:
    image, homography, n, balls = _game_frame(k)
    found = glints(image, homography, n, balls, np.ones(n * n, bool))
    assert found is not None
    # Each ball shows its glint where the lamp puts it; no empty cup shows one there.
    assert found.one_there()[balls].mean() >= 0.9
    assert not found.one_there()[~balls].any()
    # And over most empty cups the brightest spot lies well away from there (the ball behind's, or none).
    assert found.none_there()[~balls].mean() >= 0.65
    assert not found.none_there()[balls].any()


def test_the_glint_on_a_yellow_ball_is_seen_in_the_least_channel() -> None:
    # Scene 3223, 38 degrees up: on a yellow ball the lamp hardly brightens the grey level (yellow is nearly as
    # bright), but it does its least channel, blue.
    image, homography, n, balls = _game_frame(3223)
    found = glints(image, homography, n, balls, np.ones(n * n, bool), least=True)
    assert found is not None
    assert found.one_there()[balls].mean() >= 0.9
    assert not found.none_there()[balls].any()
    # On the grey level, none of its 6 yellow balls shows a glint where the lamp puts it.
    grey = glints(image, homography, n, balls, np.ones(n * n, bool))
    assert grey is not None and grey.none_there()[balls].sum() >= 6


def test_a_lamp_turned_round_puts_the_glints_off_the_balls(monkeypatch: pytest.MonkeyPatch) -> None:
    image, homography, n, balls = _game_frame(297)
    lamp = glints_module._lamp
    monkeypatch.setattr(glints_module, "_lamp", lambda *a: None if (d := lamp(*a)) is None else -d)
    found = glints(image, homography, n, balls, np.ones(n * n, bool))
    assert found is not None and found.one_there()[balls].mean() < 0.2


def test_only_the_cells_asked_for_are_measured() -> None:
    image, homography, n, balls = _game_frame(297)
    cells = np.zeros(n * n, bool)
    cells[np.flatnonzero(~balls)[:3]] = True
    found = glints(image, homography, n, balls, cells)
    assert found is not None
    assert np.all(np.isinf(found.apart[~cells])) and np.all(found.there[~cells] == 0.0)
    assert not found.none_there()[~cells].any() and not found.one_there()[~cells].any()


def test_no_lamp_without_glints_or_without_balls() -> None:
    image, homography, n, balls = _game_frame(297)
    everything = np.ones(n * n, bool)
    # A picture with no bright spot at all (matte balls): no glint to tell by.
    assert glints(np.full_like(image, 120), homography, n, balls, everything) is None
    # Too few balls read surely to find the lamp by, or nothing to measure.
    few = np.zeros(n * n, bool)
    few[np.flatnonzero(balls)[: glints_module.LEAST_BALLS - 1]] = True
    assert glints(image, homography, n, few, everything) is None
    assert glints(image, homography, n, balls, np.zeros(n * n, bool)) is None


def test_from_low_down_empty_cups_are_seen_on_the_balls_behind_them_and_from_high_up_not() -> None:
    image, homography, n, balls = _game_frame(3023)  # 31 degrees up
    size = (image.shape[1], image.shape[0])
    low = seen_on_balls_behind(homography, size, n, balls)
    assert low[~balls].sum() >= 6
    # Only a ball read in the cell behind hides a cup so.
    assert not seen_on_balls_behind(homography, size, n, np.zeros(n * n, bool)).any()
    image, homography, n, balls = _game_frame(10)  # nearly straight down
    assert not seen_on_balls_behind(homography, (image.shape[1], image.shape[0]), n, balls).any()
