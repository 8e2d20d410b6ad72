"""Train the tile verifier: a tiny CNN on context crops of boxes (classes up, down, none).

    python -m models.train_verifier --scenes 4000 --seed 7 --epochs 10
    dominocast train verifier --scenes 4000 --seed 7 --epochs 10

Steps: build the crops (``datasets.verifier_crops.build_verifier``: train and val scenes
only, with the shipped detector's own false boxes as hard negatives) if absent, train with
on-the-fly augmentation (half turns, flips, brightness/contrast, channel shuffles, noise),
export ONNX to ``models/tile_verifier.onnx`` (dynamic batch), save the weights to
``models/checkpoints/tile_verifier.pt`` and write ``models/tile_verifier.metrics.json``:
val accuracy and, per threshold on P(none), the val tiles it would drop and the val
non-tiles it would catch, by crop source.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from models.common import (CHECKPOINTS, MODELS_DIR, REPO_ROOT, Stopwatch, data_arguments, hardware, repo_relative,
                           resolve_device, write_json)
from models.fit import accuracy, augment, export_classifier, fit, predictor, seeded_net

CHECKPOINT = CHECKPOINTS / "tile_verifier.pt"
ONNX_PATH = MODELS_DIR / "tile_verifier.onnx"
METRICS_PATH = MODELS_DIR / "tile_verifier.metrics.json"
OPSET = 17
#: Thresholds on P(none) reported in the metrics.
THRESHOLDS = (0.5, 0.7, 0.8, 0.9, 0.95, 0.98)


def default_verifier_dir(seed: int, scenes: int) -> Path:
    """Where the verifier crops of this recipe live (ignored by git)."""
    return REPO_ROOT / "data" / f"verifier_seed{seed}_scenes{scenes}"


def operating_points(p_none: np.ndarray, y: np.ndarray, source: np.ndarray) -> list[dict]:
    """Per threshold in :data:`THRESHOLDS`: tiles dropped (P(none) >= t) and non-tiles caught.

    Args:
        p_none: (N,) float probability of ``none``; y: (N,) int64 classes (2 = none);
        source: (N,) int64 crop source (:data:`datasets.verifier_crops.SOURCES`).
    """
    from datasets.verifier_crops import CLASSES, SOURCES

    none = CLASSES.index("none")
    out = []
    for t in THRESHOLDS:
        drop = p_none >= t
        row = {"threshold": t, "tiles_dropped": int((drop & (y != none)).sum()), "tiles": int((y != none).sum()),
               "none_caught": int((drop & (y == none)).sum()), "none": int((y == none).sum())}
        for k, s in enumerate(SOURCES):
            sel = source == k
            if sel.any():
                row[s] = f"{int((drop & sel).sum())}/{int(sel.sum())} dropped"
        out.append(row)
    return out


def train(data: Path | None = None, scenes: int = 4000, seed: int = 7, epochs: int = 10, batch: int = 256,
          lr: float = 3e-3, device: str = "auto", resume: bool = False, threads: int = 0, workers: int = 2) -> dict:
    """Train the verifier, export ONNX, save the checkpoint and metrics; returns the metrics dict."""
    import torch

    from datasets.verifier_crops import CLASSES, build_verifier, is_current, load_verifier_split
    from models.runtime import resize_batch
    from models.tilenet import INPUT_SHAPE, TileNet

    if threads:
        torch.set_num_threads(threads)
    data = Path(data) if data else default_verifier_dir(seed, scenes)
    if not is_current(data, scenes, seed):  # absent, or built by an older generator or crop code
        print(f"building verifier crops: {scenes} scenes, seed {seed} -> {data}", flush=True)
        build_verifier(data, scenes, seed, workers, progress=True)
    dev = resolve_device(device)
    tdev = torch.device("cuda:0" if dev != "cpu" else "cpu")
    sw = Stopwatch()
    resumed = bool(resume and CHECKPOINT.exists())  # before this run saves one
    xtr, ytr, _ = load_verifier_split(data / "train.npz")
    xva, yva, sva = load_verifier_split(data / "val.npz")
    xtr, xva = resize_batch(xtr, INPUT_SHAPE), resize_batch(xva, INPUT_SHAPE)
    print(f"crops: train {len(ytr)}, val {len(yva)}", flush=True)
    net, gen = seeded_net(TileNet, CHECKPOINT, resume, seed)
    predict = predictor(net, tdev)
    history = fit(net, xtr, ytr, lambda x, g: augment(x, g, quarter_turns=False), epochs, batch, lr, gen, tdev,
                  lambda ep, loss: {"epoch": ep, "loss": loss, "val_acc": accuracy(predict, xva, yva), "t": sw()})
    train_s = sw()
    net.cpu().eval()
    predict = predictor(net, torch.device("cpu"))
    CHECKPOINTS.mkdir(parents=True, exist_ok=True)
    torch.save({"state_dict": net.state_dict(), "arch": "TileNet", "input": list(INPUT_SHAPE), "classes": list(CLASSES)},
               CHECKPOINT)
    export_classifier(net, ONNX_PATH, INPUT_SHAPE, OPSET)
    pva = np.concatenate([predict(xva[i:i + 1024]) for i in range(0, len(xva), 1024)])
    metrics = {"model": "TileNet (tiny CNN)", "input": f"(N,3,{INPUT_SHAPE[0]},{INPUT_SHAPE[1]}) float32 BGR in [0,1]",
               "classes": list(CLASSES), "epochs_run": epochs, "train_wall_s": train_s, "total_wall_s": sw(),
               "hardware": hardware(dev), "device": dev, "resumed": resumed,
               "data": {"dir": repo_relative(data), "scenes": scenes, "seed": seed,
                        "crops": {"train": int(len(ytr)), "val": int(len(yva))}},
               "val_acc": accuracy(predict, xva, yva),
               "val_operating_points": operating_points(pva[:, CLASSES.index("none")], yva, sva),
               "history": history, "onnx": ONNX_PATH.name, "opset": OPSET}
    write_json(METRICS_PATH, metrics)
    return metrics


def main(argv: list[str] | None = None) -> None:
    """Command-line entry point (``python -m models.train_verifier``)."""
    ap = data_arguments(__doc__.splitlines()[0], epochs=10, batch=256)
    ap.set_defaults(scenes=4000, seed=7)
    ap.add_argument("--lr", type=float, default=3e-3)
    ap.add_argument("--threads", type=int, default=0, help="torch CPU threads (0 = torch default)")
    ap.add_argument("--workers", type=int, default=2, help="rendering processes for the crops")
    a = ap.parse_args(argv)
    if a.epochs < 1 or a.scenes < 10:
        ap.error("--epochs must be >= 1 and --scenes >= 10")
    m = train(a.data, a.scenes, a.seed, a.epochs, a.batch, a.lr, a.device, a.resume, a.threads, a.workers)
    print({k: v for k, v in m.items() if k != "history"})


if __name__ == "__main__":
    main()
