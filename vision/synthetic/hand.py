"""An arm and hand reaching over the board: shape, shadow, and which cells it hides.

The hand is a flat-ish 3D outline (fingers, palm, thumb, forearm, sleeve) that
starts at the fingertips, just above the balls, and rises towards the player's
side of the table. It is projected with the camera and filled, so the cells it
hides follow from the same pixels the image shows.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt

from rolit.engine import Colour

from .camera import Camera
from .lighting import Lighting

__all__ = ["SKIN_TONES", "SLEEVES", "Hand", "HandLayers", "draw_hand", "random_hand"]

F32 = npt.NDArray[Any]  # float32 arrays; numpy and OpenCV stubs widen dtypes freely
Vec = tuple[float, float, float]

# Linear-light skin albedos, light to dark, and sleeve colours.
SKIN_TONES: tuple[Vec, ...] = (
    (0.62, 0.42, 0.33),
    (0.55, 0.34, 0.24),
    (0.42, 0.25, 0.16),
    (0.26, 0.14, 0.08),
    (0.13, 0.07, 0.045),
)
SLEEVES: tuple[Vec | None, ...] = (
    (0.02, 0.03, 0.12),
    (0.25, 0.02, 0.02),
    (0.5, 0.5, 0.48),
    (0.03, 0.03, 0.03),
    (0.05, 0.2, 0.08),
    None,
)


@dataclass(frozen=True)
class Hand:
    """Where the hand is and what it looks like.

    ``target`` is the world point under the fingertips, ``height`` the
    fingertips' height above the board (the ball tops are at about 18 mm),
    ``approach`` the direction (degrees, like a camera azimuth) the arm comes
    from. ``holding`` draws a ball between the fingers.
    """

    target: tuple[float, float]
    height: float = 40.0
    approach: float = 0.0
    skin: Vec = SKIN_TONES[1]
    sleeve: Vec | None = SLEEVES[0]
    sleeve_start: float = 260.0
    scale: float = 1.0
    spread: float = 1.0
    curl: float = 0.3
    left: bool = False
    holding: Colour | None = None


def random_hand(rng: np.random.Generator, target: tuple[float, float], approach: float, **kw: object) -> Hand:
    """A hand of random skin, sleeve and size reaching ``target`` from ``approach`` degrees."""
    fields: dict[str, object] = dict(
        skin=SKIN_TONES[int(rng.integers(len(SKIN_TONES)))],
        sleeve=SLEEVES[int(rng.integers(len(SLEEVES)))],
        sleeve_start=float(rng.uniform(200, 380)),
        scale=float(rng.uniform(0.75, 1.12)),
        spread=float(rng.uniform(0.8, 1.3)),
        curl=float(rng.uniform(0.0, 0.6)),
        left=bool(rng.random() < 0.15),
        height=float(rng.uniform(24, 90)),
    )
    fields.update(kw)
    return Hand(target, approach=approach, **fields)  # type: ignore[arg-type]


def _capsule(a: tuple[float, float], b: tuple[float, float], r: float, n: int = 10) -> list[tuple[float, float]]:
    """Outline of a 2D capsule from ``a`` to ``b`` of radius ``r``."""
    ang = math.atan2(b[1] - a[1], b[0] - a[0])
    pts = []
    for i in range(n + 1):
        t = ang + math.pi / 2 + math.pi * i / n
        pts.append((a[0] + r * math.cos(t), a[1] + r * math.sin(t)))
    for i in range(n + 1):
        t = ang - math.pi / 2 + math.pi * i / n
        pts.append((b[0] + r * math.cos(t), b[1] + r * math.sin(t)))
    return pts


def _outlines(hand: Hand) -> dict[str, list[list[tuple[float, float]]]]:
    """2D outlines in the hand's frame: ``s`` back from the fingertips towards the arm, ``t`` across."""
    k, sp = hand.scale, hand.spread
    side = -1.0 if hand.left else 1.0
    fingers = []
    length = 70.0 * (1.0 - 0.35 * hand.curl)
    for t, extra, width in ((-25.0, 10.0, 7.5), (-8.5, 0.0, 8.5), (8.5, 4.0, 8.3), (25.0, 16.0, 7.0)):
        tip = (extra * k, t * k * sp * side)
        knuckle = ((extra + length - extra * 0.6 + 8) * k, t * k * side * (0.9 + 0.1 * sp))
        fingers.append(_capsule(tip, knuckle, width * k))
    palm = [
        (70 * k, -34 * k),
        (72 * k, 34 * k),
        (150 * k, 36 * k),
        (178 * k, 27 * k),
        (178 * k, -27 * k),
        (150 * k, -34 * k),
    ]
    thumb = _capsule((150 * k, 30 * k * side), (95 * k, 52 * k * side), 10 * k)
    forearm = [(165 * k, -28 * k), (165 * k, 28 * k), (900.0, 45 * k), (900.0, -45 * k)]
    out = {"skin": [palm, thumb, forearm, *fingers], "fingers": fingers}
    if hand.sleeve is not None:
        s0 = hand.sleeve_start * k
        out["sleeve"] = [[(s0, -38 * k), (s0 + 8, 0.0), (s0, 38 * k), (900.0, 60 * k), (900.0, -60 * k)]]
    return out


