"""Calibration profiles: what one camera, light and ball set need, saved as JSON.

A profile holds what this camera, light and ball set make of each cell: the
readings (:data:`rolit.vision.features.FEATURE_NAMES`) of every cell of the grid
while it was empty and of each ball colour, taken from the start position and
then followed as the light drifts over an evening, with the mean Lab colour of
each as a summary; a small grey picture of the board's surroundings at
calibration, to find the grid again after the camera is bumped
(:class:`rolit.vision.register.ReferenceView`); the board's orientation in the picture (quarter turns from
"row 1 at the top"); and corners given by hand when the board cannot be found by
itself. Version 1 profiles (means only) still load: their corners and
orientation are kept and the colours count as uncalibrated.

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
from rolit.vision.register import ReferenceView

from .errors import CalibrationError

__all__ = ["EXACTLY_PLACED", "PLACED_BY", "Profile", "default_profile_path", "data_folder"]

F64 = npt.NDArray[np.float64]
VERSION = 2
READABLE_VERSIONS = (1, 2)
# What placed calibration's grid (Profile.seen_placed_by): the board's printed lines, the cups' own centres, the
# cups' mean (only), the corners as given, nothing but the board's outline or the lattice's alignment, or the
# cups' rims.
PLACED_BY = ("lines", "cups", "cup template", "corners given", "outline", "cup rims")
# What places a grid to a few hundredths of a cell, surer than the lattice aligns it on a game frame.
EXACTLY_PLACED = ("lines", "cup rims")
# The strongest lens a profile may hold (see rolit.vision.lens): past it a barrel folds the picture's corners back.
LENS_REACH = 0.6
FEATURES = 19  # len(rolit.vision.features.FEATURE_NAMES), checked by the tests


def data_folder() -> Path:
    """The user's data folder for rolit-assistant."""
    base = os.environ.get("XDG_DATA_HOME") or os.path.join(os.path.expanduser("~"), ".local", "share")
    return Path(base) / "rolit-assistant"


def default_profile_path() -> Path:
    """Where ``rolit calibrate`` and the page keep the profile by default."""
    return data_folder() / "profile.json"


