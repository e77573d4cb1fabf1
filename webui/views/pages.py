"""The HTML pages: the table view, this device's camera, calibration."""

from __future__ import annotations

from flask import Blueprint, Response, abort, current_app, render_template
from markupsafe import Markup

from ..app import get_table
from ..lan import qr_svg

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


@bp.get("/invite")
def invite() -> str:
    """The link and QR code that let a phone at the table join (``rolit serve --lan``)."""
    url = current_app.config.get("INVITE_URL")
    lan = bool(current_app.config.get("ACCESS_TOKEN"))
    # The SVG is made here from our own link, never from request data.
    qr = Markup(qr_svg(url)) if url and lan else None
    return render_template("invite.html", url=url if lan else None, qr=qr)


@bp.get("/games")
def games() -> str:
    """Finished games, newest first, each with its record to download."""
    return render_template("games.html", games=get_table(current_app).archive.entries())


@bp.get("/games/<name>")
def archived_game(name: str) -> Response:
    """One finished game's record (a download). ``name`` must be one the archive lists."""
    try:
        text = get_table(current_app).archive.read(name)
    except KeyError:
        abort(404)
    return Response(text, mimetype="text/plain",
                    headers={"Content-Disposition": f"attachment; filename=rolit-{name}"})
