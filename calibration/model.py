"""The colour model: which of empty, a colour, or hidden each cell reading is (scikit-learn).

A gradient-boosted classifier over the features of :mod:`rolit.vision.features`
gives each cell a probability per label; only the edition's palette counts
(classic: red, yellow, green, blue; Junior: grey for blue), and a reading whose
best label is below the confidence threshold, or that looks like a hand, is
unknown rather than a guess.

The default model is trained on synthetic renders (``data/default_cells.npz``,
made by ``python -m rolit.calibration.train``) the first time it is needed and
kept for the process.
"""

from __future__ import annotations

import logging
import threading
from dataclasses import dataclass
from importlib import resources
from typing import Any

import numpy as np
import numpy.typing as npt
from sklearn.ensemble import HistGradientBoostingClassifier
from threadpoolctl import ThreadpoolController

from rolit.engine import Colour, Variant, get_variant

from .errors import CalibrationError

__all__ = ["ColourModel", "Reading", "default_model", "reading_from", "LABELS", "EMPTY", "HIDDEN"]

log = logging.getLogger(__name__)

F64 = npt.NDArray[np.float64]

EMPTY = 0
HIDDEN = 6
LABELS = ("empty", "red", "yellow", "green", "blue", "grey", "hidden")


@dataclass(frozen=True)
class Reading:
    """Per cell: the label (see :data:`LABELS`), its probability, and whether it is trusted."""

    labels: npt.NDArray[np.int64]
    confidence: F64
    known: npt.NDArray[np.bool_]

    def cell(self, i: int) -> Colour | None:
        """The cell's content when known: a colour or ``None`` (empty)."""
        label = int(self.labels[i])
        return None if label == EMPTY else Colour(label - 1)


_threads: ThreadpoolController | None = None


def _one_thread() -> Any:
    """OpenMP held to one thread. A frame's few dozen cells are far too little work to share, and
    on a busy machine the waiting threads cost more than the work: 64 cells took 14-21 ms with
    two threads, 6 ms with one (training likewise went from seconds to minutes under load)."""
    global _threads
    if _threads is None:
        _threads = ThreadpoolController()
    return _threads.limit(limits=1, user_api="openmp")


class ColourModel:
    """A classifier of cell readings, fitted on labelled features."""

    def __init__(self, classifier: HistGradientBoostingClassifier) -> None:
        self.classifier = classifier
        self.classes = [int(c) for c in classifier.classes_]

    @classmethod
    def fit(cls, features: F64, labels: npt.NDArray[np.int64], seed: int = 0) -> ColourModel:
        """Train on labelled readings."""
        if len(features) != len(labels) or len(features) < 20:
            raise CalibrationError("a colour model needs at least 20 labelled cells")
        clf = HistGradientBoostingClassifier(max_iter=250, learning_rate=0.08, max_leaf_nodes=31,
                                             l2_regularization=1.0, random_state=seed)
        with _one_thread():
            clf.fit(features, labels)
        return cls(clf)

    def probabilities(self, features: F64, variant: Variant | str) -> F64:
        """Cells x 7 label probabilities, with colours outside the edition's palette removed."""
        v = get_variant(variant)
        with _one_thread():
            raw = self.classifier.predict_proba(features)
        probs = np.zeros((len(features), len(LABELS)))
        probs[:, self.classes] = raw
        allowed = np.zeros(len(LABELS), bool)
        allowed[[EMPTY, HIDDEN]] = True
        for colour in v.colours:
            allowed[int(colour) + 1] = True
        probs[:, ~allowed] = 0.0
        total = probs.sum(axis=1, keepdims=True)
        return np.asarray(probs / np.where(total > 0, total, 1.0), np.float64)

    def read(self, features: F64, variant: Variant | str, threshold: float = 0.85) -> Reading:
        """Labels with confidences; below ``threshold`` or hidden is not known."""
        return reading_from(self.probabilities(features, variant), threshold)


def reading_from(probs: F64, threshold: float) -> Reading:
    """Labels and confidences from probabilities; below ``threshold`` or hidden is not known."""
    labels = np.argmax(probs, axis=1)
    confidence = probs[np.arange(len(labels)), labels]
    known = (confidence >= threshold) & (labels != HIDDEN)
    return Reading(labels.astype(np.int64), confidence, known)


_lock = threading.Lock()
_default: ColourModel | None = None


def training_data() -> tuple[F64, npt.NDArray[np.int64]]:
    """The shipped labelled readings from synthetic renders."""
    path = resources.files("rolit.calibration").joinpath("data/default_cells.npz")
    with path.open("rb") as fh:
        data = np.load(fh)
        return np.asarray(data["X"], np.float64), np.asarray(data["Y"], np.int64)


def default_model() -> ColourModel:
    """The model trained on renders (trained once per process, in about a second)."""
    global _default
    with _lock:
        if _default is None:
            x, y = training_data()
            log.info("training the default colour model on %d rendered cells", len(y))
            _default = ColourModel.fit(x, y)
        return _default
