"""``rolit serve``: the table page on a camera, a video, a stream, a phone's camera, by hand, or the demo."""

from __future__ import annotations

import argparse
import logging
from typing import Any

from rolit.engine import VARIANTS

__all__ = ["add_serve_command", "serve"]

log = logging.getLogger(__name__)


def add_serve_command(sub: Any) -> None:
    """Add ``serve`` to the ``rolit`` subcommands."""
    p = sub.add_parser("serve", help="the live table page (with no source: the built-in demo game)")
    source = p.add_mutually_exclusive_group()
    source.add_argument("--camera", metavar="N", type=int, help="a camera by its index (0 is the first)")
    source.add_argument("--video", metavar="FILE", help="a video file (or an image, or a folder of images)")
    source.add_argument("--url", metavar="URL", help="a network stream (rtsp://, http://.../video)")
    source.add_argument("--demo", action="store_true", help="the built-in demo game (the default)")
    source.add_argument("--browser-camera", action="store_true",
                        help="wait for a phone's camera: open /camera on the phone")
    source.add_argument("--manual", action="store_true", help="no camera: record moves by clicking the page")
    p.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1: this computer only)")
    p.add_argument("--port", type=int, default=5000, help="port (default 5000)")
    p.add_argument("--variant", choices=sorted(VARIANTS), help="edition of the first game")
    p.add_argument("--players", type=int, choices=(2, 3, 4), help="players in the first game")
    p.add_argument("--instance", metavar="DIR", help="folder for the saved game and the calibration profile")
    p.add_argument("--calibration", metavar="PROFILE", help="calibration profile to read the board with")
    p.add_argument("--fps", type=float, help="frames per second of the demo (default 10)")
    p.add_argument("--no-resume", action="store_true", help="start a new game instead of resuming the saved one")
    p.set_defaults(func=serve)


def _source(args: argparse.Namespace) -> str:
    if args.camera is not None:
        return str(args.camera)
    if args.video:
        return str(args.video)
    if args.url:
        return str(args.url)
    if args.browser_camera:
        return "browser"
    if args.manual:
        return "manual"
    return "demo"


def serve(args: argparse.Namespace) -> int:
    """Run the page until interrupted."""
    from .app import create_app

    config: dict[str, Any] = {"SOURCE": _source(args), "READ_CONFIG_FILE": True}
    if args.variant:
        config["VARIANT"] = args.variant
    if args.players:
        config["PLAYERS"] = args.players
    if args.fps:
        config["DEMO_FPS"] = args.fps
    if args.calibration:
        config["PROFILE"] = args.calibration
    if args.no_resume:
        config["RESUME"] = False
    if args.instance:
        config["INSTANCE_PATH"] = args.instance
    app = create_app(config)
    print(f"rolit: the table page is at http://{args.host}:{args.port}/  (source: {config['SOURCE']}; Ctrl-C stops)")
    app.run(host=args.host, port=args.port, threaded=True, use_reloader=False, debug=False)
    return 0
