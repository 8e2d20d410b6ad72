"""Benchmark section: the models on the held-out synthetic split, next to a classical baseline.

Held-out test scenes are those with ``i % 10 == 9``: they draw marble tables and
coloured-pip tiles, which training never saw (``datasets/render/scene.py`` ``RECIPES``).

1. Tile detector (onnxruntime, class-agnostic, rotated IoU >= 0.5) on the test split's
   320x320 windows at three score thresholds, and by table surface
   (:func:`models.evaluate.evaluate_detector`).
2. Pip reading per half on the test split's halves: the learned reader against the
   classical blob counter (:func:`vision.pips_classical.count`), same halves, accuracy
   and time per half.
3. The whole pipeline on freshly rendered held-out 1280x720 frames with the tile scale
   known (as calibration gives it): :class:`vision.recognize.Recognizer` against
   :func:`bench.baseline.detect_classical`. Failure crops of the models go to
   ``cfg.figures``.
"""

from __future__ import annotations

import hashlib
import json
import time
from collections import namedtuple
from pathlib import Path

import cv2
import numpy as np

from bench.common import BenchConfig, md_table, pct, timed
from vision.obb import convex_overlap

TITLE = "Recognition on the held-out synthetic split"

#: Scenes passed to ``datasets.build.build`` (only the test tenth is rendered).
SCENES = {"full": 1200, "smoke": 30}
#: Freshly rendered frames for the whole pipeline.
FRAMES = {"full": 40, "smoke": 2}
#: More held-out frames after those, for the shipped pipeline only: 40 frames hold ~1 000 tiles, so one
#: box more or less moves precision by 0.001; the targets deserve a larger sample next to them.
MORE_FRAMES = {"full": 80, "smoke": 1}
CONFS = (0.25, 0.4, 0.6)
FRAME_SIZE = (1280, 720)
#: Detector ground truth: tiles less visible than this are "don't care" (as models/evaluate.py).
MIN_VISIBLE = 0.5
#: Fully visible (in frame and unoccluded): the tiles whose identity is scored.
FULL_VISIBLE = 0.97
TARGET = 0.995
#: At most this many failure pictures of each kind (missed, false positive, misread).
FIGS_PER_KIND = 2
FIG_PREFIX = "synthetic_"
#: Long side of a failure picture, px.
FIG_PX = 240

_Det = namedtuple("_Det", "polygon score")  # what models.evaluate.match reads


# --- data ----------------------------------------------------------------------------

def test_split(cfg: BenchConfig) -> tuple[Path, dict]:
    """The held-out split under ``cfg.scratch/synth_test``, built when absent.

    Returns:
        (dataset folder, ``{"built_s": seconds or None when reused, "recipe_scenes": n}``).
    """
    from datasets.build import RECIPE_VERSION, build

    scenes = SCENES["smoke" if cfg.smoke else "full"]
    out = cfg.scratch / "synth_test"
    rec = out / "recipe.json"  # written last: present means complete
    if rec.exists():
        r = json.loads(rec.read_text())
        if (r["scenes"] == scenes and r["seed"] == 0 and r["imgsz"] == 320 and "test" in r["splits"]
                and r.get("version") == RECIPE_VERSION):  # a generator change bumps the version
            return out, {"built_s": None, "recipe_scenes": scenes}
    t = time.perf_counter()
    build(out, scenes, seed=0, imgsz=320, workers=2, splits=("test",))
    return out, {"built_s": round(time.perf_counter() - t, 1), "recipe_scenes": scenes}


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()[:12]


# --- 1. detector -----------------------------------------------------------------------

def detector_results(data: Path) -> dict:
    """:func:`models.evaluate.evaluate_detector` on the test windows at each of :data:`CONFS`."""
    from models.evaluate import evaluate_detector

    return {str(c): evaluate_detector(data, "test", conf=c) for c in CONFS}


# --- 2. pip reading per half -------------------------------------------------------------

def load_halves(data: Path) -> tuple[np.ndarray, np.ndarray, list[int], list[str]]:
    """The test halves: ((N, 32, 32, 3) uint8 BGR, (N,) int64 pips, scene index, divider edge).

    Half files are ``s<scene>_<k>.png``; even ``k`` is the corner-0 end (left half, the
    divider on its right), odd ``k`` the other end (:func:`datasets.build.pip_halves`).
    """
    from datasets.build import load_pip_split

    x, y, names, stems = load_pip_split(data / "pips" / "test")
    return (x, np.array([int(names[c]) for c in y], np.int64), [int(s.split("_")[0][1:]) for s in stems],
            ["right" if int(s.split("_")[1]) % 2 == 0 else "left" for s in stems])


