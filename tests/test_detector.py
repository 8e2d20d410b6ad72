"""Whole-frame detection with the dynamic-shape detector, and the fast downscale (vision/detector.py).

The dynamic export (``models/tile_detector.dynamic.onnx``, ``python -m models.export_dynamic``)
has the weights of ``models/tile_detector.onnx``; it runs a 1080p frame as one input
instead of 8 windows and must find the same tiles.
"""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from vision.detector import MAX_INPUT_PX, OBBDetector, downscale
from vision.obb import polygon_iou
from vision.recognize import DEFAULT_DETECTOR, DYNAMIC_DETECTOR

needs_both = pytest.mark.skipif(not (DEFAULT_DETECTOR.is_file() and DYNAMIC_DETECTOR.is_file()),
                                reason="models/tile_detector.onnx or tile_detector.dynamic.onnx absent "
                                       "(python -m models.export_dynamic)")


def _noise_frame(w: int = 1920, h: int = 1080) -> np.ndarray:
    rng = np.random.default_rng(0)
    return cv2.GaussianBlur(rng.integers(0, 256, (h, w, 3), dtype=np.uint8), (0, 0), 3)


def test_downscale_is_exact_area_resize_at_integer_factors():
    f = _noise_frame()
    assert np.array_equal(downscale(f, (960, 540)), cv2.resize(f, (960, 540), interpolation=cv2.INTER_AREA))
    assert np.array_equal(downscale(f, (480, 270)), cv2.resize(f, (480, 270), interpolation=cv2.INTER_AREA))
    assert downscale(f, (1920, 1080)) is f


def test_downscale_close_to_area_resize_at_other_factors():
    f = _noise_frame()
    for size in ((992, 544), (977, 549), (640, 352), (300, 170)):
        a = cv2.resize(f, size, interpolation=cv2.INTER_AREA).astype(np.int16)
        b = downscale(f, size)
        assert b.shape == (size[1], size[0], 3) and b.dtype == np.uint8
        assert np.abs(b.astype(np.int16) - a).mean() < 1.5, size
    # no integer step within MAX_UPSCALE (factor 1/1.5): a plain area resize
    assert np.array_equal(downscale(f, (1280, 720)), cv2.resize(f, (1280, 720), interpolation=cv2.INTER_AREA))


@needs_both
def test_dynamic_model_runs_one_input_per_1080p_frame():
    st, dy = OBBDetector(DEFAULT_DETECTOR), OBBDetector(DYNAMIC_DETECTOR)
    assert not st.dynamic and dy.dynamic and dy.size == 320 and dy.stride == 32
    assert st.windows_for((1080, 1920, 3), 78.6) == 8
    assert dy.windows((1080, 1920, 3), 78.6) == [(0, 0, 992, 544)]  # sides rounded to multiples of 32
    assert dy.scaled_size((1080, 1920, 3), 78.6) == (992, 544)
    # a scaled frame longer than MAX_INPUT_PX is cut into overlapping windows of at most that side
    wins = dy.windows((2160, 3840, 3), 40.0)
    assert len(wins) == 8 and all(w == MAX_INPUT_PX and h == MAX_INPUT_PX for _, _, w, h in wins)
    assert dy.scaled_size((2160, 3840, 3), 40.0) == (3840, 2176)
    assert max(x + w for x, _, w, _ in wins) == 3840 and max(y + h for _, y, _, h in wins) == 2176
    with pytest.raises(ValueError, match="multiples of 32"):
        dy.infer(np.zeros((330, 320, 3), np.uint8))
    assert dy.infer(np.zeros((64, 96, 3), np.uint8)).shape[0] == 4 + dy.num_classes + 1


@needs_both
def test_dynamic_export_has_the_static_weights():
    from models.export_dynamic import is_current, max_difference

    assert is_current()
    assert max_difference(DYNAMIC_DETECTOR, DEFAULT_DETECTOR, n=2) < 1e-3


@needs_both
def test_dynamic_finds_the_same_tiles_as_windows_on_a_rendered_1080p_frame():
    from bench.scenes import median_tile_px, table_frame

    frame, labels = table_frame(28, (1920, 1080))
    tile_px = median_tile_px(labels)
    st = OBBDetector(DEFAULT_DETECTOR, conf_threshold=0.35)
    dy = OBBDetector(DYNAMIC_DETECTOR, conf_threshold=0.35)
    a, b = st.detect(frame, tile_px), dy.detect(frame, tile_px)
    assert st.windows_for(frame.shape, tile_px) == 8 and dy.windows_for(frame.shape, tile_px) == 1
    gl = [l for l in labels if l["visible"] >= 0.9]
    assert len(gl) == 28

    def matched(d):
        """gt index -> class of the detection matching it at IoU >= 0.5."""
        out = {}
        for j, l in enumerate(gl):
            iou = [polygon_iou(p, l["polygon"]) for p in d.polygons]
            k = int(np.argmax(iou))
            if iou[k] >= 0.5:
                out[j] = int(d.classes[k])
        return out

    truth = {j: int(l["cls"]) for j, l in enumerate(gl)}
    assert matched(a) == matched(b) == truth  # every tile, with its face, by both
    assert len(b) == 28  # no extra box (the windows give one more here: a part box at a window edge)
    assert len(a) >= 28


