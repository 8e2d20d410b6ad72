"""Tile sprites: the top face of a tile (both halves with pips) and its colours.

A sprite is the tile's top face seen straight from above, long axis horizontal,
half ``a`` on the left (x < w/2) and half ``b`` on the right.  The scene warps it
onto the frame with a homography, so corner 0 = top-left, 1 = top-right,
2 = bottom-right, 3 = bottom-left of the sprite.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import cv2
import numpy as np

#: Nominal tile size in millimetres (long side, short side, thickness).
TILE_LONG_MM = 48.0
TILE_SHORT_MM = 24.0
TILE_THICK_MM = 8.0

# BGR colours for the coloured-pip style, one per value 0..12 (0 has no pips).
_VALUE_COLOURS = [
    (0, 0, 0), (200, 120, 30), (40, 140, 40), (30, 30, 200), (120, 40, 120),
    (20, 120, 200), (160, 40, 20), (20, 20, 20), (90, 60, 200), (150, 150, 20),
    (40, 40, 140), (100, 180, 60), (60, 60, 60),
]


@dataclass(frozen=True)
class TileStyle:
    """How a tile set looks.

    Colours are BGR uint8 triples.  ``pip_colours`` has one colour per value
    0..12 (index = number of pips on the half).
    """

    name: str
    body: tuple[int, int, int]
    pip_colours: tuple[tuple[int, int, int], ...]
    divider: tuple[int, int, int]
    pin: bool
    back_pattern: int = 0  # 0 plain, 1 ring, 2 stripes (face-down side)
    side_shade: float = 0.7  # side faces = body * side_shade
    pip_scale: float = 1.0  # pip radius = standard radius * pip_scale
    divider_frac: float = 0.03  # divider line thickness, fraction of the half's side
    divider_margin: float = 0.1  # gap between the divider's ends and the long edges, fraction of the side
    extra: dict = field(default_factory=dict, compare=False, hash=False)


def make_style(kind: str, rng: np.random.Generator) -> TileStyle:
    """Sample a tile style of a given kind.

    ``kind`` is one of ``STYLE_KINDS``.  Small random variations of the body
    colour keep sets from being identical.
    """
    j = lambda c, s=8: tuple(int(np.clip(v + rng.integers(-s, s + 1), 0, 255)) for v in c)  # noqa: E731
    pin = bool(rng.random() < 0.5)
    back = int(rng.integers(0, 3))
    # Sets differ in pip size and divider: real white tiles (DDD photos) have pips ~0.1 of the
    # half's side in radius and a thick divider (~0.06) running nearly edge to edge.
    shape = dict(pip_scale=float(rng.uniform(0.9, 1.22)), divider_frac=float(rng.uniform(0.025, 0.075)),
                 divider_margin=float(rng.uniform(0.03, 0.14)))
    if kind == "white":
        body = j((236, 238, 240), 10)
        pips = tuple([j((25, 25, 25), 10)] * 13)
        return TileStyle(kind, body, pips, j((40, 40, 40)), pin, back, **shape)
    if kind == "ivory":
        body = j((190, 225, 240), 10)
        pips = tuple([j((30, 35, 40), 10)] * 13)
        return TileStyle(kind, body, pips, j((50, 60, 70)), pin, back, **shape)
    if kind == "black":
        body = j((28, 28, 30), 8)
        pips = tuple([j((235, 235, 235), 10)] * 13)
        return TileStyle(kind, body, pips, j((200, 200, 200)), pin, back, side_shade=1.4, **shape)
    if kind == "colour_pips":
        body = j((232, 236, 238), 10)
        pips = tuple(j(c, 10) for c in _VALUE_COLOURS)
        return TileStyle(kind, body, pips, j((60, 60, 60)), pin, back, **shape)
    raise ValueError(f"unknown tile style {kind!r}")


#: All tile style kinds the renderer knows.
STYLE_KINDS = ("white", "ivory", "black", "colour_pips")


def pip_positions(n: int) -> np.ndarray:
    """Standard pip layout of a half with ``n`` pips, 0 <= n <= 12.

    Returns (n, 2) float32 positions in half-normalised coordinates: (u, v) in
    [0, 1]^2 with u along the tile's long axis and v across it.  0..6 are the
    classic layouts; 7..12 use the standard three-column layouts of the larger
    sets (7 = six + centre, 8 = 3/2/3, 9 = 3x3, 10 = 4/2/4, 11 = 4/3/4, 12 = 4/4/4).
    """
    if not 0 <= n <= 12:
        raise ValueError(f"pip count must be 0..12, got {n}")
    lo, mid, hi = 0.24, 0.5, 0.76
    corners = [(lo, lo), (hi, hi), (hi, lo), (lo, hi)]
    if n == 0:
        pts: list[tuple[float, float]] = []
    elif n == 1:
        pts = [(mid, mid)]
    elif n == 2:
        pts = [(lo, lo), (hi, hi)]
    elif n == 3:
        pts = [(lo, lo), (mid, mid), (hi, hi)]
    elif n == 4:
        pts = corners
    elif n == 5:
        pts = corners + [(mid, mid)]
    elif n == 6:
        pts = [(u, v) for u in (lo, hi) for v in (lo, mid, hi)]
    elif n == 7:
        pts = [(u, v) for u in (lo, hi) for v in (lo, mid, hi)] + [(mid, mid)]
    else:
        cols = {8: (3, 2, 3), 9: (3, 3, 3), 10: (4, 2, 4), 11: (4, 3, 4), 12: (4, 4, 4)}[n]
        xs = (0.2, 0.5, 0.8)
        pts = []
        for x, k in zip(xs, cols):
            if k == 2:
                vs = (0.35, 0.65)
            elif k == 3:
                vs = (0.2, 0.5, 0.8)
            else:
                vs = (0.16, 0.39, 0.61, 0.84)
            pts += [(x, v) for v in vs]
    return np.asarray(pts, dtype=np.float32).reshape(-1, 2)


def _pip_radius(n: int) -> float:
    """Pip radius as a fraction of the half's side."""
    return 0.085 if n <= 7 else (0.075 if n <= 9 else 0.062)


