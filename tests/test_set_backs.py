"""The set-back colour check: unsure face-down boxes must have the colour of a sure one."""

import cv2
import numpy as np

from vision.set_backs import BACK_CHROMA_MAX, CONFIDENT_BACK_SCORE, SATURATED_L, unlike_backs


def _lab_bgr(L: int, a: int, b: int) -> tuple[int, int, int]:
    """The BGR colour of an 8-bit Lab colour, and back (so the test knows the colour the check sees)."""
    bgr = cv2.cvtColor(np.uint8([[[L, a, b]]]), cv2.COLOR_LAB2BGR)[0, 0]
    return tuple(int(v) for v in bgr)


def _box(x: float, y: float) -> np.ndarray:
    return np.float32([[x, y], [x + 80, y], [x + 80, y + 40], [x, y + 40]])


def _frame(colours: list[tuple[int, int, int]]) -> tuple[np.ndarray, np.ndarray]:
    """A grey table with one 80 x 40 px box per colour, side by side; their polygons."""
    frame = np.full((100, 110 * len(colours), 3), 90, np.uint8)
    polys = np.stack([_box(10 + 110 * k, 30) for k in range(len(colours))])
    for p, c in zip(polys, colours):
        cv2.fillPoly(frame, [p.astype(np.int32)], c)
    return frame, polys


def _chroma(frame: np.ndarray, poly: np.ndarray) -> np.ndarray:
    c = poly.mean(0).astype(int)
    return cv2.cvtColor(frame, cv2.COLOR_BGR2LAB)[c[1], c[0], 1:].astype(float)


def test_an_unsure_box_of_another_colour_than_the_sure_backs_is_dropped():
    ivory, tan, ivory_shaded = _lab_bgr(235, 130, 142), _lab_bgr(200, 132, 160), _lab_bgr(170, 130, 144)
    frame, polys = _frame([ivory, ivory, tan, ivory_shaded])
    # by hand from the colours as the frame holds them: tan is ~18 from ivory in (a, b), the shaded back ~2
    far = np.linalg.norm(_chroma(frame, polys[2]) - _chroma(frame, polys[0]))
    near = np.linalg.norm(_chroma(frame, polys[3]) - _chroma(frame, polys[0]))
    assert far > BACK_CHROMA_MAX + 5 and near < 3
    odd = unlike_backs(frame, polys, np.array([0.95, 0.93, 0.6, 0.6]))
    assert odd.tolist() == [False, False, True, False]  # a back in shadow keeps its hue: kept


def test_sure_boxes_are_never_dropped_and_without_one_nothing_is():
    ivory, tan = _lab_bgr(235, 130, 142), _lab_bgr(200, 132, 160)
    frame, polys = _frame([ivory, tan])
    assert unlike_backs(frame, polys, np.array([0.95, CONFIDENT_BACK_SCORE])).tolist() == [False, False]
    assert unlike_backs(frame, polys, np.array([0.5, 0.6])).tolist() == [False, False]  # no sure back to compare


def test_two_sets_each_with_its_own_backs():
    """Distance to the nearest sure back: a red-backed set beside a blue-backed one."""
    red, blue = _lab_bgr(120, 170, 150), _lab_bgr(120, 140, 80)
    frame, polys = _frame([red, blue, red, blue])
    assert unlike_backs(frame, polys, np.array([0.95, 0.95, 0.5, 0.5])).tolist() == [False] * 4


def test_a_box_in_glare_is_kept_its_hue_is_lost():
    ivory = _lab_bgr(235, 130, 142)
    frame, polys = _frame([ivory, (255, 255, 255), (255, 255, 255)])
    assert cv2.cvtColor(np.uint8([[[255, 255, 255]]]), cv2.COLOR_BGR2LAB)[0, 0, 0] >= SATURATED_L
    # pure white is 18 from ivory in (a, b), but clipped: no hue to judge; a half-clipped tan box is judged
    tan = _lab_bgr(200, 132, 160)
    cv2.fillPoly(frame, [polys[2][[0, 1, 2, 3]].astype(np.int32)], tan)
    cv2.rectangle(frame, (int(polys[2][0, 0]), 30), (int(polys[2][0, 0]) + 25, 70), (255, 255, 255), -1)
    assert unlike_backs(frame, polys, np.array([0.95, 0.5, 0.5])).tolist() == [False, False, True]


def test_the_recognizer_drops_the_marble_boxes_unlike_the_backs():
    """Held-out scene 49 (marble, never trained on): the boxes the check drops are exactly the face-down
    boxes ``unlike_backs`` flags, and each lies on no tile of the rendered labels."""
    from datasets.build import scene_spec
    from datasets.render.scene import render_scene
    from datasets.render.tiles import TILE_LONG_MM
    from vision.obb import polygon_iou
    from vision.recognize import Recognizer

    spec, _ = scene_spec(49, 0, (1280, 720))
    frame, labels = render_scene(spec)
    tile_px = spec.camera.px_per_mm * TILE_LONG_MM
    rec = Recognizer()
    off = Recognizer(back_chroma_max=None)(frame, tile_px=tile_px)
    down = [o for o in off if o.face == "down"]
    odd = unlike_backs(frame, np.stack([o.polygon_px for o in down]), np.array([o.det_score for o in down]))
    gone = [o for o, x in zip(down, odd) if x]
    assert len(gone) >= 3
    assert all(max(polygon_iou(o.polygon_px, lab["polygon"]) for lab in labels) < 0.3 for o in gone)
    on = rec(frame, tile_px=tile_px)
    assert sorted(o.det_score for o in on) == sorted(o.det_score for o in off if not any(o is g for g in gone))