@needs_both
def test_default_detector_prefers_a_current_dynamic_export(tmp_path, monkeypatch):
    import vision.recognize as R

    monkeypatch.delenv("DOMINOCAST_DETECTOR", raising=False)
    assert R.default_detector() == DYNAMIC_DETECTOR
    monkeypatch.setenv("DOMINOCAST_DETECTOR", str(DEFAULT_DETECTOR))
    assert R.default_detector() == R.DEFAULT_DETECTOR
    monkeypatch.delenv("DOMINOCAST_DETECTOR")
    retrained = tmp_path / "tile_detector.onnx"  # another static model: the dynamic file is stale
    retrained.write_bytes(R.INT8_DETECTOR.read_bytes())  # a valid model with other bytes
    monkeypatch.setattr(R, "DEFAULT_DETECTOR", retrained)
    assert R.default_detector() == retrained
    assert R.Recognizer().detector.path == retrained  # the Recognizer makes the same choice
    monkeypatch.setattr(R, "DEFAULT_DETECTOR", DEFAULT_DETECTOR)
    assert R.Recognizer().detector.path == DYNAMIC_DETECTOR


def _boxes(n: int, long_px: float, aspect: float = 2.0):
    """``n`` confident boxes of ``long_px`` by ``long_px / aspect`` (a Detections stand-in for the size search)."""
    from vision.detector import Detections

    w = long_px / aspect
    polys = np.array([[[0, 0], [long_px, 0], [long_px, w], [0, w]]] * n, np.float32).reshape(n, 4, 2)
    polys += np.arange(n, dtype=np.float32)[:, None, None] * 3 * long_px
    return Detections(polys, np.full(n, 0.9, np.float32), np.zeros(n, np.int64), None)


def test_size_search_is_not_stopped_by_one_dip_between_candidates(monkeypatch):
    # DDD photos: 384 px finds 3 groups, 192 px (between ranges) 2 tiles, 96 px the 4 real tiles
    det = object.__new__(OBBDetector)
    found = {512: (0, 0), 256: (3, 240.0), 128: (2, 115.0), 64: (4, 62.0), 32: (1, 30.0)}

    def fake_detect(frame, t):
        k = min(found, key=lambda s: abs(np.log(s / t)))
        return _boxes(*found[k]) if found[k][0] else _boxes(0, 1.0)

    monkeypatch.setattr(det, "detect", fake_detect, raising=False)
    monkeypatch.setattr(det, "input_cost", lambda shape, t: 1.0, raising=False)
    d = det.detect_auto(np.zeros((1024, 1024, 3), np.uint8))
    assert len(d.scores) == 4 and d.tile_px == 64  # 62 px measured: within 15 % of 64, no refinement


def _fake_search(monkeypatch, found: dict):
    """An OBBDetector whose ``detect(frame, t)`` returns ``found[t]`` (n boxes, long side[, aspect]) for
    the tried size nearest ``t`` (none when no key is within 10 %); returns (detector, tried sizes)."""
    det = object.__new__(OBBDetector)
    det.conf_threshold = 0.35  # boxes under 0.35 are not returned: no second, weak pass
    calls: list[float] = []

    def fake_detect(frame, t):
        calls.append(t)
        k = min(found, key=lambda s: abs(np.log(s / t)), default=None)
        n, long_px, *aspect = found[k] if k and abs(np.log(k / t)) < np.log(1.1) else (0, 1.0)
        return _boxes(n, long_px, *aspect)

    monkeypatch.setattr(det, "detect", fake_detect, raising=False)
    monkeypatch.setattr(det, "input_cost", lambda shape, t: 1.0, raising=False)
    return det, calls


def test_size_search_drops_a_candidate_whose_own_size_finds_nothing(monkeypatch):
    # DDD photo 1_06: 3 board pictures of ~232 px at 384 px, nothing when re-detected at
    # 232 px; the 3 real tiles of ~100 px at 96 px must win.
    det, calls = _fake_search(monkeypatch, {768: (0, 0), 384: (3, 232.0), 232: (0, 0), 192: (2, 115.0),
                                             96: (3, 100.0), 48: (1, 45.0), 24: (1, 20.0)})
    d = det.detect_auto(np.zeros((1536, 2040, 3), np.uint8))
    assert d.tile_px == 96 and len(d.scores) == 3
    assert any(abs(t - 232.0) < 1 for t in calls)  # the coarse candidate was tried first


