"""The vision worker: frames -> board reader -> stabiliser -> the session; and the annotated video.

One background thread per session. It always takes the newest frame (the
source drops stale ones), reads it, lets the stabiliser decide when the board
has settled, hands settled boards to the :class:`~rolit.webui.session.TableSession`
and publishes each annotated frame as JPEG for the MJPEG stream.
"""

from __future__ import annotations

import logging
import threading
import time
from collections import deque

from rolit.engine import UNKNOWN
from rolit.vision.observation import Observation
from rolit.vision.sources import Frame, FrameSource
from rolit.vision.stabiliser import Stabiliser

from .broadcast import Broadcaster
from .overlay import annotate, encode_jpeg
from .reading import FrameReader, ReaderFactory
from .session import TableSession

__all__ = ["VisionWorker"]

log = logging.getLogger(__name__)


class VisionWorker:
    """Runs the live pipeline for ``session`` on ``source`` in a daemon thread."""

    def __init__(
        self,
        session: TableSession,
        source: FrameSource,
        reader_factory: ReaderFactory,
        *,
        hold: float = 0.4,
        min_frames: int = 3,
        jpeg_quality: int = 70,
    ) -> None:
        self.session = session
        self.source = source
        self.reader_factory = reader_factory
        self.stabiliser = Stabiliser(hold=hold, min_frames=min_frames)
        self.jpeg_quality = jpeg_quality
        self.video = Broadcaster()
        self.latest_frame: Frame | None = None
        self.latest_observation: Observation | None = None
        self.read_ms: deque[float] = deque(maxlen=50)
        self._variant = session.settings.variant
        self._reader: FrameReader = reader_factory(self._variant)
        self._generation = session.generation
        self._stop = threading.Event()
        self._lock = threading.Lock()
        self._times: deque[float] = deque(maxlen=30)
        self._thread = threading.Thread(target=self._run, name="rolit-vision", daemon=True)

    @property
    def reader(self) -> FrameReader:
        """The board reader in use."""
        return self._reader

    def start(self) -> VisionWorker:
        """Start the thread."""
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop the thread and close the source."""
        self._stop.set()
        if self._thread.is_alive() and self._thread is not threading.current_thread():
            self._thread.join(timeout=5)
        self.source.close()
        self.video.close()

    def switch_source(self, source: FrameSource) -> None:
        """Read from another source from now on (the browser's camera); the old one is closed."""
        with self._lock:
            old, self.source = self.source, source
        if old is not source:
            old.close()
            self.stabiliser.reset()
            self._reader.reset()

    def set_reader(self, reader: FrameReader) -> None:
        """Use another reader (after a calibration)."""
        with self._lock:
            self._reader = reader
            self.stabiliser.reset()

    # The loop --------------------------------------------------------------------------

    def _sync_generation(self) -> None:
        session = self.session
        if session.generation == self._generation:
            return
        self._generation = session.generation
        self.stabiliser.reset()
        if session.settings.variant != self._variant:
            self._variant = session.settings.variant
            try:
                self._reader = self.reader_factory(self._variant)
            except Exception:
                log.exception("no board reader for %s", self._variant)
        else:
            self._reader.reset()

    def _run(self) -> None:
        while not self._stop.is_set():
            try:
                self._step()
            except Exception:  # keep the page alive whatever one frame does
                log.exception("vision worker: a frame failed")
                self._stop.wait(0.2)

    def _step(self) -> None:
        with self._lock:
            source = self.source
        frame = source.latest(timeout=0.5)
        self._sync_generation()
        if frame is None:
            status = source.status
            if status in ("reconnecting", "failed"):
                self.session.set_vision("camera_lost")
            elif status == "ended":
                self.session.set_vision("ended")
                self._stop.wait(0.5)
            elif status == "waiting":
                self.session.set_vision("waiting")
            self.session.tick()
            return
        started = time.monotonic()
        observation = self._reader.read(frame.image)
        self.read_ms.append((time.monotonic() - started) * 1000)
        # Cells the reader is unsure of are taken when its guess is what the game expects.
        board = observation.board
        if board is not None and board.unknown_squares():  # the game is asked only when it can help
            board = observation.filled_from(self.session.likely_boards())
        if board is not None:
            board = self.session.apply_overrides(board)
        seen = Observation(board, observation.corners, observation.cell_points, observation.cell_confidence,
                           observation.quality, observation.status, observation.moved, observation.timings)
        self.latest_frame, self.latest_observation = frame, seen
        if observation.moved:
            # Bumped: what settles next is checked against the game before play goes on.
            self.stabiliser.reset()
            self.session.board_moved()
        self._times.append(frame.t)
        fps = (len(self._times) - 1) / (self._times[-1] - self._times[0]) if len(self._times) > 1 else 0.0
        if board is None:
            status = "no_board"
        elif not board.is_complete:
            status = "occluded"
        else:
            status = "ok"
        corners = [[float(x), float(y)] for x, y in seen.corners] if seen.corners else None
        self.session.set_vision(status, board, corners, seen.quality, fps)
        settled = self.stabiliser.push(seen, frame.t)
        if settled is not None:
            # The wall-clock moment the frame that settled the board arrived.
            settled_wall = time.time() - (time.monotonic() - frame.t)
            self.session.observe_settled(settled.board, settled_at=settled_wall, now=frame.t)
            self._learn(observation)
        else:
            self.session.tick(frame.t)
        self._publish_video(frame, seen)

    def _learn(self, observation: Observation) -> None:
        """Let a calibrated reader follow the light with this frame, when it shows the game's position.

        Only a clear view counts (no hand, every cell it was sure of as the game
        has it): the references must not learn a hand or a misread.
        """
        learn = getattr(self._reader, "learn", None)
        board = observation.board
        if learn is None or board is None or observation.status != "ok":
            return
        with self.session.lock:
            accepted = self.session.referee.game.position.board()
        if accepted.size == board.size and all(c is UNKNOWN or c == accepted[sq] for sq, c in board.items()):
            learn(accepted)

    def _publish_video(self, frame: Frame, observation: Observation) -> None:
        with self.session.lock:
            state_fix = list(self.session.snapshot_fix())
            hint = self.session.hint_square()
        image = annotate(frame.image, observation, state_fix, hint)
        self.video.publish(encode_jpeg(image, self.jpeg_quality))
