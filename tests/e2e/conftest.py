"""Browser tests: the table page served for real, driven by Playwright in Debian's Chromium.

The browser must be installed (``apt-get install -y chromium``); these tests fail,
not skip, when it is missing. Playwright never downloads a browser here.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

CHROMIUM = os.environ.get("ROLIT_CHROMIUM", "/usr/bin/chromium")
ARGS = ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--no-first-run",
        # A fake camera (a moving test pattern) for the page that sends this device's camera.
        "--use-fake-ui-for-media-stream", "--use-fake-device-for-media-stream"]


def demo_config(tmp: Path) -> dict[str, Any]:
    """The built-in demo through the real pipeline: synthetic camera, BoardReader, stabiliser, referee."""
    return {"TESTING": True, "INSTANCE_PATH": str(tmp), "SOURCE": "demo", "SSE_HEARTBEAT": 2.0,
            "DEMO_FPS": 15.0, "DEMO_SIZE": (640, 360), "STABILISER_HOLD": 0.25,
            "STABILISER_FRAMES": 3, "GRACE": 4.0, "READER_NAME": "real BoardReader"}


class LiveServer:
    """The app served by werkzeug in a thread, on a free port."""

    def __init__(self, app: Any) -> None:
        from werkzeug.serving import make_server

        self.app = app
        self.server = make_server("127.0.0.1", 0, app, threaded=True)
        self.url = f"http://127.0.0.1:{self.server.server_port}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def close(self) -> None:
        self.app.extensions["rolit"].close()
        self.server.shutdown()


@pytest.fixture(scope="module")
def live_demo(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    from rolit.webui import create_app

    server = LiveServer(create_app(demo_config(tmp_path_factory.mktemp("instance"))))
    yield server
    server.close()


@pytest.fixture(scope="session")
def browser() -> Iterator[Any]:
    if not Path(CHROMIUM).exists():
        pytest.fail(f"Chromium is not installed at {CHROMIUM}: run apt-get install -y chromium", pytrace=False)
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        yield browser
        browser.close()
