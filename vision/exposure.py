"""Overexposure: how much of a photo or frame is clipped white, where tiles may be missed.

Under a washed-out area a light tile's face and the table clip to the same white: the detector finds
no outline there, and :mod:`vision.glare_pips` recovers only the tiles whose pips survive. A picture
with a large clipped share is said to the user (``dominocast detect``: one line on stderr;
``dominocast review``: an ``overexposed`` notice and a summary warning) rather than silently reading
fewer tiles; so is a smaller glare over or beside tiles that were read (``detect``: one line per picture,
:func:`glared_reads_message`), whose pips may be misread.

The tracker uses the clipped white per tile: a laid tile it hides is unseen, not gone
(:func:`hidden_by_glare`), unless the tile was itself read in or by a glare (:func:`read_in_glare`); the
review's notice also says when it hides laid tiles or lies at an open end of the line (:func:`glare_beside`).
"""

from __future__ import annotations

import cv2
import numpy as np

__all__ = ["BESIDE_GROW", "BESIDE_SHARE", "CLIPPED_LEVEL", "DIM_LEVEL", "GLARED_READ_GROW", "GLARED_READ_SHARE",
           "HIDDEN_SHARE", "LIFT_LEVEL", "OVEREXPOSED_SHARE", "WASHED_OUT_ONLY", "clipped_fraction", "clipped_mask",
           "clipped_share", "glare_beside", "glared_reads_message", "hidden_by_glare", "lift_dim", "overexposed",
           "overexposed_message", "read_in_glare"]

#: 8-bit level from which a pixel is clipped white, in every colour channel (glare and overexposure are
#: white light; a cream cloth or an ivory tile keeps a channel below it). Under 255: JPEG compression
#: leaves a clipped area a few levels below it.
CLIPPED_LEVEL = 250

#: Share of the image (0-1) clipped white (:data:`CLIPPED_LEVEL`) from which it is overexposed, measured
#: with :func:`clipped_share`. Pictures that must not warn: the bundled demo footage
#: (examples/footage/demo.mp4, all 751 frames) 0.0; the tests' generated footage (all-fives, seed 5,
#: 640x360, 443 frames) 0.0; real photos (shared/realdata) at most 0.131, a close-up of white tiles whose
#: faces clip but whose pips stay dark (the 100 DDD board photos 0.0, 1 399 DomiBot close-ups at most 0.030);
#: 530 rendered scenes (datasets.render.sample_scene, all three splits) at most 0.198 without glare (a
#: bright linen cloth at gain 1.2, as the detector is trained on) and 0.162 with the renderer's glare
#: spots (which the detector is trained to see through). 0.25 stays clear of all of them; a photo
#: brightened until half of it clips (0.5) warns.
OVEREXPOSED_SHARE = 0.25

#: Share (0-1) of a tile's outline clipped white from which the picture cannot show that tile: neither its
#: outline nor a light face is left (the glare-washed tiles the held-out frames miss have 65-100 % of the
#: face clipped, docs/recognition.md; those found at most 28 % of the ring round them).
HIDDEN_SHARE = 0.5
#: A tile read with this share (0-1) or more of its outline grown :data:`GLARED_READ_GROW` times, or of its
#: own outline, clipped white was read in or by a glare (:func:`read_in_glare`). helper-138: a 4-4 washed out
#: at a glare's edge was read 2-3, then kept "hidden" through the next glared photos, and never taken back;
#: helper-141: a small glare on one half (26 % of the tile, 6.7 % of the grown outline) turned a 6-4 into a
#: 4-4 and was not counted.
GLARED_READ_SHARE = 0.1
GLARED_READ_GROW = 2.0

#: A picture whose 99.5th-percentile grey lies under this is dim (a venue's light dimmed, a short exposure):
#: its tiles are read lifted to :data:`LIFT_LEVEL` (:func:`lift_dim`). helper-240: helper-230's W/P photo 10
#: (99.5th percentile 181) dimmed to 0.2x (36) read its 0-4 as 0-3, at 0.1x (18) missed 3-1 and 0-0 (N 20 S 30
#: for N 15 S 35). 48 until 2026-12-05, when dimmer-than-lit pictures above it still read weakly: W/P's 18 photos
#: at 0.35x (level 63) gave 10 uncertain_read flags, at 0.5x 1; the demo video at 0.4x 9 flags and N 10 S 35 with
#: the hand unfinished; lifted, none, N 15 S 35 final, as the lit ones (0.6x and 0.7x read cleanly either way).
#: Lit pictures lie well above: the bench footage's first frames 166-252, held-out rendered scenes 157 or more
#: (60 sampled), real photos 131 or more (DomiBot, 5th percentile 152; DDD 223).
DIM_LEVEL = 110
#: The 99.5th-percentile grey a dim picture is lifted to: a lit photo's (helper-230's photos: about 180).
LIFT_LEVEL = 180
#: The picture's level is taken on every this-many-th pixel of every this-many-th row: a 1080p frame's full
#: percentile took 16.5 ms of each read, the sample's 1.2 ms.
LEVEL_STEP = 4