def test_size_search_keeps_the_best_candidate_when_no_refinement_holds(monkeypatch):
    # DomiBot close-up: one tile at 0.9 when T = 50 px, measured 34 px, nothing at 34 px
    det, _ = _fake_search(monkeypatch, {50: (1, 34.0)})
    d = det.detect_auto(np.zeros((100, 100, 3), np.uint8))
    assert len(d.scores) == 1 and d.tile_px == 50


def test_size_search_tries_at_least_four_sizes_on_a_small_frame(monkeypatch):
    det, calls = _fake_search(monkeypatch, {})
    det.detect_auto(np.zeros((100, 100, 3), np.uint8))  # 100 and 71 px (padded), then 50 px down to 24 px
    assert np.allclose(calls, [100.0, 100 / 2 ** 0.5] + [50.0 / 2 ** (k / 3) for k in range(4)])  # 50, 39.7, 31.5, 25
    det, calls = _fake_search(monkeypatch, {})
    det.detect_auto(np.zeros((1080, 1920, 3), np.uint8))  # 540 px down: halving already gives 5
    assert np.allclose(calls, [1080.0, 1080 / 2 ** 0.5, 540.0, 270.0, 135.0, 67.5, 33.75])


def test_tiles_longer_than_half_the_frame_are_searched_on_the_padded_frame(monkeypatch):
    """A close-up whose tile fills the frame: sizes above half the short side run on the frame
    widened by half its short side (its own edge pixels); boxes come back in frame px and
    those centred in the margin are dropped."""
    from vision.detector import Detections

    det = object.__new__(OBBDetector)
    frame = np.zeros((100, 120, 3), np.uint8)
    frame[:, :60] = 200  # left half bright: the replicated margin shows it
    seen = {}

    def fake_detect(img, t):
        seen["shape"], seen["corner"] = img.shape, img[0, 0].tolist()
        if img.shape[:2] == frame.shape[:2]:
            return _boxes(0, 1.0)
        tile = np.array([[60, 60], [150, 60], [150, 105], [60, 105]], np.float32)  # centre (105, 82) padded
        margin = np.array([[0, 0], [40, 0], [40, 20], [0, 20]], np.float32)  # centre in the margin
        return Detections(np.stack([tile, margin]), np.float32([0.9, 0.8]), np.array([0, 1]), t)

    monkeypatch.setattr(det, "detect", fake_detect, raising=False)
    monkeypatch.setattr(det, "input_cost", lambda shape, t: 1.0, raising=False)
    d = det.detect_padded(frame, 90.0)
    assert seen["shape"] == (200, 220, 3) and seen["corner"] == [200, 200, 200]
    assert len(d.scores) == 1 and np.allclose(d.polygons[0], [[10, 10], [100, 10], [100, 55], [10, 55]])
    d = det.detect_auto(frame)
    assert len(d.scores) == 1 and d.tile_px == 100  # found at the first (padded) size


def test_size_search_counts_only_tile_shaped_boxes(monkeypatch):
    # DomiBot close-up: the tile boxed once (2:1, 53 px) at T = 50 px; at T = 25 px its two
    # halves boxed as two squarish "tiles" (aspect 1.15) that would out-vote it.
    det, _ = _fake_search(monkeypatch, {50: (1, 53.0), 25: (2, 25.5, 1.15)})
    d = det.detect_auto(np.zeros((100, 100, 3), np.uint8))
    assert len(d.scores) == 1 and d.tile_px == 50
    det, _ = _fake_search(monkeypatch, {50: (1, 53.0), 25: (2, 25.5, 2.0)})  # 2:1 boxes do count
    assert len(det.detect_auto(np.zeros((100, 100, 3), np.uint8)).scores) == 2


def test_parts_of_a_coarser_candidate_are_skipped(monkeypatch):
    """A crowded table: at T = 45 px each tile's two halves are boxed as tiles (2:1 boxes, 2 per
    tile: twice the support of the 90 px candidate), but they lie inside its tiles."""
    from vision.detector import Detections, parts_of

    tiles = _boxes(5, 100.0)  # 100 x 50 px tiles at (300 k, 300 k)
    # a 2:1 box (40 x 20 px) centred in each half of each tile
    halves = np.array([[[x + 5, y + 15], [x + 45, y + 15], [x + 45, y + 35], [x + 5, y + 35]]
                       for k in range(5) for x, y in ((300 * k, 300 * k), (300 * k + 50, 300 * k))], np.float32)
    fine = Detections(halves, np.full(len(halves), 0.9, np.float32), np.zeros(len(halves), np.int64), None)
    assert parts_of(fine, tiles)
    assert not parts_of(tiles, fine)  # the other way round: no tile centre inside a half box
    apart = Detections(halves + np.float32([0, 500]), fine.scores, fine.classes, None)
    assert not parts_of(apart, tiles)  # real small tiles elsewhere on the table
    one_each = Detections(halves[::2], fine.scores[::2], fine.classes[::2], None)
    assert not parts_of(one_each, tiles)  # one box per coarse box: not a pair of halves

    det, _ = _fake_search(monkeypatch, {90: (5, 100.0)})
    monkeypatch.setattr(det, "detect", lambda frame, t: tiles if t > 60 else fine, raising=False)
    d = det.detect_auto(np.zeros((720, 1280, 3), np.uint8))
    assert len(d.scores) == 5  # the tiles, not the 10 halves


