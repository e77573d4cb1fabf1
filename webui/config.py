"""Default settings of the table page; override them in ``instance/rolit.cfg`` or via ``create_app(test_config)``.

==================  ======================================================================
``SOURCE``          ``"demo"`` (default), a camera index, a video file, a stream URL,
                    ``"browser"`` (a phone's camera through the /camera page) or
                    ``"manual"`` (no camera: squares are clicked on the page)
``VARIANT``         edition of the first game (``None``: the demo's, else classic)
``PLAYERS``         players in the first game (``None``: all four colours)
``DEMO_FPS``        frames per second the demo plays at (the clip is made at 10)
``DEMO_SIZE``       the demo's frame size (width, height)
``STABILISER_*``    how long (s) and for how many frames a board must hold to count
``GRACE``           seconds a half-rolled move may wait before it is flagged
``STATE_FILE``      where the game is saved after every move (default: instance folder)
``ARCHIVE``         folder of finished games (default: ``archive`` in the instance folder)
``PROFILE``         the calibration profile (default: instance folder)
``RESUME``          resume the saved game at start (``None``: yes unless playing the demo)
``READER_FACTORY``  ``variant -> reader`` (``None``: the real BoardReader)
``SOURCE_FACTORY``  ``spec -> FrameSource`` (``None``: rolit.vision.sources.open_source)
``START_WORKER``    start the vision worker (tests of the API alone turn it off)
``ACCESS_TOKEN``    the token every request needs (``rolit serve --lan`` sets it; ``None``: none)
``INVITE_URL``      the link (and QR code) the /invite page shows
``SECRET_KEY``      signs the CSRF token (``None``: kept in ``instance/secret.key``)
==================  ======================================================================
"""

from __future__ import annotations

from typing import Any

__all__ = ["DEFAULTS"]

DEFAULTS: dict[str, Any] = {
    "SOURCE": "demo",
    "VARIANT": None,
    "PLAYERS": None,
    "DEMO_FPS": 10.0,
    "DEMO_SIZE": (640, 360),
    "STABILISER_HOLD": 0.4,
    "STABILISER_FRAMES": 3,
    "GRACE": 4.0,
    "STATE_FILE": None,
    "PROFILE": None,
    "ARCHIVE": None,
    "RESUME": None,
    "READER_FACTORY": None,
    "SOURCE_FACTORY": None,
    "START_WORKER": True,
    "SEED": None,
    "JPEG_QUALITY": 70,
    "SSE_HEARTBEAT": 15.0,
    "MAX_CONTENT_LENGTH": 4 * 1024 * 1024,
    "LANGUAGE": None,
    "ACCESS_TOKEN": None,
    "INVITE_URL": None,
    "SECRET_KEY": None,
}
