"""Tests for vision/exposure.py: when a picture is overexposed enough to say so."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np

from vision.exposure import OVEREXPOSED_SHARE, clipped_share, overexposed

DEMO = Path(__file__).resolve().parent.parent / "examples" / "footage" / "demo.mp4"


def test_the_demo_footage_is_not_overexposed():
    cap = cv2.VideoCapture(str(DEMO))
    shares = []
    while True:
        ok, frame = cap.read()
        if not ok:
            break
        shares.append(clipped_share(frame))
    cap.release()
    assert len(shares) == 751 and max(shares) == 0.0


def test_a_rendered_table_brightened_until_half_clips_is_overexposed():
    """A rendered scene as it comes is read as it is; the same scene brightened (exposure up) until half
    of its pixels clip white in every channel is overexposed."""
    from datasets.render.scene import render_scene, sample_scene

    image, _ = render_scene(sample_scene(np.random.default_rng(3), "val", 640, 360))
    assert clipped_share(image) < 0.01 and overexposed(image) is None
    darkest = image.min(axis=2)
    brightened = cv2.convertScaleAbs(image, alpha=255.0 / max(float(np.median(darkest)), 1.0))
    share = overexposed(brightened)
    assert share is not None and 0.5 <= share < 0.6


def test_clipped_takes_every_channel_and_grey_images():
    cream = np.full((10, 10, 3), (235, 252, 255), np.uint8)  # blue under the clip level: a colour, not glare
    assert clipped_share(cream) == 0.0
    grey = np.full((10, 10), 90, np.uint8)
    grey[:3] = 251
    assert clipped_share(grey) == 0.3 and overexposed(grey) == 0.3 > OVEREXPOSED_SHARE


def test_a_tile_is_hidden_by_glare_over_half_its_outline():
    from vision.exposure import hidden_by_glare

    mask = np.zeros((100, 200), np.uint8)
    mask[:, :100] = 255  # the left half clipped white
    tile = lambda x0: np.array([[x0, 40], [x0 + 40, 40], [x0 + 40, 60], [x0, 60]], np.float32)
    assert hidden_by_glare(mask, tile(40))  # all of it clipped
    assert hidden_by_glare(mask, tile(75))  # 26 of 41 columns clipped
    assert not hidden_by_glare(mask, tile(85))  # 16 of 41
    assert not hidden_by_glare(mask, tile(300))  # outside the picture: not hidden
    assert hidden_by_glare(mask, tile(-20))  # half of it off the picture, the rest clipped: half its outline


def test_glare_beside_an_open_end_counts_the_ring_not_the_tile():
    from vision.exposure import glare_beside

    tile = np.array([[100, 90], [140, 90], [140, 110], [100, 110]], np.float32)  # 40 x 20 px, centre (120, 100)
    mask = np.zeros((200, 300), np.uint8)
    mask[90:111, 100:141] = 255  # the tile's own face clipped (a white face under a lamp): no glare beside it
    assert not glare_beside(mask, tile)
    mask[:] = 0
    mask[:, 175:] = 255  # clipped from x 175: 6 of the 121 columns of the grown outline (x 60-180), none of
    assert not glare_beside(mask, tile)  # the tile: ring 6 / 121 * 9 / 8 = 0.056
    mask[:, 160:] = 255  # from x 160: 21 columns, ring 21 / 121 * 9 / 8 = 0.195
    assert glare_beside(mask, tile)


def test_a_read_is_in_glare_by_its_grown_outline_or_its_own():
    """helper-141: a small glare on one half of a tile (a quarter of the tile, 1/16 of its outline grown
    twice) misread its pips and was not counted; by the tile's own outline it is."""
    from vision.exposure import read_in_glare

    tile = np.array([[100, 90], [180, 90], [180, 130], [100, 130]], np.float32)  # 80 x 40 px: 3 200 px²
    mask = np.zeros((300, 400), np.uint8)
    mask[100:120, 110:150] = 255  # 800 px² on the left half: 0.25 of the tile, 800 / 12 800 of the grown one
    assert read_in_glare(mask, tile)
    mask[:] = 0
    mask[100:110, 110:140] = 255  # 300 px²: 0.094 of the tile, 0.023 grown: under both shares
    assert not read_in_glare(mask, tile)
    mask[:] = 0
    mask[:, 200:] = 255  # beside it, not on it: x 200-220 of the grown outline (x 60-220), 20 / 161 columns
    assert read_in_glare(mask, tile)


def test_the_glared_reads_line_counts_tiles_in_domino_terms():
    from vision.exposure import glared_reads_message

    assert glared_reads_message(3, 7) == ("glare (clipped white) over or beside 3 of the 7 tiles read: their pips "
                                          "may be misread; light the table from the side or move the lamp")
    assert glared_reads_message(1, 1).startswith("glare (clipped white) over or beside 1 tile read: its pips ")
    assert glared_reads_message(2, 2).startswith("glare (clipped white) over or beside 2 tiles read: their pips ")


def test_a_dim_photo_is_lifted_and_its_tiles_read_as_the_photo_itself():
    """helper-240: W/P's photo 10 dimmed to 0.2x read its 0-4 as 0-3, at 0.1x missed two line tiles. A picture
    whose 99.5th-percentile grey lies under DIM_LEVEL is read lifted to LIFT_LEVEL; a lit one, a black one
    and one at 0.7x are left as they are. At 0.35x (read unlifted until 2026-12-05) the demo's plays read
    weakly (uncertain_read flags): lifted, as the lit frame."""
    from calibration.profile import TableProfile
    from vision.exposure import DIM_LEVEL, LIFT_LEVEL, lift_dim
    from vision.recognize import Recognizer

    from video_frames import video_frames  # tests/video_frames.py

    frame = video_frames(DEMO, [620])[0]  # the line of play long, the hands still held
    grey = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
    assert np.percentile(grey, 99.5) >= DIM_LEVEL and lift_dim(frame) is frame
    black = np.zeros_like(frame)
    assert lift_dim(black) is black
    kept = (frame * 0.7).astype(np.uint8)
    assert lift_dim(kept) is kept
    recognizer = Recognizer()
    profile = TableProfile.load(DEMO.parent / "profile.json")

    def faces(image):
        return sorted(tuple(sorted(o.pips)) for o in recognizer(image, profile) if o.face == "up")

    lit = faces(frame)
    assert len(lit) >= 10
    for gain in (0.35, 0.2, 0.1):
        dim = (frame * gain).astype(np.uint8)
        lifted = lift_dim(dim)
        assert abs(np.percentile(cv2.cvtColor(lifted, cv2.COLOR_BGR2GRAY), 99.5) - LIFT_LEVEL) <= 3
        assert faces(dim) == lit, gain
