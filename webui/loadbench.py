"""``rolit bench load``: many browsers on one table, for a whole demo game.

A real ``rolit serve`` (the built-in demo, a free port, a temporary instance
folder) runs as a subprocess, so the figures are those of the program people
start, with its own interpreter, threads and memory. N clients, each a pair of
threads in this process, behave like the table page: one ``/stream/state``
Server-Sent Events connection (parsed as ``EventSource`` does: ``id:``,
``event:``, ``data:`` lines up to a blank line) and one ``/stream/video.mjpg``
connection (multipart JPEG frames).

The run lasts one pass of the demo clip: until the state shows ``game_over``
(or the camera ``ended``), or until the camera's board is back at the start
position, which means the clip looped without a game over (the referee lost
track of the game: the pipeline's business, reported in ``run``, not the
streams'). ``--quick`` stops after 12 seconds.

What is measured (see :func:`run_load`):

* **no update lost**: every referee event (the session's log entries carry a
  serial ``id``; a snapshot holds the last 8), every flag id and every ply
  reached every client, and every client's last state (moves and board)
  equals the server's ``/api/state`` at the end. An event or flag that one
  client has and another lacks was lost on the way (``updates_lost``); one
  that no client has never left the server (``events_never_delivered``,
  ``flags_never_shown``). The server coalesces versions (a busy client gets
  the newest state, not each one), so the count of state events per client
  is a figure, not a check.
* **latency**: board settled -> flag received (``flag["settled_at"]``, the
  wall time the settling frame arrived, as the page's ``window.rolitLatency``
  measures it) for flags the settled board raised; flags raised later by the
  referee's grace timer (a roll left undone) are counted apart, since their
  delay is the grace period by design. Also event handled -> received (pure
  delivery) and snapshot built -> received.
* **video**: MJPEG frames per second each client received.
* **memory and CPU**: the server's ``VmRSS`` each second after a warm-up
  (first, last, max, least-squares slope) and its CPU share.
* **failures**: HTTP statuses of every request (the clients' and the 4 Hz
  ``/api/state`` polls'), connection errors, and the server's log (tracebacks,
  request lines with a 4xx or 5xx status).

Clients and server share the machine, so on a small one (2 cores) the
figures include the clients' own work; they are printed, not promised.
"""

from __future__ import annotations

import http.client
import json
import logging
import os
import re
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rolit.engine import RolitError

from .session import FLAG_TYPES

__all__ = ["LoadError", "run_load"]

log = logging.getLogger(__name__)

HOST = "127.0.0.1"
# A client whose socket stays silent this long has hung: the state stream sends a
# keep-alive every 15 s and the video ten frames a second, so 30 s is never normal.
SOCKET_TIMEOUT = 30.0
QUICK_SECONDS = 12.0  # --quick: the demo's first moves and its first flag (a missed capture, ~9 s in)
WHOLE_GAME_TIMEOUT = 420.0  # the demo game lasts 165 s at 10 fps; leave room for a loaded machine
TIMER_FLAG_DELAY = 1.0  # a flag handled this long after its board settled came from the grace timer


class LoadError(RolitError):
    """The benchmark could not run (the server did not start, or died)."""


# --- One client: a state stream and a video stream ---------------------------------------


