"""Grid guesses from the cups' own lattice, and the locator's use of them."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from rolit.vision import cups, locate
from rolit.vision.locate import Locator, _inside

from helpers import grids_apart, start_scene


def _locate_start(k: int) -> float:
    """How many cells out the locator places development scene ``k``'s start position (infinite: not found)."""
    image, corners, n = start_scene(k)
    fit = Locator(n).locate(image)
    return np.inf if fit is None else grids_apart(fit.corners, corners, n)


@pytest.mark.parametrize("k", [23, 98])
def test_a_light_board_whose_outline_is_lost_is_found_from_its_cups(k: int, monkeypatch: pytest.MonkeyPatch) -> None:
    # A pale board whose outline merges with the table (23: a shadow's edge across it; 98: a noisy picture)
    # and only the start position's four balls: no outline and no balls' lattice leads to the grid. (Since
    # the merged outlines' straight runs are tried, 98 is found from them too, 0.16 cells out.)
    assert _locate_start(k) < 0.3
    monkeypatch.setattr(cups, "lattice_guesses", lambda image, n: [])
    monkeypatch.setattr(locate, "MERGED", 0.0)
    assert _locate_start(k) == np.inf


def test_the_cups_of_a_faint_grey_board_place_the_grid_the_outline_put_a_row_out() -> None:
    # A grey board from 41 degrees up: the outline search placed the grid more than a cell out (1.39);
    # the cups' lattice locks on far more surely, within a third of a cell.
    assert _locate_start(5) < 0.4


def test_the_boards_cups_make_the_largest_lattice_among_a_noisy_pictures_blobs() -> None:
    # A cream board with a hard shadow across it, in a noisy picture: the noise makes many small blobs, and
    # lattices of them, whose guesses used to crowd out the cups'. The outline search put the grid 0.87 cells out.
    image, corners, n = start_scene(443)
    work = cv2.resize(image, (640, 360), interpolation=cv2.INTER_AREA)
    guesses = cups.lattice_guesses(work, n)
    assert min(grids_apart(g, np.asarray(corners) / 2.0, n) for g in guesses) < 0.1
    assert _locate_start(443) < 0.1


def _chequered_cloth() -> np.ndarray:
    """A red and white chequered cloth filling a 1280x720 picture, seen obliquely."""
    cloth = np.full((720, 1280, 3), 235, np.uint8)
    for i in range(-20, 40):
        for j in range(-20, 40):
            if (i + j) % 2 == 0:
                square = np.array([[i, j], [i + 1, j], [i + 1, j + 1], [i, j + 1]], np.int32) * 40
                cv2.fillConvexPoly(cloth, square, (40, 40, 200))
    frame = np.float32([[0, 0], [1280, 0], [1280, 720], [0, 720]])
    seen = np.float32([[300, 150], [980, 150], [1280, 720], [0, 720]])
    return cv2.warpPerspective(cloth, cv2.getPerspectiveTransform(frame, seen), (1280, 720))


def test_a_chequered_cloth_is_no_board(monkeypatch: pytest.MonkeyPatch) -> None:
    # Its squares make lattices of like blobs, and a grid on them locks on surely; but the lattice does not end.
    image = _chequered_cloth()
    monkeypatch.setattr(cups, "LATTICES", 100)  # every lattice's guesses, not only the two largest
    assert Locator(8).locate(image) is None
    monkeypatch.setattr(locate, "_ends", lambda view: True)
    assert Locator(8).locate(image) is not None


def test_blobs_are_found_dark_or_light() -> None:
    image = np.full((200, 200, 3), 128, np.uint8)
    cv2.circle(image, (50, 50), 10, (40, 40, 40), -1)
    cv2.circle(image, (150, 150), 10, (220, 220, 220), -1)
    dark, _ = cups.blobs(image, dark=True)
    light, sizes = cups.blobs(image, dark=False)
    assert np.allclose(dark, [[50, 50]], atol=1) and np.allclose(light, [[150, 150]], atol=1)
    assert 15 < sizes[0] < 25


def test_a_grid_from_the_cups_must_lie_a_cell_clear_of_the_pictures_edges() -> None:
    # A cloth's lattice seen up to the picture's edge seems to end there (scene 181 was read on one so).
    grid = np.array([[100.0, 100.0], [260.0, 100.0], [260.0, 260.0], [100.0, 260.0]])  # cells of 20 pixels
    assert _inside(grid, 8, (360, 640), 1.0)
    assert not _inside(grid - 85.0, 8, (360, 640), 1.0)  # a cell round it reaches off the top and left
    assert _inside(grid - 85.0, 8, (360, 640), 0.0)
