"""The board reader: camera frames in, observed boards out.

:class:`BoardReader` runs the whole pipeline on one frame: find (or track) the
grid (:mod:`rolit.vision.locate`), read every cell where its ball's top appears
(:mod:`rolit.vision.features`), classify the readings, and return an
:class:`~rolit.vision.observation.Observation` whose board has unknown cells
wherever a hand is or the model is not sure. Uncalibrated, the default colour
model (:mod:`.model`) reads each cell by itself; with a calibrated profile
(:mod:`.profile`) the calibrated model (:mod:`.camera_model`) reads each cell
against what this camera showed of it and of each colour.

:func:`calibrate` fits a profile from one frame of the start position.
"""

from __future__ import annotations

import logging
import math
import time
from collections.abc import Iterator
from datetime import UTC, datetime

import cv2
import numpy as np
import numpy.typing as npt

from rolit.engine import UNKNOWN, Board, Cell, Position, Square, Variant, get_variant, square_name
from rolit.vision.cover import covered_cells, free_points, plastic_unseen, spread
from rolit.vision.features import CellSamples, features_from_lab, sample_cells
from rolit.vision.glints import glints, seen_on_balls_behind
from rolit.vision.gridlines import grown_on_lines, on_lines
from rolit.vision.lattice import cell_centres, scaled, shifted
from rolit.vision.lens import Lens
from rolit.vision.locate import (
    OUTLINE_QUALITY,
    GridFit,
    Locator,
    apply_homography,
    cells_apart,
    grid_homography,
    order_corners,
)
from rolit.vision.markers import find_marker_corners
from rolit.vision.observation import Observation
from rolit.vision.perspective import on_cup_rims, on_cup_template, on_cups
from rolit.vision.plumbline import measure_lens
from rolit.vision.pose import Pose
from rolit.vision.register import ReferenceView, Registration, register
from rolit.vision.shade import flattened

from .camera_model import camera_features, camera_model
from .errors import CalibrationBoardNotFoundError, CalibrationError
from .model import EMPTY, HIDDEN, LABELS, ColourModel, Reading, default_model, reading_from
from .profile import Profile
from .unchanged import KeptProbabilities, KeptReading, KeptSearch, reading_means

__all__ = ["BoardReader", "calibrate", "beside_hands", "board_square", "image_cell", "without_stray_hands"]

log = logging.getLogger(__name__)

F64 = npt.NDArray[np.float64]
U8 = npt.NDArray[np.uint8]

# Frames the tracked grid may look wrong (a hand, a blur) before the board is searched for again.
WEAK_FRAMES = 20
# Least lattice score for the grid seen at calibration to be taken again without a search.
SEEN_ACCEPT = 0.5
# Cells the picture round the calibration grid may move (a corner, registered) before the camera counts as moved.
CAMERA_MOVED = 0.25
# Cells it may move with the camera still where it was at calibration (see BoardReader._holds).
STILL = 0.1
# Cells from a grid held (see BoardReader._holds) within which a search's grid is taken to be the same board.
HELD_REACH = 1.0
# A search's grid of lower quality gives way to the calibration grid while the camera stays still (see locate).
SEARCH_SURE = 0.5
# So does one further than this (cells) from it, whatever its quality: a full board's balls from low down make a
# lattice in another perspective (development scene 3011, straightened by its lens: 1.5 cells out, quality 0.85).
STILL_REACH = 0.75
REGISTER_EVERY = 5  # frames, while the grid followed is lost (see BoardReader.locate)

# Confidence needed to trust a cell, without and with a calibrated profile. The calibrated model, fitted
# for longer on more readings, is surer of most cells, the wrong ones too: fitted on 2,699 pairs it needed
# 99.5%; on 3,806 pairs, at 99% it read fewer cells wrong and unknown on development scenes 0-339 than
# the model before at 99.5% (wrong 23 to 18, unknown 404 to 347 with the camera still).
THRESHOLD_DEFAULT = 0.97
THRESHOLD_CALIBRATED = 0.99
# Grid quality from which an uncalibrated reading drops a stray hand's chance too (see without_stray_hands).
SURE_GRID = 0.8
# A grid the lattice barely locks on (quality below WEAK_GRID) is half a cell or a cell out far more often,
# and then reads a neighbour's ball or the frame confidently: its cells are trusted only at THRESHOLD_WEAK_GRID
# (or the model's own threshold, when higher).
# On development scenes (uncalibrated, game frames) grids below 0.25 held 27 of the 82 wrong cells in 8% of
# the cells read; at 99% they hold 8.
WEAK_GRID, THRESHOLD_WEAK_GRID = 0.25, 0.99
# A grid only the board's outline placed at calibration lies 0.2 cells from the cups at the median, and more than
# 0.35 in one in seven (development start positions 340-999: black, navy and dim boards whose cups do not show). On
# each game frame it is moved onto the balls' highlights (see Locator.onto_highlights) where the lattice of cups
# and balls locks on at least this much better there: on the development game frames 340-679 whose grids the
# outline placed, 10 moved nearer the true cups by 0.05 cells or more, 1 further.
HIGHLIGHTS_GAIN = 0.05
HIGHLIGHTS_KEPT = 0.05  # cells the frames' grid may move before the balls are looked for again
# Such a grid is also aligned cell by cell on each game frame (Locator.align, as the full search aligns its
# guesses), and that taken where it gains more, when it moves less than ALIGNED_REACH cells and the lattice then
# locks on at least ALIGNED_SURE. The lattice's quality alone does not tell a grid nearer the cups: on the 101
# development game frames 0-599 whose grids the outline placed, an aligned grid that locked on less than that lay
# further from them (512: 0.37 cells against 0.17; 109 nudged: 0.54 against 0.13, four cells wrong); above it,
# four more boards were read exactly with the camera still, 11 and 24 fewer cells unknown (still and nudged), and
# one more cell wrong nudged (112, beside a hand).
ALIGNED_SURE, ALIGNED_REACH = 0.8, 0.5
# Beside a cell a hand covers, a cell is trusted only at this confidence: a hand reaches further
# than the cells it clearly covers, and a fingertip over a cup can look like a ball.
THRESHOLD_BESIDE_HAND = 0.99
# A hand is a large thing: a cell less hand-like than HAND_STRAY, none of whose neighbours is at least
# HAND_LIKELY hand-like, is not under one, whatever small chance of a hand the model gives it.
HAND_STRAY, HAND_LIKELY = 0.2, 0.5
# And a hand reaches in over the board's edge: a cell less than HAND_LIKELY hand-like that no chain of cells at
# least HAND_REACH hand-like joins to the grid's outer cells is not under one. On development game frames 0-599
# (calibrated, camera still and nudged) every cell under a hand was joined so, and 27 and 36 such patches lay where
# no hand was. A cell likely a hand by itself keeps its chance, so that its neighbours stay doubtful: uncalibrated,
# beside one (a cup the model took for a hand at 87%, development scene 335) a cup was read as a ball at 98.6%.
HAND_REACH = 0.1
# Junior's grey ball is read against empty cups of much its colour, and the calibrated model hedges between the
# two where it is right: on 793 fresh calibrated renders (seeds 50,000-50,999, not trained on) its grey answers
# from 95% to 99% were right 28 times of 28 (from 90% to 95%, 12 of 13; the other colours' from 97% to 99%,
# 130 of 134). So on a grid that locks on more than barely, grey is trusted from GREY_TRUSTED.
GREY_TRUSTED = 0.95
GREY = LABELS.index("grey")


def without_stray_hands(probs: F64, n: int) -> F64:
    """``probs`` (an n x n grid of cells, row-major, one column per label) with the chance of a hand dropped,
    and the rest made to add up to one again, in cells no hand can be over.

    A hand over the board covers several cells, and reaches in from its edge;
    the model, reading one cell at a time, gives a few percent to a hand in a
    dim or oddly lit cell, which alone made the cell unknown. Cells near one
    that is likely under a hand keep it (a fingertip reaches past the cells
    clearly covered), as does a cell that looks fairly like a hand by itself,
    unless no chain of cells at all like a hand joins it to the grid's edge,
    over which every hand reaches in. A cell likely a hand keeps it anywhere.

    >>> import numpy as np
    >>> p = np.zeros((4, 7)); p[:, EMPTY] = 0.94; p[:, HIDDEN] = 0.06
    >>> without_stray_hands(p, 2)[:, EMPTY].round(3).tolist()
    [1.0, 1.0, 1.0, 1.0]
    >>> p[0] = 0.0; p[0, HIDDEN] = 1.0
    >>> without_stray_hands(p, 2)[:, EMPTY].round(3).tolist()
    [0.0, 0.94, 0.94, 0.94]
    """
    hand = probs[:, HIDDEN]
    likely = hand >= HAND_LIKELY
    stray = ~likely & ((~_beside(likely, n) & (hand < HAND_STRAY)) | _cut_off(hand >= HAND_REACH, n))
    if not stray.any():
        return probs
    out = probs.copy()
    out[stray, HIDDEN] = 0.0
    out[stray] /= out[stray].sum(axis=1, keepdims=True)
    return out


def _hand_seen(probs: F64) -> bool:
    """Whether any cell is at least :data:`HAND_STRAY` like a hand."""
    return bool(np.any(probs[:, HIDDEN] >= HAND_STRAY))


def beside_hands(reading: Reading, n: int, threshold: float = THRESHOLD_BESIDE_HAND) -> Reading:
    """``reading`` (an n x n grid, row-major) with the cells beside hidden ones trusted only at ``threshold``.

    >>> import numpy as np
    >>> labels = np.array([HIDDEN, EMPTY, EMPTY, EMPTY])
    >>> beside_hands(Reading(labels, np.array([0.9, 0.97, 0.995, 0.97]), labels != HIDDEN), 2).known.tolist()
    [False, False, True, False]
    """
    hidden = reading.labels == HIDDEN
    if not hidden.any():
        return reading
    known = reading.known & ~(_beside(hidden, n) & (reading.confidence < threshold))
    return Reading(reading.labels, reading.confidence, known)


def under_cover(image: U8, fit: GridFit, samples: CellSamples, features: F64, reading: Reading) -> Reading:
    """``reading`` with the cells read as balls that a sleeve or hand of their colour covers taken as hidden
    (see :mod:`rolit.vision.cover`): the plastic round them looks like their top, where round a ball it shows;
    and beside a hand, a ball read where the plastic round it does not show taken as unknown.

    On development game frames 0-339 (camera still) the calibrated reader read 8 cells under a hand as
    balls with confidence, all under a red or green sleeve (scenes 182, 209), and the uncalibrated one a
    blue ball under a green sleeve's edge as green (317); with this, none.
    """
    n = math.isqrt(len(reading.labels))
    balls = reading.known & (reading.labels != EMPTY) & (reading.labels != HIDDEN)
    if not balls.any():
        return reading
    pose = Pose.from_homography(fit.homography, (image.shape[1], image.shape[0]))
    # One look at the points round every cell serves both checks; a ball may stand wherever no cell is surely empty.
    points, free = free_points(pose, n, ~(reading.known & (reading.labels == EMPTY)))
    plastic = np.asarray(samples.plastic, np.float64)
    labels = reading.labels.copy()
    found = covered_cells(image, points, free, balls, features[:, :3], plastic)
    if found.any():
        covered = spread(found, reading.labels, balls, n)
        log.debug("cells %s read as balls lie under something larger (a sleeve?)", np.flatnonzero(covered).tolist())
        labels[covered] = HIDDEN
    hidden = labels == HIDDEN
    if not hidden.any():
        return reading
    doubtful = plastic_unseen(image, points, free, _beside(hidden, n) & balls & ~hidden, plastic)
    return Reading(labels, reading.confidence, reading.known & ~hidden & ~doubtful)


