"""Arms over the table and the frames they make: shapes, motion curves, fast compositing.

A whole-hand video changes little from frame to frame: the table (tiles at rest) only
changes when a tile comes to rest, leaves a hand or is bumped. :class:`Compositor`
takes a table frame rendered once by ``render_scene`` (no occluders, no photometric
effects) and draws over it, per frame, the arm (a flat skin-coloured polygon at a
height above the table, with its soft shadow) and the tile it carries; then applies the
video's fixed photometric effects. Geometry is the renderer's: table millimetres
projected with the video's :class:`~datasets.render.camera.Camera` (no lens distortion
in footage, so label pixels are plain projections).
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from datasets.render import effects as E
from datasets.render import tiles as T
from datasets.render.camera import Camera
from datasets.render.layouts import TilePlacement
from datasets.render.scene import _fill, _paste  # the renderer's own rasterisers (same look, same pixel convention)
from vision.obb import convex_overlap

#: Outward unit normal of each seat's table edge (table mm, y down; docs/calibration.md).
SEAT_OUT = {"N": (0.0, -1.0), "E": (1.0, 0.0), "S": (0.0, 1.0), "W": (-1.0, 0.0)}
#: Along-edge direction to each seated player's right hand, as seen from above.
SEAT_RIGHT = {"N": (-1.0, 0.0), "E": (0.0, -1.0), "S": (1.0, 0.0), "W": (0.0, 1.0)}


def edge_point(seat: str, table_mm: tuple[float, float], out_mm: float = 0.0, right_mm: float = 0.0) -> np.ndarray:
    """The middle of ``seat``'s table edge, moved ``out_mm`` outward and ``right_mm`` to the
    player's right; (2,) float64 mm."""
    w, h = table_mm
    mid = {"N": (w / 2, 0.0), "E": (w, h / 2), "S": (w / 2, h), "W": (0.0, h / 2)}[seat]
    return np.array(mid) + np.array(SEAT_OUT[seat]) * out_mm + np.array(SEAT_RIGHT[seat]) * right_mm


def arm_polygon(root_mm: np.ndarray, tip_mm: np.ndarray, half_width_mm: float = 42.0) -> np.ndarray:
    """A convex forearm-and-hand outline from the shoulder side ``root_mm`` to the finger tips
    ``tip_mm`` (both (2,) mm): (7, 2) float64 mm, widest at the root, tapering to the fingers."""
    root = np.asarray(root_mm, float)
    tip = np.asarray(tip_mm, float)
    d = tip - root
    d = d / (np.linalg.norm(d) + 1e-9)
    n = np.array([-d[1], d[0]])
    w = half_width_mm
    palm = tip - d * 45.0
    fingers = tip - d * 12.0
    return np.array([root + n * w * 1.15, palm + n * w, fingers + n * w * 0.7, tip, fingers - n * w * 0.7,
                     palm - n * w, root - n * w * 1.15])


def ease(s: float) -> float:
    """Smooth 0 -> 1 motion profile (smoothstep) for ``s`` in [0, 1]."""
    s = min(max(s, 0.0), 1.0)
    return s * s * (3 - 2 * s)


def lerp_pose(p0: TilePlacement, p1: TilePlacement, s: float, face_up: bool) -> TilePlacement:
    """The pose ``s`` (0..1) of the way from ``p0`` to ``p1`` (shortest turn), pips of ``p1``."""
    da = (p1.angle_deg - p0.angle_deg + 180.0) % 360.0 - 180.0
    return TilePlacement(p0.x_mm + (p1.x_mm - p0.x_mm) * s, p0.y_mm + (p1.y_mm - p0.y_mm) * s,
                         p0.angle_deg + da * s, p1.a, p1.b, face_up)


@dataclass(frozen=True)
class Arm:
    """An arm in one frame: outline (N, 2) mm, BGR colour, height above the table (mm)."""

    polygon_mm: np.ndarray
    colour: tuple[int, int, int]
    height_mm: float = 45.0


def tile_top_px(cam: Camera, p: TilePlacement, lift_mm: float = 0.0) -> np.ndarray:
    """Top-face corners of ``p`` lifted ``lift_mm`` off the table, (4, 2) float64 px (renderer
    label convention: corner 0 -> 1 runs from half a to half b)."""
    c = p.corners_mm()
    return cam.project(np.concatenate([c, np.full((4, 1), lift_mm + T.TILE_THICK_MM)], 1))


