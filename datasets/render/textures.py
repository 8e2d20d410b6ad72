"""Random procedural textures: what no tile looks like, for the tile verifier's negatives.

The verifier (``models/tile_verifier.md``) must say "no tile" on table surfaces it was never
shown. The generator's surfaces are a handful of families, so besides crops of them the verifier
sees crops of textures drawn from broad generic families (domain randomisation), never a rendered
tile: smooth and fractal noise, warped gratings (bands, grain, ripples), cell cracks, strokes and
blotches, each coloured by a random palette. They are not any one surface of the generator.
"""

from __future__ import annotations

import cv2
import numpy as np

from datasets.render.surfaces import _lowfreq

FAMILIES = ("fractal", "grating", "cells", "strokes", "blotches")


def _fractal(rng: np.random.Generator, h: int, w: int) -> np.ndarray:
    """Sum of octaves of smooth noise, (h, w) float32 in about [-1, 1]."""
    out = np.zeros((h, w), np.float32)
    amp, cells = 1.0, float(np.exp(rng.uniform(np.log(1.5), np.log(12))))
    for _ in range(int(rng.integers(2, 6))):
        out += amp * _lowfreq(rng, h, w, int(cells))
        amp *= float(rng.uniform(0.4, 0.7))
        cells *= 2
    return out / max(float(np.abs(out).max()), 1e-6)


def _grating(rng: np.random.Generator, h: int, w: int) -> np.ndarray:
    """Bands at a random angle and period, warped by smooth noise: stripes, grain, ripples, veins."""
    y, x = np.mgrid[0:h, 0:w].astype(np.float32)
    a = rng.uniform(0, np.pi)
    period = float(np.exp(rng.uniform(np.log(0.02), np.log(0.5)))) * max(h, w)
    phase = (x * np.cos(a) + y * np.sin(a)) / period * 2 * np.pi
    phase += float(rng.uniform(0, 8)) * _fractal(rng, h, w)
    v = np.sin(phase)
    sharp = rng.uniform(1, 12)  # soft bands ... thin lines
    return np.tanh(sharp * v) if rng.random() < 0.5 else np.sign(v) * np.abs(v) ** (1 / sharp) * 2 - 1


def _cells(rng: np.random.Generator, h: int, w: int) -> np.ndarray:
    """Cracks between random cells (the gap between the two nearest of random points)."""
    n = int(rng.integers(4, 80))
    pts = rng.uniform([0, 0], [w, h], (n, 2)).astype(np.float32)
    y, x = np.mgrid[0:h, 0:w].astype(np.float32)
    d = np.partition(np.hypot(x[..., None] - pts[:, 0], y[..., None] - pts[:, 1]), 1, axis=-1)
    gap = d[..., 1] - d[..., 0]
    width = rng.uniform(1, 6)
    return 1 - 2 * np.exp(-gap / width)


def _strokes(rng: np.random.Generator, h: int, w: int) -> np.ndarray:
    """Random straight and curved strokes of random widths on a smooth ground."""
    img = np.zeros((h, w), np.float32)
    for _ in range(int(rng.integers(2, 14))):
        pts = np.cumsum(rng.normal(0, max(h, w) / 4, (int(rng.integers(2, 6)), 2)), axis=0)
        pts += rng.uniform([0, 0], [w, h])
        cv2.polylines(img, [pts.astype(np.int32)], False, float(rng.uniform(0.3, 1.0)),
                      int(rng.integers(1, max(2, h // 8))), cv2.LINE_AA)
    img = cv2.GaussianBlur(img, (0, 0), float(rng.uniform(0.5, 3)))
    return np.clip(img * 2 - 1 + 0.3 * _lowfreq(rng, h, w, 3), -1, 1)


def _blotches(rng: np.random.Generator, h: int, w: int) -> np.ndarray:
    """Thresholded smooth noise: patches with sharp or soft borders."""
    v = _fractal(rng, h, w)
    return np.tanh(rng.uniform(2, 20) * (v - rng.uniform(-0.3, 0.3)))


def random_texture(rng: np.random.Generator, h: int, w: int) -> np.ndarray:
    """A random texture, (h, w, 3) uint8 BGR: a random family, mapped through a random palette.

    Args:
        rng: random generator (the output is a pure function of it).
        h, w: size in pixels.
    """
    fam = FAMILIES[int(rng.integers(len(FAMILIES)))]
    v = {"fractal": _fractal, "grating": _grating, "cells": _cells, "strokes": _strokes,
         "blotches": _blotches}[fam](rng, h, w)
    t = (np.clip(v, -1, 1)[..., None] + 1) / 2  # 0 .. 1
    # mostly muted colours, as tables are; sometimes any colour
    chroma = 25.0 if rng.random() < 0.7 else 110.0
    base = np.clip(rng.uniform(20, 235) + rng.normal(0, chroma, 3), 0, 255).astype(np.float32)
    other = np.clip(base + rng.normal(0, 1, 3) * rng.uniform(10, 120), 0, 255).astype(np.float32)
    img = base * (1 - t) + other * t
    img += 12 * _lowfreq(rng, h, w, 2)[..., None]  # a little uneven colour
    return np.clip(img, 0, 255).astype(np.uint8)
