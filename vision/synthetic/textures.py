"""Procedural textures: tileable noise, the board's top (colour and surface normals), table tops.

Textures are built once per style and size and cached; sampling them at
arbitrary world coordinates goes through ``cv2.remap``.
"""

from __future__ import annotations

import functools
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt

from .geometry import BoardGeometry
from .params import BOARD_STYLES

__all__ = ["BOARD_PPM", "board_texture", "noise_texture", "sample", "table_albedo"]

F32 = npt.NDArray[Any]  # float32 arrays; numpy and OpenCV stubs widen dtypes freely

# Board texture resolution, pixels per millimetre: enough for a 1080p close-up.
BOARD_PPM = 4.0


@functools.lru_cache(maxsize=8)
def noise_texture(sigma: float, seed: int = 0, size: int = 256) -> F32:
    """Tileable smooth noise (zero mean, unit deviation), filtered in the frequency domain."""
    rng = np.random.default_rng(seed)
    white = rng.standard_normal((size, size))
    f = np.fft.fftfreq(size)
    fx, fy = np.meshgrid(f, f)
    kernel = np.exp(-2 * (np.pi * sigma) ** 2 * (fx**2 + fy**2))
    smooth = np.real(np.fft.ifft2(np.fft.fft2(white) * kernel))
    smooth = (smooth - smooth.mean()) / (smooth.std() + 1e-9)
    out: F32 = smooth.astype(np.float32)
    return out


def sample(texture: F32, u: F32, v: F32, wrap: bool = True) -> F32:
    """``texture`` at fractional pixel coordinates ``u, v`` (bilinear)."""
    border = cv2.BORDER_WRAP if wrap else cv2.BORDER_REPLICATE
    out: F32 = cv2.remap(texture, u, v, cv2.INTER_LINEAR, borderMode=border)
    return out


def _smoothstep(x: F32) -> F32:
    x = np.clip(x, 0.0, 1.0)
    out: F32 = x * x * (3 - 2 * x)
    return out


@functools.lru_cache(maxsize=6)
def board_texture(size: int, style_index: int) -> tuple[F32, F32]:
    """Albedo (H x W x 3) and surface normal (H x W x 3) of a board's top, in board pixels.

    Pixel ``(i, j)`` is at world ``x = (j + 0.5) / BOARD_PPM - half``,
    ``y = half - (i + 0.5) / BOARD_PPM``, where ``half`` is half the board's width.
    """
    geo = BoardGeometry(size)
    style = BOARD_STYLES[style_index]
    half = geo.half_board
    n = round(2 * half * BOARD_PPM)
    coords = (np.arange(n, dtype=np.float32) + 0.5) / BOARD_PPM - half
    x, y = np.meshgrid(coords, -coords)
    albedo = np.empty((n, n, 3), np.float32)
    albedo[:] = style.plastic
    nx = np.zeros((n, n), np.float32)
    ny = np.zeros((n, n), np.float32)

    # Frame: its own colour, with a rounded outer edge and a small step down to the play area.
    edge = np.maximum(np.abs(x), np.abs(y))
    in_frame = edge > geo.half_grid + 4.0
    albedo[in_frame] = style.frame
    bevel = np.clip((edge - (half - 4.0)) / 4.0, 0.0, 1.0)  # rounded outer edge
    step = np.exp(-(((edge - (geo.half_grid + 4.0)) / 0.8) ** 2))  # the inner lip
    ax, ay = np.abs(x) >= np.abs(y), np.abs(y) > np.abs(x)
    tilt = 0.9 * bevel - 0.5 * step
    nx += np.where(ax, np.sign(x) * tilt, 0.0)
    ny += np.where(ay, np.sign(y) * tilt, 0.0)

    # Grid lines between the cells, when the style has them.
    if style.lines is not None:
        cx = (x + geo.half_grid) / geo.pitch
        cy = (geo.half_grid - y) / geo.pitch
        dx = np.abs(cx - np.round(cx)) * geo.pitch
        dy = np.abs(cy - np.round(cy)) * geo.pitch
        inside = edge <= geo.half_grid + 0.8
        line = np.clip(1.2 - np.minimum(dx, dy) * 1.6, 0.0, 1.0) * inside
        albedo += (np.asarray(style.lines, np.float32) - albedo) * line[..., None]

    # Cups: a spherical cap, darker at the bottom where little light reaches,
    # with a rounded rim that catches highlights.
    rs = (geo.cup_radius**2 + geo.cup_depth**2) / (2 * geo.cup_depth)
    h = (size - 1) / 2
    ci = np.round((x / geo.pitch) + h)
    cj = np.round(h - (y / geo.pitch))
    valid = (ci >= 0) & (ci < size) & (cj >= 0) & (cj < size)
    lx = x - (ci - h) * geo.pitch
    ly = y - (h - cj) * geo.pitch
    r = np.sqrt(lx * lx + ly * ly)
    cup = valid & (r < geo.cup_radius)
    inv = 1.0 / rs
    nx = np.where(cup, -lx * inv, nx)
    ny = np.where(cup, -ly * inv, ny)
    rim = valid & (r >= geo.cup_radius) & (r < geo.cup_radius + 1.2)
    rim_tilt = 0.6 * (1.0 - (r - geo.cup_radius) / 1.2)
    safe_r = np.maximum(r, 1e-3)
    nx = np.where(rim, -lx / safe_r * rim_tilt, nx)
    ny = np.where(rim, -ly / safe_r * rim_tilt, ny)
    # Little light reaches the bottom of a cup, and the lip throws a thin dark line.
    depth_frac = np.clip(1.0 - r / geo.cup_radius, 0.0, 1.0) * cup
    lip = np.exp(-(((r - geo.cup_radius + 0.6) / 0.7) ** 2)) * valid
    albedo *= (1.0 - 0.3 * cup - 0.25 * depth_frac - 0.35 * lip)[..., None]

    # Faint moulding noise and scuffs, so large areas are not perfectly flat.
    grain = sample(noise_texture(6.0, 11), x * 0.5, y * 0.5)
    albedo *= (1.0 + 0.012 * grain)[..., None]

    nz = np.sqrt(np.clip(1.0 - nx * nx - ny * ny, 0.05, 1.0))
    normal = np.stack([nx, ny, nz], axis=-1)
    normal /= np.linalg.norm(normal, axis=-1, keepdims=True)
    return np.ascontiguousarray(albedo), np.ascontiguousarray(normal.astype(np.float32))


