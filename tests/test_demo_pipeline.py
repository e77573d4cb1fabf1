"""The whole live pipeline on the built-in demo: rendered frames -> board reader -> stabiliser -> referee.

No ground truth is used on the way: the synthetic camera's frames are read as a
webcam's would be. The referee must record the demo game's moves in order and
raise every kind of flag the demo stages.
"""

from __future__ import annotations

from conftest import REPORT_LINES

from rolit.calibration import BoardReader
from rolit.engine import Referee
from rolit.vision.stabiliser import Stabiliser
from rolit.vision.synthetic.demo import demo_clip


def test_demo_through_the_real_pipeline() -> None:
    clip = demo_clip(size=(640, 360), fps=6, max_moves=12)
    game = clip.game
    reader = BoardReader(game.variant)
    stabiliser = Stabiliser(hold=0.25, min_frames=3)
    referee = Referee(game.variant, order=game.order, grace=4.0)
    seen: list[tuple[float, str]] = []
    frames = 0
    for image, _truth, frame in clip:
        frames += 1
        settled = stabiliser.push(reader.read(image), frame.time)
        events = referee.observe(settled.board, now=frame.time) if settled else referee.tick(frame.time)
        seen += [(frame.time, e.type) for e in events]
    kinds = [kind for _, kind in seen]
    flags = [k for k in kinds if k not in ("move", "board_fixed", "game_over")]
    REPORT_LINES.append(f"demo through the real pipeline: {frames} frames, events {kinds}")
    assert flags == ["missed_capture", "wrong_flips", "out_of_turn", "wrong_flips", "takeback"]
    assert referee.game.moves == game.moves[: referee.game.ply] and referee.game.ply >= 11
