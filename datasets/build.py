"""Export synthetic scenes as (a) an ultralytics OBB detection dataset and (b) a
classification dataset of rectified tile halves.

Layout written under ``out``::

    recipe.json                      seed, counts, split recipes (surfaces, tile styles)
    detect/data.yaml                 ultralytics OBB dataset, classes tile_up / tile_down
    detect/images/{train,val,test}/  imgsz x imgsz JPEG crops, tile long side 28-56 px
    detect/labels/{train,val,test}/  "cls x1 y1 x2 y2 x3 y3 x4 y4" normalised to [0, 1]
    detect/gt/{train,val,test}/      per-image JSON ground truth (polygons px, pips, face)
    pips/{train,val,test}/{0..6}/    rectified halves (PNG), ultralytics classify layout

Scene ``i`` uses ``numpy.random.default_rng([seed, i])`` and goes to split
``train`` (i % 10 < 8), ``val`` (i % 10 == 8) or ``test`` (i % 10 == 9); the
test split draws from surfaces and tile styles that train/val never use
(:data:`datasets.render.scene.RECIPES`).

Detector images are scale-normalised: the frame is resized so that the tile long
side is 28-56 px, then an ``imgsz`` square window is cut.  The runtime must feed
the detector the same way (resize the frame so tiles are ~40 px long, slide
``imgsz`` windows).
"""

from __future__ import annotations

import json
import multiprocessing as mp
import signal
from dataclasses import asdict, replace
from pathlib import Path
from typing import Callable

import cv2
import numpy as np

from calibration.images import write_image
from datasets.render import scene as SC
from engine.files import InputFileError, read_json_object
from vision.crops import rectified_halves
from vision.obb import PAD_VALUE, convex_overlap

SPLITS = ("train", "val", "test")
#: Tile long side in the detector's input image, pixels.
DET_TILE_PX = (28.0, 56.0)
#: Rectified tile size for the pip reader: halves are HALF_PX x HALF_PX.
TILE_OUT_PX = 64
HALF_PX = TILE_OUT_PX // 2
#: A tile is labelled for the detector when at least this fraction of it is visible.
MIN_VISIBLE = 0.5
#: Share of the scenes rendered as close-ups (tiles 96-200 px long) for the pip reader's halves only: too
#: large to scale into a detector window, they give none (:func:`detector_samples`); the rest have 40-96 px tiles.
CLOSE_UP_SHARE = 0.25
#: Fraction of train/val detector windows that are a smaller crop padded with grey, as the runtime
#: pads small frames (letterbox) and edge windows; training never showed padding before.
PADDED_WINDOWS = 0.15
#: 4: tiles dealt from complete sets (``layouts.Deck``) instead of drawn independently.
#: 5: training frames' glare spots centred on tiles 70 % of the time (``scene.GLARE_ON_TILES``).
#: 6: :data:`PROCEDURAL_TRAIN_SHARE` of the training scenes on a procedural surface (:func:`on_procedural`).
#: 7: lens fixes: a widening lens (k1 > 0) renders the frame's surroundings instead of mirroring its
#: edge (unlabelled mirror images of tiles), and tiles a barrel lens cannot show get no label inside the frame.
#: 8: pixels under a glare spot that clips every colour (``effects.WASHOUT``) count as hidden, so a tile
#: washed out over half its face is labelled neither way, as one mostly under an arm.
RECIPE_VERSION = 8
#: What a build writes into its folder (recipe.json last: a folder without it is an unfinished build).
DATASET_PARTS = ("recipe.json", "detect", "pips")
#: A recipe.json longer than this (bytes) is not read: ours are a few KB.
MAX_RECIPE_BYTES = 4 << 20
#: Share of the training scenes rendered on a random procedural texture (``textures.py``: bands, veins,
#: grain, cracks, ...) instead of their own surface: 7 of the 12 held-out false face-down boxes (bench
#: frames, 2026-12-01) lay between the regular bands of one marble table, a look no training surface
#: has (recipe 6). Val and test scenes keep theirs, so the bench stays comparable.
PROCEDURAL_TRAIN_SHARE = 0.15


def read_recipe(folder: str | Path) -> dict:
    """``folder/recipe.json``: what a build (a detector dataset, or verifier crops) was made from.

    Raises:
        engine.files.InputFileError: absent, not a regular file (a device, a pipe), longer than
            :data:`MAX_RECIPE_BYTES`, not JSON or not an object; its ``reason`` says which.
    """
    return read_json_object(Path(folder) / "recipe.json", "dataset recipe", limit=MAX_RECIPE_BYTES)


