"""TileNet: a tiny CNN that tells whether a detected box holds a tile (classes up, down, none).

Input: (N, 3, 24, 48) float32, BGR channel order, values in [0, 1]: a context crop from
:func:`vision.crops.context_crop` (the box grown by 1.25, long axis horizontal), area-resized
from its 40 x 80 px.
Output of the exported ONNX graph: (N, 3) float32 probabilities of
:data:`datasets.verifier_crops.CLASSES` (``up``, ``down``, ``none``).
Needs torch (training only); the runtime uses the ONNX file (:class:`models.runtime.TileVerifier`).
"""

from __future__ import annotations

from models.pipnet import ConvClassifier

#: Network input (height, width), px.
INPUT_SHAPE = (24, 48)
NUM_CLASSES = 3


class TileNet(ConvClassifier):
    """The tile verifier: 24 x 48 context crops -> up / down / none; ~0.15 M parameters."""

    def __init__(self, num_classes: int = NUM_CLASSES):
        super().__init__(num_classes, (INPUT_SHAPE[0] // 8, INPUT_SHAPE[1] // 8), 64)
