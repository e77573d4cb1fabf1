"""A pinhole camera with radial lens distortion, posed around the board.

World coordinates are millimetres: the board's top surface is the plane
``z = 0`` with its centre at the origin, ``x`` runs along the columns (a to h)
and ``y`` from the camera's default side towards row 1, so ``z`` points up.
Image coordinates follow OpenCV: ``x`` right, ``y`` down, pixel centres at
integers.

>>> cam = Camera.look_at((640, 480), elevation=90.0, azimuth=0.0, distance=500.0, hfov=60.0)
>>> [round(float(v), 1) for v in cam.project([[0.0, 0.0, 0.0]])[0]]
[319.5, 239.5]
>>> x, y = cam.project([[0.0, 100.0, 0.0]])[0]   # towards row 1: up in the image
>>> bool(y < 239.5)
True
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np
import numpy.typing as npt

__all__ = ["Camera"]

FloatArray = npt.NDArray[np.float32] | npt.NDArray[np.float64]
ArrayLike = npt.ArrayLike


@dataclass(frozen=True)
class Camera:
    """Intrinsics, pose and distortion of a pinhole camera.

    ``rotation`` maps world to camera axes (rows: image right, image down,
    forward) and ``position`` is the optical centre in world millimetres.
    ``dist`` holds OpenCV's radial coefficients ``(k1, k2)``: a normalised
    point ``p`` appears at ``p * (1 + k1 r^2 + k2 r^4)``.
    """

    width: int
    height: int
    fx: float
    fy: float
    cx: float
    cy: float
    rotation: npt.NDArray[np.float64]
    position: npt.NDArray[np.float64]
    dist: tuple[float, float] = (0.0, 0.0)
    # Pose as asked for, kept for the ground truth.
    elevation: float = 90.0
    azimuth: float = 0.0
    roll: float = 0.0
    _cache: dict[str, Any] = field(default_factory=dict, compare=False, repr=False)

    # Construction -----------------------------------------------------------

    @classmethod
    def look_at(
        cls,
        size: tuple[int, int],
        *,
        elevation: float,
        azimuth: float,
        distance: float,
        hfov: float = 65.0,
        roll: float = 0.0,
        target: tuple[float, float, float] = (0.0, 0.0, 0.0),
        dist: tuple[float, float] = (0.0, 0.0),
    ) -> Camera:
        """A camera ``distance`` mm from ``target``, ``elevation`` degrees above the table.

        ``azimuth`` turns the camera around the board (0: the default side,
        below row n; 90: the right-hand side, beyond column h), ``roll`` turns
        the image about the optical axis.
        """
        width, height = size
        el, az, ro = (math.radians(v) for v in (elevation, azimuth, roll))
        # Horizontal direction from the target towards the camera, and the
        # image's right-hand direction; both turned by the azimuth.
        back = np.array([math.sin(az), -math.cos(az), 0.0])
        right = np.array([math.cos(az), math.sin(az), 0.0])
        up = np.array([0.0, 0.0, 1.0])
        offset = math.cos(el) * back + math.sin(el) * up
        position = np.asarray(target, dtype=np.float64) + distance * offset
        forward = -offset
        down = np.cross(forward, right)
        if ro:
            c, s = math.cos(ro), math.sin(ro)
            right, down = c * right + s * down, -s * right + c * down
        rotation = np.stack([right, down, forward])
        fx = (width / 2) / math.tan(math.radians(hfov) / 2)
        return cls(
            width,
            height,
            fx,
            fx,
            (width - 1) / 2,
            (height - 1) / 2,
            rotation,
            position,
            dist,
            elevation,
            azimuth % 360.0,
            roll,
        )

    def resized(self, size: tuple[int, int]) -> Camera:
        """The same view at another image size."""
        sx, sy = size[0] / self.width, size[1] / self.height
        return replace(
            self,
            width=size[0],
            height=size[1],
            fx=self.fx * sx,
            fy=self.fy * sy,
            cx=(self.cx + 0.5) * sx - 0.5,
            cy=(self.cy + 0.5) * sy - 0.5,
            _cache={},
        )

    def with_canvas(self, left: int, top: int, width: int, height: int) -> Camera:
        """This camera without distortion, on a canvas that starts ``left, top`` pixels before the image."""
        return replace(
            self, width=width, height=height, cx=self.cx + left, cy=self.cy + top, dist=(0.0, 0.0), _cache={}
        )

    # Projection -----------------------------------------------------------------

    @property
    def matrix(self) -> npt.NDArray[np.float64]:
        """The 3x3 intrinsic matrix ``K``."""
        return np.array([[self.fx, 0.0, self.cx], [0.0, self.fy, self.cy], [0.0, 0.0, 1.0]])

    def to_camera(self, points: ArrayLike) -> npt.NDArray[np.float64]:
        """World points (N x 3) in camera coordinates."""
        p = np.asarray(points, dtype=np.float64).reshape(-1, 3)
        result: npt.NDArray[np.float64] = (p - self.position) @ self.rotation.T
        return result

    def project(self, points: ArrayLike, distort: bool = True) -> npt.NDArray[np.float64]:
        """Pixel positions (N x 2) of world points (N x 3), lens distortion included."""
        pc = self.to_camera(points)
        z = np.maximum(pc[:, 2], 1e-6)
        x, y = pc[:, 0] / z, pc[:, 1] / z
        if distort and self.dist != (0.0, 0.0):
            r2 = x * x + y * y
            k = 1.0 + self.dist[0] * r2 + self.dist[1] * r2 * r2
            x, y = x * k, y * k
        return np.stack([self.fx * x + self.cx, self.fy * y + self.cy], axis=1)

    def depth(self, points: ArrayLike) -> npt.NDArray[np.float64]:
        """Distance along the optical axis of world points."""
        return self.to_camera(points)[:, 2]

    def undistort_normalised(
        self, xd: npt.NDArray[np.float32], yd: npt.NDArray[np.float32]
    ) -> tuple[npt.NDArray[np.float32], npt.NDArray[np.float32]]:
        """Invert the radial model by fixed-point iteration (as ``cv2.undistortPoints`` does)."""
        k1, k2 = self.dist
        x, y = xd.copy(), yd.copy()
        for _ in range(8):
            r2 = x * x + y * y
            k = 1.0 + k1 * r2 + k2 * r2 * r2
            x, y = (xd / k).astype(np.float32), (yd / k).astype(np.float32)
        return x, y

    def homography(self, z: float = 0.0) -> npt.NDArray[np.float64]:
        """The 3x3 map from world ``(x, y, 1)`` on the plane at height ``z`` to undistorted pixels."""
        r = self.rotation
        t = -r @ self.position
        m = np.stack([r[:, 0], r[:, 1], r[:, 2] * z + t], axis=1)
        result: npt.NDArray[np.float64] = self.matrix @ m
        return result

    def pixel_rays(self) -> npt.NDArray[np.float32]:
        """World directions (H x W x 3, not normalised) through every pixel centre, no distortion."""
        cached = self._cache.get("rays")
        if cached is None:
            xs = (np.arange(self.width, dtype=np.float32) - self.cx) / self.fx
            ys = (np.arange(self.height, dtype=np.float32) - self.cy) / self.fy
            gx, gy = np.meshgrid(xs, ys)
            d = np.stack([gx, gy, np.ones_like(gx)], axis=-1)
            cached = np.asarray(d @ self.rotation.astype(np.float32), dtype=np.float32)
            self._cache["rays"] = cached
        result: npt.NDArray[np.float32] = cached
        return result

    def plane_points(self, z: float) -> tuple[npt.NDArray[np.float32], npt.NDArray[np.float32], npt.NDArray[np.bool_]]:
        """World ``x, y`` where each pixel's ray meets the plane at height ``z``, and where it does."""
        rays = self.pixel_rays()
        dz = rays[..., 2]
        hits = dz < -1e-4  # rays almost level never meet the plane in view
        t = np.where(hits, (z - self.position[2]) / np.where(hits, dz, -1.0), 0.0)
        t = np.minimum(t, 1e6).astype(np.float32)
        x = (self.position[0] + t * rays[..., 0]).astype(np.float32)
        y = (self.position[1] + t * rays[..., 1]).astype(np.float32)
        return x, y, hits

    def canvas_for_distortion(self) -> tuple[int, int, int, int]:
        """``left, top, width, height`` of the undistorted canvas that covers the distorted image."""
        if self.dist == (0.0, 0.0):
            return 0, 0, self.width, self.height
        w, h = self.width, self.height
        xs = np.concatenate([np.linspace(0, w - 1, 33), np.full(33, w - 1.0), np.linspace(0, w - 1, 33), np.zeros(33)])
        ys = np.concatenate([np.zeros(33), np.linspace(0, h - 1, 33), np.full(33, h - 1.0), np.linspace(0, h - 1, 33)])
        xu, yu = self.undistort_normalised(
            ((xs - self.cx) / self.fx).astype(np.float32), ((ys - self.cy) / self.fy).astype(np.float32)
        )
        px, py = xu * self.fx + self.cx, yu * self.fy + self.cy
        left = max(0, math.ceil(-float(px.min())) + 2)
        top = max(0, math.ceil(-float(py.min())) + 2)
        right = max(0, math.ceil(float(px.max()) - (w - 1)) + 2)
        bottom = max(0, math.ceil(float(py.max()) - (h - 1)) + 2)
        # Strong barrel distortion at a wide angle sends the undistorted corners
        # far out (the inverse diverges); the very corners are then edge pixels
        # rather than a canvas many times the image's size.
        cap_x, cap_y = int(0.6 * w), int(0.6 * h)
        left, right, top, bottom = min(left, cap_x), min(right, cap_x), min(top, cap_y), min(bottom, cap_y)
        return left, top, w + left + right, h + top + bottom

    def distortion_maps(self, left: int, top: int) -> tuple[npt.NDArray[np.float32], npt.NDArray[np.float32]]:
        """``cv2.remap`` maps from the undistorted canvas (offset ``left, top``) to the distorted image.

        Computed at a quarter of the resolution and scaled up: the field is smooth.
        """
        key = f"maps{left},{top}"
        cached: Any = self._cache.get(key)
        if cached is None:
            import cv2

            sw, sh = max(2, self.width // 4), max(2, self.height // 4)
            # Sample where cv2.resize puts the small map's pixel centres.
            xs = ((np.arange(sw) + 0.5) * self.width / sw - 0.5).astype(np.float32)
            ys = ((np.arange(sh) + 0.5) * self.height / sh - 0.5).astype(np.float32)
            gx, gy = np.meshgrid((xs - self.cx) / self.fx, (ys - self.cy) / self.fy)
            xu, yu = self.undistort_normalised(gx.astype(np.float32), gy.astype(np.float32))
            mx = (xu * self.fx + self.cx + left).astype(np.float32)
            my = (yu * self.fy + self.cy + top).astype(np.float32)
            size = (self.width, self.height)
            cached = (
                cv2.resize(mx, size, interpolation=cv2.INTER_LINEAR),
                cv2.resize(my, size, interpolation=cv2.INTER_LINEAR),
            )
            self._cache[key] = cached
        result: tuple[npt.NDArray[np.float32], npt.NDArray[np.float32]] = cached
        return result

    def to_json(self) -> dict[str, Any]:
        """The pose and intrinsics as JSON-ready values."""
        return {
            "size": [self.width, self.height],
            "matrix": [[round(float(v), 4) for v in row] for row in self.matrix],
            "dist": [round(v, 6) for v in self.dist],
            "rotation": [[round(float(v), 6) for v in row] for row in self.rotation],
            "position": [round(float(v), 3) for v in self.position],
            "elevation": round(self.elevation, 3),
            "azimuth": round(self.azimuth, 3),
            "roll": round(self.roll, 3),
        }