def _accuracy_by(ok: np.ndarray, keys: list[str]) -> dict:
    groups: dict[str, list[bool]] = {}
    for k, o in zip(keys, ok):
        groups.setdefault(k, []).append(bool(o))
    return {k: {"n": len(v), "accuracy": round(float(np.mean(v)), 4)} for k, v in sorted(groups.items())}


def pip_results(data: Path, cfg: BenchConfig) -> dict:
    """Learned reader vs classical counter on the same test halves: accuracy, by group, time.

    Times are per half: the learned reader on one half per call (latency) and on a batch
    of 64 (throughput, what the recognizer does per frame), the counter on one half.
    """
    from models.evaluate import scene_styles  # (surface, style) re-derived from the recipe
    from models.runtime import PIPS_ONNX, PipReader
    from vision.pips_classical import count

    x, y, scenes, dividers = load_halves(data)
    reader = PipReader(PIPS_ONNX, cfg.threads)
    learned = np.concatenate([reader.read(x[i:i + 512]) for i in range(0, len(x), 512)])
    classical = np.array([count(h, 6, d).pips for h, d in zip(x, dividers)], np.int64)
    styles = scene_styles(data, set(scenes))
    out = {"halves": int(len(y))}
    for name, pred in (("learned", learned), ("classical", classical)):
        ok = pred == y
        out[name] = {"accuracy": round(float(ok.mean()), 4),
                     "by_surface": _accuracy_by(ok, [styles[s][0] for s in scenes]),
                     "by_style": _accuracy_by(ok, [styles[s][1] for s in scenes])}
    batch = x[:64]
    one = x[:1]
    few = list(zip(x[:16], dividers[:16]))
    t_one = timed(lambda: reader.read(one), cfg.runs)
    t_batch = timed(lambda: reader.read(batch), cfg.runs)
    t_cls = timed(lambda: [count(h, 6, d) for h, d in few], cfg.runs)
    out["learned"]["ms_per_half_single"] = t_one
    out["learned"]["ms_per_half_batch"] = _per(t_batch, len(batch))
    out["classical"]["ms_per_half_single"] = _per(t_cls, len(few))
    return out


def _per(t: dict, n: int) -> dict:
    """A :func:`bench.common.timed` result divided by ``n`` items."""
    return {"median_ms": round(t["median_ms"] / n, 3), "min_ms": round(t["min_ms"] / n, 3), "runs": t["runs"]}


# --- 3. whole pipeline --------------------------------------------------------------------

def frame_part(poly: np.ndarray, frame_size: tuple[int, int]) -> np.ndarray:
    """The part of a convex polygon ((N, 2) px) inside a (width, height) px frame: (M, 2) float32,
    the polygon itself when wholly inside, (0, 2) when wholly outside.

    The Recognizer boxes tiles cut by the frame's edge sometimes by what shows and sometimes by
    the whole tile (it reaches past the edge), and window labels are cut at the window's edge
    (:mod:`datasets.build`); scoring what the frame shows treats both alike, as COCO's boxes do.
    """
    p = np.asarray(poly, np.float32).reshape(-1, 2)
    w, h = frame_size
    if p[:, 0].min() >= 0 and p[:, 1].min() >= 0 and p[:, 0].max() <= w and p[:, 1].max() <= h:
        return p
    return convex_overlap(p, np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float32))[1]


