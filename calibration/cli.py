"""The reader's subcommands of ``rolit``: recognize, calibrate, watch, markers, and the vision bench."""

from __future__ import annotations

import argparse
import json
import logging
from collections.abc import Callable
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from rolit.engine import get_variant
from rolit.engine.errors import RolitError
from rolit.vision.errors import BoardNotFoundError, SourceError
from rolit.vision.locate import order_corners
from rolit.vision.markers import marker_sheet
from rolit.vision.sources import open_source
from rolit.vision.stabiliser import Stabiliser

from .errors import CalibrationBoardNotFoundError, CalibrationError
from .profile import Profile, default_profile_path
from .reader import BoardReader, calibrate

__all__ = ["BENCHES", "add_calibration_commands"]

log = logging.getLogger(__name__)


def _read_image(path: str) -> np.ndarray[Any, np.dtype[np.uint8]]:
    p = Path(path)
    if not p.exists():
        raise SourceError(f"{path} does not exist")
    if p.is_dir():
        raise SourceError(f"{path} is a folder, not an image")
    image = cv2.imread(str(p), cv2.IMREAD_COLOR)
    if image is None:
        raise SourceError(f"{path} is not an image OpenCV can read (use JPEG, PNG, BMP or WebP)")
    return np.asarray(image, np.uint8)


def _profile(path: str | None, variant: str) -> Profile | None:
    if path is None:
        return None
    profile = Profile.load(path)
    if profile.variant != get_variant(variant).name:
        raise CalibrationError(f"the profile {path} was made for {profile.variant}, not {variant}")
    return profile


def _recognize(args: argparse.Namespace) -> int:
    image = _read_image(args.image)
    reader = BoardReader(args.variant, profile=_profile(args.calibration, args.variant))
    obs = reader.read(image)
    if obs.board is None:
        size = get_variant(args.variant).size
        raise BoardNotFoundError(f"no {size}x{size} board found in {args.image}")
    if args.json:
        print(json.dumps(obs.to_json()))
    else:
        print(obs.board.text())
        print(f"confidence {obs.confidence:.2f}, {len(obs.unknown)} unknown")
    return 0


def _calibrate(args: argparse.Namespace) -> int:
    image = _read_image(args.image)
    given = None
    if args.corners is not None:
        given = Profile(args.variant, corners=_corners_in(args.corners, image.shape))
    try:
        profile = calibrate(image, args.variant, given, rotation=args.turn)
    except CalibrationBoardNotFoundError as exc:
        raise CalibrationBoardNotFoundError(
            f"{exc}: give the grid's four outer corners with --corners X,Y X,Y X,Y X,Y (pixels), "
            "or print corner markers with rolit markers"
        ) from None
    path = profile.save(args.output or default_profile_path())
    where = "the corners given" if given is not None else "the board found"
    print(f"calibrated from the start position ({where}); the profile is saved in {path}")
    print(f"the grid was placed by {PLACES[profile.seen_placed_by]}")
    if profile.lens:
        print(f"the lens bends the picture ({profile.lens:+.3f}): every frame is straightened by it")
    return 0


# How `rolit calibrate` says what placed the grid (Profile.seen_placed_by).
PLACES = {
    "lines": "the board's printed lines",
    "cups": "the cups' centres",
    "cup template": "the cups, alike in every cell",
    "cup rims": "the cups' rims",
    "corners given": "the corners given",
    "outline": "its outline and balls alone, no printed lines or clear cups (its cells may be read less surely)",
}


def _corner(text: str) -> tuple[float, float]:
    """One ``X,Y`` of ``--corners`` (pixels)."""
    try:
        x, y = (float(v) for v in text.split(","))
        if not (np.isfinite(x) and np.isfinite(y)):
            raise ValueError(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"a corner is X,Y in pixels, like 120,80 (not {text!r})") from None
    return x, y


def _corners_in(corners: list[tuple[float, float]], shape: tuple[int, ...]) -> list[list[float]]:
    """Corners given by hand, checked against the picture: inside it, and round a board, not a line or a bow tie."""
    c = np.asarray(corners, np.float64)
    h, w = shape[:2]
    if np.any(c < 0) or np.any(c[:, 0] > w - 1) or np.any(c[:, 1] > h - 1):
        raise CalibrationError(f"the corners must lie inside the {w}x{h} picture")
    ordered = order_corners(c)
    if not cv2.isContourConvex(ordered.astype(np.float32).reshape(-1, 1, 2)) or cv2.contourArea(
        ordered.astype(np.float32)
    ) < 0.001 * w * h:
        raise CalibrationError("the four corners must be the grid's outer corners, round a board the picture shows")
    return [[float(x), float(y)] for x, y in ordered]