def clipped_mask(image: np.ndarray) -> np.ndarray:
    """(H, W) uint8 mask, 255 where ``image`` ((H, W, 3) BGR or (H, W) grey, uint8) is clipped white:
    :data:`CLIPPED_LEVEL` or more in every channel."""
    channels = 1 if image.ndim == 2 else image.shape[2]
    return cv2.inRange(image, (CLIPPED_LEVEL,) * channels, (255,) * channels)


def clipped_share(image: np.ndarray) -> float:
    """Share (0-1) of the pixels of ``image`` ((H, W, 3) BGR or (H, W) grey, uint8) that are clipped
    white (:func:`clipped_mask`)."""
    clipped = clipped_mask(image)
    return cv2.countNonZero(clipped) / clipped.size


def hidden_by_glare(mask: np.ndarray, polygon_px: np.ndarray) -> bool:
    """Whether :data:`HIDDEN_SHARE` or more of the (4, 2) image-px outline ``polygon_px`` lies on clipped
    white in ``mask`` (:func:`clipped_mask`); parts outside the picture count as not clipped."""
    return clipped_fraction(mask, polygon_px) >= HIDDEN_SHARE


def read_in_glare(mask: np.ndarray, polygon_px: np.ndarray) -> bool:
    """Whether a tile read with the (4, 2) image-px outline ``polygon_px`` lay in or by clipped white in
    ``mask``: :data:`GLARED_READ_SHARE` or more of the outline grown :data:`GLARED_READ_GROW` times about its
    centre, or of the outline itself (a small glare on a half). Such a read may be wrong (a washed-out 4-4
    read 2-3): the tile is not kept through a later glare."""
    return (clipped_fraction(mask, polygon_px, GLARED_READ_GROW) >= GLARED_READ_SHARE
            or clipped_fraction(mask, polygon_px) >= GLARED_READ_SHARE)


def clipped_fraction(mask: np.ndarray, polygon_px: np.ndarray, grow: float = 1.0) -> float:
    """Share (0-1) of the area of the (4, 2) image-px outline ``polygon_px``, grown ``grow`` times about its
    centre, that is clipped in ``mask`` (:func:`clipped_mask`); parts off the picture count as not clipped."""
    h, w = mask.shape[:2]
    p = np.asarray(polygon_px, np.float32).reshape(-1, 2)
    if grow != 1.0:
        c = p.mean(0)
        p = c + (p - c) * grow
    x0, y0 = np.floor(p.min(0)).astype(int)
    x1, y1 = np.ceil(p.max(0)).astype(int) + 1
    if x1 <= 0 or y1 <= 0 or x0 >= w or y0 >= h:
        return 0.0
    inside = np.zeros((y1 - y0, x1 - x0), np.uint8)
    cv2.fillPoly(inside, [np.round(p - (x0, y0)).astype(np.int32)], 1)
    area = cv2.countNonZero(inside)
    cx0, cy0 = max(x0, 0), max(y0, 0)
    part = inside[cy0 - y0:min(y1, h) - y0, cx0 - x0:min(x1, w) - x0]
    clipped = cv2.countNonZero(part & (mask[cy0:min(y1, h), cx0:min(x1, w)] > 0).astype(np.uint8))
    return clipped / area if area else 0.0


#: Share (0-1) of the ring round an open end's tile (its outline grown :data:`BESIDE_GROW` times about its
#: centre, less the tile) clipped white from which the glare lies where the next plays go. helper-136's
#: glare at the E end (24.5 % of the picture) hid every tile laid there, nothing tracked under it: the
#: ring of the last tile seen there was 13-18 % clipped (its next tiles washed out short of clipping).
#: Without glare 0 (the demo, the DDD photos: nothing clipped); the tile's own face is left out, as a
#: white face under a strong lamp clips and stays readable.
BESIDE_SHARE = 0.1
BESIDE_GROW = 3.0