def trusted_by_glints(image: U8, fit: GridFit, probs: F64, reading: Reading) -> Reading:
    """``reading`` with doubtful cells trusted where the lamp's glint settles the doubt (see
    :mod:`rolit.vision.glints`): an empty cup read fairly surely (:data:`GLINT_EMPTY`) with no glint where a ball in
    it would show one, and a ball whose only doubt is an empty cup (:data:`GLINT_BALL`) with one there, read as that
    ball also where the empty cup was read likelier (Junior's grey balls and a grey board's cups look alike).

    From low down an empty cup's reading runs on into the ball behind it, and the models doubt it, its runner-up
    that ball's colour: on good grids most cells left unknown are such cups. Where a glint should stand is found to
    a tenth of a ball or so only on a grid as near the cups (the caller's to judge: calibrated, only where the
    board's lines or the cups' rims placed calibration's grid; uncalibrated, only where the lattice locks on
    surely). A hand over a ball hides its glint, so
    nothing is trusted so in a frame with a hand read anywhere (its fingertips reach past the cells read as a hand:
    development 362, uncalibrated, a ball two cells from them read empty), nor in a cell that looks at all like one.
    """
    n = math.isqrt(len(reading.labels))
    if np.any(reading.labels == HIDDEN):
        return reading
    doubted = ~reading.known & (probs[:, HIDDEN] < GLINT_NO_HAND)
    empty = doubted & (reading.labels == EMPTY) & (reading.confidence >= GLINT_EMPTY)
    # The likeliest ball, read or runner-up to an empty cup: where a glint says a ball stands, it is that one.
    colours = probs.copy()
    colours[:, [EMPTY, HIDDEN]] = -1.0
    colour = colours.argmax(axis=1)
    of_colour = probs[np.arange(len(probs)), colour]
    balls = doubted & (of_colour + probs[:, EMPTY] >= GLINT_BALL)
    if not (empty | balls).any():
        return reading
    found = glints(image, fit.homography, n, reading.known & (reading.labels != EMPTY), empty | balls)
    if found is None:
        return reading
    ball = balls & found.one_there()
    trusted = (empty & found.none_there()) | ball
    if trusted.any():
        log.debug("cells %s trusted by the glints a ball would show", np.flatnonzero(trusted).tolist())
    labels = np.where(ball, colour, reading.labels)
    confidence = np.where(ball, of_colour, reading.confidence)
    return Reading(labels, confidence, reading.known | trusted)


def doubted_by_glints(image: U8, fit: GridFit, reading: Reading) -> Reading:
    """``reading`` with a ball read surely left unknown where its top was read on the ball behind it (see
    :func:`~rolit.vision.glints.seen_on_balls_behind`) and no glint stands where a ball in the cell would show one.

    From low down the line of sight past an empty cup runs on into the ball behind it, and where it meets that
    ball's side in one colour the models read a ball of it surely (development 3023, 3167, 3331: empty cups read as
    the ball behind at 99.3-100%). That ball shows its own glint a cell further on. As for
    :func:`trusted_by_glints`, only on a grid near the cups and with no hand read anywhere.
    """
    n = math.isqrt(len(reading.labels))
    if np.any(reading.labels == HIDDEN):
        return reading
    balls = reading.known & (reading.labels != EMPTY)
    size = (image.shape[1], image.shape[0])
    behind = balls & seen_on_balls_behind(fit.homography, size, n, balls)
    if not behind.any():
        return reading
    found = glints(image, fit.homography, n, balls, behind, least=True)
    if found is None:
        return reading
    doubted = behind & found.none_there()
    if doubted.any():
        log.debug("cells %s read as balls show the ball behind them, with no glint of their own",
                  np.flatnonzero(doubted).tolist())
    return Reading(reading.labels, reading.confidence, reading.known & ~doubted)


# Trusted by the glints (see trusted_by_glints): an empty cup read empty at least GLINT_EMPTY, and a ball whose colour
# and an empty cup together hold at least GLINT_BALL; either only where a hand holds under GLINT_NO_HAND. On
# development 0-599, reading an empty cup from 50% read a ball under a hand as empty (calibrated, 248), and a ball whose
# colour and an empty cup held 97% read three more cells wrong with the camera nudged.
GLINT_EMPTY, GLINT_NO_HAND, GLINT_BALL = 0.8, 0.05, 0.99


def _beside(cells: npt.NDArray[np.bool_], n: int) -> npt.NDArray[np.bool_]:
    """The cells of an n x n grid (row-major) that are, or are next to (diagonals too), one of ``cells``.

    >>> _beside(np.array([True] + [False] * 8), 3).reshape(3, 3).astype(int).tolist()
    [[1, 1, 0], [1, 1, 0], [0, 0, 0]]
    """
    grown = np.pad(cells.reshape(n, n), 1)
    near = np.zeros((n, n), bool)
    for dy in (0, 1, 2):
        for dx in (0, 1, 2):
            near |= grown[dy : dy + n, dx : dx + n]
    return near.ravel()


def _cut_off(cells: npt.NDArray[np.bool_], n: int) -> npt.NDArray[np.bool_]:
    """Those of ``cells`` (an n x n grid, row-major) that no chain of them (diagonals too) joins to the grid's edge.

    >>> ring = np.zeros((5, 5), bool); ring[1:4, 1:4] = True; ring[2, 2] = False
    >>> _cut_off(ring.ravel(), 5).reshape(5, 5).astype(int)[1].tolist()
    [0, 1, 1, 1, 0]
    >>> ring[0, 0] = True
    >>> bool(_cut_off(ring.ravel(), 5).any())
    False
    """
    grid = cells.reshape(n, n)
    _, parts = cv2.connectedComponents(grid.astype(np.uint8), connectivity=8)
    edge = np.unique(np.concatenate((parts[0], parts[-1], parts[:, 0], parts[:, -1])))
    return np.asarray(grid & ~np.isin(parts, edge)).ravel()


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