@dataclass
class Client:
    """One browser: what it received on its two connections."""

    index: int
    port: int
    stop: threading.Event
    statuses: list[int] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    events: int = 0
    last: dict[str, Any] | None = None
    last_version: int = -1
    connected: float | None = None  # wall time of the first state
    first_log_id: int | None = None  # the oldest log entry the first snapshot held
    log_types: dict[int, str] = field(default_factory=dict)  # log id -> event type
    flag_seen: dict[int, float] = field(default_factory=dict)  # flag id -> first receive wall time
    flag_info: dict[int, tuple[str, float | None, float]] = field(default_factory=dict)  # type, settled_at, at
    first_ply: int | None = None
    plies: set[int] = field(default_factory=set)
    delivery: list[float] = field(default_factory=list)  # receive - snapshot built (s)
    frames: int = 0
    bad_frames: int = 0
    frame_bytes: int = 0
    first_frame: float | None = None
    last_frame: float | None = None
    _conns: list[http.client.HTTPConnection] = field(default_factory=list)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def start(self) -> list[threading.Thread]:
        """Open both streams, each in its own thread (a browser reads them independently)."""
        threads = [
            threading.Thread(target=self._guard, args=(self._state_stream,), name=f"load-state-{self.index}",
                             daemon=True),
            threading.Thread(target=self._guard, args=(self._video_stream,), name=f"load-video-{self.index}",
                             daemon=True),
        ]
        for t in threads:
            t.start()
        return threads

    def close(self) -> None:
        """Hang up both connections (wakes the reading threads)."""
        with self._lock:
            conns = list(self._conns)
        for conn in conns:
            sock = conn.sock
            if sock is not None:
                try:
                    sock.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass  # already gone
            conn.close()

    def _open(self, path: str) -> http.client.HTTPResponse:
        conn = http.client.HTTPConnection(HOST, self.port, timeout=SOCKET_TIMEOUT)
        with self._lock:
            self._conns.append(conn)
        conn.request("GET", path, headers={"Accept": "*/*", "Cache-Control": "no-cache"})
        resp = conn.getresponse()
        with self._lock:
            self.statuses.append(resp.status)
        return resp

    def _guard(self, fn: Callable[[], None]) -> None:
        try:
            fn()
        except Exception as exc:  # a failure of this client is a figure, not a crash of the bench
            if not self.stop.is_set():
                log.warning("client %d: %s", self.index, exc)
                with self._lock:
                    self.errors.append(f"{type(exc).__name__}: {exc}")

    def _state_stream(self) -> None:
        resp = self._open("/stream/state")
        if resp.status != 200 or "text/event-stream" not in (resp.getheader("Content-Type") or ""):
            raise LoadError(f"/stream/state answered {resp.status} {resp.getheader('Content-Type')}")
        event = "message"
        data: list[str] = []
        while not self.stop.is_set():
            raw = resp.readline()
            if not raw:
                if not self.stop.is_set():
                    raise LoadError("the state stream ended")
                return
            line = raw.decode("utf-8").rstrip("\n").rstrip("\r")
            if not line:  # a blank line dispatches the event, as EventSource does
                if data and event == "state":
                    self._on_state("\n".join(data), time.time())
                event, data = "message", []
                continue
            if line.startswith(":"):
                continue  # keep-alive comment
            name, _, value = line.partition(":")
            value = value[1:] if value.startswith(" ") else value
            if name == "data":
                data.append(value)
            elif name == "event":
                event = value

    def _on_state(self, text: str, received: float) -> None:
        snap: dict[str, Any] = json.loads(text)
        with self._lock:
            self.events += 1
            self.last, self.last_version = snap, int(snap["version"])
            self.delivery.append(received - float(snap["server_time"]))
            entries = snap.get("log") or []
            if self.connected is None:
                self.connected = received
            if self.first_log_id is None:
                ids = [int(e["id"]) for e in entries if "id" in e]
                self.first_log_id = min(ids) if ids else 1
            for entry in entries:
                if "id" in entry:
                    self.log_types[int(entry["id"])] = str(entry["type"])
            ply = int(snap["ply"])
            if self.first_ply is None:
                self.first_ply = ply
            self.plies.add(ply)
            flag = snap.get("flag")
            if flag and "id" in flag and int(flag["id"]) not in self.flag_seen:
                fid = int(flag["id"])
                self.flag_seen[fid] = received
                settled = flag.get("settled_at")
                self.flag_info[fid] = (str(flag.get("type")), None if settled is None else float(settled),
                                       float(flag.get("at", received)))

    def _video_stream(self) -> None:
        resp = self._open("/stream/video.mjpg")
        if resp.status != 200 or "multipart/x-mixed-replace" not in (resp.getheader("Content-Type") or ""):
            raise LoadError(f"/stream/video.mjpg answered {resp.status} {resp.getheader('Content-Type')}")
        while not self.stop.is_set():
            line = resp.readline()
            if not line:
                if not self.stop.is_set():
                    raise LoadError("the video stream ended")
                return
            if not line.startswith(b"--frame"):
                continue  # the CRLF after the previous frame
            length = 0
            while True:  # the part's headers, up to a blank line
                header = resp.readline()
                if not header or not header.strip():
                    break
                name, _, value = header.decode("latin-1").partition(":")
                if name.strip().lower() == "content-length":
                    length = int(value.strip())
            if not length:
                raise LoadError("a video frame came without Content-Length")
            jpeg = resp.read(length)
            now = time.time()
            with self._lock:
                if len(jpeg) != length or not jpeg.startswith(b"\xff\xd8"):
                    self.bad_frames += 1
                self.frames += 1
                self.frame_bytes += len(jpeg)
                if self.first_frame is None:
                    self.first_frame = now
                self.last_frame = now

    def state_key(self) -> tuple[Any, ...] | None:
        """The last state's moves and board (what must equal the server's)."""
        with self._lock:
            return None if self.last is None else _state_key(self.last)


