"""The light's fall taken off a picture (rolit.vision.shade)."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from rolit.vision.shade import flattened


def _cups_under_a_shadow() -> tuple[np.ndarray, np.ndarray]:
    """A grey board of dark cups, 40 pixels a cell, and the mask of a hard shadow over its lower right (a slanted
    edge, the light there at a quarter)."""
    image = np.full((400, 400, 3), 180, np.uint8)
    for y in range(20, 400, 40):
        for x in range(20, 400, 40):
            cv2.circle(image, (x, y), 12, (90, 90, 90), -1)
    yy, xx = np.mgrid[:400, :400]
    shadow = xx + 0.5 * yy > 300
    return image, shadow


def test_a_hard_shadows_edge_is_taken_off_and_the_cups_are_kept() -> None:
    lit, shadow = _cups_under_a_shadow()
    image = lit.copy()
    image[shadow] = (image[shadow] * 0.25).astype(np.uint8)
    flat = flattened(image, 31).astype(float)[..., 0]
    plastic = lit[..., 0] == 180
    # Away from the edge, the plastic is alike on both sides (as it was: 4 times brighter in the light).
    edge = cv2.dilate(np.asarray((shadow ^ np.roll(shadow, 1, axis=1)), np.uint8), np.ones((9, 9), np.uint8)) > 0
    inside, outside = plastic & shadow & ~edge, plastic & ~shadow & ~edge
    assert abs(np.median(flat[inside]) - np.median(flat[outside])) < 0.05 * np.median(flat[outside])
    # Each cup is still half as bright as the plastic round it, in the light and in the shadow.
    for y, x in ((100, 100), (340, 340)):
        assert 0.4 < flat[y, x] / flat[y, x + 20] < 0.6


def test_a_picture_evenly_lit_keeps_its_contrasts() -> None:
    lit, _ = _cups_under_a_shadow()
    flat = flattened(lit, 31)
    assert np.abs(flat.astype(int) - lit.astype(int)).max() <= 2


def test_the_darkest_surfaces_are_not_raised_to_the_plastics_level() -> None:
    # A black board on a light table: the board's noise is not multiplied up to the table's brightness.
    image = np.full((300, 300, 3), 200, np.uint8)
    image[100:200, 100:200] = 10
    flat = flattened(image, 21)
    assert flat[150, 150, 0] < 60


def test_a_window_too_small_is_refused() -> None:
    with pytest.raises(ValueError, match="at least 3"):
        flattened(np.zeros((10, 10, 3), np.uint8), 1)
