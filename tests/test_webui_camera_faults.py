"""Camera faults on the real pipeline: a network camera (an HTTP MJPEG stream) that stops and
comes back, corrupt frames, a change of frame size, a bumped camera. The page must say
"camera lost", reopen the stream with back-off, and check the position after the bump."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import cv2
import pytest

from rolit.engine import Position
from rolit.vision.synthetic.demo import DEMO_PARAMS
from rolit.vision.synthetic.params import RenderParams
from rolit.vision.synthetic.renderer import render

from helpers import MjpegServer, make_client


def _jpeg(position: Position, **params: Any) -> bytes:
    image, _truth = render(position.board(), RenderParams(**{**DEMO_PARAMS.__dict__, **params}), variant="quick6")
    return bytes(cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, 90])[1])


def _wait(client: Any, test: Callable[[dict[str, Any]], bool], timeout: float, what: str) -> dict[str, Any]:
    deadline = time.monotonic() + timeout
    state: dict[str, Any] = {}
    while time.monotonic() < deadline:
        state = client.get("/api/state").get_json()
        if test(state):
            return state
        time.sleep(0.1)
    raise AssertionError(f"{what}: not within {timeout} s; last state: vision={state.get('vision')}, "
                         f"moves={len(state.get('moves', []))}, flag={state.get('flag')}, log={state.get('log')}")


@pytest.fixture
def camera(make_app):  # type: ignore[no-untyped-def]
    start = Position.start("quick6")
    frames = {
        "start": _jpeg(start),
        # The camera knocked sideways and switched to a bigger picture; the same position.
        "bumped": _jpeg(start, size=(960, 540), azimuth=18.0, roll=4.0, offset=(0.04, -0.03)),
        "move": _jpeg(start.play("e3"), size=(960, 540), azimuth=18.0, roll=4.0, offset=(0.04, -0.03)),
    }
    server = MjpegServer([frames["start"]]).start()
    app = make_app(SOURCE=server.url, VARIANT="quick6", STABILISER_HOLD=0.25, STABILISER_FRAMES=3)
    yield server, make_client(app), frames
    server.stop()


def test_a_stream_that_stops_is_lost_then_found_again(camera) -> None:
    server, client, _frames = camera
    _wait(client, lambda s: s["vision"]["status"] == "ok", 30, "the board read")
    server.stop()
    lost = _wait(client, lambda s: s["vision"]["status"] == "camera_lost", 30, "camera lost shown")
    assert "camera" in lost["vision"]["message"].lower()
    server.start()
    _wait(client, lambda s: s["vision"]["status"] == "ok", 30, "the stream reopened")


def test_corrupt_frames_a_new_size_and_a_bump_are_survived(camera) -> None:
    server, client, frames = camera
    _wait(client, lambda s: s["vision"]["status"] == "ok" and s["settled_at"] is not None, 30, "the start settled")
    # Corrupt JPEGs between good frames: skipped, the reading goes on.
    server.frames = [frames["start"], b"\xff\xd8garbage", frames["start"][: len(frames["start"]) // 3]]
    time.sleep(2.0)
    _wait(client, lambda s: s["vision"]["status"] == "ok", 20, "reading through corrupt frames")
    # Bumped and resized: found again, and the position is checked before play goes on.
    server.frames = [frames["bumped"]]
    checked = _wait(client, lambda s: any(e["type"] == "board_checked" for e in s["log"]), 40, "position checked")
    assert checked["flag"] is None and checked["moves"] == []
    server.frames = [frames["move"]]
    played = _wait(client, lambda s: len(s["moves"]) == 1, 30, "the next move seen")
    assert played["moves"][0]["square"] == "e3"
