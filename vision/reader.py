"""The board reader: camera frames in, :class:`~rolit.vision.observation.Observation` out.

Stages, one module each: :mod:`.locate` finds the grid (homography, tracking),
:mod:`.pose` recovers the camera pose for parallax, :mod:`.features` samples
each ball's top, and :mod:`rolit.calibration` classifies the samples.
"""

from __future__ import annotations

__all__ = ["BoardReader"]


class BoardReader:
    """Reads boards from frames of one camera (being built: see issue 5)."""
