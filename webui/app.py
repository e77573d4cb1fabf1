"""The Flask application factory (``create_app``), as in the Flask tutorial's flaskr."""

from __future__ import annotations

import atexit
import logging
import os
from typing import Any

from flask import Flask, jsonify, request
from werkzeug.exceptions import HTTPException

from rolit.engine.messages import _, set_language

from .config import DEFAULTS
from .security import init_security
from .session import SessionError
from .settings import SettingsError
from .strings import page_strings
from .table import Table

__all__ = ["create_app", "get_table"]

log = logging.getLogger(__name__)


def create_app(test_config: dict[str, Any] | None = None) -> Flask:
    """Make the table-page app: config (defaults, then ``instance/rolit.cfg`` or ``test_config``),
    the live table, and the ``pages``, ``api`` and ``stream`` blueprints."""
    overrides = dict(test_config or {})
    instance = overrides.get("INSTANCE_PATH")
    app = Flask(__name__, instance_relative_config=True,
                instance_path=os.path.abspath(instance) if instance else None)
    app.config.from_mapping(DEFAULTS)
    if test_config is None or overrides.get("READ_CONFIG_FILE"):
        app.config.from_pyfile("rolit.cfg", silent=True)
    app.config.from_mapping(overrides)
    os.makedirs(app.instance_path, exist_ok=True)
    if app.config.get("LANGUAGE"):
        set_language([app.config["LANGUAGE"]])

    init_security(app)
    table = Table(app.config, app.instance_path)
    app.extensions["rolit"] = table
    atexit.register(table.close)

    app.jinja_env.globals["_"] = _
    app.jinja_env.globals["page_strings"] = page_strings

    from .views import api, pages, stream

    app.register_blueprint(pages.bp)
    app.register_blueprint(api.bp)
    app.register_blueprint(stream.bp)
    _errors(app)
    return app


def get_table(app: Flask) -> Table:
    """The app's running table."""
    table: Table = app.extensions["rolit"]
    return table


def _errors(app: Flask) -> None:
    @app.errorhandler(SessionError)
    def session_error(exc: SessionError) -> Any:
        return jsonify(error=str(exc)), exc.status

    @app.errorhandler(SettingsError)
    def settings_error(exc: SettingsError) -> Any:
        return jsonify(error=str(exc)), 400

    @app.errorhandler(HTTPException)
    def http_error(exc: HTTPException) -> Any:
        if not request.path.startswith("/api/"):
            return exc
        messages = {
            400: _("The request could not be understood."),
            404: _("There is no such page or action."),
            405: _("This action does not accept that method."),
            413: _("The upload is too large."),
            415: _("Send JSON (Content-Type: application/json)."),
        }
        return jsonify(error=messages.get(exc.code or 400, exc.description or "")), exc.code or 400
