"""Pure logic of the speed and scaling benchmarks (``bench/scenes.py``, ``bench/sec_speed.py``,
``bench/sec_scaling.py``): the generated frames have the tile counts asked for (counted from
their labels), runtime outputs are compared correctly, and the tables render every outcome.
Nothing here is timed.
"""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

from bench import scenes, sec_scaling, sec_speed


def test_visible_count_uses_the_match_threshold():
    labels = [{"visible": v} for v in (1.0, 0.95, 0.9, 0.89, 0.0)]
    assert scenes.visible_count(labels) == 3
    assert scenes.visible_count(labels, min_visible=0.5) == 4


@pytest.mark.parametrize("n", sec_scaling.TILE_COUNTS)
def test_table_spec_has_exactly_n_tiles_dealt_from_whole_sets(n):
    spec = scenes.table_spec(n, (640, 360))
    assert len(spec.placements) == n and not spec.occluders
    counts = Counter((p.a, p.b) for p in spec.placements)
    sets = -(-n // scenes.SET_SIZE)
    assert all(a <= b <= 6 for a, b in counts) and max(counts.values()) <= sets
    # Every tile's corners project inside the frame: all of them can be fully visible.
    cam = spec.camera
    for p in spec.placements:
        uv = cam.project(p.corners_mm())
        assert (uv >= 0).all() and (uv[:, 0] <= cam.w).all() and (uv[:, 1] <= cam.h).all()


def test_table_spec_rejects_impossible_counts():
    with pytest.raises(ValueError, match="n_tiles"):
        scenes.table_spec(scenes.MAX_TILES + 1)


def test_table_frame_labels_count_the_requested_tiles_at_the_scaled_size():
    small, lab_small = scenes.table_frame(10, (640, 360))
    big, lab_big = scenes.table_frame(10, (960, 540))
    assert small.shape == (360, 640, 3) and big.shape == (540, 960, 3) and small.dtype == np.uint8
    assert scenes.visible_count(lab_small) == scenes.visible_count(lab_big) == 10
    # Same table, 1.5x the scale: tiles 80 * 640 / 1920 px long, and every corner 1.5x further out.
    assert scenes.median_tile_px(lab_small) == pytest.approx(80 * 640 / 1920, rel=0.1)
    for a, b in zip(lab_small, lab_big):
        assert np.abs(np.asarray(a["polygon"]) * 1.5 - np.asarray(b["polygon"])).max() < 1.0


def test_bench_frame_picks_a_scene_with_about_the_wanted_tiles():
    frame, labels, i = scenes.bench_frame(8, 60.0, seed=7, size=(640, 360), tol=4)
    assert frame.shape == (360, 640, 3)
    assert abs(scenes.visible_count(labels) - 8) <= 4
    with pytest.raises(RuntimeError, match="no scene"):
        scenes.bench_frame(500, 60.0, size=(640, 360), tol=1, tries=3)


def test_detector_window_holds_the_most_tiles():
    frame, labels = scenes.table_frame(28, (640, 360))
    tile_px = scenes.median_tile_px(labels)
    win, n = scenes.detector_window(frame, labels, tile_px)
    assert win.shape == (320, 320, 3) and win.dtype == np.uint8
    assert 0 < n <= 28
    # A frame smaller than one window once scaled is padded with the detector's grey.
    win2, n2 = scenes.detector_window(frame, labels, tile_px * 4)
    assert n2 == 28 and (win2[-1, -1] == 114).all()


def _raw(boxes: list[tuple[float, float, float, float, float, int, float]], n_anchors: int = 50) -> np.ndarray:
    """A raw (4 + 2 + 1, N) OBB output with the given (cx, cy, w, h, score, class, angle) boxes."""
    raw = np.zeros((7, n_anchors), np.float32)
    raw[2:4] = 1.0
    for k, (cx, cy, w, h, s, c, a) in enumerate(boxes):
        raw[:4, k] = cx, cy, w, h
        raw[4 + c, k] = s
        raw[6, k] = a
    return raw


def test_agreement_counts_matching_boxes_and_differences():
    ref = _raw([(50, 50, 40, 20, 0.9, 0, 0.1), (150, 60, 40, 20, 0.8, 1, 1.2), (250, 250, 40, 20, 0.7, 0, 0.0)])
    same = sec_speed.agreement(ref.copy(), ref)
    assert same == {"max_box_px": 0.0, "max_score": 0.0, "boxes_ref": 3, "boxes_matched": 3}
    other = ref.copy()
    other[0, 0] += 0.5  # a little shift still matches
    other[5, 1], other[4, 1] = 0.0, 0.8  # same box, other class: no match
    other[4, 2] = 0.1  # below the score threshold: gone
    a = sec_speed.agreement(other, ref)
    assert a["boxes_ref"] == 3 and a["boxes_matched"] == 1
    assert a["max_box_px"] == pytest.approx(0.5) and a["max_score"] == pytest.approx(0.8)
    with pytest.raises(ValueError, match="shape"):
        sec_speed.agreement(ref[:, :10], ref)


def test_corner_distance_ignores_where_the_corners_start():
    p = np.array([[0, 0], [40, 0], [40, 20], [0, 20]], np.float64)
    assert sec_speed.corner_distance(p, np.roll(p, 1, axis=0)) == 0.0
    assert sec_speed.corner_distance(p, p[::-1]) == 0.0
    assert sec_speed.corner_distance(p, p + [0.3, 0.4]) == pytest.approx(0.5)


def test_agreement_matches_near_identical_boxes_that_defeat_intersect_convex_convex():
    # onnxruntime and OpenCV DNN gave these two boxes (1e-5 px apart); cv2.intersectConvexConvex
    # (OpenCV 5.0.0) returns half their area, so an IoU test called them different.
    ref = _raw([(44.67023468017578, 264.0183410644531, 39.73164367675781, 20.112594604492188, 0.9, 0,
                 -0.03057868778705597)])
    other = _raw([(44.67023468017578, 264.0183410644531, 39.73163986206055, 20.11259651184082, 0.9, 0,
                   -0.030578920617699623)])
    assert sec_speed.agreement(other, ref)["boxes_matched"] == 1


def test_one_line_error_keeps_the_message_not_the_traceback():
    msg = "error: OpenCV(5.0.0) graph.cpp:12: error: (-2) bad node\n  in layer 7\nTraceback (most recent call last):"
    assert sec_speed.one_line_error(msg) == "error: OpenCV(5.0.0) graph.cpp:12: error: (-2) bad node in layer 7"
    assert len(sec_speed.one_line_error("x" * 1000)) == 300


def test_configurations_cover_both_sweeps_once_each():
    full = sec_scaling.configurations(smoke=False)
    keys = [(c["tiles"], tuple(c["size"])) for c in full]
    assert len(keys) == len(set(keys)) == 6
    tiles = sorted(c["tiles"] for c in full if "tiles" in c["sweeps"])
    frames = sorted(tuple(c["size"]) for c in full if "frame" in c["sweeps"])
    assert tiles == list(sec_scaling.TILE_COUNTS) and frames == sorted(sec_scaling.FRAME_SIZES)
    smoke = sec_scaling.configurations(smoke=True)
    assert len(smoke) == 2 and {s for c in smoke for s in c["sweeps"]} == {"tiles", "frame"}


def test_slope():
    assert sec_scaling.slope([1, 2, 3], [10, 12, 14]) == pytest.approx(2.0)
    assert sec_scaling.slope([5], [1]) is None


def _t(ms: float, runs: int = 10) -> dict:
    return {"median_ms": ms, "min_ms": ms * 0.9, "runs": runs}


def test_speed_render_reports_skips_errors_and_targets():
    rec = {"frame": _t(120), "detections": 30, "found": 27, "visible": 27, "up": 21, "pips_ok": 21, "windows": 8,
           "tile_px_used": 79.0, "peak_rss_mb": 200.0}
    res = {"frame": {"size": [1920, 1080], "scene": "s", "tiles_visible": 27, "tile_px": 78.6},
           "window": {"size": 320, "tiles": 14}, "threads": 2, "runs": 10, "warmup": 1, "smoke": False,
           "detector": {"onnxruntime": dict(_t(30), peak_rss_mb=150.0),
                        "torch": {"skipped": "not installed (make train-deps)"},
                        "opencv": {"error": "error: OpenCV(5.0.0) cannot parse"}},
           "recognize": {"known": dict(rec, detector_frame=_t(100), pip_reading=_t(8), pip_tiles=21),
                         "none": rec, "all": {"error": "RuntimeError: boom"}, "auto": rec}}
    md = sec_speed.render(res)
    assert "not installed (make train-deps)" in md
    assert "failed: `error: OpenCV(5.0.0) cannot parse`" in md and "failed: `RuntimeError: boom`" in md
    assert "<= 40 ms (met)" in md and "<= 150 ms (met)" in md
    assert "detector alone, whole frame (8 windows)" in md and "pip reading alone, 21 face-up tiles" in md


def test_speed_target_verdict_is_on_the_median_not_the_fastest_run():
    # the target is a median: a fastest run within it does not meet it
    slow = {"median_ms": 169.3, "min_ms": 145.7}
    assert sec_speed._met(slow, 150.0) == "<= 150 ms (not met; fastest run within)"
    assert sec_speed._met({"median_ms": 190.0, "min_ms": 160.0}, 150.0) == "<= 150 ms (not met; fastest run above)"
    assert sec_speed._met({"median_ms": 147.8, "min_ms": 130.2}, 150.0) == "<= 150 ms (met)"


def test_scaling_render_has_one_table_per_sweep():
    rows = []
    for c in sec_scaling.configurations(smoke=False):
        rows.append(dict(c, tile_px=80.0, n_sets=2 if c["tiles"] > 28 else 1, tiles_visible=c["tiles"],
                         time=_t(100 + c["tiles"]), detector=_t(80), windows=8, found=c["tiles"],
                         visible=c["tiles"], up=5, pips_ok=5, false_pos=0, peak_rss_mb=180.0))
    rows[0] = dict(rows[0], error="RuntimeError: boom")
    del rows[0]["time"]
    md = sec_scaling.render({"configurations": rows, "threads": 2, "runs": 10, "warmup": 1, "target_frame_ms": 150})
    assert "### Tiles on the table (1920x1080)" in md and "### Frame size (28 tiles)" in md
    assert "| 3840x2160 |" in md and "failed: `RuntimeError: boom`" in md
    assert "cost per extra tile" in md and "0.90 ms per frame, 0.90 ms of it outside the detector" in md
    assert "n_sets=2" in md
