"""The colour model's fast prediction: the same probabilities as scikit-learn's own."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.ensemble import HistGradientBoostingClassifier

from rolit.calibration.model import _one_thread, default_model, fast_predict_proba, training_data


def _reference(clf: HistGradientBoostingClassifier, rows: np.ndarray) -> np.ndarray:
    with _one_thread():  # OpenMP's threads wait for each other on a busy machine
        return np.asarray(clf.predict_proba(rows))


def test_fast_prediction_matches_predict_proba_on_real_readings() -> None:
    clf = default_model().classifier
    x, _ = training_data()
    rows = x[::37][:600].astype(np.float64)
    assert np.allclose(fast_predict_proba(clf, rows), _reference(clf, rows), rtol=0, atol=1e-12)


def test_missing_readings_go_the_way_each_split_learnt() -> None:
    clf = default_model().classifier
    x, _ = training_data()
    rows = x[5::41][:400].astype(np.float64)
    rows[np.random.default_rng(0).random(rows.shape) < 0.3] = np.nan
    rows[:, 3] = np.nan  # a whole feature missing too
    assert np.allclose(fast_predict_proba(clf, rows), _reference(clf, rows), rtol=0, atol=1e-12)


def test_values_on_the_thresholds_and_beyond_them() -> None:
    clf = default_model().classifier
    x, _ = training_data()
    rows = x[:64].astype(np.float64)
    # Readings exactly on split thresholds (which go left), and far out either way.
    nodes = clf._predictors[0][0].nodes
    split = nodes[nodes["is_leaf"] == 0][0]
    rows[:8, int(split["feature_idx"])] = split["num_threshold"]
    rows[8:16] = 1e9
    rows[16:24] = -1e9
    assert np.allclose(fast_predict_proba(clf, rows), _reference(clf, rows), rtol=0, atol=1e-12)


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


def test_input_of_the_wrong_width_is_refused_as_scikit_learn_does() -> None:
    clf = default_model().classifier
    with pytest.raises(ValueError):
        fast_predict_proba(clf, np.zeros((3, clf.n_features_in_ + 1)))
