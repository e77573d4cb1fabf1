"""The game on disk: saved after every move, resumed when ``rolit serve`` starts again.

The file is JSON (the settings, the moves, the match rounds) and is written
atomically: a temporary file beside it, then a rename, so a crash never leaves
half a game.
"""

from __future__ import annotations

import json
import logging
import os
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .settings import GameSettings, SettingsError

if TYPE_CHECKING:
    from .session import TableSession

__all__ = ["GameStore", "SavedGame"]

log = logging.getLogger(__name__)

SavedGame = tuple[GameSettings, list[str]]


class GameStore:
    """Saves and loads the current game at ``path``."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = Path(path)

    def save(self, session: TableSession) -> None:
        """Write the session's game (atomically)."""
        game = session.referee.game
        data: dict[str, Any] = {
            "format": "rolit-session-1",
            "settings": session.settings.to_json(),
            "first": game.order[0].label if game.ply else None,
            "moves": [str(m) for m in game.moves],
        }
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=".game-", suffix=".tmp", dir=self.path.parent)
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as fh:
                json.dump(data, fh, indent=1)
                fh.flush()
                os.fsync(fh.fileno())
            os.replace(tmp, self.path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise

    def load(self) -> SavedGame | None:
        """The saved game, or ``None`` when there is none or it cannot be read (logged)."""
        if not self.path.exists():
            return None
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
            settings = GameSettings.from_json(data["settings"])
            moves = data["moves"]
            if not isinstance(moves, list) or not all(isinstance(m, str) for m in moves):
                raise ValueError("moves must be a list of strings")
        except (OSError, ValueError, KeyError, TypeError, SettingsError) as exc:
            log.warning("the saved game %s cannot be resumed: %s", self.path, exc)
            return None
        return settings, moves
