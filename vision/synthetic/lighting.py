"""The lights of a scene in the form the shaders use."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from .params import RenderParams, kelvin_rgb

__all__ = ["Lighting"]

F32 = npt.NDArray[Any]  # float32 arrays; numpy and OpenCV stubs widen dtypes freely


@dataclass(frozen=True)
class Lighting:
    """Light positions (mm) and linear RGB strengths, the ambient light, and lamp sizes.

    ``reference`` is the distance at which a lamp gives its nominal strength;
    nearer or farther it follows the inverse square law.
    """

    positions: tuple[F32, ...]
    colours: tuple[F32, ...]
    radii: tuple[float, ...]
    ambient: F32
    reference: float

    @classmethod
    def from_params(cls, params: RenderParams, scale: float = 1.0) -> Lighting:
        """The lights of ``params``, all strengths multiplied by ``scale`` (flicker)."""
        level = params.light_level * scale
        positions = tuple(np.asarray(light.position(), np.float32) for light in params.lights)
        colours = tuple(
            np.asarray(kelvin_rgb(light.kelvin), np.float32) * np.float32(light.power * level)
            for light in params.lights
        )
        mix = sum(colours) / max(1, len(colours))
        ambient = np.asarray(mix, np.float32) * np.float32(params.ambient)
        reference = float(np.mean([light.distance for light in params.lights]))
        return cls(positions, colours, tuple(light.radius for light in params.lights), ambient, reference)

    def cast(self) -> F32:
        """The average colour of the light, for white balance."""
        total = sum(self.colours) + self.ambient
        return np.asarray(total, np.float32)
