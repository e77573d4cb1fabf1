"""Live updates: the game state as Server-Sent Events, the annotated video as MJPEG."""

from __future__ import annotations

import json
import logging
from collections.abc import Iterator

from flask import Blueprint, Response, current_app, stream_with_context

from ..app import get_table
from ..overlay import encode_jpeg, placeholder

__all__ = ["bp"]

log = logging.getLogger(__name__)

bp = Blueprint("stream", __name__, url_prefix="/stream")


@bp.get("/state")
def state() -> Response:
    """``text/event-stream``: a ``state`` event with the whole state at once, then at every change."""
    table = get_table(current_app)
    heartbeat = float(current_app.config.get("SSE_HEARTBEAT", 15.0))

    def events() -> Iterator[str]:
        changes = table.session.changes
        seen = -1
        yield "retry: 1000\n\n"
        while not changes.closed:
            version, _value = changes.wait(seen, timeout=heartbeat)
            if version == seen:
                yield ": keep-alive\n\n"
                continue
            seen = version
            data = json.dumps(table.session.snapshot(), separators=(",", ":"))
            yield f"id: {version}\nevent: state\ndata: {data}\n\n"

    headers = {"Cache-Control": "no-cache", "X-Accel-Buffering": "no"}
    return Response(stream_with_context(events()), mimetype="text/event-stream", headers=headers)


@bp.get("/video.mjpg")
def video() -> Response:
    """``multipart/x-mixed-replace``: the annotated camera picture, frame after frame."""
    table = get_table(current_app)
    worker = table.worker

    def frames() -> Iterator[bytes]:
        if worker is None:
            jpeg = encode_jpeg(placeholder("manual mode: no camera"))
            yield b"--frame\r\nContent-Type: image/jpeg\r\n\r\n" + jpeg + b"\r\n"
            return
        seen = 0
        while not worker.video.closed:
            version, jpeg = worker.video.wait(seen, timeout=5.0)
            if version == seen or jpeg is None:
                continue
            seen = version
            yield (b"--frame\r\nContent-Type: image/jpeg\r\nContent-Length: " + str(len(jpeg)).encode()
                   + b"\r\n\r\n" + jpeg + b"\r\n")

    return Response(frames(), mimetype="multipart/x-mixed-replace; boundary=frame",
                    headers={"Cache-Control": "no-cache"})


@bp.get("/frame.jpg")
def frame() -> Response:
    """The latest annotated frame as one JPEG (a placeholder when there is none yet)."""
    worker = get_table(current_app).worker
    jpeg = worker.video.value if worker is not None else None
    if jpeg is None:
        jpeg = encode_jpeg(placeholder("no camera picture yet"))
    return Response(jpeg, mimetype="image/jpeg", headers={"Cache-Control": "no-cache"})
