"""Game clips: a game record played out on the synthetic board, frame by frame.

A hand comes in from the player's side, puts the ball down, leaves, comes back
to roll the trapped balls one to three at a time, and leaves; scripted
mistakes (a missed capture, a missing or extra roll, a ball out of turn, a
takeback) are made and then put right, as at a real table. Every frame has
ground truth: the physical board at that moment and the squares the hand hides.

>>> from rolit.engine import Game
>>> game = Game("quick4"); _ = game.push("d2")
>>> clip = GameClip(game, RenderParams(size=(160, 120)), fps=5)
>>> clip.frames[-1].board == game.position.board()
True
"""

from __future__ import annotations

import json
import logging
import math
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

import cv2
import numpy as np
import numpy.typing as npt

from rolit.engine import Board, Cell, Colour, Game, Position, Square, square_name

from ..errors import RenderError
from .hand import Hand, random_hand
from .params import RenderParams
from .post import auto_gain, shake_matrix
from .renderer import GroundTruth, Renderer

__all__ = ["MISTAKES", "ClipFrame", "GameClip", "Mistake", "parse_mistakes", "write_clip"]

log = logging.getLogger(__name__)

U8 = npt.NDArray[np.uint8]

MISTAKES = ("missed_capture", "missing_roll", "extra_roll", "out_of_turn", "takeback")

# Seconds a forgotten roll stays forgotten before the player notices and rolls it
# (longer than the live referee's grace time, so it is flagged).
FORGOTTEN_ROLL_WAIT = 5.0

# Seconds for the hand to come in, stay, and go.
_IN, _STAY, _OUT = 0.5, 0.35, 0.45


@dataclass(frozen=True)
class Mistake:
    """A scripted mistake: its kind and the 1-based move number it is made at (``None``: the first that fits)."""

    kind: str
    move: int | None = None


def parse_mistakes(text: str) -> list[Mistake]:
    """``"missed_capture,missing_roll@12"`` -> mistakes (``@N``: at move N).

    >>> parse_mistakes("takeback@3, extra_roll")
    [Mistake(kind='takeback', move=3), Mistake(kind='extra_roll', move=None)]
    """
    out = []
    for part in text.split(","):
        part = part.strip()
        if not part:
            continue
        kind, _, at = part.partition("@")
        kind = kind.strip().replace("-", "_")
        if kind not in MISTAKES:
            raise RenderError(f"unknown mistake {kind!r}: use {', '.join(MISTAKES)}")
        try:
            move = int(at) if at else None
        except ValueError:
            raise RenderError(f"{part!r}: write the move number after @, like missing_roll@12") from None
        out.append(Mistake(kind, move))
    return out


@dataclass(frozen=True)
class ClipFrame:
    """One frame's script: the physical board, the hand, what is going on, and the camera's wobble."""

    index: int
    time: float
    board: Board
    hand: Hand | None
    event: str
    light_scale: float = 1.0
    exposure: float = 1.0
    shake: tuple[float, float, float] = (0.0, 0.0, 0.0)


# Actions: what the hand does to the board.
@dataclass(frozen=True)
class _Action:
    colour: Colour  # whose hand
    changes: dict[Square, Cell]
    event: str
    holding: Colour | None = None


