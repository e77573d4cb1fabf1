"""A grid guess moved onto the cups' own centres, perspective included, where no printed lines show.

The lattice alignment of :mod:`.lattice` moves a guess by an affine map of
the grid, which cannot change its perspective: the guess's vanishing lines
stay where the outline or the balls put them, and from low down a grid can lie
a third of a cell out at a far corner while every cell still locks on. On a
start position almost every cell is an empty cup, each a small mark of its
own centre, so a homography fitted to where each cell's content sits
(:func:`.lattice.realign_projective`) places the grid, perspective too.

It is taken only where the cups show surely: the guess must lock on well
(:data:`SURE`), no worse after the move, and move by less than :data:`REACH`
cells. Where the cups hardly show (a black board's, a dim one's) the
homography follows noise, and a move of more than a third of a cell is
another row of cups. A board's printed lines, where they show, place a grid
better still (:mod:`.gridlines`): a few hundredths of a cell against the
cups' few more.

>>> import numpy as np
>>> from .locate import apply_homography, grid_homography
>>> image = np.full((420, 420, 3), (150, 190, 210), np.uint8)  # plastic, BGR
>>> true = np.array([[60.0, 70.0], [350.0, 60.0], [380.0, 370.0], [40.0, 360.0]])
>>> h = grid_homography(true, 8)
>>> import cv2
>>> for v in range(8):
...     for u in range(8):
...         x, y = apply_homography(h, np.array([[u + 0.5, v + 0.5]]))[0]
...         _ = cv2.circle(image, (round(x), round(y)), 11, (90, 120, 140), -1)
>>> guess = true + [[4.0, -3.0], [-2.0, 5.0], [9.0, 8.0], [-3.0, 2.0]]
>>> placed = on_cups(image, guess, 8)
>>> placed is not None and float(np.abs(placed - true).max()) < 3.0  # pixels; a cell is about 37
True
>>> on_cups(np.full((420, 420, 3), 128, np.uint8), guess, 8) is None  # no cups to be seen
True
"""

from __future__ import annotations

import logging
from typing import Any

import numpy as np
import numpy.typing as npt

from . import lattice
from .locate import cells_apart

__all__ = ["REACH", "SURE", "on_cups"]

log = logging.getLogger(__name__)

F64 = npt.NDArray[np.float64]

# Least lattice quality (lattice.quality: about 1.2 at best) for the cups to place a grid. On development start
# positions without printed lines, guesses under 0.9 were as often moved further out as nearer.
SURE = 0.9
# Most a grid may move (cells, at its worst cell): further is another row of cups, or noise followed.
REACH = 0.3
# Fits, each from the last one's grid (the cells' offsets are measured from where the grid puts them).
LOOKS = 3


def on_cups(image: npt.NDArray[Any], corners: F64, n: int) -> F64 | None:
    """The grid (corners tl, tr, br, bl in ``image``'s pixels) moved onto its cells' own centres by a
    homography, or ``None`` when the cups do not place it surely (see the module's docstring)."""
    start = np.asarray(corners, np.float64)
    view = lattice.look(image, start, n)
    before = lattice.quality(view)
    if before < SURE:
        return None
    for _ in range(LOOKS):
        grid = lattice.realign_projective(view)
        if not np.all(np.isfinite(grid)):
            return None
        view = lattice.look(image, grid, n)
    moved = cells_apart(start, grid, n)
    after = lattice.quality(view)
    if moved > REACH or after < before:
        log.debug("the cups' homography not taken: moved %.2f cells, quality %.2f -> %.2f", moved, before, after)
        return None
    return grid