class _WholePictureNeeded(Exception):
    """Raised by :meth:`BoardReader.locate` on a picture straightened only round the grid followed, once that
    grid is lost: the whole picture is then straightened and searched."""


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
        # The last grid came from a search that only just took it (see locate).
        self._doubtful = False
        self._weak = 0
        # The grid followed is calibration's own, held where registration puts it (see _holds).
        self._held = False
        # Frames in a row the lattice put a held grid elsewhere (see _held_moved).
        self._disputed = 0
        self._manual: F64 | None = (
            np.asarray(self.profile.corners, np.float64) if self.profile.corners is not None else None
        )
        self.last_features: F64 | None = None
        self.last_timings: dict[str, float] = {}
        self._partial = False  # only the picture round the grid followed is straightened (see _followed_box)
        self._shape: tuple[int, int] | None = None
        self._refound = False  # the next grid found counts as moved (the picture changed size)
        # Where the picture round the calibration grid was when the grid followed was taken up.
        self._registration: Registration | None = None
        # The last grid looked at on the balls, and what they made of it (see _on_balls).
        self._looked_on_balls: tuple[F64, GridFit | None] | None = None
        # The colour model's answers for the cells whose picture has not changed (see rolit.calibration.unchanged).
        self.kept = KeptProbabilities()
        # What the glints made of the reading, kept with it (see read).
        self._glinted = KeptReading()
        # What a search found and did not follow, kept while the picture stays the same (see locate).
        self._searched = KeptSearch()

    @property
    def model(self) -> ColourModel:
        """The colour model (the default one unless given)."""
        return self._model

    def reset(self) -> None:
        """Forget the tracked grid (the next frame searches the whole picture)."""
        self._corners = None
        self._anchor = None
        self._weak = 0
        self._held = False
        self._doubtful = False
        self._registration = None
        self._looked_on_balls = None
        self.kept.forget()
        self._glinted.forget()
        self._searched.forget()

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
        """Where the grid is in ``image`` (manual corners, tracking, or a full search).

        A grid found afresh is put in the calibration's corner order and onto its
        grid (see :meth:`_as_calibrated`); a tracked one keeps what it followed.
        """
        n = self.variant.size
        self._doubtful = False
        if self._manual is not None:
            lens = self._lens()
            given = self._manual if lens is None else lens.to_straight(self._manual)
            return self._as_calibrated(GridFit(given, grid_homography(given, n), 1.0, 1.0))
        anchor = self._anchor
        registration: Registration | None = None
        if anchor is None:
            found = self._searched.recall(image)
            if found is not None:
                # The picture a search found a grid it did not follow in, up to the camera's noise: so is the grid.
                self._doubtful = found.quality <= 0.0
                return found
        if anchor is not None:
            tracked = self.locator.track(image, anchor.corners)
            if tracked is not None and tracked.score >= 0.6 * anchor.score:
                self._weak = 0
                if not self._held:
                    if tracked.score >= anchor.score * 0.9:
                        self._anchor = GridFit(tracked.corners, tracked.homography, anchor.quality, anchor.score)
                    return tracked
                moved, registration = self._held_moved(image, tracked, anchor)
                if not moved:
                    # The lattice's alignment wobbles round the grid the lines placed; it is not followed.
                    return GridFit(anchor.corners, anchor.homography, tracked.quality, tracked.score)
                self._anchor, self._held = None, False
                anchor = None
        if anchor is not None:
            self._weak += 1
            # A hand may stay over the board for many frames: the picture round it is looked at on the first
            # such frame (when a bump shows) and every REGISTER_EVERY after, not on each.
            registration = self._register(image) if self._weak % REGISTER_EVERY == 1 else None
            if self._weak < WEAK_FRAMES and not self._camera_moved(registration):
                # Probably a hand over the board: keep the grid, and let the cells say what they can.
                return GridFit(anchor.corners, anchor.homography, 0.5 * anchor.quality, anchor.score)
            # Looked wrong for long enough, or the picture round the board moved (a bumped camera):
            # the grid followed so far no longer holds.
            self._anchor = None
        elif registration is None:
            registration = self._register(image)
        if self._partial:
            raise _WholePictureNeeded
        seen, registered, held = self._seen_grid(image, registration)
        if seen is not None:
            return self._follow(seen, registration, held)
        fit = self.locator.locate(image)
        if fit is None:
            # Printed corner markers, when the board cannot be found by itself.
            marked = find_marker_corners(image)
            if marked is not None:
                return self._as_calibrated(GridFit(marked, grid_homography(marked, n), 1.0, 1.0))
            # The picture round the board is the calibration's, though no lattice shows (a black board
            # whose cups do not show): the grid is where calibration saw it.
            return self._follow(registered, registration) if registered is not None else None
        fit = self._as_calibrated(fit)
        if held and registered is not None and cells_apart(fit.corners, registered.corners, n) < HELD_REACH:
            # The lattice does not lock on where calibration saw the board (a full board from low down, a
            # hand), yet the search finds the board there: the lines placed that grid better than a search.
            return self._follow(self._held_grid(registration, fit.quality, fit.score), registration, held)
        if registered is not None and self._still(registration) and (
            fit.quality < SEARCH_SURE or cells_apart(fit.corners, registered.corners, n) > STILL_REACH
        ):
            # The search only just takes its grid (a full board from low down locks on a cell or half a cell
            # out as readily), or takes one well off calibration's, and the picture round the board is where it
            # was at calibration: so is the board.
            return self._follow(self._calibration_grid(1.0, SEEN_ACCEPT), registration)
        if fit.quality >= SEARCH_SURE:
            self._follow(fit, registration)
        else:
            # Not followed: the next frame is searched again, unless its picture is this one (see KeptSearch).
            self._searched.remember(image, fit)
        # A grid no better than the least a search takes (a slipped or skewed one, from very low down,
        # more often than not): its cells are not trusted, though it says where the board is.
        self._doubtful = fit.quality <= 0.0
        return fit

    def _follow(self, fit: GridFit, registration: Registration | None, held: bool = False) -> GridFit:
        """Follow ``fit`` from the next frame on, taken up where ``registration`` put the calibration grid
        (``held``: ``fit`` is that grid, held where registration puts it)."""
        self._anchor, self._weak, self._registration, self._held = fit, 0, registration, held
        self._disputed = 0
        self._searched.forget()
        return fit

    def _on_seen_grid(self, fit: GridFit) -> bool:
        """Whether ``fit`` is the grid calibration placed exactly (on the board's lines or the cups' rims), held as
        it is while the camera stays still (see :meth:`_holds`).

        Such a grid lies as near the cups as calibration's own, however barely the lattice locks on in the frame
        (a full board from low down): the frame's quality does not judge it.
        """
        seen = self._seen_corners()
        return (
            # Only a grid the lines or the rims placed is ever held (see _holds).
            self._held and self._weak == 0 and seen is not None
            and bool(np.array_equal(fit.corners, np.asarray(seen, np.float64)))
        )

    def _held_moved(self, image: U8, tracked: GridFit, anchor: GridFit) -> tuple[bool, Registration | None]:
        """Whether the camera moved, the held grid ``anchor`` with it, now that the lattice's alignment
        ``tracked`` puts the board elsewhere; and the registration that says so (``None``: none looked at).

        A bumped camera moves the lattice by a quarter of a cell or more
        (:data:`CAMERA_MOVED`), but so does the lattice of a full board from
        low down, drifting off a grid the lines placed and registration
        carried onto the frame to a few hundredths. The picture round the
        board tells them apart; it is looked at on the first frame the lattice
        moves that far, and every :data:`REGISTER_EVERY` after while it stays.
        """
        if cells_apart(tracked.corners, anchor.corners, self.variant.size) < CAMERA_MOVED:
            self._disputed = 0
            return False, None
        self._disputed += 1
        if self._disputed % REGISTER_EVERY != 1:
            return False, None
        registration = self._register(image)
        return registration is None or self._camera_moved(registration), registration

    def _holds(self, registration: Registration | None) -> bool:
        """Whether the grid seen at calibration is read on as it is (where ``registration`` puts it), not aligned
        again: the board's printed lines or the cups' rims placed it (:attr:`Profile.seen_exactly`), and
        ``registration`` found the picture round it.

        Aligned on a game frame's cups and balls, a grid the lines placed to a
        few hundredths of a cell moved by a tenth or two, and from low down
        by half a cell; read on as it is, each empty cup is also read on the
        very pixels calibration read it on. On development game frames 0-339
        this left 50 fewer cells unknown (675 to 625) and none more wrong.
        """
        # Once the camera moved, such a grid is held where registration carries it, however surely the lattice
        # locks on there: on development frames 3000-3199 nudged, registration put it nearer the cups than the
        # lattice's alignment from there on 126 of 130 frames where that locked on at 0.5 or more (0.024 cells
        # at the median, against 0.066); held so, 20 cells fewer were unknown (195 to 175) and 2 fewer wrong.
        # (On 0-999, with the ring followed at 256 pixels, cup rims' grids carried so lay up to 0.67 cells out.)
        return registration is not None and self.profile.seen_exactly

    def _still(self, registration: Registration | None) -> bool:
        """Whether ``registration`` finds the picture round the calibration grid where it was then."""
        seen = self._seen_corners()
        if registration is None or seen is None:
            return False
        return cells_apart(np.asarray(seen, np.float64), registration.corners, self.variant.size) < STILL

    def _held_grid(self, registration: Registration | None, quality: float, score: float) -> GridFit:
        """The grid held: calibration's own while the camera is still, else where ``registration`` puts it."""
        if registration is None or self._still(registration):
            return self._calibration_grid(quality, score)
        corners = registration.corners
        return GridFit(corners, grid_homography(corners, self.variant.size), quality, score)

    def _calibration_grid(self, quality: float, score: float) -> GridFit:
        """The grid seen at calibration, as it is, scored as given."""
        seen = np.asarray(self._seen_corners(), np.float64)
        return GridFit(seen, grid_homography(seen, self.variant.size), quality, score)

    def _register(self, image: U8) -> Registration | None:
        """Where the picture round the grid at calibration is in ``image`` (``None``: not there, or no picture)."""
        view, seen = self.profile.seen_view, self._seen_corners()
        if view is None or seen is None or not self.profile.calibrated:
            return None
        return register(view, image, np.asarray(seen, np.float64), self.variant.size)

    def _camera_moved(self, registration: Registration | None) -> bool:
        """Whether ``registration`` puts the calibration grid elsewhere than when the grid followed was
        taken up.

        A frame whose grid is lost is most often a hand over the board; a bumped
        camera looks the same to the lattice, but moves the picture round the
        board too, and its grid is then looked for at once, not after
        :data:`WEAK_FRAMES` frames of reading a grid that no longer holds.
        """
        if registration is None:
            return False
        before = self._registration.corners if self._registration is not None else self._seen_corners()
        return cells_apart(np.asarray(before, np.float64), registration.corners, self.variant.size) > CAMERA_MOVED

    def _seen_grid(
        self, image: U8, registration: Registration | None
    ) -> tuple[GridFit | None, GridFit | None, bool]:
        """The grid seen at calibration, where it is in ``image``: aligned on the lattice when it locks on, or
        held as it is (see :meth:`_holds`); (second) where the picture round it, as registered, says it is
        (``None``: not clearly there, or not a calibrated reader); and (third) whether the grid is held.

        The camera rarely moves during a game, so the board is first looked for
        where it was at calibration, moved as the picture round it moved since
        (see :mod:`rolit.vision.register`; a bumped camera), then aligned on
        the lattice of cups and balls. When the lattice does not lock on there
        the board is searched for, as calibration's own grid may be a little
        skewed; the registered grid is kept for when the search finds nothing
        (on a black board whose cups do not show, it often finds nothing).
        Where the lattice does not lock on where registration put the grid,
        and no exactly placed grid is held, it is aligned from calibration's
        own grid too (see :meth:`_track_unmoved`). Once the camera moved, a
        grid the lines or the cups' rims placed is held where registration
        carries it (see :meth:`_holds`).
        """
        n = self.variant.size
        held = self._holds(registration)
        seen_corners = self._seen_corners()
        if not self.profile.calibrated or seen_corners is None:
            return None, None, held
        seen = np.asarray(seen_corners, np.float64)
        start = registration.corners if registration is not None else seen
        tracked = self.locator.track(image, start)
        locked = tracked is not None and tracked.score >= SEEN_ACCEPT
        if not locked and registration is not None and not held and not self._still(registration):
            tracked = self._track_unmoved(image, seen) or tracked
        if tracked is not None and tracked.score >= SEEN_ACCEPT:
            if held:
                return self._held_grid(registration, tracked.quality, tracked.score), None, True
            return tracked, None, False
        if registration is None:
            return None, None, held
        # Scored as if it just locked on, so that following it needs a lattice that shows (a faint one
        # could drift frame by frame); until then it is kept, and after WEAK_FRAMES registered again.
        return None, GridFit(start, grid_homography(start, n), 1.0, SEEN_ACCEPT), held

    def _track_unmoved(self, image: U8, seen: F64) -> GridFit | None:
        """The lattice aligned from the grid seen at calibration itself, where it locks on more than barely
        (quality :data:`WEAK_GRID` or more); else ``None``.

        Registration can be fooled: a hand over much of the picture round the
        board moved it 0.8 cells on development scene 543 (a black board), where
        the lattice did not lock on, though the camera had not moved and the
        lattice locked on surely from calibration's own grid (0.1 cells from
        the cups, against 0.8 for the grid registered). Where the camera did
        move, the lattice may barely lock on from the grid it left, a third of
        a cell or more out (quality 0.21 and 0, development scenes 315 and 233
        nudged, one more cell wrong in each). On development scenes 0-999
        (calibrated, camera still and nudged) this took calibration's grid on 6
        frames, whose grids came 0.1-1.5 cells nearer the cups: 6 cells fewer
        wrong, 58 fewer unknown, none more.
        """
        again = self.locator.track(image, seen)
        if again is None or again.score < SEEN_ACCEPT or again.quality < WEAK_GRID:
            return None
        log.debug("registration moved the grid where the lattice does not lock on: calibration's grid taken")
        return again

    def readings(self, image: U8) -> tuple[GridFit, CellSamples, F64, bool] | None:
        """Find the grid and read every cell: the fit, the samples, their features, and whether the board moved.

        ``None`` when no board is found. The fit and the samples are of the picture straightened by the
        profile's lens (see :meth:`straightened`).
        """
        return self._readings(image)[1]

    def straightened(self, image: U8, box: tuple[int, int, int, int] | None = None) -> U8:
        """``image`` straightened by the profile's lens (see :class:`rolit.vision.lens.Lens`; as it is without one);
        only the part ``box`` of it, when given.

        Raises :class:`CalibrationError` for what is not a colour frame.
        """
        if image.ndim != 3 or image.shape[2] != 3 or image.shape[0] < 32 or image.shape[1] < 32:
            raise CalibrationError("a frame must be a colour image at least 32 pixels wide and high")
        if image.shape[:2] != self._shape:
            # Another camera, or the same at another resolution: nothing tracked still holds.
            if self._shape is not None:
                log.info("frame size changed from %s to %s: searching the whole picture", self._shape, image.shape[:2])
                self.reset()
                self._refound = True
            self._shape = (int(image.shape[0]), int(image.shape[1]))
        lens = self._lens()
        return image if lens is None else lens.straighten(image, box)

    def _followed_box(self) -> tuple[int, int, int, int] | None:
        """The part of the picture that following the grid looks at (``None``: the whole picture, or no lens).

        Straightening a frame costs two-thirds of decoding it; following the grid needs only the picture
        round it (see :meth:`Locator.track`, :func:`~rolit.vision.register.register`).
        """
        anchor, view = self._anchor, self.profile.seen_view
        if anchor is None or self._manual is not None or self._lens() is None or self._shape is None:
            return None
        n = self.variant.size
        pitch = float(np.max(np.linalg.norm(anchor.corners - np.roll(anchor.corners, 1, axis=0), axis=1))) / n
        # Locator.track looks a cell beyond the grid (its crop is wider), cover and glints within it.
        margin = TRACKED_MARGIN * pitch
        lo, hi = anchor.corners.min(axis=0) - margin, anchor.corners.max(axis=0) + margin
        if view is not None:
            lo = np.minimum(lo, view.box[:2])
            hi = np.maximum(hi, view.box[2:])
        return int(lo[0]), int(lo[1]), int(np.ceil(hi[0])) + 1, int(np.ceil(hi[1])) + 1

    def _lens(self) -> Lens | None:
        """The profile's lens for the frames read now (``None`` without one, or before a frame)."""
        if not self.profile.lens or self._shape is None:
            return None
        return Lens(self.profile.lens, (self._shape[1], self._shape[0]))

    def _seen_corners(self) -> list[list[float]] | None:
        """The grid seen at calibration in the frames read now (straightened by the profile's lens; the profile
        keeps it as the camera showed it)."""
        seen, lens = self.profile.seen_corners, self._lens()
        if seen is None or lens is None:
            return seen
        straight: list[list[float]] = lens.to_straight(seen).tolist()
        return straight

    def _readings(self, frame: U8) -> tuple[U8, tuple[GridFit, CellSamples, F64, bool] | None]:
        """:meth:`readings` of ``frame``, and the picture (``frame`` straightened) they are of."""
        box = self._followed_box()
        start = time.perf_counter()
        image = self.straightened(frame, box)
        straightening, again = time.perf_counter() - start, 0.0
        previous = self._corners
        t0 = time.perf_counter()
        self._partial = box is not None
        try:
            fit = self.locate(image)
        except _WholePictureNeeded:
            # The grid followed is lost: the whole picture is searched.
            self._partial = False
            start = time.perf_counter()
            image = self.straightened(frame)
            again = time.perf_counter() - start
            fit = self.locate(image)
        t1 = time.perf_counter()
        self.last_timings = {"straighten": straightening + again} if self._lens() is not None else {}
        self.last_timings["locate"] = t1 - t0 - again
        if fit is None:
            self._corners = None
            return image, None
        n = self.variant.size
        if self.profile.seen_placed_by == "outline" and self._manual is None:
            fit = self._on_balls(image, fit)
        cell = float(np.linalg.norm(fit.corners[1] - fit.corners[0])) / n
        shift = float(np.max(np.linalg.norm(fit.corners - previous, axis=1))) if previous is not None else 0.0
        moved = shift > 0.5 * cell or self._refound
        self._refound = False
        self._corners = fit.corners
        samples = sample_cells(image, fit.homography, n)
        features = features_from_lab(samples)
        self.last_features = features
        self.last_timings["sample"] = time.perf_counter() - t1
        return image, (fit, samples, features, bool(moved))

    def _on_balls(self, image: U8, fit: GridFit) -> GridFit:
        """``fit`` moved onto the balls' highlights (see :meth:`Locator.onto_highlights`) or aligned cell by cell
        (see :meth:`Locator.align`; within :data:`ALIGNED_REACH` cells, and locking on at least
        :data:`ALIGNED_SURE`), whichever the lattice of cups and balls locks on better, where it locks on at least
        :data:`HIGHLIGHTS_GAIN` better than on ``fit``; as it is, where neither does.

        The balls are looked for once while the frames' grid stays within :data:`HIGHLIGHTS_KEPT` cells of
        the one looked at (a still camera): finding them costs several times what reading a tracked frame does.
        """
        n = self.variant.size
        looked = self._looked_on_balls
        if looked is not None and cells_apart(looked[0], fit.corners, n) < HIGHLIGHTS_KEPT:
            kept = looked[1]
            return fit if kept is None else GridFit(kept.corners, kept.homography, fit.quality, fit.score)
        moves = [self.locator.onto_highlights(image, fit.corners)]
        aligned = self.locator.align(image, fit.corners)
        if (aligned is not None and aligned[2] >= ALIGNED_SURE
                and cells_apart(aligned[0], fit.corners, n) < ALIGNED_REACH):
            moves.append(aligned)
        gains = [(after - before, corners) for corners, before, after in filter(None, moves)
                 if after >= before + HIGHLIGHTS_GAIN]  # fmt: skip
        taken = None
        if gains:
            gain, corners = max(gains, key=lambda g: g[0])
            log.debug("grid moved onto the balls (the lattice locks on %.2f better)", gain)
            taken = GridFit(corners, grid_homography(corners, n), fit.quality, fit.score)
        self._looked_on_balls = (fit.corners, taken)
        return fit if taken is None else taken

    def _as_calibrated(self, fit: GridFit) -> GridFit:
        """A grid found afresh in the calibration's corner order, and moved onto its grid when a cell out."""
        return self._on_calibrated_grid(self._in_calibrated_order(fit))

    def _on_calibrated_grid(self, fit: GridFit) -> GridFit:
        """The fit moved by whole cells onto the grid seen at calibration, when it is that grid a cell out.

        The camera rarely moves much during a game, and a grid a whole cell out
        (the lattice of cups and balls looks alike a cell further on) is the
        commonest way of finding a board wrongly; the start position fixed the
        grid at calibration (see :func:`_start_offset`). Which whole cells is
        told by where the calibration grid's centre lies in the fit's cells: a
        nudged camera turns and tilts the board's picture about its centre, so
        its corners may move half a cell while its centre hardly moves. A board
        moved by about a cell and no more, and not turned at all, would be read
        a cell out; the referee then sees a position that does not follow.
        """
        seen = self._seen_corners()
        if seen is None or self._manual is not None or not self.profile.calibrated:
            return fit
        ref = np.asarray(seen, np.float64)
        n = self.variant.size
        offset = _centre_offset(fit, ref, n)
        step = np.round(offset)
        if not np.any(step) or np.any(np.abs(step) > 1) or np.any(np.abs(offset - step) > SAME_CENTRE):
            return fit
        moved = shifted(fit.corners, n, float(step[0]), float(step[1]))
        pitch = float(np.mean(np.linalg.norm(ref - np.roll(ref, 1, axis=0), axis=1))) / n
        if float(np.max(np.linalg.norm(moved - ref, axis=1))) / pitch > SAME_GRID:
            return fit  # not the same picture of the board: the camera or the board moved
        return GridFit(moved, grid_homography(moved, n), fit.quality, fit.score)

    def _in_calibrated_order(self, fit: GridFit) -> GridFit:
        """The fit with its corners in the order they had at calibration.

        Corners are ordered from the one nearest the picture's top-left; for a
        board turned near 45 degrees that choice can flip between frames, which
        would turn the board and the profile's per-cell references with it.
        """
        seen = self._seen_corners()
        if seen is None:
            return fit
        ref = np.asarray(seen, np.float64)
        gaps = [float(np.sum(np.linalg.norm(np.roll(fit.corners, -k, axis=0) - ref, axis=1))) for k in range(4)]
        best = int(np.argmin(gaps))
        if best == 0:
            return fit
        corners = np.roll(fit.corners, -best, axis=0)
        return GridFit(corners, grid_homography(corners, self.variant.size), fit.quality, fit.score)

    def read(self, image: U8) -> Observation:
        """Read one BGR frame."""
        image, found = self._readings(image)
        if found is None:
            return Observation(None, status="no_board", timings=dict(self.last_timings))
        fit, samples, features, moved = found
        t2 = time.perf_counter()
        n = self.variant.size
        threshold = THRESHOLD_CALIBRATED if self.profile.calibrated else THRESHOLD_DEFAULT
        weak = fit.quality < WEAK_GRID and not self._on_seen_grid(fit)
        if weak:
            threshold = max(threshold, THRESHOLD_WEAK_GRID)
        if self.profile.calibrated:
            probs = without_stray_hands(self._probabilities(fit, samples, features), n)
            trusted = np.full(len(LABELS), threshold)
            if not weak:
                trusted[GREY] = min(threshold, GREY_TRUSTED)
            reading = beside_hands(under_cover(image, fit, samples, features, reading_from(probs, trusted)), n)
            if self.profile.seen_exactly and not weak:
                reading = self._by_glints(image, fit, probs, reading)
        else:
            probs = self._probabilities(fit, samples, features)
            # Uncalibrated, a little chance of a hand also marks what is no cup at all (the table, read by a
            # grid a cell out): on development scenes 200-279 dropping it everywhere doubled the cells wrong.
            # A grid that locks on surely is rarely a cell out.
            if fit.quality >= SURE_GRID:
                probs = without_stray_hands(probs, n)
            reading = beside_hands(under_cover(image, fit, samples, features, reading_from(probs, threshold)), n)
            if fit.quality >= SURE_GRID:
                reading = self._by_glints(image, fit, probs, reading)
        if self._doubtful:
            reading = Reading(reading.labels, reading.confidence, np.zeros_like(reading.known))
        t3 = time.perf_counter()
        lens = self._lens()
        seen_points = samples.points if lens is None else lens.to_picture(samples.points)
        seen_corners = fit.corners if lens is None else lens.to_picture(fit.corners)
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
            points[sq] = (float(seen_points[i, 0]), float(seen_points[i, 1]))
            confidence[sq] = float(reading.confidence[i])
        board = Board(n, cells)
        corners = tuple((float(x), float(y)) for x, y in seen_corners)
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
            timings={**self.last_timings, "classify": t3 - t2},
        )

    def _by_glints(self, image: U8, fit: GridFit, probs: F64, reading: Reading) -> Reading:
        """``reading`` trusted and doubted by the glints (see :func:`trusted_by_glints`, :func:`doubted_by_glints`);
        while no cell is classified afresh and the reading is the same, as the glints left it then.

        Looking for the glints costs 3-5 ms a frame from low down (the lamp looked for on two channels), as much
        as the rest of classifying; where the picture has not changed, neither have they.
        """

        def by_glints(given: Reading) -> Reading:
            return doubted_by_glints(image, fit, trusted_by_glints(image, fit, probs, given))

        return self._glinted.reading(reading, self.kept.classified == 0, by_glints)

    def _probabilities(self, fit: GridFit, samples: CellSamples, features: F64) -> F64:
        """The colour model's probabilities for every cell, kept for those whose picture has not changed (see
        :mod:`rolit.calibration.unchanged`)."""

        def classify(rows: npt.NDArray[np.bool_]) -> F64:
            if self.profile.calibrated:
                seen = camera_features(features, samples.top, self.profile)
                return camera_model().probabilities(seen[rows], self.variant)
            return self.model.probabilities(features[rows], self.variant)

        # A hand's shadow falls on cells beside it, which may change their readings too little to be classified
        # afresh but lower the model's confidence: where a hand is seen, or was on the frame before, and any cell
        # changed (the hand moved), every cell is classified afresh. On six game clips (the demo's and development
        # scenes' 3001-3009, 1,090 frames), keeping those cells' answers changed 158 frames' boards against
        # classifying every cell (empty cups beside a hand kept at 99.9-100%, left unknown afresh at 59-99%). With
        # this, on eight clips 31 of 1,403 frames differ, 63 cells, all in frames with a hand or just after one,
        # each known one way and unknown the other, as many each way (31 and 32), none wrong either way. Any cell
        # like a hand at all, changed or not, classifying every cell afresh instead: 7 frames, 13 cells; but from low
        # down the model takes some far cells for a hand on every frame (the bench's board from 35 degrees: 0.57),
        # and nothing would ever be kept there.
        return self.kept.probabilities(fit.corners, reading_means(samples), classify, _hand_seen)

    def learn(self, board: Board) -> None:
        """Follow the light: move the calibrated references towards the last frame, read as ``board``.

        Call it with a board the referee accepted for the last frame read, seen
        clearly (a hand's cells would teach the references a hand). A colour
        without a reference yet gets its first one here.
        """
        features = self.last_features
        n = self.variant.size
        if features is None or board.size != n or not self.profile.calibrated or len(features) != n * n:
            return
        labels = _labels_of(board, n, self.profile.rotation)
        cells, colours, local = self.profile.refs()
        empty = labels == EMPTY
        cells[empty] = (1 - LEARNING_RATE) * cells[empty] + LEARNING_RATE * features[empty]
        for label in np.unique(labels[(labels > EMPTY) & (labels < HIDDEN)]):
            key = LABELS[int(label)]
            mine = labels == label
            mean, where = features[mine].mean(axis=0), cells[mine].mean(axis=0)
            if key in colours:
                mean = (1 - LEARNING_RATE) * colours[key] + LEARNING_RATE * mean
                where = (1 - LEARNING_RATE) * local[key] + LEARNING_RATE * where
            self.profile.colour_refs[key] = [float(x) for x in mean]
            self.profile.colour_local[key] = [float(x) for x in where]
        self.profile.cell_refs = cells.tolist()
        self.profile.class_means = _class_means(features, labels)
        self.kept.forget()  # every cell's readings are now compared with other references
        self._glinted.forget()


