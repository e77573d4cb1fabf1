"""The conditions of a render: camera, board and table styles, lights, optics.

:class:`RenderParams` holds every knob; :meth:`RenderParams.random` draws a
family-table condition from a numpy :class:`~numpy.random.Generator`, and
:data:`RANGES` lists the range of every numeric knob so tests can check that
each end is reached.

>>> import numpy as np
>>> p = RenderParams.random(np.random.default_rng(1), size=(640, 480))
>>> 30.0 <= p.elevation <= 90.0 and 0.30 <= p.fill <= 0.95
True
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, fields, replace
from typing import Any

import numpy as np

__all__ = [
    "BALL_COLOURS",
    "BOARD_STYLES",
    "BoardStyle",
    "Light",
    "RANGES",
    "RenderParams",
    "TABLE_STYLES",
    "kelvin_rgb",
]

RGB = tuple[float, float, float]

# Linear-light albedo of each ball colour, by Colour value (red, yellow, green,
# blue, grey). Measured by eye against photos of real sets: saturated, glossy.
BALL_COLOURS: dict[int, RGB] = {
    0: (0.62, 0.035, 0.03),
    1: (0.80, 0.56, 0.025),
    2: (0.035, 0.34, 0.07),
    3: (0.02, 0.09, 0.52),
    4: (0.24, 0.24, 0.25),
}


@dataclass(frozen=True)
class BoardStyle:
    """A board's plastic: top, frame and (optional) grid-line colours in linear light."""

    name: str
    plastic: RGB
    frame: RGB
    lines: RGB | None
    gloss: float


BOARD_STYLES: tuple[BoardStyle, ...] = (
    BoardStyle("green", (0.035, 0.20, 0.07), (0.02, 0.12, 0.045), None, 0.5),
    BoardStyle("white", (0.66, 0.66, 0.63), (0.25, 0.30, 0.42), (0.35, 0.36, 0.38), 0.35),
    BoardStyle("black", (0.025, 0.025, 0.03), (0.05, 0.05, 0.055), (0.10, 0.10, 0.11), 0.7),
    BoardStyle("navy", (0.02, 0.05, 0.20), (0.5, 0.5, 0.5), (0.08, 0.12, 0.35), 0.5),
    BoardStyle("grey", (0.22, 0.23, 0.24), (0.08, 0.08, 0.09), None, 0.4),
    BoardStyle("cream", (0.55, 0.46, 0.32), (0.30, 0.10, 0.06), (0.25, 0.18, 0.10), 0.3),
    BoardStyle("teal", (0.03, 0.16, 0.17), (0.6, 0.6, 0.58), (0.15, 0.3, 0.3), 0.45),
)

# Table surfaces (see scene.py for how each is drawn).
TABLE_STYLES: tuple[str, ...] = ("oak", "walnut", "white", "grey", "felt", "checked", "linen", "pine")

# name -> (low, high) of every numeric knob that random() draws.
RANGES: dict[str, tuple[float, float]] = {
    "elevation": (30.0, 90.0),
    "azimuth": (0.0, 360.0),
    "roll": (-10.0, 10.0),
    "fill": (0.30, 0.95),
    "hfov": (48.0, 78.0),
    "k1": (-0.28, 0.08),
    "light_level": (0.12, 1.6),
    "kelvin": (2700.0, 6500.0),
    "white_balance": (0.3, 1.0),
    "vignetting": (0.0, 0.55),
    "noise": (0.002, 0.03),
    "defocus": (0.0, 2.5),
    "motion_blur": (0.0, 9.0),
    "jpeg_quality": (30.0, 97.0),
    "ball_tint": (0.0, 0.08),
    "ball_gloss": (0.25, 1.0),
    "clutter": (0.0, 7.0),
    "lights": (1.0, 2.0),
}


def kelvin_rgb(kelvin: float) -> RGB:
    """Linear RGB of a black body at ``kelvin``, scaled to luminance 1 (Tanner Helland's fit).

    >>> r, g, b = kelvin_rgb(2700)
    >>> r > g > b
    True
    """
    t = kelvin / 100.0
    if t <= 66:
        r = 255.0
        g = 99.4708025861 * math.log(t) - 161.1195681661
        b = 0.0 if t <= 19 else 138.5177312231 * math.log(t - 10) - 305.0447927307
    else:
        r = 329.698727446 * (t - 60) ** -0.1332047592
        g = 288.1221695283 * (t - 60) ** -0.0755148492
        b = 255.0
    srgb = [min(max(v, 0.0), 255.0) / 255.0 for v in (r, g, b)]
    lin = [((v + 0.055) / 1.055) ** 2.4 if v > 0.04045 else v / 12.92 for v in srgb]
    lum = 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2]
    return (lin[0] / lum, lin[1] / lum, lin[2] / lum)


@dataclass(frozen=True)
class Light:
    """A lamp over the table: direction seen from the board, distance, colour, strength, size."""

    azimuth: float = 30.0
    elevation: float = 65.0
    distance: float = 1500.0
    kelvin: float = 4500.0
    power: float = 1.0
    radius: float = 60.0

    def position(self) -> tuple[float, float, float]:
        """World position in millimetres."""
        az, el = math.radians(self.azimuth), math.radians(self.elevation)
        return (
            self.distance * math.cos(el) * math.sin(az),
            -self.distance * math.cos(el) * math.cos(az),
            self.distance * math.sin(el),
        )