def score_frame(obs: list, labels: list[dict], frame_size: tuple[int, int] | None = None) -> dict:
    """Score one frame's observations against its rendered labels.

    Args:
        obs: :class:`vision.observation.TileObservation` list (``polygon_px``, ``det_score``,
            ``face``, ``pips`` with ``(-1, -1)`` for an unread face-up tile).
        labels: :func:`datasets.render.scene.render_scene` label dicts.
        frame_size: (width, height) px of the frame: tiles and boxes are then compared by their
            parts inside it (:func:`frame_part`), what the frame shows of a tile its edge cuts;
            None compares whole outlines.

    Returns:
        ``gt`` (tiles >= :data:`MIN_VISIBLE` visible), ``tp`` and ``fp`` (detections matched
        at IoU >= 0.5 / matching no tile; ones on barely visible tiles count neither way,
        as :func:`models.evaluate.match`), ``up_full`` (face-up tiles >= :data:`FULL_VISIBLE`
        visible), ``identity_ok`` (of those: found, called face up, both halves right in
        order, :func:`vision.evaluate.match_scene`) and ``failures``: dicts with ``kind``
        (``"misread"``, ``"false_positive"``, ``"missed"``, in that order), ``det`` and
        ``gt`` (4, 2) polygons or None, ``read`` and ``truth`` pips or None.
    """
    from models.evaluate import match
    from vision.evaluate import match_scene
    from vision.obb import polygon_iou

    cut = (lambda p: frame_part(p, frame_size)) if frame_size is not None else (lambda p: p)  # noqa: E731
    inside = [cut(l["polygon"]) for l in labels]
    g = [inside[k] for k, l in enumerate(labels) if l["visible"] >= MIN_VISIBLE]
    ign = [inside[k] for k, l in enumerate(labels) if 0 < l["visible"] < MIN_VISIBLE]
    boxes = [cut(o.polygon_px) for o in obs]
    m, fp = match([_Det(b, o.det_score) for b, o in zip(boxes, obs)], g, ign)
    ms = match_scene(obs, labels, FULL_VISIBLE)
    full_up = [k for k, l in enumerate(labels) if l["visible"] >= FULL_VISIBLE and l["face"] == "up"]
    fails = []
    for i, k in ms["pairs"]:
        if k in full_up and not match_scene([obs[i]], [labels[k]], 0.0)["identity_ok"]:
            fails.append({"kind": "misread", "det": obs[i].polygon_px, "gt": labels[k]["polygon"],
                          "read": obs[i].pips if obs[i].face == "up" else None, "truth": tuple(labels[k]["pips"])})
    for o, box in zip(obs, boxes):
        if all(polygon_iou(box, p) < 0.3 for p in inside):
            fails.append({"kind": "false_positive", "det": o.polygon_px, "gt": None, "read": o.pips, "truth": None})
    paired = {k for _, k in ms["pairs"]}
    for k, l in enumerate(labels):
        if l["visible"] >= FULL_VISIBLE and k not in paired:
            fails.append({"kind": "missed", "det": None, "gt": l["polygon"], "read": None,
                          "truth": tuple(l["pips"]) if l["face"] == "up" else None})
    return {"gt": len(g), "tp": len(m), "fp": fp, "up_full": len(full_up),
            "identity_ok": ms["identity_ok"], "failures": fails}


def baseline_observations(frame: np.ndarray, tile_px: float) -> list:
    """:func:`bench.baseline.detect_classical` output as TileObservations (unread pips -> (-1, -1))."""
    from bench.baseline import detect_classical
    from vision.observation import TileObservation

    return [TileObservation(d["polygon"], d["face"], d["score"],
                            pips=d["pips"] if d["pips"] is not None else (-1, -1) if d["face"] == "up" else None)
            for d in detect_classical(frame, tile_px)]


def failure_crop(frame: np.ndarray, det: np.ndarray | None, gt: np.ndarray | None) -> np.ndarray:
    """A small (<= FIG_PX long side) BGR crop around a failure: truth in green, detection in red.

    Args:
        frame: (H, W, 3) uint8 BGR frame.
        det, gt: (4, 2) polygons in frame px (at least one given).
    """
    polys = [p for p in (gt, det) if p is not None]
    pts = np.concatenate([np.asarray(p, np.float32) for p in polys])
    side = float(np.linalg.norm(pts[1] - pts[0]))  # about a tile side: the context margin
    h, w = frame.shape[:2]
    x0, y0 = np.maximum(np.floor(pts.min(0) - side), 0).astype(int)
    x1, y1 = np.minimum(np.ceil(pts.max(0) + side), [w, h]).astype(int)
    crop = frame[y0:y1, x0:x1].copy()
    for p, colour in ((gt, (0, 200, 0)), (det, (0, 0, 255))):
        if p is not None:
            q = np.round(np.asarray(p, np.float32) - [x0, y0]).astype(np.int32)
            cv2.polylines(crop, [q], True, colour, 2, cv2.LINE_AA)
    f = FIG_PX / max(crop.shape[:2])
    if f < 1:
        crop = cv2.resize(crop, None, fx=f, fy=f, interpolation=cv2.INTER_AREA)
    return crop


