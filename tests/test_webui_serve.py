"""``rolit serve`` as a real process: resuming after ``kill -9``, ``--lan`` with its access token,
``--https`` with a self-signed certificate."""

from __future__ import annotations

import json
import os
import random
import re
import signal
import socket
import ssl
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from rolit.engine import Board, Colour, Position


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Server:
    """``rolit serve`` in a subprocess, with what it printed."""

    def __init__(self, instance: Path, *args: str) -> None:
        self.port = _free_port()
        self.instance = instance
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "rolit.webui", "serve", "--port", str(self.port), "--instance", str(instance), *args],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
        )
        self.output: list[str] = []
        threading.Thread(target=self._drain, daemon=True).start()

    def _drain(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.output.append(line)

    def wait_for(self, pattern: str, timeout: float = 60.0) -> re.Match[str]:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            found = re.search(pattern, "".join(self.output))
            if found:
                return found
            if self.proc.poll() is not None:
                break
            time.sleep(0.05)
        raise AssertionError(f"no {pattern!r} in the output: {''.join(self.output)}")

    def wait_ready(self, base: str, context: ssl.SSLContext | None = None, timeout: float = 60.0) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                urllib.request.urlopen(base + "static/style.css", timeout=2, context=context).close()
                return
            except (urllib.error.URLError, ConnectionError, OSError):
                if self.proc.poll() is not None:
                    raise AssertionError("".join(self.output)) from None
                time.sleep(0.1)
        raise AssertionError("the server did not start: " + "".join(self.output))

    def stop(self, sig: int = signal.SIGTERM) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(sig)
        self.proc.wait(timeout=10)
        if self.proc.stdout is not None:
            self.proc.stdout.close()


@pytest.fixture
def servers():  # type: ignore[no-untyped-def]
    started: list[Server] = []

    def start(instance: Path, *args: str) -> Server:
        server = Server(instance, *args)
        started.append(server)
        return server

    yield start
    for server in started:
        server.stop(signal.SIGKILL)


def _csrf(base: str) -> str:
    with urllib.request.urlopen(base, timeout=10) as response:
        page = response.read().decode()
    return re.search(r'name="csrf-token" content="([0-9a-f]+)"', page).group(1)  # type: ignore[union-attr]


def _post(base: str, path: str, body: dict[str, object], token: str) -> dict[str, object]:
    request = urllib.request.Request(base + path, data=json.dumps(body).encode(), method="POST",
                                     headers={"Content-Type": "application/json", "X-CSRF-Token": token})
    with urllib.request.urlopen(request, timeout=10) as response:
        return json.loads(response.read())  # type: ignore[no-any-return]


def _state(base: str) -> dict[str, object]:
    with urllib.request.urlopen(base + "api/state", timeout=10) as response:
        return json.loads(response.read())  # type: ignore[no-any-return]


def _next_square(state: dict[str, object], rng: random.Random) -> str:
    board = Board.from_text("\n".join(state["board"]))  # type: ignore[arg-type]
    turn = Colour.parse(state["turn"]["colour"])  # type: ignore[index]
    position = Position.from_board(board, "quick6", turn=turn, players=4)
    return str(rng.choice(position.legal_moves()).name)


def _click_until(base: str, token: str, rng: random.Random, stop: threading.Event, acknowledged: list[str]) -> None:
    """Click legal squares until stopped or the server dies; ``acknowledged`` holds the moves it confirmed."""
    while not stop.is_set():
        try:
            state = _state(base)
            if state["game_over"]:
                return
            after = _post(base, "api/click", {"square": _next_square(state, rng)}, token)
            acknowledged[:] = [m["square"] for m in after["moves"]]  # type: ignore[index,union-attr]
        except (urllib.error.URLError, ConnectionError, OSError, json.JSONDecodeError):
            return


def test_kill_9_at_any_moment_resumes_the_same_game(servers, tmp_path) -> None:
    """Moves are clicked as fast as the server answers; the server is killed with SIGKILL at a
    random moment, started again, and must show every acknowledged move (and at most the one
    that was in flight)."""
    rng = random.Random(7)
    instance = tmp_path / "instance"
    acknowledged: list[str] = []
    for _ in range(3):
        server = servers(instance, "--manual", "--variant", "quick6")
        base = f"http://127.0.0.1:{server.port}/"
        server.wait_ready(base)
        resumed = [m["square"] for m in _state(base)["moves"]]  # type: ignore[index,union-attr]
        assert resumed[: len(acknowledged)] == acknowledged and len(resumed) - len(acknowledged) <= 1, (
            resumed, acknowledged)
        acknowledged = resumed
        token = _csrf(base)
        stop = threading.Event()

        clicker = threading.Thread(target=_click_until, args=(base, token, rng, stop, acknowledged))
        clicker.start()
        time.sleep(rng.uniform(0.3, 1.2))
        os.kill(server.proc.pid, signal.SIGKILL)
        server.proc.wait(timeout=10)
        stop.set()
        clicker.join(timeout=15)
        saved = json.loads((instance / "game.json").read_text())  # never half written
        assert isinstance(saved["moves"], list)
    assert len(acknowledged) >= 3
    final = servers(instance, "--manual", "--variant", "quick6")
    base = f"http://127.0.0.1:{final.port}/"
    final.wait_ready(base)
    moves = [m["square"] for m in _state(base)["moves"]]  # type: ignore[index,union-attr]
    assert moves[: len(acknowledged)] == acknowledged and len(moves) - len(acknowledged) <= 1
    assert not [p for p in instance.iterdir() if p.name.endswith(".tmp")]


def test_lan_needs_the_printed_token(servers, tmp_path) -> None:
    server = servers(tmp_path / "instance", "--manual", "--lan")
    url = server.wait_for(r"(http://\S+/\?token=(\S+))")
    token = url.group(2)
    server.wait_for("scan this code")
    base = f"http://127.0.0.1:{server.port}/"
    server.wait_ready(base)
    with pytest.raises(urllib.error.HTTPError) as refused:
        urllib.request.urlopen(base + "api/state", timeout=10)
    assert refused.value.code == 401
    refused.value.close()
    # A browser: the link sets the cookie, then the page and the API work.
    opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor())
    with opener.open(f"{base}?token={token}", timeout=10) as page:
        assert page.status == 200 and b'data-testid="board"' in page.read()
    with opener.open(base + "api/state", timeout=10) as response:
        assert json.loads(response.read())["mode"] == "manual"
    # The token lives in the instance folder: a restart keeps the phones in.
    assert (tmp_path / "instance" / "access-token").read_text().strip() == token


def test_https_serves_with_a_certificate_for_this_computer(servers, tmp_path) -> None:
    instance = tmp_path / "instance"
    server = servers(instance, "--manual", "--https")
    server.wait_for(r"https://127\.0\.0\.1:\d+/")
    context = ssl.create_default_context()
    server.wait_ready(f"https://127.0.0.1:{server.port}/", context=ssl._create_unverified_context())
    # The self-signed certificate verifies for the address it was made for.
    context.load_verify_locations(instance / "tls" / "cert.pem")
    with urllib.request.urlopen(f"https://127.0.0.1:{server.port}/api/state", timeout=10, context=context) as r:
        assert json.loads(r.read())["mode"] == "manual"
    assert oct((instance / "tls" / "key.pem").stat().st_mode & 0o777) == "0o600"