def _state_key(snap: dict[str, Any]) -> tuple[Any, ...]:
    moves = tuple((m["number"], m["colour"], m["square"], tuple(m["flipped"])) for m in snap["moves"])
    return moves, tuple(snap["board"])


# --- The server -------------------------------------------------------------------------


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind((HOST, 0))
        return int(s.getsockname()[1])


def _get_state(port: int, statuses: list[int], timeout: float = 10.0) -> dict[str, Any]:
    conn = http.client.HTTPConnection(HOST, port, timeout=timeout)
    try:
        conn.request("GET", "/api/state")
        resp = conn.getresponse()
        body = resp.read()
        statuses.append(resp.status)
        if resp.status != 200:
            raise LoadError(f"/api/state answered {resp.status}")
        data: dict[str, Any] = json.loads(body)
        return data
    finally:
        conn.close()


def _wait_ready(port: int, proc: subprocess.Popen[bytes], server_log: Path, timeout: float) -> float:
    started = time.monotonic()
    while time.monotonic() - started < timeout:
        if proc.poll() is not None:
            tail = server_log.read_text(errors="replace")[-2000:]
            raise LoadError(f"rolit serve stopped at start (status {proc.returncode}): {tail.strip()}")
        try:
            _get_state(port, [], timeout=2.0)
            return time.monotonic() - started
        except (OSError, LoadError, http.client.HTTPException):
            time.sleep(0.2)
    raise LoadError(f"rolit serve did not answer within {timeout:.0f} seconds")


def _rss_mb(pid: int) -> float | None:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass  # the process is gone, or this is not Linux
    return None


def _cpu_seconds(pid: int) -> float | None:
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    fields = text[text.rindex(")") + 2:].split()  # after "pid (name) ": state is field 3
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")  # utime, stime


class _Sampler:
    """The server's RSS and CPU time, once a second, in a thread."""

    def __init__(self, pid: int) -> None:
        self.pid = pid
        self.samples: list[tuple[float, float]] = []  # (monotonic time, RSS MB)
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="load-sampler", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(timeout=5)

    def _run(self) -> None:
        while not self._stop.is_set():
            rss = _rss_mb(self.pid)
            if rss is not None:
                self.samples.append((time.monotonic(), rss))
            self._stop.wait(1.0)


def _stop_server(proc: subprocess.Popen[bytes]) -> None:
    if proc.poll() is not None:
        return
    proc.send_signal(signal.SIGINT)  # rolit serve stops cleanly on Ctrl-C
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(timeout=10)


# --- Figures ----------------------------------------------------------------------------


def _percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    k = (len(ordered) - 1) * q
    lo = int(k)
    hi = min(lo + 1, len(ordered) - 1)
    return ordered[lo] + (ordered[hi] - ordered[lo]) * (k - lo)


def _ms(values: list[float]) -> dict[str, float | int | None]:
    if not values:
        return {"n": 0, "median": None, "p95": None, "max": None}
    ms = [1000 * v for v in values]
    return {"n": len(ms), "median": round(statistics.median(ms), 1), "p95": round(_percentile(ms, 0.95), 1),
            "max": round(max(ms), 1)}


def _slope_per_minute(samples: list[tuple[float, float]]) -> float:
    """Least-squares slope of RSS over time, in MB per minute."""
    if len(samples) < 2:
        return 0.0
    t0 = samples[0][0]
    xs = [(t - t0) / 60 for t, _ in samples]
    ys = [v for _, v in samples]
    mx, my = statistics.fmean(xs), statistics.fmean(ys)
    den = sum((x - mx) ** 2 for x in xs)
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True)) / den if den else 0.0


# A request line of werkzeug's log (written when ``rolit serve`` logs at INFO level).
_REQUEST_LINE = re.compile(r'"[A-Z]+ [^"]*" (\d{3}) ')


