"""Printed ArUco corner markers give the grid's corners."""

from __future__ import annotations

import cv2
import numpy as np

from rolit.vision.markers import find_marker_corners, marker_sheet


def test_sheet_and_detection() -> None:
    sheet = marker_sheet(dpi=100)
    assert sheet.shape[:2] == (1169, 826)
    # Lay the four markers round a "grid" on a plain table picture.
    table = np.full((600, 800, 3), 200, np.uint8)
    d = cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_4X4_50)
    side = 60
    grid = np.array([[200, 150], [600, 150], [600, 450], [200, 450]])
    offsets = [(-side, -side), (0, -side), (0, 0), (-side, 0)]  # the touching corner sits on the grid corner
    for marker_id, ((gx, gy), (ox, oy)) in enumerate(zip(grid, offsets, strict=True)):
        img = cv2.cvtColor(cv2.aruco.generateImageMarker(d, marker_id, side), cv2.COLOR_GRAY2BGR)
        table[gy + oy : gy + oy + side, gx + ox : gx + ox + side] = img
    table = cv2.copyMakeBorder(table, 0, 0, 0, 0, cv2.BORDER_CONSTANT)
    corners = find_marker_corners(table)
    assert corners is not None
    assert np.max(np.abs(corners - grid)) < 2.5
    assert find_marker_corners(np.full((100, 100, 3), 255, np.uint8)) is None
