"""Frame sources, board localisation and cell classification (numpy + OpenCV)."""
