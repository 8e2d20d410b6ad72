"""Train the tile detector: YOLO11n-OBB, 2 classes (tile_up, tile_down), from the model YAML.

    python -m models.train_detector --epochs 30 --imgsz 320
    dominocast train detector --epochs 30 --imgsz 320

The detector sees scale-normalised windows (tile long side 28-56 px in an
``imgsz`` square; see ``datasets/build.py``).  Pips are not read here: the pip
reader classifies rectified halves of the detected tiles.

Steps: build the dataset with a fixed seed if absent, train (``--resume`` starts
from the committed ``models/checkpoints/tile_detector.pt`` instead of random
weights), copy the optimizer-free best weights to the checkpoint, export ONNX
to ``models/tile_detector.onnx`` (static 320x320) and ``models/tile_detector.dynamic.onnx``
(any input size, ``models/export_dynamic.py``) and write ``models/tile_detector.metrics.json``.
The int8 file is a separate step (``python -m models.quantize``).
Needs ``make train-deps`` (torch + ultralytics); nothing is downloaded.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from models.common import (CHECKPOINTS, data_arguments, MODELS_DIR, REPO_ROOT, Stopwatch, default_data_dir, ensure_dataset,
                           hardware, recipe_summary, repo_relative, resolve_device, write_json)

CHECKPOINT = CHECKPOINTS / "tile_detector.pt"
ONNX_PATH = MODELS_DIR / "tile_detector.onnx"
METRICS_PATH = MODELS_DIR / "tile_detector.metrics.json"
OPSET = 17


def _metrics(m) -> dict:
    """Box metrics of an ultralytics validation result as plain floats."""
    b = m.box
    return {"precision": round(float(b.mp), 4), "recall": round(float(b.mr), 4),
            "mAP50": round(float(b.map50), 4), "mAP50_95": round(float(b.map), 4)}


def export_onnx(weights: Path, imgsz: int, dst: Path = ONNX_PATH) -> Path:
    """Export ultralytics weights to a static-shape ONNX file at ``dst``."""
    from ultralytics import YOLO

    out = YOLO(str(weights)).export(format="onnx", imgsz=imgsz, opset=OPSET, simplify=False, dynamic=False)
    shutil.move(out, dst)  # ultralytics writes next to the weights; keep only the shipped copy
    return dst


def train(data: Path | None = None, scenes: int = 1200, seed: int = 0, imgsz: int = 320, epochs: int = 30,
          hours: float | None = None, batch: int = 16, workers: int = 2, device: str = "auto",
          resume: bool = False, name: str = "tile_detector", windows: int = 2, lr0: float = 0.0005,
          freeze: int = 0) -> dict:
    """Train, export and write metrics; returns the metrics dict.

    Args:
        data: dataset folder (built if missing); default depends on seed/scenes/imgsz.
        scenes, seed: generator recipe when the dataset has to be built.
        imgsz: detector input side in pixels (dataset windows have this size).
        epochs: training epochs (ignored when ``hours`` is given).
        hours: wall-clock training budget; ultralytics fits its schedule to it.
        batch, workers: ultralytics batch size and data-loader workers.
        device: ``auto``, ``cpu`` or a CUDA index.
        resume: start from ``models/checkpoints/tile_detector.pt``.
        name: run name under ``runs/detector``.
        windows: detector windows cut per rendered frame when the dataset has to be built.
        lr0: AdamW learning rate at the start of a fine-tune (``resume``; it decays to 0.2x).
        freeze: with ``resume``, keep the first ``freeze`` layers fixed (YOLO11n: 0-10 are the
            backbone), so a short fine-tune adapts the neck and head only.
    """
    os.environ.setdefault("YOLO_OFFLINE", "1")
    from ultralytics import YOLO

    data = Path(data) if data else default_data_dir(seed, scenes, imgsz, windows)
    recipe = ensure_dataset(data, scenes, seed, imgsz, workers, windows)
    dev = resolve_device(device)
    sw = Stopwatch()
    start = str(CHECKPOINT) if resume and CHECKPOINT.exists() else "yolo11n-obb.yaml"
    model = YOLO(start, task="obb")
    kw = dict(data=str(data / "detect" / "data.yaml"), imgsz=imgsz, epochs=epochs, batch=batch, workers=workers,
              device=dev, cache=True, plots=False, val=True, project=str(REPO_ROOT / "runs" / "detector"),
              name=name, exist_ok=True, pretrained=start != "yolo11n-obb.yaml", amp=dev != "cpu", seed=seed, deterministic=False,
              scale=0.25, degrees=0.0, fliplr=0.5, flipud=0.5, mosaic=1.0, close_mosaic=3, patience=1000,
              verbose=True)
    if start != "yolo11n-obb.yaml":
        # Fine-tuning (``pretrained`` must be true, or ultralytics drops the loaded weights): no
        # warm-up and a small AdamW rate, to continue rather than restart (not compared with the defaults).
        kw.update(optimizer="AdamW", lr0=lr0, lrf=0.2, warmup_epochs=0.0, warmup_bias_lr=0.0)
        if freeze:
            kw["freeze"] = int(freeze)
    if hours:
        kw["time"] = hours
    model.train(**kw)
    train_s = sw()
    best = Path(model.trainer.best if Path(model.trainer.best).exists() else model.trainer.last)
    CHECKPOINTS.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(best, CHECKPOINT)  # ultralytics strips the optimizer from best.pt at the end of training
    final = YOLO(str(CHECKPOINT), task="obb")
    val = _metrics(final.val(data=kw["data"], imgsz=imgsz, split="val", batch=batch, device=dev, plots=False,
                             project=kw["project"], name=name + "_val", exist_ok=True))
    test = _metrics(final.val(data=kw["data"], imgsz=imgsz, split="test", batch=batch, device=dev, plots=False,
                              project=kw["project"], name=name + "_test", exist_ok=True))
    export_onnx(CHECKPOINT, imgsz)
    from models.export_dynamic import export as export_dynamic

    export_dynamic()  # the runtime's default: same weights, any input size (one pass per frame)
    epochs_done = int(getattr(model.trainer, "epoch", -1)) + 1
    metrics = {"model": "yolo11n-obb", "classes": ["tile_up", "tile_down"], "imgsz": imgsz,
               "epochs_run": epochs_done, "train_wall_s": train_s, "total_wall_s": sw(),
               "hardware": hardware(dev), "device": dev, "started_from": Path(start).name,
               "data": {"dir": repo_relative(data),
                        **recipe_summary(recipe)},
               "val": val, "test_heldout": test, "onnx": ONNX_PATH.name, "opset": OPSET}
    write_json(METRICS_PATH, metrics)
    return metrics


def main(argv: list[str] | None = None) -> None:
    """Command-line entry point (``python -m models.train_detector``)."""
    ap = data_arguments(__doc__.splitlines()[0], epochs=30, batch=16)
    ap.add_argument("--hours", type=float, default=None)
    ap.add_argument("--workers", type=int, default=2, help="rendering processes and data-loader workers")
    ap.add_argument("--windows", type=int, default=2, help="detector windows per rendered frame")
    ap.add_argument("--lr0", type=float, default=0.0005, help="fine-tune (--resume) learning rate")
    ap.add_argument("--freeze", type=int, default=0, help="fine-tune (--resume): layers kept fixed")
    a = ap.parse_args(argv)
    m = train(a.data, a.scenes, a.seed, a.imgsz, a.epochs, a.hours, a.batch, a.workers, a.device, a.resume,
              windows=a.windows, lr0=a.lr0, freeze=a.freeze)
    print(m)


if __name__ == "__main__":
    main()