def recipe_or_why(folder: str | Path) -> tuple[dict | None, str]:
    """(:func:`read_recipe`, ``""``), or (None, what is wrong with it: ``"does not exist"``, ``"is not
    valid JSON"``, ...: the ``InputFileError``'s reason)."""
    try:
        return read_recipe(folder), ""
    except InputFileError as exc:
        return None, exc.reason


def _quiet_worker(initializer: Callable[[], None] | None) -> None:
    # the CLI turns SIGTERM/SIGHUP into Ctrl-C (service.cli), and a forked worker inherits that: the
    # pool's terminate() at the end then printed a KeyboardInterrupt traceback from every worker
    for name in ("SIGTERM", "SIGHUP"):
        sig = getattr(signal, name, None)
        if sig is not None:
            signal.signal(sig, signal.SIG_DFL)
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's to handle
    if initializer is not None:
        initializer()


def render_pool(workers: int, initializer: Callable[[], None] | None = None):
    """A fork pool of ``workers`` rendering processes that end quietly when the pool is closed
    (default termination signals, Ctrl-C left to the parent); ``initializer`` runs in each."""
    return mp.get_context("fork").Pool(workers, initializer=_quiet_worker, initargs=(initializer,))


def split_of(i: int) -> str:
    """Split of scene ``i``: 80 % train, 10 % val, 10 % test."""
    r = i % 10
    return "train" if r < 8 else ("val" if r == 8 else "test")


def _clip_polygon(poly: np.ndarray, w: int, h: int) -> tuple[np.ndarray, float]:
    """Clip a (4, 2) polygon to the [0, w] x [0, h] window.

    Returns the (4, 2) float32 oriented box of the clipped part (the polygon
    itself when fully inside) and the inside fraction of its area.
    """
    p = poly.astype(np.float32)
    area = abs(cv2.contourArea(p))
    if area < 1:
        return p, 0.0
    if p[:, 0].min() >= 0 and p[:, 1].min() >= 0 and p[:, 0].max() <= w and p[:, 1].max() <= h:
        return p, 1.0
    rect = np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float32)
    inter, ip = convex_overlap(p, rect)
    if inter <= 0:
        return p, 0.0
    box = cv2.boxPoints(cv2.minAreaRect(ip))
    box = np.clip(box, 0, [w, h]).astype(np.float32)
    return box, float(inter / area)


def detector_samples(frame: np.ndarray, labels: list[dict], rng: np.random.Generator, imgsz: int,
                     n: int, padded: float = 0.0) -> list[tuple[np.ndarray, list[dict]]]:
    """Cut ``n`` scale-normalised ``imgsz`` windows out of a rendered frame.

    Args:
        frame: (H, W, 3) uint8 rendered frame.
        labels: tile labels from :func:`datasets.render.scene.render_scene`.
        rng: random generator (window scale and position).
        imgsz: window side in pixels.
        n: number of windows.
        padded: fraction of windows made a smaller crop padded with grey (:func:`_padded_window`).

    Returns:
        list of (image (imgsz, imgsz, 3) uint8, tile dicts) where each tile dict
        has ``polygon`` ((4, 2) float32 px in the window), ``cls``, ``pips``,
        ``face`` and ``visible``; only tiles at least :data:`MIN_VISIBLE`
        visible are included.  Empty when the frame cannot be scaled so that
        a window fits.
    """
    H, W = frame.shape[:2]
    longs = [l["long_px"] for l in labels if l["visible"] > 0.5]
    if not longs:
        return []
    L = float(np.median(longs))
    lo = max(DET_TILE_PX[0], imgsz * L / min(H, W))
    hi = min(DET_TILE_PX[1], L)
    if lo > hi:
        return []
    out = []
    for _ in range(n):
        t = float(rng.uniform(lo, hi))
        f = t / L
        nw, nh = max(imgsz, int(round(W * f))), max(imgsz, int(round(H * f)))
        fx, fy = nw / W, nh / H
        small = cv2.resize(frame, (nw, nh), interpolation=cv2.INTER_AREA)
        # Centre the window near a random visible tile so windows are not empty.
        vis = [l for l in labels if l["visible"] > 0.5]
        c = vis[int(rng.integers(len(vis)))]["polygon"].mean(0) * [fx, fy]
        c = c + rng.uniform(-imgsz / 3, imgsz / 3, 2)
        x0 = int(np.clip(round(c[0] - imgsz / 2), 0, nw - imgsz))
        y0 = int(np.clip(round(c[1] - imgsz / 2), 0, nh - imgsz))
        img = small[y0:y0 + imgsz, x0:x0 + imgsz].copy()
        cw = ch = imgsz
        px = py = 0
        if padded > 0 and rng.random() < padded:  # no draw when off: the test split stays as built before
            img, (x0, y0, cw, ch), (px, py) = _padded_window(img, x0, y0, t, rng)
        tiles = []
        for l in labels:
            p = l["polygon"] * np.array([fx, fy], np.float32) - np.array([x0, y0], np.float32)
            box, frac = _clip_polygon(p, cw, ch)
            vis_frac = frac * l["unoccluded"]
            if vis_frac < 0.05:
                continue
            shift = np.array([px, py], np.float32)
            tiles.append({"polygon": (box if frac < 0.999 else p) + shift, "cls": l["cls"], "pips": l["pips"],
                          "face": l["face"], "visible": float(vis_frac)})
        out.append((img, tiles))
    return out


