"""The engine's subcommands of ``rolit``: perft, replay, demo, and the engine bench.

Each ``add_*`` function adds a subcommand to an :mod:`argparse` sub-parser
collection; :mod:`rolit.webui.cli` assembles the whole command.
"""

from __future__ import annotations

import argparse
import json
import logging
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from .colours import Colour
from .errors import RolitError, SetupError
from .game import Game
from .perft import perft_counts
from .position import Position
from .record import load_record, record_to_json
from .squares import square_name
from .variants import VARIANTS, get_variant

__all__ = ["BENCHES", "add_engine_commands", "add_seating_arguments", "read_text", "seating_from_args"]

log = logging.getLogger(__name__)


def add_seating_arguments(parser: argparse.ArgumentParser) -> None:
    """--variant, --players, --order, --solo and --first, shared by several commands."""
    parser.add_argument("--variant", choices=list(VARIANTS), default="classic", help="edition (default: classic)")
    group = parser.add_mutually_exclusive_group()
    group.add_argument("--players", type=int, choices=(2, 3, 4), help="number of players (default: 4, quick4: 2)")
    group.add_argument("--order", help="custom turn order, e.g. red,blue,green,yellow")
    group.add_argument("--solo", action="store_true", help="one person plays two colours in turn")
    parser.add_argument(
        "--first", help="colour that moves first (default: red; for the referee, the first ball decides)"
    )


def _colour(text: str) -> Colour:
    try:
        return Colour.parse(text)
    except ValueError as exc:
        raise SetupError(str(exc)) from None


def seating_from_args(args: argparse.Namespace) -> dict[str, Any]:
    """Keyword arguments for :meth:`Position.start` from the seating options."""
    kwargs: dict[str, Any] = {}
    if args.players is not None:
        kwargs["players"] = args.players
    if args.order:
        kwargs["order"] = [_colour(c) for c in args.order.split(",") if c.strip()]
    if args.solo:
        kwargs["solo"] = True
    if args.first:
        kwargs["first"] = _colour(args.first)
    return kwargs


def read_text(path: str) -> str:
    """The text of ``path`` (``-`` is standard input), with a clear error."""
    if path == "-":
        return sys.stdin.read()
    p = Path(path)
    if p.is_dir():
        raise RolitError(f"{path} is a folder, not a file")
    try:
        return p.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise RolitError(f"{path} does not exist") from None
    except UnicodeDecodeError:
        raise RolitError(f"{path} is not a text file") from None
    except OSError as exc:
        raise RolitError(f"cannot read {path}: {exc.strerror}") from None


def _perft(args: argparse.Namespace) -> int:
    if args.depth < 1:
        raise SetupError("depth must be 1 or more")
    variant = get_variant(args.variant)
    start = Position.start(variant, **seating_from_args(args))
    counts = perft_counts(start, args.depth)
    if args.json:
        print(json.dumps({"variant": variant.name, "players": len(start.order), "counts": counts}))
    else:
        for depth, count in enumerate(counts, start=1):
            print(f"{depth:2d} {count:>14,}")
    return 0


def _replay(args: argparse.Namespace) -> int:
    game = load_record(read_text(args.record))
    pos = game.position
    outcome = game.outcome()
    if args.json:
        data = record_to_json(game)
        data["board"] = pos.board_text().splitlines()
        data["counts"] = {c.label: n for c, n in pos.counts().items()}
        print(json.dumps(data))
        return 0
    print(pos.board_text())
    print()
    print(f"{game.ply} moves, all legal.")
    scores = game.player_scores()
    print("Balls: " + ", ".join(f"{who} {n}" for who, n in scores.items()))
    neutral = pos.neutral
    if neutral:
        print("Neutral: " + ", ".join(f"{c.label} {pos.count(c)}" for c in neutral))
    if outcome is None:
        print(f"Not finished: {pos.turn.title} to move, {len(pos.empty_squares())} squares left.")
    else:
        winners = sorted({game.player_name(c) for c in outcome.winners})
        verb = "share the win" if len(winners) > 1 else "wins"
        print(f"{' and '.join(winners)} {verb}.")
    return 0


