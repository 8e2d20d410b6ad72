"""PipNet: a tiny CNN that reads the pips on one rectified tile half (classes 0..6).

Input: (N, 3, 32, 32) float32, BGR channel order (as OpenCV loads), values in
[0, 1]: a half from :func:`vision.crops.rectified_halves` (32 x 32 px).
Output of the exported ONNX graph: (N, 7) float32 class probabilities (softmax).
Needs torch (training only); the runtime uses the ONNX file.
"""

from __future__ import annotations

import torch
from torch import nn

HALF_PX = 32
NUM_CLASSES = 7


def conv_block(cin: int, cout: int) -> nn.Sequential:
    """Two 3x3 conv + batch-norm + ReLU layers, then a 2x2 max-pool (halves H and W)."""
    return nn.Sequential(
        nn.Conv2d(cin, cout, 3, padding=1, bias=False), nn.BatchNorm2d(cout), nn.ReLU(inplace=True),
        nn.Conv2d(cout, cout, 3, padding=1, bias=False), nn.BatchNorm2d(cout), nn.ReLU(inplace=True),
        nn.MaxPool2d(2),
    )


class ConvClassifier(nn.Module):
    """3 conv blocks (16-32-64 channels, each halving H and W) and a small MLP head.

    Args:
        num_classes: output logits.
        map_hw: (H, W) of the feature map after the blocks: the input size / 8.
        hidden: width of the head's hidden layer.
    """

    def __init__(self, num_classes: int, map_hw: tuple[int, int], hidden: int):
        super().__init__()
        self.features = nn.Sequential(conv_block(3, 16), conv_block(16, 32), conv_block(32, 64))
        self.head = nn.Sequential(nn.Flatten(), nn.Dropout(0.2), nn.Linear(64 * map_hw[0] * map_hw[1], hidden),
                                  nn.ReLU(inplace=True), nn.Linear(hidden, num_classes))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """(N, 3, 8 H, 8 W) float -> (N, num_classes) logits."""
        return self.head(self.features(x))


class PipNet(ConvClassifier):
    """The pip reader: 32 x 32 halves -> 7 classes; ~0.2 M parameters."""

    def __init__(self, num_classes: int = NUM_CLASSES):
        super().__init__(num_classes, (HALF_PX // 8, HALF_PX // 8), 128)


class PipNetProbs(nn.Module):
    """Export wrapper for any classifier here: logits -> softmax probabilities."""

    def __init__(self, net: nn.Module):
        super().__init__()
        self.net = net

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.softmax(self.net(x), dim=1)
