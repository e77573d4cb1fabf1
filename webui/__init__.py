"""The table page (Flask) and the ``rolit`` command.

``create_app()`` builds the page's app; ``rolit serve`` runs it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from flask import Flask

__all__ = ["create_app"]


def create_app(test_config: dict[str, Any] | None = None) -> Flask:
    """The Flask app of the table page (see :func:`rolit.webui.app.create_app`)."""
    from .app import create_app as _create

    return _create(test_config)
