"""Colour models and camera profiles (scikit-learn)."""
