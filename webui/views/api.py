"""JSON actions: state, new game, rematch, undo, corrections, manual clicks, hints, records,
browser-camera frames and calibration. Every refusal is a 4xx with ``{"error": sentence}``."""

from __future__ import annotations

import logging
from typing import Any

from flask import Blueprint, Response, current_app, jsonify, request

from rolit.engine.messages import _
from rolit.vision.errors import SourceError

from ..app import get_table
from ..session import SessionError
from ..settings import GameSettings

__all__ = ["bp"]

log = logging.getLogger(__name__)

bp = Blueprint("api", __name__, url_prefix="/api")


def _body() -> dict[str, Any]:
    try:
        data = request.get_json(silent=True)
    except RecursionError:  # JSON nested too deep for the decoder; silent=True only covers ValueError
        data = None
    if not isinstance(data, dict):
        raise SessionError(_("Send a JSON object in the request body."))
    return data


def _text_field(data: dict[str, Any], key: str) -> str:
    value = data.get(key)
    if not isinstance(value, str) or not value.strip():
        raise SessionError(_("The field {key} is missing or is not text.").format(key=key))
    return value


def _state() -> Response:
    return jsonify(get_table(current_app).session.snapshot())


@bp.get("/state")
def state() -> Response:
    """The whole state the page draws."""
    return _state()


@bp.post("/new-game")
def new_game() -> Response:
    """Start a new game with the settings in the body."""
    settings = GameSettings.from_json(_body())
    get_table(current_app).session.new_game(settings)
    return _state()


@bp.post("/rematch")
def rematch() -> Response:
    """The next round with the same players; the starting seat moves on."""
    get_table(current_app).session.rematch()
    return _state()


@bp.post("/undo")
def undo() -> Response:
    """Take back the last move; the body must say ``{"confirm": true}``."""
    if _body().get("confirm") is not True:
        raise SessionError(_("Confirm the undo with {\"confirm\": true}."))
    message = get_table(current_app).session.undo()
    return jsonify(message=message, state=get_table(current_app).session.snapshot())


@bp.post("/correct")
def correct() -> Response:
    """Fix a misread square: ``{"square": "c3", "cell": "red" | "empty"}``."""
    data = _body()
    get_table(current_app).session.correct(_text_field(data, "square"), _text_field(data, "cell"))
    return _state()


@bp.post("/click")
def click() -> Response:
    """Manual mode: put the ball of the player to move on ``{"square": "c3"}``."""
    get_table(current_app).session.click(_text_field(_body(), "square"))
    return _state()


@bp.post("/hint")
def hint() -> Response:
    """A hint for the player to move (``{"colour": "red"}``: who asks)."""
    data = _body()
    colour = data.get("colour")
    if colour is not None and not isinstance(colour, str):
        raise SessionError(_("The field colour must be text."))
    return jsonify(get_table(current_app).session.request_hint(colour))


@bp.get("/record.txt")
def record_text() -> Response:
    """The game record as text (a download)."""
    text = get_table(current_app).session.record_text()
    headers = {"Content-Disposition": "attachment; filename=rolit-game.rolit"}
    return Response(text, mimetype="text/plain", headers=headers)


@bp.get("/record.json")
def record_json() -> Response:
    """The game record as JSON (a download)."""
    response = jsonify(get_table(current_app).session.record_json())
    response.headers["Content-Disposition"] = "attachment; filename=rolit-game.json"
    return response


@bp.post("/record")
def load_record() -> Response:
    """Continue the game of a record: the body is the record, as text or JSON."""
    try:
        text = request.get_data(cache=False).decode("utf-8")
    except UnicodeDecodeError:
        raise SessionError(_("A game record is text (UTF-8).")) from None
    if not text.strip():
        raise SessionError(_("Send the game record in the body."))
    get_table(current_app).session.load_record(text)
    return _state()


@bp.post("/frame")
def frame() -> Response:
    """A JPEG frame from a browser's camera (the /camera page)."""
    data = request.get_data(cache=False)
    if not data:
        raise SessionError(_("Send the frame as a JPEG image in the body."))
    table = get_table(current_app)
    if table.session.manual:
        raise SessionError(_("This table is in manual mode: it has no camera."), 409)
    try:
        pushed = table.browser_camera().push(data)
    except SourceError as exc:
        raise SessionError(str(exc)[:1].upper() + str(exc)[1:] + ".") from None
    return jsonify(index=pushed.index)


from . import calibration as _calibration  # noqa: E402,F401  (routes on this blueprint)