def _draw_pips(img: np.ndarray, x0: float, side: float, n: int, colour, rng: np.random.Generator,
               dark_centre: bool, scale: float = 1.0) -> None:
    shift = 4
    s = 1 << shift
    r = _pip_radius(n) * side * (min(scale, 1.0) if n > 7 else scale)
    for u, v in pip_positions(n):
        cx = x0 + u * side
        cy = v * side
        cv2.circle(img, (int(round(cx * s)), int(round(cy * s))), max(1, int(round(r * s))), colour,
                   -1, cv2.LINE_AA, shift)
        if dark_centre and r > 3:
            inner = tuple(int(c * 0.6) for c in colour)
            cv2.circle(img, (int(round((cx + r * 0.15) * s)), int(round((cy + r * 0.15) * s))),
                       max(1, int(round(r * 0.55 * s))), inner, -1, cv2.LINE_AA, shift)


def render_half(n: int, style: TileStyle, side_px: int, rng: np.random.Generator | None = None) -> np.ndarray:
    """One half of a tile face, ``side_px`` square, body colour with ``n`` pips.

    Returns (side_px, side_px, 3) uint8 BGR.  Used by tests to check pip layouts.
    """
    rng = rng or np.random.default_rng(0)
    img = np.empty((side_px, side_px, 3), np.uint8)
    img[:] = style.body
    _draw_pips(img, 0.0, float(side_px), n, style.pip_colours[n], rng, dark_centre=False, scale=style.pip_scale)
    return img


def render_face_up(style: TileStyle, a: int, b: int, long_px: int, rng: np.random.Generator) -> np.ndarray:
    """Top face of a face-up tile with ``a`` pips on the left half and ``b`` on the right.

    Returns (long_px // 2, long_px, 3) uint8 BGR, with a light bevel toward the
    edges, a divider line and an optional brass centre pin.
    """
    side = long_px // 2
    w = 2 * side
    img = np.empty((side, w, 3), np.uint8)
    img[:] = style.body
    _draw_pips(img, 0.0, float(side), a, style.pip_colours[a], rng, dark_centre=side > 40, scale=style.pip_scale)
    _draw_pips(img, float(side), float(side), b, style.pip_colours[b], rng, dark_centre=side > 40,
               scale=style.pip_scale)
    thick = max(1, int(round(side * style.divider_frac)))
    m = int(round(side * style.divider_margin))
    cv2.line(img, (side, m), (side, side - 1 - m), style.divider, thick, cv2.LINE_AA)
    if style.pin:
        pr = max(1, int(round(side * 0.07)))
        cv2.circle(img, (side, side // 2), pr, (40, 150, 190), -1, cv2.LINE_AA)
        cv2.circle(img, (side - pr // 3, side // 2 - pr // 3), max(1, pr // 3), (140, 220, 240), -1, cv2.LINE_AA)
    return _bevel(img)


def render_face_down(style: TileStyle, long_px: int, rng: np.random.Generator) -> np.ndarray:
    """Back of a face-down tile: body colour, optional ring or stripes pattern.

    Returns (long_px // 2, long_px, 3) uint8 BGR.
    """
    side = long_px // 2
    w = 2 * side
    img = np.empty((side, w, 3), np.uint8)
    img[:] = style.body
    tone = tuple(int(np.clip(c * 0.85 + 10, 0, 255)) for c in style.body)
    if style.back_pattern == 1:
        cv2.ellipse(img, (side, side // 2), (int(side * 0.6), int(side * 0.3)), 0, 0, 360, tone,
                    max(1, side // 20), cv2.LINE_AA)
    elif style.back_pattern == 2:
        for k in range(1, 6):
            x = int(w * k / 6)
            cv2.line(img, (x, int(side * 0.2)), (x, int(side * 0.8)), tone, max(1, side // 25), cv2.LINE_AA)
    return _bevel(img)


def _bevel(img: np.ndarray) -> np.ndarray:
    """Darken a thin rim along the edges (rounded bevel)."""
    h, w = img.shape[:2]
    b = max(1.0, min(h, w) * 0.08)
    yy = np.minimum(np.arange(h), np.arange(h)[::-1])[:, None]
    xx = np.minimum(np.arange(w), np.arange(w)[::-1])[None, :]
    d = np.minimum(yy, xx).astype(np.float32)
    gain = 0.8 + 0.2 * np.clip(d / b, 0, 1)
    return np.clip(img.astype(np.float32) * gain[..., None], 0, 255).astype(np.uint8)
