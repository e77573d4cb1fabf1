"""Moving a grid guess onto the cups' own centres, perspective included (rolit.vision.perspective)."""

from __future__ import annotations

import numpy as np
import pytest

from rolit.vision import lattice, locate, perspective
from rolit.vision.locate import cells_apart

from helpers import bent, grids_apart, start_scene, unseen_scene


@pytest.fixture(autouse=True)
def _no_lens_measured(monkeypatch: pytest.MonkeyPatch) -> None:
    """Calibration here measures no lens: these tests put its grid on the cups of the picture as it is, and
    compare it with the homography through the true cups there (tests/test_vision_plumbline.py measures it)."""
    from rolit.calibration import reader

    monkeypatch.setattr(reader, "measure_lens", lambda image, corners, n: None)


@pytest.mark.parametrize("k", [65, 192])  # start positions on boards with cups and no printed lines
def test_a_grid_whose_perspective_is_out_is_moved_onto_the_cups(k: int) -> None:
    image, truth, n = start_scene(k)
    for corner in range(4):
        guess = bent(truth, n, corner, 0.2)
        assert cells_apart(truth, guess, n) > 0.15
        found = perspective.on_cups(image, guess, n)
        assert found is not None
        assert cells_apart(truth, found, n) < 0.1
        # The affine alignment takes only some of the perspective out.
        aligned = lattice.realign(lattice.look(image, guess, n), affine=True)
        assert cells_apart(truth, aligned, n) > cells_apart(truth, found, n) + 0.02


def test_cups_that_do_not_show_surely_or_a_move_too_far_give_nothing() -> None:
    image, truth, n = start_scene(3)  # a black board: its cups hardly show
    assert lattice.quality(lattice.look(image, truth, n)) < perspective.SURE
    assert perspective.on_cups(image, truth, n) is None
    image, truth, n = start_scene(65)
    assert perspective.on_cups(image, bent(truth, n, 2, 0.6), n) is None  # would move further than REACH
    blank = np.full((720, 1280, 3), 128, np.uint8)
    assert perspective.on_cups(blank, truth, n) is None


def test_calibration_places_its_grid_on_the_cups_where_no_lines_show(monkeypatch: pytest.MonkeyPatch) -> None:
    # Scene 65: the start position's grid, as the lattice aligned it, is 0.22 cells out at a far corner.
    from rolit.calibration import calibrate, reader

    image, truth, n = start_scene(65)
    variant = unseen_scene(65)[0]
    profile = calibrate(image, variant)
    assert not profile.seen_on_lines and cells_apart(truth, np.asarray(profile.seen_corners), n) < 0.1
    monkeypatch.setattr(reader, "on_cup_rims", lambda image, corners, n, empty: None)
    assert cells_apart(truth, np.asarray(calibrate(image, variant).seen_corners), n) < 0.1
    monkeypatch.setattr(reader, "on_cups", lambda image, corners, n: None)
    # The cups' mean (see on_cup_template) places it then too; without either it stays out.
    assert cells_apart(truth, np.asarray(calibrate(image, variant).seen_corners), n) < 0.1
    monkeypatch.setattr(reader, "on_cup_template", lambda image, corners, n, empty: None)
    assert cells_apart(truth, np.asarray(calibrate(image, variant).seen_corners), n) > 0.15


