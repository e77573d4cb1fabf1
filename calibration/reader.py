"""The board reader: camera frames in, observed boards out.

:class:`BoardReader` runs the whole pipeline on one frame: find (or track) the
grid (:mod:`rolit.vision.locate`), read every cell where its ball's top appears
(:mod:`rolit.vision.features`), classify the readings with the colour model
(:mod:`.model`) corrected by the camera's profile (:mod:`.profile`), and return
an :class:`~rolit.vision.observation.Observation` whose board has unknown cells
wherever a hand is or the model is not sure.

:func:`calibrate` fits a profile from one frame of the start position.
"""

from __future__ import annotations

import logging
import time
from datetime import UTC, datetime

import numpy as np
import numpy.typing as npt

from rolit.engine import UNKNOWN, Board, Cell, Position, Square, Variant, get_variant
from rolit.vision.features import CellSamples, features_from_lab, sample_cells
from rolit.vision.locate import GridFit, Locator, grid_homography, order_corners
from rolit.vision.markers import find_marker_corners
from rolit.vision.observation import Observation

from .errors import CalibrationError
from .model import EMPTY, HIDDEN, LABELS, ColourModel, Reading, default_model, reading_from
from .profile import Profile

__all__ = ["BoardReader", "calibrate", "board_square", "image_cell"]

log = logging.getLogger(__name__)

F64 = npt.NDArray[np.float64]
U8 = npt.NDArray[np.uint8]

# Frames the tracked grid may look wrong (a hand, a blur) before the board is searched for again.
WEAK_FRAMES = 20

# Confidence needed to trust a cell, without and with a calibrated profile.
THRESHOLD_DEFAULT = 0.85
THRESHOLD_CALIBRATED = 0.7


def board_square(col: int, row: int, n: int, rotation: int) -> Square:
    """The board square of image cell (col, row) when the board is turned ``rotation`` quarter turns."""
    for _ in range(rotation % 4):
        col, row = n - 1 - row, col
    return row * 8 + col


def image_cell(sq: Square, n: int, rotation: int) -> tuple[int, int]:
    """The image cell (col, row) of a board square (the inverse of :func:`board_square`)."""
    col, row = sq % 8, sq // 8
    for _ in range(rotation % 4):
        col, row = row, n - 1 - col
    return col, row


