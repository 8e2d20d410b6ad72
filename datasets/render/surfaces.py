"""Table surfaces: felt, wood, marble, printed game boards, plain dark, linen cloth, terrazzo.

Surfaces are drawn directly in image space at frame resolution.  Printed game
boards carry flat pictures of dominoes: distractors that are never labelled.  A
"board" is either a plain printed board (lines, a few pictures of dominoes) or,
3 times in 5, a game board (:func:`_game_board`: coloured grid, ornaments, and a
track of touching printed dominoes as white and sharp as real tiles).
"""

from __future__ import annotations

import cv2
import numpy as np

from datasets.render import tiles as T

#: All surface kinds the renderer knows.
SURFACE_KINDS = ("felt", "wood", "marble", "board", "dark", "linen", "terrazzo", "procedural")

_FELT = [(40, 110, 30), (110, 60, 20), (30, 30, 120), (60, 60, 60), (20, 80, 90), (90, 40, 70)]


def _lowfreq(rng: np.random.Generator, h: int, w: int, cells: int, interp: int = cv2.INTER_CUBIC) -> np.ndarray:
    """Smooth noise in [-1, 1], (h, w) float32, with about ``cells`` blobs across."""
    ch = max(2, int(cells * h / max(h, w)) + 2)
    cw = max(2, int(cells * w / max(h, w)) + 2)
    small = rng.uniform(-1, 1, (ch, cw)).astype(np.float32)
    return cv2.resize(small, (w, h), interpolation=interp)


