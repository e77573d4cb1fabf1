"""The lens measured from the board's straight edges (rolit.vision.plumbline), on renders."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from rolit.engine import Position
from rolit.vision.lens import Lens
from rolit.vision.plumbline import edges_beside, measure_lens, straightness
from rolit.vision.synthetic.renderer import render

from helpers import bent, renderer_lens, start_scene, unseen_scene


@pytest.mark.parametrize("k", [3025, 3029, 3045])
def test_a_strong_lens_is_measured_from_the_boards_edges(k: int) -> None:
    # A dark tray on a light table, one on a checked cloth, a wide board: the renderer's lens within 0.03.
    image, corners, n = start_scene(k)
    _, _, params = unseen_scene(k)
    measured = measure_lens(image, corners, n)
    assert measured is not None and abs(measured - renderer_lens(params)) < 0.03


def test_the_grid_need_not_be_exact() -> None:
    image, corners, n = start_scene(3025)
    _, _, params = unseen_scene(3025)
    measured = measure_lens(image, bent(corners, n, 2, 0.3), n)
    assert measured is not None and abs(measured - renderer_lens(params)) < 0.03


def test_the_edges_are_straight_once_straightened() -> None:
    image, corners, n = start_scene(3025)
    _, _, params = unseen_scene(3025)
    edges = edges_beside(image, corners, n)
    size = (image.shape[1], image.shape[0])
    straight, bent_ = straightness(edges, renderer_lens(params), size), straightness(edges, 0.0, size)
    assert len(edges) >= 4 and straight.shape == (len(edges),)
    assert np.mean(straight) < 0.25 * np.mean(bent_) and np.sum(straight < bent_) >= 4


def test_no_lens_is_measured_without_one() -> None:
    variant, _, params = unseen_scene(3025)
    flat = dataclasses.replace(params, k1=0.0, k2=0.0)
    image, truth = render(Position.start(variant).board(), flat, variant=variant)
    measured = measure_lens(image, truth.corners, truth.board.size)
    assert measured is None or abs(measured) < 0.02


def test_nothing_is_measured_where_no_edge_shows() -> None:
    grey = np.full((360, 640, 3), 128, np.uint8)
    assert measure_lens(grey, [[200, 100], [440, 100], [440, 260], [200, 260]], 8) is None
    assert Lens(-0.1, (640, 360)).to_picture([[0.0, 0.0]]).shape == (1, 2)
