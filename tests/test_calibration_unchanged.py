"""The colour model's answers kept for cells whose picture has not changed: the same boards, fewer cells classified."""

from __future__ import annotations

import random

import numpy as np
import pytest

from rolit.calibration import BoardReader, calibrate
from rolit.calibration.reader import SEARCH_SURE
from rolit.calibration.unchanged import PICTURE_UNCHANGED, SEARCH_AGAIN, KeptProbabilities, KeptSearch
from rolit.engine import RED, UNKNOWN, Board, Position
from rolit.vision.dataset import random_board, random_hand_over
from rolit.vision.locate import GridFit
from rolit.vision.observation import Observation
from rolit.vision.synthetic.demo import DEMO_PARAMS, demo_game
from rolit.vision.synthetic.params import RenderParams
from rolit.vision.synthetic.renderer import Renderer, render

U8 = np.ndarray


@pytest.fixture(scope="module")
def scene() -> tuple[Renderer, Board, BoardReader]:
    """The demo's camera over a position from the middle of its game, and a reader calibrated on the start."""
    start, _ = render(Position.start("quick6").board(), DEMO_PARAMS, variant="quick6")
    profile = calibrate(start, "quick6")
    board = demo_game().positions()[14].board()
    return Renderer("quick6", DEMO_PARAMS), board, BoardReader("quick6", profile=profile)


def _frame(renderer: Renderer, board: Board, k: int, **kw: object) -> U8:
    return renderer.frame(board, rng=np.random.default_rng([7, k]), **kw)[0]  # type: ignore[arg-type]


def _same_reading(a: Observation, b: Observation) -> bool:
    assert a.board is not None and b.board is not None
    return a.board == b.board and a.status == b.status


def test_a_still_board_keeps_every_answer_and_reads_as_when_every_cell_is_classified(
    scene: tuple[Renderer, Board, BoardReader],
) -> None:
    renderer, board, reader = scene
    afresh = BoardReader("quick6", profile=reader.profile)
    reader.reset()
    classified = []
    for k in range(6):
        image = _frame(renderer, board, k)  # each frame its own sensor noise
        kept = reader.read(image)
        classified.append(reader.kept.classified)
        afresh.kept.forget()
        every = afresh.read(image)
        assert afresh.kept.classified == 36
        assert _same_reading(kept, every)
        assert kept.board == board  # and it is the board there
        # The confidences kept are the model's on an earlier frame of the same picture.
        for sq, confidence in every.cell_confidence.items():
            assert kept.cell_confidence[sq] == pytest.approx(confidence, abs=0.02)
    assert classified[0] == 36 and classified[1:] == [0] * 5


def test_a_ball_put_down_is_classified_afresh_and_read(scene: tuple[Renderer, Board, BoardReader]) -> None:
    renderer, board, reader = scene
    reader.reset()
    reader.read(_frame(renderer, board, 0))
    empty = next(sq for sq, cell in board.items() if cell is None)
    after = board.replace({empty: RED})
    obs = reader.read(_frame(renderer, after, 1))
    assert 1 <= reader.kept.classified <= 4  # the cell, and perhaps a neighbour its ball's side shows in
    assert obs.board is not None and obs.board[empty] == RED


def test_where_a_hand_is_seen_every_cell_is_classified_afresh(scene: tuple[Renderer, Board, BoardReader]) -> None:
    # Its shadow may darken the cells beside it too little to count as changed, yet enough to lower the model's
    # confidence there.
    renderer, board, reader = scene
    afresh = BoardReader("quick6", profile=reader.profile)
    reader.reset()
    for k in range(2):
        for r in (reader, afresh):
            r.read(_frame(renderer, board, k))
    assert reader.kept.classified == 0
    hand = random_hand_over(board.size, random.Random(3), np.random.default_rng(3))
    image, truth = renderer.frame(board, hand=hand, rng=np.random.default_rng([7, 9]))
    obs = reader.read(image)
    assert reader.kept.classified == 36
    afresh.kept.forget()
    assert _same_reading(obs, afresh.read(image))
    assert obs.board is not None and obs.unknown
    assert all(cell is UNKNOWN or cell == truth.board[sq] for sq, cell in obs.board.items())
    # The hand gone, the frame after is classified afresh too (the answers kept were a hand's), then kept again.
    counts = []
    for k in (10, 11):
        reader.read(_frame(renderer, board, k))
        counts.append(reader.kept.classified)
    assert counts == [36, 0]