def _server_errors(text: str) -> list[str]:
    """Lines of the server's log that say a request failed: a traceback, or a 4xx/5xx status."""
    out = []
    for line in text.splitlines():
        status = _REQUEST_LINE.search(line)
        if "Traceback" in line or "Error on request" in line or (status and int(status.group(1)) >= 400):
            out.append(line)
    return out


def _final_check(port: int, clients: list[Client], statuses: list[int]) -> tuple[dict[str, Any], list[bool]]:
    """The server's state and, per client, whether the client's last state equals it.

    The game can change while this looks, so: read the server's state, wait until
    every client has received that version or a newer one, take each client's
    state, and read the server's again; when the game did not change in between,
    the clients' states must equal it. Otherwise try again.
    """
    server: dict[str, Any] = {}
    equal = [False] * len(clients)
    for _attempt in range(6):
        server = _get_state(port, statuses)
        version = int(server["version"])
        deadline = time.monotonic() + 5.0
        while time.monotonic() < deadline and any(c.last_version < version for c in clients):
            time.sleep(0.02)
        keys = [c.state_key() for c in clients]
        after = _get_state(port, statuses)
        if _state_key(after) == _state_key(server):
            equal = [k == _state_key(server) for k in keys]
            return server, equal
        log.info("the game changed during the final check: looking again")
    return server, equal


def run_load(
    clients: int = 20,
    *,
    quick: bool = False,
    duration: float | None = None,
    fps: float | None = None,
    timeout: float = WHOLE_GAME_TIMEOUT,
    warmup: float | None = None,
) -> dict[str, Any]:
    """Serve the demo and watch it with ``clients`` browsers; returns JSON-ready figures.

    By default the run lasts one pass of the demo game (until the state shows
    ``game_over``, the camera ``ended`` or the clip looped, or ``timeout``
    seconds). ``quick`` (or ``duration`` seconds) stops earlier. ``fps`` is passed to ``rolit serve
    --fps``. ``warmup`` seconds of memory samples are left out of the RSS figures
    (default 10 s, 3 s when quick). The server gets ``OMP_NUM_THREADS=1`` unless
    the environment sets it (``server_omp_threads`` in the figures).
    """
    if clients < 1:
        raise LoadError("--clients must be at least 1")
    if duration is None and quick:
        duration = QUICK_SECONDS
    if warmup is None:
        warmup = 3.0 if duration is not None and duration < 60 else 10.0
    with tempfile.TemporaryDirectory(prefix="rolit-load-") as tmp:
        port = _free_port()
        server_log = Path(tmp) / "serve.log"
        cmd = [sys.executable, "-m", "rolit.webui", "serve", "--demo", "--port", str(port),
               "--instance", str(Path(tmp) / "instance")]
        if fps:
            cmd += ["--fps", str(fps)]
        log.info("starting %s", " ".join(cmd))
        # One OpenMP thread for the colour model unless the caller says otherwise: on a shared
        # machine OpenMP's spinning threads, oversubscribed, made the model's fit at start
        # take 70-130 s instead of 4 s (2 cores, load average 5), which is not what this measures.
        env = {**os.environ}
        env.setdefault("OMP_NUM_THREADS", "1")
        with open(server_log, "wb") as out:
            proc = subprocess.Popen(cmd, stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, env=env)
        try:
            startup = _wait_ready(port, proc, server_log, timeout=120.0)
            log.info("the server answers after %.1f s; starting %d clients", startup, clients)
            figures = _measure(port, proc, clients, duration, timeout, warmup)
            figures["server_startup_s"] = round(startup, 1)
            figures["server_omp_threads"] = env["OMP_NUM_THREADS"]
        finally:
            stopping = time.monotonic()
            _stop_server(proc)
            log.info("the server stopped in %.1f s", time.monotonic() - stopping)
        text = server_log.read_text(errors="replace")
        errors = _server_errors(text)
    figures["server_log_requests"] = len(_REQUEST_LINE.findall(text))
    figures["server_log_errors"] = len(errors)
    if errors:
        log.warning("the server logged errors: %s", errors[:5])
    figures["ok"] = bool(figures["ok"] and not errors)
    return figures


