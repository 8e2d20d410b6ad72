"""Training data for the tile verifier: context crops of boxes, labelled up / down / none.

The verifier (``models/tile_verifier.md``) answers one question about a detected box: is
there a tile there?  Its crops (:func:`vision.crops.context_crop`, 40 x 80 px, the box grown
by 1.25) come from rendered scenes of the train and val splits only, from five sources:

* ``label``: true tiles at least half visible, corners jittered like a detector's boxes;
* ``det_tile``: the shipped detector's boxes matching a tile (IoU >= 0.5), labelled with the
  tile's true face;
* ``det_none``: the detector's boxes on no tile (IoU < 0.3 with every tile, less than half
  their area on a barely visible one): the hard negatives;
* ``random``: tile-sized boxes anywhere on the table that overlap no tile;
* ``shifted``: a tile's box moved by about half its short or long side (IoU ~0.3): the
  wrongly placed box the verifier must not vouch for.

A quarter of the scenes (:data:`PROCEDURAL_SHARE`, drawn per scene) lie on a ``procedural`` surface
instead of their split's: a random texture of a generic family (:mod:`datasets.render.textures`:
noise, warped gratings, cell cracks, strokes, blotches), so that the detector's false boxes on
surfaces unlike any table of the generator are among the hard negatives (domain randomisation).

Boxes on tiles less than half visible are left out (the benchmark counts them neither way).
Written as ``<split>.npz`` with ``x`` (N, 40, 80, 3) uint8 BGR, ``y`` (N,) int64 class index
into :data:`CLASSES`, ``source`` (N,) int64 index into :data:`SOURCES` and ``scene`` (N,).
"""

from __future__ import annotations

import dataclasses
import json
import time
from pathlib import Path

import numpy as np

from datasets.build import (MIN_VISIBLE, RECIPE_VERSION, on_procedural, recipe_or_why, render_pool, scene_spec,
                            split_of)
from datasets.render.scene import render_scene
from datasets.render.tiles import TILE_LONG_MM

CLASSES = ("up", "down", "none")
#: 2: parts of a crop outside the frame are grey instead of repeated edge pixels; 3: procedural surfaces.
CROP_VERSION = 3
#: What a build writes into its folder (recipe.json last: crops without it are an unfinished build).
VERIFIER_PARTS = ("recipe.json", "train.npz", "val.npz")
#: Share of the scenes rendered on a random procedural texture instead of their split's surface.
PROCEDURAL_SHARE = 0.25
SOURCES = ("label", "det_tile", "det_none", "random", "shifted")
#: Per scene at most: jittered true tiles, detector boxes on tiles, random and shifted boxes.
MAX_LABEL, MAX_DET_TILE, N_RANDOM, N_SHIFTED = 12, 6, 6, 4
#: Detector score from which boxes are collected (below the recognizer's 0.2 read threshold).
DET_CONF = 0.15
#: Corner jitter of true-tile boxes, fraction of the tile long side (detector-like noise).
JITTER = 0.03

_DETECTOR = None


def _init_worker() -> None:
    """One detector per rendering process (onnxruntime sessions are not shared across fork)."""
    global _DETECTOR
    import cv2

    from vision.detector import OBBDetector
    from vision.recognize import default_detector

    cv2.setNumThreads(1)
    _DETECTOR = OBBDetector(default_detector(), threads=1, conf_threshold=DET_CONF)


def _box(center: np.ndarray, long_px: float, angle: float) -> np.ndarray:
    """(4, 2) float32 corners of a 2:1 box, long side ``long_px`` along ``angle`` (radians)."""
    u = np.array([np.cos(angle), np.sin(angle)], np.float32) * long_px / 2
    v = np.array([-np.sin(angle), np.cos(angle)], np.float32) * long_px / 4
    return np.stack([center - u - v, center + u - v, center + u + v, center - u + v]).astype(np.float32)


def _max_iou(poly: np.ndarray, labels: list[dict]) -> float:
    from vision.obb import polygon_iou

    return max((polygon_iou(poly, t["polygon"]) for t in labels), default=0.0)


