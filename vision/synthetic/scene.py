"""The world around the balls: the board, the table it stands on, clutter, shadows.

:class:`Scene` is everything that stays put while a game is played (board
style, table, clutter, lights, the ball set's colours); :func:`render_planes`
shades the flat surfaces (table, board top and sides) for one camera, with the
shadows the balls cast.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt

from rolit.engine import Colour, Variant

from .balls import Ball
from .camera import Camera
from .geometry import BoardGeometry
from .lighting import Lighting
from .params import BALL_COLOURS, BOARD_STYLES, TABLE_STYLES, BoardStyle, RenderParams
from .textures import BOARD_PPM, board_texture, noise_texture, sample, table_albedo

__all__ = ["ClutterItem", "Scene", "render_planes"]

F32 = npt.NDArray[Any]  # float32 arrays; numpy and OpenCV stubs widen dtypes freely
Vec = tuple[float, float, float]

# Things people leave on a games table: flat, so they are drawn into the table top.
_CLUTTER_KINDS = ("paper", "book", "phone", "coaster", "pencil", "card", "box")


@dataclass(frozen=True)
class ClutterItem:
    """A flat object on the table: centre, size and turn in world millimetres and degrees."""

    kind: str
    x: float
    y: float
    w: float
    h: float
    angle: float
    colour: Vec


@dataclass(frozen=True)
class Scene:
    """The fixed part of a render: board, table, clutter, ball set."""

    variant: Variant
    params: RenderParams
    geometry: BoardGeometry
    style: BoardStyle
    table_style: str
    table_centre: tuple[float, float]
    table_size: tuple[float, float]
    table_angle: float
    clutter: tuple[ClutterItem, ...]
    spare_balls: tuple[Ball, ...]
    palette: dict[Colour, Vec]

    @classmethod
    def build(cls, variant: Variant, params: RenderParams) -> Scene:
        """Lay out a scene for ``variant`` from ``params`` (deterministic in ``params.scene_seed``)."""
        rng = np.random.default_rng(params.scene_seed)
        geo = BoardGeometry(variant.size)
        palette: dict[Colour, Vec] = {}
        for colour in variant.colours:
            base = np.asarray(BALL_COLOURS[int(colour)])
            # A ball set is a little different from the next: tint and brightness.
            tint = 1.0 + rng.normal(0.0, params.ball_tint, 3)
            r, g, b = (float(v) for v in np.clip(base * tint, 0.005, 0.95))
            palette[colour] = (r, g, b)
        # The table: the board somewhere on it, the table's edge maybe in view.
        table_size = (float(rng.uniform(900, 1800)), float(rng.uniform(750, 1100)))
        table_angle = params.board_yaw
        shift = (float(rng.uniform(-0.3, 0.3) * table_size[0]), float(rng.uniform(-0.35, 0.1) * table_size[1]))
        items: list[ClutterItem] = []
        spares: list[Ball] = []
        placed = 0
        for _ in range(params.clutter * 4):
            if placed >= params.clutter:
                break
            kind = _CLUTTER_KINDS[int(rng.integers(len(_CLUTTER_KINDS)))]
            w, h, look = _clutter_look(kind, rng)
            dist = float(rng.uniform(geo.half_board + max(w, h) / 2 + 15, geo.half_board + 420))
            ang = float(rng.uniform(0, 2 * math.pi))
            x, y = dist * math.cos(ang), dist * math.sin(ang)
            if any(math.hypot(x - o.x, y - o.y) < (max(w, h) + max(o.w, o.h)) / 2 for o in items):
                continue
            items.append(ClutterItem(kind, x, y, w, h, float(rng.uniform(0, 180)), look))
            placed += 1
        # A few spare balls left lying on the table.
        if params.clutter >= 2:
            colours = list(variant.colours)
            for _ in range(int(rng.integers(0, 4))):
                dist = float(rng.uniform(geo.half_board + 25, geo.half_board + 200))
                ang = float(rng.uniform(0, 2 * math.pi))
                up = colours[int(rng.integers(4))]
                spares.append(
                    ball_for(
                        palette,
                        variant,
                        up,
                        (dist * math.cos(ang), dist * math.sin(ang), -geo.thickness + geo.ball_radius),
                        geo,
                        rng,
                        floor=-geo.thickness,
                        tilt=float(rng.uniform(-1.2, 1.2)),
                    )
                )
        return cls(
            variant,
            params,
            geo,
            BOARD_STYLES[params.board_style],
            TABLE_STYLES[params.table_style],
            shift,
            table_size,
            table_angle,
            tuple(items),
            tuple(spares),
            palette,
        )


def ball_for(
    palette: dict[Colour, Vec],
    variant: Variant,
    up: Colour,
    centre: Vec,
    geo: BoardGeometry,
    rng: np.random.Generator,
    *,
    floor: float = 0.0,
    tilt: float | None = None,
    gloss: float = 0.7,
) -> Ball:
    """A ball of ``palette`` showing ``up``, its axis turned at random."""
    order = list(variant.colours)  # Round the ball: red, yellow, green, blue: opposite colours face away.
    k = order.index(up)
    c0, c1, c2, c3 = (palette[order[(k + j) % 4]] for j in range(4))
    return Ball(
        centre,
        (c0, c1, c2, c3),
        geo.ball_radius,
        float(rng.uniform(0, math.pi)),
        float(rng.normal(0, 0.08)) if tilt is None else tilt,
        floor,
        gloss,
    )


def _clutter_look(kind: str, rng: np.random.Generator) -> tuple[float, float, Vec]:
    def pick(*choices: Vec) -> Vec:
        return choices[int(rng.integers(len(choices)))]

    if kind == "paper":
        return 210.0, 297.0, pick((0.78, 0.78, 0.76), (0.75, 0.72, 0.6))
    if kind == "book":
        return (
            float(rng.uniform(130, 200)),
            float(rng.uniform(190, 260)),
            pick((0.5, 0.06, 0.05), (0.05, 0.12, 0.35), (0.6, 0.45, 0.05), (0.08, 0.08, 0.08), (0.1, 0.3, 0.12)),
        )
    if kind == "phone":
        return 72.0, 150.0, (0.012, 0.012, 0.015)
    if kind == "coaster":
        return 100.0, 100.0, pick((0.35, 0.22, 0.12), (0.5, 0.5, 0.5))
    if kind == "pencil":
        return 7.0, 175.0, pick((0.6, 0.4, 0.02), (0.03, 0.1, 0.4), (0.5, 0.03, 0.03))
    if kind == "card":
        return 63.0, 88.0, pick((0.7, 0.7, 0.7), (0.6, 0.1, 0.1))
    # The game's box lid: bright print.
    return 330.0, 330.0, pick((0.05, 0.15, 0.45), (0.55, 0.05, 0.05))


def _clutter_albedo(item: ClutterItem, lu: F32, lv: F32, base: F32) -> F32:
    """Albedo of ``item`` over local coordinates ``lu, lv`` (mm from its centre), ``base`` elsewhere."""
    if item.kind == "coaster":
        inside = np.clip(item.w / 2 - np.sqrt(lu * lu + lv * lv) + 0.5, 0.0, 1.0)
    else:
        inside = np.clip(item.w / 2 - np.abs(lu) + 0.5, 0.0, 1.0) * np.clip(item.h / 2 - np.abs(lv) + 0.5, 0.0, 1.0)
    col = np.broadcast_to(np.asarray(item.colour, np.float32), base.shape).copy()
    if item.kind == "paper":
        # Printed lines of text.
        line = (
            (np.abs(((lv + 200) % 8.0) - 4.0) < 1.2) & (np.abs(lu) < item.w / 2 - 25) & (np.abs(lv) < item.h / 2 - 30)
        )
        col[line] *= 0.25
    elif item.kind == "phone":
        screen = (np.abs(lu) < item.w / 2 - 4) & (np.abs(lv) < item.h / 2 - 10)
        col[screen] = (0.02, 0.03, 0.05)
    elif item.kind == "box":
        # A picture of balls on the lid.
        blobs = (np.sin(lu / 18.0) * np.sin(lv / 18.0)) > 0.6
        col[blobs] = (0.7, 0.55, 0.05)
        border = (np.abs(lu) > item.w / 2 - 12) | (np.abs(lv) > item.h / 2 - 12)
        col[border] = (0.7, 0.7, 0.7)
    out: F32 = base + (col - base) * inside[..., None]
    return out


def _shadow_factor(dist: F32, radius: float, pen: F32) -> F32:
    """1 in full light, 0 in the umbra, soft across the penumbra."""
    out: F32 = np.clip((dist - radius) / pen + 0.5, 0.0, 1.0)
    return out


def render_planes(
    scene: Scene, cam: Camera, light: Lighting, balls: Sequence[Ball]
) -> tuple[F32, npt.NDArray[np.bool_]]:
    """Linear RGB of the table, the board's top and sides, with shadows, on ``cam``'s canvas.

    Returns the image and the mask of the board's top surface.
    """
    geo = scene.geometry
    hb = geo.half_board
    h, w = cam.height, cam.width
    x0, y0, hit0 = cam.plane_points(0.0)
    top = hit0 & (np.abs(x0) < hb) & (np.abs(y0) < hb)

    # Table (and beyond its edge, the floor; above the horizon, a wall).
    tz = -geo.thickness
    xt, yt, hitt = cam.plane_points(tz)
    ca, sa = math.cos(math.radians(scene.table_angle)), math.sin(math.radians(scene.table_angle))
    dx, dy = xt - scene.table_centre[0], yt - scene.table_centre[1]
    u = (ca * dx + sa * dy).astype(np.float32)
    v = (-sa * dx + ca * dy).astype(np.float32)
    on_table = hitt & (np.abs(u) < scene.table_size[0] / 2) & (np.abs(v) < scene.table_size[1] / 2)
    seed = scene.params.scene_seed % 1000
    albedo, table_gloss = table_albedo(scene.table_style, u, v, seed)
    # Clutter: rotated rectangles (or discs) in the table's plane.
    for item in scene.clutter:
        corners = [
            (
                item.x
                + sx * item.w / 2 * math.cos(math.radians(item.angle))
                - sy * item.h / 2 * math.sin(math.radians(item.angle)),
                item.y
                + sx * item.w / 2 * math.sin(math.radians(item.angle))
                + sy * item.h / 2 * math.cos(math.radians(item.angle)),
                tz,
            )
            for sx in (-1, 1)
            for sy in (-1, 1)
        ]
        if np.any(cam.depth(corners) <= 1.0):
            continue
        pts = cam.project(corners, distort=False)
        bx0, by0 = max(0, int(pts[:, 0].min()) - 2), max(0, int(pts[:, 1].min()) - 2)
        bx1, by1 = min(w, int(pts[:, 0].max()) + 3), min(h, int(pts[:, 1].max()) + 3)
        if bx1 <= bx0 or by1 <= by0:
            continue
        ia = math.radians(item.angle)
        px, py = xt[by0:by1, bx0:bx1] - item.x, yt[by0:by1, bx0:bx1] - item.y
        lu = (math.cos(ia) * px + math.sin(ia) * py).astype(np.float32)
        lv = (-math.sin(ia) * px + math.cos(ia) * py).astype(np.float32)
        region = albedo[by0:by1, bx0:bx1]
        albedo[by0:by1, bx0:bx1] = np.where(
            on_table[by0:by1, bx0:bx1, None], _clutter_albedo(item, lu, lv, region), region
        )
    zf = tz - 740.0
    xf, yf, hitf = cam.plane_points(zf)
    floor = sample(noise_texture(3.0, 7), xf / 15.0, yf / 15.0)
    floor_col = np.asarray((0.09, 0.075, 0.06), np.float32)[None, None, :] * (1.0 + 0.15 * floor)[..., None]
    albedo = np.where(on_table[..., None], albedo, floor_col)
    wall = ~hitf & ~on_table

    # Board top from its texture.
    tex_albedo, tex_normal = board_texture(geo.size, scene.params.board_style)
    px = ((x0 + hb) * BOARD_PPM - 0.5).astype(np.float32)
    py = ((hb - y0) * BOARD_PPM - 0.5).astype(np.float32)
    rows, cols = np.nonzero(top.any(axis=1))[0], np.nonzero(top.any(axis=0))[0]
    normal = np.zeros((h, w, 3), np.float32)
    normal[..., 2] = 1.0
    if rows.size:
        r0, r1, c0, c1 = rows[0], rows[-1] + 1, cols[0], cols[-1] + 1
        sub = top[r0:r1, c0:c1, None]
        ta = cv2.remap(
            tex_albedo, px[r0:r1, c0:c1], py[r0:r1, c0:c1], cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE
        )
        tn = cv2.remap(
            tex_normal, px[r0:r1, c0:c1], py[r0:r1, c0:c1], cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE
        )
        albedo[r0:r1, c0:c1] = np.where(sub, ta, albedo[r0:r1, c0:c1])
        normal[r0:r1, c0:c1] = np.where(sub, tn, normal[r0:r1, c0:c1])

    zs = np.where(top, 0.0, np.where(on_table, tz, zf)).astype(np.float32)
    pts = np.stack(
        [np.where(top, x0, np.where(on_table, xt, xf)), np.where(top, y0, np.where(on_table, yt, yf)), zs], axis=-1
    )
    gloss = np.where(top, scene.style.gloss, np.where(on_table, table_gloss, 0.0)).astype(np.float32)

    # Shadows, one factor per light; ambient occlusion round the balls.
    shadows = [np.ones((h, w), np.float32) for _ in light.positions]
    ao = np.ones((h, w), np.float32)
    for k, lp in enumerate(light.positions):
        # The board casts a shadow on the table: does the way to the lamp cross the board's top?
        s = (tz - 0.0) / (float(lp[2]) - tz)
        qx = xt + (float(lp[0]) - xt) * -s
        qy = yt + (float(lp[1]) - yt) * -s
        inside = hb - np.maximum(np.abs(qx), np.abs(qy))
        shadows[k] *= np.where(on_table, np.clip(0.5 - inside / 3.0, 0.0, 1.0), 1.0)
    for ball in [*balls, *scene.spare_balls]:
        _ball_shadow(cam, ball, pts, light, shadows, ao)

    image = _shade_planes(albedo, normal, pts, gloss, cam, light, shadows, ao)
    image[wall] = np.asarray(light.ambient, np.float32) * np.float32(0.6)
    _draw_sides(image, scene, cam, light)
    return image, top


def _ball_shadow(cam: Camera, ball: Ball, pts: F32, light: Lighting, shadows: list[F32], ao: F32) -> None:
    """Darken where ``ball`` blocks each lamp, on the surface it stands on."""
    bx, by, bz = ball.centre
    r = ball.radius
    reach = r * 2.2
    extents: list[Vec] = [(bx + sx * reach, by + sy * reach, ball.floor) for sx in (-1, 1) for sy in (-1, 1)]
    for lp in light.positions:
        k = (bz - ball.floor) / max(float(lp[2]) - bz, 1.0)
        sx0, sy0 = bx + (bx - float(lp[0])) * k, by + (by - float(lp[1])) * k
        extents += [(sx0 + ex * reach, sy0 + ey * reach, ball.floor) for ex in (-1, 1) for ey in (-1, 1)]
    if np.any(cam.depth(extents) <= 1.0):
        return
    proj = cam.project(extents, distort=False)
    h, w = ao.shape
    x0, y0 = max(0, int(proj[:, 0].min()) - 1), max(0, int(proj[:, 1].min()) - 1)
    x1, y1 = min(w, int(proj[:, 0].max()) + 2), min(h, int(proj[:, 1].max()) + 2)
    if x1 <= x0 or y1 <= y0:
        return
    p = pts[y0:y1, x0:x1]
    on = np.abs(p[..., 2] - ball.floor) < 0.5  # only the surface the ball stands on
    centre = np.asarray(ball.centre, np.float32)
    bp = centre - p
    for k, (lp, radius) in enumerate(zip(light.positions, light.radii, strict=False)):
        d = lp - p
        dn = d / np.linalg.norm(d, axis=-1, keepdims=True)
        along = np.sum(bp * dn, axis=-1)
        perp = np.linalg.norm(bp - along[..., None] * dn, axis=-1)
        pen = np.maximum(0.6, radius * np.maximum(along, 0.0) / np.linalg.norm(lp - centre))
        f = np.where((along > 0) & on, _shadow_factor(perp, r, pen), 1.0)
        shadows[k][y0:y1, x0:x1] *= f
    flat = np.hypot(p[..., 0] - bx, p[..., 1] - by)
    occl = np.clip(1.0 - (flat - 0.6 * r) / (0.9 * r), 0.0, 1.0)
    ao[y0:y1, x0:x1] *= np.where(on, 1.0 - 0.6 * occl, 1.0)
    # The gap between the ball and its cup: direct light hardly gets in either.
    for s in shadows:
        s[y0:y1, x0:x1] *= np.where(on, 1.0 - 0.45 * np.clip(1.0 - (flat - 0.85 * r) / (0.35 * r), 0.0, 1.0), 1.0)


def _shade_planes(
    albedo: F32, normal: F32, pts: F32, gloss: F32, cam: Camera, light: Lighting, shadows: list[F32], ao: F32
) -> F32:
    """Lambert and Blinn-Phong shading; works on separate x, y, z planes, which numpy does fastest."""
    nx, ny, nz = (np.ascontiguousarray(normal[..., i]) for i in range(3))
    px, py, pz = (np.ascontiguousarray(pts[..., i]) for i in range(3))
    ex, ey, ez = (float(v) for v in cam.position)
    vx, vy, vz = ex - px, ey - py, ez - pz
    inv = 1.0 / np.sqrt(vx * vx + vy * vy + vz * vz)
    vx *= inv
    vy *= inv
    vz *= inv
    sky = ao * (0.6 + 0.4 * nz)
    diffuse = [light.ambient[i] * sky for i in range(3)]
    spec = [np.zeros_like(px) for _ in range(3)]
    shininess = 8.0 + 140.0 * gloss
    strength = (0.02 + 0.5 * gloss * gloss) * (shininess + 8) / 50.0
    for lp, lc, shadow in zip(light.positions, light.colours, shadows, strict=False):
        lx, ly, lz = float(lp[0]) - px, float(lp[1]) - py, float(lp[2]) - pz
        d2 = lx * lx + ly * ly + lz * lz
        inv = 1.0 / np.sqrt(d2)
        lx *= inv
        ly *= inv
        lz *= inv
        ndl = np.clip(nx * lx + ny * ly + nz * lz, 0.0, 1.0)
        att = (light.reference * light.reference) / d2 * shadow
        lit = ndl * att
        hx, hy, hz = lx + vx, ly + vy, lz + vz
        ndh = np.clip((nx * hx + ny * hy + nz * hz) / np.sqrt(hx * hx + hy * hy + hz * hz), 0.0, 1.0)
        glint = strength * np.exp(shininess * np.log(np.maximum(ndh, 1e-6))) * att * (ndl > 0)
        for i in range(3):
            diffuse[i] += float(lc[i]) * lit
            spec[i] += float(lc[i]) * glint
    image = np.empty_like(albedo)
    for i in range(3):
        image[..., i] = albedo[..., i] * diffuse[i] + spec[i]
    return image


def _draw_sides(image: F32, scene: Scene, cam: Camera, light: Lighting) -> None:
    """The board's edges facing the camera, flat-shaded, drawn only outside the top surface."""
    geo = scene.geometry
    hb, t = geo.half_board, geo.thickness
    faces = [((0, 1), (0.0, 1.0)), ((1, 2), (1.0, 0.0)), ((2, 3), (0.0, -1.0)), ((3, 0), (-1.0, 0.0))]
    top = geo.board_corners(0.0)
    bottom = geo.board_corners(-t)
    frame = np.asarray(scene.style.frame, np.float32) * np.float32(0.8)
    x0, y0, hit0 = cam.plane_points(0.0)
    covered = hit0 & (np.abs(x0) < hb) & (np.abs(y0) < hb)
    for (i, j), (nx, ny) in faces:
        mid = np.array([(top[i][0] + top[j][0]) / 2, (top[i][1] + top[j][1]) / 2, -t / 2])
        if (cam.position - mid) @ np.array([nx, ny, 0.0]) <= 0:
            continue
        quad: list[Vec] = [top[i], top[j], bottom[j], bottom[i]]
        if np.any(cam.depth(quad) <= 1.0):
            continue
        poly = np.round(cam.project(quad, distort=False) * 16).astype(np.int32)
        mask = np.zeros(image.shape[:2], np.uint8)
        cv2.fillPoly(mask, [poly], 255, cv2.LINE_AA, shift=4)
        n = np.array([nx, ny, 0.0], np.float32)
        shade = light.ambient * 0.5
        for lp, lc in zip(light.positions, light.colours, strict=False):
            lv = lp - mid.astype(np.float32)
            lv /= np.linalg.norm(lv)
            shade = shade + lc * max(0.0, float(n @ lv))
        colour = frame * shade
        a = (mask.astype(np.float32) / 255.0) * ~covered
        image += (colour[None, None, :] - image) * a[..., None]
