"""The int8 tile detector (``models/tile_detector.int8.onnx``, made by ``models/quantize.py``).

The int8 file is compared with the fp32 file it was quantized from on freshly rendered
detector windows.  Skipped when either file is absent; a stale int8 file (fp32 retrained
since) fails with the command that regenerates it.
"""

from __future__ import annotations

import importlib.util

import numpy as np
import pytest

from datasets import build as B
from models import quantize as Q

needs_fp32 = pytest.mark.skipif(not Q.FP32_ONNX.is_file(), reason="models/tile_detector.onnx not trained yet")
needs_onnx = pytest.mark.skipif(importlib.util.find_spec("onnx") is None,
                                reason="onnx not installed (make quantize-deps)")
needs_int8 = pytest.mark.skipif(not (Q.FP32_ONNX.is_file() and Q.INT8_ONNX.is_file()),
                                reason="models/tile_detector.int8.onnx absent: run `python -m models.quantize`")


@pytest.fixture(scope="module")
def windows() -> np.ndarray:
    """(6, 320, 320, 3) uint8 BGR detector windows (generator seed 123, not a training seed), ~60 tiles."""
    out = []
    for i in range(40):
        r = B.render_one(i, seed=123, imgsz=320, frame_size=(1280, 720), det_per_scene=1)
        out += [w for w, _ in r["det"]]
        if len(out) >= 6:
            return np.stack(out[:6])
    raise AssertionError("too few detector windows rendered")


def test_calibration_refuses_test_split(tmp_path):
    with pytest.raises(ValueError, match="test"):
        Q.calibration_windows(tmp_path, 10, splits=("val", "test"))
    with pytest.raises(ValueError, match="no calibration windows"):
        Q.calibration_windows(tmp_path, 10)


@needs_fp32
@needs_onnx
def test_fp32_nodes_split_the_head():
    import onnx

    m = onnx.load(str(Q.FP32_ONNX))
    by = {n.name: n for n in m.graph.node}
    decode, last, head = (set(Q.fp32_nodes(m, k)) for k in ("decode", "last", "head"))
    assert Q.fp32_nodes(m, "none") == []
    assert decode < last < head
    # Last convs: box distribution, class logits and angle at each of the 3 strides.
    assert {by[n].op_type for n in last - decode} == {"Conv"} and len(last - decode) == 9
    # The decoding holds the DFL softmax and the final concat, and no SiLU conv.
    assert {"Softmax", "Concat"} <= {by[n].op_type for n in decode}
    assert any(m.graph.output[0].name in by[n].output for n in decode)
    assert not any(by[n].op_type == "Sigmoid" and "/act/" in n for n in decode)


@needs_fp32
@needs_onnx
def test_dynamic_batch_matches_single_runs(windows):
    import onnx
    import onnxruntime as ort

    from vision.detector import to_input

    dyn = Q.with_dynamic_batch(onnx.load(str(Q.FP32_ONNX)))
    s1 = ort.InferenceSession(str(Q.FP32_ONNX), providers=["CPUExecutionProvider"])
    sb = ort.InferenceSession(dyn.SerializeToString(), providers=["CPUExecutionProvider"])
    x = to_input(windows[:3])
    single = np.concatenate([s1.run(None, {"images": x[i:i + 1]})[0] for i in range(3)])
    batched = sb.run(None, {"images": x})[0]
    assert batched.shape == single.shape
    np.testing.assert_allclose(batched, single, atol=1e-3)


@needs_int8
def test_int8_is_current():
    assert Q.is_current(), ("models/tile_detector.int8.onnx was quantized from another fp32 model: "
                            "re-run `python -m models.quantize`")


@needs_int8
def test_int8_boxes_match_fp32(windows):
    """int8 reproduces fp32's confident boxes (same class, same place).

    Tolerances: a tile is ~40 x 20 px in the window, so a 1 px error on each side
    already costs ~10 % IoU; the median IoU must stay >= 0.9 (sub-pixel typically;
    measured 0.94-0.97 per 4-window group).  Near-threshold boxes legitimately come and
    go, so only boxes fp32 scores >= 0.5 count and 1 in 30 may be missed (measured: 1 of
    308 over 24 windows).  A saturated model (8-bit weights on an AVX2 CPU) matched only
    82 % with wrong classes.
    """
    from vision.detector import OBBDetector

    fp32, int8 = OBBDetector(Q.FP32_ONNX), OBBDetector(Q.INT8_ONNX)
    assert (int8.size, int8.num_classes) == (fp32.size, fp32.num_classes)
    r = Q.box_agreement(fp32, int8, windows, min_score=0.5)
    assert r["boxes"] >= 30, r
    assert r["matched"] >= r["boxes"] * (1 - 1 / 30), r
    assert r["class_agree"] >= r["matched"] - 1, r
    assert r["iou_median"] >= 0.9, r
