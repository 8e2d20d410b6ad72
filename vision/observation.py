"""The recognizer's output type: one :class:`TileObservation` per detected tile.

Conventions:

* ``polygon_px`` is the tile's top face in the input frame, (4, 2) float32, pixel-edge
  coordinates (pixel ``(i, j)`` covers ``[i, i+1) x [j, j+1)``), corners in order around
  the tile with edge 0->1 a long side (:func:`vision.crops.canonical_polygon`).
* ``pips = (a, b)``: ``a`` is the half at corners 0/3, ``b`` the half at corners 1/2,
  i.e. the values in order along the long axis from corner 0 towards corner 1.
* ``angle_deg`` is the direction of that axis (from half ``a`` to half ``b``) on the
  table, degrees counter-clockwise from +x with the table's y axis as-is (so with y
  pointing down on screen it turns clockwise), in (-180, 180].
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

__all__ = ["TileObservation", "FLAG_PIP_DISAGREE", "FLAG_SET_RESOLVED", "FLAG_DUPLICATE", "FLAG_OVER_SET",
           "FLAG_FRAME_EDGE", "FLAG_GLARE_FIT", "touches_frame"]

#: The learned pip reader and the classical blob counter disagree on a half.
FLAG_PIP_DISAGREE = "pip_disagreement"
#: The reading was changed by the set constraint (the raw reading is in ``raw_pips``).
FLAG_SET_RESOLVED = "set_resolved"
#: Confidently read, but more copies of this tile are on the table than the sets hold.
FLAG_DUPLICATE = "duplicate"
#: More face-up tiles than the sets hold; no free tile was left for this one.
FLAG_OVER_SET = "over_set"
#: The tile touches the frame border (maybe cut off).
FLAG_FRAME_EDGE = "frame_edge"
#: Found and read from its pips alone under a glare spot (:mod:`vision.glare_pips`); no detector box.
FLAG_GLARE_FIT = "glare_fit"


def touches_frame(polygon_px: np.ndarray, image_size: tuple[int, int]) -> bool:
    """Whether a tile's polygon reaches within 1 px of the frame's border (:data:`FLAG_FRAME_EDGE`: maybe cut off).

    Args:
        polygon_px: (4, 2) float image px corners.
        image_size: (width, height) px of the frame.
    """
    p, (w, h) = np.asarray(polygon_px, np.float64), image_size
    return bool(p[:, 0].min() < 1 or p[:, 1].min() < 1 or p[:, 0].max() > w - 1 or p[:, 1].max() > h - 1)


@dataclass
class TileObservation:
    """One tile seen in one frame.

    Attributes:
        polygon_px: (4, 2) float32 top-face corners in frame pixels (see module doc).
        face: ``"up"`` (pips visible) or ``"down"``.
        det_score: detector class score in [0, 1].
        pips: ``(a, b)`` pip values along the long axis, None when face down.
        half_confidence: ``(conf_a, conf_b)`` in [0, 1] per half, None when face down.
        half_probs: (2, C) float32 per-half class probabilities after the cross-check
            (C = max pips + 1), None when face down.
        raw_pips: the reading before the set constraint (equal to ``pips`` unless
            :data:`FLAG_SET_RESOLVED` is set).
        classical_pips: ``(a, b)`` of the classical blob counter (None for a half it did
            not check), None when it checked neither half.
        center_mm: (2,) float32 tile centre on the table, mm (calibrated frames only).
        angle_deg: long-axis direction on the table, degrees (calibrated frames only).
        face_lab: the body colour of a face-up tile's top face, median ``(L, a, b)`` in OpenCV's
            8-bit Lab scale (:func:`vision.crops.face_colours_lab`); None when face down or not measured.
        patch: a face-up tile's grey surroundings in the frame (:func:`vision.tile_turn.tile_patch`), from which
            the tracker measures how far a knocked tile turned; None when not kept.
        flags: anomaly / provenance flags (``FLAG_*`` constants).
    """

    polygon_px: np.ndarray
    face: str
    det_score: float
    pips: tuple[int, int] | None = None
    half_confidence: tuple[float, float] | None = None
    half_probs: np.ndarray | None = field(default=None, repr=False)
    raw_pips: tuple[int, int] | None = None
    classical_pips: tuple[int | None, int | None] | None = None
    center_mm: np.ndarray | None = None
    angle_deg: float | None = None
    face_lab: tuple[float, float, float] | None = None
    patch: object | None = field(default=None, repr=False, compare=False)  # a vision.tile_turn.TilePatch
    flags: list[str] = field(default_factory=list)

    @property
    def confidence(self) -> float:
        """Overall confidence in [0, 1]: detector score x the weaker half (face up)."""
        if self.face != "up" or self.half_confidence is None:
            return float(self.det_score)
        return float(self.det_score * min(self.half_confidence))

    @property
    def center_px(self) -> np.ndarray:
        """(2,) float32 centre of the polygon, px."""
        return np.asarray(self.polygon_px, np.float32).mean(0)

    @property
    def tile(self) -> tuple[int, int] | None:
        """The tile's identity ``(low, high)``, None when face down."""
        return None if self.pips is None else (min(self.pips), max(self.pips))

    def to_json(self) -> dict:
        """JSON-ready dict: ``pips``, ``polygon``, ``face``, ``confidence``, ``det_score``,
        ``half_confidence``, ``flags`` and, when calibrated, ``center_mm``/``angle_deg``."""
        d: dict = {
            "pips": None if self.pips is None else [int(v) for v in self.pips],
            "polygon": [[round(float(x), 2), round(float(y), 2)] for x, y in np.asarray(self.polygon_px)],
            "face": self.face,
            "confidence": round(self.confidence, 4),
            "det_score": round(float(self.det_score), 4),
            "half_confidence": None if self.half_confidence is None
            else [round(float(c), 4) for c in self.half_confidence],
            "flags": list(self.flags),
        }
        if self.raw_pips is not None and self.raw_pips != self.pips:
            d["raw_pips"] = [int(v) for v in self.raw_pips]
        if self.center_mm is not None:
            d["center_mm"] = [round(float(v), 2) for v in self.center_mm]
            d["angle_deg"] = None if self.angle_deg is None else round(float(self.angle_deg), 2)
        return d
