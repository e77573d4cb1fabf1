"""Take the README's screenshots of the table page on the built-in demo (real pipeline).

``python tools/screenshots.py`` serves the page on the demo, waits until the
game is under way and a flag is showing, and saves desktop and phone views to
docs/ with Debian's Chromium (``apt-get install -y chromium``).
"""

from __future__ import annotations

import sys
import tempfile
import threading
import time
from pathlib import Path

from playwright.sync_api import sync_playwright
from werkzeug.serving import make_server

from rolit.webui import create_app

ROOT = Path(__file__).resolve().parent.parent
ARGS = ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--no-first-run"]


def main() -> int:
    app = create_app({"INSTANCE_PATH": tempfile.mkdtemp(), "SOURCE": "demo", "DEMO_FPS": 15.0})
    server = make_server("127.0.0.1", 0, app, threaded=True)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{server.server_port}/"
    try:
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path="/usr/bin/chromium", args=ARGS)
            page = browser.new_page(viewport={"width": 1280, "height": 800})
            page.goto(url)
            page.wait_for_selector("#banner[data-type='missed_capture']", timeout=90_000)
            time.sleep(1.0)
            page.screenshot(path=str(ROOT / "docs" / "table-page-desktop.png"))
            phone = browser.new_page(viewport={"width": 390, "height": 844}, device_scale_factor=2)
            phone.goto(url)
            phone.wait_for_function("document.querySelectorAll('#moves li:not(.empty)').length >= 3", timeout=90_000)
            phone.screenshot(path=str(ROOT / "docs" / "table-page-phone.png"))
            browser.close()
    finally:
        app.extensions["rolit"].close()
        server.shutdown()
    return 0


if __name__ == "__main__":
    sys.exit(main())
