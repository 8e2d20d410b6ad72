"""Shipped ONNX models: run with onnxruntime on a generated image; match the training framework.

Skipped when the ONNX files are absent (before the first training run).  The
comparisons against the .pt checkpoints need torch/ultralytics (``make train-deps``).
"""

from __future__ import annotations

import importlib.util

import numpy as np
import pytest

from datasets import build as B
from models import runtime as R
from models.train_detector import CHECKPOINT as DET_CKPT
from models.train_pips import CHECKPOINT as PIP_CKPT

needs_det = pytest.mark.skipif(not R.DETECTOR_ONNX.exists(), reason="models/tile_detector.onnx not trained yet")
needs_pips = pytest.mark.skipif(not R.PIPS_ONNX.exists(), reason="models/pip_reader.onnx not trained yet")


def _window(imgsz: int) -> np.ndarray:
    """A scale-normalised detector window from the generator (first scene that yields one)."""
    for i in range(40):
        r = B.render_one(i, seed=123, imgsz=imgsz, frame_size=(1280, 720), det_per_scene=1)
        if r["det"]:
            return r["det"][0][0]
    raise AssertionError("no detector window rendered")


@pytest.fixture(scope="module")
def halves() -> np.ndarray:
    r = B.render_one(1, seed=321, imgsz=192, frame_size=(640, 360))
    hv = r["halves"] or B.render_one(2, seed=321, imgsz=192, frame_size=(640, 360))["halves"]
    return np.stack([h for _, h in hv[:8]])


@needs_pips
def test_pip_reader_onnx_shapes(halves):
    reader = R.PipReader()
    p = reader.probs(halves)
    assert p.shape == (len(halves), 7) and p.dtype == np.float32
    np.testing.assert_allclose(p.sum(1), 1.0, atol=1e-4)
    assert reader.read(halves[:1]).shape == (1,)


@needs_det
def test_detector_onnx_shapes():
    det = R.TileDetector()
    img = _window(det.imgsz)
    raw = det.raw(img)
    s = det.imgsz
    anchors = (s // 8) ** 2 + (s // 16) ** 2 + (s // 32) ** 2
    assert raw.shape == (1, 4 + 2 + 1, anchors)
    out = det.detect(img)
    for d in out:
        assert d.polygon.shape == (4, 2) and d.cls in (0, 1) and 0 <= d.score <= 1


@needs_det
@pytest.mark.skipif(importlib.util.find_spec("ultralytics") is None, reason="ultralytics not installed (make train-deps)")
@pytest.mark.skipif(not DET_CKPT.exists(), reason="models/checkpoints/tile_detector.pt absent")
def test_detector_onnx_matches_ultralytics_pt():
    import torch
    from ultralytics import YOLO

    det = R.TileDetector()
    img = _window(det.imgsz)
    onnx_raw = det.raw(img)
    model = YOLO(str(DET_CKPT), task="obb").model.float().fuse().eval()
    x = torch.from_numpy(np.ascontiguousarray(img[:, :, ::-1].transpose(2, 0, 1))).float()[None] / 255.0
    with torch.no_grad():
        y = model(x)
    pt_raw = (y[0] if isinstance(y, (list, tuple)) else y).numpy()
    assert pt_raw.shape == onnx_raw.shape
    np.testing.assert_allclose(onnx_raw[0, :4], pt_raw[0, :4], atol=0.05, rtol=1e-3)  # box centre/size, px
    np.testing.assert_allclose(onnx_raw[0, 4:], pt_raw[0, 4:], atol=2e-3)  # class scores, angle


@needs_pips
@pytest.mark.skipif(importlib.util.find_spec("torch") is None, reason="torch not installed (make train-deps)")
@pytest.mark.skipif(not PIP_CKPT.exists(), reason="models/checkpoints/pip_reader.pt absent")
def test_pip_reader_onnx_matches_torch(halves):
    import torch

    from models.pipnet import PipNet

    net = PipNet()
    net.load_state_dict(torch.load(PIP_CKPT, map_location="cpu")["state_dict"])
    net.eval()
    x = torch.from_numpy(halves.transpose(0, 3, 1, 2).copy()).float() / 255.0
    with torch.no_grad():
        ref = torch.softmax(net(x), 1).numpy()
    np.testing.assert_allclose(R.PipReader().probs(halves), ref, atol=1e-4)


def test_train_detector_rejects_bad_fine_tune_arguments_in_one_line():
    from typer.testing import CliRunner

    from service.cli import app

    for args, msg in ((["--lr0", "0"], "--lr0 must be a number > 0, got 0.0"),
                      (["--freeze", "-1", "--resume"], "--freeze must be 0-23 (YOLO11n-OBB layers 0-10 are the "
                                                       "backbone; the head, layer 23, always trains), got -1"),
                      (["--imgsz", "300"], "--imgsz must be a multiple of 32, at least 64")):
        res = CliRunner().invoke(app, ["train", "detector", *args])
        assert (res.exit_code, res.stderr.strip()) == (2, f"error: {msg}"), res.output


def test_train_verifier_rejects_bad_arguments_in_one_line(tmp_path):
    from typer.testing import CliRunner

    from service.cli import app

    afile = tmp_path / "crops.npz"
    afile.write_bytes(b"")
    for args, msg in ((["--epochs", "0"], "--epochs must be >= 1"),
                      (["--scenes", "5"], "--scenes must be 10-1000000 (the val split is every tenth scene), got 5"),
                      (["--device", "gpu"], "--device must be auto, cpu or a CUDA index, got 'gpu'"),
                      (["--data", str(afile)], f"--data {afile} is not a folder")):
        res = CliRunner().invoke(app, ["train", "verifier", *args])
        assert (res.exit_code, res.stderr.strip()) == (2, f"error: {msg}"), res.output
    for cmd in ("detector", "pips"):
        res = CliRunner().invoke(app, ["train", cmd, "--data", str(afile)])
        assert (res.exit_code, res.stderr.strip()) == (2, f"error: --data {afile} is not a folder"), res.output
