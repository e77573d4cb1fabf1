"""The vision package's subcommands of ``rolit`` (render, render-game, ...).

:func:`add_vision_commands` adds them to the ``rolit`` parser; :data:`BENCHES`
maps ``rolit bench`` targets to functions returning JSON-ready figures.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import Any

__all__ = ["add_vision_commands", "BENCHES"]

BENCHES: dict[str, Callable[[argparse.Namespace], dict[str, Any]]] = {}


def add_vision_commands(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the vision subcommands to ``sub``."""
