"""Grid guesses from the board's printed lines anywhere in the picture (rolit.vision.linegrid)."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from rolit.vision.linegrid import line_guesses
from rolit.vision.locate import Locator, order_corners

from helpers import grids_apart, start_scene, unseen_scene


def halved(image: np.ndarray) -> np.ndarray:
    """The picture at the locator's working size (640 pixels wide)."""
    return cv2.resize(image, None, fx=0.5, fy=0.5, interpolation=cv2.INTER_AREA)


# Black boards: 437 a 6x6 from low down; 310 (small, from straight above) too, but for an AMD EPYC (AVX2).
@pytest.mark.parametrize("k", [437])
def test_the_lines_of_a_black_board_whose_outline_is_not_found_give_its_grid(k: int) -> None:
    image, truth, n = start_scene(k)
    assert unseen_scene(k)[2].board_style == 2
    # The search finds nothing here: no outline is the board's, and neither cups nor four balls make a lattice.
    assert Locator(n).locate(image) is None
    guesses = [order_corners(g) * 2.0 for g in line_guesses(halved(image), n)]
    assert min(grids_apart(g, truth, n) for g in guesses) < 0.4


def test_evenly_spaced_lines_seen_in_perspective_give_their_grid() -> None:
    n = 8
    image = np.full((360, 640, 3), 25, np.uint8)
    square = np.array([[0, 0], [n, 0], [n, n], [0, n]], np.float32)
    corners = np.array([[230, 60], [420, 70], [560, 300], [90, 280]], np.float32)  # a trapezoid: seen obliquely
    h = cv2.getPerspectiveTransform(square, corners)
    for k in range(n + 1):
        for a, b in (((k, 0), (k, n)), ((0, k), (n, k))):
            ends = cv2.perspectiveTransform(np.array([[a, b]], np.float32), h)[0]
            cv2.line(image, tuple(int(v) for v in ends[0]), tuple(int(v) for v in ends[1]), (95, 95, 95), 1)
    guesses = [order_corners(g) for g in line_guesses(image, n)]
    # 0.11 on an AMD EPYC (AVX2), under 0.1 on the machines before.
    assert min(grids_apart(g, corners.astype(np.float64), n) for g in guesses) < 0.15


def test_no_lines_no_guesses_and_the_same_picture_the_same_guesses() -> None:
    assert line_guesses(np.full((360, 640, 3), 40, np.uint8), 8) == []
    image = halved(start_scene(437)[0])
    first, again = line_guesses(image, 8), line_guesses(image, 8)
    assert len(first) == len(again) and all(np.array_equal(a, b) for a, b in zip(first, again, strict=True))
