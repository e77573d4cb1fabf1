"""A picture with the light's fall across it taken off, for finding a board a hard shadow crosses.

A lamp's shadow with a sharp edge (a shelf, a lampshade's rim, a person
standing by the table) splits a board into a lit part and a dark one. The
board's outline then runs along the shadow's edge as much as along the board's,
and no one colour is the plastic's, so the lattice of cups locks on in one part
only. Light multiplies what each surface reflects, so dividing each pixel by
the light falling there leaves the surfaces alone. The light is estimated as
the brightest surface round each pixel (a morphological closing of the
brightest channel: printed lines, small cups and the gaps between balls are
darker than the plastic round them and narrower than the window, so the plastic
is what it finds there; a cup wider than the window is partly taken for light,
and keeps only its rim), which keeps a shadow's straight edge sharp where a
blur would smear it over a cell.

Flattening also takes off what tells a dark board from a light table, so it is
no replacement for the picture itself: calibration looks in it for the board's
printed lines where none show in the picture as it is, and for the whole board
only when the picture as it is shows no start position; game frames never use
it (see :func:`rolit.calibration.reader.calibrate`).

>>> import numpy as np
>>> image = np.full((120, 160, 3), 200, np.uint8)
>>> image[:, 80:] //= 4                     # a hard shadow over the right half
>>> image[50:60, 30:40] = 100             # a cup in the light, half as bright as the plastic round it
>>> image[50:60, 110:120] = 25            # and one in the shadow
>>> flat = flattened(image, 21)
>>> [int(flat[55, 35, 0]), int(flat[55, 115, 0])], [int(flat[10, 20, 0]), int(flat[10, 140, 0])]
([62, 62], [125, 125])
"""

from __future__ import annotations

from typing import Any

import cv2
import numpy as np
import numpy.typing as npt

__all__ = ["DARKEST", "flattened"]

U8 = npt.NDArray[np.uint8]

# The light is never taken as less than this share of the picture's typical light: the darkest surfaces (a black
# board, a dark floor) would otherwise be raised to the plastic's level, noise and all.
DARKEST = 0.2


def flattened(image: npt.NDArray[Any], size: int) -> U8:
    """``image`` (BGR) with each pixel divided by the light falling there, estimated over ``size`` pixels (wider
    than the board's printed lines), and scaled back to the picture's typical level."""
    if size < 3:
        raise ValueError("the light's window must be at least 3 pixels")
    bright = np.asarray(image, np.uint8).max(axis=2)
    window = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (size, size))
    closed = cv2.morphologyEx(bright, cv2.MORPH_CLOSE, window).astype(np.float32)
    # The closing leaves a staircase of flat patches; a small blur keeps the edge and smooths the patches.
    smooth = size // 4 * 2 + 1
    light = np.asarray(cv2.blur(closed, (smooth, smooth)), np.float32)
    typical = float(np.median(light))
    gain = typical / np.maximum(light, max(1.0, DARKEST * typical))
    return np.asarray(np.clip(image * gain[..., None], 0, 255), np.uint8)
