"""Rolit balls, ray-cast: a sphere of four coloured segments rolled so one colour faces up.

Each ball is traced only inside its own bounding box: for every pixel the ray
from the camera meets the sphere (or misses it by some fraction of a pixel,
which gives anti-aliased edges), the hit point's angle around the ball's axis
picks the segment, and the surface is shaded with the scene's lights.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from .camera import Camera
from .lighting import Lighting

__all__ = ["Ball", "render_balls"]

F32 = npt.NDArray[Any]  # float32 arrays; numpy and OpenCV stubs widen dtypes freely
Vec = tuple[float, float, float]


@dataclass(frozen=True)
class Ball:
    """A ball in the world.

    ``colours`` are the albedos of the four segments: the one facing up, then
    going round the ball's axis (the second and fourth show at the sides, the
    third faces down). ``axis`` is the horizontal direction of the axis
    (radians), ``tilt`` how far the ball is rolled off straight up (radians).
    Parts below ``floor`` (the board's surface, for a ball in its cup) are hidden.
    """

    centre: Vec
    colours: tuple[Vec, Vec, Vec, Vec]
    radius: float = 11.5
    axis: float = 0.0
    tilt: float = 0.0
    floor: float = 0.0
    gloss: float = 0.7


def _bbox(cam: Camera, ball: Ball) -> tuple[int, int, int, int] | None:
    r = ball.radius
    cx, cy, cz = ball.centre
    corners = np.array([[cx + dx, cy + dy, cz + dz] for dx in (-r, r) for dy in (-r, r) for dz in (-r, r)])
    if np.any(cam.depth(corners) <= 1.0):
        return None
    pts = cam.project(corners, distort=False)
    x0 = max(0, math.floor(float(pts[:, 0].min())) - 2)
    y0 = max(0, math.floor(float(pts[:, 1].min())) - 2)
    x1 = min(cam.width, math.ceil(float(pts[:, 0].max())) + 3)
    y1 = min(cam.height, math.ceil(float(pts[:, 1].max())) + 3)
    if x1 <= x0 or y1 <= y0:
        return None
    return x0, y0, x1, y1


def render_balls(image: F32, cam: Camera, balls: Sequence[Ball], light: Lighting) -> None:
    """Draw ``balls`` over ``image`` (linear RGB on ``cam``'s undistorted canvas), far ones first."""
    if not balls:
        return
    rays = cam.pixel_rays()
    eye = cam.position.astype(np.float32)
    order = np.argsort(-cam.depth([b.centre for b in balls]))
    for i in order:
        ball = balls[int(i)]
        box = _bbox(cam, ball)
        if box is None:
            continue
        x0, y0, x1, y1 = box
        d = rays[y0:y1, x0:x1]
        d = d / np.linalg.norm(d, axis=-1, keepdims=True)
        colour, alpha = _shade(d, eye, ball, light, cam.fx)
        patch = image[y0:y1, x0:x1]
        patch += (colour - patch) * alpha[..., None]


def _shade(d: F32, eye: F32, ball: Ball, light: Lighting, focal: float) -> tuple[F32, F32]:
    """Colour and coverage of one ball over the rays ``d`` (unit vectors)."""
    centre = np.asarray(ball.centre, np.float32)
    r = np.float32(ball.radius)
    oc = eye - centre
    b = d @ oc
    c = float(oc @ oc) - r * r
    disc = b * b - c
    # Distance from the ray to the centre, against the radius, in pixels at
    # that depth: a smooth edge one pixel wide.
    miss = np.sqrt(np.maximum(float(oc @ oc) - b * b, 0.0)) - r
    pixel_mm = np.float32(math.sqrt(float(oc @ oc)) / focal)
    alpha = np.clip(0.5 - miss / pixel_mm, 0.0, 1.0)
    t = -b - np.sqrt(np.maximum(disc, 0.0))
    p = eye + t[..., None] * d
    n = (p - centre) / r
    n /= np.linalg.norm(n, axis=-1, keepdims=True)
    # The board (or table) hides what is below it.
    alpha *= np.clip((p[..., 2] - ball.floor) / pixel_mm + 0.5, 0.0, 1.0)

    # Which segment: the angle round the ball's axis, measured from "up".
    axis = np.array([math.cos(ball.axis), math.sin(ball.axis), 0.0], np.float32)
    z = np.array([0.0, 0.0, 1.0], np.float32)
    side = np.cross(axis, z)
    up = math.cos(ball.tilt) * z + math.sin(ball.tilt) * side
    w = np.cross(axis, up).astype(np.float32)
    phi = np.arctan2(n @ w, n @ up.astype(np.float32))
    frac = (phi + np.float32(math.pi / 4)) / np.float32(math.pi / 2)
    seg = np.floor(frac).astype(np.int64) % 4
    palette = np.asarray(ball.colours, np.float32)
    albedo = palette[seg]
    # Dark seams where the segments meet, about a third of a millimetre wide.
    ring = r * np.sqrt(np.clip(1.0 - (n @ axis) ** 2, 0.0, 1.0))
    to_edge = np.abs(frac - np.round(frac)) * np.float32(math.pi / 2) * ring
    albedo = albedo * (1.0 - 0.45 * np.clip(1.0 - to_edge / 0.35, 0.0, 1.0))[..., None]

    view = -d
    diffuse = np.zeros_like(p)
    spec = np.zeros_like(p)
    for lp, lc in zip(light.positions, light.colours, strict=False):
        lv = lp - p
        dist = np.linalg.norm(lv, axis=-1, keepdims=True)
        lv = lv / dist
        ndl = np.clip(np.sum(n * lv, axis=-1), 0.0, 1.0)
        att = (light.reference / dist[..., 0]) ** 2
        diffuse += lc * (ndl * att)[..., None]
        h = lv + view
        h /= np.linalg.norm(h, axis=-1, keepdims=True)
        ndh = np.clip(np.sum(n * h, axis=-1), 0.0, 1.0)
        highlight = 2.5 * ndh**150 + 0.12 * ndh**14
        spec += lc * (ball.gloss * highlight * att * (ndl > 0))[..., None]
    # Sky light from above; the cup and neighbours shade the lower half.
    contact = np.clip((p[..., 2] - ball.floor) / (0.8 * r), 0.3, 1.0)
    ambient = light.ambient * ((0.45 + 0.55 * np.clip(n[..., 2], 0.0, 1.0)) * contact)[..., None]
    rim = (1.0 - np.clip(np.sum(n * view, axis=-1), 0.0, 1.0)) ** 4
    colour = albedo * (diffuse + ambient) + spec + light.ambient * (0.3 * ball.gloss * rim)[..., None]
    return colour.astype(np.float32), alpha.astype(np.float32)
