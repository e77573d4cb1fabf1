"""The ``rolit`` command: assembles the subcommands of every package."""

from __future__ import annotations

import argparse
import json
import logging
import sys
from collections.abc import Callable, Sequence
from typing import Any

from rolit.calibration.cli import BENCHES as CALIBRATION_BENCHES
from rolit.calibration.cli import add_calibration_commands
from rolit.engine.cli import BENCHES as ENGINE_BENCHES
from rolit.engine.cli import add_engine_commands
from rolit.engine.errors import RolitError
from rolit.vision.cli import BENCHES as VISION_BENCHES
from rolit.vision.cli import add_vision_commands

from .serve import add_serve_command

__all__ = ["main", "build_parser", "WEBUI_BENCHES"]

log = logging.getLogger(__name__)


def _bench_load(args: argparse.Namespace) -> dict[str, Any]:
    from .loadbench import run_load

    return run_load(clients=args.clients, quick=args.quick)


# ``rolit bench`` targets of the table page. ``load`` plays the whole demo game in real
# time (about three minutes, a server and N clients at once), so ``all`` leaves it out.
WEBUI_BENCHES: dict[str, Callable[[argparse.Namespace], dict[str, Any]]] = {"load": _bench_load}
_NOT_IN_ALL = frozenset(WEBUI_BENCHES)


def _benches() -> dict[str, Callable[[argparse.Namespace], dict[str, Any]]]:
    return {**ENGINE_BENCHES, **VISION_BENCHES, **CALIBRATION_BENCHES, **WEBUI_BENCHES}


def _print_figures(figures: dict[str, Any], indent: str = "  ") -> None:
    for key, value in figures.items():
        if isinstance(value, dict) and "median" in value:
            print(
                f"{indent}{key:30s} {value['median']:>14,.1f}  "
                f"(min {value['min']:,.1f}, max {value['max']:,.1f}, {value['runs']} runs)"
            )
        elif isinstance(value, dict):
            print(f"{indent}{key}:")
            _print_figures(value, indent + "  ")
        elif isinstance(value, list) and value and isinstance(value[0], dict):
            # Records (vision --per-scene): one line each.
            print(f"{indent}{key}:")
            for item in value:
                print(f"{indent}  {json.dumps(item)}")
        else:
            print(f"{indent}{key:30s} {value}")


def _bench(args: argparse.Namespace) -> int:
    benches = _benches()
    targets = [t for t in benches if t not in _NOT_IN_ALL] if args.target == "all" else [args.target]
    results = {t: benches[t](args) for t in targets}
    if args.json:
        print(json.dumps(results if args.target == "all" else results[args.target], indent=2))
        return 0
    for target, figures in results.items():
        print(f"{target}:")
        _print_figures(figures)
    return 0


def build_parser() -> argparse.ArgumentParser:
    """The whole ``rolit`` argument parser."""
    parser = argparse.ArgumentParser(
        prog="rolit",
        description="Rolit assistant: rules engine, referee and table page for the Rolit board game.",
    )
    parser.add_argument("-v", "--verbose", action="count", default=0, help="more log output (-vv for debug)")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True
    add_engine_commands(sub)
    add_vision_commands(sub)
    add_calibration_commands(sub)
    add_serve_command(sub)

    p = sub.add_parser("bench", help="measure speed (the figures the README quotes)")
    p.add_argument("target", nargs="?", choices=[*_benches(), "all"], default="all",
                   help="what to measure (all: every target but load)")
    p.add_argument("--repeats", type=int, default=5, help="timed runs per figure; the median is reported")
    p.add_argument("--quick", action="store_true", help="smaller workloads (for a smoke test)")
    p.add_argument("--scenes", type=int, default=60, help="vision: unseen renders to read for the accuracy figures")
    p.add_argument("--first-scene", type=int, default=1000,
                   help="vision: the first of those scenes (1000 and up are held out from development)")
    p.add_argument("--per-scene", action="store_true",
                   help="vision: each scene's figures (the grid's error, each reader's counts) instead of the totals")
    p.add_argument("--nudged", action="store_true", help="vision --per-scene: the camera nudged after calibration")
    p.add_argument("--calibration-only", action="store_true",
                   help="vision --per-scene: calibrate on each start position, read no game frame (quicker)")
    p.add_argument("--clients", type=int, default=20,
                   help="load: browsers watching the demo game, each with the state and video streams")
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.set_defaults(func=_bench)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``rolit``; returns the exit status (0 ok, 1 error, 2 usage, 3 no board found)."""
    parser = build_parser()
    args = parser.parse_args(argv)
    level = logging.WARNING - 10 * min(args.verbose, 2)
    logging.basicConfig(level=level, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    try:
        status: int = args.func(args)
    except RolitError as exc:
        print(f"rolit {args.command}: {exc}", file=sys.stderr)
        return int(getattr(exc, "exit_status", 1))
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return 0
    return status


if __name__ == "__main__":
    sys.exit(main())
