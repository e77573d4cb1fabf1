"""Which board reader the live session uses.

The real one is :class:`rolit.calibration.BoardReader`, with the calibration
profile when one was saved. Tests may inject another object with the same
``read(image) -> Observation`` and ``reset()`` methods (the app's
``READER_FACTORY`` setting).
"""

from __future__ import annotations

import logging
import os
from collections.abc import Callable
from pathlib import Path
from typing import Protocol

import numpy as np
import numpy.typing as npt

from rolit.calibration import BoardReader, Profile
from rolit.calibration.camera_model import camera_model
from rolit.engine import RolitError
from rolit.vision.observation import Observation

__all__ = ["FrameReader", "ReaderFactory", "real_reader_factory", "load_profile"]

log = logging.getLogger(__name__)


class FrameReader(Protocol):
    """What the worker needs from a board reader."""

    def read(self, image: npt.NDArray[np.uint8]) -> Observation:
        """One frame's reading."""

    def reset(self) -> None:
        """Forget tracking state (a new game, or the board was moved)."""


ReaderFactory = Callable[[str], FrameReader]


def load_profile(path: str | Path | None) -> Profile | None:
    """The calibration profile at ``path``, or ``None`` when there is none (or it cannot be read)."""
    if not path or not Path(path).exists():
        return None
    try:
        return Profile.load(path)
    except RolitError as exc:  # a bad profile must not stop the page: read without it
        log.warning("calibration profile %s not used: %s", path, exc)
        return None


def profile_problem(path: str | Path | None) -> str | None:
    """Why the profile at ``path`` cannot be used (``None``: it can, or there is none)."""
    if not path or not Path(path).exists():
        return None
    try:
        Profile.load(path)
    except RolitError as exc:
        return str(exc)
    return None


def set_aside_damaged(path: Path) -> Path | None:
    """Before a new profile is saved over a damaged one, keep the damaged file beside it."""
    if profile_problem(path) is None:
        return None
    kept = path.with_name(path.name + ".damaged")
    os.replace(path, kept)
    log.warning("the damaged calibration profile %s was kept as %s", path, kept)
    return kept


def real_reader_factory(profile_path: str | Path | None = None) -> ReaderFactory:
    """A factory of :class:`~rolit.calibration.BoardReader` objects for a variant."""

    def make(variant: str) -> FrameReader:
        profile = load_profile(profile_path)
        if profile is not None and profile.variant != variant:
            profile = None  # made for another edition's board
        if profile is not None and profile.calibrated:
            camera_model()  # trained now, not on the worker's first frame (it would stall the camera)
        return BoardReader(variant=variant, profile=profile)

    return make