def _fig_name(fail: dict, n: int, scene: int, spec) -> str:
    """File name saying what failed: kind, a counter, scene, table and tiles, for a misread read vs true pips."""
    extra = ""
    if fail["kind"] == "misread":
        pair = lambda p: "-".join(map(str, sorted(p))) if p is not None else "facedown"  # noqa: E731
        read, true = pair(fail["read"]), pair(fail["truth"])
        extra = f"_read{read}_true{true}" + ("_order" if read == true else "")
    return f"{FIG_PREFIX}{fail['kind']}{n}_s{scene:04d}_{spec.surface}_{spec.style.name}{extra}.jpg"


def _save_pictures(fails: list[dict], shown: dict, frame: np.ndarray, scene: int, spec, folder: Path) -> list[str]:
    """Write one crop per failure kind of this frame while ``shown[kind]`` < FIGS_PER_KIND (so the
    pictures come from several frames); updates ``shown``, returns the file names written."""
    names = []
    for kind in shown:
        fail = next((f for f in fails if f["kind"] == kind), None)
        if fail is not None and shown[kind] < FIGS_PER_KIND:
            shown[kind] += 1
            names.append(_fig_name(fail, shown[kind], scene, spec))
            cv2.imwrite(str(folder / names[-1]), failure_crop(frame, fail["det"], fail["gt"]),
                        [cv2.IMWRITE_JPEG_QUALITY, 85])
    return names


def _rates(c: dict) -> dict:
    return {"recall": round(c["tp"] / max(c["gt"], 1), 4), "precision": round(c["tp"] / max(c["tp"] + c["fp"], 1), 4),
            "identity": round(c["identity_ok"] / max(c["up_full"], 1), 4), **c}


def pipeline_results(cfg: BenchConfig) -> dict:
    """Recognizer and baseline on the same freshly rendered held-out frames; failure crops saved."""
    from datasets.build import scene_spec
    from datasets.render.scene import render_scene
    from datasets.render.tiles import TILE_LONG_MM
    from vision.recognize import Recognizer

    n = FRAMES["smoke" if cfg.smoke else "full"]
    rec = Recognizer(threads=cfg.threads)
    bare = Recognizer(threads=cfg.threads, verifier_path=False)  # what the tile verifier buys
    any_back = Recognizer(threads=cfg.threads, back_chroma_max=None)  # what the set-back colour check buys
    no_glare = Recognizer(threads=cfg.threads, glare_fit=False)  # what fitting washed-out tiles to pips buys
    methods = {"models": lambda f, t: rec(f, tile_px=t), "no_verifier": lambda f, t: bare(f, tile_px=t),
               "no_back_check": lambda f, t: any_back(f, tile_px=t),
               "no_glare_fit": lambda f, t: no_glare(f, tile_px=t), "baseline": baseline_observations}
    keys = ("gt", "tp", "fp", "up_full", "identity_ok")
    tot = {k: dict.fromkeys(keys, 0) for k in methods}
    by_surface: dict[str, dict] = {k: {} for k in methods}
    ms = {k: [] for k in methods}
    cfg.figures.mkdir(parents=True, exist_ok=True)
    for old in cfg.figures.glob(FIG_PREFIX + "*"):  # pictures of an earlier run
        old.unlink()
    figs: list[str] = []
    shown = dict.fromkeys(("missed", "false_positive", "misread"), 0)
    for i in [i for i in range(10 * n) if i % 10 == 9]:
        spec, _ = scene_spec(i, cfg.seed, FRAME_SIZE)
        frame, labels = render_scene(spec)
        tile_px = spec.camera.px_per_mm * TILE_LONG_MM  # what calibration would give
        rec.n_sets = bare.n_sets = any_back.n_sets = no_glare.n_sets = spec.n_sets  # what the user tells with --sets
        for name, fn in methods.items():
            t = time.perf_counter()
            obs = fn(frame, tile_px)
            ms[name].append((time.perf_counter() - t) * 1000)
            r = score_frame(obs, labels, FRAME_SIZE)
            s = by_surface[name].setdefault(spec.surface, dict.fromkeys(keys, 0))
            for k in keys:
                tot[name][k] += r[k]
                s[k] += r[k]
            if name == "models":
                figs += _save_pictures(r["failures"], shown, frame, i, spec, cfg.figures)
    more = dict.fromkeys(keys, 0)
    m = MORE_FRAMES["smoke" if cfg.smoke else "full"]
    for i in [i for i in range(10 * n, 10 * (n + m)) if i % 10 == 9]:
        spec, _ = scene_spec(i, cfg.seed, FRAME_SIZE)
        frame, labels = render_scene(spec)
        rec.n_sets = spec.n_sets
        r = score_frame(rec(frame, tile_px=spec.camera.px_per_mm * TILE_LONG_MM), labels, FRAME_SIZE)
        for k in keys:
            more[k] += r[k]
    return {"frames": n, "frame_size": list(FRAME_SIZE), "seed": cfg.seed, "figures": figs,
            **{k: {**_rates(tot[k]), "ms_per_frame_median": round(float(np.median(ms[k])), 1),
                   "by_surface": {s: _rates(v) for s, v in sorted(by_surface[k].items())}} for k in methods},
            "more_frames": {"frames": m, **_rates(more)}}


