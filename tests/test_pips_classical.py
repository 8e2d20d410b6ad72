"""Tests for vision/pips_classical.py on halves synthesised here with OpenCV.

The layouts below are written out independently of ``vision.pips_classical.LAYOUTS``.
"""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from vision.pips_classical import BlobCount, count, count_tile

# standard double-six layouts, unit square, x right / y down
_L, _M, _H = 0.26, 0.5, 0.74
LAYOUT = {
    0: [],
    1: [(_M, _M)],
    2: [(_L, _H), (_H, _L)],
    3: [(_L, _H), (_M, _M), (_H, _L)],
    4: [(_L, _L), (_L, _H), (_H, _L), (_H, _H)],
    5: [(_L, _L), (_L, _H), (_M, _M), (_H, _L), (_H, _H)],
    6: [(_L, _L), (_L, _M), (_L, _H), (_H, _L), (_H, _M), (_H, _H)],
}
# BGR colours
WHITE, BLACK = (242, 242, 240), (22, 22, 22)
IVORY = (196, 228, 240)
RED, BLUE, GREEN = (40, 40, 190), (170, 80, 20), (50, 140, 30)
BRASS = (50, 160, 200)

FACES = [  # (face, pip colours cycled over n)
    ("white/black", WHITE, [BLACK]),
    ("black/white", BLACK, [WHITE]),
    ("ivory/coloured", IVORY, [RED, BLUE, GREEN]),
]


def synth_half(n: int, face, pips, size: int = 64, r: float = 0.095, angle: float = 0.0,
               noise: float = 0.0, blur: float = 0.0, seed: int = 0, layout=None,
               scale: int = 4) -> np.ndarray:
    """(size, size, 3) uint8 half with the standard n layout, drawn at `scale` x and shrunk."""
    s = size * scale
    img = np.full((s, s, 3), face, np.uint8)
    pts = LAYOUT[n] if layout is None else layout
    for i, (x, y) in enumerate(pts):
        cv2.circle(img, (int(x * s), int(y * s)), int(r * s), pips[i % len(pips)], -1,
                   lineType=cv2.LINE_AA)
    if angle:
        m = cv2.getRotationMatrix2D((s / 2, s / 2), angle, 1.0)
        img = cv2.warpAffine(img, m, (s, s), borderMode=cv2.BORDER_REPLICATE)
    img = cv2.resize(img, (size, size), interpolation=cv2.INTER_AREA)
    if blur:
        img = cv2.GaussianBlur(img, (0, 0), blur)
    if noise:
        rng = np.random.default_rng(seed)
        img = np.clip(img + rng.normal(0, noise, img.shape), 0, 255).astype(np.uint8)
    return img


VARIANTS = [  # (size, angle deg, noise sigma, blur sigma)
    (64, 0.0, 0.0, 0.0),
    (48, 4.0, 8.0, 0.8),
    (100, -6.0, 5.0, 1.5),
    (32, 3.0, 6.0, 0.6),
]


@pytest.mark.parametrize("name,face,pips", FACES, ids=[f[0] for f in FACES])
@pytest.mark.parametrize("n", range(7))
def test_counts_standard_layouts(name, face, pips, n):
    for k, (size, angle, noise, blur) in enumerate(VARIANTS):
        half = synth_half(n, face, pips, size=size, angle=angle, noise=noise, blur=blur, seed=k)
        res = count(half)
        assert res.pips == n, f"{name} n={n} variant {k}: got {res.pips}"
        assert res.blobs.shape == (n, 3) and res.blobs.dtype == np.float32


def test_grey_input_and_blob_geometry():
    half = synth_half(5, WHITE, [BLACK], size=80, r=0.1)
    res = count(cv2.cvtColor(half, cv2.COLOR_BGR2GRAY))
    assert isinstance(res, BlobCount) and res.pips == 5
    want = np.array(LAYOUT[5]) * 80
    got = res.blobs[:, :2]
    # every drawn centre has a found blob within 1.5 px, radius within 25 % of 8 px
    d = np.linalg.norm(want[:, None] - got[None], axis=2)
    assert d.min(1).max() < 1.5
    assert np.all(np.abs(res.blobs[:, 2] - 8.0) < 2.0)


def test_confidence_range():
    clean = count(synth_half(6, WHITE, [BLACK]))
    blank = count(synth_half(0, WHITE, [BLACK], noise=4))
    assert 0.6 < clean.confidence <= 1.0
    assert 0.5 < blank.confidence <= 1.0


def test_brass_centre_pin_ignored():
    """A brass pin at the middle of the divider edge is not a pip (any edge if unknown)."""
    for n in (0, 2, 4, 6):
        half = synth_half(n, IVORY, [BLACK], size=256, scale=1)
        pinned = half.copy()
        cv2.circle(pinned, (256, 128), 22, BRASS, -1, lineType=cv2.LINE_AA)  # on the right edge
        cv2.circle(pinned, (253, 125), 6, (200, 240, 250), -1)  # specular highlight
        pinned = cv2.resize(pinned, (64, 64), interpolation=cv2.INTER_AREA)
        assert count(pinned).pips == n
        assert count(pinned, divider="right").pips == n


def test_dark_pin_rejected_on_divider_edge_only():
    """A dark round blob just inside the divider edge is the pin; the rule is edge-aware."""
    half = synth_half(3, WHITE, [BLACK], size=64)
    cv2.circle(half, (6, 32), 3, (60, 60, 60), -1, lineType=cv2.LINE_AA)  # left edge, middle
    assert count(half, divider="left").pips == 3
    assert count(half).pips == 3
    # the same blob counted when the divider is declared on the opposite edge
    assert count(half, divider="right").pips == 4


