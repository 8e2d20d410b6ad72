"""Padded detector windows (``datasets.build._padded_window``): what the runtime feeds for small
frames and edge windows, with labels that still sit on the tiles."""

from __future__ import annotations

import cv2
import numpy as np

from datasets import build as B
from datasets.render import scene as SC
from vision.obb import PAD_VALUE


def _scene(seed: int = 11):
    """The first scene of ``seed`` at a scale detector windows can use (close-ups give none)."""
    for i in range(20):
        spec, rng = B.scene_spec(i, seed)
        frame, labels = SC.render_scene(spec)
        if B.detector_samples(frame, labels, np.random.default_rng(0), 320, 1):
            return frame, labels, rng
    raise AssertionError("no usable scene")


def test_padded_window_keeps_a_crop_on_grey_and_reports_where():
    rng = np.random.default_rng(5)
    img = np.random.default_rng(1).integers(0, 255, (320, 320, 3), np.uint8)
    for _ in range(20):
        out, (cx0, cy0, cw, ch), (px, py) = B._padded_window(img, 100, 40, 40.0, rng)
        assert out.shape == img.shape and 60 <= cw <= 320 and 60 <= ch <= 320
        ox, oy = cx0 - 100, cy0 - 40
        assert np.array_equal(out[py:py + ch, px:px + cw], img[oy:oy + ch, ox:ox + cw])
        mask = np.ones((320, 320), bool)
        mask[py:py + ch, px:px + cw] = False
        assert (out[mask] == PAD_VALUE).all()
        assert (px, py) in ((0, 0), ((320 - cw) // 2, (320 - ch) // 2))


def test_padded_windows_label_only_tiles_in_the_crop_at_their_pixels():
    frame, labels, rng = _scene()
    wins = B.detector_samples(frame, labels, rng, 320, 12, padded=1.0)
    assert wins
    seen = 0
    for img, tiles in wins:
        grey = np.all(img == PAD_VALUE, axis=2)
        assert grey.mean() > 0.0  # every window padded (padded=1.0); crops are smaller than 320
        for t in tiles:
            poly = np.asarray(t["polygon"], np.float32)
            m = np.zeros(img.shape[:2], np.uint8)
            cv2.fillPoly(m, [np.round(poly).astype(np.int32)], 1)
            inner = cv2.erode(m, np.ones((5, 5), np.uint8)).astype(bool)
            if t["visible"] > 0.99 and inner.sum() > 50:
                seen += 1
                # a labelled, fully visible tile lies on image content, never on the padding
                assert grey[inner].mean() < 0.02
    assert seen >= 3


def test_test_split_windows_are_never_padded():
    for i in (9, 19, 29):
        r = B.render_one(i, 0, imgsz=320)
        assert r["split"] == "test"
        for img, _ in r["det"]:
            assert not np.all(img[-8:, -8:] == PAD_VALUE) or not np.all(img[:8, :8] == PAD_VALUE)
