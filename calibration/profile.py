"""Calibration profiles: what one camera, light and ball set need, saved as JSON.

A profile holds what this camera, light and ball set make of each colour: the
mean Lab colour of each ball colour's top and of an empty cup, read from the
start position and then followed as the light drifts over an evening; the
board's orientation in the picture (quarter turns from "row 1 at the top"); and
corners given by hand when the board cannot be found by itself.

Profiles live in the user's data folder (``$XDG_DATA_HOME/rolit-assistant``)
unless a path is given; saving is atomic, and a failed save never damages the
profile already there.
"""

from __future__ import annotations

import json
import os
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from rolit.engine import get_variant

from .errors import CalibrationError

__all__ = ["Profile", "default_profile_path", "data_folder"]

F64 = npt.NDArray[np.float64]
VERSION = 1


def data_folder() -> Path:
    """The user's data folder for rolit-assistant."""
    base = os.environ.get("XDG_DATA_HOME") or os.path.join(os.path.expanduser("~"), ".local", "share")
    return Path(base) / "rolit-assistant"


def default_profile_path() -> Path:
    """Where ``rolit calibrate`` and the page keep the profile by default."""
    return data_folder() / "profile.json"


@dataclass
class Profile:
    """One camera's calibration; ``class_means`` (label -> Lab) is empty when uncalibrated."""

    variant: str = "classic"
    rotation: int = 0
    corners: list[list[float]] | None = None
    class_means: dict[str, list[float]] = field(default_factory=dict)
    created: str = ""

    @property
    def calibrated(self) -> bool:
        """True when the colours have been calibrated."""
        return "empty" in self.class_means and len(self.class_means) >= 3

    def to_json(self) -> dict[str, Any]:
        """JSON-ready form."""
        return {
            "version": VERSION,
            "variant": self.variant,
            "rotation": self.rotation,
            "corners": self.corners,
            "class_means": self.class_means,
            "created": self.created,
        }

    @classmethod
    def from_json(cls, data: Any) -> Profile:
        """A profile from its JSON form; :class:`CalibrationError` says what is wrong."""
        if not isinstance(data, dict):
            raise CalibrationError("a calibration profile is a JSON object")
        if data.get("version") != VERSION:
            raise CalibrationError(f"this calibration profile has version {data.get('version')!r}, not {VERSION}")
        try:
            variant = get_variant(str(data.get("variant", "classic"))).name
            rotation = int(data.get("rotation", 0))
            if rotation not in (0, 1, 2, 3):
                raise ValueError("rotation must be 0, 1, 2 or 3 quarter turns")
            corners = data.get("corners")
            if corners is not None:
                c = np.asarray(corners, np.float64)
                if c.shape != (4, 2) or not np.all(np.isfinite(c)):
                    raise ValueError("corners must be 4 points [x, y]")
                corners = c.tolist()
            means = {str(k): [float(x) for x in v] for k, v in dict(data.get("class_means", {})).items()}
            if any(len(v) != 3 or not np.all(np.isfinite(v)) for v in means.values()):
                raise ValueError("each class mean must be 3 numbers (L, a, b)")
        except (TypeError, ValueError, OverflowError) as exc:  # OverflowError: int(Infinity), float(10**400)
            raise CalibrationError(f"the calibration profile is damaged: {exc}") from None
        return cls(variant, rotation, corners, means, str(data.get("created", "")))

    @classmethod
    def load(cls, path: str | Path) -> Profile:
        """Read a profile file."""
        p = Path(path)
        try:
            text = p.read_text(encoding="utf-8")
        except FileNotFoundError:
            raise CalibrationError(f"{p} does not exist") from None
        except (OSError, UnicodeDecodeError) as exc:
            raise CalibrationError(f"cannot read the calibration profile {p}: {exc}") from None
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise CalibrationError(f"{p} is not a calibration profile (bad JSON at line {exc.lineno})") from None
        except (ValueError, RecursionError):  # a number too long for int(), or nesting too deep to decode
            raise CalibrationError(f"{p} is not a calibration profile (bad JSON)") from None
        return cls.from_json(data)

    def save(self, path: str | Path | None = None) -> Path:
        """Write the profile atomically (temporary file, then rename); returns the path."""
        p = Path(path) if path is not None else default_profile_path()
        text = json.dumps(self.to_json(), indent=2)
        tmp: str | None = None
        try:
            p.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(prefix=".profile-", suffix=".json", dir=p.parent)
            with os.fdopen(fd, "w", encoding="utf-8") as fh:
                fh.write(text)
                fh.flush()
                os.fsync(fh.fileno())
            os.replace(tmp, p)
        except OSError as exc:
            # The old profile is untouched: only the temporary file is lost.
            if tmp is not None:
                Path(tmp).unlink(missing_ok=True)
            raise CalibrationError(f"cannot save the calibration profile to {p}: {exc.strerror}") from None
        return p