def _padded_window(img: np.ndarray, x0: int, y0: int, tile_px: float, rng: np.random.Generator
                   ) -> tuple[np.ndarray, tuple[int, int, int, int], tuple[int, int]]:
    """A smaller crop of the window on :data:`vision.obb.PAD_VALUE` grey, as the runtime feeds
    frames smaller than a window (letterboxed, centred) and the right/bottom edge windows
    (content top-left).

    Args:
        img: (S, S, 3) uint8 window; x0, y0: its origin in the scaled frame, px.
        tile_px: tile long side in the window, px (the crop keeps at least 1.5 of it).

    Returns:
        ``(padded (S, S, 3) uint8, (cx0, cy0, cw, ch) crop in scaled-frame px, (px, py) where
        the crop's top-left lands in the padded window)``.
    """
    S = img.shape[0]
    lo = min(S, int(1.5 * tile_px))
    cw, ch = (int(rng.integers(lo, S + 1)) for _ in range(2))
    ox, oy = int(rng.integers(0, S - cw + 1)), int(rng.integers(0, S - ch + 1))
    px, py = ((S - cw) // 2, (S - ch) // 2) if rng.random() < 0.5 else (0, 0)
    out = np.full_like(img, PAD_VALUE)
    out[py:py + ch, px:px + cw] = img[oy:oy + ch, ox:ox + cw]
    return out, (x0 + ox, y0 + oy, cw, ch), (px, py)


def yolo_obb_lines(tiles: list[dict], imgsz: int) -> list[str]:
    """Ultralytics OBB label lines ``cls x1 y1 ... x4 y4`` (normalised) for labelled tiles."""
    lines = []
    for t in tiles:
        if t["visible"] < MIN_VISIBLE:
            continue
        q = np.clip(np.asarray(t["polygon"], np.float64) / imgsz, 0.0, 1.0)
        lines.append(f"{t['cls']} " + " ".join(f"{v:.6f}" for v in q.reshape(-1)))
    return lines


def pip_halves(frame: np.ndarray, labels: list[dict], rng: np.random.Generator, max_tiles: int = 12,
               jitter: float = 0.04) -> list[tuple[int, np.ndarray]]:
    """Rectified halves of fully visible face-up tiles, with detector-like corner jitter.

    Args:
        frame: (H, W, 3) uint8 full-resolution rendered frame.
        labels: tile labels from :func:`datasets.render.scene.render_scene`.
        rng: random generator (tile choice, corner jitter).
        max_tiles: at most this many tiles per frame.
        jitter: corner noise, standard deviation as a fraction of the tile short side.

    Returns:
        list of (pips, half (HALF_PX, HALF_PX, 3) uint8).
    """
    ok = [l for l in labels if l["face"] == "up" and l["in_frame"] > 0.999 and l["unoccluded"] > 0.97]
    idx = rng.permutation(len(ok))[:max_tiles]
    out = []
    for k in idx:
        l = ok[int(k)]
        p = l["polygon"].astype(np.float64)
        short = float(np.linalg.norm(p[3] - p[0]))
        p = p + rng.normal(0, jitter * short, p.shape)
        if rng.random() < 0.5:  # the detector's corner order is arbitrary: present both ends first
            p = np.roll(p, 2, axis=0)
            pips = l["pips"][::-1]
        else:
            pips = l["pips"]
        ha, hb = rectified_halves(frame, p.astype(np.float32), TILE_OUT_PX)
        out.append((int(pips[0]), ha))
        out.append((int(pips[1]), hb))
    return out


def half_class_names(split_dir: Path) -> list[str]:
    """Class folder names of a ``pips/<split>`` folder in class-index order (pip counts ascending)."""
    return sorted((d.name for d in Path(split_dir).iterdir() if d.is_dir() and d.name.isdigit()), key=int)


def load_pip_split(split_dir: Path, half_px: int = HALF_PX, class_names: list[str] | None = None
                   ) -> tuple[np.ndarray, np.ndarray, list[str], list[str]]:
    """Load a ``pips/<split>`` folder of halves.

    Args:
        split_dir: e.g. ``data/.../pips/test``.
        half_px: halves of another size are resized to this (px).
        class_names: class folders in class-index order (default :func:`half_class_names`).

    Returns:
        ``(images (N, half_px, half_px, 3) uint8 BGR, labels (N,) int64 class indices,
        class_names, file stems "s<scene>_<k>")``.
    """
    names = class_names or half_class_names(split_dir)
    xs, ys, stems = [], [], []
    for c, name in enumerate(names):
        for f in sorted((Path(split_dir) / name).glob("*.png")):
            im = cv2.imread(str(f), cv2.IMREAD_COLOR)
            if im.shape[:2] != (half_px, half_px):
                im = cv2.resize(im, (half_px, half_px), interpolation=cv2.INTER_AREA)
            xs.append(im)
            ys.append(c)
            stems.append(f.stem)
    if not xs:
        return np.zeros((0, half_px, half_px, 3), np.uint8), np.zeros((0,), np.int64), names, []
    return np.stack(xs), np.asarray(ys, np.int64), names, stems


def scene_spec(i: int, seed: int, frame_size: tuple[int, int] = (1280, 720), max_pips: int = 6
               ) -> tuple[SC.SceneSpec, np.random.Generator]:
    """The scene spec of scene ``i`` (no rendering) and the generator, ready for the cut-outs."""
    rng = np.random.default_rng([seed, i])
    tl = (40.0, 96.0) if rng.random() < 1 - CLOSE_UP_SHARE else (96.0, 200.0)
    return SC.sample_scene(rng, split_of(i), frame_size[0], frame_size[1], tl, max_pips), rng


def on_procedural(i: int, seed: int, share: float) -> bool:
    """Whether scene ``i`` lies on a procedural surface instead of its own, with chance ``share``
    (a draw of its own: the scene's generator is untouched, so every other scene renders as before)."""
    return bool(np.random.default_rng([seed, i, 1]).random() < share)


def render_one(i: int, seed: int, imgsz: int = 416, frame_size: tuple[int, int] = (1280, 720),
               det_per_scene: int = 2, max_pips: int = 6) -> dict:
    """Render scene ``i`` and cut its detector windows and pip halves (nothing written).

    Returns a dict with ``split``, ``frame`` (H, W, 3) uint8, ``labels``, ``spec``,
    ``det`` (list of (image, tiles)) and ``halves`` (list of (pips, half)).
    """
    spec, rng = scene_spec(i, seed, frame_size, max_pips)
    split = split_of(i)
    if split == "train" and on_procedural(i, seed, PROCEDURAL_TRAIN_SHARE):
        spec = replace(spec, surface="procedural")
    frame, labels = SC.render_scene(spec)
    # The held-out test split keeps the runtime's usual full windows (no padded crops).
    det = detector_samples(frame, labels, rng, imgsz, det_per_scene, PADDED_WINDOWS if split != "test" else 0.0)
    hv = pip_halves(frame, labels, rng)
    return {"split": split, "frame": frame, "labels": labels, "spec": spec, "det": det, "halves": hv}


def _tile_json(t: dict) -> dict:
    return {"polygon": np.round(np.asarray(t["polygon"], np.float64), 3).tolist(), "pips": list(t["pips"]),
            "face": t["face"], "cls": int(t["cls"]), "visible": round(float(t["visible"]), 4)}


def _write_one(args: tuple) -> tuple[str, int, int]:
    i, seed, out, imgsz, frame_size, det_per_scene, max_pips = args
    cv2.setNumThreads(1)
    r = render_one(i, seed, imgsz, frame_size, det_per_scene, max_pips)
    out = Path(out)
    split = r["split"]
    for k, (img, tiles) in enumerate(r["det"]):
        name = f"s{i:06d}_{k}"
        # write_image raises OSError where cv2.imwrite returned False unseen (helper-151: a full disk)
        write_image(out / "detect" / "images" / split / f"{name}.jpg", img, (cv2.IMWRITE_JPEG_QUALITY, 95))
        (out / "detect" / "labels" / split / f"{name}.txt").write_text("\n".join(yolo_obb_lines(tiles, imgsz)) + "\n")
        gt = {"scene": i, "seed": seed, "split": split, "imgsz": imgsz,
              "surface": r["spec"].surface, "style": r["spec"].style.name,
              "tiles": [_tile_json(t) for t in tiles]}
        (out / "detect" / "gt" / split / f"{name}.json").write_text(json.dumps(gt))
    for k, (n, half) in enumerate(r["halves"]):
        write_image(out / "pips" / split / str(n) / f"s{i:06d}_{k:02d}.png", half)
    return split, len(r["det"]), len(r["halves"])


def build(out: str | Path, scenes: int, seed: int = 0, imgsz: int = 416, workers: int = 2,
          frame_size: tuple[int, int] = (1280, 720), det_per_scene: int = 2, max_pips: int = 6,
          progress: bool = False, splits: tuple[str, ...] = SPLITS) -> dict:
    """Render ``scenes`` scenes and write both datasets under ``out``.

    Args:
        out: output folder (created).
        scenes: number of rendered frames.
        seed: master seed; the output is a pure function of all arguments.
        imgsz: detector window side in pixels.
        workers: rendering processes.
        frame_size: (width, height) of rendered frames in pixels.
        det_per_scene: detector windows cut per usable frame.
        max_pips: highest pip value (6 = double-six; the pip classes are 0..max_pips).
        progress: print a line every 100 scenes.
        splits: render only the scenes of these splits (each scene depends only on
            ``(seed, i)``, so e.g. the test split alone is identical to the full build's).

    Returns:
        summary dict (also written to ``out/recipe.json``).
    """
    out = Path(out)
    for s in SPLITS:
        for sub in ("images", "labels", "gt"):
            (out / "detect" / sub / s).mkdir(parents=True, exist_ok=True)
        for n in range(max_pips + 1):
            (out / "pips" / s / str(n)).mkdir(parents=True, exist_ok=True)
    names = {k: v for k, v in enumerate(SC.CLASS_NAMES)}
    (out / "detect" / "data.yaml").write_text(
        f"path: {(out / 'detect').resolve()}\ntrain: images/train\nval: images/val\ntest: images/test\n"
        f"names:\n" + "".join(f"  {k}: {v}\n" for k, v in names.items()))
    jobs = [(i, seed, str(out), imgsz, frame_size, det_per_scene, max_pips) for i in range(scenes)
            if split_of(i) in splits]
    counts = {s: {"scenes": 0, "detect_images": 0, "halves": 0} for s in SPLITS}
    if workers > 1:
        with render_pool(workers) as pool:
            results = pool.imap(_write_one, jobs, chunksize=4)
            for k, (s, nd, nh) in enumerate(results):
                _count(counts, s, nd, nh)
                if progress and (k + 1) % 100 == 0:
                    print(f"{k + 1}/{scenes} scenes", flush=True)
    else:
        for k, j in enumerate(jobs):
            _count(counts, *_write_one(j))
            if progress and (k + 1) % 100 == 0:
                print(f"{k + 1}/{scenes} scenes", flush=True)
    summary = {
        "version": RECIPE_VERSION, "seed": seed, "scenes": scenes, "imgsz": imgsz, "frame_size": list(frame_size),
        "det_per_scene": det_per_scene, "max_pips": max_pips, "det_tile_px": list(DET_TILE_PX),
        "half_px": HALF_PX, "classes": list(SC.CLASS_NAMES),
        "recipes": {k: asdict(v) for k, v in SC.RECIPES.items()}, "procedural_train_share": PROCEDURAL_TRAIN_SHARE,
        "counts": counts, "splits": list(splits),
    }
    (out / "recipe.json").write_text(json.dumps(summary, indent=2))
    return summary


def _count(counts: dict, s: str, nd: int, nh: int) -> None:
    counts[s]["scenes"] += 1
    counts[s]["detect_images"] += nd
    counts[s]["halves"] += nh
