"""Compose a scene (surface, shadows, tiles, occluders, camera, effects) and its exact labels.

A :class:`SceneSpec` fully determines a frame: re-rendering the same spec gives the
same bytes.  Footage generation can build specs from an explicit list of
:class:`~datasets.render.layouts.TilePlacement` (table mm) plus occluders.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

import cv2
import numpy as np

from datasets.render import effects as E
from datasets.render import layouts as Ly
from datasets.render import surfaces as S
from datasets.render import tiles as T
from datasets.render.camera import Camera, sample_camera
from vision.obb import convex_overlap

CLASS_NAMES = ("tile_up", "tile_down")


@dataclass
class SceneSpec:
    """Everything needed to render one frame.

    Attributes:
        camera: the camera (frame size, scale, tilt, lens distortion).
        surface: surface kind (``surfaces.SURFACE_KINDS``).
        style: tile set style.
        placements: tiles on the table (mm).
        occluders: hands/arms over the table (mm).
        effects: photometric effects.
        shadow_mm: (dx, dy) shadow offset on the table (mm) and darkness in [0, 1].
        seed: seed for surface texture and sprite details.
        contact_shadow: darkness in [0, 1] of the tight shadow where a tile meets the table
            (printed dominoes on a board have none: it tells a tile from a picture of one).
        cast: strength in [0, 1] of the colour cast the surface throws on the tiles (white
            tiles on a teal board look cyan: in the DDD photos the faces are ~(232, 221, 191)
            BGR, red 20 % below blue).
        n_sets: complete sets the tiles were dealt from (:func:`layouts.sets_used`), what a
            user tells the recognizer (``--sets``).
        grid_angle_deg: image direction (degrees) of a game board's printed grid; None: along
            the first placement (a still's main line). Footage fixes it: the board must not
            change when that tile is lifted.
    """

    camera: Camera
    surface: str
    style: T.TileStyle
    placements: list[Ly.TilePlacement]
    occluders: list[Ly.Occluder] = field(default_factory=list)
    effects: E.EffectParams | None = None
    shadow_mm: tuple[float, float, float] = (3.0, 3.0, 0.35)
    seed: int = 0
    contact_shadow: float = 0.0
    cast: float = 0.0
    n_sets: int = 1
    grid_angle_deg: float | None = None


def _nadir(cam: Camera) -> np.ndarray:
    """Table point (mm) below the camera centre, (2,) float64."""
    R = cam._rotation()
    c = R.T @ np.array([0.0, 0.0, cam.height_mm])
    return np.array([c[0] + cam.target_mm[0], c[1] + cam.target_mm[1]])


def _corners3d(p: Ly.TilePlacement, z: float) -> np.ndarray:
    c = p.corners_mm()
    return np.concatenate([c, np.full((4, 1), z)], axis=1)


def _paste(img: np.ndarray, sprite: np.ndarray, dst: np.ndarray) -> None:
    """Warp ``sprite`` onto ``img`` so its corners land on ``dst`` (4, 2) px, in place."""
    h, w = img.shape[:2]
    x0, y0 = np.floor(dst.min(0)).astype(int) - 1
    x1, y1 = np.ceil(dst.max(0)).astype(int) + 2
    x0c, y0c, x1c, y1c = max(x0, 0), max(y0, 0), min(x1, w), min(y1, h)
    if x1c <= x0c or y1c <= y0c:
        return
    sh, sw = sprite.shape[:2]
    src = np.array([[0, 0], [sw, 0], [sw, sh], [0, sh]], np.float32)
    # Corners lie on pixel edges; warpPerspective maps pixel centres, so shift by half a pixel.
    M = cv2.getPerspectiveTransform(src - 0.5, (dst - [x0c, y0c] - 0.5).astype(np.float32))
    size = (x1c - x0c, y1c - y0c)
    warped = cv2.warpPerspective(sprite, M, size, flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    mask = np.zeros((size[1], size[0]), np.uint8)
    shift = 4
    pts = np.round((dst - [x0c, y0c] - 0.5) * (1 << shift)).astype(np.int32)
    cv2.fillPoly(mask, [pts], 255, cv2.LINE_AA, shift)
    roi = img[y0c:y1c, x0c:x1c]
    a = (mask.astype(np.float32) / 255.0)[..., None]
    roi[:] = (roi * (1 - a) + warped * a).astype(np.uint8)


def _fill(img: np.ndarray, poly: np.ndarray, colour) -> None:
    shift = 4
    pts = np.round((np.asarray(poly) - 0.5) * (1 << shift)).astype(np.int32)
    cv2.fillPoly(img, [pts], colour, cv2.LINE_AA, shift)


def render_scene(spec: SceneSpec) -> tuple[np.ndarray, list[dict]]:
    """Render one frame and its labels.

    Returns:
        image: (H, W, 3) uint8 BGR frame.
        labels: one dict per tile with ``polygon`` ((4, 2) float32 px, top face,
            corner 0->1 along the long axis from half ``a`` to half ``b``, after
            lens distortion), ``pips`` [a, b], ``face`` ("up"/"down"),
            ``cls`` (0 tile_up, 1 tile_down), ``in_frame`` (fraction of the top
            face inside the frame), ``unoccluded`` (fraction of the in-frame part
            neither under an occluder nor washed out by glare, :data:`effects.WASHOUT`), ``visible`` (their product) and ``long_px``.
    """
    cam = spec.camera
    # A lens that widens the view (k1 > 0) samples beyond the frame's own pixels: render a canvas
    # with that margin (same centre and scale, so projections shift by it) instead of mirroring
    # the frame's edge, which showed unlabelled mirror images of tiles.
    margin = cam.distortion_margin()
    view = replace(cam, w=cam.w + 2 * margin, h=cam.h + 2 * margin)
    w, h = view.w, view.h
    rng = np.random.default_rng(spec.seed)
    px_per_mm = cam.px_per_mm
    tile_long_px = T.TILE_LONG_MM * px_per_mm
    grid_angle = 0.0 if spec.grid_angle_deg is None else float(spec.grid_angle_deg)
    # a game board's printed grid runs along the first (main) line of tiles, unless the spec fixes it
    if spec.grid_angle_deg is None and spec.placements:
        e = view.project(spec.placements[0].corners_mm()[:2])
        grid_angle = float(np.degrees(np.arctan2(e[1, 1] - e[0, 1], e[1, 0] - e[0, 0])))
    img = S.make_surface(spec.surface, h, w, rng, tile_long_px, grid_angle)
    # Colour cast of the surface on the tiles: gain toward the surface's mean colour.
    gain = np.ones(3, np.float32)
    if spec.cast > 0:
        m = img[::8, ::8].reshape(-1, 3).astype(np.float32).mean(0) + 1.0
        gain = np.clip(1.0 + spec.cast * (m / m.mean() - 1.0), 0.6, 1.3).astype(np.float32)

    # Soft shadows under tiles and occluders.
    dx, dy, dark = spec.shadow_mm
    sh = np.zeros((h, w), np.uint8)
    for p in spec.placements:
        c = p.corners_mm() + [dx, dy]
        _fill(sh, view.project(c), 255)
    for o in spec.occluders:
        _fill(sh, view.project(o.polygon_mm + [dx * o.height_mm / 8, dy * o.height_mm / 8]), 160)
    sig = max(1.0, 2.5 * px_per_mm)
    shf = cv2.GaussianBlur(sh, (0, 0), sig).astype(np.float32) / 255.0
    att = 1 - dark * shf
    if spec.contact_shadow > 0 and spec.placements:
        # Contact shadow: the footprint grown by 1 mm and blurred by ~1.2 mm darkens a thin rim
        # (2-3 mm) right around each tile, as where a real tile stands on the table.
        ct = np.zeros((h, w), np.uint8)
        for p in spec.placements:
            _fill(ct, view.project(replace(p, long_mm=p.long_mm + 2.0, short_mm=p.short_mm + 2.0).corners_mm()), 255)
        ctf = cv2.GaussianBlur(ct, (0, 0), max(0.7, 1.2 * px_per_mm)).astype(np.float32) / 255.0
        att *= 1 - spec.contact_shadow * ctf
    img = (img.astype(np.float32) * att[..., None]).astype(np.uint8)

    # Tiles, nearest the camera nadir first so outer tiles cover inner side faces.
    nad = _nadir(cam)
    order = sorted(range(len(spec.placements)),
                   key=lambda i: (spec.placements[i].x_mm - nad[0]) ** 2 + (spec.placements[i].y_mm - nad[1]) ** 2)
    tops: dict[int, np.ndarray] = {}
    for i in order:
        p = spec.placements[i]
        bot = view.project(_corners3d(p, 0.0))
        top = view.project(_corners3d(p, T.TILE_THICK_MM))
        tops[i] = top
        if not ((top[:, 0] > -tile_long_px).any() and (top[:, 0] < w + tile_long_px).any()
                and (top[:, 1] > -tile_long_px).any() and (top[:, 1] < h + tile_long_px).any()):
            continue
        hull = cv2.convexHull(np.concatenate([bot, top]).astype(np.float32))[:, 0]
        side = tuple(int(np.clip((c * spec.style.side_shade + (10 if spec.style.side_shade > 1 else 0)) * g, 0, 255))
                     for c, g in zip(spec.style.body, gain))
        _fill(img, hull, side)
        long_px = float(np.linalg.norm(top[1] - top[0]))
        sl = int(max(24, min(400, 1.5 * long_px))) // 2 * 2
        if p.face_up:
            sprite = T.render_face_up(spec.style, p.a, p.b, sl, rng)
        else:
            sprite = T.render_face_down(spec.style, sl, rng)
        if spec.cast > 0:
            sprite = np.clip(sprite * gain, 0, 255).astype(np.uint8)
        _paste(img, sprite, top)

    # Occluders (hands, arms) over everything.
    occ = np.zeros((h, w), np.uint8)
    for o in spec.occluders:
        poly = view.project(np.concatenate([o.polygon_mm, np.full((len(o.polygon_mm), 1), o.height_mm)], 1))
        _fill(img, poly, o.colour)
        _fill(occ, poly, 255)

    img = cam.distort_image(img, margin)
    occ = cam.distort_image(occ, margin)
    if spec.effects is not None:
        centres = np.array([cam.distort_points(t - margin).mean(0) for t in tops.values()]) if tops else None
        img = E.apply_all(img, spec.effects, centres)
        # a glare spot strong enough to clip every colour hides what lies under it, as an arm does
        washed = E.glare_field(img.shape[:2], spec.effects, centres) >= E.WASHOUT
        occ = np.where(washed, np.uint8(255), occ)

    labels = []
    for i, p in enumerate(spec.placements):
        poly = cam.distort_points(tops[i] - margin).astype(np.float32)
        inside, free = _visible_fraction(poly, occ)
        labels.append({
            "polygon": poly,
            "pips": [int(p.a), int(p.b)],
            "face": "up" if p.face_up else "down",
            "cls": 0 if p.face_up else 1,
            "visible": float(inside * free),
            "in_frame": float(inside),
            "unoccluded": float(free),
            "long_px": float(np.linalg.norm(poly[1] - poly[0])),
        })
    return img, labels


def _visible_fraction(poly: np.ndarray, occ: np.ndarray) -> tuple[float, float]:
    """(fraction of the polygon's area inside the frame, fraction of that part not covered by ``occ``).

    ``poly`` is (4, 2) float32 px; ``occ`` is the (H, W) uint8 occluder mask (non-zero = covered).
    """
    p = poly.astype(np.float32)
    area = abs(cv2.contourArea(p))
    if area < 1:
        return 0.0, 0.0
    h, w = occ.shape
    rect = np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float32)
    inter, _ = convex_overlap(p, rect)
    inside = float(min(1.0, inter / area))
    if inside <= 0:
        return 0.0, 0.0
    x0, y0 = np.floor(p.min(0)).astype(int)
    x1, y1 = np.ceil(p.max(0)).astype(int) + 1
    x0c, y0c, x1c, y1c = max(x0, 0), max(y0, 0), min(x1, w), min(y1, h)
    if x1c <= x0c or y1c <= y0c:
        return 0.0, 0.0
    m = np.zeros((y1c - y0c, x1c - x0c), np.uint8)
    cv2.fillPoly(m, [np.round(p - [x0c, y0c]).astype(np.int32)], 1)
    n_in = int(m.sum())
    if n_in == 0:
        return inside, 1.0
    free = int((m & (occ[y0c:y1c, x0c:x1c] == 0)).sum())
    return inside, float(free / n_in)


@dataclass(frozen=True)
class SplitRecipe:
    """Which surfaces and tile styles a split may use (with sampling weights)."""

    surfaces: tuple[str, ...]
    styles: tuple[str, ...]


#: Train/val never see marble tables nor coloured-pip tiles; test is weighted toward them.
#: Linen and terrazzo are light surfaces (as pale as a tile back) so the detector learns that
#: a light textured area is not a face-down tile; marble stays held out.
RECIPES = {
    # "board" twice: printed dominoes are the hardest negatives (real boards print them tile-sized).
    "train": SplitRecipe(("felt", "wood", "board", "board", "dark", "linen", "terrazzo"), ("white", "ivory", "black")),
    "val": SplitRecipe(("felt", "wood", "board", "board", "dark", "linen", "terrazzo"), ("white", "ivory", "black")),
    "test": SplitRecipe(("marble", "marble", "felt", "wood", "board", "dark"),
                        ("colour_pips", "colour_pips", "white", "ivory", "black")),
}


#: Chance that a training frame's glare spot is centred on a tile (recipe version 5).
GLARE_ON_TILES = 0.7


def sample_scene(rng: np.random.Generator, split: str, w: int = 1280, h: int = 720,
                 tile_long_px: tuple[float, float] = (40.0, 200.0), max_pips: int = 6) -> SceneSpec:
    """Sample a random scene for a split.

    Args:
        rng: random generator.
        split: "train", "val" or "test" (selects the :data:`RECIPES` entry).
        w, h: frame size in pixels.
        tile_long_px: range of the tile long side in the frame (pixels).
        max_pips: highest pip value in the set (6 = double-six).
    """
    rec = RECIPES[split]
    surface = str(rec.surfaces[rng.integers(len(rec.surfaces))])
    style = T.make_style(str(rec.styles[rng.integers(len(rec.styles))]), rng)
    L = float(np.exp(rng.uniform(np.log(tile_long_px[0]), np.log(tile_long_px[1]))))
    cam = sample_camera(rng, w, h, L, T.TILE_LONG_MM, (0.0, 0.0))
    fp = cam.footprint_mm()
    half = np.minimum(np.abs(fp).max(0) * 0.95, 650.0)
    box = (-float(half[0]), -float(half[1]), float(half[0]), float(half[1]))
    placements = Ly.sample_layout(rng, box, max_pips)
    occluders = []
    if placements and rng.random() < 0.35:
        for _ in range(int(rng.integers(1, 3))):
            t = placements[int(rng.integers(len(placements)))]
            occluders.append(Ly.arm_occluder(rng, box, (t.x_mm, t.y_mm)))
    ang = rng.uniform(0, 2 * np.pi)
    r = rng.uniform(1.0, 6.0)
    return SceneSpec(
        camera=cam, surface=surface, style=style, placements=placements, occluders=occluders,
        # glare on the tiles in training only: the held-out frames keep the spots placed anywhere
        effects=replace(E.sample_effects(rng), glare_on_tiles=GLARE_ON_TILES if split == "train" else 0.0),
        shadow_mm=(float(r * np.cos(ang)), float(r * np.sin(ang)), float(rng.uniform(0.15, 0.5))),
        seed=int(rng.integers(0, 2**31 - 1)),
        # Half the scenes without: under diffuse light a real tile shows no dark rim (DomiBot close-ups),
        # and a detector that always saw one learned to reject rimless tiles as printed pictures.
        contact_shadow=float(rng.uniform(0.25, 0.7)) if rng.random() < 0.5 else 0.0,
        cast=float(rng.uniform(0.0, 0.3)) if rng.random() < 0.6 else 0.0,
        n_sets=max(Ly.sets_used(placements), 1),
    )
