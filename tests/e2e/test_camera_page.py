"""This device's camera: the /camera page sends getUserMedia frames to the session."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from .conftest import LiveServer


def test_camera_page_sends_frames(browser: Any, tmp_path: Path) -> None:
    from rolit.webui import create_app

    server = LiveServer(create_app({"TESTING": True, "INSTANCE_PATH": str(tmp_path), "SOURCE": "browser"}))
    try:
        context = browser.new_context(permissions=["camera"], viewport={"width": 390, "height": 844})
        page = context.new_page()
        page.goto(server.url + "/camera")
        page.click("#start")
        page.wait_for_function("() => document.querySelector('#preview').videoWidth > 0", timeout=20_000)
        table = server.app.extensions["rolit"]
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            worker = table.worker
            if worker is not None and worker.latest_frame is not None:
                break
            time.sleep(0.2)
        assert table.worker is not None and table.worker.latest_frame is not None
        # Chromium's fake camera shows a test pattern, not a board: the page says so.
        state = page.request.get(server.url + "/api/state").json()
        assert state["vision"]["status"] == "no_board"
        page.click("#stop")
        context.close()
    finally:
        server.close()
