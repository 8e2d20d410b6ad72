"""The tile verifier: context crops, its training crops, the ONNX model and its place in the Recognizer."""

from __future__ import annotations

import importlib.util

import cv2
import numpy as np
import pytest

from datasets import verifier_crops as VC
from datasets.build import scene_spec
from datasets.render.scene import render_scene
from datasets.render.tiles import TILE_LONG_MM
from models import runtime as R
from vision.crops import context_crop, grow_polygon
from vision.obb import polygon_iou

needs_verifier = pytest.mark.skipif(not R.VERIFIER_ONNX.exists(), reason="models/tile_verifier.onnx not trained yet")


def test_grow_polygon_scales_about_the_centre():
    sq = np.array([[0, 0], [4, 0], [4, 2], [0, 2]], np.float32)  # centre (2, 1)
    np.testing.assert_allclose(grow_polygon(sq, 1.5), [[-1, -0.5], [5, -0.5], [5, 2.5], [-1, 2.5]])


def test_context_crop_puts_the_box_in_the_middle_80_percent():
    frame = np.full((300, 400, 3), 100, np.uint8)
    c, a = np.array([200.0, 150.0]), np.radians(30)
    u, v = np.array([np.cos(a), np.sin(a)]) * 60, np.array([-np.sin(a), np.cos(a)]) * 30  # a 120 x 60 px tile
    box = np.array([c - u - v, c + u - v, c + u + v, c - u + v], np.float32)
    cv2.fillPoly(frame, [np.round(box * 16).astype(np.int32)], (255, 255, 255), cv2.LINE_AA, shift=4)
    crop = context_crop(frame, box[[2, 3, 0, 1]])  # any start corner
    assert crop.shape == (40, 80, 3) and crop.dtype == np.uint8
    # grown by 1.25: the box spans rows 4..36 and columns 8..72 of the 40 x 80 crop
    assert crop[6:34, 10:70].min() >= 250
    for margin in (crop[:3], crop[-3:], crop[:, :7], crop[:, -7:]):
        assert abs(float(np.median(margin)) - 100) <= 2


def test_scene_crops_follow_their_source_rules():
    spec, rng = scene_spec(3, 11, (640, 360))
    frame, labels = render_scene(spec)
    tile_px = spec.camera.px_per_mm * TILE_LONG_MM
    crops = VC.scene_crops(frame, labels, tile_px, rng, detector=None)
    sources = {s for _, _, s, _ in crops}
    assert {0, 3}.issubset(sources) and 1 not in sources and 2 not in sources  # no detector: no detector boxes
    for crop, cls, src, box in crops:
        assert crop.shape == (40, 80, 3)
        ious = [polygon_iou(box, t["polygon"]) for t in labels]
        if src == 0:  # a jittered true tile, labelled with its face
            k = int(np.argmax(ious))
            assert ious[k] > 0.6 and labels[k]["visible"] >= VC.MIN_VISIBLE and VC.CLASSES[cls] == labels[k]["face"]
        else:
            assert VC.CLASSES[cls] == "none"
            assert max(ious, default=0) < (0.1 if src == 3 else 0.35)


def test_operating_points_count_by_hand():
    from models.train_verifier import operating_points

    p = np.array([0.1, 0.95, 0.6, 0.99, 0.2])
    y = np.array([0, 1, 2, 2, 2])  # two tiles, three non-tiles
    src = np.array([0, 1, 2, 3, 4])
    rows = {r["threshold"]: r for r in operating_points(p, y, src)}
    assert (rows[0.5]["tiles_dropped"], rows[0.5]["none_caught"]) == (1, 2)  # 0.95 (a tile); 0.6, 0.99
    assert (rows[0.98]["tiles_dropped"], rows[0.98]["none_caught"]) == (0, 1)
    assert rows[0.5]["det_tile"] == "1/1 dropped" and rows[0.5]["shifted"] == "0/1 dropped"