def arm_px(cam: Camera, arm: Arm) -> np.ndarray:
    """The arm outline in the frame, (N, 2) float64 px."""
    pts = arm.polygon_mm
    return cam.project(np.concatenate([pts, np.full((len(pts), 1), arm.height_mm)], 1))


class Compositor:
    """Draws arms and carried tiles over pre-rendered table frames, then the video's effects.

    Args:
        cam: the video's camera (``k1`` must be 0).
        style: the tile set's style.
        effects: photometric effects applied to every frame (local ones only: lighting,
            blur, fixed-pattern noise; no glare or JPEG), or None.
        shadow: (dx, dy) shadow offset on the table (mm) and darkness in [0, 1].
    """

    def __init__(self, cam: Camera, style: T.TileStyle, effects: E.EffectParams | None,
                 shadow: tuple[float, float, float]) -> None:
        if cam.k1 != 0.0:
            raise ValueError("footage cameras have no lens distortion (k1 = 0)")
        self.cam = cam
        self.style = style
        self.effects = effects
        self.shadow = shadow
        self._sprites: dict[tuple, np.ndarray] = {}

    def finish(self, raw: np.ndarray) -> np.ndarray:
        """Apply the video's photometric effects to a raw (H, W, 3) uint8 frame."""
        if self.effects is None:
            return raw
        p = self.effects
        return E.noise(E.blur(E.lighting(raw, p), p), p)

    def _sprite(self, p: TilePlacement, long_px: float) -> np.ndarray:
        sl = int(max(24, min(400, 1.5 * long_px))) // 2 * 2
        key = (p.a, p.b, p.face_up, sl)
        if key not in self._sprites:
            rng = np.random.default_rng(0)
            self._sprites[key] = (T.render_face_up(self.style, p.a, p.b, sl, rng) if p.face_up
                                  else T.render_face_down(self.style, sl, rng))
        return self._sprites[key]

    def compose(self, table_raw: np.ndarray, arm: Arm | None, held: TilePlacement | None = None,
                lift_mm: float = 0.0) -> np.ndarray:
        """One frame: ``table_raw`` (H, W, 3) uint8, the carried tile ``held`` at ``lift_mm``
        above the table, the arm over both, shadows, effects. Returns (H, W, 3) uint8."""
        img = table_raw.copy()
        cam = self.cam
        dx, dy, dark = self.shadow
        sh = np.zeros(img.shape[:2], np.uint8)
        if held is not None:
            k = 1 + lift_mm / 8.0
            _fill(sh, cam.project(held.corners_mm() + [dx * k, dy * k]), 255)
        if arm is not None:
            k = arm.height_mm / 8.0
            _fill(sh, cam.project(arm.polygon_mm + [dx * k, dy * k]), 160)
        if sh.any():
            ys, xs = np.nonzero(sh)
            pad = int(4 * max(1.0, 2.5 * cam.px_per_mm)) + 2
            y0, y1 = max(ys.min() - pad, 0), min(ys.max() + pad + 1, img.shape[0])
            x0, x1 = max(xs.min() - pad, 0), min(xs.max() + pad + 1, img.shape[1])
            blur = cv2.GaussianBlur(sh[y0:y1, x0:x1], (0, 0), max(1.0, 2.5 * cam.px_per_mm))
            f = 1 - dark * blur.astype(np.float32)[..., None] / 255.0
            img[y0:y1, x0:x1] = (img[y0:y1, x0:x1] * f).astype(np.uint8)
        if held is not None:
            bot = tile_top_px(cam, held, lift_mm - T.TILE_THICK_MM)
            top = tile_top_px(cam, held, lift_mm)
            hull = cv2.convexHull(np.concatenate([bot, top]).astype(np.float32))[:, 0]
            side = tuple(int(np.clip(c * self.style.side_shade, 0, 255)) for c in self.style.body)
            _fill(img, hull, side)
            _paste(img, self._sprite(held, float(np.linalg.norm(top[1] - top[0]))), top)
        if arm is not None:
            _fill(img, arm_px(cam, arm), arm.colour)
        return self.finish(img)


def covered_fraction(tile_px: np.ndarray, arm_poly_px: np.ndarray | None) -> float:
    """Fraction of a tile's (4, 2) px top face under a convex arm outline (N, 2) px (0 if None)."""
    if arm_poly_px is None:
        return 0.0
    area = abs(cv2.contourArea(tile_px.astype(np.float32)))
    if area < 1e-6:
        return 0.0
    inter, _ = convex_overlap(tile_px, arm_poly_px)  # of the arm's convex hull
    return float(min(1.0, inter / area))
