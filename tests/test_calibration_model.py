"""The colour model: fast prediction gives scikit-learn's own probabilities; stored models are the ones fitted."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from sklearn.ensemble import HistGradientBoostingClassifier

from rolit.calibration.errors import CalibrationError
from rolit.calibration.model import ColourModel, _one_thread, default_model, fast_predict_proba, training_data


@pytest.fixture(scope="module")
def fitted() -> HistGradientBoostingClassifier:
    """scikit-learn's own classifier, fitted as the shipped default model is."""
    x, y = training_data()
    clf = ColourModel.fit(x, y).classifier
    assert isinstance(clf, HistGradientBoostingClassifier)
    return clf


def _reference(clf: HistGradientBoostingClassifier, rows: np.ndarray) -> np.ndarray:
    with _one_thread():  # OpenMP's threads wait for each other on a busy machine
        return np.asarray(clf.predict_proba(rows))


def test_fast_prediction_matches_predict_proba_on_real_readings(fitted: HistGradientBoostingClassifier) -> None:
    clf = fitted
    x, _ = training_data()
    rows = x[::37][:600].astype(np.float64)
    assert np.allclose(fast_predict_proba(clf, rows), _reference(clf, rows), rtol=0, atol=1e-12)


def test_missing_readings_go_the_way_each_split_learnt(fitted: HistGradientBoostingClassifier) -> None:
    clf = fitted
    x, _ = training_data()
    rows = x[5::41][:400].astype(np.float64)
    rows[np.random.default_rng(0).random(rows.shape) < 0.3] = np.nan
    rows[:, 3] = np.nan  # a whole feature missing too
    assert np.allclose(fast_predict_proba(clf, rows), _reference(clf, rows), rtol=0, atol=1e-12)


def test_values_on_the_thresholds_and_beyond_them(fitted: HistGradientBoostingClassifier) -> None:
    clf = fitted
    x, _ = training_data()
    rows = x[:64].astype(np.float64)
    # Readings exactly on split thresholds (which go left), and far out either way.
    nodes = clf._predictors[0][0].nodes
    split = nodes[nodes["is_leaf"] == 0][0]
    rows[:8, int(split["feature_idx"])] = split["num_threshold"]
    rows[8:16] = 1e9
    rows[16:24] = -1e9
    assert np.allclose(fast_predict_proba(clf, rows), _reference(clf, rows), rtol=0, atol=1e-12)


def _renormalised(probs: np.ndarray, keep: list[bool]) -> np.ndarray:
    out = np.where(keep, probs, 0.0)
    return np.asarray(out / out.sum(axis=1, keepdims=True))


@pytest.mark.parametrize("left_out", [(5,), (4,), (1, 4), (0, 2, 3, 6)])
def test_classes_left_out_have_no_probability_and_the_rest_are_renormalised(
    fitted: HistGradientBoostingClassifier, left_out: tuple[int, ...]
) -> None:
    # Grey alone (the classic editions), blue alone (Junior), and runs of classes split several ways.
    clf = fitted
    x, _ = training_data()
    rows = x[3::53][:300].astype(np.float64)
    rows[:20, 7] = np.nan
    classes = {int(c) for c in clf.classes_} - set(left_out)
    keep = [int(c) in classes for c in clf.classes_]
    got = fast_predict_proba(clf, rows, classes)
    assert np.all(got[:, ~np.asarray(keep)] == 0)
    assert np.allclose(got, _renormalised(_reference(clf, rows), keep), rtol=0, atol=1e-12)
    # A set of every class is no set at all.
    assert np.allclose(fast_predict_proba(clf, rows, set(clf.classes_.tolist())), _reference(clf, rows), atol=1e-12)


