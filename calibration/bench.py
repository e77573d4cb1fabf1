"""Vision figures for ``rolit bench vision``: accuracy on unseen renders, and speed against JPEG decoding.

Accuracy uses scenes the colour model never saw (seeds far from the training
ones) across every condition the renderer draws. For each scene the true board
under each cell the reader reads comes from the render's ground truth, and the
board's orientation is matched first (the start position fixes it in a real
game). A cell is *wrong* when the reader gives a colour or empty that is not
there, *unknown* when it says it cannot tell.

Speed is measured on 1280x720 frames, each figure as a ratio to decoding the
same frame from JPEG in the same run, since these machines are shared and noisy.
"""

from __future__ import annotations

import itertools
import random
import statistics
import time
from collections.abc import Callable, Iterator
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt

from rolit.engine import UNKNOWN, Board, Position
from rolit.vision.dataset import random_board, random_hand_over
from rolit.vision.lattice import cell_centres
from rolit.vision.lens import Lens
from rolit.vision.locate import apply_homography, grid_homography, grids_apart, order_corners
from rolit.vision.observation import Observation
from rolit.vision.synthetic.demo import DEMO_PARAMS
from rolit.vision.synthetic.hand import Hand
from rolit.vision.synthetic.params import BOARD_STYLES, RenderParams
from rolit.vision.synthetic.renderer import GroundTruth, Renderer, render

from .errors import CalibrationError
from .profile import Profile
from .reader import BoardReader, board_square, calibrate

__all__ = ["accuracy", "bench_vision", "cups_apart", "draw_scene", "read_scene", "speed"]

U8 = npt.NDArray[np.uint8]
TEST_SEED0 = 1_000_000  # training scenes use small seeds; these are never seen
# Scenes from here on are kept for the figures: nobody tunes the reader on them
# (development looks at scenes 0-999 of the same unseen range).
FIRST_HELD_OUT = 1000


# The readers each scene is read with, and what is counted of each one's cells (see _score).
MODES = ("uncalibrated", "calibrated", "by_hand")
COUNTS = ("cells", "wrong", "unknown", "hidden", "hidden_wrong", "misplaced")


def _truth_cells(reader_corners: npt.NDArray[np.float64], truth: GroundTruth, n: int) -> list[int]:
    """For each image cell the reader read (row-major), the true board square under it (-1 off the board)."""
    g = np.arange(n, dtype=np.float64) + 0.5
    cu, cv = np.meshgrid(g, g)
    pts = apply_homography(grid_homography(reader_corners, n), np.c_[cu.ravel(), cv.ravel()])
    uv = apply_homography(np.linalg.inv(grid_homography(np.asarray(truth.corners), n)), pts)
    out = []
    for u, v in uv:
        col, row = int(np.floor(u)), int(np.floor(v))
        out.append(row * 8 + col if 0 <= col < n and 0 <= row < n else -1)
    return out


