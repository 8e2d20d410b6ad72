"""Table surfaces: felt, wood, marble, printed game boards, plain dark, linen cloth, terrazzo.

Surfaces are drawn directly in image space at frame resolution.  Printed game
boards carry flat pictures of dominoes: distractors that are never labelled.
"""

from __future__ import annotations

import cv2
import numpy as np

from datasets.render import tiles as T

#: All surface kinds the renderer knows.
SURFACE_KINDS = ("felt", "wood", "marble", "board", "dark", "linen", "terrazzo")

_FELT = [(40, 110, 30), (110, 60, 20), (30, 30, 120), (60, 60, 60), (20, 80, 90), (90, 40, 70)]


def _lowfreq(rng: np.random.Generator, h: int, w: int, cells: int) -> np.ndarray:
    """Smooth noise in [-1, 1], (h, w) float32, with about ``cells`` blobs across."""
    ch = max(2, int(cells * h / max(h, w)) + 2)
    cw = max(2, int(cells * w / max(h, w)) + 2)
    small = rng.uniform(-1, 1, (ch, cw)).astype(np.float32)
    return cv2.resize(small, (w, h), interpolation=cv2.INTER_CUBIC)


def make_surface(kind: str, h: int, w: int, rng: np.random.Generator, tile_long_px: float = 60.0) -> np.ndarray:
    """Render a table surface of a given kind.

    Args:
        kind: one of ``SURFACE_KINDS``.
        h, w: frame size in pixels.
        rng: random generator (all variation comes from it).
        tile_long_px: approximate tile long side in pixels, used to scale
            the printed dominoes on game boards.

    Returns:
        (h, w, 3) uint8 BGR image.
    """
    if kind == "felt":
        base = np.array(_FELT[rng.integers(len(_FELT))], np.float32) * rng.uniform(0.7, 1.3)
        img = base + 18 * _lowfreq(rng, h, w, 6)[..., None] + 6 * rng.standard_normal((h, w, 1), dtype=np.float32)
    elif kind == "wood":
        base = np.array([40, 90, 150], np.float32) * rng.uniform(0.5, 1.2)
        ang = rng.uniform(0, np.pi)
        yy, xx = np.ogrid[0:h, 0:w]
        t = (xx * np.cos(ang)).astype(np.float32) + (yy * np.sin(ang)).astype(np.float32)
        warp = 25 * _lowfreq(rng, h, w, 4)
        period = np.float32(rng.uniform(6, 20))
        grain = np.sin((t + warp) / period * 2 * np.pi) * 0.5 + 0.5
        grain = grain ** 3
        img = base * (0.8 + 0.35 * grain[..., None]) + 10 * _lowfreq(rng, h, w, 12)[..., None]
    elif kind == "marble":
        base = np.array([215, 215, 220], np.float32) * rng.uniform(0.8, 1.05)
        if rng.random() < 0.3:
            base = np.array([60, 60, 55], np.float32)
        yy, xx = np.ogrid[0:h, 0:w]
        turb = 60 * _lowfreq(rng, h, w, 5) + 25 * _lowfreq(rng, h, w, 15)
        ang = rng.uniform(0, np.pi)
        t = (xx * np.cos(ang)).astype(np.float32) + (yy * np.sin(ang)).astype(np.float32)
        veins = np.abs(np.sin((t + turb) / rng.uniform(40, 90) * np.pi)) ** 0.3
        img = base * (0.75 + 0.25 * veins[..., None])
    elif kind == "board":
        base = np.array(_FELT[rng.integers(len(_FELT))], np.float32) * rng.uniform(0.9, 1.6)
        img = np.broadcast_to(np.clip(base, 0, 255), (h, w, 3)).astype(np.float32).copy()
        img += 6 * _lowfreq(rng, h, w, 8)[..., None]
        img = np.clip(img, 0, 255).astype(np.uint8)
        _draw_board_print(img, rng, tile_long_px)
        return img
    elif kind == "dark":
        v = rng.uniform(15, 50)
        img = np.full((h, w, 3), v, np.float32) + rng.uniform(-8, 8, 3).astype(np.float32)
        img = img + 4 * _lowfreq(rng, h, w, 8)[..., None] + 3 * rng.standard_normal((h, w, 1), dtype=np.float32)
    elif kind == "linen":
        # White or cream tablecloth: a fine weave plus soft folds, light like a tile back.
        base = np.array([232, 238, 240], np.float32) * rng.uniform(0.85, 1.05)
        if rng.random() < 0.5:  # cream rather than white
            base = base * np.array([0.86, 0.95, 1.0], np.float32)
        yy, xx = np.ogrid[0:h, 0:w]
        period = np.float32(rng.uniform(2.5, 5.0))
        weave = (np.sin(xx / period * np.pi) * np.sin(yy / period * np.pi)).astype(np.float32)
        folds = _lowfreq(rng, h, w, 3)
        img = (base * (0.96 + 0.05 * folds[..., None]) + 5 * weave[..., None]
               + 3 * rng.standard_normal((h, w, 1), dtype=np.float32))
    elif kind == "terrazzo":
        # Light speckled stone or laminate: many small chips of other colours on a pale base.
        base = np.array([200, 205, 210], np.float32) * rng.uniform(0.85, 1.15)
        img = np.broadcast_to(base, (h, w, 3)).astype(np.float32) + 8 * _lowfreq(rng, h, w, 6)[..., None]
        # Chips: sparse seeds grown to 1-3 px blobs, each with its own colour.
        seeds = rng.random((h, w), dtype=np.float32) < 1.0 / rng.uniform(60, 250)
        colours = rng.uniform(40, 240, (h, w, 3)).astype(np.float32) * seeds[..., None]
        grown = cv2.dilate(colours, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (3, 3)))
        chip = cv2.dilate(seeds.astype(np.uint8), cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (3, 3))) > 0
        img[chip] = grown[chip]
        img = cv2.GaussianBlur(img, (3, 3), 0.6)
    else:
        raise ValueError(f"unknown surface {kind!r}")
    return np.clip(img, 0, 255).astype(np.uint8)


