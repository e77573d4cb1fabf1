"""Outlines of the plastic round the start position's balls, for a board the locator's maps do not outline.

The locator takes outlines from maps of the whole picture (the grey level's
two halves, each colour axis's, edges): a dark board on a patterned or
shadowed table often leaves no four-cornered outline in any of them, since
the split that suits the picture as a whole runs through the table, or the
board's edge merges with a shadow. The start position still marks the board:
its four balls are the most colourful thing in its middle, and the plastic
round them is the board's. Here each large patch of strong colour is taken
for those balls in turn; the plastic's colour is read in a ring round it, and
the picture's pixels near that colour, joined across the cups between them,
make one region whose outline is the board's (or, on a board whose frame is
another colour, the frame's inner edge). Stray balls on the table give
outlines too, which the start position read on them rules out (see
:func:`rolit.calibration.reader.calibrate`).

>>> image = np.full((360, 640, 3), (60, 110, 150), np.uint8)  # a brown table
>>> _ = cv2.rectangle(image, (200, 80), (440, 320), (25, 25, 25), -1)  # a black board
>>> _ = cv2.circle(image, (310, 190), 14, (40, 40, 220), -1)  # two balls in its middle
>>> _ = cv2.circle(image, (335, 215), 14, (220, 120, 30), -1)
>>> {cv2.boundingRect(c) for c in contours(image)}  # each ball's patch, each tolerance: the board
{(201, 81, 239, 239)}
"""

from __future__ import annotations

from typing import Any

import cv2
import numpy as np
import numpy.typing as npt

__all__ = ["contours"]

SATURATED, LIT = 110, 60  # HSV saturation and value (0..255) of a ball's colours
PATCHES = 4  # the largest patches of strong colour taken for the start position's balls
LEAST_PATCH = 30  # pixels (work image): smaller patches are not balls
# Lab distances (lightness counts half: shading varies it most) within which a pixel is the plastic's.
NEAR = (12.0, 20.0)
LAB_WEIGHT = np.array([0.5, 1.0, 1.0], np.float32)


def contours(image: npt.NDArray[Any]) -> list[Any]:
    """The outer contours of the plastic round each large patch of strong colour in ``image`` (BGR), largest
    patch first, each at two tolerances of the plastic's colour (see :data:`NEAR`).

    The locator takes four-cornered outlines from them as from its own maps
    (see :meth:`rolit.vision.locate.Locator.candidates`).
    """
    lab = cv2.cvtColor(cv2.GaussianBlur(image, (5, 5), 0), cv2.COLOR_BGR2LAB).astype(np.float32)
    out: list[Any] = []
    for patch in _patches(image):
        radius = float(np.sqrt(patch.sum() / np.pi))
        ring = _disc(patch, 2.0 * radius) & ~_disc(patch, radius)
        if int(ring.sum()) < 10:
            continue
        plastic = np.median(lab[ring], axis=0)
        distance = np.sqrt((((lab - plastic) * LAB_WEIGHT) ** 2).sum(axis=2))
        for near in NEAR:
            region = _region(distance < near, patch, radius)
            if region is not None:
                out.extend(cv2.findContours(region, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)[0])
    return out


def _patches(image: npt.NDArray[Any]) -> list[npt.NDArray[np.bool_]]:
    """The largest patches of strong colour (masks), largest first."""
    hsv = cv2.cvtColor(image, cv2.COLOR_BGR2HSV)
    strong = ((hsv[..., 1] > SATURATED) & (hsv[..., 2] > LIT)).astype(np.uint8)
    _, labels, stats, _ = cv2.connectedComponentsWithStats(
        cv2.morphologyEx(strong, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
    )
    sizes = stats[1:, cv2.CC_STAT_AREA]
    order = [int(i) + 1 for i in np.argsort(-sizes) if sizes[i] >= LEAST_PATCH][:PATCHES]
    return [labels == i for i in order]


def _disc(mask: npt.NDArray[np.bool_], radius: float) -> npt.NDArray[np.bool_]:
    """``mask`` grown by ``radius`` pixels."""
    size = 2 * int(radius) + 1
    kernel = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (size, size))
    return np.asarray(cv2.dilate(mask.astype(np.uint8), kernel) > 0)


def _region(near: npt.NDArray[np.bool_], patch: npt.NDArray[np.bool_], radius: float) -> Any:
    """The pixels ``near`` the plastic's colour joined to ``patch`` (8-bit mask), or ``None``.

    Closed over a ball's radius first: the cups and the balls themselves break the plastic up.
    """
    size = max(3, int(radius)) | 1
    mask = ((near | _disc(patch, 1.0)).astype(np.uint8)) * 255
    closed = cv2.morphologyEx(mask, cv2.MORPH_CLOSE, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (size, size)))
    _, labels = cv2.connectedComponents(cv2.morphologyEx(closed, cv2.MORPH_OPEN, np.ones((5, 5), np.uint8)))
    joined = np.unique(labels[patch])
    joined = joined[joined > 0]
    if not len(joined):
        return None
    return np.isin(labels, joined).astype(np.uint8) * 255