@pytest.mark.parametrize("k", [7, 20])  # grey and cream boards, no printed lines, cups that show well
def test_the_cups_mean_takes_out_the_bias_the_lattice_follows(k: int) -> None:
    # From the true grid the lattice's homography drifts: it follows where each cup's shading sits, which the
    # light and a low view move off the cup's centre (a far row most). Each cup against their mean stays put.
    image, truth, n = start_scene(k)
    empty = np.ones((n, n), bool)
    empty[n // 2 - 1 : n // 2 + 1, n // 2 - 1 : n // 2 + 1] = False  # the start position's balls
    drifted, refined = truth, truth
    for _ in range(3):
        drifted = lattice.realign_projective(lattice.look(image, drifted, n))
        placed = perspective._template_fit(image, refined, n, empty)
        assert placed is not None
        refined = placed
    assert cells_apart(truth, drifted, n) > 0.12
    assert cells_apart(truth, refined, n) < 0.06


def test_calibration_refines_its_grid_on_the_cups_mean(monkeypatch: pytest.MonkeyPatch) -> None:
    # Scene 5 (a grey board): the lattice put the grid 0.34 cells out at a corner; its cups' homography would move
    # it further than on_cups allows (0.3 cells), and from there the cups' mean places it.
    from rolit.calibration import calibrate, reader

    image, truth, n = start_scene(5)
    variant = unseen_scene(5)[0]
    profile = calibrate(image, variant)
    assert not profile.seen_on_lines and grids_apart(truth, np.asarray(profile.seen_corners), n) < 0.08
    monkeypatch.setattr(reader, "on_cup_rims", lambda image, corners, n, empty: None)
    assert grids_apart(truth, np.asarray(calibrate(image, variant).seen_corners), n) < 0.08
    monkeypatch.setattr(reader, "on_cup_template", lambda image, corners, n, empty: None)
    assert grids_apart(truth, np.asarray(calibrate(image, variant).seen_corners), n) > 0.25


def test_the_cups_mean_refuses_cups_that_do_not_show() -> None:
    image, truth, n = start_scene(3)  # a black board: its cups hardly show
    empty = np.ones((n, n), bool)
    assert perspective.on_cup_template(image, truth, n, empty) is None
    blank = np.full((720, 1280, 3), 128, np.uint8)
    assert perspective.on_cup_template(blank, truth, n, empty) is None


def _start_empty(n: int) -> np.ndarray:
    empty = np.ones((n, n), bool)
    empty[n // 2 - 1 : n // 2 + 1, n // 2 - 1 : n // 2 + 1] = False  # the start position's balls
    return empty


@pytest.mark.parametrize("k", [7, 20])  # grey and cream boards, no printed lines, cups that show well
def test_the_cups_rims_place_a_grid_where_the_lattice_drifts(k: int) -> None:
    # The lattice's homography follows where each cup's shading sits; a rim's edges sit round the cup's centre
    # however the light falls, so the rims place the grid, its perspective and its shift, from any corner out.
    image, truth, n = start_scene(k)
    drifted = truth
    for _ in range(3):
        drifted = lattice.realign_projective(lattice.look(image, drifted, n))
    assert cells_apart(truth, drifted, n) > 0.12
    for corner in range(4):
        guess = bent(truth, n, corner, 0.2)
        placed = perspective.on_cup_rims(image, guess, n, _start_empty(n))
        assert placed is not None and cells_apart(truth, placed, n) < 0.04
    shifted = lattice.shifted(truth, n, 0.2, -0.15)
    placed = perspective.on_cup_rims(image, shifted, n, _start_empty(n))
    assert placed is not None and cells_apart(truth, placed, n) < 0.04


def test_the_cups_rims_refuse_cups_that_do_not_show() -> None:
    image, truth, n = start_scene(3)  # a black board: its cups hardly show
    assert perspective.on_cup_rims(image, truth, n, _start_empty(n)) is None
    blank = np.full((720, 1280, 3), 128, np.uint8)
    assert perspective.on_cup_rims(blank, truth, n, _start_empty(n)) is None
    noise = np.random.default_rng(0).integers(0, 256, (720, 1280, 3), dtype=np.uint8)
    assert perspective.on_cup_rims(noise, truth, n, _start_empty(n)) is None


@pytest.mark.parametrize("k", [86, 294])  # a green and a grey board: no lines, faint cups
def test_calibration_places_its_grid_on_the_cups_rims(k: int, monkeypatch: pytest.MonkeyPatch) -> None:
    from rolit.calibration import calibrate, reader

    image, truth, n = start_scene(k)
    variant = unseen_scene(k)[0]
    profile = calibrate(image, variant)
    assert profile.seen_placed_by == "cup rims" and profile.seen_exactly
    assert grids_apart(truth, np.asarray(profile.seen_corners), n) < 0.05
    # Without the rims the outline placed them 0.42 and 0.44 cells out (294's cups' centres placed it 0.12 cells
    # out on numpy's AVX2 path; since the merged outlines' straight runs are tried, 0.09).
    monkeypatch.setattr(reader, "on_cup_rims", lambda image, corners, n, empty: None)
    monkeypatch.setattr(locate, "MERGED", 0.0)
    assert grids_apart(truth, np.asarray(calibrate(image, variant).seen_corners), n) > 0.1
