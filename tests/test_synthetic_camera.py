"""The synthetic camera's geometry: projection, pose, distortion, framing."""

from __future__ import annotations

import numpy as np
import pytest

from rolit.vision.synthetic import BoardGeometry, Camera, RenderParams, place_camera


def test_target_projects_to_the_image_centre() -> None:
    cam = Camera.look_at((640, 480), elevation=45.0, azimuth=30.0, distance=600.0, hfov=60.0)
    x, y = cam.project([[0.0, 0.0, 0.0]])[0]
    assert abs(x - 319.5) < 1e-6 and abs(y - 239.5) < 1e-6


@pytest.mark.parametrize("elevation", [30.0, 60.0, 90.0])
def test_default_side_sees_row_1_at_the_top_and_column_a_on_the_left(elevation: float) -> None:
    geo = BoardGeometry(8)
    cam = Camera.look_at((640, 480), elevation=elevation, azimuth=0.0, distance=700.0)
    a1, h1, h8, a8 = cam.project(geo.grid_corners())
    assert a1[0] < h1[0] and a8[0] < h8[0]
    assert a1[1] < a8[1] and h1[1] < h8[1]


def test_camera_on_the_far_side_sees_the_board_upside_down() -> None:
    geo = BoardGeometry(8)
    cam = Camera.look_at((640, 480), elevation=60.0, azimuth=180.0, distance=700.0)
    a1, h1, _, a8 = cam.project(geo.grid_corners())
    assert a1[0] > h1[0] and a1[1] > a8[1]


def test_oblique_view_shows_perspective() -> None:
    geo = BoardGeometry(8)
    cam = Camera.look_at((640, 480), elevation=35.0, azimuth=0.0, distance=600.0)
    a1, h1, h8, a8 = cam.project(geo.grid_corners())
    assert (h1[0] - a1[0]) < 0.9 * (h8[0] - a8[0])  # the far edge looks shorter


def test_undistortion_inverts_distortion() -> None:
    cam = Camera.look_at((1280, 720), elevation=50.0, azimuth=10.0, distance=500.0, dist=(-0.25, 0.03))
    pts = np.array([[x, y, z] for x in (-150, 0, 150) for y in (-150, 150) for z in (0.0, 18.0)])
    distorted = cam.project(pts)
    plain = cam.project(pts, distort=False)
    xd = ((distorted[:, 0] - cam.cx) / cam.fx).astype(np.float32)
    yd = ((distorted[:, 1] - cam.cy) / cam.fy).astype(np.float32)
    xu, yu = cam.undistort_normalised(xd, yd)
    assert np.allclose(xu * cam.fx + cam.cx, plain[:, 0], atol=0.05)
    assert np.allclose(yu * cam.fy + cam.cy, plain[:, 1], atol=0.05)


def test_distortion_maps_send_each_pixel_to_its_undistorted_place() -> None:
    cam = Camera.look_at((640, 480), elevation=60.0, azimuth=0.0, distance=450.0, dist=(-0.2, 0.02))
    left, top, _, _ = cam.canvas_for_distortion()
    assert left > 0 and top > 0  # barrel distortion needs a wider canvas
    mx, my = cam.distortion_maps(left, top)
    pts = np.array([[-120.0, 120.0, 0.0], [120.0, -120.0, 0.0], [0.0, 0.0, 18.0]])
    for (xd, yd), (xu, yu) in zip(cam.project(pts), cam.project(pts, distort=False), strict=False):
        i, j = round(yd), round(xd)
        # The map at the nearest pixel points at the undistorted spot, within the pixel's rounding.
        assert abs(mx[i, j] - (xu + left)) < 1.6 and abs(my[i, j] - (yu + top)) < 1.6


@pytest.mark.parametrize("fill", [0.30, 0.6, 0.95])
@pytest.mark.parametrize("elevation", [30.0, 90.0])
def test_board_fills_the_asked_fraction_and_stays_in_frame(fill: float, elevation: float) -> None:
    geo = BoardGeometry(8)
    params = RenderParams(size=(640, 480), fill=fill, elevation=elevation, azimuth=37.0, k1=-0.2, offset=(1.0, -1.0))
    cam = place_camera(geo, params)
    pts = cam.project(geo.board_corners(0.0) + geo.board_corners(-geo.thickness))
    lo, hi = pts.min(axis=0), pts.max(axis=0)
    got = max((hi[0] - lo[0]) / 640, (hi[1] - lo[1]) / 480)
    assert abs(got - fill) < 0.02
    assert lo[0] >= -1 and lo[1] >= -1 and hi[0] <= 640 and hi[1] <= 480
