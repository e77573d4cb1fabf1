"""Moving a grid guess onto the board's printed lines (rolit.vision.gridlines)."""

from __future__ import annotations

import numpy as np
import pytest

from rolit.vision.gridlines import grown_on_lines, on_lines
from rolit.vision.lattice import grid_homography
from rolit.vision.locate import apply_homography, cells_apart
from rolit.vision.synthetic.params import BOARD_STYLES

from helpers import bent, start_scene, unseen_scene


@pytest.mark.parametrize("k", [14, 222, 27])  # black boards (Junior, 6x6), a navy board with lighter lines
def test_a_grid_out_at_a_corner_is_moved_onto_the_lines(k: int) -> None:
    image, truth, n = start_scene(k)
    for corner in range(4):
        guess = bent(truth, n, corner, 0.4)
        assert cells_apart(truth, guess, n) > 0.3
        found = on_lines(image, guess, n)
        assert found is not None
        assert cells_apart(truth, found, n) < 0.05


def test_a_board_without_lines_or_a_blank_picture_gives_nothing() -> None:
    for k in (0, 2):  # green boards: cups, no lines
        image, truth, n = start_scene(k)
        assert unseen_scene(k)[2].board_style == 0 and BOARD_STYLES[0].lines is None
        assert on_lines(image, bent(truth, n, 1, 0.3), n) is None
    blank = np.full((720, 1280, 3), 40, np.uint8)
    assert on_lines(blank, bent(truth, n, 1, 0.3), n) is None


def scaled(corners: np.ndarray, n: int, factor: float) -> np.ndarray:
    """The grid stretched about its centre: right in the middle, cells out at the corners."""
    lo, hi = n / 2 * (1 - factor), n / 2 * (1 + factor)
    return apply_homography(grid_homography(corners, n), np.array([[lo, lo], [hi, lo], [hi, hi], [lo, hi]]))


@pytest.mark.parametrize("k", [393, 222])  # black boards, 8x8 and 6x6
def test_a_guess_right_only_in_the_middle_is_grown_onto_the_lines(k: int) -> None:
    image, truth, n = start_scene(k)
    guess = scaled(truth, n, 1.3)
    assert cells_apart(truth, guess, n) > 0.7  # at the outer cells' centres
    found = on_lines(image, guess, n)
    assert found is None or cells_apart(truth, found, n) > 0.5  # too far out for the lines' reach
    grown = grown_on_lines(image, guess, n)
    assert grown is not None and cells_apart(truth, grown, n) < 0.05
