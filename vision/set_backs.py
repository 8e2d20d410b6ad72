"""Face-down boxes that do not look like the backs of the set in play.

Every face-down tile on a table shows the back of a set in play, and a set's backs share one
material colour. The detector's false face-down boxes are table texture boxed as tile backs (on
the held-out marble table: cells between veins, bands beside a row of boneyard tiles), and they
have the table's colour. So a face-down box the detector is not sure of (score below
:data:`CONFIDENT_BACK_SCORE`) whose body chroma is further than :data:`BACK_CHROMA_MAX` from that of
every face-down tile it is sure of is dropped. Chroma (Lab a, b) rather than lightness: a back in
an arm's shadow or under the light's gradient keeps its hue. Saturated samples (glare) are left
out, as their chroma is lost; a box mostly in glare is kept. Two sets with different backs each
have their own confident tiles, which is why the distance is to the nearest one.

Thresholds were chosen on the val frames (training surfaces only); docs/recognition.md, step 5c.
"""

from __future__ import annotations

import numpy as np

from vision.crops import face_samples_lab

__all__ = ["BACK_CHROMA_MAX", "CONFIDENT_BACK_SCORE", "SATURATED_L", "unlike_backs"]

#: Detector score from which a face-down box is a reference back colour and never checked.
CONFIDENT_BACK_SCORE = 0.9
#: Largest chroma distance (Lab a, b; 8-bit units, as CIELab's) from the nearest reference back.
#: On 60 val frames the true tiles below 0.9 reach 5-6; 8 keeps a margin.
BACK_CHROMA_MAX = 8.0
#: Samples at or above this 8-bit L are glare (the pixel is clipped white: its hue is gone).
SATURATED_L = 254


def _body_chroma(samples: np.ndarray) -> np.ndarray | None:
    """(2,) median (a, b) of the unsaturated samples; None when glare covers half the face or more."""
    ok = samples[:, 0] < SATURATED_L
    return np.median(samples[ok, 1:].astype(np.float64), 0) if ok.mean() > 0.5 else None


def unlike_backs(frame: np.ndarray, polygons_px: np.ndarray, scores: np.ndarray,
                 chroma_max: float = BACK_CHROMA_MAX) -> np.ndarray:
    """Which face-down boxes do not have the colour of any confidently detected back.

    Args:
        frame: (H, W, 3) uint8 BGR frame.
        polygons_px: (N, 4, 2) float face-down box corners in frame pixels.
        scores: (N,) detector scores in [0, 1].
        chroma_max: the largest chroma distance to the nearest reference back that passes.

    Returns:
        (N,) bool, True for a box to drop: it scores below :data:`CONFIDENT_BACK_SCORE`, at least
        one other box scores at or above it, and its body chroma is further than ``chroma_max``
        from every such box's. All False when no box is confident (nothing to compare with).
    """
    scores = np.asarray(scores, np.float64).reshape(-1)
    out = np.zeros(len(scores), bool)
    sure = scores >= CONFIDENT_BACK_SCORE
    if not sure.any() or sure.all():
        return out
    chroma = [_body_chroma(s) for s in face_samples_lab(frame, polygons_px)]
    refs = np.array([c for c, ok in zip(chroma, sure) if ok and c is not None]).reshape(-1, 2)
    if not len(refs):
        return out
    for k in np.flatnonzero(~sure):
        c = chroma[k]
        if c is not None:
            out[k] = np.linalg.norm(refs - c, axis=1).min() > chroma_max
    return out