def glare_beside(mask: np.ndarray, polygon_px: np.ndarray) -> bool:
    """Whether :data:`BESIDE_SHARE` or more of the ring round the (4, 2) image-px outline ``polygon_px``
    (grown :data:`BESIDE_GROW` times about its centre, about a tile length each way, less the tile) is
    clipped white in ``mask`` (:func:`clipped_mask`)."""
    p = np.asarray(polygon_px, np.float32).reshape(-1, 2)
    g2 = BESIDE_GROW ** 2  # the grown outline's area in tiles
    ring = (g2 * clipped_fraction(mask, p, BESIDE_GROW) - clipped_fraction(mask, p)) / (g2 - 1)
    return ring >= BESIDE_SHARE


def overexposed(image: np.ndarray, mask: np.ndarray | None = None) -> float | None:
    """The clipped share of ``image`` (:func:`clipped_share`, 0-1) when it is at least
    :data:`OVEREXPOSED_SHARE`, else None. ``mask``: its :func:`clipped_mask` when already made."""
    mask = clipped_mask(image) if mask is None else mask
    share = cv2.countNonZero(mask) / mask.size
    return share if share >= OVEREXPOSED_SHARE else None


#: How :func:`overexposed_message` ends for a picture whose glare hid nothing laid: a doubt about some reads only
#: (the review's score stays final, ``service.review_summary.doubts_score``).
WASHED_OUT_ONLY = "tiles in the washed-out part may be missed; lower the exposure or move the light"


def overexposed_message(share: float, hidden: int = 0, ends: int = 0, hands: int = 0) -> str:
    """One line for people: ``share`` (0-1) of the picture is clipped white, hiding ``hidden`` tiles of the
    line of play (:func:`hidden_by_glare`), lying by ``ends`` of its open ends (:func:`glare_beside`) or
    hiding ``hands`` face-down tiles of the players' hands, and what that costs."""
    where = " and ".join(x for x in (
        f"hides {hidden} tile{'' if hidden == 1 else 's'} of the line of play" if hidden else "",
        f"lies at {ends} open end{'' if ends == 1 else 's'} of the line" if ends else "",
        f"hides {hands} tile{'' if hands == 1 else 's'} of the hands" if hands else "") if x)
    if where:
        seats = ", and a play beside it goes to the seat whose turn it is" if hands else ""
        return (f"{share:.0%} of the picture is clipped white (overexposed or glare); it {where}: plays there "
                f"may be missed or seen late{seats}; lower the exposure or move the light")
    return f"{share:.0%} of the picture is clipped white (overexposed or glare): {WASHED_OUT_ONLY}"


def glared_reads_message(glared: int, read: int) -> str:
    """One line for people: ``glared`` of the ``read`` tiles of a picture were read in or by clipped white
    (:func:`read_in_glare`: a tenth of the outline grown twice, or of the tile's own, clipped: the tracker's
    rule from helper-138's 4-4 read 2-3 at a glare's edge), so their pips may be misread.

    Said however small a share of the picture the glare is. Measured on the label outlines (tiles at least
    half in the frame) of 450 rendered scenes (datasets.render.sample_scene, 640x360, 150 per split): 95 of
    the 173 with glare spots say it (69 before the tile's own outline counted), 31 of the 277 without (27:
    white faces or a bright cloth clipped by the lamp); the demo footage has nothing clipped, so never."""
    tiles = f"{glared} tile{'' if glared == 1 else 's'}" if glared == read else f"{glared} of the {read} tiles"
    whose = "its" if glared == 1 else "their"
    return (f"glare (clipped white) over or beside {tiles} read: {whose} pips may be misread; light the table "
            "from the side or move the lamp")


def lift_dim(image: np.ndarray) -> np.ndarray:
    """``image`` ((H, W, 3) BGR or (H, W) grey, uint8) with its levels scaled so its 99.5th-percentile grey is
    :data:`LIFT_LEVEL`, when that lies under :data:`DIM_LEVEL` (a dim picture; clipped at 255); the same array
    otherwise, or when it is black (nothing to lift)."""
    sample = image[::LEVEL_STEP, ::LEVEL_STEP]  # every frame passes here: its level from a 1/16 sample
    grey = cv2.cvtColor(sample, cv2.COLOR_BGR2GRAY) if image.ndim == 3 else sample
    level = float(np.percentile(grey, 99.5))
    if level <= 0 or level >= DIM_LEVEL:
        return image
    return cv2.LUT(image, np.clip(np.arange(256) * (LIFT_LEVEL / level), 0, 255).astype(np.uint8))