def _to_world(hand: Hand, pts: list[tuple[float, float]]) -> npt.NDArray[np.float64]:
    a = math.radians(hand.approach)
    back = np.array([math.sin(a), -math.cos(a)])  # towards the player's side, like a camera azimuth
    across = np.array([math.cos(a), math.sin(a)])
    p = np.asarray(pts, np.float64)
    xy = np.asarray(hand.target) + p[:, :1] * back + p[:, 1:] * across
    # The arm rises away from the fingertips, more steeply further back.
    z = hand.height + 0.18 * p[:, 0] + 0.00025 * p[:, 0] ** 2
    return np.column_stack([xy, z])


_NEAR = 5.0


def _clip_near(cam: Camera, world: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
    """The polygon ``world`` cut to the part in front of the camera (the arm may reach behind it)."""
    depth = cam.depth(world) - _NEAR
    if np.all(depth > 0):
        return world
    out = []
    n = len(world)
    for i in range(n):
        a, b = world[i], world[(i + 1) % n]
        da, db = depth[i], depth[(i + 1) % n]
        if da > 0:
            out.append(a)
        if (da > 0) != (db > 0):
            out.append(a + (b - a) * (da / (da - db)))
    return np.asarray(out).reshape(-1, 3)


@dataclass
class HandLayers:
    """The hand drawn on a canvas: coverage (0-1), its colour, and the shadow it casts."""

    alpha: F32
    colour: F32
    shadow: F32


def held_ball_centre(hand: Hand, radius: float) -> Vec:
    """Where a ball in the hand's fingers is."""
    a = math.radians(hand.approach)
    back = (math.sin(a), -math.cos(a))
    s = -4.0 * hand.scale  # just beyond the fingertips, gripped from above
    return (hand.target[0] + back[0] * s, hand.target[1] + back[1] * s, hand.height - radius * 0.3)


def draw_hand(hand: Hand, cam: Camera, light: Lighting) -> HandLayers:
    """Rasterise ``hand`` on ``cam``'s (undistorted) canvas."""
    h, w = cam.height, cam.width
    parts = _outlines(hand)

    def fill(polys: list[list[tuple[float, float]]], shadow_from: F32 | None = None) -> F32:
        mask = np.zeros((h, w), np.uint8)
        for poly in polys:
            world = _to_world(hand, poly)
            if shadow_from is not None:
                lz = float(shadow_from[2])
                k = lz / np.maximum(lz - world[:, 2], 1.0)
                world = shadow_from[None, :] + (world - shadow_from[None, :]) * k[:, None]
                world[:, 2] = 0.0
            world = _clip_near(cam, world)
            if len(world) < 3:
                continue
            img = cam.project(world, distort=False)
            img = np.clip(img, -4 * w, 5 * w)
            cv2.fillPoly(mask, [np.round(img * 16).astype(np.int32)], 255, cv2.LINE_AA, shift=4)
        return mask.astype(np.float32) / 255.0

    skin = fill(parts["skin"])
    sleeve = fill(parts.get("sleeve", []))
    alpha = np.maximum(skin, sleeve)
    # Roundness: darker towards the outline, as a cylinder's sides turn away from the light.
    inside = cv2.distanceTransform((alpha > 0.5).astype(np.uint8), cv2.DIST_L2, 3)
    width_px = max(2.0, float(np.percentile(inside[inside > 0], 90)) if np.any(inside > 0) else 2.0)
    round_ = 0.55 + 0.45 * np.sqrt(np.clip(inside / width_px, 0.0, 1.0))
    light_sum = light.ambient * 1.2 + sum(light.colours) * 0.75
    skin_col = np.asarray(hand.skin, np.float32) * light_sum
    colour = np.broadcast_to(skin_col, (h, w, 3)).copy()
    if hand.sleeve is not None:
        sleeve_col = np.asarray(hand.sleeve, np.float32) * light_sum
        colour = np.where(sleeve[..., None] > 0.5, sleeve_col[None, None, :], colour)
    colour *= round_[..., None]
    # Creases between the fingers.
    crease = np.zeros((h, w), np.uint8)
    for poly in parts["fingers"]:
        world = _to_world(hand, poly)
        if np.all(cam.depth(world) > _NEAR):
            pts = np.round(cam.project(world, distort=False) * 16).astype(np.int32)
            cv2.polylines(crease, [pts], True, 255, 1, cv2.LINE_AA, shift=4)
    colour *= (1.0 - 0.45 * crease.astype(np.float32) / 255.0)[..., None]
    # Shadow of the whole arm from the main lamp, softened with height.
    shadow = fill(parts["skin"] + parts.get("sleeve", []), shadow_from=light.positions[0])
    blur = max(1.0, 0.012 * w * (1.0 + hand.height / 60.0))
    shadow = cv2.GaussianBlur(shadow, (0, 0), blur)
    return HandLayers(alpha.astype(np.float32), colour.astype(np.float32), shadow.astype(np.float32))
