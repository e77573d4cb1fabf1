"""The live session: one game at the table, refereed, and what every browser is shown.

:class:`TableSession` owns the referee, the match, the hints, corrections and the
camera's status. The vision worker feeds it settled boards
(:meth:`TableSession.observe_settled`); the API changes it (new game, undo,
corrections, manual moves, hints). Every change bumps a version in a
:class:`~rolit.webui.broadcast.Broadcaster`, and :meth:`TableSession.snapshot`
is the JSON state the page draws. All methods are thread-safe.
"""

from __future__ import annotations

import logging
import random
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from rolit.engine import (
    UNKNOWN,
    Board,
    Cell,
    Colour,
    Event,
    Match,
    Position,
    Referee,
    RolitError,
    Square,
    get_variant,
    load_record,
    parse_square,
    record_to_json,
    square_name,
    write_record,
)
from rolit.engine.messages import Colour_word, _, colour_word, join_words, sentence

from .broadcast import Broadcaster
from .hints import Hint, choose_move, hint_source, rank_moves
from .settings import GameSettings, SettingsError
from .storage import GameArchive, GameStore, SavedGame

__all__ = ["TableSession", "SessionError", "FLAG_TYPES", "VISION_STATUSES"]

log = logging.getLogger(__name__)

FLAG_TYPES = ("missed_capture", "wrong_flips", "out_of_turn", "not_adjacent", "several_balls", "ball_removed",
              "board_moved")
VISION_STATUSES = ("starting", "ok", "no_board", "occluded", "camera_lost", "ended", "manual", "waiting")
_LOG_LENGTH = 32  # events in every snapshot: enough for a burst (a board swept clean) to reach every page


class SessionError(ValueError):
    """A request the session refuses; the message is one sentence for the page (a 4xx answer)."""

    def __init__(self, message: str, status: int = 400) -> None:
        super().__init__(message)
        self.status = status


def vision_message(status: str) -> str:
    """The sentence the page shows for a camera status (empty when all is well)."""
    messages = {
        "starting": _("Starting the camera…"),
        "no_board": _("No board found: show the camera the whole board."),
        "occluded": _("A hand is over the board: waiting until it is clear."),
        "camera_lost": _("Camera lost: trying to reconnect…"),
        "ended": _("The video has ended."),
        "waiting": _("Waiting for the camera's first picture…"),
    }
    return messages.get(status, "")


@dataclass
class VisionState:
    """What the camera sees now."""

    status: str = "starting"
    board: Board | None = None
    corners: list[list[float]] | None = None
    quality: float = 0.0
    fps: float = 0.0


