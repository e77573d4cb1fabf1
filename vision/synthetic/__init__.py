"""The synthetic camera: photo-like renders of Rolit positions and game clips, with ground truth.

>>> from rolit.engine import Position
>>> image, truth = render(Position.start("classic").board(), RenderParams(size=(320, 240)))
>>> image.shape, sorted(truth.ball_tops) == [27, 28, 35, 36]
((240, 320, 3), True)
"""

from .camera import Camera
from .geometry import BoardGeometry
from .hand import Hand, random_hand
from .params import RANGES, Light, RenderParams
from .renderer import GroundTruth, Renderer, place_camera, render

__all__ = [
    "BoardGeometry",
    "Camera",
    "GroundTruth",
    "Hand",
    "Light",
    "RANGES",
    "RenderParams",
    "Renderer",
    "place_camera",
    "random_hand",
    "render",
]
