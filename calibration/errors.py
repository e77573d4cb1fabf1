"""The calibration package's errors."""

from __future__ import annotations

from rolit.vision.errors import CalibrationError

__all__ = ["CalibrationError"]
