"""An oracle recognizer for generated footage (``datasets.footage.make_footage``).

The recognizer is replaced by the footage's own ground truth (the tiles of the latest
keyframe), so the tests that use it check the rest of the pipeline independently of the
models. Shared by ``tests/test_review.py`` and ``tests/test_service_vision.py``.
"""

from __future__ import annotations

import numpy as np

from calibration.profile import TableProfile
from vision.observation import TileObservation
from vision.recognize import table_pose


class Oracle:
    """Image -> the ground-truth tiles of the latest keyframe at or before the current frame."""

    def __init__(self, gt: dict, profile: TableProfile, hands: bool = False):
        self.keyframes = sorted(gt["keyframes"], key=lambda k: k["frame"])
        self.profile = profile
        self.frame = 0
        self.hands = hands  # the face-down tiles of the hands too, as the detector boxes them

    def progress(self, frames_done: int) -> None:
        self.frame = frames_done  # the next frame's index

    def __call__(self, image: np.ndarray) -> list[TileObservation]:
        key = [k for k in self.keyframes if k["frame"] <= self.frame][-1]
        obs = []
        for t in key["tiles"]:
            if t["where"].startswith("hand") and t["face"] == "down" and not self.hands:
                continue  # hands are face down until the end-of-hand reveal
            poly = np.asarray(t["polygon"], np.float32)
            o = TileObservation(poly, t["face"], 0.99)
            if t["face"] == "up":
                o.pips, o.half_confidence = tuple(t["pips"]), (0.99, 0.99)
            o.center_mm, o.angle_deg = table_pose(poly, self.profile)
            obs.append(o)
        return obs