def _on_barely_visible(poly: np.ndarray, labels: list[dict]) -> bool:
    """Half or more of the box on a tile less than half visible (a box counted neither way)."""
    from vision.obb import covered_fraction

    return any(covered_fraction(poly, t["polygon"]) >= 0.5 for t in labels if 0 < t["visible"] < MIN_VISIBLE)


def scene_crops(frame: np.ndarray, labels: list[dict], tile_px: float, rng: np.random.Generator,
                detector) -> list[tuple[np.ndarray, int, int, np.ndarray]]:
    """The verifier crops of one rendered scene.

    Args:
        frame: (H, W, 3) uint8 BGR rendered frame.
        labels: :func:`datasets.render.scene.render_scene` labels.
        tile_px: tile long side in the frame, px.
        rng: the scene's generator (the output is a pure function of it).
        detector: a :class:`vision.detector.OBBDetector` (hard negatives), or None.

    Returns:
        ``(crop, class index, source index, box)`` tuples; crop (40, 80, 3) uint8 BGR, box (4, 2)
        float32 frame px.
    """
    from vision.crops import canonical_polygon, context_crop
    from vision.obb import polygon_iou

    h, w = frame.shape[:2]
    seen = [t for t in labels if t["visible"] >= MIN_VISIBLE]
    cls = lambda t: CLASSES.index(t["face"])  # noqa: E731
    out: list[tuple[np.ndarray, int, int, np.ndarray]] = []
    for k in rng.permutation(len(seen))[:MAX_LABEL]:
        p = np.asarray(seen[k]["polygon"], np.float32) + rng.normal(0, JITTER * tile_px, (4, 2)).astype(np.float32)
        out.append((context_crop(frame, p), cls(seen[k]), 0, p))
    if detector is not None:
        d = detector.detect(frame, tile_px)
        n_tile = 0
        for poly in d.polygons[rng.permutation(len(d))]:
            ious = [polygon_iou(poly, t["polygon"]) for t in seen]
            best = int(np.argmax(ious)) if ious else -1
            if ious and ious[best] >= 0.5:
                if n_tile < MAX_DET_TILE:
                    out.append((context_crop(frame, poly), cls(seen[best]), 1, poly))
                    n_tile += 1
            elif _max_iou(poly, labels) < 0.3 and not _on_barely_visible(poly, labels):
                out.append((context_crop(frame, poly), CLASSES.index("none"), 2, poly))
    for _ in range(N_RANDOM * 4):  # random boxes on bare table, a few tries each
        if sum(c[2] == 3 for c in out) >= N_RANDOM:
            break
        p = _box(rng.uniform([0, 0], [w, h]).astype(np.float32), tile_px * rng.uniform(0.8, 1.2),
                 rng.uniform(0, np.pi))
        if _max_iou(p, labels) < 0.1:
            out.append((context_crop(frame, p), CLASSES.index("none"), 3, p))
    for k in rng.permutation(len(seen))[:N_SHIFTED]:
        p = canonical_polygon(seen[k]["polygon"])
        axis = (p[1] - p[0]) if rng.random() < 0.5 else (p[3] - p[0])  # along the long or the short side
        p = p + axis * rng.uniform(0.45, 0.6) * rng.choice([-1, 1])
        if _max_iou(p, labels) < 0.35 and not _on_barely_visible(p, labels):
            out.append((context_crop(frame, p), CLASSES.index("none"), 4, p))
    return out


def _one(args: tuple[int, int]) -> tuple[int, str, list]:
    i, seed = args
    spec, rng = scene_spec(i, seed)
    if on_procedural(i, seed, PROCEDURAL_SHARE):
        spec = dataclasses.replace(spec, surface="procedural")
    frame, labels = render_scene(spec)
    tile_px = spec.camera.px_per_mm * TILE_LONG_MM
    return i, split_of(i), scene_crops(frame, labels, tile_px, rng, _DETECTOR)


