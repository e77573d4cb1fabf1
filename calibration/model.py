"""The colour model: which of empty, a colour, or hidden each cell reading is (scikit-learn).

A gradient-boosted classifier over the features of :mod:`rolit.vision.features`
gives each cell a probability per label; only the edition's palette counts
(classic: red, yellow, green, blue; Junior: grey for blue), and a reading whose
best label is below the confidence threshold, or that looks like a hand, is
unknown rather than a guess.

The default model is trained on synthetic renders (``data/default_cells.npz``,
made by ``python -m rolit.calibration.train``), which also fits it and stores
its trees as plain arrays (``data/default_model.npz``, see
:meth:`ColourModel.save`); a process loads that once, in a fraction of a second.
"""

from __future__ import annotations

import logging
import threading
import weakref
from collections.abc import Collection
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
from sklearn.ensemble import HistGradientBoostingClassifier
from threadpoolctl import ThreadpoolController

from rolit.engine import Colour, Variant, get_variant

from .errors import CalibrationError

__all__ = [
    "ColourModel",
    "Reading",
    "default_model",
    "fast_predict_proba",
    "reading_from",
    "LABELS",
    "EMPTY",
    "HIDDEN",
]

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


# The node fields prediction needs, as stored (see ColourModel.save) and read back.
_NODE_FIELDS = (
    ("value", np.float64), ("feature_idx", np.int64), ("num_threshold", np.float64),
    ("missing_go_to_left", np.uint8), ("left", np.uint32), ("right", np.uint32), ("is_leaf", np.uint8),
)  # fmt: skip
_NODE_DTYPE = np.dtype(list(_NODE_FIELDS))


class _Nodes:
    """One stored tree, as scikit-learn's predictor holds it (``.nodes``: a structured array)."""

    def __init__(self, fields: dict[str, npt.NDArray[Any]], start: int, end: int) -> None:
        self.nodes = np.zeros(end - start, _NODE_DTYPE)
        for name, _ in _NODE_FIELDS:
            self.nodes[name] = fields[name][start:end]


class _StoredTrees:
    """A stored classifier: the trees, laid out as a fitted ``HistGradientBoostingClassifier`` lays them out
    (one tree per class each iteration), so that :func:`fast_predict_proba` compiles them alike."""

    def __init__(
        self, trees: list[_Nodes], iterations: int, baseline: F64, classes: npt.NDArray[np.int64], n_features: int
    ) -> None:
        per = len(trees) // max(1, iterations)
        if iterations < 1 or per < 1 or per * iterations != len(trees) or baseline.shape != (1, per):
            raise ValueError("the trees, iterations and baseline do not match")
        self._predictors = [trees[i * per : (i + 1) * per] for i in range(iterations)]
        self._baseline_prediction = baseline
        self.classes_ = classes
        self.n_features_in_ = n_features
        self._loss = _Link(per)

    def predict_proba(self, features: npt.ArrayLike) -> F64:
        x = np.asarray(features, np.float64)
        if x.ndim != 2 or x.shape[1] != self.n_features_in_:
            raise ValueError(f"X has {x.shape[-1]} features, but the model is expecting {self.n_features_in_} features")
        return fast_predict_proba(self, x)


class _Link:
    """Raw scores to probabilities, as scikit-learn's losses do: softmax, or the logistic for two classes."""

    def __init__(self, outputs: int) -> None:
        self.outputs = outputs

    def predict_proba(self, raw: F64) -> F64:
        if self.outputs == 1:
            p = 1.0 / (1.0 + np.exp(-raw[:, 0]))
            return np.asarray(np.c_[1.0 - p, p], np.float64)
        e = np.exp(raw - raw.max(axis=1, keepdims=True))
        return np.asarray(e / e.sum(axis=1, keepdims=True), np.float64)


