"""The game on disk: saved after every move, resumed when ``rolit serve`` starts again, and
finished games kept in an archive the page lists.

Every file is written atomically: a temporary file beside it, flushed to the
disk, then renamed over the old one, so a crash (even ``kill -9``) never leaves
half a game. File names in the archive are made here, never taken from a request.
"""

from __future__ import annotations

import json
import logging
import os
import re
import tempfile
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rolit.engine import Colour, Game, RolitError, read_record, write_record
from rolit.engine.game import RoundResult

from .settings import GameSettings, SettingsError

if TYPE_CHECKING:
    from .session import TableSession

__all__ = ["GameArchive", "GameStore", "SavedGame", "write_atomic"]

log = logging.getLogger(__name__)


class SavedGame:
    """What a saved game file holds: the settings, the moves, the match's finished rounds."""

    def __init__(self, settings: GameSettings, moves: list[str], rounds: list[RoundResult] | None = None,
                 round_scored: bool = False) -> None:
        self.settings = settings
        self.moves = moves
        self.rounds = rounds or []
        self.round_scored = round_scored


def write_atomic(path: Path, text: str) -> None:
    """Replace ``path`` by ``text`` in one step (a temporary file, fsync, rename)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.stem}-", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _round_to_json(r: RoundResult) -> dict[str, Any]:
    return {"number": r.number, "first": r.first.label, "totals": dict(r.totals), "winners": list(r.winners)}


def _round_from_json(data: Any) -> RoundResult:
    if not isinstance(data, dict):
        raise ValueError("a round is an object")
    totals = data["totals"]
    winners = data["winners"]
    if not isinstance(totals, dict) or not all(isinstance(k, str) and isinstance(v, int) for k, v in totals.items()):
        raise ValueError("a round's totals map players to balls")
    if not isinstance(winners, list) or not all(isinstance(w, str) for w in winners):
        raise ValueError("a round's winners are a list of names")
    return RoundResult(int(data["number"]), Colour.parse(str(data["first"])), totals, tuple(winners))


class GameStore:
    """Saves and loads the current game at ``path``."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = Path(path)

    def save(self, session: TableSession) -> None:
        """Write the session's game (atomically)."""
        game = session.referee.game
        match = session.match
        data: dict[str, Any] = {
            "format": "rolit-session-1",
            "settings": session.settings.to_json(),
            "first": game.order[0].label if game.ply else None,
            "moves": [str(m) for m in game.moves],
            "rounds": [_round_to_json(r) for r in match.rounds] if match is not None else [],
            "round_scored": session.round_scored,
        }
        write_atomic(self.path, json.dumps(data, indent=1))

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
            rounds = [_round_from_json(r) for r in data.get("rounds", [])]
            round_scored = bool(data.get("round_scored", False))
        except (OSError, ValueError, KeyError, TypeError, RecursionError, SettingsError) as exc:
            kept = self.path.with_name(self.path.name + ".damaged")
            log.warning("the saved game %s cannot be resumed (%s): kept as %s, a new game starts", self.path,
                        type(exc).__name__ if isinstance(exc, RecursionError) else exc, kept.name)
            try:
                os.replace(self.path, kept)  # the next save must not destroy what may still be rescued
            except OSError:
                pass
            return None
        return SavedGame(settings, moves, rounds, round_scored)


class GameArchive:
    """Finished games, one record file each (``rolit replay`` reads them)."""

    NAME = re.compile(r"\d{8}-\d{6}-\d{3}\.rolit")

    def __init__(self, folder: str | os.PathLike[str]) -> None:
        self.folder = Path(folder)

    def add(self, game: Game, when: float | None = None) -> str:
        """Keep ``game``; returns its name in the archive."""
        stamp = time.strftime("%Y%m%d-%H%M%S", time.localtime(when if when is not None else time.time()))
        for n in range(1000):
            name = f"{stamp}-{n:03d}.rolit"
            if not (self.folder / name).exists():
                break
        write_atomic(self.folder / name, write_record(game) + "\n")
        log.info("finished game archived as %s", name)
        return name

    def names(self) -> list[str]:
        """Names of the archived games, newest first."""
        if not self.folder.is_dir():
            return []
        return sorted((p.name for p in self.folder.iterdir() if self.NAME.fullmatch(p.name)), reverse=True)

    def read(self, name: str) -> str:
        """The record called ``name``; ``KeyError`` unless it is one of :meth:`names`."""
        if name not in self.names():
            raise KeyError(name)
        return (self.folder / name).read_text(encoding="utf-8")

    def entries(self) -> list[dict[str, Any]]:
        """What the page lists: name, date, edition, players, result, moves (unreadable files are skipped)."""
        out = []
        for name in self.names():
            try:
                game = read_record(self.read(name))
            except (OSError, KeyError, RolitError) as exc:
                log.warning("archived game %s cannot be read: %s", name, exc)
                continue
            outcome = game.outcome()
            names = game.names
            out.append({
                "name": name,
                "date": f"{name[0:4]}-{name[4:6]}-{name[6:8]} {name[9:11]}:{name[11:13]}",
                "variant": game.variant.name,
                "players": [names.get(c) or c.label for c in game.order],
                "result": outcome.result() if outcome else "*",
                "winners": [names.get(c) or c.label for c in outcome.winners] if outcome else [],
                "moves": game.ply,
            })
        return out