def _wood(u: F32, v: F32, base: tuple[float, float, float], dark: float, plank: float, seed: int) -> F32:
    warp = sample(noise_texture(10.0, seed), u / 40.0, v / 6.0) * 3.5
    grain = 0.5 + 0.5 * np.sin((v + warp * 2.5) * (2 * np.pi / 7.0))
    fine = sample(noise_texture(1.5, seed + 1), u / 3.0, v / 0.8)
    blotch = sample(noise_texture(16.0, seed + 2), u / 12.0, v / 12.0)
    k = 1.0 - dark * grain**3 + 0.05 * fine + 0.07 * blotch
    seam = np.abs(((v / plank) % 1.0) - 0.5) * plank
    k = k * (1.0 - 0.45 * np.clip(1.0 - (plank / 2 - seam) * 1.2, 0.0, 1.0))
    # Each plank a slightly different shade.
    tone = sample(noise_texture(0.6, seed + 3), np.zeros_like(u) + 7.0, np.floor(v / plank) * 9.0)
    k = k * (1.0 + 0.08 * tone)
    return np.asarray(base, np.float32)[None, None, :] * k[..., None]


def table_albedo(style: str, u: F32, v: F32, seed: int) -> tuple[F32, float]:
    """Albedo of a table top at table coordinates ``u, v`` (mm), and its glossiness 0-1."""
    if style == "oak":
        return _wood(u, v, (0.42, 0.26, 0.13), 0.35, 140.0, seed), 0.35
    if style == "walnut":
        return _wood(u, v, (0.13, 0.065, 0.035), 0.45, 180.0, seed), 0.5
    if style == "pine":
        return _wood(u, v, (0.55, 0.38, 0.18), 0.3, 110.0, seed), 0.25
    fine = sample(noise_texture(1.0, seed + 4), u / 1.2, v / 1.2)
    blotch = sample(noise_texture(14.0, seed + 5), u / 10.0, v / 10.0)
    if style in ("white", "grey"):
        base = (0.70, 0.70, 0.68) if style == "white" else (0.20, 0.21, 0.22)
        k = 1.0 + 0.02 * fine + 0.03 * blotch
        return np.asarray(base, np.float32)[None, None, :] * k[..., None], 0.45
    if style == "felt":
        k = 1.0 + 0.12 * fine + 0.06 * blotch
        return np.asarray((0.03, 0.13, 0.05), np.float32)[None, None, :] * k[..., None], 0.02
    if style == "checked":
        squares = ((np.floor(u / 25.0) + np.floor(v / 25.0)) % 2).astype(np.float32)
        weave = 0.5 + 0.5 * np.sin(u * 2.1) * np.sin(v * 2.1)
        red = np.asarray((0.55, 0.05, 0.04), np.float32)
        white = np.asarray((0.75, 0.72, 0.66), np.float32)
        # Both threads cross in every square, so a square is a blend.
        col = white[None, None, :] * squares[..., None] * 0.85 + red[None, None, :] * (1 - squares[..., None] * 0.7)
        return col * (1.0 + 0.06 * weave + 0.04 * blotch)[..., None], 0.02
    # linen
    weave = 0.5 + 0.5 * np.sin(u * 2.6) * np.sin(v * 2.6)
    k = 1.0 + 0.08 * weave + 0.05 * fine + 0.05 * blotch
    return np.asarray((0.52, 0.44, 0.33), np.float32)[None, None, :] * k[..., None], 0.02