class ColourModel:
    """A classifier of cell readings, fitted on labelled features."""

    def __init__(self, classifier: Any) -> None:
        """``classifier``: a fitted ``HistGradientBoostingClassifier``, or the trees :meth:`load` read."""
        self.classifier = classifier
        self.classes = [int(c) for c in classifier.classes_]

    @classmethod
    def fit(
        cls, features: F64, labels: npt.NDArray[np.int64], seed: int = 0, max_iter: int = 250,
        early_stopping: bool | str = "auto",
    ) -> ColourModel:
        """Train on labelled readings (``max_iter`` boosting rounds, fewer if ``early_stopping`` says so)."""
        if len(features) != len(labels) or len(features) < 20:
            raise CalibrationError("a colour model needs at least 20 labelled cells")
        clf = HistGradientBoostingClassifier(
            max_iter=max_iter, learning_rate=0.08, max_leaf_nodes=31, l2_regularization=1.0,
            early_stopping=early_stopping, random_state=seed,
        )  # fmt: skip
        with _one_thread():
            clf.fit(features, labels)
        return cls(clf)

    def save(self, path: str | Path) -> None:
        """Store the fitted trees in an ``.npz`` file (plain arrays: any scikit-learn version loads them).

        >>> import io, numpy as np
        >>> x = np.random.default_rng(0).normal(size=(100, 2)); y = (x[:, 0] > 0).astype(int)
        >>> model, buf = ColourModel.fit(x, y), io.BytesIO()
        >>> model.save(buf); _ = buf.seek(0)
        >>> bool(np.allclose(ColourModel.load(buf).probabilities(x, "classic"), model.probabilities(x, "classic")))
        True
        """
        clf = self.classifier
        trees = [p.nodes for iteration in clf._predictors for p in iteration]
        if any("is_categorical" in t.dtype.names and bool(np.any(t["is_categorical"])) for t in trees):
            raise CalibrationError("a colour model with categorical splits cannot be stored")
        arrays: dict[str, Any] = {
            name: np.concatenate([t[name] for t in trees]).astype(kind) for name, kind in _NODE_FIELDS
        }
        arrays.update(
            sizes=np.array([len(t) for t in trees], np.int64),
            iterations=np.int64(len(clf._predictors)),
            baseline=np.asarray(clf._baseline_prediction, np.float64),
            classes=np.asarray(clf.classes_, np.int64),
            n_features=np.int64(clf.n_features_in_),
        )
        np.savez_compressed(path, **arrays)

    @classmethod
    def load(cls, path: Any) -> ColourModel:
        """A model :meth:`save` stored (a path or a binary file)."""
        try:
            with np.load(path) as data:
                sizes = np.asarray(data["sizes"], np.int64)
                fields = {name: np.asarray(data[name], kind) for name, kind in _NODE_FIELDS}
                iterations = int(data["iterations"])
                ends = np.cumsum(sizes)
                if np.any(sizes < 1) or any(len(f) != ends[-1] for f in fields.values()):
                    raise ValueError("the trees' sizes do not match their nodes")
                trees = _StoredTrees(
                    [_Nodes(fields, int(a), int(b)) for a, b in zip(ends - sizes, ends, strict=True)],
                    iterations,
                    np.asarray(data["baseline"], np.float64),
                    np.asarray(data["classes"], np.int64),
                    int(data["n_features"]),
                )
        except (OSError, EOFError, KeyError, IndexError, ValueError) as exc:
            raise CalibrationError(f"not a stored colour model: {exc}") from None
        if _forest(trees) is None:
            raise CalibrationError("not a stored colour model: its trees do not fit together")
        return cls(trees)

    def probabilities(self, features: F64, variant: Variant | str) -> F64:
        """Cells x 7 label probabilities, with colours outside the edition's palette removed."""
        v = get_variant(variant)
        allowed = np.zeros(len(LABELS), bool)
        allowed[[EMPTY, HIDDEN]] = True
        for colour in v.colours:
            allowed[int(colour) + 1] = True
        # The classes left out have no probability, and the others' are renormalised over them.
        raw = fast_predict_proba(self.classifier, features, set(np.flatnonzero(allowed).tolist()))
        probs = np.zeros((len(features), len(LABELS)))
        probs[:, self.classes] = raw
        return probs

    def read(self, features: F64, variant: Variant | str, threshold: float = 0.85) -> Reading:
        """Labels with confidences; below ``threshold`` or hidden is not known."""
        return reading_from(self.probabilities(features, variant), threshold)


# Fast prediction -------------------------------------------------------------------
#
# predict_proba walks its trees one Cython call each (hundreds per frame), which for
# a frame's few dozen cells costs far more than the walking itself. The fitted trees
# are compiled once into tables in the manner of QuickScorer (Lucchese et al., 2015):
# number each tree's leaves from left to right; a split a reading goes right at rules
# out its left subtree's leaves, and the reading's leaf is the leftmost one no split
# rules out. Splits on one feature going right for a value are exactly those whose
# threshold is below it, so for each feature and each place among its thresholds the
# leaves ruled out in every tree are precomputed (a bit mask per tree); a reading's
# leaves are then one table row per feature, ANDed together.

