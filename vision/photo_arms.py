"""Arms in a folder of photos: a photo taken while a player reaches over the table.

A time-lapse review (one photo per move) reads every photo as a stable state, so a photo taken
while the mover's hand is still over the table (or the next player's already is) shows the move
one photo late, or hides tiles, and the record silently goes wrong (helper-108: photos cut
0.33 s before each move gave every play to the other seat, with no word of an arm). Two
consecutive photos that differ by an arm-sized region touching the image border are reported.

The comparison is :class:`vision.motion.MotionGate`'s occlusion test (a changed region that
touches the border is an arm; most of the frame changed is lighting), with the gate's faint-arm
test off and an arm at least :data:`PHOTO_ARM_MIN_AREA` of the frame: photos are taken seconds
apart by hand, and the border of a real board photo drifts by small amounts between shots.
"""

from __future__ import annotations

import numpy as np

from vision.motion import MotionGate

__all__ = ["PHOTO_ARM_MIN_AREA", "arm_between"]

#: Smallest border-touching change between two photos taken for an arm, as a share of the frame.
#: Measured at 0.02 on generated footage (the demo; block, muggins and bdc-partnership at 960x540):
#: photos taken 0.15 or 0.33 s before each tile comes to rest (the arm over the table), 112 of 117
#: consecutive pairs reported; taken 0.8 s after (the arm gone), 0 of 66. The 95 pairs of the real
#: DDD time-lapse photos (no arms; the board's surroundings drift a little between shots): 6
#: reported at 0.001 (the motion gate's own threshold), 1 at 0.01, none at 0.02. The bench's photo
#: folders (``bench/sec_photos.py``: 9 presets, about 300 photos taken 0.8 s after each event): none.
PHOTO_ARM_MIN_AREA = 0.02


def arm_between(before: np.ndarray, after: np.ndarray) -> str | None:
    """The image border (``top``, ``right``, ``bottom``, ``left``) from which an arm-sized change
    between two photos reaches in, or None when they differ by no such region.

    Args:
        before, after: (H, W, 3) BGR or (H, W) grey uint8 photos of the same table; photos of
            different sizes are not compared (None).

    Returns:
        the border the largest such region touches most; either photo may be the one with the arm.
    """
    if before.shape != after.shape:
        return None
    gate = MotionGate(still_window_s=0.0, arm_threshold=0.0, min_area=PHOTO_ARM_MIN_AREA)
    gate.prime(0.0, before)
    return gate.update(1, 1.0, after).arm_side
