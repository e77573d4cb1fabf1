"""The calibrated colour model: each cell read against what this camera showed at calibration.

The default model has to know every light, camera and board at once. A
calibrated camera has shown us, in the start position, what every cell of this
board looks like empty and what each ball colour looks like, under this light.
So here each cell's readings are compared with its own empty readings (like
background subtraction: a ball, or a hand, is what differs) and with each
colour's reference, both as they are and relative to the light on the two
spots. A gradient-boosted classifier trained on such comparisons from renders
(``data/camera_cells.npz``, made and fitted into ``data/camera_model.npz`` by
``python -m rolit.calibration.train --camera``) turns them into label
probabilities. A colour outside the
edition's palette (grey in classic, blue in Junior) has no reference; its
comparisons are missing values, which the classifier was trained to expect.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from rolit.vision.features import FEATURE_NAMES

from .model import LABELS, ColourModel, shipped_model
from .profile import Profile

__all__ = ["CAMERA_FEATURE_NAMES", "camera_features", "camera_model"]

F64 = npt.NDArray[np.float64]

# The ball colours a reference may exist for, by label (red .. grey).
COLOUR_LABELS = (1, 2, 3, 4, 5)

# Lab weights for distances: lightness varies most with light and highlights.
_LAB_WEIGHT = np.array([0.5, 1.0, 1.0])

CAMERA_FEATURE_NAMES: tuple[str, ...] = (
    *FEATURE_NAMES,
    *(f"d_{name}" for name in FEATURE_NAMES),
    *(f"{LABELS[c]}_{what}" for c in COLOUR_LABELS for what in ("dL", "da", "db", "dist", "dist_local")),
    *(f"{LABELS[c]}_votes" for c in (0, *COLOUR_LABELS)),
)


def camera_features(features: F64, top_samples: npt.ArrayLike, profile: Profile) -> F64:
    """Cells x len(CAMERA_FEATURE_NAMES): readings, their change from empty, and their distance to each colour.

    ``features`` are the readings of :func:`rolit.vision.features.features_from_lab`
    for the image cells (row-major), as calibrated ``profile`` holds them;
    ``top_samples`` the Lab samples round each ball's top they came from
    (:attr:`rolit.vision.features.CellSamples.top`).
    """
    cells, colours, local = profile.refs()
    if len(cells) != len(features):
        raise ValueError(f"the profile has {len(cells)} cells, the reading {len(features)}")
    change = features - cells
    top = features[:, :3]
    cols = [features, change]
    for label in COLOUR_LABELS:
        ref = colours.get(LABELS[label])
        if ref is None:
            cols.append(np.full((len(features), 5), np.nan))
            continue
        diff = top - ref[:3]
        dist = np.sqrt(np.sum(diff**2 * _LAB_WEIGHT, axis=1))
        # The same comparison relative to each spot's empty cup: a ball in a
        # darker corner than its reference is darker by as much as the cup is.
        rel = change[:, :3] - (ref[:3] - local[LABELS[label]][:3])
        dist_local = np.sqrt(np.sum(rel**2 * _LAB_WEIGHT, axis=1))
        cols.append(np.column_stack([diff, dist, dist_local]))
    cols.append(_votes(np.asarray(top_samples, np.float64), cells, colours, local))
    return np.asarray(np.column_stack(cols), np.float64)


def _votes(samples: F64, cells: F64, colours: dict[str, F64], local: dict[str, F64]) -> F64:
    """Per cell, the share of its top's samples nearest the empty cup and each colour (missing: no reference).

    A ball's colours are segments round it; when the reading disc slips off its
    top onto a side segment the median drifts between two colours, while the
    votes still show which covers more of the disc.
    """
    count = len(cells)
    # Everything relative to each spot's empty cup, so light falling off across the board matters less.
    rel = samples - cells[:, None, :3]
    names = [LABELS[c] for c in COLOUR_LABELS if LABELS[c] in colours]
    centres = np.zeros((1 + len(names), 3))
    for j, name in enumerate(names, start=1):
        centres[j] = colours[name][:3] - local[name][:3]
    d = np.sum((rel[:, :, None, :] - centres[None, None, :, :]) ** 2 * _LAB_WEIGHT, axis=-1)
    nearest = np.argmin(d, axis=2)
    out = np.full((count, 1 + len(COLOUR_LABELS)), np.nan)
    out[:, 0] = np.mean(nearest == 0, axis=1)
    for j, name in enumerate(names, start=1):
        out[:, LABELS.index(name)] = np.mean(nearest == j, axis=1)
    return out


def camera_model() -> ColourModel:
    """The calibrated model (see :func:`rolit.calibration.model.shipped_model`)."""
    return shipped_model("camera")