class GameClip:
    """The frames of a game played out, with scripted mistakes.

    ``frames`` is the script (cheap); iterating renders the images lazily:
    ``for image, truth, frame in clip: ...``.
    """

    def __init__(
        self,
        game: Game,
        params: RenderParams,
        *,
        fps: float = 10.0,
        mistakes: Sequence[Mistake] = (),
        seed: int = 0,
        settle: float = 1.2,
        max_moves: int | None = None,
    ) -> None:
        if not 1 <= fps <= 120:
            raise RenderError(f"frame rate {fps} is outside 1 to 120 frames per second")
        self.game = game
        self.params = params
        self.fps = fps
        self.settle = settle
        self.rng = np.random.default_rng(seed)
        self.seed = seed
        variant = game.variant
        # Seats round the table, in turn order from the camera's side.
        base = float(self.rng.uniform(-20, 20))
        self.seats = {
            c: (base + 90.0 * variant.colours.index(c) + float(self.rng.uniform(-15, 15))) % 360
            for c in variant.colours
        }
        self.looks = {c: random_hand(self.rng, (0.0, 0.0), self.seats[c]) for c in variant.colours}
        self.renderer = Renderer(variant, params)
        self.mistakes_made: list[tuple[int, str]] = []
        actions = self._script(game, list(mistakes), max_moves)
        self.frames: list[ClipFrame] = self._timeline(game.start.board(), actions)

    # Script -----------------------------------------------------------------

    def _script(self, game: Game, mistakes: list[Mistake], max_moves: int | None) -> list[_Action | float]:
        """Actions and pauses (seconds) that play the game with the mistakes."""
        out: list[_Action | float] = [self.settle]
        pending = list(mistakes)
        history = game.history[:max_moves] if max_moves is not None else game.history
        last_at = 0
        for played in history:
            pos, move, flips = played.before, played.move, list(played.flipped)
            number = played.number
            for m in list(pending):
                ok = m.move == number if m.move is not None else number >= max(3, last_at + 2)
                if ok and self._mistake(out, m.kind, pos, move.colour, move.square, flips, number):
                    pending.remove(m)
                    self.mistakes_made.append((number, m.kind))
                    last_at = number
                    break
            else:
                self._move(out, pos, move.colour, move.square, flips, number)
        for m in pending:
            log.warning("no move in the record fits the mistake %s", m.kind)
            raise RenderError(
                f"no move in the record fits the mistake {m.kind}" + (f" at move {m.move}" if m.move else "")
            )
        return out

    def _move(
        self,
        out: list[_Action | float],
        pos: Position,
        colour: Colour,
        sq: Square,
        flips: list[Square],
        number: int,
        *,
        skip: Sequence[Square] = (),
        pause: bool = True,
    ) -> None:
        who = colour.title
        out.append(_Action(colour, {sq: colour}, f"{number}. {who} puts a ball on {square_name(sq)}", colour))
        todo = [s for s in flips if s not in skip]
        out.append(0.3)
        while todo:
            k = int(self.rng.integers(1, 4))
            group, todo = _nearest_group(todo, k)
            names = " ".join(square_name(s) for s in group)
            out.append(_Action(colour, dict.fromkeys(group, colour), f"{number}. {who} rolls {names}"))
        if pause:
            out.append(self.settle)

    def _mistake(
        self,
        out: list[_Action | float],
        kind: str,
        pos: Position,
        colour: Colour,
        sq: Square,
        flips: list[Square],
        number: int,
    ) -> bool:
        who = colour.title
        board = pos.board()
        if kind == "missed_capture":
            if not pos.capturing_moves():
                return False
            legal = {m.square for m in pos.legal_moves()}
            wrong = [s for s in _touching_empty(board) if s not in legal]
            if not wrong:
                return False
            w = wrong[int(self.rng.integers(len(wrong)))]
            out += [
                _Action(
                    colour,
                    {w: colour},
                    f"{number}. mistake: {who} puts a ball on {square_name(w)}, which captures nothing",
                    colour,
                ),
                self.settle,
                _Action(colour, {w: None}, f"{number}. {who} takes the ball on {square_name(w)} back"),
                0.5,
            ]
            self._move(out, pos, colour, sq, flips, number)
            return True
        if kind == "missing_roll":
            if not flips:
                return False
            missing = flips[-1:] if len(flips) > 1 else flips
            self._move(out, pos, colour, sq, flips, number, skip=missing)
            names = " ".join(square_name(s) for s in missing)
            # Nobody notices at once: a live referee waits a few seconds for the
            # rolls to be finished before it calls a roll forgotten.
            out.append(FORGOTTEN_ROLL_WAIT)
            out += [
                _Action(colour, dict.fromkeys(missing, colour), f"{number}. {who} rolls the forgotten {names}"),
                self.settle,
            ]
            return True
        if kind == "extra_roll":
            cands = [
                s
                for s in _neighbours(sq, board.size)
                if isinstance(board[s], Colour) and board[s] != colour and s not in flips
            ]
            if not cands:
                return False
            extra = cands[int(self.rng.integers(len(cands)))]
            before_cell = board[extra]
            before = before_cell if isinstance(before_cell, Colour) else None
            self._move(out, pos, colour, sq, flips, number, pause=False)
            out += [
                _Action(colour, {extra: colour}, f"{number}. mistake: {who} also rolls {square_name(extra)}"),
                self.settle,
                _Action(colour, {extra: before}, f"{number}. {who} rolls {square_name(extra)} back"),
                self.settle,
            ]
            return True
        if kind == "out_of_turn":
            others = [c for c in pos.order if c != colour]
            if not others:
                return False
            wrong_colour = others[int(self.rng.integers(len(others)))]
            wname = wrong_colour.title
            out += [
                _Action(
                    wrong_colour,
                    {sq: wrong_colour},
                    f"{number}. mistake: {wname} puts a ball on {square_name(sq)} out of turn",
                    wrong_colour,
                ),
                self.settle,
                _Action(wrong_colour, {sq: None}, f"{number}. {wname} takes the ball on {square_name(sq)} back"),
                0.5,
            ]
            self._move(out, pos, colour, sq, flips, number)
            return True
        if kind == "takeback":
            self._move(out, pos, colour, sq, flips, number)
            undo: dict[Square, Cell] = {}
            for s in flips:
                cell = board[s]
                undo[s] = cell if isinstance(cell, Colour) else None
            undo[sq] = None
            out += [_Action(colour, undo, f"{number}. {who} takes the move back"), self.settle]
            self._move(out, pos, colour, sq, flips, number)
            return True
        return False

    # Timeline ------------------------------------------------------------------

    def _timeline(self, start: Board, actions: list[_Action | float]) -> list[ClipFrame]:
        frames: list[ClipFrame] = []
        board = start
        dt = 1.0 / self.fps
        geo = self.renderer.geometry
        event = "start"

        def add(hand: Hand | None, label: str) -> None:
            frames.append(ClipFrame(len(frames), len(frames) * dt, board, hand, label))

        for action in actions:
            if isinstance(action, float):
                for _ in range(round(action * self.fps)):
                    add(None, event)
                continue
            look = self.looks[action.colour]
            targets = [geo.cell_centre(s) for s in action.changes]
            tx = float(np.mean([t[0] for t in targets]))
            ty = float(np.mean([t[1] for t in targets]))
            a = math.radians(look.approach)
            back = (math.sin(a), -math.cos(a))
            far = geo.half_board + 380.0
            low = geo.ball_height + geo.ball_radius + 6.0 + float(self.rng.uniform(0, 8))
            n_in, n_stay, n_out = (max(1, round(s * self.fps)) for s in (_IN, _STAY, _OUT))
            event = action.event
            for i in range(n_in):
                f = _ease((i + 1) / n_in)
                d = far * (1 - f)
                hand = replace(
                    look, target=(tx + back[0] * d, ty + back[1] * d), height=low + 90 * (1 - f), holding=action.holding
                )
                add(hand, event)
            for i in range(n_stay):
                if i == n_stay // 2:
                    board = board.replace(dict(action.changes))
                hand = replace(
                    look,
                    target=(tx, ty),
                    height=low - 3 * math.sin(math.pi * (i + 1) / (n_stay + 1)),
                    holding=action.holding if i < n_stay // 2 else None,
                )
                add(hand, event)
            for i in range(n_out):
                f = _ease((i + 1) / n_out)
                d = far * f
                add(replace(look, target=(tx + back[0] * d, ty + back[1] * d), height=low + 90 * f), event)
        # Camera wobble, lamp flicker and exposure drift: slow random walks.
        n = len(frames)
        walk = np.cumsum(self.rng.normal(0, 1, (n, 4)), axis=0)
        walk -= np.linspace(0, 1, n)[:, None] * walk[-1:]  # come back to rest at the end
        scale = self.params.size[1] / 720.0
        t = np.arange(n) * dt
        flicker = 1.0 + 0.015 * np.sin(2 * np.pi * 0.7 * t) + self.rng.normal(0, 0.006, n)
        out = []
        for i, fr in enumerate(frames):
            shake = (
                float(np.clip(walk[i, 0] * 0.08, -2, 2) * scale),
                float(np.clip(walk[i, 1] * 0.08, -2, 2) * scale),
                float(np.clip(walk[i, 2] * 0.01, -0.3, 0.3)),
            )
            out.append(
                replace(
                    fr,
                    light_scale=float(flicker[i]),
                    exposure=float(np.exp(np.clip(walk[i, 3] * 0.004, -0.15, 0.15))),
                    shake=shake,
                )
            )
        return out

    # Rendering ---------------------------------------------------------------------

    def __len__(self) -> int:
        return len(self.frames)

    @property
    def duration(self) -> float:
        """Length in seconds."""
        return len(self.frames) / self.fps

    def render(self, frame: ClipFrame) -> tuple[U8, GroundTruth]:
        """The image and ground truth of one scripted frame."""
        r = self.renderer
        if not hasattr(self, "_gain"):
            self._gain = auto_gain(r.linear(self.frames[0].board), self.params)
        shake = shake_matrix(*frame.shake[:2], frame.shake[2], self.params.size) if frame.shake != (0, 0, 0) else None
        return r.frame(
            frame.board,
            hand=frame.hand,
            rng=np.random.default_rng([self.seed, frame.index]),
            light_scale=frame.light_scale,
            exposure=self._gain * frame.exposure,
            shake=shake,
        )

    def __iter__(self) -> Iterator[tuple[U8, GroundTruth, ClipFrame]]:
        for frame in self.frames:
            image, truth = self.render(frame)
            yield image, truth, frame