class TableSession:
    """One table's game, shared by every browser."""

    def __init__(
        self,
        settings: GameSettings,
        *,
        manual: bool = False,
        grace: float | None = 3.0,
        store: GameStore | None = None,
        archive: GameArchive | None = None,
        clock: Callable[[], float] = time.time,
        seed: int | None = None,
        background: bool = True,
    ) -> None:
        self.lock = threading.RLock()
        self.background = background
        self.changes = Broadcaster()
        self.manual = manual
        self.grace = None if manual else grace
        self.store = store
        self.archive = archive
        self.clock = clock
        self.rng = random.Random(seed)
        self.vision = VisionState(status="manual" if manual else "starting")
        self.generation = 0  # bumped by a new game: the worker resets its stabiliser
        self.overrides: dict[Square, tuple[Cell, Cell]] = {}
        self.settled_at: float | None = None
        self.match: Match | None = None
        # Serial id of every log entry, never reset (not even by a new game), so a client
        # can tell whether it missed one (the load benchmark counts them).
        self.event_serial = 0
        self._start(settings)

    # Set-up -----------------------------------------------------------------------

    def _start(self, settings: GameSettings, first: Colour | None = None) -> None:
        self.settings = settings
        first = first if first is not None else settings.first
        if first is None and self.manual:
            first = settings.order[0]  # clicks place the mover's ball: someone must be to move
        self.referee = Referee(
            settings.variant,
            order=settings.order,
            first=first,
            names=settings.names_map(),
            grace=self.grace,
        )
        self.flag: dict[str, Any] | None = None
        self.flag_serial = 0
        self.log: list[dict[str, Any]] = []
        self.hint: dict[str, Any] | None = None
        self.hints_used: dict[Colour, int] = {}
        self.overrides = {}
        self.table_board: Board = self.referee.expected
        self.turn_started = self.clock()
        self._computer_cache: tuple[int, dict[str, Any]] | None = None
        self._round_scored = False
        self._archived: list[str] | None = None
        # The board or camera moved: the next settled board must show the position
        # from before the bump (or the game's) before any move is judged again.
        self.recheck: Board | None = None
        self.generation += 1

    def new_game(self, settings: GameSettings) -> None:
        """Start a new game (a new match unless the seats are unchanged and a match is on)."""
        with self.lock:
            same_seats = (
                self.match is not None
                and settings.match
                and settings.variant == self.settings.variant
                and settings.order == self.settings.order
                and settings.names == self.settings.names
            )
            if not settings.match:
                self.match = None
            elif not same_seats:
                self.match = Match(settings.variant, order=settings.order, names=settings.names_map())
            self._start(settings)
            self._after_change(save=True)
            log.info("new game: %s", settings.to_json())

    def rematch(self) -> None:
        """The next round of the match: the starting seat moves on by one."""
        with self.lock:
            settings = self.settings
            if self.match is None:
                self.match = Match(settings.variant, order=settings.order, names=settings.names_map())
            if self.referee.game.is_over() and not self._round_scored:
                self._score_round()
            first = self.match.first_for_round(len(self.match.rounds) + 1)
            self._start(settings.with_first(first))
            self._after_change(save=True)

    @property
    def round_scored(self) -> bool:
        """Whether the finished game is already counted in the match."""
        return self._round_scored

    def restore(self, saved: SavedGame) -> None:
        """Resume a saved game: its settings, the moves played and the match so far."""
        with self.lock:
            settings = saved.settings
            self._replay(settings, saved.moves)
            if settings.match:
                self.match = Match(settings.variant, order=settings.order, names=settings.names_map())
                self.match.rounds.extend(saved.rounds)
                self._round_scored = saved.round_scored
            if self.referee.game.is_over():
                self._archived = [str(m) for m in self.referee.game.moves]  # archived when it ended
            self._after_change(save=False)

    # From the camera -------------------------------------------------------------

    def apply_overrides(self, board: Board) -> Board:
        """The reader's board with the page's corrections applied.

        A correction holds while the reader keeps reading what it read when the
        square was corrected; once it reads something else there, the table has
        changed and the correction is dropped.
        """
        with self.lock:
            if not self.overrides:
                return board
            changes: dict[Square, Cell] = {}
            for sq, (seen, meant) in list(self.overrides.items()):
                if board[sq] is UNKNOWN:
                    continue
                if board[sq] == seen:
                    changes[sq] = meant
                else:
                    del self.overrides[sq]
            return board.replace(changes) if changes else board

    def likely_boards(self) -> list[Board]:
        """What the table probably shows: the game's position, the board last settled, and the
        position after a placement whose rolls are being made."""
        with self.lock:
            return [*self.referee.likely_boards(), self.table_board]

    def set_vision(
        self,
        status: str,
        board: Board | None = None,
        corners: list[list[float]] | None = None,
        quality: float = 0.0,
        fps: float = 0.0,
    ) -> None:
        """The camera's latest reading; browsers are told when the status changes."""
        with self.lock:
            changed = status != self.vision.status
            self.vision = VisionState(status, board, corners, quality, fps)
            if changed:
                self.changes.publish()

    def board_moved(self) -> None:
        """The reader found the board somewhere else in the picture (bumped board or camera)."""
        with self.lock:
            if self.recheck is None:
                log.info("the board moved in the picture: checking the position before play goes on")
                self.recheck = self.table_board
                self.changes.publish()

    def _checked_after_move(self, board: Board) -> bool:
        """After a bump: whether ``board`` shows the position from before it (flagged if not)."""
        before = self.recheck
        if before is None:
            return True
        expected = self.referee.expected
        if board == before or board == expected or self._one_clean_move(board):
            self.recheck = None
            if self.flag is not None and self.flag.get("type") == "board_moved":
                self.flag = None
            self._log_entry({"type": "board_checked", "at": self.clock(),
                             "message": sentence("the board was found again and matches the game")})
            self.changes.publish()
            return True
        squares = [square_name(s) for s, c in board.items() if c is not UNKNOWN and c != before[s]]
        message = sentence(
            "the board or the camera moved, and now {squares} differ from the game: put them back as shown",
            squares=join_words(squares[:6]) + ("…" if len(squares) > 6 else ""),
        )
        if self.flag is None or self.flag.get("message") != message:
            self.flag_serial += 1
            self.flag = {"type": "board_moved", "message": message, "squares": squares, "id": self.flag_serial,
                         "settled_at": self.settled_at, "at": self.clock()}
            self._log_entry({"type": "board_moved", "message": message, "at": self.clock()})
            self.changes.publish()
        return False

    def _one_clean_move(self, board: Board) -> bool:
        """Whether ``board`` is the game's position after one legal, fully rolled move.

        A bump that was not one (the grid found again in the same place) must not
        stop the game when the next move is made: a clean move is the game going on.
        """
        referee = self.referee
        if referee.state != "synced" or referee.game.is_over():
            return False
        position = referee.position
        # Before the first ball, any colour in play may be the one that starts.
        starts = [position] if referee.turn is not None else [position.with_turn(c) for c in self.settings.order]
        return any(here.play(move).board() == board for here in starts for move in here.legal_moves())

    def observe_settled(self, board: Board, settled_at: float | None = None, now: float | None = None) -> list[Event]:
        """A board that settled on the table (``settled_at``: wall-clock seconds); returns the referee's events."""
        with self.lock:
            if board.size != self.referee.variant.size:
                self.set_vision("no_board")
                return []
            self.settled_at = settled_at if settled_at is not None else self.clock()
            if not self._checked_after_move(board):
                return []
            game = self.referee.game
            if game.is_over() and board == Position.start(self.settings.variant).board() and game.ply:
                # The board was set up again after a finished game: the next round.
                self.rematch()
            self.table_board = board
            try:
                events = self.referee.observe(board, now=now if now is not None else time.monotonic())
            except RolitError as exc:
                log.warning("board refused by the referee: %s", exc)
                return []
            self._handle(events)
            return events

    def tick(self, now: float | None = None) -> list[Event]:
        """Let the referee turn stalled rolls into a flag (live mode)."""
        with self.lock:
            events = self.referee.tick(now if now is not None else time.monotonic())
            if events:
                self._handle(events)
            return events

    def _log_entry(self, data: dict[str, Any]) -> None:
        """Add to the log the page shows, with the next serial ``id``."""
        self.event_serial += 1
        data["id"] = self.event_serial
        self.log.append(data)
        del self.log[:-_LOG_LENGTH]

    def _handle(self, events: list[Event]) -> None:
        saved = False
        for event in events:
            data = event.to_json()
            data["at"] = self.clock()
            self._log_entry(data)
            if event.type in FLAG_TYPES:
                self.flag_serial += 1
                self.flag = {**data, "id": self.flag_serial, "settled_at": self.settled_at}
            elif event.type in ("move", "board_fixed", "takeback"):
                if event.type != "move" or self.referee.state == "synced":
                    self.flag = None
            if event.type in ("move", "wrong_flips", "takeback"):
                self.hint = None
                self.turn_started = self.clock()
                saved = True
            if event.type == "game_over":
                self._score_round()
                self._archive_game()
                saved = True
        del self.log[:-_LOG_LENGTH]
        if events:
            self._after_change(save=saved)

    def _score_round(self) -> None:
        if self.match is not None and not self._round_scored and self.referee.game.is_over():
            try:
                self.match.add_round(self.referee.game)
                self._round_scored = True
            except RolitError as exc:
                log.warning("round not scored: %s", exc)

    def _archive_game(self) -> None:
        game = self.referee.game
        moves = [str(m) for m in game.moves]
        if self.archive is None or not game.is_over() or moves == self._archived:
            return
        try:
            self.archive.add(game, self.clock())
            self._archived = moves
        except OSError as exc:
            log.error("the finished game could not be archived: %s", exc)

    def _after_change(self, save: bool) -> None:
        if save and self.store is not None:
            try:
                self.store.save(self)
            except OSError as exc:
                log.error("the game could not be saved: %s", exc)
        self.changes.publish()
        if self.settings.hints == "coach" and self.hint is None and self.flag is None:
            self._in_background(self._coach, self.referee.game.ply)
        turn = self.referee.turn
        if turn is not None and turn in self.settings.computer_map() and not self.referee.game.is_over():
            self._in_background(self._think, self.referee.game.ply)

    def _in_background(self, fn: Callable[[int], None], ply: int) -> None:
        """Work out a hint or a computer move without holding the lock (searches take a while)."""
        if self.background:
            threading.Thread(target=fn, args=(ply,), daemon=True, name="rolit-think").start()
        else:
            fn(ply)

    def _coach(self, ply: int) -> None:
        with self.lock:
            if self.referee.game.ply != ply or self.referee.turn is None or self.referee.game.is_over():
                return
            position, turn = self.referee.position, self.referee.turn
        ranked = rank_moves(position)[:3]
        with self.lock:
            if self.referee.game.ply == ply and self.hint is None:
                self.hint = {"colour": turn.label, "ply": ply, "moves": [h.to_json() for h in ranked],
                             "source": hint_source()}
                self.changes.publish()

    def _think(self, ply: int) -> None:
        with self.lock:
            turn = self.referee.turn
            levels = self.settings.computer_map()
            if self.referee.game.ply != ply or turn is None or turn not in levels:
                return
            if self._computer_cache is not None and self._computer_cache[0] == ply:
                return
            position, level = self.referee.position, levels[turn]
        move = choose_move(position, level, self.rng)
        with self.lock:
            if self.referee.game.ply == ply and self.referee.turn == turn:
                self._computer_cache = (ply, self._computer_text(turn, level, move))
                self.changes.publish()

    # From the page -------------------------------------------------------------------

    def undo(self) -> str:
        """Take back the last recorded move; returns the sentence that says so."""
        with self.lock:
            game = self.referee.game
            if not game.ply:
                raise SessionError(_("There is no move to undo."), 409)
            moves = [str(m) for m in game.moves[:-1]]
            last = game.moves[-1]
            self.restore_moves(moves)
            message = sentence(
                "{colour}'s ball on {square} was taken back: put the board as shown",
                colour=Colour_word(last.colour.label),
                square=square_name(last.square),
            )
            self._log_entry({"type": "undo", "message": message, "at": self.clock()})
            self._after_change(save=True)
            return message

    def load_record(self, text: str) -> None:
        """Continue the game of a record (text or JSON): its edition, seats and moves.

        A record that cannot be read, or has an illegal move, changes nothing:
        :class:`SessionError` says where it goes wrong.
        """
        try:
            game = load_record(text)
        except RolitError as exc:
            raise SessionError(sentence("this record cannot be used: {reason}", reason=str(exc).rstrip("."))) from None
        data = {
            "variant": game.variant.name,
            "colours": [c.label for c in game.order],
            "first": game.order[0].label,
            "names": {c.label: n for c, n in game.names.items() if c in game.order},
            "hints": self.settings.hints,
            "match": False,
        }
        try:
            settings = GameSettings.from_json(data)
        except SettingsError as exc:
            raise SessionError(sentence("this record cannot be used: {reason}", reason=str(exc).rstrip("."))) from None
        with self.lock:
            self.match = None
            self.restore(SavedGame(settings, [str(m) for m in game.moves]))
            self._after_change(save=True)
            log.info("record loaded: %s at move %d", game.variant.name, game.ply)

    def restore_moves(self, moves: list[str]) -> None:
        """Replace the game by the same settings with ``moves`` played (keeps the log and the match)."""
        log_keep, match = self.log, self.match
        self._replay(self.settings, moves)
        self.log, self.match = log_keep, match

    def _replay(self, settings: GameSettings, moves: list[str]) -> None:
        """A fresh game with ``settings`` and ``moves`` (``"R:f4"``) played; the table shows it."""
        first = Colour.from_letter(moves[0].split(":")[0]) if moves else None
        self._start(settings, first=first if settings.first is None else settings.first)
        for text in moves:
            self.referee.game.push(text.split(":")[-1])
        self.table_board = self.referee.expected
        if self.manual:
            self.referee.observe(self.table_board)

    def correct(self, square: str, cell: str) -> None:
        """Fix a misread square: ``cell`` is a colour name or ``"empty"``."""
        with self.lock:
            sq = self._square(square)
            value = self._cell(cell)
            board = self.table_board if self.manual or self.vision.board is None else self.vision.board
            if not self.manual:
                seen = board[sq]
                self.overrides[sq] = (seen, value)
                board = self.apply_overrides(board)
            else:
                board = board.replace({sq: value})
            if not board.is_complete:
                self.changes.publish()
                return
            self.observe_settled(board)
            self.changes.publish()

    def click(self, square: str) -> None:
        """Manual mode: a click on a square puts the ball of the player to move there (and rolls
        what the rules roll when the placement is legal); a click on the ball that was just
        flagged takes it back."""
        with self.lock:
            if not self.manual:
                raise SessionError(_("Squares are clicked in manual mode only: the camera watches this game."), 409)
            sq = self._square(square)
            board = self.table_board
            expected = self.referee.expected
            if board[sq] is not None:
                if expected[sq] is None:  # a wrongly placed ball: take it back
                    self.observe_settled(board.replace({sq: None}))
                    return
                raise SessionError(_("That square already has a ball: use Fix to change it."), 409)
            if board != expected:
                raise SessionError(_("Put the board right first, as the message says."), 409)
            turn = self.referee.turn if self.referee.turn is not None else self.settings.order[0]
            position = self.referee.position
            if self.referee.turn is None:
                position = position.with_turn(turn)
            if position.is_legal(sq):
                new = position.play(sq).board()
            else:
                new = board.replace({sq: turn})
            self.observe_settled(new)

    def request_hint(self, colour: str | None) -> dict[str, Any]:
        """A hint for the player to move (``colour``: who asked; must be the player to move)."""
        with self.lock:
            if self.settings.hints == "off":
                raise SessionError(_("Hints are off in this game."), 409)
            turn = self.referee.turn
            if turn is None:
                raise SessionError(_("The first ball decides who starts: play it, then ask for a hint."), 409)
            if self.referee.game.is_over():
                raise SessionError(_("The game is over."), 409)
            if colour:
                try:
                    asked = Colour.parse(colour)
                except ValueError:
                    raise SessionError(_("Unknown colour.")) from None
                if asked != turn:
                    raise SessionError(
                        sentence("it is {colour}'s turn: hints are for the player to move",
                                 colour=Colour_word(turn.label)),
                        409,
                    )
            limit = self.settings.hint_limit
            if self.settings.hints == "request" and limit and self.hints_used.get(turn, 0) >= limit:
                raise SessionError(
                    sentence("{colour} has used all {n} hints of this game", colour=Colour_word(turn.label),
                             n=str(limit)),
                    409,
                )
            position, ply = self.referee.position, self.referee.game.ply
            counted = self.settings.hints == "request"
        ranked = rank_moves(position)[:3]  # may search for a while: not under the lock
        with self.lock:
            if self.referee.game.ply != ply:
                raise SessionError(_("The board changed while the hint was worked out: ask again."), 409)
            if counted:
                self.hints_used[turn] = self.hints_used.get(turn, 0) + 1
            self.hint = {"colour": turn.label, "ply": ply, "moves": [h.to_json() for h in ranked],
                         "source": hint_source()}
            self.changes.publish()
            return self.hint

    def _computer(self) -> dict[str, Any] | None:
        turn = self.referee.turn
        levels = self.settings.computer_map()
        if turn is None or turn not in levels or self.referee.game.is_over():
            return None
        ply = self.referee.game.ply
        if self._computer_cache is not None and self._computer_cache[0] == ply:
            return self._computer_cache[1]
        return {"colour": turn.label, "level": levels[turn], "square": None, "flips": [],
                "message": sentence("the computer ({who}) is thinking…", who=Colour_word(turn.label))}

    def _computer_text(self, turn: Colour, level: str, move: Hint) -> dict[str, Any]:
        colour = colour_word(turn.label)
        if move.flips:
            text = sentence(
                "the computer ({who}) plays {square}: put a {colour} ball on {square} and roll {squares} to {colour}",
                who=Colour_word(turn.label), square=move.square, colour=colour, squares=join_words(list(move.flips)),
            )
        else:
            text = sentence(
                "the computer ({who}) plays {square}: put a {colour} ball on {square}",
                who=Colour_word(turn.label), square=move.square, colour=colour,
            )
        return {"colour": turn.label, "level": level, "square": move.square, "flips": list(move.flips),
                "message": text}

    # Records -------------------------------------------------------------------------

    def record_text(self) -> str:
        """The game so far as the PGN-like record."""
        with self.lock:
            return write_record(self.referee.game)

    def record_json(self) -> dict[str, Any]:
        """The game so far as the record's JSON form."""
        with self.lock:
            return record_to_json(self.referee.game)

    # Helpers -------------------------------------------------------------------------

    def _square(self, text: str) -> Square:
        size = self.referee.variant.size
        try:
            return parse_square(text.strip().lower(), size)
        except (RolitError, ValueError, AttributeError):
            raise SessionError(
                sentence("{square} is not a square of this board", square=" ".join(str(text).split())[:8] or "''")
            ) from None

    def _cell(self, text: str) -> Cell:
        if text in ("empty", "none", ".", ""):
            return None
        try:
            colour = Colour.parse(text)
        except (ValueError, AttributeError):
            raise SessionError(_("A square is corrected to a colour or to empty.")) from None
        if colour not in self.referee.variant.colours:
            raise SessionError(sentence("this edition has no {colour} balls", colour=colour_word(colour.label)))
        return colour

    # What the page shows ---------------------------------------------------------------

    def snapshot_fix(self) -> list[str]:
        """Squares where the table differs from the game while a flag is up (drawn outlined in red)."""
        with self.lock:
            referee = self.referee
            if self.flag is not None and self.flag.get("type") == "board_moved":
                return list(self.flag.get("squares", []))
            if referee.pending is not None or (self.flag is None and referee.state == "synced"):
                return []
            expected = referee.expected
            return [square_name(s) for s, c in self.table_board.items() if c is not UNKNOWN and c != expected[s]]

    def hint_square(self) -> str | None:
        """The best hinted square now, if a hint is showing."""
        with self.lock:
            hint = self.hint
            if hint and hint.get("ply") == self.referee.game.ply and hint.get("moves"):
                return str(hint["moves"][0]["square"])
            return None

    def snapshot(self) -> dict[str, Any]:
        """The whole state the page draws, JSON-ready."""
        with self.lock:
            referee = self.referee
            game = referee.game
            variant = get_variant(self.settings.variant)
            names = self.settings.names_map()
            turn = referee.turn
            counts = referee.position.counts()
            expected = referee.expected
            table = self.table_board
            to_fix = self.snapshot_fix()
            computer_levels = self.settings.computer_map()
            players = []
            for colour in self.settings.order:
                used = self.hints_used.get(colour, 0)
                limit = self.settings.hint_limit
                players.append({
                    "colour": colour.label,
                    "letter": colour.letter,
                    "name": names.get(colour) or Colour_word(colour.label),
                    "balls": counts.get(colour, 0),
                    "computer": computer_levels.get(colour),
                    "hints_left": (limit - used) if (limit and self.settings.hints == "request") else None,
                })
            outcome = game.outcome()
            over = None
            if outcome is not None:
                winners = [names.get(c) or Colour_word(c.label) for c in outcome.winners]
                over = {
                    **outcome.to_json(),
                    "message": sentence("{who} wins", who=join_words(winners)) if len(winners) == 1
                    else sentence("{who} share the win", who=join_words(winners)),
                }
            match = None
            if self.match is not None:
                match = {
                    "round": len(self.match.rounds) + (0 if self._round_scored else 1),
                    "standings": [
                        {"player": s.player, "points": s.points, "mini_points": s.mini_points}
                        for s in self.match.standings()
                    ],
                }
            last = game.moves[-1] if game.moves else None
            hint = self.hint if self.hint and self.hint.get("ply") == game.ply else None
            return {
                "version": self.changes.version,
                "server_time": self.clock(),
                "mode": "manual" if self.manual else "camera",
                "variant": {"name": variant.name, "title": variant.title, "size": variant.size,
                            "colours": [c.label for c in variant.colours]},
                "board": table.text().splitlines(),
                "expected": expected.text().splitlines(),
                "to_fix": to_fix,
                "turn": None if turn is None else {
                    "colour": turn.label, "name": names.get(turn) or Colour_word(turn.label),
                    "message": sentence("{who}'s turn", who=names.get(turn) or Colour_word(turn.label)),
                },
                "first_ball_decides": turn is None,
                "players": players,
                "scores": game.player_scores(),
                "moves": [
                    {"number": p.number, "colour": p.move.colour.label, "letter": p.move.colour.letter,
                     "square": square_name(p.move.square), "flipped": [square_name(s) for s in p.flipped]}
                    for p in game.history
                ],
                "last_move": square_name(last.square) if last else None,
                "flag": self.flag,
                "referee_state": referee.state,
                "recheck": self.recheck is not None,
                "pending": referee.pending.to_json() if referee.pending is not None else None,
                "hint": hint,
                "hint_source": hint_source(),
                "computer": self._computer(),
                "vision": {
                    "status": self.vision.status,
                    "message": vision_message(self.vision.status),
                    "corners": self.vision.corners,
                    "quality": round(self.vision.quality, 3),
                    "fps": round(self.vision.fps, 1),
                    "board": self.vision.board.text().splitlines() if self.vision.board is not None else None,
                },
                "game_over": over,
                "match": match,
                "timer": ({"seconds": self.settings.timer, "started": self.turn_started}
                          if self.settings.timer else None),
                "settings": self.settings.to_json(),
                "settled_at": self.settled_at,
                "log": list(self.log),
                "ply": game.ply,
            }
