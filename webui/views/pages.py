"""The HTML pages: the table view, this device's camera, calibration."""

from __future__ import annotations

from flask import Blueprint, render_template

__all__ = ["bp"]

bp = Blueprint("pages", __name__)


@bp.get("/")
def table() -> str:
    """The table view everybody watches."""
    return render_template("table.html")


@bp.get("/camera")
def camera() -> str:
    """Use this device's camera (a phone on a stand) as the table's camera."""
    return render_template("camera.html")


@bp.get("/calibrate")
def calibrate() -> str:
    """Corners and colours of the board, from the live frame."""
    return render_template("calibrate.html")