@dataclass(frozen=True)
class RenderParams:
    """Everything about how a render looks, except the position and the hand.

    Angles are degrees; ``fill`` is the fraction of the frame's width or height
    (whichever is larger) that the board takes; ``defocus`` and ``motion_blur``
    are in pixels at 720 lines and scale with the frame height.
    """

    size: tuple[int, int] = (1280, 720)
    elevation: float = 70.0
    azimuth: float = 0.0
    roll: float = 0.0
    fill: float = 0.7
    hfov: float = 64.0
    k1: float = -0.08
    k2: float = 0.01
    offset: tuple[float, float] = (0.0, 0.0)
    board_style: int = 0
    board_yaw: float = 0.0
    table_style: int = 0
    clutter: int = 3
    lights: tuple[Light, ...] = (Light(),)
    ambient: float = 0.25
    light_level: float = 1.0
    auto_exposure: float = 0.85
    white_balance: float = 0.8
    vignetting: float = 0.2
    noise: float = 0.008
    defocus: float = 0.4
    motion_blur: float = 0.0
    motion_angle: float = 0.0
    jpeg_quality: int | None = 90
    ball_tint: float = 0.02
    ball_gloss: float = 0.7
    scene_seed: int = 0
    extra: dict[str, Any] = field(default_factory=dict, compare=False)

    @classmethod
    def random(cls, rng: np.random.Generator, size: tuple[int, int] | None = None, **overrides: Any) -> RenderParams:
        """A random family-table condition; ``overrides`` fix chosen knobs."""

        def u(name: str) -> float:
            lo, hi = RANGES[name]
            return float(rng.uniform(lo, hi))

        if size is None:
            sizes = ((640, 480), (800, 600), (1280, 720), (1920, 1080), (960, 540))
            size = sizes[int(rng.integers(len(sizes)))]
        # Most people put the camera on their own side; some anywhere.
        azimuth = float(rng.normal(0.0, 12.0)) % 360.0 if rng.random() < 0.5 else u("azimuth")
        n_lights = 1 if rng.random() < 0.6 else 2
        lights = tuple(
            Light(
                azimuth=float(rng.uniform(0, 360)),
                elevation=float(rng.uniform(35, 88)),
                distance=float(rng.uniform(900, 2200)),
                kelvin=u("kelvin"),
                power=float(rng.uniform(0.5, 1.0)) if i else 1.0,
                radius=float(rng.uniform(20, 150)),
            )
            for i in range(n_lights)
        )
        # A sharp, clean image is common; soft and noisy ones are the tail.
        params = cls(
            size=size,
            elevation=u("elevation"),
            azimuth=azimuth,
            roll=float(np.clip(rng.normal(0, 4), *RANGES["roll"])),
            fill=u("fill"),
            hfov=u("hfov"),
            k1=u("k1"),
            k2=float(rng.uniform(-0.02, 0.04)),
            offset=(float(rng.uniform(-1, 1)), float(rng.uniform(-1, 1))),
            board_style=int(rng.integers(len(BOARD_STYLES))),
            board_yaw=float(rng.uniform(0, 360)),
            table_style=int(rng.integers(len(TABLE_STYLES))),
            clutter=int(rng.integers(0, int(RANGES["clutter"][1]) + 1)),
            lights=lights,
            ambient=float(rng.uniform(0.12, 0.45)),
            light_level=float(
                math.exp(rng.uniform(math.log(RANGES["light_level"][0]), math.log(RANGES["light_level"][1])))
            ),
            auto_exposure=float(rng.uniform(0.6, 1.0)),
            white_balance=u("white_balance"),
            vignetting=u("vignetting"),
            noise=u("noise"),
            defocus=float(rng.uniform(0, RANGES["defocus"][1]) * (rng.random() < 0.6)),
            motion_blur=float(rng.uniform(0, RANGES["motion_blur"][1]) * (rng.random() < 0.3)),
            motion_angle=float(rng.uniform(0, 180)),
            jpeg_quality=int(rng.integers(int(RANGES["jpeg_quality"][0]), int(RANGES["jpeg_quality"][1]) + 1))
            if rng.random() < 0.85
            else None,
            ball_tint=u("ball_tint"),
            ball_gloss=u("ball_gloss"),
            scene_seed=int(rng.integers(2**31)),
        )
        return replace(params, **overrides) if overrides else params

    def nudged(self, elevation: float, azimuth: float, roll: float) -> RenderParams:
        """The same condition with the camera moved by these degrees, as a bumped camera or stand moves it
        (the elevation stops at straight down).

        >>> RenderParams(elevation=89.0).nudged(2.0, 3.0, 1.0).elevation
        90.0
        """
        return replace(self, elevation=min(90.0, self.elevation + elevation), azimuth=self.azimuth + azimuth,
                       roll=self.roll + roll)

    def to_json(self) -> dict[str, Any]:
        """JSON-ready values of every knob."""
        out: dict[str, Any] = {}
        for f in fields(self):
            if f.name == "extra":
                continue
            value = getattr(self, f.name)
            if f.name == "lights":
                value = [vars(light) for light in value]
            elif isinstance(value, tuple):
                value = list(value)
            out[f.name] = value
        out["board_style"] = BOARD_STYLES[self.board_style].name
        out["table_style"] = TABLE_STYLES[self.table_style]
        return out
