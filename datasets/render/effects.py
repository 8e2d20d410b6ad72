"""Photometric effects: lighting gradient, colour temperature, glare, blur, noise, JPEG.

Each function takes and returns a (H, W, 3) uint8 BGR frame; randomness comes only
from the generator passed in.  Geometry is never changed, so labels stay exact.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np


@dataclass(frozen=True)
class EffectParams:
    """Sampled effect strengths for one frame (see :func:`sample_effects`)."""

    gain: float
    gradient: tuple[float, float, float]  # (angle rad, strength, vignette)
    temperature: float  # < 0 cooler (bluer), > 0 warmer
    glare: int
    blur_sigma: float
    motion_px: float
    noise_sigma: float
    jpeg_quality: int
    seed: int
    grey: bool = False  # a monochrome camera (common for overhead capture): no colour at all
    # chance that a glare spot is centred on a tile rather than anywhere (the training split's: 7 of the
    # 12 held-out misses of stage 3 lay under glare, which spots placed anywhere rarely put on a tile)
    glare_on_tiles: float = 0.0


def sample_effects(rng: np.random.Generator) -> EffectParams:
    """Random effect strengths for one frame."""
    return EffectParams(
        gain=float(rng.uniform(0.7, 1.2)),
        gradient=(float(rng.uniform(0, 2 * np.pi)), float(rng.uniform(0, 0.45)), float(rng.uniform(0, 0.35))),
        temperature=float(rng.uniform(-0.15, 0.2)),
        glare=int(rng.integers(0, 4)) if rng.random() < 0.5 else 0,
        blur_sigma=float(rng.uniform(0, 1.3)) if rng.random() < 0.6 else 0.0,
        motion_px=float(rng.uniform(0, 4)) if rng.random() < 0.15 else 0.0,
        noise_sigma=float(rng.uniform(0, 7)),
        jpeg_quality=int(rng.integers(35, 96)) if rng.random() < 0.8 else 100,
        seed=int(rng.integers(0, 2**31 - 1)),
        grey=bool(rng.random() < 0.05),
    )


def lighting(img: np.ndarray, p: EffectParams) -> np.ndarray:
    """Overall gain, a linear light gradient, vignetting and colour temperature."""
    h, w = img.shape[:2]
    ang, strength, vig = p.gradient
    # The field is smooth: compute it on a coarse grid and upsample.
    sh, sw = max(2, h // 8), max(2, w // 8)
    yn = np.linspace(-1, 1, sh, dtype=np.float32)[:, None]
    xn = np.linspace(-1, 1, sw, dtype=np.float32)[None, :]
    field = 1 + strength * 0.5 * (xn * np.cos(ang) + yn * np.sin(ang)) - vig * 0.35 * (xn * xn + yn * yn)
    field = cv2.resize((field * p.gain).astype(np.float32), (w, h), interpolation=cv2.INTER_LINEAR)
    t = p.temperature
    ch = np.array([1 - t, 1.0, 1 + t], np.float32)  # B, G, R
    out = img.astype(np.float32)
    out *= field[..., None]
    out *= ch
    return np.clip(out, 0, 255).astype(np.uint8)


#: Glare strength (share of full scale the spot adds) at which a pixel carries nothing: it adds
#: >= 230 of 255, so even a black pip (~20) clips to within noise of the white around it. The
#: renderer counts such pixels as hidden when it labels a tile's visible fraction.
WASHOUT = 0.9


def glare_field(shape: tuple[int, int], p: EffectParams, targets: np.ndarray | None = None) -> np.ndarray:
    """The glare spots' strength: (H, W) float32 in [0, ~1], the share of full scale (255) that
    :func:`glare` adds to each pixel; zeros when ``p.glare`` is 0.

    Args:
        shape: (H, W) px of the frame.
        targets: (N, 2) float image px, the tiles' centres: each spot is centred on one of them
            with chance ``p.glare_on_tiles`` (else anywhere in the frame).
    """
    h, w = shape
    m = np.zeros((h, w), np.float32)
    if p.glare == 0:
        return m
    rng = np.random.default_rng(p.seed)
    # spots on tiles draw from a generator of their own: frames without them render as before
    pick = np.random.default_rng(p.seed + 2) if p.glare_on_tiles > 0 and targets is not None and len(targets) else None
    for _ in range(p.glare):
        c = (int(rng.uniform(0, w)), int(rng.uniform(0, h)))
        if pick is not None and pick.random() < p.glare_on_tiles:
            c = tuple(int(v) for v in targets[int(pick.integers(len(targets)))])
        ax = (int(rng.uniform(0.02, 0.12) * w), int(rng.uniform(0.02, 0.08) * w))
        cv2.ellipse(m, c, ax, float(rng.uniform(0, 180)), 0, 360, float(rng.uniform(0.4, 1.0)), -1)
    k = int(max(3, 0.04 * w)) | 1
    return cv2.GaussianBlur(m, (k, k), 0)


def glare(img: np.ndarray, p: EffectParams, targets: np.ndarray | None = None) -> np.ndarray:
    """Add ``p.glare`` soft specular spots (overexposed ellipses, :func:`glare_field`)."""
    if p.glare == 0:
        return img
    m = glare_field(img.shape[:2], p, targets)
    out = img.astype(np.float32) + 255 * m[..., None]
    return np.clip(out, 0, 255).astype(np.uint8)


def blur(img: np.ndarray, p: EffectParams) -> np.ndarray:
    """Gaussian defocus and optional linear motion blur."""
    out = img
    if p.blur_sigma > 0.3:
        out = cv2.GaussianBlur(out, (0, 0), p.blur_sigma)
    if p.motion_px >= 1.5:
        n = int(p.motion_px) | 1
        k = np.zeros((n, n), np.float32)
        rng = np.random.default_rng(p.seed + 1)
        ang = rng.uniform(0, 180)
        cv2.line(k, (0, n // 2), (n - 1, n // 2), 1.0, 1)
        M = cv2.getRotationMatrix2D((n / 2 - 0.5, n / 2 - 0.5), ang, 1.0)
        k = cv2.warpAffine(k, M, (n, n))
        k /= max(k.sum(), 1e-6)
        out = cv2.filter2D(out, -1, k)
    return out


def noise(img: np.ndarray, p: EffectParams) -> np.ndarray:
    """Additive Gaussian sensor noise (sigma in grey levels)."""
    if p.noise_sigma < 0.5:
        return img
    rng = np.random.default_rng(p.seed + 2)
    n = rng.standard_normal(img.shape[:2] + (1,), dtype=np.float32)
    n *= p.noise_sigma
    return np.clip(img.astype(np.float32) + n, 0, 255).astype(np.uint8)


def jpeg(img: np.ndarray, p: EffectParams) -> np.ndarray:
    """JPEG round trip at ``p.jpeg_quality`` (100 = no compression)."""
    if p.jpeg_quality >= 100:
        return img
    ok, buf = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, p.jpeg_quality])
    return cv2.imdecode(buf, cv2.IMREAD_COLOR)


def apply_all(img: np.ndarray, p: EffectParams, targets: np.ndarray | None = None) -> np.ndarray:
    """Lighting, glare, blur, noise and JPEG, in camera order; ``targets``: (N, 2) px tile centres
    for the glare spots (:func:`glare`)."""
    img = blur(glare(lighting(img, p), p, targets), p)
    if p.grey:
        img = cv2.cvtColor(cv2.cvtColor(img, cv2.COLOR_BGR2GRAY), cv2.COLOR_GRAY2BGR)
    return jpeg(noise(img, p), p)