def test_learning_and_a_moved_grid_classify_every_cell_afresh(scene: tuple[Renderer, Board, BoardReader]) -> None:
    renderer, board, reader = scene
    reader.reset()
    reader.read(_frame(renderer, board, 0))
    reader.read(_frame(renderer, board, 1))
    assert reader.kept.classified == 0
    reader.learn(board)  # the references move: every cell's readings are compared with new ones
    reader.read(_frame(renderer, board, 2))
    assert reader.kept.classified == 36
    reader.set_manual_corners(np.asarray(reader.read(_frame(renderer, board, 3)).corners) + 6.0)
    reader.read(_frame(renderer, board, 4))
    assert reader.kept.classified == 36
    reader.set_manual_corners(None)


def test_kept_answers_follow_each_cell_not_the_last_frame() -> None:
    kept = KeptProbabilities()
    corners = np.array([[0.0, 0.0], [80.0, 0.0], [80.0, 80.0], [0.0, 80.0]])
    calls: list[int] = []

    def classify(rows: np.ndarray) -> np.ndarray:
        calls.append(int(rows.sum()))
        return np.tile([0.25, 0.75], (int(rows.sum()), 1))

    means = np.zeros((4, 6))
    kept.probabilities(corners, means, classify)
    # A slow change adds up: three frames of 2 units are compared with the frame classified, not the one before.
    for step in (2.0, 4.0, 6.0):
        means[2, 1] = step
        kept.probabilities(corners, means, classify)
    assert calls == [4, 1]
    # A grid moved by a tenth of a cell: every cell afresh.
    kept.probabilities(corners + np.array([4.0, 0.0]), means, classify)
    assert calls == [4, 1, 4]
    kept.forget()
    out = kept.probabilities(corners, means, classify)
    assert calls == [4, 1, 4, 4] and out.shape == (4, 2)
    # Where the answers, kept or fresh, call for it, every cell is classified afresh.
    means[0, 0] = 50.0
    kept.probabilities(corners, means, classify, afresh=lambda probs: False)
    assert calls == [4, 1, 4, 4, 1]
    # That is, where some cell changed: a still picture keeps every answer (a still hand, or the far cells from
    # low down the model takes for one).
    hand = lambda probs: bool(probs[0, 1] > 0.5)  # noqa: E731
    kept.probabilities(corners, means, classify, afresh=hand)
    assert calls == [4, 1, 4, 4, 1]
    means[0, 0] = 0.0
    kept.probabilities(corners, means, classify, afresh=hand)
    assert calls == [4, 1, 4, 4, 1, 4]  # every cell at once: the changed one is not classified twice
    assert kept.classified == 4


def test_the_glints_are_looked_for_again_only_when_a_cell_is_classified_afresh(
    scene: tuple[Renderer, Board, BoardReader], monkeypatch: pytest.MonkeyPatch
) -> None:
    from rolit.calibration import reader as reader_module

    renderer, board, reader = scene
    assert reader.profile.seen_exactly  # the glints are looked for on this grid
    looked: list[int] = []
    trusted = reader_module.trusted_by_glints

    def counted(*args: object) -> object:
        looked.append(1)
        return trusted(*args)  # type: ignore[arg-type]

    monkeypatch.setattr(reader_module, "trusted_by_glints", counted)
    reader.reset()
    reads = [reader.read(_frame(renderer, board, k)) for k in range(3)]
    assert len(looked) == 1 and reads[1].board == reads[2].board == reads[0].board
    empty = next(sq for sq, cell in board.items() if cell is None)
    obs = reader.read(_frame(renderer, board.replace({empty: RED}), 3))
    assert len(looked) == 2 and obs.board is not None and obs.board[empty] == RED


