"""The running table: the session, its vision worker and frame source, wired from the app's config."""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from rolit.engine import Colour
from rolit.vision.sources import FrameSource, PushSource, open_source

from .reading import ReaderFactory, real_reader_factory
from .session import TableSession
from .settings import GameSettings
from .storage import GameArchive, GameStore
from .worker import VisionWorker

__all__ = ["Table", "first_settings"]

log = logging.getLogger(__name__)

SourceFactory = Callable[[str], FrameSource]


def first_settings(config: Mapping[str, Any]) -> GameSettings:
    """The first game's settings: the demo's seating on the demo, else the configured edition."""
    source = str(config.get("SOURCE") or "manual")
    variant = config.get("VARIANT")
    players = config.get("PLAYERS")
    if source == "demo" and variant is None:
        from rolit.vision.synthetic.demo import demo_game

        game = demo_game()
        return GameSettings(variant=game.variant.name, order=game.order, first=None)
    data: dict[str, Any] = {"variant": variant or "classic"}
    if players:
        data["players"] = int(players)
    return GameSettings.from_json(data)


class Table:
    """One session, and (unless in manual mode) the worker that watches the camera for it."""

    def __init__(self, config: Mapping[str, Any], instance_path: str) -> None:
        self.config = config
        source_spec = str(config.get("SOURCE") or "manual")
        self.source_spec = source_spec
        manual = source_spec == "manual"
        folder = Path(instance_path)
        state_file = config.get("STATE_FILE") or folder / ("demo-game.json" if source_spec == "demo" else "game.json")
        self.profile_path = Path(config.get("PROFILE") or folder / "profile.json")
        self.store = GameStore(state_file)
        self.archive = GameArchive(config.get("ARCHIVE") or folder / "archive")
        self.session = TableSession(
            first_settings(config),
            manual=manual,
            grace=config.get("GRACE", 4.0),
            store=self.store,
            archive=self.archive,
            seed=config.get("SEED"),
        )
        resume = config.get("RESUME")
        if resume is None:
            resume = source_spec != "demo"
        if resume:
            saved = self.store.load()
            if saved is not None:
                try:
                    self.session.restore(saved)
                    log.info("resumed the saved game at move %d", len(saved.moves))
                except Exception as exc:
                    log.warning("the saved game could not be resumed: %s", exc)
        factory = config.get("READER_FACTORY")
        self.reader_factory: ReaderFactory = factory or real_reader_factory(self.profile_path)
        self.push: PushSource | None = None
        self.worker: VisionWorker | None = None
        if not manual and config.get("START_WORKER", True):
            # Build the reader (and train its colour model) before the camera
            # starts, so no move is missed while the model is being prepared.
            self.reader_factory(self.session.settings.variant)
            self.worker = VisionWorker(
                self.session,
                self._open(source_spec),
                self.reader_factory,
                hold=float(config.get("STABILISER_HOLD", 0.4)),
                min_frames=int(config.get("STABILISER_FRAMES", 3)),
                jpeg_quality=int(config.get("JPEG_QUALITY", 70)),
            ).start()

    def _open(self, spec: str) -> FrameSource:
        factory: SourceFactory | None = self.config.get("SOURCE_FACTORY")
        if factory is not None:
            return factory(spec)
        if spec == "browser":
            self.push = PushSource()
            self.push.start()
            return self.push
        if spec == "demo":
            size = tuple(self.config.get("DEMO_SIZE", (640, 360)))
            return open_source("demo", fps=float(self.config.get("DEMO_FPS", 10.0)), size=(size[0], size[1]))
        return open_source(spec)

    def browser_camera(self) -> PushSource:
        """The source for frames sent by a browser; the worker switches to it on first use."""
        if self.push is None:
            self.push = PushSource("browser")
            self.push.start()
        if self.worker is not None and self.worker.source is not self.push:
            self.worker.switch_source(self.push)
        return self.push

    def computer_colours(self) -> list[Colour]:
        """Colours the computer plays in this game."""
        return list(self.session.settings.computer_map())

    def close(self) -> None:
        """Stop the worker and wake every stream."""
        if self.worker is not None:
            self.worker.stop()
        self.session.changes.close()
