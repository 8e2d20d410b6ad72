"""Train the pip reader: a tiny CNN on rectified tile halves (classes 0..6).

    python -m models.train_pips --epochs 12
    dominocast train pips --epochs 12

Steps: build the synthetic dataset with a fixed seed if absent, load
``pips/{train,val,test}/{0..6}/*.png`` into memory, train with on-the-fly
augmentation (90-degree rotations, flips, brightness/contrast, channel
shuffles, noise), export ONNX to ``models/pip_reader.onnx`` (dynamic batch),
save the weights to ``models/checkpoints/pip_reader.pt`` (``--resume`` continues
from there) and write ``models/pip_reader.metrics.json`` with accuracy on val and
on the held-out test split.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from models.common import (CHECKPOINTS, data_arguments, MODELS_DIR, Stopwatch, default_data_dir, ensure_dataset, hardware,
                           recipe_summary, repo_relative, resolve_device, write_json)
from models.fit import accuracy, augment, export_classifier, fit, predictor, seeded_net

CHECKPOINT = CHECKPOINTS / "pip_reader.pt"
ONNX_PATH = MODELS_DIR / "pip_reader.onnx"
METRICS_PATH = MODELS_DIR / "pip_reader.metrics.json"
OPSET = 17


def export_onnx(net, dst: Path = ONNX_PATH, half_px: int = 32) -> Path:
    """Export a trained PipNet (softmax output, dynamic batch) to ONNX."""
    return export_classifier(net, dst, (half_px, half_px), OPSET)


def train(data: Path | None = None, scenes: int = 1200, seed: int = 0, imgsz: int = 320, epochs: int = 12,
          batch: int = 256, lr: float = 3e-3, device: str = "auto", resume: bool = False, threads: int = 0) -> dict:
    """Train the pip reader, export ONNX, save the checkpoint and metrics; returns the metrics dict.

    ``imgsz`` is the detector window size of the dataset recipe (only used to find
    or build the dataset); halves are always 32 x 32 px.
    """
    import torch

    from datasets.build import load_pip_split
    from models.pipnet import PipNet

    if threads:
        torch.set_num_threads(threads)
    data = Path(data) if data else default_data_dir(seed, scenes, imgsz)
    recipe = ensure_dataset(data, scenes, seed, imgsz, any_windows=True)
    dev = resolve_device(device)
    tdev = torch.device("cuda:0" if dev != "cpu" else "cpu")
    sw = Stopwatch()
    resumed = bool(resume and CHECKPOINT.exists())  # before this run saves one
    root = data / "pips"
    xtr, ytr, _, _ = load_pip_split(root / "train")
    xva, yva, _, _ = load_pip_split(root / "val")
    xte, yte, _, _ = load_pip_split(root / "test")
    print(f"halves: train {len(ytr)}, val {len(yva)}, test {len(yte)}", flush=True)
    net, gen = seeded_net(PipNet, CHECKPOINT, resume, seed)
    predict = predictor(net, tdev)
    history = fit(net, xtr, ytr, augment, epochs, batch, lr, gen, tdev,
                  lambda ep, loss: {"epoch": ep, "loss": loss, "val_acc": accuracy(predict, xva, yva), "t": sw()})
    train_s = sw()
    net.cpu().eval()
    predict = predictor(net, torch.device("cpu"))
    CHECKPOINTS.mkdir(parents=True, exist_ok=True)
    torch.save({"state_dict": net.state_dict(), "arch": "PipNet", "half_px": 32, "classes": list(range(7))},
               CHECKPOINT)
    export_onnx(net)
    metrics = {"model": "PipNet (tiny CNN)", "input": "(N,3,32,32) float32 BGR in [0,1]", "classes": list(range(7)),
               "epochs_run": epochs, "train_wall_s": train_s, "total_wall_s": sw(), "hardware": hardware(dev),
               "device": dev, "resumed": resumed,
               "data": {"dir": repo_relative(data), **recipe_summary(recipe),
                        "halves": {"train": int(len(ytr)), "val": int(len(yva)), "test": int(len(yte))}},
               "val_acc": accuracy(predict, xva, yva), "test_heldout_acc": accuracy(predict, xte, yte),
               "history": history, "onnx": ONNX_PATH.name, "opset": OPSET}
    write_json(METRICS_PATH, metrics)
    return metrics


def main(argv: list[str] | None = None) -> None:
    """Command-line entry point (``python -m models.train_pips``)."""
    ap = data_arguments(__doc__.splitlines()[0], epochs=12, batch=256)
    ap.add_argument("--lr", type=float, default=3e-3)
    ap.add_argument("--threads", type=int, default=0, help="torch CPU threads (0 = torch default)")
    a = ap.parse_args(argv)
    m = train(a.data, a.scenes, a.seed, a.imgsz, a.epochs, a.batch, a.lr, a.device, a.resume, a.threads)
    print({k: v for k, v in m.items() if k != "history"})


if __name__ == "__main__":
    main()
