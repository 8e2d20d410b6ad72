"""Scoring recognizer output against rendered ground truth (tests, benchmarks).

Ground truth is the label list of :func:`datasets.render.scene.render_scene` (dicts with
``polygon`` (4, 2) px, ``pips`` [a, b] with ``a`` at corners 0/3, ``face``, ``visible``).
"""

from __future__ import annotations

import numpy as np

from vision.obb import polygon_iou

__all__ = ["match_scene"]


def match_scene(obs: list, labels: list[dict], min_visible: float = 0.9, iou: float = 0.5) -> dict:
    """Match observations to ground truth (rotated IoU >= ``iou``, best detector score first).

    Returns counts: ``gt`` (tiles at least ``min_visible`` visible), ``found``,
    ``face_ok``, ``up`` (found face-up tiles), ``identity_ok`` (pips read in the right
    order along the long axis), ``false_pos`` (detections matching no tile at all) and
    ``pairs`` (observation index, label index).
    """
    gts = [k for k, l in enumerate(labels) if l["visible"] >= min_visible]
    used: set[int] = set()
    r = {"gt": len(gts), "found": 0, "face_ok": 0, "up": 0, "identity_ok": 0, "false_pos": 0, "pairs": []}
    for i in sorted(range(len(obs)), key=lambda i: -obs[i].det_score):
        o = obs[i]
        cand = [(polygon_iou(o.polygon_px, labels[k]["polygon"]), k) for k in range(len(labels)) if k not in used]
        best, k = max(cand, default=(0.0, -1))
        if best < iou:
            if not any(polygon_iou(o.polygon_px, l["polygon"]) >= 0.3 for l in labels):
                r["false_pos"] += 1
            continue
        used.add(k)
        if k not in gts:
            continue
        r["pairs"].append((i, k))
        lab = labels[k]
        r["found"] += 1
        r["face_ok"] += o.face == lab["face"]
        if lab["face"] == "up" and o.face == "up":
            r["up"] += 1
            g = np.asarray(lab["polygon"], np.float64)
            p = np.asarray(o.polygon_px, np.float64)
            end_a = (p[0] + p[3]) / 2
            same = np.linalg.norm(end_a - (g[0] + g[3]) / 2) < np.linalg.norm(end_a - (g[1] + g[2]) / 2)
            want = tuple(lab["pips"]) if same else tuple(lab["pips"][::-1])
            r["identity_ok"] += tuple(o.pips) == want
    return r