class BoardReader:
    """Reads the boards of one camera.

    >>> reader = BoardReader("quick6")
    >>> reader.variant.size
    6
    """

    def __init__(
        self,
        variant: str | Variant = "classic",
        profile: Profile | None = None,
        model: ColourModel | None = None,
    ) -> None:
        self.variant = get_variant(variant)
        self.profile = profile if profile is not None else Profile(self.variant.name)
        self._model = model if model is not None else default_model()
        self.locator = Locator(self.variant.size)
        self._corners: F64 | None = None
        # The last grid found with confidence, kept through hands and blur; a new
        # search only when it has looked wrong for a while (the board moved).
        self._anchor: GridFit | None = None
        self._weak = 0
        self._manual: F64 | None = (
            np.asarray(self.profile.corners, np.float64) if self.profile.corners is not None else None
        )
        self.last_samples: CellSamples | None = None
        self._shape: tuple[int, int] | None = None
        self._refound = False  # the next grid found counts as moved (the picture changed size)

    @property
    def model(self) -> ColourModel:
        """The colour model (the default one unless given)."""
        return self._model

    def reset(self) -> None:
        """Forget the tracked grid (the next frame searches the whole picture)."""
        self._corners = None
        self._anchor = None
        self._weak = 0

    def set_manual_corners(self, corners: npt.ArrayLike | None) -> None:
        """Use these grid corners (tl, tr, br, bl image pixels) instead of finding the board.

        ``None`` goes back to finding it.
        """
        if corners is None:
            self._manual = None
            self.profile.corners = None
            return
        c = np.asarray(corners, np.float64)
        if c.shape != (4, 2) or not np.all(np.isfinite(c)):
            raise CalibrationError("corners must be four points [x, y]")
        self._manual = order_corners(c)
        self.profile.corners = self._manual.tolist()

    def locate(self, image: U8) -> GridFit | None:
        """Where the grid is in ``image`` (manual corners, tracking, or a full search)."""
        n = self.variant.size
        if self._manual is not None:
            return GridFit(self._manual, grid_homography(self._manual, n), 1.0, 1.0)
        anchor = self._anchor
        if anchor is not None:
            tracked = self.locator.track(image, anchor.corners)
            if tracked is not None and tracked.score >= 0.6 * anchor.score:
                self._weak = 0
                if tracked.score >= anchor.score * 0.9:
                    self._anchor = GridFit(tracked.corners, tracked.homography, anchor.quality, anchor.score)
                return tracked
            self._weak += 1
            if self._weak < WEAK_FRAMES:
                # Probably a hand over the board: keep the grid, and let the cells say what they can.
                return GridFit(anchor.corners, anchor.homography, 0.5 * anchor.quality, anchor.score)
        fit = self.locator.locate(image)
        if fit is not None and fit.quality >= 0.5:
            self._anchor, self._weak = fit, 0
        if fit is None:
            # Printed corner markers, when the board cannot be found by itself.
            marked = find_marker_corners(image)
            if marked is not None:
                return GridFit(marked, grid_homography(marked, n), 1.0, 1.0)
        return fit

    def read(self, image: U8) -> Observation:
        """Read one BGR frame."""
        t0 = time.perf_counter()
        if image.ndim != 3 or image.shape[2] != 3 or image.shape[0] < 32 or image.shape[1] < 32:
            raise CalibrationError("a frame must be a colour image at least 32 pixels wide and high")
        if image.shape[:2] != self._shape:
            # Another camera, or the same at another resolution: nothing tracked still holds.
            if self._shape is not None:
                log.info("frame size changed from %s to %s: searching the whole picture", self._shape, image.shape[:2])
                self.reset()
                self._refound = True
            self._shape = (int(image.shape[0]), int(image.shape[1]))
        previous = self._corners
        fit = self.locate(image)
        t1 = time.perf_counter()
        if fit is None:
            self._corners = None
            return Observation(None, status="no_board", timings={"locate": t1 - t0})
        n = self.variant.size
        cell = float(np.linalg.norm(fit.corners[1] - fit.corners[0])) / n
        shift = float(np.max(np.linalg.norm(fit.corners - previous, axis=1))) if previous is not None else 0.0
        moved = shift > 0.5 * cell or self._refound
        self._refound = False
        self._corners = fit.corners
        samples = sample_cells(image, fit.homography, n)
        self.last_samples = samples
        t2 = time.perf_counter()
        features = features_from_lab(samples)
        probs = self.model.probabilities(features, self.variant)
        reading = reading_from(probs, THRESHOLD_DEFAULT)
        if self.profile.calibrated:
            reading = _with_calibration(reading, probs, samples, self.profile.class_means)
        t3 = time.perf_counter()
        cells: list[Cell] = [None] * (n * n)
        points: dict[Square, tuple[float, float]] = {}
        confidence: dict[Square, float] = {}
        guesses: dict[Square, Cell] = {}
        hidden = False
        for i in range(n * n):
            row, col = divmod(i, n)
            sq = board_square(col, row, n, self.profile.rotation)
            if reading.known[i]:
                cells[(sq // 8) * n + sq % 8] = reading.cell(i)
            else:
                cells[(sq // 8) * n + sq % 8] = UNKNOWN
                hidden |= bool(reading.labels[i] == HIDDEN)
            if reading.labels[i] != HIDDEN:
                guesses[sq] = reading.cell(i)
            points[sq] = (float(samples.points[i, 0]), float(samples.points[i, 1]))
            confidence[sq] = float(reading.confidence[i])
        board = Board(n, cells)
        corners = tuple((float(x), float(y)) for x, y in fit.corners)
        status = "occluded" if hidden else "ok"
        return Observation(
            board,
            corners=(corners[0], corners[1], corners[2], corners[3]),
            cell_points=points,
            cell_confidence=confidence,
            quality=fit.quality,
            status=status,
            moved=bool(moved),
            cell_guess=guesses,
            timings={"locate": t1 - t0, "sample": t2 - t1, "classify": t3 - t2},
        )

    def learn(self, board: Board) -> None:
        """Follow the light: move the calibrated colours towards those of a board the referee accepted."""
        samples = self.last_samples
        if samples is None or board.size != self.variant.size or not self.profile.calibrated:
            return
        for key, mean in _class_means(samples, board, self.variant.size, self.profile.rotation).items():
            old = self.profile.class_means.get(key)
            blended = mean if old is None else 0.8 * np.asarray(old) + 0.2 * mean
            self.profile.class_means[key] = [float(x) for x in blended]


# How far (Lab units) this camera's reading of a colour may stray from its calibrated mean.
CALIBRATION_SPREAD = 9.0


def _with_calibration(reading: Reading, probs: F64, samples: CellSamples, means: dict[str, list[float]]) -> Reading:
    """A second opinion from this camera's own colours.

    The model knows every light it was trained on; the calibration knows this
    one. Where the reading is close to the calibrated colour of the model's
    answer, a less sure answer is trusted (down to :data:`THRESHOLD_CALIBRATED`);
    answers the model alone is sure of stand either way. So calibration turns
    doubtful cells into answers only when both agree.
    """
    top = np.median(samples.top, axis=1)
    known = reading.known.copy()
    for i, label in enumerate(reading.labels):
        key = LABELS[int(label)]
        if label == HIDDEN or key not in means:
            continue
        d = float(np.sqrt(np.sum((top[i] - np.asarray(means[key])) ** 2 * np.array([0.5, 1.0, 1.0]))))
        agree = d < 2.5 * CALIBRATION_SPREAD
        p = reading.confidence[i]
        known[i] = (p >= THRESHOLD_CALIBRATED and agree) or p >= THRESHOLD_DEFAULT
    return Reading(reading.labels, reading.confidence, known)


def _class_means(samples: CellSamples, board: Board, n: int, rotation: int) -> dict[str, F64]:
    """The mean top colour (Lab) of each content of ``board`` in these readings."""
    groups: dict[str, list[F64]] = {}
    for i in range(n * n):
        row, col = divmod(i, n)
        cell = board[board_square(col, row, n, rotation)]
        if cell is UNKNOWN:
            continue
        key = "empty" if cell is None else LABELS[int(cell) + 1]
        groups.setdefault(key, []).append(np.median(samples.top[i], axis=0))
    return {k: np.asarray(np.mean(v, axis=0), np.float64) for k, v in groups.items()}


def calibrate(image: U8, variant: str | Variant = "classic", profile: Profile | None = None) -> Profile:
    """Fit a profile from one frame of the start position (the four centre balls, the rest empty).

    The start position also fixes the board's orientation in the picture.
    Raises :class:`CalibrationError` when no board is found or the frame does
    not show the start position.
    """
    v = get_variant(variant)
    reader = BoardReader(v, profile=Profile(v.name, corners=profile.corners if profile else None))
    fit = reader.locate(image)
    if fit is None:
        raise CalibrationError("no board found in the calibration picture")
    n = v.size
    samples = sample_cells(image, fit.homography, n)
    probs = reader.model.probabilities(features_from_lab(samples), v)
    start = Position.start(v).board()
    best: tuple[float, int] | None = None
    for rotation in range(4):
        labels = _expected_labels(start, n, rotation)
        score = float(np.sum(np.log(probs[np.arange(n * n), labels] + 1e-6)))
        if best is None or score > best[0]:
            best = (score, rotation)
    assert best is not None
    rotation = best[1]
    observed = {k: [float(x) for x in m] for k, m in _class_means(samples, start, n, rotation).items()}
    result = Profile(
        v.name,
        rotation=rotation,
        corners=profile.corners if profile else None,
        class_means=observed,
        created=datetime.now(UTC).isoformat(timespec="seconds"),
    )
    check = BoardReader(v, profile=result, model=reader.model).read(image)
    if check.board is None:
        raise CalibrationError("the board was lost while calibrating; try again with a steadier picture")
    wrong = [sq for sq, cell in start.items() if check.board[sq] is not UNKNOWN and check.board[sq] != cell]
    centre_known = all(check.board[sq] is not UNKNOWN for sq, cell in start.items() if cell is not None)
    if wrong or not centre_known or len(check.board.unknown_squares()) > n * n // 10:
        raise CalibrationError(f"the picture does not show the start position ({_differences(check.board, start)})")
    return result


def _expected_labels(start: Board, n: int, rotation: int) -> npt.NDArray[np.int64]:
    labels = np.zeros(n * n, np.int64)
    for i in range(n * n):
        row, col = divmod(i, n)
        cell = start[board_square(col, row, n, rotation)]
        labels[i] = EMPTY if cell is None else int(cell) + 1  # type: ignore[arg-type]
    return labels


def _differences(seen: Board, want: Board) -> str:
    from rolit.engine import square_name

    diffs = [square_name(sq) for sq, cell in want.items() if seen[sq] != cell]
    if not diffs:
        return "read as it should be"
    return "read differently or not sure: " + ", ".join(diffs[:8]) + (" ..." if len(diffs) > 8 else "")
