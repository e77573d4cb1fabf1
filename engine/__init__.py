"""The Rolit rules engine: positions, moves, games, records. Standard library only.

>>> from rolit.engine import Game, RED
>>> game = Game("classic", players=4)
>>> [str(m) for m in game.legal_moves()]
['R:f4', 'R:d6', 'R:f6']
>>> str(game.push("f4")), game.turn.label
('R:f4', 'yellow')
"""

from .board import UNKNOWN, Board, Cell, Unknown, parse_board, parse_boards
from .colours import BLUE, COLOURS, GREEN, GREY, RED, YELLOW, Colour
from .errors import (
    BoardTextError,
    GameOverError,
    IllegalMoveError,
    RecordError,
    RolitError,
    SetupError,
    SquareError,
)
from .evaluate import Evaluator
from .game import Game, Match, PlayedMove, RoundResult, Standing, player_totals
from .mcts import MCTS
from .perft import perft, perft_counts
from .players import DEFAULT_ENGINE, ENGINES, LEVELS, EngineRunner, Player, make_player
from .position import Move, Outcome, Position
from .record import load_record, read_record, record_from_json, record_to_json, write_record
from .referee import Event, Pending, Referee
from .search import RootMove, Searcher, SearchResult
from .squares import Square, parse_square, square, square_col, square_name, square_row
from .suggest import MoveSuggestion, Suggestion, explain, suggest
from .tournament import TournamentResult, run_tournament, wilson_interval
from .variants import CLASSIC, JUNIOR, QUICK4, QUICK6, VARIANTS, Variant, get_variant, standard_order

__all__ = [
    "UNKNOWN", "Board", "Cell", "Unknown", "parse_board", "parse_boards",
    "BLUE", "COLOURS", "GREEN", "GREY", "RED", "YELLOW", "Colour",
    "BoardTextError", "GameOverError", "IllegalMoveError", "RecordError", "RolitError",
    "SetupError", "SquareError",
    "Game", "Match", "PlayedMove", "RoundResult", "Standing", "player_totals",
    "perft", "perft_counts",
    "Move", "Outcome", "Position",
    "Event", "Pending", "Referee",
    "load_record", "read_record", "record_from_json", "record_to_json", "write_record",
    "Square", "parse_square", "square", "square_col", "square_name", "square_row",
    "CLASSIC", "JUNIOR", "QUICK4", "QUICK6", "VARIANTS", "Variant", "get_variant", "standard_order",
    "Evaluator", "MCTS", "RootMove", "SearchResult", "Searcher",
    "DEFAULT_ENGINE", "ENGINES", "LEVELS", "EngineRunner", "Player", "make_player",
    "MoveSuggestion", "Suggestion", "explain", "suggest",
    "TournamentResult", "run_tournament", "wilson_interval",
]
