"""Optional printed ArUco corner markers, for boards the camera cannot find by themselves.

Print the sheet from ``rolit markers -o sheet.png``, cut out the four markers
and lay each at a corner of the grid, the marker's corner with the small dot
touching the grid's corner: marker 0 top-left, 1 top-right, 2 bottom-right,
3 bottom-left, as the camera sees them. :func:`find_marker_corners` then gives
the grid's corners.

>>> sheet = marker_sheet(dpi=50)
>>> sheet.shape[2]
3
"""

from __future__ import annotations

import cv2
import numpy as np
import numpy.typing as npt

__all__ = ["marker_sheet", "find_marker_corners", "MARKER_IDS"]

U8 = npt.NDArray[np.uint8]
F64 = npt.NDArray[np.float64]

MARKER_IDS = (0, 1, 2, 3)
# Which corner of each marker (in ArUco's tl, tr, br, bl order) touches the grid.
_TOUCH = {0: 2, 1: 3, 2: 0, 3: 1}


def _dictionary() -> cv2.aruco.Dictionary:
    return cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_4X4_50)


def marker_sheet(dpi: int = 150, size_mm: float = 30.0) -> U8:
    """An A4 page (portrait) with the four markers, labelled, each ``size_mm`` wide."""
    page_w, page_h = int(210 / 25.4 * dpi), int(297 / 25.4 * dpi)
    sheet = np.full((page_h, page_w, 3), 255, np.uint8)
    side = int(size_mm / 25.4 * dpi)
    quiet = side // 4
    for i, marker_id in enumerate(MARKER_IDS):
        img = cv2.aruco.generateImageMarker(_dictionary(), marker_id, side)
        x = quiet * 2 + (i % 2) * (side + 6 * quiet)
        y = quiet * 4 + (i // 2) * (side + 8 * quiet)
        sheet[y : y + side, x : x + side] = cv2.cvtColor(img, cv2.COLOR_GRAY2BGR)
        corner = [(0, 0), (side, 0), (side, side), (0, side)][_TOUCH[marker_id]]
        cv2.circle(sheet, (x + corner[0], y + corner[1]), max(3, side // 25), (0, 0, 255), -1)
        label = ["top-left", "top-right", "bottom-right", "bottom-left"][marker_id]
        cv2.putText(sheet, f"{marker_id}: {label} corner (dot on the grid's corner)", (x, y + side + quiet),
                    cv2.FONT_HERSHEY_SIMPLEX, dpi / 300, (0, 0, 0), max(1, dpi // 150), cv2.LINE_AA)
    return sheet


def find_marker_corners(image: U8) -> F64 | None:
    """The grid's corners (tl, tr, br, bl) from the four markers, or ``None`` unless all four are seen."""
    detector = cv2.aruco.ArucoDetector(_dictionary(), cv2.aruco.DetectorParameters())
    corners, ids, _ = detector.detectMarkers(image)
    if ids is None or len(ids) == 0:  # OpenCV answers None when it finds nothing
        return None
    found: dict[int, F64] = {}
    for quad, marker_id in zip(corners, ids.ravel(), strict=True):
        mid = int(marker_id)
        if mid in _TOUCH:
            found[mid] = np.asarray(quad, np.float64).reshape(4, 2)[_TOUCH[mid]]
    if len(found) < 4:
        return None
    return np.array([found[i] for i in MARKER_IDS], np.float64)