def test_phantom_boxes_far_below_a_big_tile_are_skipped(monkeypatch):
    """A close-up at 1000 px: the one 350 px tile at T = 500 px, and 8 phantom "tiles" of 28 px
    scattered over its face at T = 26 px (more support); the tile must win."""
    from vision.detector import Detections

    tile = _boxes(1, 350.0)  # 350 x 175 px at the origin
    tile.polygons += np.float32([300, 400])
    xs, ys = np.meshgrid(np.linspace(320, 600, 4), np.linspace(420, 520, 2))
    phantom = np.array([[[x, y], [x + 28, y], [x + 28, y + 14], [x, y + 14]] for x, y in zip(xs.ravel(), ys.ravel())],
                       np.float32)
    small = Detections(phantom, np.full(8, 0.9, np.float32), np.ones(8, np.int64), None)
    det, _ = _fake_search(monkeypatch, {})
    monkeypatch.setattr(det, "detect", lambda frame, t: tile if t > 300 else small, raising=False)
    d = det.detect_auto(np.zeros((1000, 1000, 3), np.uint8))
    assert len(d.scores) == 1 and d.tile_px > 300


def test_face_down_look_alikes_far_below_a_sure_face_up_tile_are_skipped(monkeypatch):
    """A blurry close-up blown up to 800 px on dark cloth: its tile face up at 0.9 when T = 400 px,
    and 12 face-down boxes on the cloth at T = 25 px (more support, outside the tile)."""
    from vision.detector import Detections, only_backs_below_a_face

    tile = _boxes(1, 580.0)
    tile.polygons += np.float32([100, 100])
    backs = _boxes(12, 25.0)  # along the diagonal, off the tile
    backs = Detections(backs.polygons + np.float32([0, 700]), backs.scores, np.ones(12, np.int64), None)
    assert only_backs_below_a_face(backs, tile)
    faces = Detections(backs.polygons, backs.scores, np.zeros(12, np.int64), None)
    assert not only_backs_below_a_face(faces, tile)  # small face-up tiles are a table seen from afar
    weak = Detections(tile.polygons, np.float32([0.6]), tile.classes, None)
    assert not only_backs_below_a_face(backs, weak)  # only a sure face-up box outranks them

    det, _ = _fake_search(monkeypatch, {})
    def fake_detect(frame, t):  # the tile from T = 400 px up (in padded px on a padded frame), else look-alikes
        if t < 300:
            return backs
        pad = (frame.shape[0] - 800) // 2
        return Detections(tile.polygons + np.float32(pad), tile.scores, tile.classes, t)

    monkeypatch.setattr(det, "detect", fake_detect, raising=False)
    d = det.detect_auto(np.zeros((800, 800, 3), np.uint8))
    assert len(d.scores) == 1 and d.classes[0] == 0


def test_a_search_with_nothing_confident_is_redone_counting_weak_boxes(monkeypatch):
    """A cream tile on a cream ground scores 0.2-0.3 at every size: with the detector returning
    boxes from 0.2 up (the recognizer's read threshold), the search is redone counting them;
    a detector that returns only boxes >= 0.35 has nothing weak to count."""
    from vision.detector import WEAK_ACCEPT, Detections

    det, calls = _fake_search(monkeypatch, {})
    weak = _boxes(1, 48.0)
    weak = Detections(weak.polygons, np.float32([0.28]), weak.classes, None)
    monkeypatch.setattr(det, "detect", lambda frame, t: (calls.append(t), weak if 40 < t < 60 else _boxes(0, 1.0))[1],
                        raising=False)
    assert len(det.detect_auto(np.zeros((100, 100, 3), np.uint8))) == 0  # conf_threshold 0.35: no second pass
    det.conf_threshold = WEAK_ACCEPT
    d = det.detect_auto(np.zeros((100, 100, 3), np.uint8))  # 0.28 < 0.5: only the second pass can find it
    assert len(d.scores) == 1 and d.scores[0] == pytest.approx(0.28) and d.tile_px == 50
