"""Frame sources: webcams, video files, images, network streams, browser pushes, the demo.

Every source runs one reader thread that keeps only the newest frame, so a slow
consumer never works on stale buffered frames. A camera or stream that fails is
reopened with back-off (``status`` says ``"reconnecting"`` meanwhile); a file or
device that is missing when the source is opened gets one clear
:class:`SourceError`.

>>> with open_source("demo", fps=50, size=(160, 120)) as source:
...     frame = source.latest(timeout=10)
>>> frame.image.shape
(120, 160, 3)
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt

from .errors import SourceError

__all__ = ["Frame", "FrameSource", "PushSource", "open_source", "IMAGE_SUFFIXES", "VIDEO_SUFFIXES"]

log = logging.getLogger(__name__)

Image = npt.NDArray[np.uint8]
IMAGE_SUFFIXES = (".jpg", ".jpeg", ".png", ".bmp", ".webp", ".tif", ".tiff")
VIDEO_SUFFIXES = (".mp4", ".avi", ".mov", ".mkv", ".webm", ".m4v", ".mjpeg", ".mjpg")


@dataclass(frozen=True)
class Frame:
    """A BGR image, when it arrived (monotonic seconds) and its number in the stream."""

    image: Image
    t: float
    index: int


class FrameSource:
    """Base class: a reader thread fills a one-frame slot; :meth:`latest` takes from it.

    Subclasses provide :meth:`_open` (raise :class:`SourceError` if impossible),
    :meth:`_read` (the next image, or ``None`` at a failure or the end) and
    :meth:`_release`. ``live`` sources (cameras, streams) are reopened with
    back-off when they fail; others end.
    """

    live = False
    backoff = (0.5, 1.0, 2.0, 4.0, 8.0)

    def __init__(self, name: str, fps: float | None = None) -> None:
        self.name = name
        self.fps = fps
        self.status = "starting"
        self.error: str | None = None
        self._cond = threading.Condition()
        self._frame: Frame | None = None
        self._taken = -1
        self._count = 0
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    # Subclass hooks -------------------------------------------------------------

    def _open(self) -> None:
        raise NotImplementedError

    def _read(self) -> Image | None:
        raise NotImplementedError

    def _release(self) -> None:
        pass

    # Life cycle ----------------------------------------------------------------

    def start(self) -> FrameSource:
        """Open the source (raising :class:`SourceError` if it cannot be) and start reading."""
        self._open()
        self.status = "ok"
        self._thread = threading.Thread(target=self._run, name=f"source-{self.name}", daemon=True)
        self._thread.start()
        return self

    def close(self) -> None:
        """Stop the reader thread and release the device."""
        self._stop.set()
        with self._cond:
            self._cond.notify_all()
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join(timeout=5)
        self._release()
        if self.status not in ("ended", "failed"):
            self.status = "closed"

    def __enter__(self) -> FrameSource:
        return self if self._thread is not None else self.start()

    def __exit__(self, *exc: object) -> None:
        self.close()

    # Consuming -----------------------------------------------------------------

    def latest(self, timeout: float | None = None) -> Frame | None:
        """The newest frame not returned before, waiting up to ``timeout`` seconds; ``None`` if none came."""
        deadline = None if timeout is None else time.monotonic() + timeout
        with self._cond:
            while self._frame is None or self._frame.index == self._taken:
                if self._stop.is_set() or self.status in ("ended", "failed"):
                    return None
                remaining = None if deadline is None else deadline - time.monotonic()
                if remaining is not None and remaining <= 0:
                    return None
                self._cond.wait(remaining)
            self._taken = self._frame.index
            return self._frame

    def frames(self, timeout: float = 5.0) -> Iterator[Frame]:
        """Frames as they come, until the source ends or is silent for ``timeout`` seconds."""
        while True:
            frame = self.latest(timeout)
            if frame is None:
                return
            yield frame

    # The reader thread -------------------------------------------------------------

    def _publish(self, image: Image) -> None:
        with self._cond:
            self._frame = Frame(image, time.monotonic(), self._count)
            self._count += 1
            self._cond.notify_all()

    def _run(self) -> None:
        period = 1.0 / self.fps if self.fps else 0.0
        next_at = time.monotonic()
        attempt = 0
        while not self._stop.is_set():
            try:
                image = self._read()
            except Exception as exc:  # a driver error must not kill the thread silently
                log.warning("%s: read failed: %s", self.name, exc)
                image = None
            if image is None:
                if not self.live:
                    self.status = "ended"
                    break
                self._reconnect(attempt)
                attempt += 1
                continue
            attempt = 0
            if not _valid(image):
                log.debug("%s: skipped a corrupt frame", self.name)
                continue
            self.status = "ok"
            self._publish(image)
            if period:
                next_at = max(next_at + period, time.monotonic() - period)
                self._stop.wait(max(0.0, next_at - time.monotonic()))
        with self._cond:
            self._cond.notify_all()

    def _reconnect(self, attempt: int) -> None:
        self.status = "reconnecting"
        delay = self.backoff[min(attempt, len(self.backoff) - 1)]
        log.warning("%s: lost; reopening in %.1f s", self.name, delay)
        self._release()
        if self._stop.wait(delay):
            return
        try:
            self._open()
            self.status = "ok"
            log.info("%s: reopened", self.name)
        except SourceError as exc:
            self.error = str(exc)


def _valid(image: Any) -> bool:
    return (
        isinstance(image, np.ndarray)
        and image.dtype == np.uint8
        and image.ndim == 3
        and image.shape[2] == 3
        and image.shape[0] >= 16
        and image.shape[1] >= 16
    )


class _CaptureSource(FrameSource):
    """A cv2.VideoCapture: camera index, video file or stream URL."""

    def __init__(self, name: str, target: int | str, live: bool, fps: float | None, loop: bool = False) -> None:
        super().__init__(name, fps)
        self.target = target
        self.live = live
        self.loop = loop
        self._cap: cv2.VideoCapture | None = None

    def _open(self) -> None:
        cap = cv2.VideoCapture(self.target)
        if not cap.isOpened():
            cap.release()
            raise SourceError(_cannot_open(self.target))
        if isinstance(self.target, int):
            cap.set(cv2.CAP_PROP_BUFFERSIZE, 1)  # keep the driver from queueing stale frames
        if self.fps is None and not self.live:
            native = cap.get(cv2.CAP_PROP_FPS)
            self.fps = native if 1 <= native <= 120 else 25.0
        self._cap = cap

    def _read(self) -> Image | None:
        if self._cap is None:
            return None
        ok, image = self._cap.read()
        if not ok and self.loop and not self.live:
            self._cap.set(cv2.CAP_PROP_POS_FRAMES, 0)
            ok, image = self._cap.read()
        return np.asarray(image, np.uint8) if ok and image is not None else None

    def _release(self) -> None:
        if self._cap is not None:
            self._cap.release()
            self._cap = None


def _cannot_open(target: int | str) -> str:
    if isinstance(target, int):
        return f"camera {target} cannot be opened (no such device, or it is in use)"
    if "://" in target:
        return f"the stream {target} cannot be opened (check the address and that the phone app is serving)"
    return f"{target} cannot be read as a video"


class _ImagesSource(FrameSource):
    """One image (repeated) or a folder of images (in name order), at ``fps``."""

    def __init__(self, path: Path, fps: float | None, loop: bool) -> None:
        super().__init__(str(path), fps or 5.0)
        self.path = path
        self.loop = loop
        self._files: list[Path] = []
        self._i = 0

    def _open(self) -> None:
        if self.path.is_dir():
            self._files = sorted(p for p in self.path.iterdir() if p.suffix.lower() in IMAGE_SUFFIXES)
            if not self._files:
                raise SourceError(f"the folder {self.path} holds no images")
        else:
            self._files = [self.path]
            self.loop = True  # a still image is a camera that never moves
        first = cv2.imread(str(self._files[0]))
        if first is None:
            raise SourceError(f"{self._files[0]} is not an image")

    def _read(self) -> Image | None:
        while self._i < len(self._files) or self.loop:
            if self._i >= len(self._files):
                self._i = 0
            path = self._files[self._i]
            self._i += 1
            image = cv2.imread(str(path))
            if image is not None:
                return np.asarray(image, np.uint8)
            log.warning("skipped %s: not an image", path)
        return None


MAX_PUSHED_SIDE = 4096


def encoded_image_size(data: bytes) -> tuple[int, int] | None:
    """Width and height written in a JPEG's or PNG's header (``None``: neither, or no size found).

    >>> encoded_image_size(bytes(cv2.imencode(".png", np.zeros((3, 5, 3), np.uint8))[1]))
    (5, 3)
    """
    if data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) >= 24 and data[12:16] == b"IHDR":
        return int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")
    if data[:2] != b"\xff\xd8":
        return None
    i = 2
    while i + 4 <= len(data):
        if data[i] != 0xFF:
            return None
        marker = data[i + 1]
        if marker == 0xFF:  # fill byte
            i += 1
            continue
        length = int.from_bytes(data[i + 2:i + 4], "big")
        # Start-of-frame markers (baseline, progressive, ...) hold the size; not DHT, JPG or DAC.
        if 0xC0 <= marker <= 0xCF and marker not in (0xC4, 0xC8, 0xCC):
            if i + 9 > len(data):
                return None
            return int.from_bytes(data[i + 7:i + 9], "big"), int.from_bytes(data[i + 5:i + 7], "big")
        i += 2 + length
    return None


class PushSource(FrameSource):
    """Frames pushed from elsewhere (a browser page's camera), as encoded images or arrays."""

    live = True

    def __init__(self, name: str = "browser") -> None:
        super().__init__(name)

    def _open(self) -> None:
        pass

    def start(self) -> FrameSource:
        self.status = "waiting"
        return self  # No thread: push() publishes directly.

    def push(self, data: bytes | Image) -> Frame:
        """Publish a frame; :class:`SourceError` if the bytes are not an image."""
        if isinstance(data, bytes | bytearray | memoryview):
            data = bytes(data)
            size = encoded_image_size(data)
            if size is None:
                raise SourceError("the uploaded frame is not a JPEG or PNG image")
            if max(size) > MAX_PUSHED_SIDE:
                # Checked before decoding: a small file can hold a gigantic picture.
                raise SourceError(f"the uploaded frame is {size[0]}x{size[1]} pixels; at most "
                                  f"{MAX_PUSHED_SIDE} pixels on a side are accepted")
            decoded = cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR)
            if decoded is None:
                raise SourceError("the uploaded frame is not an image")
            image: Image = np.asarray(decoded, np.uint8)
        else:
            image = data
        if not _valid(image):
            raise SourceError("the frame must be a colour image at least 16 pixels wide and high")
        self.status = "ok"
        self._publish(image)
        assert self._frame is not None
        return self._frame

    def close(self) -> None:
        self._stop.set()
        with self._cond:
            self._cond.notify_all()
        self.status = "closed"