def _watch(args: argparse.Namespace) -> int:
    reader = BoardReader(args.variant, profile=_profile(args.calibration, args.variant))
    stabiliser = Stabiliser(hold=args.hold)
    source = open_source(args.source, fps=args.fps)
    seen = 0
    try:
        for frame in source.frames(timeout=args.timeout):
            obs = reader.read(frame.image)
            settled = stabiliser.push(obs, frame.t)
            if settled is not None:
                seen += 1
                print(settled.board.text() + "\n", flush=True)
    except KeyboardInterrupt:
        pass
    finally:
        source.close()
    if source.status == "reconnecting":
        raise SourceError(f"{args.source} was lost")
    log.info("%d settled boards", seen)
    return 0


def _markers(args: argparse.Namespace) -> int:
    sheet = marker_sheet(dpi=args.dpi)
    if not cv2.imwrite(args.output, sheet):
        raise RolitError(f"cannot write {args.output} (use a .png or .jpg name in a folder that exists)")
    print(f"marker sheet written to {args.output}: print it at 100% and put each marker at its grid corner")
    return 0


def add_calibration_commands(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add recognize, calibrate, watch and markers to ``sub``."""
    from rolit.engine.variants import VARIANTS

    p = sub.add_parser("recognize", help="read the board in a photo")
    p.add_argument("image")
    p.add_argument("--variant", choices=list(VARIANTS), default="classic")
    p.add_argument("--calibration", help="profile from rolit calibrate (default: uncalibrated)")
    p.add_argument("--json", action="store_true", help="DESIGN.md's JSON: n, rows, board, corners, unknown, confidence")
    p.set_defaults(func=_recognize)

    p = sub.add_parser("calibrate", help="fit the colour model from a photo of the start position")
    p.add_argument("image")
    p.add_argument("-o", "--output", help=f"profile file (default: {default_profile_path()})")
    p.add_argument("--variant", choices=list(VARIANTS), default="classic")
    p.add_argument("--turn", type=int, choices=range(4), metavar="{0,1,2,3}",
                   help="the board's quarter turns in the picture, when its colours cannot tell "
                        "(0: row 1 at the top; default: from the start position's colours)")
    p.add_argument("--corners", type=_corner, nargs=4, metavar="X,Y",
                   help="the grid's four outer corners in the picture (pixels, any order), when the board "
                        "is not found by itself; they are kept in the profile and used instead of finding it")
    p.set_defaults(func=_calibrate)

    p = sub.add_parser("watch", help="print each settled board a camera, video or folder shows")
    p.add_argument("source", help="camera index, video file, image, folder of images, stream URL, or demo")
    p.add_argument("--variant", choices=list(VARIANTS), default="classic")
    p.add_argument("--calibration")
    p.add_argument("--fps", type=float, default=None)
    p.add_argument("--hold", type=float, default=0.4, help="seconds a board must hold to count (default 0.4)")
    p.add_argument("--timeout", type=float, default=5.0, help="give up after this many seconds without a frame")
    p.set_defaults(func=_watch)

    p = sub.add_parser("markers", help="print a sheet of ArUco corner markers (for boards that are hard to find)")
    p.add_argument("-o", "--output", required=True)
    p.add_argument("--dpi", type=int, default=150)
    p.set_defaults(func=_markers)


def _bench_vision(args: argparse.Namespace) -> dict[str, Any]:
    from .bench import NUDGE, bench_vision, read_scene

    if args.per_scene:
        # For development: every scene's figures, to see where the totals come from (no speed figures).
        nudge = NUDGE if args.nudged else None
        last = args.first_scene + args.scenes
        return {"first_scene": args.first_scene, "nudge": list(nudge) if nudge else None,
                "scenes": [read_scene(k, nudge=nudge, calibration_only=args.calibration_only)
                           for k in range(args.first_scene, last)]}
    return bench_vision(scenes=args.scenes, repeats=args.repeats, first=args.first_scene)


BENCHES: dict[str, Callable[[argparse.Namespace], dict[str, Any]]] = {"vision": _bench_vision}