def _referee(args: argparse.Namespace) -> int:
    from .board import Board, parse_boards
    from .errors import BoardTextError
    from .referee import Referee

    variant = get_variant(args.variant)
    seating = seating_from_args(args)
    start = None
    if args.position:
        if not args.to_move:
            raise SetupError("--position needs --to-move (the colour whose turn it is)")
        board = Board.from_text(read_text(args.position))
        start = Position.from_board(board, variant, turn=_colour(args.to_move),
                                    **{k: v for k, v in seating.items() if k != "first"})
    referee = Referee(variant, start=start, **seating) if start is None else Referee(start=start)
    text = read_text(args.observations)
    boards = parse_boards(text)
    if not boards:
        raise BoardTextError(f"{args.observations} holds no boards")
    for board in boards:
        for event in referee.observe(board):
            if args.json:
                print(json.dumps(event.to_json()))
            else:
                print(f"{event.move_number:3d}. {event.message}")
    return 0


def _demo(args: argparse.Namespace) -> int:
    """Play a game between greedy players and show each move: a look at the engine."""
    from .players import make_player

    player = make_player("greedy", seed=args.seed)
    game = Game(get_variant(args.variant), **seating_from_args(args))
    while not game.is_over():
        move = player.choose(game.position, 0.0)
        flipped = game.flips(move)
        game.push(move)
        rolled = f", rolls {' '.join(square_name(s) for s in flipped)}" if flipped else ""
        print(f"{game.ply:2d}. {move.colour.title} plays {move.name}{rolled}")
        if args.boards:
            print(game.position.board_text() + "\n")
    outcome = game.outcome()
    assert outcome is not None
    print()
    print(game.position.board_text())
    print("Balls: " + ", ".join(f"{c.label} {n}" for c, n in outcome.scores.items()))
    print(f"Winner: {outcome.result()}")
    return 0


def _bench_engine(args: argparse.Namespace) -> dict[str, Any]:
    from .bench import bench_engine

    return bench_engine(repeats=args.repeats, quick=args.quick)


# ``rolit bench`` targets: name -> function of the parsed arguments returning
# JSON-ready figures (the caller prints them).
BENCHES: dict[str, Callable[[argparse.Namespace], dict[str, Any]]] = {"engine": _bench_engine}


def _suggest(args: argparse.Namespace) -> int:
    from .board import Board
    from .suggest import suggest

    board = Board.from_text(read_text(args.board_file))
    variant = get_variant(args.variant)
    if board.size != variant.size and args.variant == "classic":
        # The default edition does not fit: follow the board, as render does.
        from .colours import GREY

        variant = get_variant({8: "classic", 6: "junior" if GREY in board.colours() else "quick6", 4: "quick4"}
                              .get(board.size, "classic"))
    seating = {k: v for k, v in seating_from_args(args).items() if k != "first"}
    turn = _colour(args.to_move)
    position = Position.from_board(board, variant, turn=turn, **seating)
    from .players import DEFAULT_ENGINE

    result = suggest(position, time_limit=args.time, engine=args.engine or DEFAULT_ENGINE)
    moves = result.moves[: args.top] if args.top else result.moves
    if args.json:
        data = result.to_json()
        data["moves"] = [m.to_json() for m in moves]
        print(json.dumps(data))
        return 0
    unit = "% win" if result.unit == "win%" else " balls"
    how = "exact result" if result.solved else (f"depth {result.depth}" if result.depth else f"{result.nodes} playouts")
    print(f"{position.turn.title} to move; {result.engine}, {how}, {result.elapsed:.2f} s")
    for rank, m in enumerate(moves, start=1):
        score = f"{m.score:+.1f}{unit}"
        print(f"{rank:2d}. {m.name:4s} {score:>12s}  {m.reason}")
        if len(m.line) > 1:
            print(f"    {'':4s} {'':12s}  then: {' '.join(str(x) for x in m.line[1:])}")
    return 0