def _draw_board_print(img: np.ndarray, rng: np.random.Generator, tile_long_px: float) -> None:
    """Printed game board: lines, a border, and flat pictures of dominoes (distractors)."""
    h, w = img.shape[:2]
    ink = tuple(int(c) for c in rng.integers(150, 256, 3))
    step = int(rng.uniform(2, 5) * tile_long_px)
    for x in range(int(rng.integers(0, step)), w, step):
        cv2.line(img, (x, 0), (x, h), ink, 2, cv2.LINE_AA)
    for y in range(int(rng.integers(0, step)), h, step):
        cv2.line(img, (0, y), (w, y), ink, 2, cv2.LINE_AA)
    n = int(rng.integers(2, 9))
    style = T.make_style(["white", "ivory", "black"][rng.integers(3)], rng)
    for _ in range(n):
        scale = rng.uniform(0.5, 1.6)
        L = max(12, int(tile_long_px * scale) // 2 * 2)
        face = T.render_face_up(style, int(rng.integers(7)), int(rng.integers(7)), L, rng)
        # Printed pictures are flat and low-contrast: fade toward the board colour.
        fade = rng.uniform(0.4, 0.85)
        ang = rng.uniform(0, 360)
        cx, cy = rng.uniform(0, w), rng.uniform(0, h)
        M = cv2.getRotationMatrix2D((L / 2, L / 4), ang, 1.0)
        M[:, 2] += (cx - L / 2, cy - L / 4)
        warped = cv2.warpAffine(face, M, (w, h), flags=cv2.INTER_LINEAR, borderValue=0)
        mask = cv2.warpAffine(np.full(face.shape[:2], 255, np.uint8), M, (w, h), flags=cv2.INTER_NEAREST)
        sel = mask > 0
        img[sel] = (img[sel] * (1 - fade) + warped[sel] * fade).astype(np.uint8)
