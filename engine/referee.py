"""The referee: turns the boards a camera sees into moves and flags every rule break.

A camera sees positions, not moves. The :class:`Referee` compares each settled
board with the board the rules expect and says what happened, as
:class:`Event` objects whose ``message`` is one plain sentence a child can
follow.

>>> from rolit.engine import Position
>>> ref = Referee("classic", players=4)
>>> board = Position.start("classic").play("f4").board()
>>> [e.message for e in ref.observe(board)]
['Red plays f4 and rolls e4.']
>>> wrong = board.replace({parse_square("c3"): GREEN})   # Yellow's turn, a green ball
>>> [e.message for e in ref.observe(wrong)]
["It is Yellow's turn, not Green's: take the green ball on c3 back."]

Unknown cells (a hand over the board) never produce a move or a flag on their
own: the referee waits until the cells it needs are seen.

Live play: a player puts the ball down and then rolls the trapped balls one by
one, so a settled board can show part of the rolls. Give the referee a ``grace``
time (seconds) and timestamps, and such a board is *in progress*
(:attr:`Referee.pending` says what is still to roll) until the rolls are done,
the next ball appears, or the board stays unchanged for ``grace`` seconds
(:meth:`Referee.tick`) — only then is it a ``wrong_flips`` mistake. Without a
grace time (files of settled boards) every board is final.
"""

from __future__ import annotations

import enum
import logging
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from .board import UNKNOWN, Board
from .colours import GREEN, Colour  # noqa: F401  (GREEN is used in the examples)
from .errors import RolitError, SetupError
from .game import Game
from .messages import Colour_word, _, colour_word, join_alternatives, join_words, sentence
from .position import Move, Position
from .squares import Square, parse_square, square_col, square_name, square_row  # noqa: F401
from .variants import Variant, get_variant

__all__ = ["Referee", "Event", "Pending", "EVENT_TYPES"]

log = logging.getLogger(__name__)

EVENT_TYPES = (
    "move",
    "missed_capture",
    "wrong_flips",
    "board_fixed",
    "out_of_turn",
    "not_adjacent",
    "several_balls",
    "ball_removed",
    "takeback",
    "game_over",
)

_DIRECTIONS = [(dr, dc) for dr in (-1, 0, 1) for dc in (-1, 0, 1) if (dr, dc) != (0, 0)]