_MASK_BITS = 64  # leaves per tree the masks hold (31 with the default max_leaf_nodes)


@dataclass(frozen=True)
class _Forest:
    """A fitted classifier's trees as QuickScorer tables (see above)."""

    cuts: list[F64]  # per feature: its split thresholds, sorted and distinct
    offsets: npt.NDArray[np.intp]  # per feature: its first row in ``table``
    table: npt.NDArray[np.unsignedinteger[Any]]  # rows x trees: the leaves still possible (bit i: leaf i)
    leaves: F64  # trees x leaves: the leaves' values, left to right
    outputs: int  # raw outputs (one per class)
    baseline: F64  # (1, outputs)
    # The trees are laid out an output at a time (every iteration's tree of the first output in ``order``,
    # then the next's), so that the trees of the outputs a frame needs are runs of columns (see _output_order).
    order: tuple[int, ...]
    rounds: int  # trees per output


_forests: weakref.WeakKeyDictionary[Any, tuple[Any, _Forest | None]] = weakref.WeakKeyDictionary()
_forests_lock = threading.Lock()


@dataclass(frozen=True)
class _Splits:
    """The splits of all trees as :func:`_walk` finds them, one entry each."""

    feature: list[int]
    threshold: list[float]
    tree: list[int]
    nan_left: list[bool]
    ruled_out: list[tuple[int, int]]  # the leaves (first, end) of the split's left subtree


def _walk(nodes: Any, i: int, tree: int, n_features: int, values: list[float], splits: _Splits) -> bool:
    """Depth first from node ``i``, left before right, so that the leaves (their values in ``values``) are
    numbered left to right and each split's left subtree is a run of them. False if a split is not on a
    feature the classifier knows."""
    node = nodes[i]
    if node["is_leaf"]:
        values.append(float(node["value"]))
        return True
    f = int(node["feature_idx"])
    if not 0 <= f < n_features:
        return False
    split = len(splits.ruled_out)
    splits.feature.append(f)
    splits.threshold.append(float(node["num_threshold"]))
    splits.tree.append(tree)
    splits.nan_left.append(bool(node["missing_go_to_left"]))
    splits.ruled_out.append((len(values), len(values)))
    if not _walk(nodes, int(node["left"]), tree, n_features, values, splits):
        return False
    splits.ruled_out[split] = (splits.ruled_out[split][0], len(values))
    return _walk(nodes, int(node["right"]), tree, n_features, values, splits)


def _compile(clf: Any) -> _Forest | None:
    """The classifier's trees as tables, or ``None`` if they are not the numeric trees this knows."""
    try:
        predictors = clf._predictors
        n_features = int(clf.n_features_in_)
        outputs = len(predictors[0])
        baseline = np.asarray(clf._baseline_prediction, np.float64).reshape(1, outputs)
        order = _output_order([int(c) for c in clf.classes_], outputs)
        if any(len(iteration) != outputs for iteration in predictors):
            return None
        trees = [(k, iteration[k].nodes) for k in order for iteration in predictors]
    except (AttributeError, IndexError, TypeError, ValueError):
        return None
    if not trees or getattr(clf, "_preprocessor", None) is not None or not hasattr(clf, "_loss"):
        return None
    need = ("feature_idx", "num_threshold", "left", "right", "is_leaf", "value", "missing_go_to_left")
    feature: list[int] = []
    threshold: list[float] = []
    tree_of: list[int] = []
    nan_left: list[bool] = []
    ruled_out: list[tuple[int, int]] = []
    leaf_values: list[list[float]] = []
    for t, (_, nodes) in enumerate(trees):
        names = getattr(nodes.dtype, "names", None) or ()
        if not all(name in names for name in need):
            return None
        if "is_categorical" in names and bool(np.any(nodes["is_categorical"])):
            return None
        values: list[float] = []
        splits = _Splits(feature, threshold, tree_of, nan_left, ruled_out)
        if not _walk(nodes, 0, t, n_features, values, splits) or len(values) > _MASK_BITS:
            return None
        leaf_values.append(values)
    count = len(trees)
    width = max(len(v) for v in leaf_values)
    dtype = np.uint32 if width <= 32 else np.uint64
    full = np.iinfo(dtype).max
    masks = np.array([full ^ (((1 << b) - 1) ^ ((1 << a) - 1)) for a, b in ruled_out], dtype)
    features, thresholds = np.array(feature, np.intp), np.array(threshold, np.float64)
    trees_of, nans_left = np.array(tree_of, np.intp), np.array(nan_left, bool)
    cuts, offsets, tables = [], [], []
    start = 0
    for f in range(n_features):
        on = features == f
        cut = np.unique(thresholds[on])
        # Row j: the leaves left when the reading is above the first j thresholds (their splits go right);
        # the last row: when it is missing (only the splits that send a missing value right rule any out).
        rows = np.full((len(cut) + 2, count), full, dtype)
        np.bitwise_and.at(rows, (np.searchsorted(cut, thresholds[on]) + 1, trees_of[on]), masks[on])
        rows[: len(cut) + 1] = np.bitwise_and.accumulate(rows[: len(cut) + 1], axis=0)
        right = on & ~nans_left
        np.bitwise_and.at(rows[-1], trees_of[right], masks[right])
        cuts.append(cut)
        offsets.append(start)
        tables.append(rows)
        start += len(rows)
    leaves = np.zeros((count, width))
    for t, values in enumerate(leaf_values):
        leaves[t, : len(values)] = values
    return _Forest(
        cuts, np.array(offsets, np.intp), np.concatenate(tables), leaves, outputs, baseline, order, len(predictors)
    )