# --- section API --------------------------------------------------------------------------

def run(cfg: BenchConfig) -> dict:
    """Measure all three parts (see the module doc); JSON-able results."""
    from models.runtime import DETECTOR_ONNX, PIPS_ONNX

    cv2.setNumThreads(cfg.threads)
    data, built = test_split(cfg)
    recipe = json.loads((data / "recipe.json").read_text())
    return {"data": {"path": str(data), **built, "test_scenes": recipe["counts"]["test"]["scenes"],
                     "detector_windows": recipe["counts"]["test"]["detect_images"]},
            "models": {"tile_detector.onnx": _sha(DETECTOR_ONNX), "pip_reader.onnx": _sha(PIPS_ONNX)},
            "detector": detector_results(data), "pips": pip_results(data, cfg), "pipeline": pipeline_results(cfg)}


def _rp(r: dict) -> str:
    return f"{pct(r['recall'])} / {pct(r['precision'])}"


def _render_detector(det: dict) -> str:
    rows = [[f"conf {c}", f"**{_rp(r['tile'])}**" if c == str(CONFS[0]) else _rp(r["tile"]), _rp(r["tile_up"]),
             _rp(r["tile_down"]), r["tile"]["fp"], f">= {TARGET} / >= {TARGET}"] for c, r in det.items()]
    first = det[str(CONFS[0])]
    out = [f"**Tile detector** (onnxruntime, {first['images']} test windows of 320x320, {first['tile']['gt']} tiles "
           f"at least half visible (not under an arm, nor under glare that clips every colour: "
           f"`docs/generator.md`, recipe 8); rotated IoU >= 0.5; a box with half its area or more on a tile less than "
           f"half visible counts neither way, COCO's crowd rule; recall / precision):\n",
           md_table(["threshold", "all tiles", "face up", "face down", "false positives", "target"], rows)]
    surf = first["tile_by_surface"]
    out.append(f"By table surface at conf {CONFS[0]} (marble is never in training):\n")
    out.append(md_table(["surface", "tiles", "recall / precision"], [[s, r["gt"], _rp(r)] for s, r in surf.items()]))
    return "\n".join(out)


def _render_pips(p: dict) -> str:
    L, C = p["learned"], p["classical"]
    rows = [["all halves", p["halves"], f"**{pct(L['accuracy'])}**", f"**{pct(C['accuracy'])}**"]]
    for key, what in (("by_style", "tiles"), ("by_surface", "table")):
        rows += [[f"{g} {what}", r["n"], pct(r["accuracy"]), pct(C[key][g]["accuracy"])] for g, r in L[key].items()]
    t = lambda r: f"{r['median_ms']} ms (min {r['min_ms']})"  # noqa: E731
    rows.append(["time per half, one per call", "", t(L["ms_per_half_single"]), t(C["ms_per_half_single"])])
    rows.append(["time per half, batch of 64", "", t(L["ms_per_half_batch"]), ""])
    return ("**Pip reading per half**, the same held-out halves (cut from the rendered frames with detector-like "
            "corner jitter) through the learned reader (`models/pip_reader.onnx`) and the classical blob counter "
            "(`vision/pips_classical.py`):\n\n"
            + md_table(["halves", "n", "learned reader", "classical counter"], rows))


