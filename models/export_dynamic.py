"""A dynamic-shape export of the tile detector, for one-pass whole-frame detection.

    python -m models.export_dynamic        # checkpoints/tile_detector.pt -> models/tile_detector.dynamic.onnx

The shipped ``models/tile_detector.onnx`` has a static 320x320 input, so a 1080p frame
(tiles scaled to 40 px: about 980 x 550 px) costs 8 overlapping windows.  The same
checkpoint exported with dynamic height and width runs that frame as one input: 0.70x
the pixels and no overlap (``vision.detector.OBBDetector`` with ``dynamic`` True).

The export is checked against the static model before it is written: on
:data:`CHECK_WINDOWS` 320x320 inputs both must give the same raw output (largest
difference :data:`MAX_DIFF`), i.e. the same weights; the static file's SHA-1 goes into
the metadata (``source_sha1``) so a stale dynamic file is detectable (:func:`is_current`)
and is not used by :func:`vision.recognize.default_detector`.  Re-run after every
detector training.  Needs ultralytics + torch (``make train-deps``); running the file
needs onnxruntime only.
"""

from __future__ import annotations

import argparse
import shutil
import tempfile
from pathlib import Path

import numpy as np

from models.common import CHECKPOINTS, MODELS_DIR
from vision.detector import file_sha1

STATIC_ONNX = MODELS_DIR / "tile_detector.onnx"
DYNAMIC_ONNX = MODELS_DIR / "tile_detector.dynamic.onnx"
CHECKPOINT = CHECKPOINTS / "tile_detector.pt"
#: Opset of the shipped export (``models/train_detector.py``).
OPSET = 17
#: Inputs compared against the static model before writing.
CHECK_WINDOWS = 4
#: Largest accepted difference of a raw output value (box px or score) from the static model.
MAX_DIFF = 1e-2

__all__ = ["STATIC_ONNX", "DYNAMIC_ONNX", "export", "is_current", "source_sha1", "max_difference", "main"]


def source_sha1(path: Path = DYNAMIC_ONNX) -> str | None:
    """SHA-1 of the static model a dynamic file was checked against (``source_sha1`` metadata), or None.

    Raises:
        FileNotFoundError: ``path`` is missing.
    """
    from vision.detector import make_session

    return make_session(path).get_modelmeta().custom_metadata_map.get("source_sha1")


def is_current(path: Path = DYNAMIC_ONNX, static: Path = STATIC_ONNX) -> bool:
    """True when ``path`` exists and was exported from the weights of the present ``static`` file."""
    from vision.detector import derived_from, make_session

    return Path(path).is_file() and derived_from(make_session(path), static)


def max_difference(dynamic: Path, static: Path = STATIC_ONNX, n: int = CHECK_WINDOWS, seed: int = 0) -> float:
    """Largest absolute difference of the raw outputs of two detector files on ``n`` inputs.

    The inputs are (S, S, 3) uint8 images (S = the static input side): smooth random
    blobs, so that boxes and scores are exercised, not only the background.

    Returns:
        the largest difference over all output values (px for boxes, [0, 1] for scores).
    """
    import cv2

    from vision.detector import OBBDetector

    st, dy = OBBDetector(static), OBBDetector(dynamic)
    rng = np.random.default_rng(seed)
    worst = 0.0
    for _ in range(n):
        img = cv2.GaussianBlur(rng.integers(0, 256, (st.size, st.size, 3), dtype=np.uint8), (0, 0), 3)
        worst = max(worst, float(np.abs(st.infer(img) - dy.infer(img)).max()))
    return worst


def export(checkpoint: Path = CHECKPOINT, dst: Path = DYNAMIC_ONNX, static: Path = STATIC_ONNX) -> dict:
    """Export ``checkpoint`` with dynamic height/width, check it against ``static`` and write ``dst``.

    Returns:
        ``{"path", "max_diff", "source_sha1"}``.

    Raises:
        FileNotFoundError: checkpoint or static model missing.
        RuntimeError: the export does not reproduce the static model (other weights).
    """
    import onnx
    from ultralytics import YOLO

    from vision.detector import make_session

    for p in (checkpoint, static):
        if not Path(p).is_file():
            raise FileNotFoundError(f"{p}: no such file")
    imgsz = int(make_session(static).get_inputs()[0].shape[2])
    with tempfile.TemporaryDirectory() as tmp:
        pt = Path(tmp) / "tile_detector.pt"
        shutil.copy(checkpoint, pt)  # ultralytics writes the .onnx next to the .pt
        out = Path(YOLO(str(pt)).export(format="onnx", imgsz=imgsz, opset=OPSET, simplify=False, dynamic=True,
                                        batch=1))
        diff = max_difference(out, static)
        if not diff <= MAX_DIFF:
            raise RuntimeError(f"dynamic export differs from {static} by {diff:.3g} (> {MAX_DIFF}): "
                               f"{checkpoint} is not the checkpoint {static.name} was exported from")
        m = onnx.load(str(out))
        sha = file_sha1(static)
        meta = {p.key: p for p in m.metadata_props}
        if "source_sha1" in meta:
            meta["source_sha1"].value = sha
        else:
            e = m.metadata_props.add()
            e.key, e.value = "source_sha1", sha
        Path(dst).parent.mkdir(parents=True, exist_ok=True)
        onnx.save(m, str(dst))
    return {"path": str(dst), "max_diff": diff, "source_sha1": sha}


def main(argv: list[str] | None = None) -> int:
    """CLI: export the dynamic detector (see the module docstring); prints the result."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--checkpoint", type=Path, default=CHECKPOINT)
    ap.add_argument("--static", type=Path, default=STATIC_ONNX)
    ap.add_argument("--out", type=Path, default=DYNAMIC_ONNX)
    a = ap.parse_args(argv)
    r = export(a.checkpoint, a.out, a.static)
    print(f"wrote {r['path']} (largest raw-output difference from {a.static.name}: {r['max_diff']:.2g})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