def cups_apart(corners: npt.ArrayLike, truth: GroundTruth, n: int, lens: Lens | None = None) -> float:
    """How far (cells, at the worst cell) a grid's cell centres lie from the true cups' centres, whichever corner
    the grid lists first (clockwise, as :func:`order_corners` lists them); with ``lens``, a grid of the picture
    straightened by it.

    :func:`grids_apart` against the true corners counts the lens too: a lens bends the board, and the homography
    through its four corners may lie a fifth of a cell off its own cups (development scene 133: 0.21). Measured
    against the cups, a grid is only as far out as it reads.

    >>> _, truth = render(Position.start("quick6").board(), DEMO_PARAMS, variant="quick6")
    >>> cups_apart(truth.corners, truth, 6) < 0.05
    True
    """
    cells = cell_centres(n)
    cups = np.array([truth.cells[(i // n) * 8 + i % n] for i in range(n * n)], np.float64)
    if lens is not None:
        cups = lens.to_straight(cups)
    grid = np.asarray(corners, np.float64)
    seen = [apply_homography(np.linalg.inv(grid_homography(np.roll(grid, k, axis=0), n)), cups) for k in range(4)]
    return min(float(np.max(np.abs(there - cells))) for there in seen)


def _score(board: Board, corners: Any, truth: GroundTruth, rotation: int) -> dict[str, int]:
    n = board.size
    under = _truth_cells(np.asarray(corners, np.float64), truth, n)
    counts = {**dict.fromkeys(COUNTS, 0), "cells": n * n}
    for i, sq_true in enumerate(under):
        row, col = divmod(i, n)
        seen = board[board_square(col, row, n, rotation)]
        if sq_true < 0:
            counts["misplaced"] += 1
            counts["wrong"] += seen is not UNKNOWN
            continue
        if sq_true in truth.hidden:
            counts["hidden"] += 1
            counts["hidden_wrong"] += seen is not UNKNOWN and seen != truth.board[sq_true]
            continue
        if seen is UNKNOWN:
            counts["unknown"] += 1
        elif seen != truth.board[sq_true]:
            counts["wrong"] += 1
    return counts


def accuracy(
    scenes: int = 60,
    size: tuple[int, int] = (1280, 720),
    hand_rate: float = 0.2,
    demo_camera: bool = False,
    first: int = FIRST_HELD_OUT,
    nudge: tuple[float, float, float] | None = None,
) -> dict[str, Any]:
    """Read unseen renders uncalibrated and calibrated (from a render of the start position in the same scene).

    Scene ``k`` uses seed ``TEST_SEED0 + k`` for ``k`` from ``first``.
    ``demo_camera`` keeps the built-in demo's camera, light and table (6x6
    positions of every stage) instead of drawing every condition at random.
    ``nudge`` (degrees of elevation, azimuth and roll) moves the camera between
    the start position and the frame read, as a bumped camera or stand would.

    A board is *exactly right* with no cell wrong or unknown; as a hand over the
    board hides cells, only boards without one are counted for that rate.

    ``by_hand`` is the calibrated reader where calibration works and, where it
    is refused, one calibrated on corners given by hand, as the user is asked
    to then: the start position's true grid corners, each moved at random by
    :data:`HAND_PLACED` cells (a corner dragged onto the picture by eye). Such a
    profile keeps its corners: the camera is taken to stay where it was.
    """
    totals = {mode: dict.fromkeys(("boards", "found", "clear", "exact", *COUNTS), 0) for mode in MODES}
    calibration_failures = 0
    for k in range(first, first + scenes):
        scene = read_scene(k, size, hand_rate, demo_camera, nudge)
        calibration_failures += scene["calibration_refused"]
        for mode in MODES:
            t = totals[mode]
            t["boards"] += 1
            counts = scene[mode]
            if counts is None:
                continue
            t["found"] += 1
            t["clear"] += not scene["hand"]
            for key in (*COUNTS, "exact"):
                t[key] += counts[key]
    out: dict[str, Any] = {"scenes": scenes, "first_scene": first, "size": list(size),
                           "calibration_failures": calibration_failures}
    for mode, t in totals.items():
        cells = max(1, t["cells"])
        out[mode] = {
            **t,
            "found_rate": t["found"] / max(1, t["boards"]),
            "cell_error_rate": t["wrong"] / cells,
            "unknown_rate": t["unknown"] / cells,
            "exact_board_rate": t["exact"] / max(1, t["clear"]),
        }
    return out


def draw_scene(
    k: int, size: tuple[int, int] = (1280, 720), hand_rate: float = 0.2, demo_camera: bool = False
) -> tuple[str, Board, RenderParams, Hand | None, np.random.Generator]:
    """Scene ``k`` as the bench draws it: its variant, board, render parameters and hand (or ``None``), and the
    scene's generator as the draw leaves it (the corners given by hand are drawn from it next).

    Tests and looks into one scene draw it here, so that they see what the bench reads.

    >>> variant, board, params, hand, _ = draw_scene(0, hand_rate=1.0)
    >>> variant == draw_scene(0)[0] and hand is not None and draw_scene(0, hand_rate=0.0)[3] is None
    True
    """
    seed = TEST_SEED0 + k
    rng = random.Random(seed)
    nrng = np.random.default_rng(seed)
    variant = "quick6" if demo_camera else rng.choice(("classic", "classic", "quick6", "junior"))
    board = random_board(rng, variant)
    if demo_camera:
        params = RenderParams(**{**DEMO_PARAMS.__dict__, "size": size, "scene_seed": seed})
    else:
        params = RenderParams.random(nrng, size=size, scene_seed=seed)
    hand = random_hand_over(board.size, rng, nrng) if rng.random() < hand_rate else None
    return variant, board, params, hand, nrng


def read_scene(
    k: int,
    size: tuple[int, int] = (1280, 720),
    hand_rate: float = 0.2,
    demo_camera: bool = False,
    nudge: tuple[float, float, float] | None = None,
    calibration_only: bool = False,
) -> dict[str, Any]:
    """Scene ``k`` read each way :func:`accuracy` reads it, for looking into one scene (JSON-ready).

    Per mode, ``None`` when the board is not found, or the counts of its
    cells (see :func:`accuracy`), ``exact``, and ``grid``: how far (cells, at
    the worst cell, see :func:`grids_apart`) the grid read lies from the true one, and ``cups``: from the true
    cups (see :func:`cups_apart`). Also the scene's
    variant, whether a hand is over the board, whether calibration was
    refused, and ``calibration_grid``: how far calibration's grid lay from the
    start position's true one (``None`` when refused), ``calibration_cups``: from its true cups, and
    ``calibration_placed``: what placed it
    (:data:`~rolit.calibration.profile.PLACED_BY`); the camera's elevation
    at calibration (degrees) and the board's style. With ``calibration_only`` the game frame
    is not read (the start position is rendered and calibrated, no more).

    >>> scene = read_scene(0, size=(640, 360), hand_rate=0.0, demo_camera=True)
    >>> scene["variant"], scene["hand"], scene["calibrated"]["exact"]
    ('quick6', False, True)
    """
    variant, board, params, hand, nrng = draw_scene(k, size, hand_rate, demo_camera)
    start_image, start_truth = render(Position.start(variant).board(), params, variant=variant)
    elevation = round(params.elevation, 1)  # the camera's at calibration
    if nudge is not None:
        params = params.nudged(*nudge)
    n = board.size
    scene: dict[str, Any] = {"scene": k, "variant": variant, "hand": hand is not None,
                             "elevation": elevation, "board": BOARD_STYLES[params.board_style].name,
                             "calibration_refused": False, "calibration_grid": None, "calibration_cups": None,
                             "calibration_placed": None}
    profile: Profile | None = None
    try:
        profile = calibrate(start_image, variant)
        scene["calibration_placed"] = profile.seen_placed_by
        if profile.seen_corners is not None:
            lens = Lens(profile.lens, size)
            scene["calibration_grid"] = grids_apart(profile.seen_corners, start_truth.corners, n)
            scene["calibration_cups"] = cups_apart(lens.to_straight(profile.seen_corners), start_truth, n, lens)
    except CalibrationError:
        scene["calibration_refused"] = True
    if calibration_only:
        return scene
    readers: dict[str, BoardReader | None] = {
        "uncalibrated": BoardReader(variant),
        "calibrated": None if profile is None else BoardReader(variant, profile=profile),
        "by_hand": (_by_hand(start_image, start_truth, variant, nrng) if profile is None
                    else BoardReader(variant, profile=profile)),
    }  # fmt: skip
    image, truth = render(board, params, variant=variant, hand=hand)
    for mode, reader in readers.items():
        scene[mode] = None
        if reader is None:
            continue
        obs = reader.read(image)
        if obs.board is None or obs.corners is None:
            continue
        # Each cell is scored where it lies in the picture: uncalibrated, row 1 is the picture's top row.
        rotation = reader.profile.rotation
        counts: dict[str, Any] = dict(_score(obs.board, obs.corners, truth, rotation))
        counts["exact"] = (counts["wrong"] == 0 and counts["unknown"] == 0 and counts["misplaced"] == 0
                           and hand is None)
        counts["grid"] = grids_apart(obs.corners, truth.corners, n)
        lens = Lens(reader.profile.lens, size)
        counts["cups"] = cups_apart(lens.to_straight(obs.corners), truth, n, lens)
        scene[mode] = counts
    return scene


def compare_scenes(before: list[dict[str, Any]], after: list[dict[str, Any]]) -> dict[str, Any]:
    """Two runs of :func:`read_scene` over the same scenes, side by side: per mode, the boards found and the
    summed counts before and after, and every scene whose read changed (``[before, after]`` for each
    mode that changed: ``None`` when not found, else its cells wrong, unknown and the grid's error;
    and for ``calibration_grid`` when calibration's grid moved by a hundredth of a cell or more).

    For development: whether a change to the reader helped is read off the totals, and why off the scenes.

    >>> found = {"wrong": 0, "unknown": 2, "exact": False, "grid": 0.12, "cells": 64}
    >>> a = [{"scene": 7, "calibration_refused": False, "uncalibrated": None}]
    >>> b = [{"scene": 7, "calibration_refused": False, "uncalibrated": found}]
    >>> diff = compare_scenes(a, b)
    >>> diff["uncalibrated"]["found"], diff["changed"]
    ([0, 1], {7: {'uncalibrated': [None, [0, 2, 0.12]]}})
    """
    old = {scene["scene"]: scene for scene in before}
    pairs = [(old[scene["scene"]], scene) for scene in after if scene["scene"] in old]
    out: dict[str, Any] = {"scenes": len(pairs),
                           "calibration_refused": [sum(bool(p[i]["calibration_refused"]) for p in pairs)
                                                   for i in (0, 1)]}  # fmt: skip
    modes = [mode for mode in MODES if any(mode in b for _, b in pairs)]

    def brief(read: dict[str, Any] | None) -> list[Any] | None:
        return None if read is None else [read["wrong"], read["unknown"], round(float(read["grid"]), 2)]

    for mode in modes:
        reads = [[p[i].get(mode) for p in pairs] for i in (0, 1)]
        totals: dict[str, list[int]] = {"found": [sum(r is not None for r in side) for side in reads]}
        for key in (*COUNTS, "exact"):
            totals[key] = [sum(int(r.get(key, 0)) for r in side if r is not None) for side in reads]
        out[mode] = totals
    changed: dict[int, dict[str, list[Any]]] = {}
    for a, b in pairs:
        diff: dict[str, list[Any]] = {mode: [brief(a.get(mode)), brief(b.get(mode))] for mode in modes}
        diff = {mode: pair for mode, pair in diff.items() if pair[0] != pair[1]}
        grids = [None if g is None else round(float(g), 2) for g in (a.get("calibration_grid"),
                                                                     b.get("calibration_grid"))]  # fmt: skip
        if grids[0] != grids[1]:
            diff["calibration_grid"] = grids
        if diff:
            changed[int(b["scene"])] = diff
    out["changed"] = changed
    return out


# How far (cells, standard deviation along each axis) a corner placed by hand lies from the grid's true corner.
HAND_PLACED = 0.1


def _by_hand(image: U8, truth: GroundTruth, variant: str, rng: np.random.Generator) -> BoardReader | None:
    """A reader calibrated on the start position with the grid's corners placed by hand (see :func:`accuracy`);
    ``None`` when even that is refused."""
    corners = np.asarray(truth.corners, np.float64)
    pitch = float(np.mean(np.linalg.norm(corners - np.roll(corners, 1, axis=0), axis=1))) / truth.board.size
    placed = order_corners(corners + rng.normal(0.0, HAND_PLACED * pitch, corners.shape))
    try:
        profile = calibrate(image, variant, profile=Profile(variant, corners=placed.tolist()))
    except CalibrationError:
        return None
    return BoardReader(variant, profile=profile)


def _timed(fn: Any, repeats: int) -> float:
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def speed(repeats: int = 7) -> dict[str, Any]:
    """Milliseconds per stage on a 1280x720 frame, and ratios to JPEG decoding measured in the same run.

    Tracking is timed six ways: an uncalibrated reader; one whose profile
    holds a lens (every frame straightened round the grid); one calibrated on
    the start position as this camera saw it, as a game reads (the camera's
    colour model, the glints looked for, the grid calibration placed held);
    that one again with every cell classified afresh on every frame, as when
    the whole picture changes (see :mod:`rolit.calibration.unchanged`); and
    from low down (:data:`LOW_ELEVATION`), where balls hide the cups behind
    them, a calibrated reader and an uncalibrated one (whose search only just
    takes the grid there: see :class:`~rolit.calibration.unchanged.KeptSearch`).
    The board is seen from 60 degrees up but for those two.
    Tracking reads :data:`NOISY_FRAMES` frames of the still board in turn, each
    with its own sensor noise, as a camera delivers them.
    """
    rng = random.Random(5)
    board = random_board(rng, "classic")
    frames, calibrated = _still_board(board, 60.0)
    low_frames, low = _still_board(board, LOW_ELEVATION)
    image = frames[0]
    ok, jpeg = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, 90])
    assert ok
    data = jpeg.tobytes()
    reader = BoardReader("classic")
    reader.read(image)  # trains the default model once, outside the timing

    def decode() -> U8:
        return np.asarray(cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR), np.uint8)

    def full() -> None:
        reader.reset()
        reader.read(image)

    # A camera whose lens calibration measured: every frame is straightened (round the grid, once followed).
    bent = BoardReader("classic", profile=Profile("classic", lens=LENS_TIMED))
    t_decode = _timed(decode, repeats)
    out: dict[str, Any] = {"decode_ms": t_decode * 1000}
    t_full = _timed(full, repeats)
    out["full_detection_ms"], out["full_detection_ratio"] = t_full * 1000, t_full / t_decode
    ways = {"tracking": (reader, frames, False), "tracking_through_lens": (bent, frames, False),
            "tracking_calibrated": (calibrated, frames, False),
            "tracking_calibrated_afresh": (calibrated, frames, True),
            "tracking_calibrated_low": (low, low_frames, False),
            "tracking_low": (BoardReader("classic"), low_frames, False)}  # fmt: skip
    for way, (timed, seen, afresh) in ways.items():
        timed.read(seen[0])
        track = _tracking(timed, itertools.cycle(seen), afresh)
        t_track = _timed(track, repeats)
        stages = track().timings
        out[f"{way}_ms"], out[f"{way}_ratio"] = t_track * 1000, t_track / t_decode
        out[f"{way}_stage_ms"] = {k: v * 1000 for k, v in stages.items()}
    return out


# The low camera the speed bench tracks from too (degrees up from the table).
LOW_ELEVATION = 35.0


def _still_board(board: Board, elevation: float) -> tuple[list[U8], BoardReader]:
    """:data:`NOISY_FRAMES` frames of ``board`` seen from ``elevation`` degrees up, and a reader calibrated on the
    start position the same camera saw."""
    params = RenderParams(size=(1280, 720), elevation=elevation, scene_seed=5)
    renderer = Renderer("classic", params)
    frames = [renderer.frame(board, rng=np.random.default_rng([5, i]))[0] for i in range(NOISY_FRAMES)]
    start, _ = render(Position.start("classic").board(), params, variant="classic")
    return frames, BoardReader("classic", profile=calibrate(start, "classic"))


# Frames of the still board the tracking figures read in turn (see speed).
NOISY_FRAMES = 8


def _tracking(reader: BoardReader, frames: Iterator[U8], afresh: bool) -> Callable[[], Observation]:
    """A read of the next of ``frames``; with ``afresh``, every cell classified afresh."""

    def read() -> Observation:
        if afresh:
            reader.kept.forget()
        return reader.read(next(frames))

    return read


# The lens the speed bench straightens by (see rolit.vision.lens): a webcam's barrel, as the renderer draws one.
LENS_TIMED = -0.15


# The camera moved between calibration and play (degrees of elevation, azimuth, roll): a bump to a stand.
NUDGE = (2.0, 3.0, 1.0)


def bench_vision(scenes: int = 60, repeats: int = 7, first: int = FIRST_HELD_OUT) -> dict[str, Any]:
    """Speed, and accuracy over every condition, with the camera nudged after calibration, and with the demo's
    camera; JSON-ready."""
    return {
        "speed": speed(repeats),
        "accuracy_all_conditions": accuracy(scenes, first=first),
        "accuracy_camera_nudged": accuracy(scenes, first=first, nudge=NUDGE),
        "accuracy_demo_camera": accuracy(max(10, scenes // 2), size=(640, 360), demo_camera=True, first=first),
    }
