"""Frame sources: files, folders, images, pushes, the demo, and clear errors."""

from __future__ import annotations

import time
from pathlib import Path

import cv2
import numpy as np
import pytest

from rolit.vision.errors import SourceError
from rolit.vision.sources import PushSource, open_source


def _frames(folder: Path, count: int, size: tuple[int, int] = (64, 48)) -> list[np.ndarray]:
    folder.mkdir(parents=True, exist_ok=True)
    images = []
    for i in range(count):
        img = np.full((size[1], size[0], 3), i * 20 % 256, np.uint8)
        cv2.imwrite(str(folder / f"f{i:03d}.png"), img)
        images.append(img)
    return images


def test_folder_of_images_plays_in_order(tmp_path: Path) -> None:
    _frames(tmp_path / "shots", 5)
    (tmp_path / "shots" / "notes.txt").write_text("not an image")
    # Like every source, a folder keeps only the newest frame: at 200 frames a second a loaded machine's
    # consumer missed one (a full test run beside a bench); 40 a second leaves it 25 ms a frame.
    with open_source(str(tmp_path / "shots"), fps=40) as source:
        values = [int(f.image[0, 0, 0]) for f in source.frames(timeout=2)]
    assert values == [0, 20, 40, 60, 80] and source.status == "ended"


def test_video_file_keeps_only_the_newest_frame(tmp_path: Path) -> None:
    path = tmp_path / "clip.avi"
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"MJPG"), 50, (64, 48))
    for i in range(30):
        writer.write(np.full((48, 64, 3), i * 8, np.uint8))
    writer.release()
    with open_source(str(path), fps=100) as source:
        time.sleep(0.2)  # a slow consumer: frames pile up in the device, not here
        first = source.latest(timeout=2)
        assert first is not None and first.index > 3
        rest = list(source.frames(timeout=2))
    assert all(b.index > a.index for a, b in zip([first, *rest], rest, strict=False))


def test_single_image_repeats(tmp_path: Path) -> None:
    _frames(tmp_path, 1)
    with open_source(str(tmp_path / "f000.png"), fps=100) as source:
        got = [source.latest(timeout=2) for _ in range(3)]
    assert all(f is not None for f in got) and len({f.index for f in got if f}) == 3


def test_push_source(tmp_path: Path) -> None:
    source = PushSource()
    source.start()
    _, jpeg = cv2.imencode(".jpg", np.full((48, 64, 3), 200, np.uint8))
    source.push(jpeg.tobytes())
    frame = source.latest(timeout=1)
    assert frame is not None and frame.image.shape == (48, 64, 3)
    with pytest.raises(SourceError, match="not a JPEG or PNG image"):
        source.push(b"hello")
    with pytest.raises(SourceError, match="colour image"):
        source.push(np.zeros((8, 8, 3), np.uint8))
    source.close()


def test_demo_source_renders_frames() -> None:
    with open_source("demo", fps=30, size=(160, 120)) as source:
        frame = source.latest(timeout=20)
    assert frame is not None and frame.image.shape == (120, 160, 3)


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("/nonexistent/video.mp4", "does not exist"),
        ("9", "camera 9 cannot be opened"),
        ("rtsp://127.0.0.1:1/none", "cannot be opened"),
    ],
)
def test_missing_sources_get_one_clear_error(spec: str, message: str) -> None:
    with pytest.raises(SourceError, match=message):
        open_source(spec)


def test_empty_folder_and_bad_video(tmp_path: Path) -> None:
    with pytest.raises(SourceError, match="holds no images"):
        open_source(str(tmp_path))
    bad = tmp_path / "broken.mp4"
    bad.write_bytes(b"not a video at all")
    with pytest.raises(SourceError, match="cannot be read as a video"):
        open_source(str(bad))