def _measure(
    port: int, proc: subprocess.Popen[bytes], n: int, duration: float | None, timeout: float, warmup: float
) -> dict[str, Any]:
    stop = threading.Event()
    sampler = _Sampler(proc.pid)
    sampler.start()
    api_statuses: list[int] = []
    pool = [Client(i, port, stop) for i in range(n)]
    threads = [t for c in pool for t in c.start()]
    bench_cpu0, cpu0 = os.times(), _cpu_seconds(proc.pid)
    started = time.monotonic()
    # Every client has its first state before the clock of the run starts.
    while any(c.last is None for c in pool) and time.monotonic() - started < 30:
        if any(c.errors for c in pool):
            break
        time.sleep(0.05)
    t0 = time.monotonic()
    log.info("every client has its first state after %.1f s", t0 - started)
    ended = "timeout"
    most_balls = 0
    while True:
        elapsed = time.monotonic() - t0
        if proc.poll() is not None:
            ended = "server died"
            break
        if duration is not None and elapsed >= duration:
            ended = f"after {duration:g} s"
            break
        if elapsed >= timeout:
            break
        lasts = [c.last for c in pool if c.last is not None]
        if any(s.get("game_over") for s in lasts):
            ended = "game over"
            break
        # The camera's board is polled (the streams send it only when the camera's status
        # changes): the demo plays in a loop, so a board cleared back to the start position
        # means the game went round without a game over (the referee lost track of it).
        try:
            vision = _get_state(port, api_statuses).get("vision") or {}
        except LoadError:
            vision = {}  # its status is counted among the failed requests
        except (OSError, http.client.HTTPException):
            api_statuses.append(0)  # no answer at all: a failed request too
            vision = {}
        if vision.get("status") == "ended":
            ended = "video ended"
            break
        if vision.get("status") == "ok" and vision.get("board"):
            balls = sum(ch.isalpha() for row in vision["board"] for ch in row)
            most_balls = max(most_balls, balls)
            if most_balls >= 12 and balls <= 5:
                ended = "demo looped without a game over"
                break
        time.sleep(0.25)
    wall = time.monotonic() - t0
    if proc.poll() is None:
        server, equal = _final_check(port, pool, api_statuses)
        log.info("run ended (%s); final check done in %.1f s", ended, time.monotonic() - t0 - wall)
    else:
        server, equal = {}, [False] * n
    cpu1, bench_cpu1 = _cpu_seconds(proc.pid), os.times()
    wall_cpu = time.monotonic() - started
    stop.set()
    for c in pool:
        c.close()
    for t in threads:
        t.join(timeout=10)
    sampler.stop()
    return _figures(pool, server, equal, api_statuses, sampler.samples, wall, ended, warmup, t0,
                    ((cpu1 or 0.0) - (cpu0 or 0.0)) / wall_cpu,
                    (bench_cpu1.user + bench_cpu1.system - bench_cpu0.user - bench_cpu0.system) / wall_cpu)