@needs_verifier
def test_verifier_tells_tiles_from_bare_table():
    spec, rng = scene_spec(18, 3, (1280, 720))  # a val-split scene: training surfaces, other seed
    frame, labels = render_scene(spec)
    tile_px = spec.camera.px_per_mm * TILE_LONG_MM
    crops = VC.scene_crops(frame, labels, tile_px, rng, detector=None)
    tiles = np.stack([c for c, _, s, _ in crops if s == 0])
    bare = np.stack([c for c, _, s, _ in crops if s == 3])
    v = R.TileVerifier(threads=1)
    p_tiles, p_bare = v.p_none(tiles), v.p_none(bare)
    assert p_tiles.shape == (len(tiles),) and p_tiles.dtype == np.float32
    np.testing.assert_allclose(v.probs(tiles).sum(1), 1.0, atol=1e-4)
    assert np.median(p_tiles) < 0.1 and np.median(p_bare) > 0.9
    assert v.probs(tiles[:0]).shape == (0, 3) and v.probs([]).shape == (0, 3)
    for bad in (tiles[..., 0], tiles.astype(np.float32), np.zeros((2, 40, 80, 4), np.uint8)):
        with pytest.raises(ValueError, match="expected"):
            v.probs(bad)


@needs_verifier
def test_recognizer_drops_the_boxes_the_verifier_rejects():
    from vision.recognize import Recognizer

    spec, _ = scene_spec(18, 3, (1280, 720))
    frame, _ = render_scene(spec)
    tile_px = spec.camera.px_per_mm * TILE_LONG_MM
    off = Recognizer(verifier_path=False)(frame, tile_px=tile_px)
    assert off
    assert all(o.face == "up" for o in Recognizer(none_threshold=1e-6)(frame, tile_px=tile_px))  # drops all face-down
    assert any(o.face == "down" for o in off)
    on = Recognizer()(frame, tile_px=tile_px)
    assert {o.det_score for o in on} <= {o.det_score for o in off}


@needs_verifier
@pytest.mark.skipif(importlib.util.find_spec("torch") is None, reason="torch not installed (make train-deps)")
def test_verifier_onnx_matches_torch():
    import torch

    from models.tilenet import INPUT_SHAPE, TileNet
    from models.train_verifier import CHECKPOINT

    if not CHECKPOINT.exists():
        pytest.skip("models/checkpoints/tile_verifier.pt absent")
    spec, rng = scene_spec(18, 3, (640, 360))
    frame, labels = render_scene(spec)
    crops = np.stack([c for c, *_ in VC.scene_crops(frame, labels, spec.camera.px_per_mm * TILE_LONG_MM, rng, None)])
    x = R.resize_batch(crops, INPUT_SHAPE)
    net = TileNet()
    net.load_state_dict(torch.load(CHECKPOINT, map_location="cpu")["state_dict"])
    with torch.no_grad():
        ref = torch.softmax(net.eval()(torch.from_numpy(x.transpose(0, 3, 1, 2).copy()).float() / 255.0), 1).numpy()
    np.testing.assert_allclose(R.TileVerifier(threads=1).probs(crops), ref, atol=1e-4)


def test_context_crop_fills_outside_the_frame_with_grey():
    from vision.obb import PAD_VALUE

    frame = np.full((100, 200, 3), 30, np.uint8)
    box = np.array([[-40, 40], [40, 40], [40, 80], [-40, 80]], np.float32)  # the left half is off the frame
    crop = context_crop(frame, box)
    # grown by 1.25 the crop spans x -50 .. 50: columns 0..39 off the frame, 40..79 on it
    assert (crop[:, :38] == PAD_VALUE).all() and (crop[:, 42:] == 30).all()


