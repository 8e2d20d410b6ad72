"""Evaluate the ONNX models on a synthetic split (onnxruntime only; no torch).

    python -m models.evaluate --data data/synth_s0 --split test

Detector: recall / precision at rotated IoU >= 0.5 against the per-image JSON
ground truth (``detect/gt/<split>``; tiles less than half visible are "don't
care": detections on them count neither way), class-agnostic and per class,
plus the up/down accuracy of matched tiles.
Pip reader: accuracy and confusion matrix on ``pips/<split>``.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import cv2
import numpy as np

from models.runtime import DETECTOR_ONNX, PIPS_ONNX, PipReader, TileDetector, detect_frame
from vision.obb import covered_fraction, polygon_iou

MIN_VISIBLE = 0.5


def match(preds: list, gts: list[np.ndarray], ignore: list[np.ndarray], iou_thr: float = 0.5
          ) -> tuple[list[tuple[int, int]], int]:
    """Greedy score-ordered matching of predictions to ground-truth polygons.

    Args:
        preds: detections (with ``polygon`` and ``score``), any order.
        gts: (4, 2) polygons that must be found.
        ignore: (4, 2) polygons of barely visible tiles (don't care): a prediction with at
            least ``iou_thr`` of its own area inside one counts neither way (COCO's rule for
            crowd regions: a box around the visible part of a half-hidden tile is no false
            positive, though its IoU with the whole tile's outline is low).
        iou_thr: minimum rotated IoU for a match.

    Returns:
        (list of (pred index, gt index) matches, number of false positives).
    """
    order = sorted(range(len(preds)), key=lambda i: -preds[i].score)
    used: set[int] = set()
    matches, fp = [], 0
    for i in order:
        best, bj = 0.0, -1
        for j, g in enumerate(gts):
            if j in used:
                continue
            v = polygon_iou(preds[i].polygon, g)
            if v > best:
                best, bj = v, j
        if best >= iou_thr:
            used.add(bj)
            matches.append((i, bj))
        elif not any(covered_fraction(preds[i].polygon, g) >= iou_thr for g in ignore):
            fp += 1
    return matches, fp


def evaluate_detector(data: Path, split: str = "test", onnx: Path = DETECTOR_ONNX, conf: float = 0.25,
                      limit: int | None = None) -> dict:
    """Detection recall/precision at IoU >= 0.5 on ``data/detect/images/<split>``."""
    det = TileDetector(onnx)
    files = sorted((data / "detect" / "images" / split).glob("*.jpg"))[:limit]
    tp = fp = n_gt = 0
    cls_ok = 0
    per = {0: [0, 0, 0], 1: [0, 0, 0]}  # tp, fp, gt per class (class-aware matching)
    by_surface: dict[str, list[int]] = {}  # class-agnostic tp, fp, gt per table surface
    t0 = time.time()
    for f in files:
        gt = json.loads((data / "detect" / "gt" / split / f"{f.stem}.json").read_text())
        img = cv2.imread(str(f), cv2.IMREAD_COLOR)
        preds = det.detect(img, conf=conf)
        g = [t for t in gt["tiles"] if t["visible"] >= MIN_VISIBLE]
        ign = [np.asarray(t["polygon"], np.float32) for t in gt["tiles"] if t["visible"] < MIN_VISIBLE]
        gp = [np.asarray(t["polygon"], np.float32) for t in g]
        m, f_p = match(preds, gp, ign)
        tp += len(m)
        fp += f_p
        n_gt += len(g)
        bs = by_surface.setdefault(gt.get("surface", "?"), [0, 0, 0])
        bs[0] += len(m)
        bs[1] += f_p
        bs[2] += len(g)
        cls_ok += sum(preds[i].cls == g[j]["cls"] for i, j in m)
        for c in (0, 1):
            pc = [p for p in preds if p.cls == c]
            gc = [gp[j] for j in range(len(g)) if g[j]["cls"] == c]
            # Ground truth of the other class is "don't care" for this class.
            ic = ign + [gp[j] for j in range(len(g)) if g[j]["cls"] != c]
            mc, fpc = match(pc, gc, ic)
            per[c][0] += len(mc)
            per[c][1] += fpc
            per[c][2] += len(gc)
    secs = time.time() - t0

    def pr(t, f_, n):
        return {"recall": round(t / max(n, 1), 4), "precision": round(t / max(t + f_, 1), 4), "tp": t, "fp": f_,
                "gt": n}

    return {"split": split, "images": len(files), "iou": 0.5, "conf": conf,
            "tile": pr(tp, fp, n_gt), "up_down_accuracy_of_matched": round(cls_ok / max(tp, 1), 4),
            "tile_up": pr(*per[0]), "tile_down": pr(*per[1]),
            "tile_by_surface": {k: pr(*v) for k, v in sorted(by_surface.items())},
            "ms_per_window": round(1000 * secs / max(len(files), 1), 1)}


def scene_styles(data: Path, scenes: set[int]) -> dict[int, tuple[str, str]]:
    """(surface, tile style) of each scene index, re-derived from the recipe's seed (no rendering)."""
    from datasets.build import read_recipe, scene_spec

    rec = read_recipe(data)
    out = {}
    for i in scenes:
        spec, _ = scene_spec(i, rec["seed"], tuple(rec["frame_size"]), rec["max_pips"])
        out[i] = (spec.surface, spec.style.name)
    return out


def evaluate_pips(data: Path, split: str = "test", onnx: Path = PIPS_ONNX) -> dict:
    """Half classification accuracy (overall, per class, per tile style and surface) on ``data/pips/<split>``."""
    from datasets.build import load_pip_split

    reader = PipReader(onnx)
    x, y, names, stems = load_pip_split(data / "pips" / split)
    sc = [int(st.split("_")[0][1:]) for st in stems]
    pred = np.concatenate([reader.read(x[i:i + 512]) for i in range(0, len(x), 512)]) if len(x) else y
    k = len(names)
    cm = np.zeros((k, k), int)
    for a, b in zip(y, pred):
        cm[a, b] += 1
    res = {"split": split, "halves": int(len(y)),
           "accuracy": round(float((pred == y).mean()), 4) if len(y) else None,
           "per_class_accuracy": {names[c]: round(float(cm[c, c] / max(cm[c].sum(), 1)), 4) for c in range(k)},
           "confusion_rows_true_cols_pred": cm.tolist()}
    if (data / "recipe.json").exists() and len(y):
        st = scene_styles(data, set(sc))
        ok = pred == y
        for key, pos in (("by_surface", 0), ("by_style", 1)):
            groups: dict[str, list[bool]] = {}
            for s_, o in zip(sc, ok):
                groups.setdefault(st[s_][pos], []).append(bool(o))
            res[key] = {g: {"n": len(v), "accuracy": round(float(np.mean(v)), 4)} for g, v in sorted(groups.items())}
    return res


def evaluate_end_to_end(seed: int = 0, scenes: int = 40, frame_size: tuple[int, int] = (1280, 720),
                        det_onnx: Path = DETECTOR_ONNX, pips_onnx: Path = PIPS_ONNX, target_px: float = 40.0,
                        conf: float = 0.25) -> dict:
    """Full pipeline on freshly rendered held-out test frames (scene i with i % 10 == 9).

    Frame -> :func:`models.runtime.detect_frame` (scale from the camera, as calibration
    would give) -> rectified halves from the full-resolution frame -> pip reader.
    A tile read is correct when the detected polygon matches (IoU >= 0.5), it is called
    face up, and the unordered pip pair equals the ground truth; scored on face-up tiles
    that are fully in frame and not occluded.
    """
    from datasets.build import scene_spec
    from datasets.render.scene import render_scene
    from datasets.render.tiles import TILE_LONG_MM
    from vision.crops import rectified_halves

    det = TileDetector(det_onnx)
    reader = PipReader(pips_onnx)
    idx = [i for i in range(scenes * 10) if i % 10 == 9][:scenes]
    tp = fp = n_gt = 0
    read_ok = read_n = 0
    t_det = 0.0
    for i in idx:
        spec, _ = scene_spec(i, seed, frame_size)
        frame, labels = render_scene(spec)
        t0 = time.time()
        preds = detect_frame(det, frame, spec.camera.px_per_mm * TILE_LONG_MM, target_px, conf)
        t_det += time.time() - t0
        g = [l for l in labels if l["visible"] >= MIN_VISIBLE]
        ign = [l["polygon"] for l in labels if 0 < l["visible"] < MIN_VISIBLE]
        m, f_p = match(preds, [l["polygon"] for l in g], ign)
        tp += len(m)
        fp += f_p
        n_gt += len(g)
        matched = {j: i_ for i_, j in m}
        for j, l in enumerate(g):
            if l["face"] != "up" or l["in_frame"] < 0.999 or l["unoccluded"] < 0.97:
                continue
            read_n += 1
            if j not in matched or preds[matched[j]].cls != 0:
                continue
            ha, hb = rectified_halves(frame, preds[matched[j]].polygon, 64)
            pa, pb = reader.read(np.stack([ha, hb]))
            read_ok += sorted([int(pa), int(pb)]) == sorted(l["pips"])
    return {"scenes": len(idx), "seed": seed, "frame_size": list(frame_size), "target_tile_px": target_px,
            "tile": {"recall": round(tp / max(n_gt, 1), 4), "precision": round(tp / max(tp + fp, 1), 4),
                     "tp": tp, "fp": fp, "gt": n_gt},
            "face_up_tiles_read_correctly": round(read_ok / max(read_n, 1), 4), "face_up_tiles_scored": read_n,
            "detect_ms_per_frame": round(1000 * t_det / max(len(idx), 1), 1)}


def main(argv: list[str] | None = None) -> None:
    """Command-line entry point: prints JSON, optionally writes it to ``--out``."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", type=Path, required=True)
    ap.add_argument("--split", default="test")
    ap.add_argument("--detector", type=Path, default=DETECTOR_ONNX)
    ap.add_argument("--pips", type=Path, default=PIPS_ONNX)
    ap.add_argument("--conf", type=float, default=0.25)
    ap.add_argument("--limit", type=int, default=None)
    ap.add_argument("--out", type=Path, default=None)
    ap.add_argument("--end-to-end", type=int, default=0, metavar="N",
                    help="also run the full pipeline on N freshly rendered test frames (seed from recipe.json)")
    a = ap.parse_args(argv)
    res = {}
    if a.pips.exists():
        res["pip_reader"] = evaluate_pips(a.data, a.split, a.pips)
    if a.detector.exists():
        res["tile_detector"] = evaluate_detector(a.data, a.split, a.detector, a.conf, a.limit)
    if a.end_to_end and a.detector.exists() and a.pips.exists():
        from datasets.build import read_recipe

        rec = read_recipe(a.data)
        res["end_to_end"] = evaluate_end_to_end(rec["seed"], a.end_to_end, tuple(rec["frame_size"]), a.detector,
                                                a.pips, conf=a.conf)
    text = json.dumps(res, indent=2)
    print(text)
    if a.out:
        a.out.write_text(text + "\n")


if __name__ == "__main__":
    main()