def _render_pipeline(pl: dict) -> str:
    M, B = pl["models"], pl["baseline"]
    row = lambda name, r, b: [name, f"{b}{pct(r['recall'])}{b}", f"{b}{pct(r['precision'])}{b}",  # noqa: E731
                              f"{b}{pct(r['identity'])}{b} ({r['identity_ok']} / {r['up_full']})",
                              f"{r['ms_per_frame_median']:.0f} ms"]
    out = [f"**Whole pipeline** on {pl['frames']} freshly rendered held-out {pl['frame_size'][0]}x"
           f"{pl['frame_size'][1]} frames, tile scale known (as calibration gives it), the number of sets the "
           f"scene's tiles were dealt from given (`--sets`). Found = recall of tiles at "
           f"least half visible (IoU >= 0.5; a tile the frame's edge cuts and a box reaching past the edge "
           f"are compared by what the frame shows of them, `frame_part`); precision counts a box with half its "
           f"area or more on a tile less than half visible neither way (COCO's crowd rule); identity = fully visible face-up tiles found, "
           f"called face up and both "
           f"halves right in order. Models: `vision.recognize.Recognizer` with its defaults (the tile verifier "
           f"checks face-down boxes, `models/tile_verifier.md`, then unsure face-down boxes must have the colour of a "
           f"sure one, `vision/set_backs.py`; tiles a glare spot washed out are fitted to their pips, "
           f"`vision/glare_pips.py`), without the verifier, without the colour check and without the glare "
           f"fit; baseline: "
           f"`bench/baseline.py` (threshold, contours, 2:1 rectangles, blob counter), what the models buy:\n",
           md_table(["method", "found", "precision", "identity", "time per frame"],
                    [row("models", M, "**")] + ([row("models without the tile verifier", pl["no_verifier"], "")]
                                                if "no_verifier" in pl else [])
                    + ([row("models without the set-back colour check", pl["no_back_check"], "")]
                       if "no_back_check" in pl else [])
                    + ([row("models without the glare fit", pl["no_glare_fit"], "")]
                       if "no_glare_fit" in pl else [])
                    + [row("classical baseline", B, ""),
                     ["target", f">= {TARGET}", f">= {TARGET}", f">= {TARGET}", ""]])]
    if "more_frames" in pl:
        mf = pl["more_frames"]
        out.append(f"The shipped pipeline on the {mf['frames']} held-out frames after these (a larger sample, same "
                   f"recipe): found {pct(mf['recall'])} ({mf['tp']} / {mf['gt']}), precision {pct(mf['precision'])} "
                   f"({mf['fp']} false boxes), identity {pct(mf['identity'])} ({mf['identity_ok']} / {mf['up_full']}).\n")
    surf = [[s, r["gt"], pct(r["recall"]), pct(B["by_surface"][s]["recall"]), pct(r["identity"]),
             pct(B["by_surface"][s]["identity"])] for s, r in M["by_surface"].items()]
    out.append("By table surface:\n")
    out.append(md_table(["surface", "tiles", "found (models)", "found (baseline)", "identity (models)",
                         "identity (baseline)"], surf))
    return "\n".join(out)


def _render_figures(figs: list[str]) -> str:
    if not figs:
        return "No failure of the models on these frames.\n"
    links = " ".join(f"![{Path(f).stem[len(FIG_PREFIX):]}](bench/{f})" for f in figs)
    return ("Failures of the models on these frames (green: the true tile, red: the detection; the name says "
            "what failed and, for a misread, what was read and what is true):\n\n" + links + "\n")


def render(results: dict) -> str:
    """Markdown for :func:`run`'s results; parts missing from ``results`` are left out."""
    out = ["The held-out split (scenes `i % 10 == 9`) has marble tables and coloured-pip tiles that training "
           "never saw (`docs/generator.md`)."]
    if "data" in results:
        d = results["data"]
        out[0] += (f" Windows and halves: `datasets.build.build(..., {d['recipe_scenes']}, seed=0, imgsz=320, "
                   f"splits=('test',))`, {d['test_scenes']} scenes.")
    if "models" in results:
        out[0] += " Models: " + ", ".join(f"`{k}` sha256 {v}" for k, v in results["models"].items()) + ".\n"
    if "detector" in results:
        out.append(_render_detector(results["detector"]))
    if "pips" in results:
        out.append(_render_pips(results["pips"]))
    if "pipeline" in results:
        out.append(_render_pipeline(results["pipeline"]))
    figs = results.get("figures", results.get("pipeline", {}).get("figures"))
    if figs is not None:
        out.append(_render_figures(figs))
    return "\n".join(out).rstrip() + "\n"