def _ease(x: float) -> float:
    return x * x * (3 - 2 * x)


def _neighbours(sq: Square, size: int) -> list[Square]:
    r, c = divmod(sq, 8)
    return [
        (r + dr) * 8 + c + dc
        for dr in (-1, 0, 1)
        for dc in (-1, 0, 1)
        if (dr or dc) and 0 <= r + dr < size and 0 <= c + dc < size
    ]


def _touching_empty(board: Board) -> list[Square]:
    return [
        sq
        for sq, cell in board.items()
        if cell is None and any(board[n] is not None for n in _neighbours(sq, board.size))
    ]


def _nearest_group(squares: list[Square], k: int) -> tuple[list[Square], list[Square]]:
    """``k`` squares close together (the first and its nearest), and the rest."""
    first = squares[0]
    rest = sorted(squares[1:], key=lambda s: max(abs(s // 8 - first // 8), abs(s % 8 - first % 8)))
    group = [first, *rest[: k - 1]]
    return group, [s for s in squares if s not in group]


def frame_record(truth: GroundTruth, frame: ClipFrame) -> dict[str, object]:
    """The JSON line written beside a clip for one frame."""
    return {
        "index": frame.index,
        "time": round(frame.time, 3),
        "event": frame.event,
        "rows": truth.board.text().splitlines(),
        "hidden": sorted(square_name(s) for s in truth.hidden),
        "corners": [[round(x, 2), round(y, 2)] for x, y in truth.corners],
    }


def write_clip(clip: GameClip, path: str | Path) -> Path:
    """Write ``clip`` as a video (``.mp4``: mp4v, ``.avi``: MJPG) or a folder of PNG frames.

    Ground truth goes beside it, one JSON object per frame: ``CLIP.truth.jsonl``
    (or ``truth.jsonl`` in the folder). Returns the truth file's path.
    """
    path = Path(path)
    suffix = path.suffix.lower()
    w, h = clip.params.size
    writer = None
    if suffix in (".mp4", ".avi"):
        if not path.parent.is_dir():
            raise RenderError(f"cannot write {path}: the folder {path.parent} does not exist")
        fourcc = cv2.VideoWriter.fourcc(*("mp4v" if suffix == ".mp4" else "MJPG"))
        writer = cv2.VideoWriter(str(path), fourcc, float(clip.fps), (w, h))
        if not writer.isOpened():
            raise RenderError(f"cannot write the video {path}")
        truth_path = path.with_name(path.name + ".truth.jsonl")
    elif suffix:
        raise RenderError(f"{path}: a clip is a .mp4 or .avi video, or a folder (a name without an extension)")
    else:
        try:
            path.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise RenderError(f"cannot make the folder {path}: {exc.strerror}") from None
        truth_path = path / "truth.jsonl"
    try:
        with open(truth_path, "w", encoding="utf-8") as truth_file:
            for image, truth, frame in clip:
                if writer is not None:
                    writer.write(image)
                elif not cv2.imwrite(str(path / f"frame_{frame.index:05d}.png"), image):
                    raise RenderError(f"cannot write frames into {path}")
                truth_file.write(json.dumps(frame_record(truth, frame)) + "\n")
    except OSError as exc:
        raise RenderError(f"cannot write {truth_path}: {exc.strerror}") from None
    finally:
        if writer is not None:
            writer.release()
    return truth_path
