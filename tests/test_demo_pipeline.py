"""The whole live pipeline on the built-in demo: rendered frames -> board reader -> stabiliser -> referee.

No ground truth is used on the way: the synthetic camera's frames are read as a
webcam's would be, with the same steps as the table page's vision worker (an
unsure cell is taken when the reader's guess is what the game expects). The
referee must record the demo game's moves in order and raise every kind of flag
the demo stages, and nothing else.
"""

from __future__ import annotations

import pytest
from conftest import REPORT_LINES

from rolit.calibration import BoardReader
from rolit.engine import Event, Referee
from rolit.vision.observation import Observation
from rolit.vision.stabiliser import Stabiliser
from rolit.vision.synthetic.demo import demo_clip

STAGED = ["missed_capture", "wrong_flips", "out_of_turn", "wrong_flips", "takeback"]


def _play(fps: float, max_moves: int | None) -> tuple[Referee, list[str], int]:
    clip = demo_clip(size=(640, 360), fps=fps, max_moves=max_moves)
    game = clip.game
    reader = BoardReader(game.variant)
    stabiliser = Stabiliser(hold=0.25, min_frames=3)
    referee = Referee(game.variant, order=game.order, grace=4.0)
    kinds: list[str] = []
    frames = 0
    for image, _truth, frame in clip:
        frames += 1
        seen = reader.read(image)
        likely = referee.likely_boards() + ([stabiliser.last.board] if stabiliser.last else [])
        seen = Observation(seen.filled_from(likely), seen.corners, quality=seen.quality, status=seen.status)
        settled = stabiliser.push(seen, frame.time)
        events: list[Event] = referee.observe(settled.board, now=frame.time) if settled else referee.tick(frame.time)
        kinds += [e.type for e in events]
    return referee, kinds, frames


def test_demo_through_the_real_pipeline() -> None:
    referee, kinds, frames = _play(fps=6, max_moves=12)
    flags = [k for k in kinds if k not in ("move", "board_fixed", "game_over")]
    REPORT_LINES.append(f"demo through the real pipeline (12 moves): {frames} frames, events {kinds}")
    assert flags == STAGED
    game = demo_clip(max_moves=12).game
    assert referee.game.moves == game.moves[: referee.game.ply] and referee.game.ply >= 11


@pytest.mark.slow
def test_the_whole_demo_game_through_the_real_pipeline() -> None:
    referee, kinds, frames = _play(fps=10, max_moves=None)
    flags = [k for k in kinds if k not in ("move", "board_fixed", "game_over")]
    REPORT_LINES.append(f"the whole demo game through the real pipeline: {frames} frames, flags {flags}")
    assert flags == STAGED
    assert referee.game.is_over() and referee.game.moves == demo_clip().game.moves
