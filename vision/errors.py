"""The vision package's exceptions (all :class:`~rolit.engine.errors.RolitError`)."""

from __future__ import annotations

from rolit.engine.errors import RolitError

__all__ = ["RenderError"]


class RenderError(RolitError, ValueError):
    """A render that cannot be made: bad parameters, a board that does not fit, an unwritable output."""