def build_verifier(out: str | Path, scenes: int, seed: int, workers: int = 2, progress: bool = False) -> dict:
    """Render ``scenes`` scenes (train and val splits only) and write ``train.npz``, ``val.npz``.

    Args:
        out: output folder (created); ``recipe.json`` is written last.
        scenes: scene indices ``0 .. scenes-1``; the test tenth (``i % 10 == 9``, held-out
            surfaces and tile styles) is skipped.
        seed: master seed (scene ``i`` is ``scene_spec(i, seed)``).
        workers: rendering processes.

    Returns:
        the recipe dict (counts per split, class and source).
    """
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    t0 = time.time()
    jobs = [(i, seed) for i in range(scenes) if split_of(i) != "test"]
    rows: dict[str, list] = {"train": [], "val": []}
    with render_pool(workers, _init_worker) as pool:
        for n, (i, split, crops) in enumerate(pool.imap(_one, jobs, chunksize=4)):
            rows[split] += [(c, y, s, i) for c, y, s, _ in crops]
            if progress and n % 100 == 0:
                print(f"  scene {n}/{len(jobs)} ({time.time() - t0:.0f} s)", flush=True)
    counts = {}
    for split, r in rows.items():
        y = np.array([v[1] for v in r], np.int64)
        src = np.array([v[2] for v in r], np.int64)
        np.savez_compressed(out / f"{split}.npz", x=np.stack([v[0] for v in r]), y=y, source=src,
                            scene=np.array([v[3] for v in r], np.int64))
        counts[split] = {"crops": len(r), **{c: int((y == k).sum()) for k, c in enumerate(CLASSES)},
                         **{s: int((src == k).sum()) for k, s in enumerate(SOURCES)}}
    recipe = {"scenes": scenes, "seed": seed, "version": RECIPE_VERSION, "crop_version": CROP_VERSION, "classes": list(CLASSES),
              "sources": list(SOURCES), "counts": counts, "build_s": round(time.time() - t0, 1)}
    (out / "recipe.json").write_text(json.dumps(recipe, indent=2) + "\n")
    return recipe


def is_current(folder: str | Path, scenes: int, seed: int) -> bool:
    """Whether ``folder`` holds a complete build of this recipe by the present generator and crop code."""
    r = recipe_or_why(folder)[0] or {}
    return (r.get("scenes"), r.get("seed"), r.get("version"), r.get("crop_version")) == (
        scenes, seed, RECIPE_VERSION, CROP_VERSION)


def crops_problem(folder: str | Path, scenes: int, seed: int) -> str | None:
    """Why the verifier cannot train on, or build its crops into, ``folder`` (one line), or None.

    A folder of verifier crops of this recipe (seed and scenes; built by an older generator or crop code
    too: it is built again) or one holding none of :data:`VERIFIER_PARTS` is fine. Anything else would be
    written over or mixed in: a detector dataset's recipe.json (helper-150: it was overwritten), crops of
    another seed or scene count, an unreadable recipe.json, or crops without one (an interrupted build).
    """
    folder = Path(folder)
    if not folder.exists():
        return None
    if not folder.is_dir():
        return f"{folder} is not a folder"
    built = [p for p in VERIFIER_PARTS if (folder / p).exists()]
    if not built:
        return None
    r, why = recipe_or_why(folder)
    if r is not None and "crop_version" in r:
        if (r.get("scenes"), r.get("seed")) == (scenes, seed):
            return None
        return (f"{folder} holds verifier crops of --scenes {r.get('scenes')} --seed {r.get('seed')}: give those "
                "to train on them, or another --data")
    what = ("a dataset that is not verifier crops (its recipe.json names no crop_version)" if r is not None else
            "verifier crops without recipe.json (an interrupted build)" if why == "does not exist" else
            f"a recipe.json that {why}")
    return (f"{folder} holds {what}: building the crops there would write over its files; delete it or give "
            "another --data")


def load_verifier_split(path: str | Path) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(x (N, 40, 80, 3) uint8, y (N,) int64, source (N,) int64) from a ``<split>.npz``."""
    z = np.load(path)
    return z["x"], z["y"], z["source"]