# Labels some edition has no ball of (blue: Junior; grey: all but Junior): their outputs' trees go last, so that
# an edition's outputs are one run of the table's columns, or two (see _Forest.order).
_LABELS_LAST = (4, 5)


def _output_order(classes: list[int], outputs: int) -> tuple[int, ...]:
    """The outputs in the order the table lays their trees out: those of :data:`_LABELS_LAST` last.

    >>> _output_order([0, 1, 2, 3, 4, 5, 6], 7), _output_order([0, 1], 1)
    ((0, 1, 2, 3, 6, 4, 5), (0,))
    """
    if outputs != len(classes):  # one output for two classes (a binary classifier)
        return tuple(range(outputs))
    return tuple(sorted(range(outputs), key=lambda k: (classes[k] in _LABELS_LAST, k)))


def _forest(clf: Any) -> _Forest | None:
    """The compiled trees of ``clf`` (compiled once per fit, kept as long as the classifier)."""
    with _forests_lock:
        try:
            cached = _forests.get(clf)
        except TypeError:  # not weakly referable: compile every time
            return _compile(clf)
        predictors = getattr(clf, "_predictors", None)
        if cached is None or cached[0] is not predictors:
            cached = (predictors, _compile(clf))
            _forests[clf] = cached
        return cached[1]


def fast_predict_proba(clf: Any, features: npt.ArrayLike, classes: Collection[int] | None = None) -> F64:
    """``clf.predict_proba(features)`` for a fitted ``HistGradientBoostingClassifier``, the same to rounding,
    about ten times faster on a frame's few dozen readings (see :class:`_Forest`).

    With ``classes`` (of ``clf.classes_``) the probabilities are those among these classes alone, the others
    0: ``predict_proba`` renormalised over them, the same to rounding. The other classes' trees are not walked
    (a colour the edition has no ball of; a seventh of the trees for every edition).

    Missing values (NaN) go the way each split learnt. Classifiers whose trees
    are not plain numeric splits (categorical features, more than 64 leaves a
    tree), or input that is not a 2-D array of the fitted width, go to
    ``predict_proba`` itself.
    """
    forest = _forest(clf)
    x = np.asarray(features)
    if forest is None or x.ndim != 2 or x.shape[1] != len(forest.cuts) or not np.issubdtype(x.dtype, np.number):
        with _one_thread():
            return _among(clf, np.asarray(clf.predict_proba(features), np.float64), classes)
    x = np.asarray(x, np.float64)
    rows = np.empty((len(x), x.shape[1]), np.intp)
    for f, cut in enumerate(forest.cuts):
        column = x[:, f]
        place = np.searchsorted(cut, column)  # how many thresholds lie below: the splits that go right
        rows[:, f] = np.where(np.isnan(column), len(cut) + 1, place) + forest.offsets[f]
    if forest.outputs == 1:  # one output for two classes
        raw = _raw_scores(forest, rows, 0, forest.rounds)
        return _among(clf, np.asarray(clf._loss.predict_proba(raw + forest.baseline), np.float64), classes)
    labels = [int(c) for c in clf.classes_]
    wanted = [classes is None or labels[k] in classes for k in forest.order]
    # A class left out scores minus infinity: its probability is 0, and the others' those among themselves.
    raw = np.full((len(x), forest.outputs), -np.inf)
    for first, end in _runs(wanted):
        raw[:, forest.order[first:end]] = _raw_scores(forest, rows, first * forest.rounds, end * forest.rounds)
    return np.asarray(clf._loss.predict_proba(raw + forest.baseline), np.float64)


