"""Generated games replayed through the referee, clean and with injected mistakes.

Over 1,000 random games every injected mistake must be flagged with the right
event, and no correct move may ever be flagged. The counts appear in the test
run's "figures" summary.
"""

from __future__ import annotations

import random
from collections import Counter

from conftest import REPORT_LINES

from rolit.engine import UNKNOWN, Board, Colour, Game, Position, Referee, square_name

GAMES = 1000
SEATINGS = [("classic", 4), ("classic", 3), ("classic", 2), ("junior", 4), ("quick6", 3), ("quick6", 2), ("quick4", 2)]
MISTAKES = ("missing_roll", "extra_roll", "wrong_colour", "missed_capture", "hand", "takeback")


def _hand(board: Board, rng: random.Random) -> Board:
    """The board with a rectangle of cells hidden, as a hand or arm would."""
    n = board.size
    w, h = rng.randint(1, 3), rng.randint(1, 4)
    c0, r0 = rng.randrange(n - w + 1), rng.randrange(n - h + 1)
    return board.replace({(r0 + r) * 8 + c0 + c: UNKNOWN for r in range(h) for c in range(w)})


class Tally:
    def __init__(self) -> None:
        self.injected: Counter[str] = Counter()
        self.flagged: Counter[str] = Counter()
        self.correct_moves = 0
        self.false_flags: list[str] = []


def _expect(ref: Referee, board: Board, allowed: set[str], tally: Tally, context: str) -> list[str]:
    got = [e.type for e in ref.observe(board)]
    unexpected = [t for t in got if t not in allowed]
    if unexpected:
        tally.false_flags.append(f"{context}: {got}")
    return got


def play_one(seed: int, tally: Tally) -> None:
    rng = random.Random(seed)
    variant, players = rng.choice(SEATINGS)
    start = Position.start(variant, players=players)
    first: Colour | None = rng.choice(start.turn_order())
    known_first = rng.random() < 0.8
    game = Game(variant, players=players, first=first)
    ref = Referee(variant, players=players, first=first if known_first else None)
    _expect(ref, game.position.board(), set(), tally, f"{seed} start")
    after_moves = {"move", "game_over"}

    while not game.is_over():
        pos = game.position
        move = rng.choice(pos.legal_moves())
        flips = pos.flips(move)
        before, correct = pos.board(), pos.play(move).board()
        where = f"seed {seed} {variant}/{players} move {game.ply + 1} {move}"
        mistake = rng.choice(MISTAKES) if rng.random() < 0.35 else None

        if mistake == "missing_roll" and flips:
            tally.injected[mistake] += 1
            sq = rng.choice(flips)
            events = ref.observe(correct.replace({sq: before[sq]}))
            if [e.type for e in events][:1] == ["wrong_flips"] and square_name(sq) in events[0]["missing"]:
                tally.flagged[mistake] += 1
            _expect(ref, correct, {"board_fixed", "game_over"}, tally, where + " fixed")
        elif mistake == "extra_roll":
            others = [s for s, c in before.items() if c is not None and c != move.colour and s not in flips]
            if others:
                tally.injected[mistake] += 1
                sq = rng.choice(others)
                events = ref.observe(correct.replace({sq: move.colour}))
                if [e.type for e in events][:1] == ["wrong_flips"] and square_name(sq) in events[0]["extra"]:
                    tally.flagged[mistake] += 1
                _expect(ref, correct, {"board_fixed", "game_over"}, tally, where + " fixed")
            else:
                _expect(ref, correct, after_moves, tally, where)
        elif mistake == "wrong_colour" and ref.turn is not None:
            tally.injected[mistake] += 1
            colour = rng.choice([c for c in pos.variant.colours if c != move.colour])
            events = ref.observe(before.replace({move.square: colour}))
            if [e.type for e in events] == ["out_of_turn"]:
                tally.flagged[mistake] += 1
            _expect(ref, before, {"board_fixed"}, tally, where + " taken back")
            _expect(ref, correct, after_moves, tally, where)
        elif mistake == "missed_capture" and pos.has_capture():
            geom = pos.geometry
            occupied = 0
            for b in pos.bitboards:
                occupied |= b
            touching = geom.to_squares(geom.neighbours(occupied) & geom.full & ~occupied)
            quiet = [s for s in touching if not pos.flips(s)]
            if quiet:
                tally.injected[mistake] += 1
                sq = rng.choice(quiet)
                events = ref.observe(before.replace({sq: move.colour}))
                if [e.type for e in events] == ["missed_capture"]:
                    tally.flagged[mistake] += 1
                _expect(ref, before, {"board_fixed"}, tally, where + " taken back")
            _expect(ref, correct, after_moves, tally, where)
        elif mistake == "hand":
            # A hand over the board before and while the move is made: nothing may
            # be flagged, and the move is accepted exactly once.
            tally.injected[mistake] += 1
            seen = _expect(ref, _hand(before, rng), set(), tally, where + " hand before")
            seen += _expect(ref, _hand(correct, rng), after_moves, tally, where + " hand after")
            seen += _expect(ref, correct, after_moves, tally, where)
            if seen.count("move") == 1:
                tally.flagged[mistake] += 1
        elif mistake == "takeback":
            tally.injected[mistake] += 1
            _expect(ref, correct, after_moves, tally, where)
            events = ref.observe(before)
            if [e.type for e in events] == ["takeback"]:
                tally.flagged[mistake] += 1
            _expect(ref, correct, after_moves, tally, where + " again")
        else:
            _expect(ref, correct, after_moves, tally, where)
        tally.correct_moves += 1
        game.push(move)
        if ref.game.ply != game.ply or ref.position != game.position:
            tally.false_flags.append(f"{where}: referee at ply {ref.game.ply}, game at {game.ply}")
            return
    if not ref.events or ref.events[-1].type != "game_over":
        tally.false_flags.append(f"seed {seed}: no game_over at the end")


def test_thousand_games_every_mistake_flagged_no_false_flags() -> None:
    tally = Tally()
    for seed in range(GAMES):
        play_one(seed, tally)
    lines = [
        f"referee over {GAMES} generated games: {tally.correct_moves} correct moves, "
        f"{len(tally.false_flags)} flagged wrongly",
    ]
    for kind in MISTAKES:
        lines.append(f"  {kind:15s} injected {tally.injected[kind]:5d}  flagged {tally.flagged[kind]:5d}")
    REPORT_LINES.extend(lines)
    print("\n".join(lines))
    assert tally.false_flags == []
    assert all(tally.injected[k] >= 100 for k in MISTAKES), tally.injected
    assert tally.flagged == tally.injected
