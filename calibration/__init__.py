"""Colour models, calibration profiles and the board reader (scikit-learn).

>>> from rolit.calibration import BoardReader, Profile
>>> BoardReader("classic").variant.name
'classic'
"""

from .errors import CalibrationError
from .model import ColourModel, Reading, default_model
from .profile import Profile, data_folder, default_profile_path
from .reader import BoardReader, calibrate

__all__ = [
    "BoardReader",
    "CalibrationError",
    "ColourModel",
    "Profile",
    "Reading",
    "calibrate",
    "data_folder",
    "default_model",
    "default_profile_path",
]
