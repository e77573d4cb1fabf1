"""The calibration page's API on the live demo: colours from the start position, corners by hand."""

from __future__ import annotations

import json
import time
from pathlib import Path

from rolit.webui import create_app

from helpers import make_client


def test_calibrate_colours_and_corners_on_the_demo(tmp_path: Path) -> None:
    app = create_app({"TESTING": True, "INSTANCE_PATH": str(tmp_path), "SOURCE": "demo", "DEMO_FPS": 10.0})
    table = app.extensions["rolit"]
    try:
        client = make_client(app)
        deadline = time.monotonic() + 20
        def located() -> bool:
            seen = table.worker.latest_observation
            return seen is not None and seen.corners is not None

        while not located() and time.monotonic() < deadline:
            time.sleep(0.1)
        state = client.get("/api/calibration").get_json()
        assert state["corners"] is not None and state["size"] == [640, 360] and state["profile"] is False

        # The demo opens on the start position: the colours calibrate from it.
        response = client.post("/api/calibration/colours")
        assert response.status_code == 200, response.get_json()
        assert table.profile_path.exists() and client.get("/api/calibration").get_json()["profile"] is True
        saved = json.loads(table.profile_path.read_text())
        assert saved["variant"] == "quick6" and "empty" in saved["class_means"]

        bad = client.post("/api/calibration/corners", json={"corners": [[0, 0], [1, 1]]})
        assert bad.status_code == 400 and "four [x, y] points" in bad.get_json()["error"]
        corners = state["corners"]
        assert client.post("/api/calibration/corners", json={"corners": corners}).status_code == 200
        assert json.loads(table.profile_path.read_text())["corners"] is not None
        assert client.post("/api/calibration/corners", json={"corners": None}).status_code == 200
    finally:
        table.close()


def test_calibration_needs_a_camera(client) -> None:  # type: ignore[no-untyped-def]
    response = client.post("/api/calibration/colours")
    assert response.status_code == 409 and "no camera picture" in response.get_json()["error"]
