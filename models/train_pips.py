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

import cv2
import numpy as np

from models.common import (CHECKPOINTS, data_arguments, MODELS_DIR, Stopwatch, default_data_dir, ensure_dataset, hardware,
                           resolve_device, write_json)

CHECKPOINT = CHECKPOINTS / "pip_reader.pt"
ONNX_PATH = MODELS_DIR / "pip_reader.onnx"
METRICS_PATH = MODELS_DIR / "pip_reader.metrics.json"
OPSET = 17


def _augment(x, gen):
    """Batch augmentation on (N, 3, H, W) float tensors in [0, 1]."""
    import torch

    n = x.shape[0]
    k = int(torch.randint(0, 4, (1,), generator=gen))
    x = torch.rot90(x, k, dims=(2, 3))
    if torch.rand(1, generator=gen) < 0.5:
        x = torch.flip(x, dims=(3,))
    # Per-sample channel permutation for a third of the batch (tile colours vary).
    sel = torch.rand(n, generator=gen) < 0.33
    if sel.any():
        perm = torch.randperm(3, generator=gen)
        x[sel] = x[sel][:, perm]
    gain = 0.6 + 0.8 * torch.rand(n, 1, 1, 1, generator=gen)
    bias = 0.2 * (torch.rand(n, 1, 1, 1, generator=gen) - 0.5)
    mean = x.mean(dim=(1, 2, 3), keepdim=True)
    x = (x - mean) * gain + mean + bias
    x = x + 0.03 * torch.rand(n, 1, 1, 1, generator=gen) * torch.randn(x.shape, generator=gen)
    # Small random shifts (+-2 px) like detector polygon jitter.
    dx, dy = [int(v) for v in torch.randint(-2, 3, (2,), generator=gen)]
    x = torch.roll(x, shifts=(dy, dx), dims=(2, 3))
    return x.clamp(0, 1)


def _to_tensor(imgs: np.ndarray):
    import torch

    return torch.from_numpy(imgs).permute(0, 3, 1, 2).float().div_(255.0)


def accuracy(predict, x: np.ndarray, y: np.ndarray, batch: int = 1024) -> float:
    """Fraction of correct argmax predictions; ``predict`` maps (N, 32, 32, 3) uint8 -> (N, 7) scores."""
    if len(y) == 0:
        return float("nan")
    correct = 0
    for i in range(0, len(y), batch):
        correct += int((np.argmax(predict(x[i:i + batch]), 1) == y[i:i + batch]).sum())
    return round(correct / len(y), 4)


def export_onnx(net, dst: Path = ONNX_PATH, half_px: int = 32) -> Path:
    """Export a trained PipNet (softmax output, dynamic batch) to ONNX."""
    import torch

    from models.pipnet import PipNetProbs

    wrapper = PipNetProbs(net).eval()
    dummy = torch.zeros(1, 3, half_px, half_px)
    torch.onnx.export(wrapper, dummy, str(dst), input_names=["images"], output_names=["probs"], opset_version=OPSET,
                      dynamic_axes={"images": {0: "batch"}, "probs": {0: "batch"}}, dynamo=False)
    return dst


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
    ensure_dataset(data, scenes, seed, imgsz)
    dev = resolve_device(device)
    tdev = torch.device("cuda:0" if dev != "cpu" else "cpu")
    sw = Stopwatch()
    root = data / "pips"
    xtr, ytr, _, _ = load_pip_split(root / "train")
    xva, yva, _, _ = load_pip_split(root / "val")
    xte, yte, _, _ = load_pip_split(root / "test")
    print(f"halves: train {len(ytr)}, val {len(yva)}, test {len(yte)}", flush=True)
    torch.manual_seed(seed)
    gen = torch.Generator().manual_seed(seed)
    net = PipNet()
    if resume and CHECKPOINT.exists():
        net.load_state_dict(torch.load(CHECKPOINT, map_location="cpu")["state_dict"])
    net.to(tdev)
    opt = torch.optim.AdamW(net.parameters(), lr=lr, weight_decay=1e-4)
    steps = epochs * ((len(ytr) + batch - 1) // batch)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=lr, total_steps=max(steps, 1), pct_start=0.15)
    xt = _to_tensor(xtr)
    yt = torch.from_numpy(ytr)
    lossf = torch.nn.CrossEntropyLoss(label_smoothing=0.05)

    def predict(imgs: np.ndarray) -> np.ndarray:
        net.eval()
        with torch.no_grad():
            return net(_to_tensor(imgs).to(tdev)).cpu().numpy()

    history = []
    for ep in range(epochs):
        net.train()
        perm = torch.randperm(len(yt), generator=gen)
        tot = 0.0
        for i in range(0, len(perm), batch):
            idx = perm[i:i + batch]
            xb = _augment(xt[idx].clone(), gen).to(tdev)
            loss = lossf(net(xb), yt[idx].to(tdev))
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
            tot += loss.item() * len(idx)
        va = accuracy(predict, xva, yva)
        history.append({"epoch": ep + 1, "loss": round(tot / len(yt), 4), "val_acc": va, "t": sw()})
        print(history[-1], flush=True)
    train_s = sw()
    net.cpu().eval()
    tdev = torch.device("cpu")
    CHECKPOINTS.mkdir(parents=True, exist_ok=True)
    torch.save({"state_dict": net.state_dict(), "arch": "PipNet", "half_px": 32, "classes": list(range(7))},
               CHECKPOINT)
    export_onnx(net)
    metrics = {"model": "PipNet (tiny CNN)", "input": "(N,3,32,32) float32 BGR in [0,1]", "classes": list(range(7)),
               "epochs_run": epochs, "train_wall_s": train_s, "total_wall_s": sw(), "hardware": hardware(dev),
               "device": dev, "resumed": bool(resume and CHECKPOINT.exists()),
               "data": {"dir": str(data), "scenes": scenes, "seed": seed,
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
