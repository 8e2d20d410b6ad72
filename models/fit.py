"""The training loop both small classifiers share (the pip reader and the tile verifier).

Needs torch (training only).
"""

from __future__ import annotations

from pathlib import Path
from typing import Callable

import numpy as np


def to_tensor(imgs: np.ndarray):
    """(N, H, W, 3) uint8 BGR -> (N, 3, H, W) float32 torch tensor in [0, 1]."""
    import torch

    return torch.from_numpy(imgs).permute(0, 3, 1, 2).float().div_(255.0)


def augment(x, gen, quarter_turns: bool = True):
    """Batch augmentation on (N, 3, H, W) float tensors in [0, 1]: turns (quarter turns for square
    inputs, else half turns), flips, channel shuffles, brightness/contrast, noise, +-2 px shifts."""
    import torch

    n = x.shape[0]
    k = int(torch.randint(0, 4, (1,), generator=gen))
    if not quarter_turns:
        k = k // 2 * 2
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


def accuracy(predict: Callable[[np.ndarray], np.ndarray], x: np.ndarray, y: np.ndarray, batch: int = 1024) -> float:
    """Fraction of correct argmax predictions; ``predict`` maps (N, H, W, 3) uint8 -> (N, C) scores."""
    if len(y) == 0:
        return float("nan")
    correct = 0
    for i in range(0, len(y), batch):
        correct += int((np.argmax(predict(x[i:i + batch]), 1) == y[i:i + batch]).sum())
    return round(correct / len(y), 4)


def predictor(net, device) -> Callable[[np.ndarray], np.ndarray]:
    """``(N, H, W, 3) uint8 BGR -> (N, C) float32 softmax probabilities`` with ``net`` in eval mode."""
    import torch

    def predict(imgs: np.ndarray) -> np.ndarray:
        net.eval()
        with torch.no_grad():
            return torch.softmax(net(to_tensor(imgs).to(device)), 1).cpu().numpy()

    return predict


def seeded_net(make, checkpoint: Path, resume: bool, seed: int):
    """``make()`` after seeding torch, with the weights of ``checkpoint`` when ``resume`` and it exists;
    returns (net, torch.Generator seeded with ``seed`` for :func:`fit`)."""
    import torch

    torch.manual_seed(seed)
    net = make()
    if resume and checkpoint.exists():
        net.load_state_dict(torch.load(checkpoint, map_location="cpu")["state_dict"])
    return net, torch.Generator().manual_seed(seed)


def fit(net, x: np.ndarray, y: np.ndarray, augment: Callable, epochs: int, batch: int, lr: float, gen, device,
        on_epoch: Callable[[int, float], dict], class_weight: np.ndarray | None = None) -> list[dict]:
    """Train ``net`` with AdamW and a one-cycle rate, augmenting each batch.

    Args:
        net: a torch module mapping (N, 3, H, W) float to (N, C) logits (moved to ``device``).
        x: (N, H, W, 3) uint8 BGR training images; y: (N,) int64 class indices.
        augment: ``(batch tensor, torch.Generator) -> batch tensor`` on (B, 3, H, W) floats.
        epochs, batch, lr: schedule (peak rate ``lr``, 15 % warm-up).
        gen: torch.Generator for shuffling and augmentation (deterministic per seed).
        device: torch device.
        on_epoch: ``(epoch, mean loss) -> dict`` called after each epoch (validation); its
            dicts form the returned history.
        class_weight: (C,) float loss weight per class, or None.

    Returns:
        the history, one dict per epoch.
    """
    import torch

    net.to(device)
    opt = torch.optim.AdamW(net.parameters(), lr=lr, weight_decay=1e-4)
    steps = epochs * ((len(y) + batch - 1) // batch)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=lr, total_steps=max(steps, 1), pct_start=0.15)
    xt = to_tensor(x)
    yt = torch.from_numpy(y)
    w = torch.as_tensor(class_weight, dtype=torch.float32, device=device) if class_weight is not None else None
    lossf = torch.nn.CrossEntropyLoss(weight=w, label_smoothing=0.05)
    history = []
    for ep in range(epochs):
        net.train()
        perm = torch.randperm(len(yt), generator=gen)
        tot = 0.0
        for i in range(0, len(perm), batch):
            idx = perm[i:i + batch]
            xb = augment(xt[idx].clone(), gen).to(device)
            loss = lossf(net(xb), yt[idx].to(device))
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
            tot += loss.item() * len(idx)
        history.append(on_epoch(ep + 1, round(tot / len(yt), 4)))
        print(history[-1], flush=True)
    return history


def export_classifier(net, dst: Path, input_hw: tuple[int, int], opset: int = 17) -> Path:
    """Export a classifier to ONNX: input ``images`` (N, 3, H, W) float32, output ``probs``
    (N, C) softmax probabilities, dynamic batch."""
    import torch

    from models.pipnet import PipNetProbs

    wrapper = PipNetProbs(net).eval()
    dummy = torch.zeros(1, 3, *input_hw)
    torch.onnx.export(wrapper, dummy, str(dst), input_names=["images"], output_names=["probs"], opset_version=opset,
                      dynamic_axes={"images": {0: "batch"}, "probs": {0: "batch"}}, dynamo=False)
    return dst