class _GeneratedSource(FrameSource):
    """Frames from a Python iterator (the synthetic demo), paced at ``fps``."""

    def __init__(self, name: str, make: Callable[[], Iterator[Image]], fps: float) -> None:
        super().__init__(name, fps)
        self._make = make
        self._it: Iterator[Image] | None = None

    def _open(self) -> None:
        self._it = self._make()

    def _read(self) -> Image | None:
        assert self._it is not None
        return next(self._it, None)


def _demo(size: tuple[int, int], loop: bool) -> Iterator[Image]:
    from .synthetic.demo import demo_frames

    for image, _truth, _frame in demo_frames(size=size, loop=loop):
        yield image


def open_source(
    spec: str | int,
    *,
    fps: float | None = None,
    loop: bool = False,
    size: tuple[int, int] = (640, 360),
) -> FrameSource:
    """Open and start a source.

    ``spec`` is a camera index (``0`` or ``"0"``), a video file, an image, a
    folder of images, a stream URL (``rtsp://``, ``http://.../video``), ``"demo"``
    (the synthetic demo game, rendered at ``size``) or ``"push"`` (frames pushed
    by :meth:`PushSource.push`). Video files and images play at their own or the
    given ``fps``; ``loop`` repeats them.
    """
    if isinstance(spec, int) or (isinstance(spec, str) and spec.strip().isdigit()):
        index = int(spec)
        return _CaptureSource(f"camera {index}", index, live=True, fps=None).start()
    text = spec.strip()
    if text == "demo":
        return _GeneratedSource("demo", lambda: _demo(size, loop=True), fps or 10.0).start()
    if text == "push":
        return PushSource().start()
    if "://" in text:
        return _CaptureSource(text, text, live=True, fps=None).start()
    path = Path(text)
    if not path.exists():
        raise SourceError(f"{text} does not exist")
    if path.is_dir() or path.suffix.lower() in IMAGE_SUFFIXES:
        return _ImagesSource(path, fps, loop).start()
    return _CaptureSource(str(path), str(path), live=False, fps=fps, loop=loop).start()
