"""``rolit serve``: the table page on a camera, a video, a stream, a phone's camera, by hand, or the demo."""

from __future__ import annotations

import argparse
import ipaddress
import logging
import socket
from pathlib import Path
from typing import Any

from rolit.engine import VARIANTS

from .lan import invite_url, lan_address, qr_text, self_signed_certificate
from .security import new_access_token

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
    p.add_argument("--host", help="address to listen on (default 127.0.0.1: this computer only; 0.0.0.0 with --lan)")
    p.add_argument("--lan", action="store_true",
                   help="let the phones and tablets of the home network in, with an access token (link and QR code)")
    p.add_argument("--https", action="store_true",
                   help="serve HTTPS with a self-signed certificate (phones lend their camera only to HTTPS pages)")
    p.add_argument("--new-token", action="store_true",
                   help="with --lan: make a new access token (the old link stops working)")
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
    host = args.host or ("0.0.0.0" if args.lan else "127.0.0.1")
    app = create_app(config)
    instance = Path(app.instance_path)
    shown = "127.0.0.1" if host in ("127.0.0.1", "localhost", "::1") else host
    if not _loopback(host):
        # Anything beyond this computer needs the access token, --lan or not.
        token = new_access_token(instance, rotate=args.new_token)
        app.config["ACCESS_TOKEN"] = token
        shown = lan_address() if host in ("0.0.0.0", "::") else host
    ssl_context: tuple[str, str] | None = None
    if args.https:
        hosts = ["127.0.0.1", "localhost", socket.gethostname(), shown]
        cert, key = self_signed_certificate(instance / "tls", hosts)
        ssl_context = (str(cert), str(key))
    url = invite_url(shown, args.port, app.config.get("ACCESS_TOKEN"), https=args.https)
    app.config["INVITE_URL"] = url
    print(f"rolit: the table page is at {url}  (source: {config['SOURCE']}; Ctrl-C stops)", flush=True)
    if app.config.get("ACCESS_TOKEN"):
        print("rolit: phones at the table can scan this code (or open the link above):")
        print(qr_text(url), flush=True)
        if args.https:
            print("rolit: the certificate is self-signed: accept the browser's warning once on each device.")
    app.run(host=host, port=args.port, threaded=True, use_reloader=False, debug=False, ssl_context=ssl_context)
    return 0


def _loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False
