"""Frames of a video read by index: the photos that tests make from the bundled footage."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np


def video_frames(video: Path, indices: list[int]) -> list[np.ndarray]:
    """The frames ``indices`` of ``video``, each (H, W, 3) uint8 BGR; fails the test on a frame that cannot be read."""
    cap = cv2.VideoCapture(str(video))
    out = []
    try:
        for f in indices:
            cap.set(cv2.CAP_PROP_POS_FRAMES, f)
            ok, img = cap.read()
            assert ok, f"frame {f} of {video} cannot be read"
            out.append(img)
    finally:
        cap.release()
    return out