def test_binary_and_categorical_classifiers() -> None:
    rng = np.random.default_rng(1)
    x = rng.normal(size=(300, 4))
    y = (x[:, 0] + 0.5 * x[:, 1] > 0).astype(int)
    with _one_thread():  # a few small fits: OpenMP's threads only wait for each other here
        binary = HistGradientBoostingClassifier(max_iter=20, random_state=0).fit(x, y)
    assert np.allclose(fast_predict_proba(binary, x[:50]), _reference(binary, x[:50]), rtol=0, atol=1e-12)
    # Categorical splits are not compiled: predict_proba answers.
    xc = np.c_[x[:, :3], rng.integers(0, 4, 300)]
    with _one_thread():
        cat = HistGradientBoostingClassifier(max_iter=10, categorical_features=[3], random_state=0).fit(xc, y)
    assert np.allclose(fast_predict_proba(cat, xc[:50]), _reference(cat, xc[:50]))
    # A class left out is left out by predict_proba's answer too; a binary classifier's single output gives both.
    assert np.all(fast_predict_proba(cat, xc[:50], {1}) == [0.0, 1.0])
    assert np.all(fast_predict_proba(binary, x[:50], {0}) == [1.0, 0.0])


def test_input_of_the_wrong_width_is_refused_as_scikit_learn_does(fitted: HistGradientBoostingClassifier) -> None:
    for clf in (fitted, default_model().classifier):
        with pytest.raises(ValueError):
            fast_predict_proba(clf, np.zeros((3, clf.n_features_in_ + 1)))


def test_the_shipped_default_model_is_the_one_its_readings_fit(tmp_path: Path) -> None:
    # data/default_model.npz must be fitted again (python -m rolit.calibration.train --fit-only) when its
    # readings change: the training command's own fit, stored and loaded, reads as the shipped model.
    from rolit.calibration.train import fit_shipped

    stored = ColourModel.load(fit_shipped("default", output=tmp_path / "default_model.npz"))
    x, _ = training_data()
    rows = x[3::29].copy()
    rows[np.random.default_rng(2).random(rows.shape) < 0.2] = np.nan
    assert np.allclose(stored.classifier.predict_proba(rows), default_model().classifier.predict_proba(rows), atol=1e-12)


def test_a_stored_model_reads_as_it_was_fitted(tmp_path: Path) -> None:
    rng = np.random.default_rng(3)
    x = rng.normal(size=(400, 5))
    x[rng.random(x.shape) < 0.1] = np.nan
    for classes in (2, 4):  # one raw output, and one per class
        y = np.digitize(np.nan_to_num(x[:, 0]) + 0.3 * np.nan_to_num(x[:, 1]), np.linspace(-1, 1, classes - 1))
        model = ColourModel.fit(x, y, max_iter=30)
        model.save(tmp_path / "m.npz")
        loaded = ColourModel.load(tmp_path / "m.npz")
        assert loaded.classes == model.classes
        assert np.allclose(loaded.classifier.predict_proba(x), _reference(model.classifier, x), rtol=0, atol=1e-12)


def test_a_file_that_is_not_a_stored_model_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "m.npz"
    for content in (b"not an npz", b""):
        path.write_bytes(content)
        with pytest.raises(CalibrationError, match="not a stored colour model"):
            ColourModel.load(path)
    np.savez(path, X=np.zeros((3, 2)))  # readings, not a model
    with pytest.raises(CalibrationError, match="not a stored colour model"):
        ColourModel.load(path)


@pytest.mark.slow
def test_the_shipped_camera_model_is_the_one_its_readings_fit(tmp_path: Path) -> None:
    # About 2.5 minutes of fitting: run with -m slow after building new readings.
    from rolit.calibration.camera_model import camera_model
    from rolit.calibration.train import fit_shipped

    stored = ColourModel.load(fit_shipped("camera", output=tmp_path / "camera_model.npz"))
    x, _ = training_data("camera_cells.npz")
    rows = x[::97]
    assert np.allclose(stored.classifier.predict_proba(rows), camera_model().classifier.predict_proba(rows), atol=1e-12)
