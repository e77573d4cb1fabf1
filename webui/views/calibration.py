"""Calibration actions (on the ``api`` blueprint): the grid's corners and the colour model."""

from __future__ import annotations

import logging
import math
from pathlib import Path
from typing import Any

from flask import Response, current_app, jsonify

from rolit.calibration import Profile, calibrate
from rolit.calibration.camera_model import camera_model
from rolit.engine.errors import RolitError
from rolit.engine.messages import _

from ..app import get_table
from ..reading import load_profile, profile_problem, set_aside_damaged
from ..session import SessionError
from .api import _body, bp

__all__: list[str] = []

log = logging.getLogger(__name__)


def _save(profile: Profile, path: Path) -> None:
    """Save ``profile``; a damaged profile there is kept aside, and a failed save answers 507."""
    try:
        set_aside_damaged(path)
        profile.save(path)
    except (RolitError, OSError) as exc:
        log.error("calibration profile not saved: %s", exc)
        raise SessionError(_("The calibration could not be saved (is the disk full?); the old one is kept."),
                           507) from None


@bp.get("/calibration")
def calibration_state() -> Response:
    """The corners found in the latest frame, the frame's size and whether a profile is saved."""
    table = get_table(current_app)
    worker = table.worker
    frame = worker.latest_frame if worker else None
    observation = worker.latest_observation if worker else None
    problem = profile_problem(table.profile_path)
    corners = [[float(x), float(y)] for x, y in observation.corners] if observation and observation.corners else None
    return jsonify(
        corners=corners,
        size=[int(frame.image.shape[1]), int(frame.image.shape[0])] if frame is not None else None,
        profile=table.profile_path.exists() and problem is None,
        profile_error=problem,
        manual_corners=bool(getattr(table, "manual_corners", None)),
        board=observation.board.text().splitlines() if observation and observation.board else None,
    )


def _corners(value: Any) -> list[tuple[float, float]] | None:
    if value is None:
        return None
    ok = isinstance(value, list) and len(value) == 4 and all(
        isinstance(p, list) and len(p) == 2 and all(
            isinstance(v, int | float) and not isinstance(v, bool) and math.isfinite(v) for v in p
        ) for p in value
    )
    if not ok:
        raise SessionError(_("Corners are four [x, y] points: top-left, top-right, bottom-right, bottom-left."))
    return [(float(p[0]), float(p[1])) for p in value]


@bp.post("/calibration/corners")
def set_corners() -> Response:
    """Use these four corners of the grid (``null``: find the board automatically again)."""
    corners = _corners(_body().get("corners"))
    table = get_table(current_app)
    if table.worker is None:
        raise SessionError(_("There is no camera to calibrate in manual mode."), 409)
    setter = getattr(table.worker.reader, "set_manual_corners", None)
    if setter is None:
        raise SessionError(_("This board reader cannot take corners from the page."), 501)
    setter(corners)
    table.manual_corners = corners  # type: ignore[attr-defined]
    table.worker.stabiliser.reset()
    profile = getattr(table.worker.reader, "profile", None)
    if profile is not None:
        # Corners given by hand are kept in the profile, for the next evening too.
        _save(profile, table.profile_path)
    return jsonify(message=_("Corners saved."), corners=corners)


@bp.post("/calibration/colours")
def calibrate_colours() -> Response:
    """Fit the colour model from the latest frame (the start position must be on the board) and save it."""
    table = get_table(current_app)
    worker = table.worker
    if worker is None or worker.latest_frame is None:
        raise SessionError(_("There is no camera picture to calibrate from yet."), 409)
    # The body is optional: {"turn": 0-3} gives the board's orientation when its colours cannot tell it.
    try:
        turn = _body().get("turn")
    except SessionError:
        turn = None
    if turn is not None and (isinstance(turn, bool) or not isinstance(turn, int) or turn not in (0, 1, 2, 3)):
        raise SessionError(_("The turn must be 0, 1, 2 or 3 quarter turns."))
    variant = table.session.settings.variant
    # Corners given by hand stay: only the colours and the orientation are new.
    before = load_profile(table.profile_path)
    if before is not None and before.variant != variant:
        before = None
    try:
        profile = calibrate(worker.latest_frame.image, variant, before, rotation=turn)
    except RolitError as exc:
        log.info("calibration failed: %s", exc)
        raise SessionError(
            _("Calibration failed: put the four start balls in the centre and show the whole board.") + f" ({exc})",
            422,
        ) from None
    _save(profile, table.profile_path)
    # Train the calibrated model here, not on the worker's next frame: that would stop the
    # camera for seconds, and moves made meanwhile would reach the referee all at once.
    camera_model()
    worker.set_reader(table.reader_factory(variant))
    return jsonify(message=_("Colours calibrated and saved."))