def _tournament(args: argparse.Namespace) -> int:
    from .tournament import GameResult, run_tournament

    def progress(r: GameResult) -> None:
        if not args.json:
            seats = " ".join(f"{c}={e}" for c, e in r.seats.items())
            print(f"game {r.index + 1}: {seats} -> {', '.join(r.winners)} ({r.seconds:.0f} s)", file=sys.stderr)

    players = args.players or 2
    result = run_tournament(args.engines.split(","), args.games, args.time, variant=args.variant,
                            players=players, jobs=args.jobs, seed=args.seed, progress=progress)
    if args.json:
        print(json.dumps(result.to_json()))
    else:
        print(result.table())
    return 0


def add_engine_commands(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add perft, replay, referee, demo, suggest and tournament to ``sub``."""
    p = sub.add_parser("perft", help="count the leaves of the move tree from the start")
    p.add_argument("depth", type=int, help="plies to look ahead")
    add_seating_arguments(p)
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.set_defaults(func=_perft)

    p = sub.add_parser("replay", help="check a game record and show the final board and scores")
    p.add_argument("record", help="record file (text or JSON), or - for standard input")
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.set_defaults(func=_replay)

    p = sub.add_parser("referee", help="judge a file of observed boards and print the referee's events")
    p.add_argument("observations", help="board-text file of settled boards, one after another, or - for stdin")
    add_seating_arguments(p)
    p.add_argument("--position", help="board file of the position to start from (default: the start position)")
    p.add_argument("--to-move", help="with --position: the colour whose turn it is")
    p.add_argument("--json", action="store_true", help="one JSON event per line")
    p.set_defaults(func=_referee)

    p = sub.add_parser("demo", help="watch the engine play a game against itself in the terminal")
    add_seating_arguments(p)
    p.add_argument("--seed", type=int, default=None, help="random seed for a repeatable game")
    p.add_argument("--boards", action="store_true", help="print the board after every move")
    p.set_defaults(func=_demo)

    p = sub.add_parser("suggest", help="rank the legal moves of a position, with scores, reasons and expected lines")
    p.add_argument("board_file", help="board-text file of the position, or - for standard input")
    p.add_argument("--to-move", required=True, help="the colour whose turn it is")
    add_seating_arguments(p)
    p.add_argument("--time", type=float, default=1.0, help="seconds to think (default 1; never 10%% more)")
    p.add_argument("--engine", choices=("brs", "paranoid", "mcts"), default=None,
                   help="search engine (default: the strongest measured, see the README)")
    p.add_argument("--top", type=int, default=0, help="show only the best N moves")
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.set_defaults(func=_suggest)

    p = sub.add_parser("tournament", help="play engines against each other and print win rates with 95%% intervals")
    p.add_argument("--engines", default="brs,greedy",
                   help="comma-separated engines or levels: brs, paranoid, mcts, greedy, random, easy, medium, hard "
                        "(fewer than the seats: the last fills the rest; more: every group plays)")
    p.add_argument("--games", type=int, default=20, help="number of games (a multiple of the seats rotates evenly)")
    p.add_argument("--time", type=float, default=1.0, help="seconds per move (default 1)")
    p.add_argument("--variant", choices=list(VARIANTS), default="classic", help="edition (default: classic)")
    p.add_argument("--players", type=int, choices=(2, 3, 4), help="number of players (default: 2)")
    p.add_argument("--jobs", type=int, default=None, help="games at once (default: one per core)")
    p.add_argument("--seed", type=int, default=1, help="random seed of the whole tournament")
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.set_defaults(func=_tournament)
