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

Likewise a grid a search of the whole picture only just took is kept while
the picture stays the same (:class:`KeptSearch`), rather than searched for
again on every frame.

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
from rolit.vision.locate import GridFit, cells_apart
from rolit.vision.register import grey_picture

from .model import Reading

__all__ = [
    "KEPT_GRID", "PICTURE_BLOCK", "PICTURE_UNCHANGED", "SEARCH_AGAIN", "UNCHANGED", "KeptProbabilities", "KeptReading",
    "KeptSearch", "reading_means",
]  # fmt: skip

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


# A still picture (see KeptSearch) is compared in blocks this many pixels a side, whose mean grey may move by up to
# this many levels (of 255). On renders of a still board, 1280x720, the camera's noise moved them by up to 4 (8 at
# the renderer's noisiest); a ball put down moved some block by 15 or more, and a board or camera that moves, many.
PICTURE_BLOCK = 16
PICTURE_UNCHANGED = 12.0
# A still picture is searched again on this many frames after its search (about a second at 10-30 frames a second),
# then after twice as many each time: on a noisy frame a search may take a surer grid, and then follow it
# (development clip 3094: the second frame's), but the more searches of a picture took none, the less likely.
SEARCH_AGAIN = 10
U8 = npt.NDArray[np.uint8]


class KeptSearch:
    """A grid a search of the whole picture only just took, kept while the picture stays the same.

    Such a grid is not followed from frame to frame (see
    :meth:`rolit.calibration.reader.BoardReader.locate`), so every frame used
    to be searched afresh: 300-500 ms a frame for a full board seen from low
    down, and on a still board half of those frames found none. Where the
    picture has not changed, the board has not moved either. The picture is
    compared with the one searched, not the frame before, so a slow change
    adds up until it is searched again. It is searched again all the same on
    the :data:`SEARCH_AGAIN`-th frame, then the 20th, the 40th and so on (a
    grid found then replaces this one; where none is found, this one is kept).

    >>> from rolit.vision.locate import GridFit
    >>> kept, picture = KeptSearch(), np.full((64, 64, 3), 100, np.uint8)
    >>> fit = GridFit(np.zeros((4, 2)), np.eye(3), 0.1, 0.1)
    >>> kept.remember(picture, fit)
    >>> kept.recall(picture + 3) is fit  # the camera's noise
    True
    >>> picture[:16, :16] = 200  # something moved
    >>> kept.recall(picture) is None
    True
    """

    def __init__(self) -> None:
        self._searched: tuple[npt.NDArray[np.int16], GridFit] | None = None
        self._recalled = 0  # frames of this picture since it was first searched
        self._due = SEARCH_AGAIN  # the frame it is searched again on

    def forget(self) -> None:
        """Search the next picture."""
        self._searched = None

    def remember(self, image: U8, found: GridFit) -> None:
        """A search of ``image`` found ``found``, and it is not followed."""
        blocks = _blocks(image)
        if not self._same(blocks):
            self._recalled, self._due = 0, SEARCH_AGAIN
        self._searched = blocks, found

    def recall(self, image: U8) -> GridFit | None:
        """What the search found, where ``image`` is the picture searched up to the camera's noise (and a search
        is not due again: see :data:`SEARCH_AGAIN`)."""
        if self._searched is None or not self._same(_blocks(image)):
            return None
        self._recalled += 1
        if self._recalled >= self._due:
            self._due *= 2
            return None
        return self._searched[1]

    def _same(self, blocks: npt.NDArray[np.int16]) -> bool:
        searched = self._searched
        return (
            searched is not None and blocks.shape == searched[0].shape
            and bool(np.max(np.abs(blocks - searched[0])) <= PICTURE_UNCHANGED)
        )  # fmt: skip


def _blocks(image: U8) -> npt.NDArray[np.int16]:
    """The mean grey of each :data:`PICTURE_BLOCK` pixels square of ``image``."""
    h, w = image.shape[:2]
    size = (max(1, w // PICTURE_BLOCK), max(1, h // PICTURE_BLOCK))
    return grey_picture(image, (0, 0, w, h), size).astype(np.int16)
