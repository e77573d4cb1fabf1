"""Grid guesses from the board's cups, for a board whose outline is not found and that has few balls.

The locator's guesses come from outlines, and failing those from the balls'
highlights (see :mod:`rolit.vision.balls`). A board whose outline merges with
the table (a light board on a light table, a shadow's edge across it) and
that holds only the start position's four balls leaves neither. Its empty
cups still show where the board is not black: each is a round blob a little
darker (or, lit from low down, lighter) than the plastic round it, one cell
from the next. Here blobs are found (OpenCV's blob detector, over many grey
levels), grouped by size (the cups are all about one size; noise, the
table's grain and the balls are not), and the lattice each group spans gives
grid guesses as the highlights' do, on the board's own plane. Only the two
largest lattices give guesses: the board's cups make the largest, and a noisy
picture's many small ones would crowd them out of the locator's first look.

A chequered cloth is a lattice of blobs too, so the grids these guesses lead
to must lock on more surely than others (see ``ACCEPT_CUPS`` in
:mod:`rolit.vision.locate`).

>>> import numpy as np
>>> image = np.full((300, 300, 3), 200, np.uint8)
>>> for i in range(8):
...     for j in range(8):
...         _ = cv2.circle(image, (40 + 30 * i, 40 + 30 * j), 10, (120, 120, 120), -1)
>>> any(np.abs(g - [[25, 25], [265, 25], [265, 265], [25, 265]]).max() < 2 for g in lattice_guesses(image, 8))
True
"""

from __future__ import annotations

from typing import Any

import cv2
import numpy as np
import numpy.typing as npt

from .balls import placed, steps

__all__ = ["blobs", "lattice_guesses"]

F64 = npt.NDArray[np.float64]

# Blobs (pixels of the work image) as large as a cup may be, and as small: a cell is at least 8 pixels there.
BLOB_AREA = (12.0, 4000.0)
# Seen from 30 degrees up, a cup is an ellipse half as high as it is wide.
BLOB_INERTIA = 0.25
# Blobs of one group are within this factor of its size; the groups' sizes step by the factor below.
SIZE_SPREAD, SIZE_STEP = 1.3, 1.25
LEAST_CUPS = 8  # blobs on a lattice, at least, for it to give guesses
LATTICES = 2  # the largest lattices found give guesses


def blobs(image: npt.NDArray[Any], dark: bool) -> tuple[F64, F64]:
    """Round blobs darker (``dark``) or lighter than round them: their centres (x, y) and diameters."""
    grey = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    params = cv2.SimpleBlobDetector.Params()
    params.filterByColor = True
    params.blobColor = 0 if dark else 255
    params.minThreshold, params.maxThreshold, params.thresholdStep = 10, 240, 10
    params.filterByArea = True
    params.minArea, params.maxArea = BLOB_AREA
    params.filterByCircularity = False
    params.filterByInertia = True
    params.minInertiaRatio = BLOB_INERTIA
    params.filterByConvexity = True
    params.minConvexity = 0.8
    params.minDistBetweenBlobs = 4
    found = cv2.SimpleBlobDetector.create(params).detect(grey)
    centres = np.array([k.pt for k in found], np.float64).reshape(-1, 2)
    return centres, np.array([k.size for k in found], np.float64)


def lattice_guesses(image: npt.NDArray[Any], n: int) -> list[F64]:
    """Grid guesses (corners tl, tr, br, bl, pixels of ``image``) from lattices of like blobs; maybe none."""
    found: list[tuple[int, list[F64]]] = []
    for dark in (True, False):
        centres, sizes = blobs(image, dark)
        if not len(sizes):
            continue
        seen: set[tuple[int, ...]] = set()
        size = float(sizes.min())
        while size <= float(sizes.max()) * SIZE_STEP:
            group = np.flatnonzero((sizes > size / SIZE_SPREAD) & (sizes < size * SIZE_SPREAD))
            size *= SIZE_STEP
            key = tuple(int(i) for i in group)
            if len(group) < LEAST_CUPS or key in seen:
                continue
            seen.add(key)
            points = centres[group]
            for a, _, on in steps(points, n):
                found.append((len(on), placed(points, a, on, image.shape, n, height=0.0, least=LEAST_CUPS)))
    found.sort(key=lambda f: -f[0])
    return [g for _, guesses in found[:LATTICES] for g in guesses]
