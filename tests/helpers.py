"""Small builders for test positions."""

from __future__ import annotations

from typing import Any

from rolit.engine import Board, Colour, Position, parse_square
from rolit.vision.locate import grids_apart as grids_apart  # the tests import it from here


def board_with(size: int = 8, **balls: str) -> Board:
    """A board from colour letters to square lists: ``board_with(R="a1 b2", G="c3")``."""
    cells: dict[int, Colour | None] = {}
    for letter, names in balls.items():
        for name in names.split():
            cells[parse_square(name, size)] = Colour.from_letter(letter)
    return Board.empty(size).replace(cells)  # type: ignore[arg-type]


def position_with(turn: Colour, size: int = 8, variant: str | None = None, players: int = 4, **balls: str) -> Position:
    """A position with the given balls and ``turn`` to move."""
    v = variant or {8: "classic", 6: "quick6", 4: "quick4"}[size]
    return Position.from_board(board_with(size, **balls), v, turn=turn, players=players)


def unseen_scene(k: int) -> tuple[str, Board, Any]:
    """Scene ``k`` of the vision bench's unseen range (no hand): its variant, board and render parameters."""
    from rolit.calibration.bench import draw_scene

    variant, board, params, _, _ = draw_scene(k)
    return variant, board, params


def bent(corners: Any, n: int, corner: int, cells: float) -> Any:
    """The grid with one corner moved ``cells`` cells outwards along the diagonal: a wrong perspective."""
    import numpy as np

    from rolit.vision.locate import apply_homography, grid_homography

    box = np.array([[0, 0], [n, 0], [n, n], [0, n]], np.float64)
    box[corner] += cells * np.sign(box[corner] - n / 2)
    return apply_homography(grid_homography(corners, n), box)


def start_scene(k: int) -> tuple[Any, Any, int]:
    """Scene ``k``'s start position (see :func:`unseen_scene`): the picture, the true grid's corners (beside a1
    first) and the board's size.

    The true grid is the homography that best fits the cups' true centres:
    the lens bends the board a little, and a grid is a homography.
    """
    import cv2
    import numpy as np

    from rolit.vision.locate import apply_homography
    from rolit.vision.synthetic.renderer import render

    variant, _, params = unseen_scene(k)
    image, truth = render(Position.start(variant).board(), params, variant=variant)
    n = truth.board.size
    squares = sorted(truth.cells)
    # Squares number the cells row * 8 + column on every board size.
    grid = np.array([(sq % 8 + 0.5, sq // 8 + 0.5) for sq in squares], np.float64)
    fit, _ = cv2.findHomography(grid, np.array([truth.cells[sq] for sq in squares], np.float64), 0)
    box = np.array([[0, 0], [n, 0], [n, n], [0, n]], np.float64)
    return image, apply_homography(fit, box), n


def names(squares: list[int]) -> list[str]:
    from rolit.engine import square_name

    return sorted(square_name(s) for s in squares)


# Positions the search tests share: a corner to take on 8x8, a forced win on 4x4,
# and a corner two players fight over.
CORNER = """
........
.G......
..R.....
...RY...
...BG...
........
........
........
"""

FORCED_WIN = """
.GGG
.GRR
GGRR
.R.R
"""

CONTESTED_CORNER = """
........
GR......
R.G.....
...RY...
...BG...
........
........
........
"""


def make_client(app):  # type: ignore[no-untyped-def]
    """A Flask test client of a table-page ``app`` that acts like the page: it sends the CSRF token."""
    client = app.test_client()
    token = app.config.get("CSRF_TOKEN")
    if token:
        client.environ_base["HTTP_X_CSRF_TOKEN"] = token
    return client


class MjpegServer:
    """A phone camera app in miniature: serves ``frames`` (JPEG bytes, in a loop) as an HTTP
    MJPEG stream at ``url``; :meth:`stop` drops every connection, :meth:`start` comes back on
    the same port."""

    def __init__(self, frames: list[bytes], fps: float = 20.0) -> None:
        import socket

        self.frames = frames
        self.fps = fps
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            self.port = int(s.getsockname()[1])
        self.url = f"http://127.0.0.1:{self.port}/video.mjpg"
        self._server = None
        self._stopped = None

    def start(self) -> MjpegServer:
        import threading
        import time
        from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

        stopped = self._stopped = threading.Event()
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                self.send_response(200)
                self.send_header("Content-Type", "multipart/x-mixed-replace; boundary=frame")
                self.end_headers()
                i = 0
                try:
                    while not stopped.is_set():
                        frame = outer.frames[i % len(outer.frames)]
                        i += 1
                        self.wfile.write(b"--frame\r\nContent-Type: image/jpeg\r\nContent-Length: %d\r\n\r\n"
                                         % len(frame) + frame + b"\r\n")
                        time.sleep(1.0 / outer.fps)
                except OSError:
                    pass

            def log_message(self, *args: object) -> None:
                pass

        ThreadingHTTPServer.allow_reuse_address = True
        self._server = ThreadingHTTPServer(("127.0.0.1", self.port), Handler)
        self._server.daemon_threads = True
        threading.Thread(target=self._server.serve_forever, daemon=True).start()
        return self

    def stop(self) -> None:
        if self._stopped is not None:
            self._stopped.set()
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None


def renderer_lens(params: Any) -> float:
    """The renderer's lens (``params.k1``, ``k2``: OpenCV's radial model in focal lengths) as one
    :class:`rolit.vision.lens.Lens` term in half-diagonals; ``k2`` is small and counted where it weighs most."""
    import math

    w, h = params.size
    focal = (w / 2) / math.tan(math.radians(params.hfov) / 2)
    a = (math.hypot(w, h) / 2 / focal) ** 2
    return float(params.k1 * a + params.k2 * a * a * 0.45)