@pytest.mark.skipif(importlib.util.find_spec("torch") is None, reason="torch not installed (make train-deps)")
def test_shared_training_loop_learns_a_separable_task(tmp_path):
    from models.fit import accuracy, augment, fit, predictor, seeded_net
    from models.tilenet import INPUT_SHAPE, TileNet

    rng = np.random.default_rng(0)
    h, w = INPUT_SHAPE
    x = np.concatenate([rng.integers(20, 60, (48, h, w, 3)), rng.integers(190, 240, (48, h, w, 3))]).astype(np.uint8)
    y = np.repeat([2, 0], 48).astype(np.int64)  # dark crops "none", bright ones "up"
    net, gen = seeded_net(TileNet, tmp_path / "absent.pt", True, 0)  # nothing to resume: a fresh net
    hist = fit(net, x, y, lambda b, g: augment(b, g, quarter_turns=False), 4, 16, 3e-3, gen, "cpu",
               lambda ep, loss: {"epoch": ep, "loss": loss})
    assert [r["epoch"] for r in hist] == [1, 2, 3, 4] and hist[-1]["loss"] < hist[0]["loss"]
    p = predictor(net, "cpu")(x)
    assert p.shape == (96, 3) and accuracy(predictor(net, "cpu"), x, y) == 1.0


def test_unloadable_or_wrong_model_files_raise_value_error(tmp_path):
    from vision.detector import make_session

    bad = tmp_path / "tile_verifier.onnx"
    bad.write_bytes(b"")
    with pytest.raises(ValueError, match="not a model onnxruntime can load"):
        make_session(bad)
    if R.PIPS_ONNX.exists():  # a model, but a 7-class pip reader
        with pytest.raises(ValueError, match="not a tile verifier .* 7 output classes"):
            R.TileVerifier(R.PIPS_ONNX, threads=1)


@needs_verifier
def test_recognizer_checks_its_verifier_arguments():
    from vision.recognize import DEFAULT_VERIFIER, Recognizer

    for t in (0, -1, 1.5, float("nan")):
        with pytest.raises(ValueError, match="none_threshold must be in"):
            Recognizer(none_threshold=t)
    assert Recognizer(none_threshold=1.0).none_threshold == 1.0
    assert Recognizer(verifier_path=True).verifier is not None and Recognizer(verifier_path=False).verifier is None
    assert R.TileVerifier(DEFAULT_VERIFIER, threads=1).input_hw == (24, 48)


def test_random_textures_are_deterministic_and_cover_every_family():
    from datasets.render import textures as TX

    a = TX.random_texture(np.random.default_rng(5), 60, 120)
    b = TX.random_texture(np.random.default_rng(5), 60, 120)
    assert a.shape == (60, 120, 3) and a.dtype == np.uint8 and np.array_equal(a, b)
    seen = set()
    for seed in range(60):
        rng = np.random.default_rng(seed)
        seen.add(TX.FAMILIES[int(rng.integers(len(TX.FAMILIES)))])  # the draw random_texture makes first
    assert seen == set(TX.FAMILIES)
    for fam in TX.FAMILIES:  # each family is a texture in [-1, 1], not a constant
        v = getattr(TX, "_" + fam)(np.random.default_rng(1), 48, 96)
        assert v.shape == (48, 96) and -1.0001 <= v.min() < v.max() <= 1.0001


def test_a_quarter_of_the_verifier_scenes_lie_on_a_procedural_surface():
    from datasets.build import on_procedural

    drawn = [on_procedural(i, 7, VC.PROCEDURAL_SHARE) for i in range(2000)]
    assert abs(np.mean(drawn) - VC.PROCEDURAL_SHARE) < 0.03
    assert drawn == [on_procedural(i, 7, VC.PROCEDURAL_SHARE) for i in range(2000)]  # a pure function of scene, seed
    from datasets.render.surfaces import make_surface

    img = make_surface("procedural", 72, 128, np.random.default_rng(0))
    assert img.shape == (72, 128, 3) and img.dtype == np.uint8 and img.std() > 0
