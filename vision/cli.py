"""The vision package's subcommands of ``rolit`` (render, render-game, ...).

:func:`add_vision_commands` adds them to the ``rolit`` parser; :data:`BENCHES`
maps ``rolit bench`` targets to functions returning JSON-ready figures.
"""

from __future__ import annotations

import argparse
import json
import logging
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from rolit.engine import Board, load_record
from rolit.engine.cli import read_text
from rolit.engine.variants import VARIANTS

from .errors import RenderError

__all__ = ["add_vision_commands", "BENCHES", "parse_size"]

log = logging.getLogger(__name__)

_IMAGE_TYPES = (".png", ".jpg", ".jpeg", ".bmp", ".webp", ".tif", ".tiff")


def parse_size(text: str) -> tuple[int, int]:
    """``"1280x720"`` -> ``(1280, 720)``."""
    m = re.fullmatch(r"\s*(\d+)\s*[xX]\s*(\d+)\s*", text)
    if not m:
        raise RenderError(f"{text!r} is not a size; write width x height, like 1280x720")
    return int(m.group(1)), int(m.group(2))


def _render(args: argparse.Namespace) -> int:
    import cv2

    from .synthetic import RenderParams, random_hand, render
    from .synthetic.geometry import BoardGeometry
    from .synthetic.renderer import variant_for_board

    board = Board.from_text(read_text(args.board))
    variant = variant_for_board(board, args.variant)
    out = Path(args.output)
    if out.suffix.lower() not in _IMAGE_TYPES:
        raise RenderError(f"{out}: the image must end in {', '.join(_IMAGE_TYPES)}")
    if not out.parent.is_dir():
        raise RenderError(f"cannot write {out}: the folder {out.parent} does not exist")
    rng = np.random.default_rng(args.seed)
    overrides: dict[str, Any] = {}
    if args.elevation is not None:
        if not 30.0 <= args.elevation <= 90.0:
            raise RenderError(f"elevation {args.elevation:g} is outside 30 to 90 degrees")
        overrides["elevation"] = args.elevation
    size = parse_size(args.size) if args.size else None
    params = RenderParams.random(rng, size=size, **overrides)
    hand = None
    if args.hand:
        geo = BoardGeometry(variant.size)
        sq = int(rng.choice(list(board.squares)))
        hand = random_hand(rng, geo.cell_centre(sq), float(rng.uniform(0, 360)))
    image, truth = render(board, params, variant=variant, hand=hand)
    try:
        ok = cv2.imwrite(str(out), image)
    except cv2.error:
        ok = False
    if not ok:
        raise RenderError(f"cannot write the image {out}")
    if args.json:
        print(json.dumps(truth.to_json()))
    return 0


def _render_game(args: argparse.Namespace) -> int:
    from .synthetic import RenderParams
    from .synthetic.clip import GameClip, parse_mistakes, write_clip

    game = load_record(read_text(args.record))
    rng = np.random.default_rng(args.seed)
    params = RenderParams.random(rng, size=parse_size(args.size), motion_blur=0.0)
    if args.elevation is not None:
        if not 30.0 <= args.elevation <= 90.0:
            raise RenderError(f"elevation {args.elevation:g} is outside 30 to 90 degrees")
        params = RenderParams(**{**params.__dict__, "elevation": args.elevation})
    mistakes = parse_mistakes(args.mistakes or "")
    clip = GameClip(game, params, fps=args.fps, mistakes=mistakes, seed=args.seed, max_moves=args.moves)
    truth_path = write_clip(clip, args.output)
    summary = {
        "output": args.output,
        "truth": str(truth_path),
        "frames": len(clip),
        "fps": args.fps,
        "seconds": round(clip.duration, 2),
        "mistakes": [{"move": n, "kind": k} for n, k in clip.mistakes_made],
    }
    if args.json:
        print(json.dumps(summary))
    else:
        print(
            f"{len(clip)} frames ({clip.duration:.1f} s at {args.fps:g} fps) written to {args.output}; "
            f"ground truth in {truth_path}"
        )
    return 0


def _bench_render(args: argparse.Namespace) -> dict[str, Any]:
    from .synthetic.bench import bench_render

    return bench_render(repeats=args.repeats, quick=args.quick)


# ``rolit bench`` targets: name -> function of the parsed arguments returning JSON-ready figures.
BENCHES: dict[str, Callable[[argparse.Namespace], dict[str, Any]]] = {"render": _bench_render}


def add_vision_commands(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the vision subcommands to ``sub``."""
    p = sub.add_parser("render", help="make a synthetic photo of a position (with ground truth)")
    p.add_argument("board", help="board text file (one board), or - for standard input")
    p.add_argument("-o", "--output", required=True, help="image to write (.png, .jpg, ...)")
    p.add_argument("--variant", choices=list(VARIANTS), help="edition (default: from the board's size and colours)")
    p.add_argument("--seed", type=int, default=0, help="random seed of the conditions (default: 0)")
    p.add_argument("--elevation", type=float, help="camera angle above the table, 30-90 degrees (90: straight down)")
    p.add_argument("--size", help="image size WxH, e.g. 1280x720 (default: drawn from the seed)")
    p.add_argument("--hand", action="store_true", help="a hand reaches over the board")
    p.add_argument("--json", action="store_true", help="print the ground truth as JSON")
    p.set_defaults(func=_render)

    p = sub.add_parser("render-game", help="make a synthetic video of a game record, with scripted mistakes")
    p.add_argument("record", help="game record file (text or JSON), or - for standard input")
    p.add_argument(
        "-o", "--output", required=True, help="clip to write: .mp4 or .avi video, or a folder for PNG frames"
    )
    p.add_argument(
        "--mistakes",
        help="comma-separated: missed_capture, missing_roll, extra_roll, out_of_turn, takeback (add @N for move N)",
    )
    p.add_argument("--fps", type=float, default=10.0, help="frames per second (default: 10)")
    p.add_argument("--seed", type=int, default=0, help="random seed of the conditions (default: 0)")
    p.add_argument("--size", default="640x360", help="frame size WxH (default: 640x360)")
    p.add_argument("--elevation", type=float, help="camera angle above the table, 30-90 degrees")
    p.add_argument("--moves", type=int, help="play only the first N moves of the record")
    p.add_argument("--json", action="store_true", help="print a JSON summary")
    p.set_defaults(func=_render_game)
