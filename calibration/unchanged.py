"""The colour model's answers kept for cells whose picture has not changed since they were classified.

Between moves, a tracked board's frames differ by little more than the
camera's noise, and the calibrated colour model (2,800 trees) is the dearest
part of reading one: about 5 ms of 14 for a 1280x720 frame seen from 60
degrees (``rolit bench vision``). So a cell keeps the probabilities the model
gave it while its readings stay where they were then: the mean Lab of the
disc round its ball's top and of the ring round its waist, each within
:data:`UNCHANGED` of the frame it was last classified on (not the frame
before, so that a slow change adds up until the cell is classified afresh).
The grid must stay put as well (within :data:`KEPT_GRID` cells), as each
cell's readings are compared where they were taken.

A ball put down, taken away or rolled moves those means by tens of units; on
renders of a still board the camera's noise moved them by up to 3.7 (the
renderer's usual noise, 8 frames; up to 12 at its noisiest, where more cells
are simply classified again).

>>> import numpy as np
>>> kept = KeptProbabilities()
>>> corners = np.array([[0.0, 0.0], [80.0, 0.0], [80.0, 80.0], [0.0, 80.0]])
>>> means = np.zeros((4, 6))
>>> answers = lambda rows: np.tile([0.9, 0.1], (int(rows.sum()), 1))
>>> kept.probabilities(corners, means, answers).shape, kept.classified
((4, 2), 4)
>>> means[1, 0] = 30.0  # a ball put down in the second cell
>>> _ = kept.probabilities(corners, means, answers); kept.classified
1
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
import numpy.typing as npt

from rolit.vision.features import CellSamples
from rolit.vision.locate import cells_apart

from .model import Reading

__all__ = ["KEPT_GRID", "UNCHANGED", "KeptProbabilities", "KeptReading", "reading_means"]

F64 = npt.NDArray[np.float64]
Rows = npt.NDArray[np.bool_]

# Lab units a cell's mean readings may move and it keep its answer (see above).
UNCHANGED = 5.0
# Cells the grid may move and the answers be kept (a tracked grid wobbles by a few hundredths frame to frame).
KEPT_GRID = 0.05


def reading_means(samples: CellSamples) -> F64:
    """Cells x 6: the mean Lab of each cell's top disc, then of its waist ring."""
    return np.asarray(np.hstack([samples.top.mean(axis=1), samples.ring.mean(axis=1)]), np.float64)


class KeptProbabilities:
    """Per cell, the colour model's probabilities and the readings they were given for (see above)."""

    def __init__(self) -> None:
        # The grid the answers were given on, and per cell the readings they were given for and the answers.
        self._kept: tuple[F64, F64, F64] | None = None
        self.classified = 0  # cells classified afresh on the last frame

    def forget(self) -> None:
        """Classify every cell afresh on the next frame (the references or the board changed)."""
        self._kept = None

    def probabilities(
        self, corners: F64, means: F64, classify: Callable[[Rows], F64], afresh: Callable[[F64], bool] | None = None
    ) -> F64:
        """Every cell's probabilities on a grid with ``corners`` whose cells read ``means`` (see
        :func:`reading_means`): kept where unchanged, else ``classify(rows)`` for the cells ``rows`` marks.

        Where some cell is classified afresh and ``afresh`` holds for the probabilities, as they were or as
        they are now, every cell is classified afresh. Where no cell is, every answer is kept: what ``afresh``
        looks for, if it is there, is as it was.
        """
        kept = self._kept
        fresh = self._changed(corners, means)
        if kept is not None and afresh is not None and fresh.any() and afresh(kept[2]):
            fresh[:] = True
        if kept is None or fresh.all():
            probs = classify(fresh)
            fresh[:] = True
        else:
            probs = kept[2].copy()
            if fresh.any():
                probs[fresh] = classify(fresh)
                if afresh is not None and afresh(probs):
                    probs[~fresh] = classify(~fresh)
                    fresh[:] = True
        self.classified = int(fresh.sum())
        if kept is None or fresh.all():
            self._kept = np.array(corners, np.float64), means.copy(), probs.copy()
        else:
            self._kept = kept[0], np.where(fresh[:, None], means, kept[1]), probs.copy()
        return probs

    def _changed(self, corners: F64, means: F64) -> Rows:
        """The cells whose readings moved by more than :data:`UNCHANGED`; all of them where the grid moved."""
        kept, n = self._kept, math.isqrt(len(means))
        if kept is None or kept[1].shape != means.shape or cells_apart(kept[0], corners, n) >= KEPT_GRID:
            return np.ones(len(means), bool)
        return np.asarray(np.max(np.abs(means - kept[1]), axis=1) > UNCHANGED, bool)


class KeptReading:
    """What a later stage made of a reading, kept while no cell is classified afresh and the reading it was given
    stays the same (the glints looked for: see :meth:`BoardReader.read`)."""

    def __init__(self) -> None:
        self._given: Reading | None = None
        self._made: Reading | None = None

    def forget(self) -> None:
        """Run the stage afresh on the next frame."""
        self._given = self._made = None

    def reading(self, given: Reading, unchanged: bool, stage: Callable[[Reading], Reading]) -> Reading:
        """``stage(given)``, or what it made of the same reading on an earlier frame when ``unchanged`` (no cell
        classified afresh since, on the same grid)."""
        before = self._given
        if (
            unchanged and before is not None and self._made is not None
            and np.array_equal(before.labels, given.labels) and np.array_equal(before.known, given.known)
            and np.array_equal(before.confidence, given.confidence)
        ):  # fmt: skip
            return self._made
        self._given, self._made = given, stage(given)
        return self._made