def _among(clf: Any, probs: F64, classes: Collection[int] | None) -> F64:
    """``probs`` (of ``clf.classes_``) renormalised over ``classes``, the others 0 (as they are without)."""
    if classes is None:
        return probs
    probs[:, [int(c) not in classes for c in clf.classes_]] = 0.0
    total = probs.sum(axis=1, keepdims=True)
    return np.asarray(probs / np.where(total > 0, total, 1.0), np.float64)


def _runs(wanted: list[bool]) -> list[tuple[int, int]]:
    """The runs (first, end) of True in ``wanted``.

    >>> _runs([True, True, False, True]), _runs([False])
    ([(0, 2), (3, 4)], [])
    """
    edges = np.diff(np.concatenate([[0], np.asarray(wanted, np.int8), [0]]))
    return [(int(a), int(b)) for a, b in zip(np.flatnonzero(edges == 1), np.flatnonzero(edges == -1), strict=True)]


def _raw_scores(forest: _Forest, rows: npt.NDArray[np.intp], first: int, end: int) -> F64:
    """Readings x outputs: the sums of the trees in the table's columns ``first`` to ``end`` (whole outputs),
    for the readings whose rows of the table are ``rows`` (readings x features)."""
    left = forest.table[rows[:, 0], first:end]
    for f in range(1, rows.shape[1]):
        left &= forest.table[rows[:, f], first:end]
    # The leftmost leaf left: the lowest bit set (its power of two, exact in a float, gives its place).
    lowest = left & (~left + left.dtype.type(1))
    leaf = np.frexp(lowest.astype(np.float64))[1] - 1
    values = forest.leaves[np.arange(first, end), leaf]
    # Each output's trees in a row (a sum, not a product: BLAS would share so small a product between
    # threads, and on a busy machine wait for them).
    return np.asarray(values.reshape(len(rows), -1, forest.rounds).sum(axis=2), np.float64)


def reading_from(probs: F64, threshold: float | F64) -> Reading:
    """Labels and confidences from probabilities; below ``threshold`` (one for every label, or one per label) or
    hidden is not known.

    >>> p = np.array([[0.96, 0, 0, 0, 0, 0.04, 0], [0.04, 0, 0, 0, 0, 0.96, 0]])
    >>> reading_from(p, 0.99).known.tolist(), reading_from(p, [0.99, 1, 1, 1, 1, 0.95, 1]).known.tolist()
    ([False, False], [False, True])
    """
    labels = np.argmax(probs, axis=1)
    confidence = probs[np.arange(len(labels)), labels]
    least = np.asarray(threshold, np.float64)
    known = (confidence >= (least[labels] if least.ndim else least)) & (labels != HIDDEN)
    return Reading(labels.astype(np.int64), confidence, known)


_lock = threading.Lock()
_trained: dict[str, ColourModel] = {}


def training_data(name: str = "default_cells.npz") -> tuple[F64, npt.NDArray[np.int64]]:
    """The shipped labelled readings ``data/<name>`` from synthetic renders."""
    path = resources.files("rolit.calibration").joinpath(f"data/{name}")
    with path.open("rb") as fh:
        data = np.load(fh)
        return np.asarray(data["X"], np.float64), np.asarray(data["Y"], np.int64)


def shipped_model(name: str) -> ColourModel:
    """The model shipped as ``data/<name>_model.npz``, fitted on ``data/<name>_cells.npz`` by
    ``python -m rolit.calibration.train`` (loaded once per process)."""
    with _lock:
        if name not in _trained:
            with resources.files("rolit.calibration").joinpath(f"data/{name}_model.npz").open("rb") as fh:
                _trained[name] = ColourModel.load(fh)
        return _trained[name]


def default_model() -> ColourModel:
    """The model trained on renders (see :func:`shipped_model`)."""
    return shipped_model("default")
