"""The app's blueprints: ``pages`` (HTML), ``api`` (JSON actions) and ``stream`` (SSE and MJPEG)."""
