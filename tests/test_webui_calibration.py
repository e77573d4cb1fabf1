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

        # The orientation can be given by hand; a wrong one is refused and the saved profile stays.
        bad_turn = client.post("/api/calibration/colours", json={"turn": 7})
        assert bad_turn.status_code == 400 and "quarter turns" in bad_turn.get_json()["error"]
        assert client.post("/api/calibration/colours", json={"turn": "2"}).status_code == 400
        assert json.loads(table.profile_path.read_text()) == saved

        # Each clear view of the accepted position (the start, then each move) moves the reader's references.
        def learned() -> bool:
            profile = table.worker.reader.profile  # type: ignore[attr-defined]
            return bool(profile.calibrated and profile.cell_refs != saved["cell_refs"])

        deadline = time.monotonic() + 60
        while not learned() and time.monotonic() < deadline:
            time.sleep(0.2)
        assert learned()

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


def test_a_damaged_profile_is_reported_kept_and_replaced(tmp_path: Path) -> None:
    damaged = '{"version": 1, "variant": "quick6", "rotation": 9}'
    (tmp_path / "profile.json").write_text(damaged)
    app = create_app({"TESTING": True, "INSTANCE_PATH": str(tmp_path), "SOURCE": "demo", "DEMO_FPS": 10.0})
    table = app.extensions["rolit"]
    try:
        client = make_client(app)
        state = client.get("/api/calibration").get_json()
        assert state["profile"] is False and "damaged" in state["profile_error"]
        # The page still reads the board (with the default model), and saving corners keeps the damaged file.
        corners = [[100, 50], [540, 50], [540, 320], [100, 320]]
        assert client.post("/api/calibration/corners", json={"corners": corners}).status_code == 200
        assert (tmp_path / "profile.json.damaged").read_text() == damaged
        state = client.get("/api/calibration").get_json()
        assert state["profile"] is True and state["profile_error"] is None
    finally:
        table.close()


def test_a_failed_save_keeps_the_old_profile(tmp_path: Path) -> None:
    # A real write failure: the file-size limit makes the write fail half way (as a full disk would).
    import subprocess
    import sys

    from rolit.calibration import Profile

    path = tmp_path / "profile.json"
    Profile("quick6", rotation=1).save(path)
    before = path.read_text()
    script = (
        "import resource, signal, sys\n"
        "from rolit.calibration import Profile, CalibrationError\n"
        "signal.signal(signal.SIGXFSZ, signal.SIG_IGN)\n"
        "resource.setrlimit(resource.RLIMIT_FSIZE, (64, 64))\n"
        "big = Profile('quick6', rotation=2, class_means={str(i): [1.0, 2.0, 3.0] for i in range(50)})\n"
        "try:\n"
        "    big.save(sys.argv[1])\n"
        "except CalibrationError as exc:\n"
        "    print(exc); sys.exit(7)\n"
    )
    done = subprocess.run([sys.executable, "-c", script, str(path)], capture_output=True, text=True, timeout=60)
    assert done.returncode == 7 and "cannot save" in done.stdout, done.stderr
    assert path.read_text() == before
    assert [p.name for p in tmp_path.iterdir()] == ["profile.json"]  # no temporary file left