@dataclass
class Profile:
    """One camera's calibration; ``class_means`` (label -> Lab) is empty when uncalibrated.

    ``cell_refs`` holds the readings of every image cell (row-major) as an empty
    cup; ``colour_refs`` the reading of each ball colour (label -> readings) and
    ``colour_local`` the empty-cup readings where that ball stood, so a ball can
    be compared with its reference relative to the light on each spot.
    ``seen_corners`` is the grid those were read on, and ``seen_view`` the
    picture round it then; ``seen_placed_by`` says what placed that grid (one
    of :data:`PLACED_BY`; empty when not known): on development scenes, nearly
    every cell read wrong was on a board whose grid nothing but its outline
    placed. ``lens`` is the camera's lens measured at calibration (see
    :class:`rolit.vision.lens.Lens`; 0 for none): ``seen_view`` is of the
    picture straightened by it, ``seen_corners`` and ``corners`` (given by
    hand) of the picture as the camera shows it.
    """

    variant: str = "classic"
    rotation: int = 0
    corners: list[list[float]] | None = None
    class_means: dict[str, list[float]] = field(default_factory=dict)
    created: str = ""
    cell_refs: list[list[float]] = field(default_factory=list)
    colour_refs: dict[str, list[float]] = field(default_factory=dict)
    colour_local: dict[str, list[float]] = field(default_factory=dict)
    seen_corners: list[list[float]] | None = None
    seen_view: ReferenceView | None = None
    seen_placed_by: str = ""
    lens: float = 0.0

    @property
    def seen_on_lines(self) -> bool:
        """True when the board's printed lines placed calibration's grid: to a few hundredths of a cell, surer
        than the lattice aligns it on a game frame."""
        return self.seen_placed_by == "lines"

    @property
    def seen_exactly(self) -> bool:
        """True when the board's printed lines or the cups' rims placed calibration's grid (see
        :data:`EXACTLY_PLACED`): a calibrated reader reads on that grid as it is while the camera stays still."""
        return self.seen_placed_by in EXACTLY_PLACED

    @property
    def calibrated(self) -> bool:
        """True when the colours have been calibrated (from the start position)."""
        n = get_variant(self.variant).size
        return len(self.cell_refs) == n * n and len(self.colour_refs) >= 2

    def to_json(self) -> dict[str, Any]:
        """JSON-ready form."""
        return {
            "version": VERSION,
            "variant": self.variant,
            "rotation": self.rotation,
            "corners": self.corners,
            "class_means": self.class_means,
            "created": self.created,
            "cell_refs": self.cell_refs,
            "colour_refs": self.colour_refs,
            "colour_local": self.colour_local,
            "seen_corners": self.seen_corners,
            "seen_view": self.seen_view.to_json() if self.seen_view is not None else None,
            "seen_placed_by": self.seen_placed_by,
            "lens": self.lens,
        }

    @classmethod
    def from_json(cls, data: Any) -> Profile:
        """A profile from its JSON form; :class:`CalibrationError` says what is wrong."""
        if not isinstance(data, dict):
            raise CalibrationError("a calibration profile is a JSON object")
        if data.get("version") not in READABLE_VERSIONS:
            raise CalibrationError(f"this calibration profile has version {data.get('version')!r}, not {VERSION}")
        try:
            variant = get_variant(str(data.get("variant", "classic"))).name
            rotation = int(data.get("rotation", 0))
            if rotation not in (0, 1, 2, 3):
                raise ValueError("rotation must be 0, 1, 2 or 3 quarter turns")
            corners = _corners(data.get("corners"))
            seen = _corners(data.get("seen_corners"))
            view = ReferenceView.from_json(data["seen_view"]) if data.get("seen_view") is not None else None
            # Profiles saved before what placed the grid was kept say only whether the lines did.
            on_lines = data.get("seen_on_lines", False)
            if not isinstance(on_lines, bool):
                raise ValueError("seen_on_lines must be true or false")
            placed_by = data.get("seen_placed_by", "lines" if on_lines else "")
            if placed_by not in ("", *PLACED_BY):
                raise ValueError(f"seen_placed_by must be one of {', '.join(PLACED_BY)}")
            means = {str(k): [float(x) for x in v] for k, v in dict(data.get("class_means", {})).items()}
            if any(len(v) != 3 or not np.all(np.isfinite(v)) for v in means.values()):
                raise ValueError("each class mean must be 3 numbers (L, a, b)")
            n = get_variant(variant).size
            cells = [_readings(v) for v in list(data.get("cell_refs", []))]
            if cells and len(cells) != n * n:
                raise ValueError(f"cell_refs must hold {n * n} cells for {variant}")
            colours = {str(k): _readings(v) for k, v in dict(data.get("colour_refs", {})).items()}
            local = {str(k): _readings(v) for k, v in dict(data.get("colour_local", {})).items()}
            if set(local) != set(colours):
                raise ValueError("colour_refs and colour_local must name the same colours")
            lens = float(data.get("lens", 0.0))
            if not -LENS_REACH <= lens <= LENS_REACH:
                raise ValueError(f"lens must be a number from {-LENS_REACH} to {LENS_REACH}")
        except (TypeError, ValueError, OverflowError) as exc:  # OverflowError: int(Infinity), float(10**400)
            raise CalibrationError(f"the calibration profile is damaged: {exc}") from None
        return cls(variant, rotation, corners, means, str(data.get("created", "")), cells, colours, local, seen, view,
                   placed_by, lens)

    def refs(self) -> tuple[F64, dict[str, F64], dict[str, F64]]:
        """The references as arrays: cells x features, and label -> features for the colours."""
        cells = np.asarray(self.cell_refs, np.float64).reshape(len(self.cell_refs), FEATURES)
        colours = {k: np.asarray(v, np.float64) for k, v in self.colour_refs.items()}
        local = {k: np.asarray(v, np.float64) for k, v in self.colour_local.items()}
        return cells, colours, local

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


def _readings(value: Any) -> list[float]:
    """One cell's readings from JSON: :data:`FEATURES` finite numbers."""
    out = [float(x) for x in value]
    if len(out) != FEATURES or not np.all(np.isfinite(out)):
        raise ValueError(f"each reference must be {FEATURES} finite numbers")
    return out


def _corners(value: Any) -> list[list[float]] | None:
    """Four image points from JSON, or ``None``."""
    if value is None:
        return None
    c = np.asarray(value, np.float64)
    if c.shape != (4, 2) or not np.all(np.isfinite(c)):
        raise ValueError("corners must be 4 points [x, y]")
    return [[float(x), float(y)] for x, y in c]
