"""Calibration profiles: JSON round trip, atomic saves, and damaged files refused clearly."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rolit.calibration import CalibrationError, Profile, default_profile_path
from rolit.calibration.profile import PLACED_BY


def _refs(value: float) -> list[float]:
    return [value + i for i in range(19)]


def test_the_reference_length_is_the_readings_length() -> None:
    from rolit.calibration.profile import FEATURES
    from rolit.vision.features import FEATURE_NAMES

    assert len(FEATURE_NAMES) == FEATURES


def test_round_trip(tmp_path: Path) -> None:
    profile = Profile("junior", 2, [[1, 2], [3, 4], [5, 6], [7, 8]],
                      {"red": [50.0, 60.0, 40.0], "green": [40.0, -30.0, 20.0], "empty": [30.0, 0.0, 0.0]},
                      "2026-11-29T12:00:00+00:00", [_refs(k) for k in range(36)],
                      {"red": _refs(50), "green": _refs(40)}, {"red": _refs(1), "green": _refs(2)},
                      [[10, 20], [30, 20], [30, 40], [10, 40]])  # fmt: skip
    path = profile.save(tmp_path / "sub" / "p.json")
    again = Profile.load(path)
    assert again == profile and again.calibrated
    cells, colours, local = again.refs()
    assert cells.shape == (36, 19) and colours["red"][0] == 50 and local["green"][0] == 2


def test_round_trip_with_the_picture_round_the_grid(tmp_path: Path) -> None:
    import numpy as np

    from rolit.vision.register import ReferenceView

    image = np.random.default_rng(1).integers(0, 255, (120, 160, 3), dtype=np.uint8)
    corners = [[40.0, 30.0], [120.0, 30.0], [120.0, 90.0], [40.0, 90.0]]
    view = ReferenceView.take(image, corners, 6)
    profile = Profile("quick6", seen_corners=corners, seen_view=view, seen_placed_by="lines")
    again = Profile.load(profile.save(tmp_path / "p.json"))
    assert again == profile and again.seen_view is not None and again.seen_view.frame == (120, 160)
    assert again.seen_on_lines
    # A profile saved before the grid's lines were recorded reads as not placed on them.
    data = profile.to_json()
    del data["seen_placed_by"]
    assert not Profile.from_json(data).seen_on_lines
    # One saved before what placed the grid was kept says whether the lines did.
    assert Profile.from_json({**data, "seen_on_lines": True}).seen_placed_by == "lines"


def test_what_placed_the_grid_is_kept(tmp_path: Path) -> None:
    for placed_by in PLACED_BY:
        profile = Profile("quick6", seen_placed_by=placed_by)
        assert Profile.load(profile.save(tmp_path / "p.json")).seen_placed_by == placed_by
    # A profile saved before it was kept does not say.
    data = Profile("quick6", seen_placed_by="cups").to_json()
    del data["seen_placed_by"]
    assert Profile.from_json(data).seen_placed_by == ""


def test_the_lens_is_kept(tmp_path: Path) -> None:
    profile = Profile("quick6", lens=-0.21)
    assert Profile.load(profile.save(tmp_path / "p.json")).lens == -0.21
    # A profile saved before the lens was measured has none.
    data = profile.to_json()
    del data["lens"]
    assert Profile.from_json(data).lens == 0.0


def test_the_lines_and_the_cups_rims_place_a_grid_exactly() -> None:
    exactly = {placed_by for placed_by in PLACED_BY if Profile("quick6", seen_placed_by=placed_by).seen_exactly}
    assert exactly == {"lines", "cup rims"}
    assert not Profile("quick6").seen_exactly


def test_a_version_1_profile_keeps_its_corners_and_turn_but_not_its_colours(tmp_path: Path) -> None:
    path = tmp_path / "old.json"
    path.write_text(json.dumps({"version": 1, "variant": "quick6", "rotation": 3,
                                "corners": [[1, 2], [3, 4], [5, 6], [7, 8]],
                                "class_means": {"empty": [30, 0, 0], "red": [50, 60, 40], "blue": [30, 20, -50]}}))
    old = Profile.load(path)
    assert old.rotation == 3 and old.corners is not None and not old.calibrated


def test_default_path_is_in_the_users_data_folder(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    assert default_profile_path() == tmp_path / "rolit-assistant" / "profile.json"
    assert Profile().save() == default_profile_path()


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("{not json", "bad JSON"),
        ("[1, 2]", "is a JSON object"),
        ('{"version": 9}', "version 9"),
        ('{"version": 1, "class_means": {"red": [1, 2]}}', "3 numbers"),
        ('{"version": 1, "rotation": 7}', "rotation must be"),
        ('{"version": 1, "corners": [[0, 0]]}', "4 points"),
        ('{"version": 1, "variant": "chess"}', "unknown variant"),
        # Found by tests/test_fuzz_parsers.py: these escaped as OverflowError, ValueError, RecursionError.
        ('{"version": 1, "rotation": Infinity}', "damaged"),
        ('{"version": 1, "rotation": 1e999}', "damaged"),
        ('{"version": 1, "class_means": {"red": [' + "9" * 400 + ', 0, 0]}}', "damaged"),
        ('{"version": 1, "corners": [[' + "9" * 400 + ', 0], [0, 0], [0, 0], [0, 0]]}', "damaged"),
        ('{"version": ' + "1" * 5000 + "}", "bad JSON"),
        ('{"version": 2, "variant": "quick6", "cell_refs": [' + ",".join([str([0] * 19)] * 35) + "]}", "36 cells"),
        ('{"version": 2, "colour_refs": {"red": [1, 2, 3]}, "colour_local": {"red": [1, 2, 3]}}', "19 finite"),
        ('{"version": 2, "colour_refs": {"red": ' + str([0] * 19) + "}}", "same colours"),
        ('{"version": 2, "seen_corners": [[0, 0], [1, 1]]}', "4 points"),
        ('{"version": 2, "seen_view": {"png": "%%%"}}', "damaged: the reference view"),
        ('{"version": 2, "seen_view": [1]}', "damaged: the reference view must be an object"),
        ('{"version": 2, "seen_on_lines": "yes"}', "seen_on_lines must be true or false"),
        ('{"version": 2, "seen_placed_by": "luck"}', "seen_placed_by must be one of lines, cups"),
        ('{"version": 2, "seen_placed_by": 1}', "seen_placed_by must be one of"),
        ('{"version": 2, "lens": -2}', "lens must be a number from -0.6 to 0.6"),
        ('{"version": 2, "lens": NaN}', "lens must be a number"),
        ('{"version": 2, "lens": "wide"}', "damaged"),
        ('{"version": 1, "corners": ' + "[" * 100_000 + "]" * 100_000 + "}", "bad JSON"),
    ],
)
def test_damaged_profiles(tmp_path: Path, content: str, message: str) -> None:
    path = tmp_path / "p.json"
    path.write_text(content)
    with pytest.raises(CalibrationError, match=message):
        Profile.load(path)


def test_a_failed_save_keeps_the_old_profile(tmp_path: Path) -> None:
    path = tmp_path / "p.json"
    Profile("classic", rotation=1).save(path)
    before = path.read_text()
    folder_as_file = tmp_path / "blocked"
    folder_as_file.write_text("a file where a folder should be")
    with pytest.raises(CalibrationError, match="cannot save"):
        Profile("classic").save(folder_as_file / "p.json")
    assert path.read_text() == before and json.loads(before)["rotation"] == 1
    with pytest.raises(CalibrationError, match="does not exist"):
        Profile.load(tmp_path / "missing.json")