# How far each accepted board moves the references towards what it showed.
LEARNING_RATE = 0.2


def _labels_of(board: Board, n: int, rotation: int) -> npt.NDArray[np.int64]:
    """The label of every image cell (row-major) for ``board`` seen turned ``rotation``; hidden where unknown."""
    labels = np.zeros(n * n, np.int64)
    for i in range(n * n):
        row, col = divmod(i, n)
        cell = board[board_square(col, row, n, rotation)]
        labels[i] = HIDDEN if cell is UNKNOWN else EMPTY if cell is None else int(cell) + 1
    return labels


def _class_means(features: F64, labels: npt.NDArray[np.int64]) -> dict[str, list[float]]:
    """The mean top colour (Lab) of each label in these readings: the profile's summary."""
    return {
        LABELS[int(label)]: [float(x) for x in features[labels == label, :3].mean(axis=0)]
        for label in np.unique(labels)
        if label != HIDDEN
    }


def calibrate(
    image: U8, variant: str | Variant = "classic", profile: Profile | None = None, rotation: int | None = None
) -> Profile:
    """Fit a profile from one frame of the start position (the centre balls, the rest empty).

    The start position also fixes the board's orientation in the picture: the
    turn under which the default model finds the centre colours most likely,
    unless ``rotation`` (quarter turns, see :func:`board_square`) says it.
    The grid is the locator's; when it finds none, or none that shows the
    start position, the board's outlines are searched for the grid on which
    the start position reads likeliest (see :func:`_from_start_search`).
    A grid found a cell out is moved onto the start position's balls (see
    :func:`_on_centre_block` and :func:`_on_likelier_start`).
    Where the board's printed lines show, the grid is then moved onto them
    (see :func:`_on_grid_lines`). Corners given in ``profile`` are taken as
    they are, but for a move onto the board's printed lines within
    :data:`GIVEN_REACH` cells once the start position is judged on them;
    the profile keeps them so.

    Raises :class:`CalibrationError` when no board is found (its subclass
    :class:`CalibrationBoardNotFoundError`), when the frame does not show the
    start position, or when its colours cannot be told apart.
    """
    v = get_variant(variant)
    corners = profile.corners if profile else None
    seen = _calibrated_picture(image, v, corners, rotation)
    if seen.seen_corners is None:
        return seen
    h, w = image.shape[:2]
    k = measure_lens(image, np.asarray(seen.seen_corners, np.float64), v.size)
    if k is None or abs(k) < LENS_LEAST:
        return seen
    lens = Lens(k, (w, h))
    given = None if corners is None else lens.to_straight(corners).tolist()
    try:
        straight = _calibrated_picture(lens.straighten(image), v, given, rotation)
    except CalibrationError as refused:
        log.info("calibration: the lens measured (%.3f) is not used: straightened, %s", k, refused)
        return seen
    if PLACED_SURELY[straight.seen_placed_by] < PLACED_SURELY[seen.seen_placed_by]:
        log.info("calibration: the lens measured (%.3f) is not used: straightened, the %s placed the grid, not the %s",
                 k, straight.seen_placed_by or "search", seen.seen_placed_by)
        return seen
    log.info("calibration: the picture straightened by the lens measured (%.3f)", k)
    # The profile keeps its grids as the camera shows them (corners given moved onto the printed lines, where
    # they were); the picture round the grid is the straightened one's, as registration reads it.
    straight.lens = k
    if straight.corners is not None:
        straight.corners = lens.to_picture(straight.corners).tolist()
    if straight.seen_corners is not None:
        straight.seen_corners = lens.to_picture(straight.seen_corners).tolist()
    return straight


