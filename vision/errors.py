"""The vision package's exceptions (all :class:`~rolit.engine.errors.RolitError`)."""

from __future__ import annotations

from rolit.engine.errors import RolitError

__all__ = [
    "BoardNotFoundError",
    "CalibrationBoardNotFoundError",
    "CalibrationError",
    "RenderError",
    "SourceError",
    "VisionError",
]


class VisionError(RolitError):
    """Base class of the vision package's errors."""


class RenderError(VisionError, ValueError):
    """A render that cannot be made: bad parameters, a board that does not fit, an unwritable output."""


class SourceError(VisionError):
    """A camera, file or stream that cannot be opened or read."""


class BoardNotFoundError(VisionError):
    """No board in the image (``rolit recognize`` exits with status 3)."""

    exit_status = 3


class CalibrationError(VisionError, ValueError):
    """A calibration that cannot be made or a profile that cannot be read."""


class CalibrationBoardNotFoundError(CalibrationError, BoardNotFoundError):
    """No board in the picture to calibrate from (``rolit calibrate`` exits with status 3, as ``recognize`` does)."""
