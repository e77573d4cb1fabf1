"""The calibration package's errors."""

from __future__ import annotations

from rolit.vision.errors import CalibrationBoardNotFoundError, CalibrationError

__all__ = ["CalibrationBoardNotFoundError", "CalibrationError"]