def make_surface(kind: str, h: int, w: int, rng: np.random.Generator, tile_long_px: float = 60.0,
                 grid_angle_deg: float = 0.0) -> np.ndarray:
    """Render a table surface of a given kind.

    Args:
        kind: one of ``SURFACE_KINDS``.
        h, w: frame size in pixels.
        rng: random generator (all variation comes from it).
        tile_long_px: approximate tile long side in pixels, used to scale
            the printed dominoes on game boards.
        grid_angle_deg: image direction (degrees) of the printed grid of a game board
            (the scene passes the direction of its main line of tiles).

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
        if rng.random() < 0.6:  # a game board: coloured grid, printed track of dominoes
            return _game_board(h, w, rng, tile_long_px, grid_angle_deg)
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
    elif kind == "procedural":
        # no real table: a random texture of a generic family (the verifier's hard negatives only)
        from datasets.render.textures import random_texture

        f = float(np.exp(rng.uniform(np.log(2), np.log(6))))  # features from a fraction of a tile to many
        small = random_texture(rng, max(int(h / f), 2), max(int(w / f), 2))
        img = cv2.resize(small, (w, h), interpolation=cv2.INTER_LINEAR).astype(np.float32)
        img += 3 * rng.standard_normal((h, w, 1), dtype=np.float32)
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
        fade = rng.uniform(0.4, 1.0)
        ang = rng.uniform(0, 360)
        cx, cy = rng.uniform(0, w), rng.uniform(0, h)
        M = cv2.getRotationMatrix2D((L / 2, L / 4), ang, 1.0)
        M[:, 2] += (cx - L / 2, cy - L / 4)
        warped = cv2.warpAffine(face, M, (w, h), flags=cv2.INTER_LINEAR, borderValue=0)
        mask = cv2.warpAffine(np.full(face.shape[:2], 255, np.uint8), M, (w, h), flags=cv2.INTER_NEAREST)
        sel = mask > 0
        img[sel] = (img[sel] * (1 - fade) + warped[sel] * fade).astype(np.uint8)


#: Play-area colours of printed game boards (BGR): teal, green, blue, red, beige, grey.
_GRID = [(160, 135, 25), (60, 120, 40), (140, 80, 30), (40, 40, 150), (150, 190, 210), (120, 120, 120)]
#: Track / frame colours (BGR): brown wood print, maroon, navy, cream, black.
_TRACK = [(65, 60, 80), (40, 40, 110), (90, 40, 20), (185, 215, 225), (30, 30, 30)]


def _jit(rng: np.random.Generator, c, s: float = 20.0) -> np.ndarray:
    return np.clip(np.asarray(c, np.float32) + rng.uniform(-s, s, 3).astype(np.float32), 0, 255)


def _game_board(h: int, w: int, rng: np.random.Generator, L: float, angle_deg: float,
                printed: list | None = None) -> np.ndarray:
    """A printed domino game board seen from above (distractors only, nothing here is a tile).

    A coloured play area with an ``n x n`` grid of cells the size of a tile half, dark grid
    lines, star ornaments with numbers, maybe a logo; around it a track (wood print or a
    plain colour) with a snake of **printed dominoes touching each other**, alternately
    along and across the track, and a few round tokens; a wooden table outside the board.
    Real boards of this kind (the DDD photos) made the first detectors fire on ~70 printed
    dominoes per photo: printed pictures are as white and as high-contrast as tiles and
    differ from them only by having no thickness (no side faces, no contact shadow).
    The board is drawn axis-aligned on a canvas just covering the frame and rotated by
    ``angle_deg`` (+ a multiple of 90 degrees) into it.

    ``printed``, when given, receives the ``(4, 2)`` float32 frame-px outline of each printed
    domino drawn (for tests: none of them is ever a label).
    """
    cell = L / 2 * rng.uniform(0.95, 1.12)
    n = int(rng.integers(9, 18))
    tw = float(rng.uniform(2.1, 3.2))  # track width, cells
    # getRotationMatrix2D turns counter-clockwise on screen (y down), image angles turn clockwise.
    ang = -float(angle_deg) + 90.0 * int(rng.integers(4)) + rng.normal(0, 1.5)
    ca, sa = abs(np.cos(np.deg2rad(ang))), abs(np.sin(np.deg2rad(ang)))
    DW, DH = int(np.ceil(w * ca + h * sa)) + 4, int(np.ceil(w * sa + h * ca)) + 4  # canvas covering the frame
    # Board point (cells, play area = [0, n]^2) at the frame centre, where the scene's tiles
    # lie: on the play area half the time (tiles on the grid, the track around them), else
    # anywhere on or near the board (tiles on and next to the track of printed dominoes: the
    # detector windows are cut around tiles).
    if rng.random() < 0.5:
        cu, cv_ = rng.uniform(0.2 * n, 0.8 * n, 2)
    else:
        cu, cv_ = rng.uniform(-tw - 1.5, n + tw + 1.5, 2)
    X = lambda u: (u - cu) * cell + DW / 2  # noqa: E731
    Y = lambda v: (v - cv_) * cell + DH / 2  # noqa: E731
    ipt = lambda u, v: (int(round(X(u) * 16)), int(round(Y(v) * 16)))  # noqa: E731  (shift 4)

    # Table outside the board: wood (a phone photo of a board on a table).  Single-channel
    # float maps, scaled per channel into uint8 (the canvas is large: keep it cheap).
    wood = np.array([40, 80, 120], np.float32) * rng.uniform(0.5, 1.3)
    yy = np.arange(DH, dtype=np.float32)[:, None]
    period = np.float32(rng.uniform(8, 30))
    grain = (np.sin((yy + 20 * _lowfreq(rng, DH, DW, 3, cv2.INTER_LINEAR)) * np.float32(2 * np.pi / period))
             * 0.5 + 0.5) ** 3
    f = 0.85 + 0.25 * grain
    canvas = cv2.merge([cv2.convertScaleAbs(f, alpha=float(c)) for c in wood])
    # Track (outer frame) and play area.
    tcol = _jit(rng, _TRACK[rng.integers(len(_TRACK))])
    x0, y0, x1, y1 = (int(round(v)) for v in (X(-tw), Y(-tw), X(n + tw), Y(n + tw)))
    xa, ya, xb, yb = max(x0, 0), max(y0, 0), min(x1, DW), min(y1, DH)
    if xb > xa and yb > ya:
        tex = 8 * _lowfreq(rng, yb - ya, xb - xa, 12, cv2.INTER_LINEAR) + 4 * _lowfreq(rng, yb - ya, xb - xa, 40,
                                                                                       cv2.INTER_LINEAR)
        canvas[ya:yb, xa:xb] = cv2.merge([cv2.convertScaleAbs(tex, beta=float(c)) for c in tcol])
    gcol = _jit(rng, _GRID[rng.integers(len(_GRID))])
    gx0, gy0, gx1, gy1 = (int(round(v)) for v in (X(0), Y(0), X(n), Y(n)))
    xa, ya, xb, yb = max(gx0, 0), max(gy0, 0), min(gx1, DW), min(gy1, DH)
    if xb > xa and yb > ya:
        tex = (rng.standard_normal((yb - ya, xb - xa), dtype=np.float32) * np.float32(rng.uniform(2, 8))
               + 6 * _lowfreq(rng, yb - ya, xb - xa, 6, cv2.INTER_LINEAR))
        canvas[ya:yb, xa:xb] = cv2.merge([cv2.convertScaleAbs(tex, beta=float(c)) for c in gcol])
    line = tuple(float(c) for c in np.clip(gcol * rng.uniform(0.15, 0.6), 0, 255))
    lw = max(1, int(round(cell * rng.uniform(0.02, 0.06))))
    for k in range(n + 1):
        cv2.line(canvas, ipt(k, 0), ipt(k, n), line, lw, cv2.LINE_AA, 4)
        cv2.line(canvas, ipt(0, k), ipt(n, k), line, lw, cv2.LINE_AA, 4)
    # Star ornaments (4-point stars with a number) on some grid crossings / cells.
    for _ in range(int(rng.integers(n, 4 * n))):
        u, v = rng.integers(0, n + 1, 2) + (0.0 if rng.random() < 0.6 else 0.5)
        if not (0 < u < n and 0 < v < n):
            continue
        r = rng.uniform(0.35, 0.6)
        star = np.array([(u, v - r), (u + r / 3, v - r / 3), (u + r, v), (u + r / 3, v + r / 3), (u, v + r),
                         (u - r / 3, v + r / 3), (u - r, v), (u - r / 3, v - r / 3)])
        pts = np.array([ipt(a, b) for a, b in star], np.int32)
        col = tuple(float(c) for c in rng.uniform(20, 230, 3))
        cv2.fillPoly(canvas, [pts], col, cv2.LINE_AA, 4)
        if rng.random() < 0.7:
            fs = cell * r * 0.02
            cv2.putText(canvas, str(int(rng.integers(1, 6))), (int(X(u - r * 0.25)), int(Y(v + r * 0.25))),
                        cv2.FONT_HERSHEY_TRIPLEX, fs, (235, 235, 235), max(1, int(fs * 1.5)), cv2.LINE_AA)
    if rng.random() < 0.5:  # a logo across the middle
        fs = cell * rng.uniform(0.025, 0.045)
        text = ["Dominoes", "DOMINO", "Double", "Fichas"][rng.integers(4)]
        font = [cv2.FONT_HERSHEY_TRIPLEX, cv2.FONT_HERSHEY_SCRIPT_COMPLEX][rng.integers(2)]
        cv2.putText(canvas, text, (int(X(n / 2 - 3)), int(Y(n / 2 + 0.5))), font, fs,
                    tuple(float(c) for c in _jit(rng, (60, 200, 230), 40)), max(1, int(fs * 2)), cv2.LINE_AA)

    # Printed dominoes: a snake along the middle of each side of the track, touching (side s
    # runs from its start corner to the next side's, so corners are never covered twice).
    style = T.make_style(["white", "white", "ivory", "black"][rng.integers(4)], rng)
    fade = rng.uniform(0.75, 1.0)
    outline = rng.random() < 0.6
    Lp = max(12, int(round(2 * cell * rng.uniform(0.92, 1.0))) // 2 * 2)
    mid = tw / 2
    boxes: list = []
    for side in range(4):
        pos = rng.uniform(0.0, 1.0) - tw
        while pos < n - 0.5:  # each side owns one corner of the track
            along = rng.random() < 0.55
            ext = (2.0 if along else 1.0) * Lp / (2 * cell)  # extent along the track, cells
            off = rng.uniform(-0.25, 0.25) * (tw - (1.0 if along else 2.0)) if tw > 2 else 0.0
            c_along, c_across = pos + ext / 2, -mid + off
            pos += ext + rng.uniform(0.0, 0.08)
            if c_along + ext / 2 > n + 0.05:
                break
            # side 0 top, 1 right, 2 bottom, 3 left; track coordinates -> board cells
            if side == 0:
                cu_, cv2_, horiz = c_along, c_across, along
            elif side == 1:
                cu_, cv2_, horiz = n - c_across, c_along, not along
            elif side == 2:
                cu_, cv2_, horiz = n - c_along, n - c_across, along
            else:
                cu_, cv2_, horiz = c_across, n - c_along, not along
            px, py = X(cu_), Y(cv2_)
            if not (-Lp < px < DW + Lp and -Lp < py < DH + Lp):
                continue
            sprite = T.render_face_up(style, int(rng.integers(7)), int(rng.integers(7)), Lp, rng)
            if outline:
                cv2.rectangle(sprite, (0, 0), (sprite.shape[1] - 1, sprite.shape[0] - 1), (110, 110, 110), 1)
            if not horiz:
                sprite = np.ascontiguousarray(np.rot90(sprite, int(rng.choice([1, 3]))))
            elif rng.random() < 0.5:
                sprite = np.ascontiguousarray(sprite[::-1, ::-1])
            sh, sw = sprite.shape[:2]
            ox, oy = int(round(px - sw / 2)), int(round(py - sh / 2))
            a0, b0 = max(ox, 0), max(oy, 0)
            a1, b1 = min(ox + sw, DW), min(oy + sh, DH)
            if a1 <= a0 or b1 <= b0:
                continue
            roi = canvas[b0:b1, a0:a1]
            spr = sprite[b0 - oy:b1 - oy, a0 - ox:a1 - ox]
            roi[:] = (roi * (1 - fade) + spr * fade).astype(np.uint8)
            if printed is not None:
                boxes.append([(ox, oy), (ox + sw, oy), (ox + sw, oy + sh), (ox, oy + sh)])
    for _ in range(int(rng.integers(0, 6))):  # tokens on the track
        side = rng.integers(4)
        a = rng.uniform(-tw, n + tw)
        b = rng.uniform(-tw + 0.4, -0.4)
        u, v = [(a, b), (n - b, a), (n - a, n - b), (b, n - a)][side]
        col = tuple(float(c) for c in rng.uniform(20, 240, 3))
        cv2.circle(canvas, ipt(u, v), int(cell * rng.uniform(0.25, 0.45) * 16), col, -1, cv2.LINE_AA, 4)

    M = cv2.getRotationMatrix2D((DW / 2, DH / 2), ang, 1.0)
    M[:, 2] += (w / 2 - DW / 2, h / 2 - DH / 2)
    if printed is not None and boxes:
        b = np.asarray(boxes, np.float64).reshape(-1, 2)
        b = b @ M[:, :2].T + M[:, 2]
        printed.extend(np.asarray(b, np.float32).reshape(-1, 4, 2))
    return cv2.warpAffine(canvas, M, (w, h), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REFLECT)