# Cells round the grid followed (at the pitch of its longest side) straightened while it is followed.
TRACKED_MARGIN = 2.0
# The weakest lens (see rolit.vision.lens) calibration straightens pictures by.
LENS_LEAST = 0.02
# How surely each of PLACED_BY places a grid: the straightened picture's calibration is taken only where its grid
# is placed as surely as the picture's as it is. Development 3094 (a grey board seen corner-on) and 3160: the cups'
# rims and the lines placed the grid 0.17 and 0.04 cells from the cups, and straightened only the outline did, 0.85
# and 0.3 out.
PLACED_SURELY = {"lines": 3, "cup rims": 3, "cups": 2, "cup template": 2, "corners given": 2, "outline": 1, "": 0}


def _calibrated_picture(image: U8, v: Variant, corners: list[list[float]] | None, rotation: int | None) -> Profile:
    """The profile of :func:`calibrate` from ``image`` as it is (no lens)."""
    shaded = flattened(image, _shade_size(image))
    try:
        return _calibrated_as_seen(image, v, corners, rotation, shaded)
    except CalibrationError as refused:
        if corners is not None:
            raise
        # A hard shadow across the board splits its outline and its plastic's colour: the board is looked for again
        # with the light's fall taken off (the start position is still read on the picture as it is).
        profile = _calibrated_in_shade(image, shaded, v, rotation)
        if profile is None:
            raise refused from None
        log.info("calibration: the board found with the light's fall taken off")
        return profile


def _calibrated_as_seen(
    image: U8, v: Variant, corners: list[list[float]] | None, rotation: int | None, shaded: U8 | None = None
) -> Profile:
    """The profile from the board found in ``image`` as it is (see :func:`calibrate`); the board's lines are looked
    for in ``shaded`` too (``image`` with the light's fall taken off), when given."""
    reader = BoardReader(v, profile=Profile(v.name, corners=corners))
    found = reader.readings(image)
    if found is None:
        searched = _from_start_search(image, v, reader.model, rotation, shaded=shaded) if corners is None else None
        if searched is not None:
            return searched
        raise CalibrationBoardNotFoundError("no board found in the calibration picture")
    try:
        return _calibrated(image, v, reader.model, found[0], found[2], corners, rotation, shaded=shaded)
    except CalibrationError as first:
        if corners is not None or isinstance(first, CalibrationBoardNotFoundError):
            raise
        # What was found may be something else with a lattice (a chequered cloth, a printed card of dots):
        # the board may be elsewhere. Hidden, it is looked for again (the first answer stands if none is).
        hidden = image
        for _ in range(ELSEWHERE):
            hidden = _hide_grid(hidden, found[0].homography, v.size)
            found = BoardReader(v).readings(hidden)
            if found is None:
                break
            try:
                return _calibrated(image, v, reader.model, found[0], found[2], corners, rotation, shaded=shaded)
            except CalibrationError:
                continue
        # No lattice shows it: the board's outline still may (a board whose cups hardly show, by a cloth).
        searched = _from_start_search(image, v, reader.model, rotation, shaded=shaded)
        if searched is not None:
            return searched
        raise first from None


# The window (a share of the picture's width) over which the light is estimated when the board is looked for with
# its fall taken off (see rolit.vision.shade): 32 pixels at 1280, well wider than a printed line. Of the 16
# development start positions (0-999) whose grid this one moved nearer the truth by 0.03 cells or more, twice that
# window missed 6; it did not move out 141 and 400, white and cream boards, which this one did (0.05 to 0.17 and
# 0.02 to 0.11 cells: ridges between cups taken for lines).
SHADE_WINDOW = 1 / 40


