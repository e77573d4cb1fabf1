"""What the camera does to the light: exposure, white balance, vignetting, lens distortion,
shake, blur, sensor noise, the tone curve and JPEG compression.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt

from .camera import Camera
from .params import RenderParams

__all__ = ["Optics", "auto_gain", "develop", "shake_matrix"]

F32 = npt.NDArray[Any]  # float32 arrays; numpy and OpenCV stubs widen dtypes freely
U8 = npt.NDArray[np.uint8]

# Middle grey the auto-exposure aims for, in linear light.
_TARGET = 0.16


@dataclass(frozen=True)
class Optics:
    """Per-frame camera state: gain (exposure times ISO), white-balance gains, shake."""

    gain: float
    wb: tuple[float, float, float]
    shake: npt.NDArray[np.float64] | None = None


def auto_gain(linear: F32, params: RenderParams) -> float:
    """The exposure an auto-exposure camera picks for ``linear``; ``params.auto_exposure`` is how fully."""
    small = cv2.resize(linear, (64, 36), interpolation=cv2.INTER_AREA)
    lum = float(np.mean(small @ np.array([0.2126, 0.7152, 0.0722], np.float32)))
    full = _TARGET / max(lum, 1e-4)
    # A camera that does not fully compensate still leaves dim scenes dim.
    return float(full**params.auto_exposure * (_TARGET / 0.16) ** (1 - params.auto_exposure))


def white_balance(cast: F32, strength: float) -> tuple[float, float, float]:
    """Channel gains that remove ``strength`` of a light's colour cast, keeping luminance."""
    c = np.maximum(cast / max(float(cast @ np.array([0.2126, 0.7152, 0.0722], np.float32)), 1e-6), 1e-3)
    g = c ** (-strength)
    g = g / float(g @ np.array([0.2126, 0.7152, 0.0722]))
    return (float(g[0]), float(g[1]), float(g[2]))


def shake_matrix(dx: float, dy: float, angle: float, size: tuple[int, int]) -> npt.NDArray[np.float64]:
    """A 2x3 affine map: a turn of ``angle`` degrees about the centre and a shift of ``dx, dy`` pixels."""
    w, h = size
    m = cv2.getRotationMatrix2D(((w - 1) / 2, (h - 1) / 2), angle, 1.0)
    m[:, 2] += np.array([dx, dy])
    return np.asarray(m, np.float64)


def _vignette(size: tuple[int, int], amount: float) -> F32:
    w, h = size
    xs = (np.arange(w, dtype=np.float32) - (w - 1) / 2) / (w / 2)
    ys = (np.arange(h, dtype=np.float32) - (h - 1) / 2) / (w / 2)
    r2 = xs[None, :] ** 2 + ys[:, None] ** 2
    r2 /= float(r2.max())
    out: F32 = (1.0 - amount * r2 * (0.6 + 0.4 * r2)).astype(np.float32)
    return out


def develop(
    canvas: F32, cam: Camera, offset: tuple[int, int], params: RenderParams, optics: Optics, rng: np.random.Generator
) -> U8:
    """The 8-bit BGR image the camera delivers from the linear RGB ``canvas``.

    ``canvas`` is undistorted and starts ``offset`` pixels before the image (see
    :meth:`Camera.canvas_for_distortion`); ``cam`` is the output camera.
    """
    size = (cam.width, cam.height)
    scale = cam.height / 720.0
    gains = np.asarray(optics.wb, np.float32) * np.float32(optics.gain)
    img = canvas * gains[None, None, :]
    if cam.dist != (0.0, 0.0) or offset != (0, 0):
        mx, my = cam.distortion_maps(*offset)
        img = cv2.remap(img, mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REFLECT)
    if optics.shake is not None:
        img = cv2.warpAffine(img, optics.shake, size, flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REFLECT)
    if params.vignetting > 0:
        img *= _vignette(size, params.vignetting)[..., None]
    if params.defocus > 0.05:
        img = np.asarray(cv2.GaussianBlur(img, (0, 0), params.defocus * scale), np.float32)
    if params.motion_blur > 0.5:
        img = _motion_blur(img, params.motion_blur * scale, params.motion_angle)
    # Sensor noise: shot noise grows with the signal, read noise with the gain.
    np.clip(img, 0.0, 1.0, out=img)
    read = params.noise * math.sqrt(max(optics.gain, 0.1) / 3.0)
    sigma = np.sqrt(read * read + 0.004 * params.noise * 60 * img)
    noise = rng.standard_normal(img.shape, dtype=np.float32)
    # Neighbouring photosites share charge and demosaicing mixes them: slightly smooth noise.
    noise = cv2.GaussianBlur(noise, (3, 3), 0.6) * np.float32(1.6)
    img = img + noise * sigma
    # Tone: sRGB encoding and the mild S-curve webcams apply.
    np.clip(img, 0.0, 1.0, out=img)
    srgb = np.where(img <= 0.0031308, img * 12.92, 1.055 * np.power(img, 1 / 2.4) - 0.055)
    srgb = srgb + 0.06 * np.sin(2 * np.pi * srgb) / (2 * np.pi) * 2.0
    out = np.clip(srgb * 255.0 + 0.5, 0, 255).astype(np.uint8)
    out = np.ascontiguousarray(out[..., ::-1])  # RGB -> BGR, OpenCV's order
    if params.jpeg_quality is not None:
        ok, data = cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, int(params.jpeg_quality)])
        if ok:
            out = cv2.imdecode(data, cv2.IMREAD_COLOR)
    result: U8 = out
    return result


def _motion_blur(img: F32, length: float, angle: float) -> F32:
    k = max(3, round(length) | 1)
    kernel = np.zeros((k, k), np.float32)
    c = (k - 1) / 2
    a = math.radians(angle)
    for t in np.linspace(-c, c, 4 * k):
        kernel[round(c + t * math.sin(a)), round(c + t * math.cos(a))] = 1.0
    kernel /= kernel.sum()
    out: F32 = cv2.filter2D(img, -1, kernel, borderType=cv2.BORDER_REFLECT)
    return out
