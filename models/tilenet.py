"""TileNet: a tiny CNN that tells whether a detected box holds a tile (classes up, down, none).

Input: (N, 3, 24, 48) float32, BGR channel order, values in [0, 1]: a context crop from
:func:`vision.crops.context_crop` (the box grown by 1.25, long axis horizontal), area-resized
from its 40 x 80 px.
Output of the exported ONNX graph: (N, 3) float32 probabilities of
:data:`datasets.verifier_crops.CLASSES` (``up``, ``down``, ``none``).
Needs torch (training only); the runtime uses the ONNX file (:class:`models.runtime.TileVerifier`).
"""

from __future__ import annotations

import torch
from torch import nn

from models.pipnet import conv_block

#: Network input (height, width), px.
INPUT_SHAPE = (24, 48)
NUM_CLASSES = 3


class TileNet(nn.Module):
    """3 conv blocks (16-32-64 channels) to a 3 x 6 map and a small MLP head; ~0.15 M parameters."""

    def __init__(self, num_classes: int = NUM_CLASSES):
        super().__init__()
        self.features = nn.Sequential(conv_block(3, 16), conv_block(16, 32), conv_block(32, 64))
        self.head = nn.Sequential(nn.Flatten(), nn.Dropout(0.2), nn.Linear(64 * 3 * 6, 64), nn.ReLU(inplace=True),
                                  nn.Linear(64, num_classes))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """(N, 3, 24, 48) float -> (N, num_classes) logits."""
        return self.head(self.features(x))