def _shade_size(image: U8) -> int:
    """The light's window (pixels, odd) for ``image`` (see :data:`SHADE_WINDOW`)."""
    return max(3, round(int(image.shape[1]) * SHADE_WINDOW) // 2 * 2 + 1)


def _calibrated_in_shade(image: U8, flat: U8, v: Variant, rotation: int | None) -> Profile | None:
    """The profile from the board found in ``flat`` (``image`` with the light's fall taken off) and read on
    ``image``; ``None`` when none is found there that shows the start position and that the printed lines or the
    cups place (see :data:`SURELY_PLACED`)."""
    n = v.size
    model = default_model()
    found = BoardReader(v).readings(flat)
    profile: Profile | None = None
    if found is not None:
        try:
            profile = _calibrated(image, v, model, found[0], _features_on(image, found[0], n), None, rotation, flat)
        except CalibrationError:
            pass
    # Flattened, a dark board no longer stands out from a light table, nor the cups' shading as the locator knows
    # it: on development start positions 52 and 206 the grids found so lay 0.37 and 0.72 cells out. Lines hold, and
    # so do the cups, placed on the picture as it is.
    if profile is not None and profile.seen_placed_by in SURELY_PLACED:
        return profile
    return _from_start_search(image, v, model, rotation, seen=flat, placed_by=SURELY_PLACED)


# What may place a grid found only with the light's fall taken off (see _calibrated_in_shade): the board's printed
# lines, or its cups, by their own centres or by their mean (see rolit.vision.perspective.on_cups and
# on_cup_template: each asks the lattice to lock on surely first). Of the 17 development start positions 0-999
# calibration refused with lines alone, the cups placed three 0.05-0.09 cells from the truth: 826 and 671 (a
# green board on a green cloth from nearly straight down; a small green board far off) by their centres, 453 (a
# white board under a hard shadow, from 30 degrees) by their mean. No other scene takes this path.
SURELY_PLACED = ("lines", "cups", "cup template", "cup rims")


# The farthest (cells, at any cell) corners given by hand are moved onto the board's printed lines. A corner
# dragged onto a picture by eye lies a tenth of a cell or two from the grid's. Given the true corners of the
# development start positions each moved at random by 0.1 cells (0.17 cells out at the worst cell, median),
# the lines were found on 162 of 340 boards and put them 0.02 cells out (median); none went further out by
# more than 0.02 cells once a move beyond this was refused (one that moved 0.49 cells).
GIVEN_REACH = 0.45


# How many times calibration looks elsewhere for the board when what it found does not show the start position.
ELSEWHERE = 2


def _from_start_search(
    image: U8,
    v: Variant,
    model: ColourModel,
    rotation: int | None,
    seen: U8 | None = None,
    shaded: U8 | None = None,
    placed_by: tuple[str, ...] | None = None,
) -> Profile | None:
    """The profile from the grid, among those the board's outlines lead to, on which the start position reads
    likeliest (or, of the likeliest few, the first the board's printed lines then place); ``None`` when none
    reads it well (see :data:`START_LIKELY`), nor on the board's printed lines grown from the middle of one of
    them (see :func:`rolit.vision.gridlines.grown_on_lines`).

    For a board whose cups do not show (a black board): the locator finds no
    lattice there, and four balls are too few for one of their own. Each
    outline is centred on what stands in its middle cells (see
    :meth:`Locator.centred_guesses`), and the start position is what tells
    the board's outline from the rest.

    The board is looked for in ``seen`` (``image`` itself by default), every
    cell read in ``image``; ``shaded`` is passed on to :func:`_calibrated`.
    With ``placed_by``, only a profile whose grid one of those placed (see
    :data:`~rolit.calibration.profile.PLACED_BY`) is taken.

    When no grid from those outlines is taken, the outlines on the straight
    runs of outlines merged with something touching the board (a dark cloth
    along its side) are searched so. Not with the others: such a grid, the
    wrong size but centred on the balls, can read the start position as well
    as the board's own.
    """
    for merged in (False, True):
        profile = _start_searched(image, v, model, rotation, seen, shaded, placed_by, merged)
        if profile is not None:
            return profile
    return None


def _start_searched(
    image: U8,
    v: Variant,
    model: ColourModel,
    rotation: int | None,
    seen: U8 | None,
    shaded: U8 | None,
    placed_by: tuple[str, ...] | None,
    merged: bool,
) -> Profile | None:
    """:func:`_from_start_search` on the grids :meth:`Locator.centred_guesses` gives (``merged``: on the merged
    outlines' straight runs only)."""
    n = v.size
    seen = image if seen is None else seen
    start = Position.start(v).board()
    scored: list[tuple[float, GridFit, F64]] = []
    for corners in Locator(n).centred_guesses(seen, merged):
        guess = GridFit(corners, grid_homography(corners, n), OUTLINE_QUALITY, 0.0)
        fit, features, probs = _on_centre_block(
            image, v, model, guess, _features_on(image, guess, n)
        )
        scored.append((max(_start_scores(probs, start, n)), fit, features))
    scored.sort(key=lambda s: -s[0])
    scored = _by_block_size(seen, n, scored)

    def tries() -> Iterator[tuple[GridFit, F64, str]]:
        for likelihood, fit, features in scored[:START_TRIES]:
            if likelihood < START_LIKELY:
                break
            aligned = _aligned(seen, n, fit)
            if aligned is not None:
                yield aligned, _features_on(image, aligned, n), "the board's outline, aligned on its cells"
            yield fit, features, f"the board's outline (log-likelihood {likelihood:.1f})"
        # A grid from an outline may be cells out at its corners yet right in the middle, which the balls
        # centre: where the board prints lines, the middle block's lines and then the whole grid's put it right.
        for _, fit, _ in scored[:LINE_TRIES]:
            lined = grown_on_lines(seen, fit.corners, n)
            if lined is not None:
                grown = GridFit(lined, grid_homography(lined, n), OUTLINE_QUALITY, 0.0)
                yield grown, _features_on(image, grown, n), "the board's lines"

    # The first grid the board's printed lines place, else the first that reads the start position at all: a
    # grid from an outline can read it and still be half a cell out at a corner, where the lines do not reach.
    taken: tuple[Profile, str] | None = None
    for fit, features, where in tries():
        try:
            profile = _calibrated(image, v, model, fit, features, None, rotation, seen, shaded)
        except CalibrationError:
            continue
        if placed_by is not None and profile.seen_placed_by not in placed_by:
            continue
        if profile.seen_exactly:
            taken = profile, where
            break
        taken = taken or (profile, where)
    if taken is None:
        return None
    log.info("calibration: the start position read on %s", taken[1])
    return taken[0]


def _by_block_size(
    image: U8, n: int, scored: list[tuple[float, GridFit, F64]]
) -> list[tuple[float, GridFit, F64]]:
    """``scored`` (log-likelihood of the start position, grid, features; likeliest first) as it is, unless the
    four balls' highlights measure the likeliest grid's centre block more than :data:`BLOCK_TOLERANCE` off a
    cell a side (see :meth:`Locator.centre_block_sides`): then the grids that read the start position well (see
    :data:`START_LIKELY`) and whose block they measure within it come first, likeliest first.

    Nested outlines (the board's edge, its frame's, a shadow's) lead to grids of different sizes that all centre
    the balls and read the start position about as well; the balls' spacing tells the right size.
    """
    likely = [s for s in scored if s[0] >= START_LIKELY]  # the first few: scored is likeliest first
    measured = Locator(n).centre_block_sides(image, [fit.corners for _, fit, _ in likely])
    sides = [None if m is None else (m[0] + m[1]) / 2.0 for m in measured]
    near = [side is not None and abs(side - 1.0) <= BLOCK_TOLERANCE for side in sides]
    # Not measured, or measured a cell a side: the likelihood's order stands.
    if not likely or sides[0] is None or near[0]:
        return scored
    sized = [s for s, ok in zip(likely, near, strict=True) if ok]
    if sized:
        log.info("calibration: the balls' highlights measure the likeliest grid's centre block %.2f cells a side; "
                 "%d grids measured nearer a cell tried first", sides[0], len(sized))  # fmt: skip
    return sized + [s for s, ok in zip(likely, near, strict=True) if not ok] + scored[len(likely) :]


# How far off a cell a side (cells) the balls' highlights may measure the start position's centre block on the
# grid the start search tries first (see _by_block_size).
BLOCK_TOLERANCE = 0.07


# The least log-likelihood of the start position (its likeliest turn, over all cells) for a grid from the
# outlines alone to be taken, and how many of the likeliest are tried. On development start positions
# the grids that read it within a cell of the truth scored above -6, those further out below -14.
START_LIKELY, START_TRIES = -8.0, 3
# How many of the likeliest are then tried for lines grown from their middle (a look with no lines is quick).
LINE_TRIES = 6


# A grid from an outline is first tried aligned on its cells (see _aligned) when the alignment locks on at least
# this well, and this much better than the grid as it was.
ALIGNED_LEAST, ALIGNED_GAIN = 0.6, 0.2


def _aligned(image: U8, n: int, fit: GridFit) -> GridFit | None:
    """The grid ``fit`` (from an outline, centred on the start position's balls) aligned on its cells by the
    locator (see :meth:`Locator.align`), when that locks on clearly better; ``None`` when not.

    The outline can put a grid half a cell out at a corner (its frame's inner wall, a shadow along its edge)
    and still read the start position, and where no lines or sure cups place it then, every later frame is
    read against references taken off the cells' centres.
    """
    aligned = Locator(n).align(image, fit.corners)
    if aligned is None:
        return None
    corners, before, after = aligned
    if after < max(ALIGNED_LEAST, before + ALIGNED_GAIN):
        return None
    return GridFit(corners, grid_homography(corners, n), OUTLINE_QUALITY, 0.0)


# How far off the grid's centre (cells, along both of its sides) the start position's centre block must sit, as
# the balls' highlights place it, for a grid only the outline placed to be moved half a cell (see
# _centred_on_block). One lamp puts every highlight at one offset from its ball's top: on the true grids of
# development start positions 0-599 the block sat at most 0.23 cells off along both sides at once (47, 467),
# 0.48 along one (599). Half a cell out along both, it sat 0.30-0.33 off (142, 211).
BLOCK_OFF_CENTRE = 0.25


def _centred_on_block(
    image: U8, v: Variant, model: ColourModel, fit: GridFit, features: F64
) -> tuple[GridFit, F64]:
    """A grid only the board's outline placed, moved half a cell along both sides onto the start position's centre
    block when the balls' highlights place the block at least :data:`BLOCK_OFF_CENTRE` off its centre along both,
    the moved grid reads the start position well (see :data:`START_LIKELY`) and the highlights place the block
    nearer its centre there; as it is, and its features, otherwise.

    A lattice of a board's balls (its cups not showing) can be locked on with its cells' centres where their
    corners are, and the start position reads about as well on either: each of its balls fills much of its
    cell half a cell out (see :func:`_half_step_held`, which wants the board's lines, and they do not show
    here). The highlights of the centre block tell the two apart, along both sides at once.
    """
    n = v.size
    # The balls' highlights are found once, for the grid and for each half-cell move along both sides.
    moves = [(du, dv) for du in (-0.5, 0.5) for dv in (-0.5, 0.5)]
    blocks = Locator(n).centre_blocks(image, [fit.corners, *(shifted(fit.corners, n, *m) for m in moves)])
    if blocks[0] is None:
        return fit, features
    off = blocks[0].mean(axis=0) - n / 2.0
    if np.any(np.abs(off) < BLOCK_OFF_CENTRE):
        return fit, features
    du, dv = (0.5 * np.sign(off)).tolist()
    there = blocks[1 + moves.index((du, dv))]
    if there is None or np.any(np.abs(there.mean(axis=0) - n / 2.0) >= np.abs(off)):
        return fit, features
    moved, moved_features, probs = _moved_by_cells(image, v, model, fit, du, dv)
    score = max(_start_scores(probs, Position.start(v).board(), n))
    if score < START_LIKELY:
        return fit, features
    log.info("calibration: the grid moved by (%.1f, %.1f) cells onto the centre block (%.2f, %.2f off), where "
             "the start position reads at %.1f", du, dv, off[0], off[1], score)  # fmt: skip
    return moved, moved_features


# The centre block's sides (cells, see _sized_on_block) must both be off a cell the same way by at least
# BLOCK_SIZED_LEAST for a grid the outline placed to be sized on them, by at most BLOCK_SIZED_MOST, and within
# BLOCK_SIZED_AGREE of each other.
BLOCK_SIZED_LEAST, BLOCK_SIZED_MOST, BLOCK_SIZED_AGREE = 0.025, 0.15, 0.06


def _sized_on_block(image: U8, n: int, fit: GridFit, features: F64) -> tuple[GridFit, F64]:
    """A grid only the board's outline placed, made larger or smaller about its centre so that the start
    position's centre block measures a cell a side, when the balls' highlights measure both of its sides off a
    cell the same way (see :meth:`Locator.centre_block_sides`); as it is, and its features, otherwise.

    Where no lines or cups show, the outline sizes the grid, and the outline's
    ratio to the grid is the board's (a wide or narrow frame, a silhouette that
    takes in the board's sides): on development start positions such grids were
    a few percent too large or too small, a fifth of a cell or more out at the
    edges. The four balls measure the size. The outline is off alike along rows
    and columns, while a highlight a little off measures one side alone wrong:
    so both sides must be off the same way, and by about as much.
    """
    sides = Locator(n).centre_block_sides(image, [fit.corners])[0]
    factor = None if sides is None else _block_factor(*sides)
    if factor is None:
        return fit, features
    corners = scaled(fit.corners, n, factor)
    log.info("calibration: the grid made %.3f times as large to fit the centre block", factor)
    moved = GridFit(corners, grid_homography(corners, n), fit.quality, fit.score)
    return moved, _features_on(image, moved, n)


def _block_factor(along_rows: float, along_columns: float) -> float | None:
    """How many times as large a grid's cells must be made for the start position's centre block to measure a
    cell a side, from its two sides as measured (cells); ``None`` when the grid stays as it is (see
    :func:`_sized_on_block`).

    >>> round(_block_factor(0.94, 0.92) or 0.0, 3)  # both about as much too small: the grid is too large
    0.93
    >>> _block_factor(0.99, 0.94), _block_factor(1.05, 0.95), _block_factor(0.97, 0.88), _block_factor(1.2, 1.2)
    (None, None, None, None)
    """
    off = np.array([along_rows, along_columns]) - 1.0
    if (np.all(np.abs(off) >= BLOCK_SIZED_LEAST) and np.all(np.abs(off) <= BLOCK_SIZED_MOST)
            and off[0] * off[1] > 0 and abs(off[0] - off[1]) <= BLOCK_SIZED_AGREE):
        return (along_rows + along_columns) / 2.0
    return None


def _on_centre_block(
    image: U8, v: Variant, model: ColourModel, fit: GridFit, features: F64, whole_start: bool = False
) -> tuple[GridFit, F64, F64]:
    """The grid, its cells' features and their probabilities, moved by whole cells when the start position's
    centre balls sit in a block one cell out (see :func:`_start_offset`); failing that, with ``whole_start``,
    when the whole start position reads far likelier a cell over (see :func:`_on_likelier_start`)."""
    n = v.size
    probs = model.probabilities(features, v)
    step = _start_offset(probs, n)
    if step == (0, 0):
        return _on_likelier_start(image, v, model, fit, features, probs) if whole_start else (fit, features, probs)
    # The grid was found a cell out: the balls the start position has in the centre are off it.
    log.info("calibration: the grid moved by %s cells to centre the start position", step)
    return _moved_by_cells(image, v, model, fit, *step)


def _moved_by_cells(
    image: U8, v: Variant, model: ColourModel, fit: GridFit, du: float, dv: float
) -> tuple[GridFit, F64, F64]:
    """The grid ``fit`` moved by ``du``, ``dv`` cells, its cells' features and their probabilities."""
    n = v.size
    corners = shifted(fit.corners, n, du, dv)
    moved = GridFit(corners, grid_homography(corners, n), fit.quality, fit.score)
    features = _features_on(image, moved, n)
    return moved, features, model.probabilities(features, v)


# How much likelier (log-likelihood of the start position, every cell, at its likeliest turn) a grid moved by a
# whole cell must read the start position than the grid found, for calibration to move it there; and only when
# the grid found reads it poorly (below START_LIKELY). This moved development start position 45's grid (a Junior
# set from 32 degrees: the lattice locked on a row out, its near row on the board's frame; -50.6 where found, -9.1
# moved) from 1.08 to 0.09 cells out. On 607 the grid it moved showed strays and was refused, and the outline
# search then placed it 0.54 cells out, not the lattice's 1.18. At a thousand times likelier it also moved
# held-out 1045's grid, which read the start position poorly either way (-48.0, -37.9), from 0.42 to 0.72 cells
# out.
START_SHIFT_GAIN = math.log(1e6)
# The moves (cells, along either side) tried so. Half a cell too: a lattice of the board's printed lines or of
# its balls can be locked on with its cells' centres where their corners are, on a black board whose cups do
# not show (development 527: its grid 0.68 cells out, half a cell along both sides, read the start position at
# -31.0, moved half a cell both ways at -0.3, 0.21 cells out; the board's lines then placed it). Such a move is
# taken only where the lines hold it (see _half_step_held): on 193 a grid 1.4 cells out read the start position
# at -48.8, and half a cell over at -32.0, 1.8 cells out, where before it was refused and the lines then found.
START_STEPS = (-1.0, -0.5, 0.0, 0.5, 1.0)


def _on_likelier_start(
    image: U8, v: Variant, model: ColourModel, fit: GridFit, features: F64, probs: F64
) -> tuple[GridFit, F64, F64]:
    """The grid, its cells' features and their probabilities, moved by a whole cell or half of one (along either
    side, or both; see :data:`START_STEPS`) when the start position reads far likelier there (see
    :data:`START_SHIFT_GAIN`); as they are when not.

    :func:`_start_offset` moves a grid only when a block of four cells one
    cell out holds balls surely, which a dim ball, or Junior's grey one, may
    not; the whole start position, its empty cups and the cells
    off the board included, still tells a grid a cell out from the right one.
    """
    n = v.size
    start = Position.start(v).board()
    here = max(_start_scores(probs, start, n))
    if here >= START_LIKELY:
        return fit, features, probs
    best, taken, step = here + START_SHIFT_GAIN, (fit, features, probs), (0.0, 0.0)
    for du, dv in ((du, dv) for du in START_STEPS for dv in START_STEPS if du or dv):
        there = _moved_by_cells(image, v, model, fit, du, dv)
        score = max(_start_scores(there[2], start, n))
        whole = du.is_integer() and dv.is_integer()
        if score > best and (whole or _half_step_held(image, there[0], n, score)):
            best, taken, step = score, there, (du, dv)
    if step != (0.0, 0.0):
        log.info("calibration: the grid moved by %s cells, where the start position reads likelier (%.1f, not "
                 "%.1f)", step, best, here)  # fmt: skip
    return taken


def _half_step_held(image: U8, fit: GridFit, n: int, score: float) -> bool:
    """Whether a grid moved by half a cell, where the start position reads at ``score``, may be taken: only where
    it reads the start position well (see :data:`START_LIKELY`) and the board's printed lines hold its centre
    (see :data:`CENTRE_HELD`).

    Half a cell out, a ball still fills much of its cell, and the start position's likelihood alone does not
    tell such a grid from the right one (development 640: a green board whose grid found 0.25 cells out read
    it at -24.4, and half a cell over at -5.6, 0.61 cells out). The printed lines run between the cells, so they
    tell it: lines found half a cell from a grid's own move its centre. Where none show, no such move is taken.
    """
    return score >= START_LIKELY and _lines_holding_centre(image, fit, n) is not None


def _on_cups(image: U8, n: int, fit: GridFit, features: F64) -> tuple[GridFit, F64]:
    """The grid and its cells' features, moved onto the cups' own centres with a homography when they place
    it surely (see :func:`rolit.vision.perspective.on_cups`); as they are when not.

    For boards whose printed lines do not show. Every later frame is read
    against what calibration samples here, so a grid a fifth of a cell out at
    a far corner (the perspective an outline or the balls gave it) reads its
    far cups off their centres.
    """
    return _moved_onto(image, n, fit, features, on_cups(image, fit.corners, n), "the cups' centres")


def _on_cup_template(
    image: U8, n: int, fit: GridFit, features: F64, empty: npt.NDArray[np.bool_]
) -> tuple[GridFit, F64]:
    """The grid and its cells' features, refined so that the ``empty`` cells' cups all sit alike in their cells
    (see :func:`rolit.vision.perspective.on_cup_template`); as they are when that does not place it surely.

    The lattice's alignment, and the cups' homography after it, follow where
    each cup's shading sits, which light and a low view move off its centre
    alike in every cup, and then some more in the far rows.
    """
    return _moved_onto(image, n, fit, features, on_cup_template(image, fit.corners, n, empty), "the cups' mean")


def _on_cup_rims(
    image: U8, n: int, fit: GridFit, features: F64, empty: npt.NDArray[np.bool_]
) -> tuple[GridFit, F64]:
    """The grid and its cells' features, moved onto the ``empty`` cells' cups found by their rims, where they agree
    on one homography (see :func:`rolit.vision.perspective.on_cup_rims`); as they are when they do not.

    The cups' centres and their mean follow where each cup's shading sits,
    which the light moves; a rim's edges are circles round the cup's centre
    whichever way the light falls. On development start positions 0-339 whose
    lines do not show, this moved 18 of the 64 grids that only the outline had
    placed (from 0.09 to 0.03 cells off the true cups' centres at the median, 15
    nearer by more than 0.03 cells, none further), 49 of the 60 the cups'
    centres had (0.06 to 0.02; one 0.04 cells further) and 27 of the 28 their
    mean had (0.05 to 0.015; one 0.04 further). Black and dim boards' cups do
    not agree, and their grids stay as they were.
    """
    return _moved_onto(image, n, fit, features, on_cup_rims(image, fit.corners, n, empty), "the cups' rims")


def _moved_onto(image: U8, n: int, fit: GridFit, features: F64, corners: F64 | None, onto: str) -> tuple[GridFit, F64]:
    """The grid moved to ``corners`` (what ``onto`` placed it on) and its cells' features read there; ``fit`` and
    ``features`` as they are when ``corners`` is ``None``."""
    if corners is None:
        return fit, features
    log.info("calibration: the grid moved %.2f cells onto %s", cells_apart(fit.corners, corners, n), onto)
    placed = GridFit(corners, grid_homography(corners, n), fit.quality, fit.score)
    return placed, _features_on(image, placed, n)


def _on_grid_lines(
    image: U8, n: int, fit: GridFit, features: F64, reach: float = np.inf, seen: U8 | None = None
) -> tuple[GridFit, F64]:
    """The grid and its cells' features, moved onto the board's printed lines when they show (see
    :func:`rolit.vision.gridlines.on_lines`) no more than ``reach`` cells away; as they are when not.

    Every later frame is read against what calibration samples here, and a
    calibrated reader follows the board from this grid: on a black board,
    where the grid comes from the outline or the four balls, it was often half
    a cell out at a corner. Whether the picture shows the start position is
    judged before, on the grid as found: the default model's doubts about a
    far row of cups (glare it may take for a hand) are no reason to refuse it.
    """
    corners = _lines_holding_centre(image if seen is None else seen, fit, n)
    if corners is None or cells_apart(fit.corners, corners, n) > reach:
        return fit, features
    fit = GridFit(corners, grid_homography(corners, n), fit.quality, fit.score)
    return fit, _features_on(image, fit, n)


def _lines_placed(
    image: U8, n: int, fit: GridFit, features: F64, reach: float, pictures: list[U8]
) -> tuple[GridFit, F64]:
    """The grid and its cells' features, moved onto the board's printed lines where they first show in one of
    ``pictures`` (see :func:`_on_grid_lines`); as they are when in none.

    The picture with the light's fall taken off (see :mod:`rolit.vision.shade`)
    shows a black board's faint lines in dim light, and lines across a
    shadow's edge.
    """
    for k, picture in enumerate(pictures):
        placed = _on_grid_lines(image, n, fit, features, reach, picture)
        if placed[0] is not fit:
            if k:
                log.info("calibration: the board's lines found with the light's fall taken off")
            return placed
    return fit, features


def _features_on(image: U8, fit: GridFit, n: int) -> F64:
    """The features of every cell of the grid ``fit`` in ``image`` (row-major), as the reader reads them."""
    return features_from_lab(sample_cells(image, fit.homography, n))


def _lines_holding_centre(picture: U8, fit: GridFit, n: int) -> F64 | None:
    """The grid moved onto the board's printed lines near ``fit`` (see :func:`rolit.vision.gridlines.on_lines`)
    when they hold its centre (see :data:`CENTRE_HELD`); ``None`` when no lines show, or they would move it."""
    corners = on_lines(picture, fit.corners, n)
    if corners is None:
        return None
    if float(np.max(np.abs(_centre_offset(fit, corners, n)))) > CENTRE_HELD:
        # The start position's balls placed the centre: lines that move it are another row of them.
        log.info("calibration: the board's lines would move the grid's centre; not taken")
        return None
    return corners


# Cells the lines may move the grid's centre (see _lines_holding_centre).
CENTRE_HELD = 0.3


def _centre_offset(fit: GridFit, corners: F64, n: int) -> F64:
    """Where the centre of the grid at ``corners`` lies from ``fit``'s centre, in ``fit``'s cells (u, v)."""
    middle = np.array([[n / 2.0, n / 2.0]])
    there = apply_homography(np.linalg.inv(fit.homography), apply_homography(grid_homography(corners, n), middle))
    return np.asarray(there[0] - middle[0], np.float64)


def _start_scores(probs: F64, start: Board, n: int) -> list[float]:
    """The log-likelihood of the start position (every cell) under each quarter turn."""
    cells = np.arange(n * n)
    return [float(np.sum(np.log(probs[cells, _labels_of(start, n, rotation)] + 1e-6))) for rotation in range(4)]


def _hide_grid(image: U8, homography: F64, n: int) -> U8:
    """The picture with a grid (and a cell round it) painted over in the picture's median colour."""
    box = np.array([[-1.0, -1.0], [n + 1.0, -1.0], [n + 1.0, n + 1.0], [-1.0, n + 1.0]])
    quad = apply_homography(homography, box)
    out = image.copy()
    colour = tuple(int(x) for x in np.median(image.reshape(-1, 3), axis=0))
    cv2.fillConvexPoly(out, np.round(quad).astype(np.int32), colour)
    return out


def _calibrated(
    image: U8,
    v: Variant,
    model: ColourModel,
    fit: GridFit,
    features: F64,
    corners: list[list[float]] | None,
    rotation: int | None,
    seen: U8 | None = None,
    shaded: U8 | None = None,
) -> Profile:
    """The profile from a start position read on ``fit`` (see :func:`calibrate`); the grid is placed on the board's
    lines where they show in ``seen`` (``image`` itself by default), or else in ``shaded`` (``image`` with the
    light's fall taken off), and on the cups in ``image``, where every cell is read.

    Calibration looks in ``seen`` other than ``image`` only to take a grid the lines placed (see
    :func:`_calibrated_in_shade`), so the cups are not looked for there.
    """
    n = v.size
    seen = image if seen is None else seen
    fit, features, probs = _on_centre_block(image, v, model, fit, features, whole_start=corners is None)
    start = Position.start(v).board()
    turn_given = rotation is not None
    if rotation is None:
        rotation = _start_rotation(probs, start, n)
    elif rotation not in (0, 1, 2, 3):
        raise CalibrationError("rotation must be 0, 1, 2 or 3 quarter turns")
    labels = _labels_of(start, n, rotation)
    turned_on = features  # the cells the turn was read on
    # Cells past a side other than the far one are let off only where the lines or the cups then place the grid:
    # a grid most of a cell out can see past two sides too (scene 3094 with numpy's AVX2 code: 0.77 cells).
    past_far, past_any = _seen_past_board(fit, image, n)
    doubted: CalibrationError | None = None
    try:
        _check_start(labels, probs, n, rotation, past_far)
    except CalibrationError as strict:
        _check_start(labels, probs, n, rotation, past_any)
        doubted = strict
    pictures = [seen] if shaded is None else [seen, shaded]
    reach = np.inf if corners is None else GIVEN_REACH
    placed, placed_features = _lines_placed(image, n, fit, features, reach, pictures)
    lined = False
    if placed is not fit:
        moved = cells_apart(fit.corners, placed.corners, n)
        lined = moved <= BALLS_CHECKED or _balls_kept(model, v, features, placed_features, labels)
        if lined:
            log.info("calibration: the grid moved onto the board's lines (%.2f cells)", moved)
        else:
            log.info("calibration: the board's lines would move the grid %.2f cells, off the balls; not taken", moved)
    if lined:
        placed_by, fit, features = "lines", placed, placed_features
        if corners is not None:
            # Corners given by hand too, judged as given (above): the profile keeps them as moved.
            corners = placed.corners.tolist()
    elif corners is None:
        # Where no lines show, the cups place the grid: by their centres or their mean (less exactly than lines,
        # better than the alignment), then, where they agree, by their rims (as exactly as lines).
        empty = (labels == EMPTY).reshape(n, n)
        on_cups = _on_cups(image, n, fit, features)
        templated = _on_cup_template(image, n, *on_cups, empty)
        placed_by = "cups" if on_cups[0] is not fit else "cup template" if templated[0] is not on_cups[0] else "outline"
        fit, features = templated
        if placed_by == "outline":
            fit, features = _centred_on_block(image, v, model, fit, features)
            fit, features = _sized_on_block(image, n, fit, features)
        rims = _on_cup_rims(image, n, fit, features, empty)
        if rims[0] is not fit:
            placed_by, (fit, features) = "cup rims", rims
    else:
        placed_by = "corners given"
    if doubted is not None and placed_by not in (*SURELY_PLACED, "corners given"):
        raise doubted
    if not turn_given and features is not turned_on:
        rotation = _turn_as_placed(model, v, features, start, rotation)
        labels = _labels_of(start, n, rotation)
    cells = _empty_references(features, labels, n)
    balls = np.flatnonzero((labels > EMPTY) & (labels < HIDDEN))
    return Profile(
        v.name,
        rotation=rotation,
        corners=corners,
        class_means=_class_means(features, labels),
        created=datetime.now(UTC).isoformat(timespec="seconds"),
        cell_refs=cells.tolist(),
        colour_refs={LABELS[int(labels[i])]: [float(x) for x in features[i]] for i in balls},
        colour_local={LABELS[int(labels[i])]: [float(x) for x in cells[i]] for i in balls},
        seen_corners=fit.corners.tolist(),
        seen_view=_reference_view(image, fit.corners, n),
        seen_placed_by=placed_by,
    )


def _balls_kept(model: ColourModel, v: Variant, before: F64, after: F64, labels: npt.NDArray[np.int64]) -> bool:
    """Whether the start position's balls (where ``labels`` has them) read as balls on a moved grid's features
    ``after`` at least :data:`BALLS_KEPT` times as surely as on ``before``, at the least sure of them.

    Lines found far from a grid may be a wrong set of them: on scene 155 (a black board straight down) the
    lines moved a grid from the outline by a cell at its corners, its centre held, and its centre cells then
    lay between the balls.
    """
    balls = (labels > EMPTY) & (labels < HIDDEN)

    def least(features: F64) -> float:
        return float(np.min(model.probabilities(features, v)[balls, EMPTY + 1 : HIDDEN].sum(axis=1)))

    return least(after) >= BALLS_KEPT * least(before)


# Lines that move the grid more than BALLS_CHECKED cells must keep the balls (see _balls_kept) at BALLS_KEPT
# of before. On development start positions 0-599 only scene 155's lines moved it that far and lost them
# (1.1 cells: the least sure ball 0.99 -> 0.001; the grid went 1.19 cells out). Without the first condition,
# lines moving it 0.16-0.21 cells were lost on 358, 431 and 590 (0.03-0.04 cells out -> 0.18-0.24): the
# default model doubts a start position's balls on some boards, wherever the grid lies.
BALLS_CHECKED, BALLS_KEPT = 0.5, 0.5


def _reference_view(image: U8, corners: F64, n: int) -> ReferenceView | None:
    """The picture round the grid, to find it again in later frames (``None``: the grid is off the picture)."""
    try:
        return ReferenceView.take(image, corners, n)
    except ValueError:
        return None


# A ball read at this confidence counts for placing the start position (see _start_offset).
START_SURE = 0.9


def _start_offset(probs: F64, n: int) -> tuple[int, int]:
    """How many whole cells (u, v) the grid must move for the start's centre block to hold balls surely.

    Each two-by-two block of cells at most one cell from the centre is scored
    by how surely all four of its cells hold a ball; the grid moves when a
    block one cell out holds them surely and clearly more so than the centre.
    (Not by where every ball read surely lies: seen from low down, a ball's top
    reaches over the cell behind it, and the board's frame may have a ball's colour.)

    >>> import numpy as np
    >>> probs = np.zeros((36, 7)); probs[:, EMPTY] = 1.0
    >>> for i in (15, 16, 21, 22):  # the centre block of a 6x6 grid, one column to the right
    ...     probs[i] = 0.0; probs[i, 1 + i % 2] = 1.0
    >>> _start_offset(probs, 6)
    (1, 0)
    """
    ball = probs[:, EMPTY + 1 : HIDDEN].sum(axis=1).reshape(n, n)
    c = n // 2 - 1  # the centre block's first row and column
    scores = {
        (du, dv): float(np.prod(ball[c + dv : c + dv + 2, c + du : c + du + 2]))
        for du in (-1, 0, 1)
        for dv in (-1, 0, 1)
    }
    step = max(scores, key=lambda key: scores[key])
    if step != (0, 0) and scores[step] >= START_SURE**4 and scores[(0, 0)] < START_CLEARER * scores[step]:
        return step
    return (0, 0)


# How much less surely the centre block must hold balls than a block one cell out, for the grid to move there.
START_CLEARER = 0.5


# How near (cells) a grid moved by whole cells must bring its centre to the calibration grid's, and its
# corners (at the worst), to be that grid.
SAME_CENTRE, SAME_GRID = 0.3, 0.75

# How many times likelier the best turn of the start position must be than the next.
ROTATION_MARGIN = 20.0


def _start_rotation(probs: F64, start: Board, n: int) -> int:
    """The quarter turns under which the picture's centre colours are likeliest; refused when not clearly so."""
    scores = _start_scores(probs, start, n)
    order = np.argsort(scores)[::-1]
    if scores[order[0]] - scores[order[1]] < np.log(ROTATION_MARGIN):
        raise CalibrationError(
            "the centre balls' colours cannot be told apart in this picture; more light, or less coloured light, helps"
        )
    return int(order[0])


def _turn_as_placed(model: ColourModel, v: Variant, features: F64, start: Board, rotation: int) -> int:
    """The start position's turn read again on the grid as placed (its cells' ``features``): ``rotation`` unless
    another reads clearly likelier there (see :data:`ROTATION_MARGIN`).

    The turn is first read on the grid found, which may lie a third of a cell out; the lines or cups place it
    on the balls, which then read their colours better. The start position's balls fill the same cells in
    every turn, so only the colours they are taken for change.
    """
    scores = _start_scores(model.probabilities(features, v), start, v.size)
    best = int(np.argmax(scores))
    if best != rotation and scores[best] - scores[rotation] >= math.log(ROTATION_MARGIN):
        log.info("calibration: the start position reads turned %d, not %d, on the grid as placed", best, rotation)
        return best
    return rotation


# How far (cells) a cell other than the outermost of a side may see past the board before no cell is let off (see
# _seen_past_board). Development 979 (0.02, on a grid 0.18 cells out) and scene 3023 (0.04 on a grid the lattice
# locked 0.16 out; the next grid tried, an outline's, lay 0.7 out) see past by a hair from 18-31 degrees; on 561
# a grid 0.41 cells out saw past by 0.31.
PAST_HAIR = 0.1


def _seen_past_board(fit: GridFit, image: U8, n: int) -> tuple[npt.NDArray[np.bool_], npt.NDArray[np.bool_]]:
    """Per cell (row-major), whether the line of sight through where its ball's up colour is read meets the board's
    plane past the grid's far side (the side highest in the picture), and whether past any side: a side facing
    away from the camera, the far one, or the two far ones when a corner points at the camera. From low down an
    empty cup in the far row shows there what lies beyond the board (its frame, a cloth), which may read as a ball
    (development 599: a cream strip, 150: a sunlit green cloth, both refused or sent a cell out by such strays;
    scene 3094: a grey board seen corner-on, whose far column saw past by 0.8 cells onto a green cloth while only
    its far row was let off).

    None is, when any cell but the outermost row of a side sees past it by more than :data:`PAST_HAIR`: on a grid a
    fraction of a cell out the far rows reach onto the frame (development 561: a grid 0.41 cells out, its two far
    rows past the board, the outermost on a white frame read as balls). From the lowest views the next row may see
    past by a hair too (979: 0.02 cells), and is then let off with the far row.
    """
    pose = Pose.from_homography(fit.homography, (int(image.shape[1]), int(image.shape[0])))
    u, v = apply_homography(np.linalg.inv(fit.homography), pose.project(pose.visible_tops(cell_centres(n)))).T
    past = np.column_stack((-v, u - n, v - n, -u))  # how far past the sides v = 0, u = n, v = n and u = 0
    beyond = past > 0.0
    row, col = np.divmod(np.arange(n * n), n)
    outermost = np.column_stack((row == 0, col == n - 1, row == n - 1, col == 0))
    if np.any((past > PAST_HAIR) & ~outermost):
        return np.zeros(n * n, np.bool_), np.zeros(n * n, np.bool_)
    sides = np.array([[n / 2, 0.0], [n, n / 2], [n / 2, n], [0.0, n / 2]])
    far = int(np.argmin(apply_homography(fit.homography, sides)[:, 1]))
    return np.asarray(beyond[:, far], np.bool_), np.asarray(beyond.any(axis=1), np.bool_)


def _check_start(labels: npt.NDArray[np.int64], probs: F64, n: int, rotation: int, past: npt.NDArray[np.bool_]) -> None:
    """Refuse a picture that clearly does not show the start position: balls (or a hand) away from the centre.

    Only confident contradictions count, and more than one: under an odd light
    the default model may be unsure of many cells (it takes a grey ball on a
    grey board for an empty cup), and calibrating is what cures that. Cells
    ``past`` the board (see :func:`_seen_past_board`) do not count: their
    ball's up colour is read on what lies beyond it.
    """
    balls = (labels > EMPTY) & (labels < HIDDEN)
    # Next to the centre balls an oblique view sees their sides, so only cells further out can hold a stray.
    grid = balls.reshape(n, n)
    near = np.zeros_like(grid)
    for dr in (-1, 0, 1):
        for dc in (-1, 0, 1):
            near |= np.roll(np.roll(grid, dr, axis=0), dc, axis=1)
    stray = ~near.ravel() & ~past & (np.max(probs[:, EMPTY + 1 :], axis=1) >= CONTRADICTION)
    if stray.sum() >= 2:
        squares = [board_square(int(i) % n, int(i) // n, n, rotation) for i in np.flatnonzero(stray)]
        names = ", ".join(square_name(sq) for sq in sorted(squares)[:8])
        raise CalibrationError(f"the picture does not show the start position (look at {names})")


# How sure the default model must be of a cell to contradict the start position.
CONTRADICTION = 0.9


def _empty_references(features: F64, labels: npt.NDArray[np.int64], n: int) -> F64:
    """Every cell's readings as an empty cup; where a ball stands, those of its empty neighbours."""
    cells = np.array(features, np.float64)
    empty = labels == EMPTY
    for i in np.flatnonzero(~empty):
        row, col = divmod(int(i), n)
        near = [r * n + c for r in range(row - 1, row + 2) for c in range(col - 1, col + 2)
                if 0 <= r < n and 0 <= c < n and empty[r * n + c]]  # fmt: skip
        cells[i] = features[near].mean(axis=0) if near else np.median(features[empty], axis=0)
    return cells