def test_a_grid_a_search_only_just_took_is_kept_while_the_picture_stays_the_same(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # A full board from 35 degrees up: the search only just takes its grid, so the reader does not follow it.
    # It used to search every frame (300-500 ms at 1280x720), and half of a still board's noisy frames found none.
    board = random_board(random.Random(6), "classic")
    params = RenderParams(size=(960, 540), elevation=35.0, scene_seed=6)
    renderer = Renderer("classic", params)
    frames = [renderer.frame(board, rng=np.random.default_rng([6, k]))[0] for k in range(5)]
    reader = BoardReader("classic")
    searches: list[GridFit | None] = []
    search = reader.locator.locate

    def counted(image: U8) -> GridFit | None:
        searches.append(search(image))
        return searches[-1]

    monkeypatch.setattr(reader.locator, "locate", counted)
    still = iter(frames)  # the same board, each frame with its own sensor noise
    # A frame whose search found nothing is searched again (the next may find it).
    first = next(seen for seen in map(reader.read, still) if seen.corners is not None)
    assert 0.0 < first.quality < SEARCH_SURE and searches[-1] is not None
    found = len(searches)
    assert found <= 3 and all(fit is None for fit in searches[:-1])
    for frame in still:
        seen = reader.read(frame)
        assert seen.corners == first.corners and seen.board is not None and not seen.moved
    assert len(searches) == found
    bumped = Renderer("classic", params.nudged(2.0, 3.0, 1.0)).frame(board, rng=np.random.default_rng(9))[0]
    reader.read(bumped)  # the camera moved: the picture is searched again
    assert len(searches) == found + 1
    reader.reset()
    reader.read(frames[-1])
    assert len(searches) == found + 2


def test_a_kept_search_is_recalled_only_for_the_same_picture() -> None:
    kept, fit = KeptSearch(), GridFit(np.zeros((4, 2)), np.eye(3), 0.1, 0.1)
    ys, xs = np.mgrid[0:120, 0:160]
    picture = np.repeat((60 + 120 * ((ys // 32 + xs // 32) % 2)).astype(np.uint8)[:, :, None], 3, axis=2)  # squares
    assert kept.recall(picture) is None
    kept.remember(picture, fit)
    noise = np.random.default_rng(1).normal(0.0, 8.0, picture.shape)  # far noisier than a camera, pixel by pixel
    assert kept.recall(np.clip(picture + noise, 0, 255).astype(np.uint8)) is fit
    for moved in (np.roll(picture, 16, axis=1), picture[:112], (picture + int(PICTURE_UNCHANGED) + 2)):
        assert kept.recall(moved) is None
    changed = picture.copy()
    changed[40:56, 64:80] = 255  # one block, as a ball put down
    assert kept.recall(changed) is None
    kept.forget()
    assert kept.recall(picture) is None


def test_a_still_picture_is_searched_again_ever_more_seldom() -> None:
    # A search of another noisy frame may take a surer grid; where it finds none, the kept grid stays.
    kept, fit = KeptSearch(), GridFit(np.zeros((4, 2)), np.eye(3), 0.1, 0.1)
    picture = np.full((64, 64, 3), 90, np.uint8)
    kept.remember(picture, fit)
    recalled = [kept.recall(picture) for _ in range(8 * SEARCH_AGAIN)]
    due = [k + 1 for k, found in enumerate(recalled) if found is None]
    assert due == [SEARCH_AGAIN, 2 * SEARCH_AGAIN, 4 * SEARCH_AGAIN, 8 * SEARCH_AGAIN]
    assert all(found is fit for found in recalled if found is not None)
    surer = GridFit(np.ones((4, 2)), np.eye(3), 0.3, 0.3)
    kept.remember(picture, surer)  # found on a search of the same picture: searched again as seldom as it was
    assert all(kept.recall(picture) is surer for _ in range(8 * SEARCH_AGAIN - 1))
    assert kept.recall(picture) is None
    picture[:16, :16] = 200  # a new picture: soon searched again
    kept.remember(picture, fit)
    assert [kept.recall(picture) is fit for _ in range(SEARCH_AGAIN)] == [True] * (SEARCH_AGAIN - 1) + [False]
