"""The calibrated colour model: comparisons with the profile's references, and its training scenes."""

from __future__ import annotations

import numpy as np
import pytest

from rolit.calibration import Profile
from rolit.calibration.camera_model import CAMERA_FEATURE_NAMES, camera_features
from rolit.calibration.train import camera_scene
from rolit.vision.features import FEATURE_NAMES


def _profile(n: int = 6) -> Profile:
    empty = [[10.0] * len(FEATURE_NAMES) for _ in range(n * n)]
    red = [50.0, 60.0, 40.0] + [0.0] * (len(FEATURE_NAMES) - 3)
    return Profile("quick6", cell_refs=empty, colour_refs={"red": red, "yellow": red},
                   colour_local={"red": empty[0], "yellow": empty[0]})  # fmt: skip


def test_features_compare_each_cell_with_its_empty_self_and_each_colour() -> None:
    profile = _profile()
    features = np.full((36, len(FEATURE_NAMES)), 10.0)
    features[5, :3] = [50.0, 60.0, 40.0]
    top = np.repeat(features[:, None, :3], 24, axis=1)
    top[5, :4] = [10.0, 10.0, 10.0]  # a sixth of the disc shows something like the empty cup
    out = camera_features(features, top, profile)
    assert out.shape == (36, len(CAMERA_FEATURE_NAMES))
    names = list(CAMERA_FEATURE_NAMES)
    assert out[0, names.index("d_L")] == 0 and out[5, names.index("d_L")] == 40
    assert out[5, names.index("red_dist")] == 0 and out[0, names.index("red_dist")] > 50
    # No reference for green yet (the start position shows each colour once; Junior has no grey): missing values.
    assert np.isnan(out[:, names.index("green_dist")]).all() and np.isnan(out[:, names.index("grey_dL")]).all()
    assert out[0, names.index("empty_votes")] == 1 and out[5, names.index("empty_votes")] == 4 / 24
    assert out[5, names.index("red_votes") : names.index("red_votes") + 1].sum() > 0.5
    assert np.isnan(out[:, names.index("blue_votes")]).all()


def test_a_reading_of_another_size_is_refused() -> None:
    with pytest.raises(ValueError, match="36 cells"):
        camera_features(np.zeros((64, len(FEATURE_NAMES))), np.zeros((64, 24, 3)), _profile())


def test_a_training_scene_is_labelled_from_the_render() -> None:
    found = next(r for r in map(camera_scene, range(20_000, 20_010)) if r is not None)
    x, y = found
    assert x.shape[1] == len(CAMERA_FEATURE_NAMES) and len(x) == len(y) and len(y) in (36, 64)
    assert set(np.unique(y)) <= set(range(7)) and (y == 0).any()