def _figures(
    pool: list[Client],
    server: dict[str, Any],
    equal: list[bool],
    api_statuses: list[int],
    samples: list[tuple[float, float]],
    wall: float,
    ended: str,
    warmup: float,
    t0: float,
    server_cpu: float,
    bench_cpu: float,
) -> dict[str, Any]:
    # The referee's events: the server's log ids run 1..last. What no client saw was never
    # in a snapshot sent out (the server's doing); what one client lacks and another has
    # was lost on the way to it (the streams' doing). Flags likewise: the k-th flag entry
    # of the log is flag id k.
    server_log = server.get("log") or []
    last_id = max((int(e["id"]) for e in server_log if "id" in e), default=0)
    types: dict[int, str] = {}
    shown: set[int] = set()
    for c in pool:
        types.update(c.log_types)
        shown.update(c.flag_seen)
    flag_log_ids = sorted(i for i, t in types.items() if t in FLAG_TYPES and i <= last_id)
    flags_raised = len(flag_log_ids)
    first_any = min((c.first_log_id or 1 for c in pool), default=1)
    never_delivered = sum(1 for i in range(first_any, last_id + 1) if i not in types)
    never_shown = sum(1 for k in range(1, flags_raised + 1) if k not in shown)
    ply = int(server.get("ply", 0))

    events_missed = flags_missed = plies_missed = 0
    settle_lat: list[float] = []
    handled_lat: list[float] = []
    timer_flags: set[int] = set()
    delivery: list[float] = []
    statuses: Counter[int] = Counter(api_statuses)
    errors: list[str] = []
    fps: list[float] = []
    bad_frames = 0
    video_bytes = 0
    for c in pool:
        statuses.update(c.statuses)
        errors += c.errors
        first = c.first_log_id or 1
        events_missed += sum(1 for i in range(first, last_id + 1) if i in types and i not in c.log_types)
        # Flags shown to some client and raised after this one connected.
        expected_flags = [k + 1 for k, i in enumerate(flag_log_ids) if i >= first and k + 1 in shown]
        flags_missed += sum(1 for f in expected_flags if f not in c.flag_seen)
        if c.first_ply is not None:
            plies_missed += sum(1 for p in range(c.first_ply, ply + 1) if p not in c.plies)
        for fid, received in c.flag_seen.items():
            _kind, settled, at = c.flag_info[fid]
            if settled is None or c.connected is None or at < c.connected:
                continue  # a correction's flag, or one raised before this client connected
            handled_lat.append(received - at)
            if at - settled > TIMER_FLAG_DELAY:
                timer_flags.add(fid)
            else:
                settle_lat.append(received - settled)
        delivery += c.delivery
        bad_frames += c.bad_frames
        video_bytes += c.frame_bytes
        if c.first_frame is not None and c.last_frame is not None and c.last_frame > c.first_frame:
            fps.append((c.frames - 1) / (c.last_frame - c.first_frame))
        else:
            fps.append(0.0)
    failed = sum(n for s, n in statuses.items() if s != 200) + len(errors)

    kept = [(t, v) for t, v in samples if t >= t0 + warmup] or samples
    rss = [v for _, v in kept]
    settle = _ms(settle_lat)
    events = [c.events for c in pool]
    all_equal = bool(server) and all(equal)
    lost = events_missed + flags_missed + plies_missed
    figures: dict[str, Any] = {
        "clients": len(pool),
        "run": ended,
        "seconds": round(wall, 1),
        "game_over": bool(server.get("game_over")),
        "plies": ply,
        "referee_events": last_id,
        "referee_event_types": dict(sorted(Counter(types.values()).items())),
        "flags_raised": flags_raised,
        "flags_shown": len(shown),
        "updates_lost": lost,
        "events_missed": events_missed,
        "flags_missed": flags_missed,
        "plies_missed": plies_missed,
        "events_never_delivered": never_delivered,
        "flags_never_shown": never_shown,
        "final_state_equal": all_equal,
        "clients_equal": sum(equal),
        "failed_requests": failed,
        "http_statuses": {str(k): v for k, v in sorted(statuses.items())},
        "client_errors": errors[:5],
        "server_versions": int(server.get("version", 0)),
        "state_events_median": statistics.median(events) if events else 0,
        "state_events_min": min(events, default=0),
        "state_events_max": max(events, default=0),
        "flag_latency_ms_median": settle["median"],
        "flag_latency_ms_p95": settle["p95"],
        "flag_latency_ms_max": settle["max"],
        "flag_latency_samples": settle["n"],
        "timer_flags": len(timer_flags),
        "flag_delivery_ms_median": _ms(handled_lat)["median"],
        "flag_delivery_ms_max": _ms(handled_lat)["max"],
        "state_delivery_ms_median": _ms(delivery)["median"],
        "state_delivery_ms_p95": _ms(delivery)["p95"],
        "video_fps_median": round(statistics.median(fps), 2) if fps else 0.0,
        "video_fps_min": round(min(fps), 2) if fps else 0.0,
        "video_bad_frames": bad_frames,
        "video_mb_per_s_total": round(video_bytes / 1e6 / wall, 2) if wall else 0.0,
        "pipeline_fps": (server.get("vision") or {}).get("fps"),
        "rss_mb_first": round(rss[0], 1) if rss else None,
        "rss_mb_last": round(rss[-1], 1) if rss else None,
        "rss_mb_max": round(max(rss), 1) if rss else None,
        "rss_mb_growth": round(rss[-1] - rss[0], 1) if rss else None,
        "rss_mb_per_min": round(_slope_per_minute(kept), 2),
        "rss_samples": len(rss),
        "server_cpu_percent": round(100 * server_cpu, 1),
        "clients_cpu_percent": round(100 * bench_cpu, 1),
        "cores": os.cpu_count(),
        "load_average": [round(x, 2) for x in os.getloadavg()],
        "ok": bool(all_equal and lost == 0 and never_delivered == 0 and never_shown == 0 and failed == 0
                   and bad_frames == 0),
    }
    return figures