@dataclass(frozen=True)
class Event:
    """Something the referee saw. ``fields`` holds the type's own JSON-ready fields."""

    type: str
    move_number: int
    message: str
    fields: Mapping[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        """The event as DESIGN.md's JSON object."""
        return {"type": self.type, "move_number": self.move_number, "message": self.message, **self.fields}

    def __getitem__(self, key: str) -> Any:
        return self.to_json()[key]


@dataclass(frozen=True)
class Pending:
    """A placement seen in live play whose rolls are not finished yet."""

    move: Move
    to_roll: tuple[Square, ...]
    board: Board
    since: float

    def to_json(self) -> dict[str, Any]:
        """JSON-ready form (for the page)."""
        return {
            "player": self.move.colour.label,
            "square": square_name(self.move.square),
            "to_roll": [square_name(s) for s in self.to_roll],
        }


class _Mode(enum.Enum):
    SYNCED = "synced"  # the table shows the expected board
    FIXING = "fixing"  # a move was recorded but its rolls on the table are wrong
    RESTORE = "restore"  # a ball must be taken back or put back


@dataclass
class _Diff:
    added: dict[Square, Colour]
    removed: dict[Square, Colour]
    recoloured: dict[Square, tuple[Colour, Colour]]  # square -> (expected, seen)
    unknown: set[Square]

    @property
    def empty(self) -> bool:
        return not (self.added or self.removed or self.recoloured)


def _diff(expected: Board, seen: Board) -> _Diff:
    d = _Diff({}, {}, {}, set())
    for (sq, want), (_sq, got) in zip(expected.items(), seen.items(), strict=True):
        if got is UNKNOWN:
            d.unknown.add(sq)
        elif want is None:
            if got is not None:
                assert isinstance(got, Colour)
                d.added[sq] = got
        elif got is None:
            assert isinstance(want, Colour)
            d.removed[sq] = want
        elif got != want:
            assert isinstance(want, Colour) and isinstance(got, Colour)
            d.recoloured[sq] = (want, got)
    return d


def _names(squares: Iterable[Square]) -> list[str]:
    return [square_name(s) for s in sorted(squares)]


def _line_kind(dr: int, dc: int) -> str:
    if dr == 0:
        return "row"
    if dc == 0:
        return "column"
    return "diagonal"


def _direction(a: Square, b: Square) -> tuple[int, int] | None:
    """The unit step from ``a`` towards ``b`` if they share a row, column or diagonal."""
    dr, dc = square_row(b) - square_row(a), square_col(b) - square_col(a)
    if (dr, dc) == (0, 0) or not (dr == 0 or dc == 0 or abs(dr) == abs(dc)):
        return None
    return (dr > 0) - (dr < 0), (dc > 0) - (dc < 0)


def _walk(size: int, start: Square, step: tuple[int, int]) -> list[Square]:
    """The squares from ``start`` (excluded) to the edge along ``step``."""
    out = []
    r, c = square_row(start) + step[0], square_col(start) + step[1]
    while 0 <= r < size and 0 <= c < size:
        out.append(r * 8 + c)
        r, c = r + step[0], c + step[1]
    return out


class Referee:
    """Judges a stream of observed boards against the rules.

    ``first=None`` (and no ``start``) means who starts is not known: the first
    ball decides, and the turn order follows from it. ``start`` is a position to
    start from instead of the start position. ``grace`` (seconds) turns on live
    mode (see the module documentation).
    """

    def __init__(
        self,
        variant: str | Variant = "classic",
        *,
        players: int | None = None,
        order: Iterable[Colour] | None = None,
        first: Colour | None = None,
        solo: bool = False,
        names: Mapping[Colour, str] | None = None,
        start: Position | None = None,
        grace: float | None = None,
    ) -> None:
        self.variant = get_variant(start.variant if start is not None else variant)
        self._first_known = first is not None or start is not None
        self._first_was_unknown = not self._first_known
        if start is None:
            start = Position.start(self.variant, players=players, order=order, first=first, solo=solo)
        self.game = Game(start=start, names=names)
        self.grace = grace
        self.events: list[Event] = []
        self._mode = _Mode.SYNCED
        self._last_board: Board | None = None
        self._last_wrong: tuple[tuple[Square, ...], tuple[Square, ...]] | None = None
        self._pending: Pending | None = None
        self._over_announced = False

    # State -------------------------------------------------------------------

    @property
    def position(self) -> Position:
        """The position of the moves accepted so far."""
        return self.game.position

    @property
    def expected(self) -> Board:
        """The board the table should show now."""
        return self.game.position.board()

    @property
    def pending(self) -> Pending | None:
        """The placement whose rolls are still being made (live mode), if any."""
        return self._pending

    def likely_boards(self) -> list[Board]:
        """Boards the table probably shows now: the expected one, and, while a placement's rolls
        are being made, the board once they are done. A reader unsure of a cell can use them as a
        prior (see ``Observation.filled_from`` in rolit.vision)."""
        boards = [self.expected]
        pending = self._pending
        if pending is not None:
            try:
                boards.append(self.game.position.play(pending.move).board())
            except RolitError:
                pass
        return boards

    @property
    def turn(self) -> Colour | None:
        """The colour to move, or ``None`` while the first ball is still to decide it."""
        if not self._first_known and self.game.ply == 0:
            return None
        return self.game.turn

    @property
    def state(self) -> str:
        """``synced``, ``fixing`` (rolls to correct) or ``restore`` (a ball to take or put back)."""
        return self._mode.value

    # Observing ---------------------------------------------------------------

    def observe(self, board: Board, now: float | None = None) -> list[Event]:
        """Judge a settled board; returns the new events (also kept in :attr:`events`).

        ``now`` is a timestamp in seconds, used in live mode for the grace time.
        """
        self._check_board(board)
        events = self.tick(now) if now is not None else []
        if board == self._last_board:
            return events
        self._last_board = board
        events += self._judge(board, now if now is not None else 0.0)
        self.events.extend(events)
        for event in events:
            log.info("%s: %s", event.type, event.message)
        return events

    def tick(self, now: float) -> list[Event]:
        """In live mode, turn a placement whose rolls stalled for ``grace`` seconds into a flag."""
        pending = self._pending
        if pending is None or self.grace is None or now - pending.since < self.grace:
            return []
        self._pending = None
        events = self._record_with_wrong_flips(pending.move, pending.board)
        self.events.extend(events)
        return events

    def _check_board(self, board: Board) -> None:
        if board.size != self.variant.size:
            raise SetupError(
                f"the referee plays {self.variant.name} on {self.variant.size}x{self.variant.size}, "
                f"but the board seen is {board.size}x{board.size}"
            )
        board.check_variant(self.variant)

    def _judge(self, board: Board, now: float) -> list[Event]:
        game = self.game
        d = _diff(self.expected, board)
        complete = not d.unknown

        if d.empty:
            self._pending = None
            if not complete:
                return []
            return self._synced()

        if complete and game.ply:
            rewound = self._takeback(board)
            if rewound:
                return rewound

        if game.is_over() and self._mode is _Mode.SYNCED and self._over_announced:
            return []  # The game is over and the table is being cleared.

        if d.removed:
            self._pending = None
            self._mode = _Mode.RESTORE
            return [self._ball_removed(d.removed)]

        expected = self.expected
        if not d.added and any(expected[s] is None for s in d.unknown):
            # Balls changed colour, and a hidden empty square may hold the new
            # ball that explains it: wait until the hand has gone.
            return []

        if self._mode is _Mode.FIXING:
            if d.recoloured:
                return self._remind_fix(board)
            to_fix = set(self._last_wrong[0] + self._last_wrong[1]) if self._last_wrong else set()
            if to_fix & d.unknown:
                return []  # The balls to fix are hidden: wait to see them.
            events = self._synced()
            return events + self._judge_new_balls(board, d, now)

        if not d.added:
            # Only existing balls changed colour: the last move's rolls are off.
            return self._wrong_without_new_ball(board)
        return self._judge_new_balls(board, d, now)

    def _synced(self) -> list[Event]:
        events = []
        if self._mode is not _Mode.SYNCED:
            events.append(self._board_fixed())
            self._mode = _Mode.SYNCED
            self._last_wrong = None
        if self.game.is_over() and not self._over_announced:
            events.append(self._game_over())
        return events

    def _judge_new_balls(self, board: Board, d: _Diff, now: float) -> list[Event]:
        game = self.game
        number = game.ply + 1
        if len(d.added) > 1:
            pending = self._pending
            if pending is not None and d.added.get(pending.move.square) == pending.move.colour:
                # The next ball appeared before the rolls were finished: the
                # pending placement was final after all.
                self._pending = None
                return self._record_with_wrong_flips(pending.move, board)
            self._pending = None
            self._mode = _Mode.RESTORE
            squares = _names(d.added)
            return [
                Event(
                    "several_balls",
                    number,
                    sentence(
                        "only one ball goes down in a turn: there are new balls on {squares}, "
                        "so take the extra one back",
                        squares=join_words(squares),
                    ),
                    {"squares": squares},
                )
            ]

        (sq, colour), = d.added.items()
        pos = game.position
        name = square_name(sq)

        if self.turn is None:
            # Who starts was not known: the first ball decides.
            if colour not in pos.order:
                return [self._out_of_turn(None, colour, sq)]
            self.game = Game(start=pos.with_turn(colour), names=game.names)
            self._first_known = True
            game, pos = self.game, self.game.position
        elif colour != pos.turn:
            return [self._out_of_turn(pos.turn, colour, sq)]

        move = Move(colour, sq)
        geom = pos.geometry
        if not geom.neighbours(geom.bit[sq]) & _occupied(pos):
            self._pending = None
            self._mode = _Mode.RESTORE
            return [
                Event(
                    "not_adjacent",
                    number,
                    sentence("a ball must touch another ball: take the {colour} ball on {square} back",
                             colour=colour_word(colour.label), square=name),
                    {"player": colour.label, "square": name},
                )
            ]
        flips = pos.flips(move)
        if not flips and pos.has_capture():
            self._pending = None
            self._mode = _Mode.RESTORE
            capturing = [square_name(m.square) for m in pos.capturing_moves()]
            return [
                Event(
                    "missed_capture",
                    number,
                    sentence("{player} must capture when it can: take the ball on {square} back and play {moves}",
                             player=Colour_word(colour.label), square=name, moves=join_alternatives(capturing)),
                    {"player": colour.label, "square": name, "capturing_moves": capturing},
                )
            ]

        # A legal placement. Wait until every cell that decides the rolls is seen.
        needed = {sq} | {s for step in _DIRECTIONS for s in _walk(pos.size, sq, step)}
        if needed & d.unknown:
            return []
        after = pos.play(move)
        missing, extra = _mismatch(after.board(), board, set(flips))
        if not missing and not extra:
            self._pending = None
            return self._record(move)
        if self.grace is not None and not extra and all(board[s] == pos.colour_at(s) for s in missing):
            # Live: the rolls are still being made.
            if self._pending is None or self._pending.move != move or self._pending.to_roll != tuple(missing):
                self._pending = Pending(move, tuple(missing), board, now)
            return []
        self._pending = None
        return self._record_with_wrong_flips(move, board)

    # Recording -----------------------------------------------------------------

    def _record(self, move: Move) -> list[Event]:
        before = self.game.position
        flips = before.flips(move)
        self.game.push(move)
        self._mode = _Mode.SYNCED
        self._last_wrong = None
        name = square_name(move.square)
        if flips:
            message = sentence("{player} plays {square} and rolls {flips}", player=Colour_word(move.colour.label),
                               square=name, flips=join_words(_names(flips)))
        else:
            message = sentence("{player} plays {square}", player=Colour_word(move.colour.label), square=name)
        events = [Event("move", self.game.ply, message,
                        {"player": move.colour.label, "square": name, "flipped": _names(flips)})]
        if self.game.is_over():
            events.append(self._game_over())
        return events

    def _record_with_wrong_flips(self, move: Move, board: Board) -> list[Event]:
        """Record a legal placement whose rolls on the table are wrong, and say what to fix."""
        self.game.push(move)
        self._mode = _Mode.FIXING
        return self._remind_fix(board)

    def _remind_fix(self, board: Board) -> list[Event]:
        played = self.game.history[-1]
        missing, extra = _mismatch(self.expected, board, set(played.flipped))
        key = (tuple(missing), tuple(extra))
        if key == self._last_wrong:
            return []
        self._last_wrong = key
        return [self._wrong_flips(played.move, played.before, missing, extra, board)]

    def _wrong_without_new_ball(self, board: Board) -> list[Event]:
        if not self.game.ply:
            # Nothing has been played, yet a start ball changed colour.
            changed = [s for s, c in board.items() if c is not UNKNOWN and c != self.expected[s]]
            self._mode = _Mode.RESTORE
            names = _names(changed)
            return [
                Event(
                    "wrong_flips",
                    1,
                    sentence("no ball has been played yet: roll {squares} back as they were",
                             squares=join_words(names)),
                    {"player": None, "square": None, "missing": [], "extra": names,
                     "reasons": {n: sentence("nothing has trapped it yet") for n in names}},
                )
            ]
        self._mode = _Mode.FIXING
        return self._remind_fix(board)

    # Events ------------------------------------------------------------------

    def _wrong_flips(
        self, move: Move, before: Position, missing: list[Square], extra: list[Square], seen: Board
    ) -> Event:
        mover = move.colour
        reasons: dict[str, str] = {}
        clauses: list[str] = []
        lines: dict[tuple[int, int], list[Square]] = {}
        for sq in missing:
            step = _direction(move.square, sq)
            assert step is not None
            lines.setdefault(step, []).append(sq)
        all_flips = before.flips(move)
        captured_lines = {_direction(move.square, s) for s in all_flips}
        # "One of several lines forgotten": a whole line left while another was rolled.
        some_rolled = any(s not in missing for s in all_flips)
        for step, squares in lines.items():
            closing = next(s for s in _walk(before.size, move.square, step) if before.colour_at(s) == mover)
            whole_line = set(squares) == {s for s in all_flips if _direction(move.square, s) == step}
            kind = _line_kind(*step)
            fields = {"kind": _(kind), "a": square_name(move.square), "b": square_name(closing)}
            if whole_line and len(captured_lines) > 1 and some_rolled:
                why = sentence(
                    "it is trapped on the {kind} between {a} and {b}, and every trapped line is rolled", **fields
                )
            else:
                why = sentence("it is trapped on the {kind} between {a} and {b}", **fields)
            for s in squares:
                reasons[square_name(s)] = why
            names = _names(squares)
            if len(names) == 1:
                clause = "roll {squares} to {colour} too: it is trapped on the {kind} between {a} and {b}"
            else:
                clause = "roll {squares} to {colour} too: they are trapped on the {kind} between {a} and {b}"
            clauses.append(_(clause).format(squares=join_words(names), colour=colour_word(mover.label), **fields))
        for sq in extra:
            was = before.colour_at(sq)
            if was is None:  # the new ball itself shows another colour
                why = _("it is {player}'s new ball").format(player=Colour_word(mover.label))
                reasons[square_name(sq)] = sentence(why)
                clauses.append(_("turn the ball on {square} back to {colour}: {why}").format(
                    square=square_name(sq), colour=colour_word(mover.label), why=why))
                continue
            why = self._why_not_trapped(move, before, sq)
            reasons[square_name(sq)] = sentence(why)
            clauses.append(_("roll {square} back to {colour}: {why}").format(
                square=square_name(sq), colour=colour_word(was.label), why=why))
        message = "; ".join(clauses)
        message = message[:1].upper() + message[1:] + "."
        name = square_name(move.square)
        return Event(
            "wrong_flips",
            self.game.ply,
            message,
            {
                "player": mover.label,
                "square": name,
                "missing": _names(missing),
                "extra": _names(extra),
                "reasons": reasons,
            },
        )

    def _why_not_trapped(self, move: Move, before: Position, sq: Square) -> str:
        """Why the ball on ``sq`` must not be rolled by ``move`` (the books' common mistakes)."""
        mover = move.colour
        a, x = square_name(move.square), square_name(sq)
        if before.colour_at(sq) == mover:
            return _("it is {colour} already and stays {colour}").format(colour=colour_word(mover.label))
        step = _direction(move.square, sq)
        if step is None:
            return _("it is not on a straight line from {a}, so the ball on {a} cannot trap it").format(a=a)
        for s in _walk(before.size, move.square, step):
            if s == sq:
                break
            here = before.colour_at(s)
            if here is None:
                return _("the empty square {gap} breaks the line between {a} and {x}").format(
                    gap=square_name(s), a=a, x=x)
            if here == mover:
                return _("the {colour} ball on {own} closes the line first, so {x} is beyond it").format(
                    colour=colour_word(mover.label), own=square_name(s), x=x)
        return _("no {colour} ball closes the line behind it").format(colour=colour_word(mover.label))

    def _out_of_turn(self, turn: Colour | None, placed: Colour, sq: Square) -> Event:
        self._pending = None
        self._mode = _Mode.RESTORE
        name = square_name(sq)
        if turn is None:
            message = sentence("nobody plays {colour}: take the {colour} ball on {square} back",
                               colour=colour_word(placed.label), square=name)
        elif placed not in self.game.position.order:
            message = sentence(
                "it is {turn}'s turn and nobody plays {colour}: take the {colour} ball on {square} back",
                               turn=Colour_word(turn.label), colour=colour_word(placed.label), square=name)
        else:
            message = sentence("it is {turn}'s turn, not {placed}'s: take the {colour} ball on {square} back",
                               turn=Colour_word(turn.label), placed=Colour_word(placed.label),
                               colour=colour_word(placed.label), square=name)
        return Event(
            "out_of_turn",
            self.game.ply + 1,
            message,
            {"player": turn.label if turn is not None else None, "placed": placed.label, "square": name},
        )

    def _ball_removed(self, removed: Mapping[Square, Colour]) -> Event:
        names = _names(removed)
        colours = {c for c in removed.values()}
        if len(colours) == 1:
            (colour,) = colours
            message = sentence("a ball has gone from {squares}: put the {colour} ball back",
                               squares=join_words(names), colour=colour_word(colour.label))
            if len(names) > 1:
                message = sentence("balls have gone from {squares}: put the {colour} balls back",
                                   squares=join_words(names), colour=colour_word(colour.label))
        else:
            message = sentence("balls have gone from {squares}: put them back as they were",
                               squares=join_words(names))
        return Event("ball_removed", self.game.ply + 1, message, {"squares": names})

    def _board_fixed(self) -> Event:
        turn = self.turn
        if turn is None:
            message = sentence("the board is right again: any colour may start")
        else:
            message = sentence("the board is right again: it is {player}'s turn", player=Colour_word(turn.label))
        return Event("board_fixed", self.game.ply, message, {})

    def _takeback(self, board: Board) -> list[Event]:
        # Only the position with as many balls as the board can match it.
        balls = sum(1 for _, cell in board.items() if cell is not None)
        ply = balls - self.game.start.balls
        if not 0 <= ply < self.game.ply or self.game.positions()[ply].board() != board:
            return []
        back = self.game.ply - ply
        events = []
        for _step in range(back):
            played = self.game.history[-1]
            self.game.pop()
            name = square_name(played.move.square)
            events.append(Event(
                "takeback",
                played.number,
                sentence("{player} took back the ball on {square}: it is {player}'s turn again",
                         player=Colour_word(played.move.colour.label), square=name),
                {"square": name, "player": played.move.colour.label},
            ))
        if not self.game.ply and self._first_was_unknown:
            self._first_known = False
        self._mode = _Mode.SYNCED
        self._pending = None
        self._last_wrong = None
        self._over_announced = False
        return events

    def _game_over(self) -> Event:
        outcome = self.game.outcome()
        assert outcome is not None
        self._over_announced = True
        scores = {c.label: n for c, n in outcome.scores.items()}
        winners = [c.label for c in outcome.winners]
        best = outcome.winning_count
        if len(winners) == 1:
            message = sentence("the board is full: {player} wins with {count} balls",
                               player=Colour_word(winners[0]), count=str(best))
        else:
            message = sentence("the board is full: {players} share the win with {count} balls each",
                               players=join_words([Colour_word(w) for w in winners]), count=str(best))
        return Event("game_over", self.game.ply, message, {"scores": scores, "winners": winners})


def _mismatch(want: Board, seen: Board, rolls: set[Square]) -> tuple[list[Square], list[Square]]:
    """Balls on the table that differ from ``want``: ``missing`` are among the move's
    ``rolls`` (not rolled, or rolled to the wrong colour), ``extra`` are the rest."""
    missing: list[Square] = []
    extra: list[Square] = []
    for sq, cell in want.items():
        got = seen[sq]
        if got is UNKNOWN or cell is None or got is None or got == cell:
            continue
        (missing if sq in rolls else extra).append(sq)
    return missing, extra


def _occupied(pos: Position) -> int:
    occ = 0
    for b in pos.bitboards:
        occ |= b
    return occ