def test_divider_line_at_edge_ignored():
    for n in (1, 3, 5):
        half = synth_half(n, WHITE, [BLACK], size=64)
        cv2.line(half, (1, 4), (1, 60), BLACK, 3)  # divider along the left edge
        cv2.line(half, (6, 62), (58, 62), (90, 90, 90), 2)  # tile border at the bottom
        assert count(half).pips == n


def test_table_margin_ignored():
    """The crop shows a strip of green table around the face."""
    for n in (0, 4, 6):
        face = synth_half(n, WHITE, [BLACK], size=56)
        crop = cv2.copyMakeBorder(face, 4, 4, 4, 4, cv2.BORDER_CONSTANT, value=(40, 110, 30))
        assert count(crop).pips == n


def test_pip_cut_by_crop_border_counted_and_neighbour_sliver_not():
    # offset crop: the 4 layout shifted left by 12 % so two pips are cut by the border
    pts = [(x - 0.12, y) for x, y in LAYOUT[4]]
    half = synth_half(4, WHITE, [BLACK], r=0.12, layout=pts)
    assert count(half).pips == 4
    # a sliver of the neighbouring half's pip at the right border is not a pip
    half = synth_half(2, WHITE, [BLACK])
    cv2.circle(half, (68, 16), 7, BLACK, -1, lineType=cv2.LINE_AA)
    assert count(half).pips == 2


def test_merged_pips_split():
    """Two pips blurred into one blob are counted as two."""
    pts = [(0.26, 0.26), (0.74, 0.26), (0.26, 0.74), (0.74, 0.62), (0.74, 0.84)]
    half = synth_half(5, WHITE, [BLACK], size=64, r=0.11, layout=pts, blur=1.2)
    # the last two pips touch: check the premise, then the count
    mask = (cv2.cvtColor(half, cv2.COLOR_BGR2GRAY) < 128).astype(np.uint8)
    assert cv2.connectedComponents(mask)[0] - 1 == 4
    assert count(half).pips == 5


def test_double_twelve_layouts():
    nine = [(x, y) for x in (0.2, 0.5, 0.8) for y in (0.2, 0.5, 0.8)]
    twelve = [(x, y) for x in (0.2, 0.5, 0.8) for y in (0.15, 0.38, 0.62, 0.85)]
    h9 = synth_half(0, IVORY, [RED, BLUE], r=0.075, layout=nine, size=80)
    h12 = synth_half(0, IVORY, [GREEN, RED], r=0.065, layout=twelve, size=96)
    assert count(h9, max_pips=12).pips == 9
    assert count(h12, max_pips=12).pips == 12
    res = count(h12, max_pips=6)  # never more than max_pips
    assert res.pips == 6 and res.blobs.shape == (6, 3)


def test_count_tile_landscape_and_portrait():
    left = synth_half(2, WHITE, [BLACK], size=64, angle=2, noise=4, seed=1)
    right = synth_half(5, WHITE, [BLACK], size=64, angle=2, noise=4, seed=2)
    tile = np.hstack([left, right])
    cv2.line(tile, (64, 6), (64, 58), BLACK, 3)  # centre divider
    cv2.circle(tile, (64, 32), 6, BRASS, -1, lineType=cv2.LINE_AA)  # centre pin
    a, b = count_tile(tile)
    assert (a.pips, b.pips) == (2, 5)
    assert np.all(b.blobs[:, 0] >= 64) and np.all(a.blobs[:, 0] < 64)
    top, bottom = count_tile(np.ascontiguousarray(np.rot90(tile)))  # right half now on top
    assert (top.pips, bottom.pips) == (5, 2)


def test_errors():
    good = synth_half(1, WHITE, [BLACK])
    with pytest.raises(TypeError):
        count(good.astype(np.float32))
    with pytest.raises(TypeError):
        count([[0, 1], [2, 3]])
    with pytest.raises(ValueError):
        count(good[..., :2])
    with pytest.raises(ValueError):
        count(good[:4, :4])
    with pytest.raises(ValueError):
        count(good[:, :20])  # far from square
    with pytest.raises(ValueError):
        count(good, max_pips=13)
    with pytest.raises(ValueError):
        count(good, divider="middle")
    with pytest.raises(ValueError):
        count_tile(good)  # square, not a tile


def test_found_says_how_many_pips_were_there_before_the_cut_to_max_pips():
    """helper-187: a double-twelve half counted for a double-six reader came back as 6, like a real 6; ``found``
    keeps the blobs seen before the cut, so the reader can tell a larger set's half (vision.pip_reader)."""
    nine = [(x, y) for x in (0.2, 0.5, 0.8) for y in (0.2, 0.5, 0.8)]
    twelve = [(x, y) for x in (0.2, 0.5, 0.8) for y in (0.15, 0.38, 0.62, 0.85)]
    h9 = synth_half(0, IVORY, [RED, BLUE], r=0.075, layout=nine, size=80)
    h12 = synth_half(0, IVORY, [GREEN, RED], r=0.065, layout=twelve, size=96)
    assert (count(h9, max_pips=6).pips, count(h9, max_pips=6).found) == (6, 9)
    assert (count(h12, max_pips=6).pips, count(h12, max_pips=6).found) == (6, 12)
    six = count(synth_half(6, WHITE, [BLACK]))
    assert (six.pips, six.found) == (6, 6)
    assert count(synth_half(0, WHITE, [BLACK])).found == 0
    first, second = count_tile(np.hstack([synth_half(2, WHITE, [BLACK]), synth_half(0, IVORY, [RED], r=0.075,
                                                                                    layout=nine)]))
    assert (first.found, second.found) == (2, 9)
