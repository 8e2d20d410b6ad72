"""A folder's photo of another table is skipped (vision.photo_scene), and nothing else is.

helper-201: one frame of another footage (another camera, surface and tiles) in the middle of a
lisa-b-all-fives photo folder was read as a hand of its own: 29 plays, N 40 S 25, for 14 plays, N 20 S 0.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import cv2
import numpy as np

from calibration.profile import TableProfile
from engine.ruleset import load_ruleset
from service.review import run_review
from vision.observation import TileObservation
from vision.photo_scene import OneTable, SceneFeatures, scene_features, shared_points
from vision.recognize import table_pose
from vision.sources import Frame, open_source

DEMO = Path(__file__).resolve().parent.parent / "examples" / "footage"


def _demo():
    return json.loads((DEMO / "ground_truth.json").read_text()), TableProfile.load(DEMO / "profile.json")


def _frames(indices: list[int]) -> list[np.ndarray]:
    cap = cv2.VideoCapture(str(DEMO / "demo.mp4"))
    out = []
    for f in indices:
        cap.set(cv2.CAP_PROP_POS_FRAMES, f)
        ok, img = cap.read()
        assert ok
        out.append(img)
    cap.release()
    return out


def _stray() -> tuple[np.ndarray, list[dict]]:
    """A rendered photo of another table (another camera, surface and tiles), the demo's size, and its tiles."""
    from datasets.build import render_one

    r = render_one(5, seed=3, frame_size=(960, 540))
    return r["frame"], [t for t in r["labels"] if t["in_frame"]]


def _obs(tiles: list[dict], profile: TableProfile, hands: bool = True) -> list[TileObservation]:
    obs = []
    for t in tiles:
        if t.get("where", "").startswith("hand") and t["face"] == "down" and not hands:
            continue
        poly = np.asarray(t["polygon"], np.float32)
        o = TileObservation(poly, t["face"], 0.99)
        if t["face"] == "up":
            o.pips, o.half_confidence = tuple(t["pips"]), (0.99, 0.99)
        o.center_mm, o.angle_deg = table_pose(poly, profile)
        obs.append(o)
    return obs


def _odd(images: list[np.ndarray]) -> list[int]:
    one = OneTable([Frame(i, float(i), im) for i, im in enumerate(images)], lambda frame, message: None)
    kept = [f.index for f in one]
    assert sorted(kept + one.left_out) == list(range(len(images)))
    return one.left_out


def _shaken(image: np.ndarray, seed: int) -> np.ndarray:
    """As ``bench.sec_photos.hand_held`` takes a photo: each corner of a quad 3 % in moved by about 1.2 %."""
    h, w = image.shape[:2]
    rng = np.random.default_rng(seed)
    full = np.float32([[0, 0], [w, 0], [w, h], [0, h]])
    inset = np.float32([[1, 1], [-1, 1], [-1, -1], [1, -1]]) * np.float32([w, h]) * 0.03
    quad = (full + inset + np.clip(rng.normal(0, 0.012 * w, (4, 2)), -0.024 * w, 0.024 * w)).astype(np.float32)
    return cv2.warpPerspective(image, cv2.getPerspectiveTransform(quad, full), (w, h))


def test_a_photo_of_another_table_is_left_out_and_no_change_of_the_same_table_is():
    gt, _ = _demo()
    plays = gt["plays"][:6]
    photos = _frames([round((p["t"] + 0.9) * gt["fps"]) for p in plays])
    stray, _ = _stray()
    assert shared_points(scene_features(stray), scene_features(photos[2])) < 25 < min(
        shared_points(scene_features(a), scene_features(b)) for a, b in zip(photos, photos[1:]))
    assert _odd(photos) == []
    assert _odd(photos[:3] + [stray] + photos[3:]) == [3]
    assert _odd([stray] + photos) == [0]  # the first photo, by the two after it
    assert _odd(photos + [stray]) == [len(photos)]  # the last, by the two before it
    assert _odd(photos[:3] + [stray, stray] + photos[3:]) == []  # two alike: not one stray photo
    # the same table: a hand-held phone's photos, a change of light, an arm, a cleared table
    assert _odd([_shaken(p, k) for k, p in enumerate(photos)]) == []
    lit = [p.copy() for p in photos]
    lit[2] = (lit[2] * 0.45).astype(np.uint8)
    lit[3] = np.clip(lit[3] * np.linspace(0.4, 1.3, lit[3].shape[1])[None, :, None], 0, 255).astype(np.uint8)
    lit[4] = np.clip(lit[4] * np.array([0.7, 1.0, 1.3]), 0, 255).astype(np.uint8)
    assert _odd(lit) == []
    arm = [k["frame"] for k in gt["keyframes"] if k["arm_polygon"] is not None and k["frame"] > 60][:2]
    assert _odd(photos[:3] + _frames(arm) + photos[3:]) == []
    empty = photos[0].copy()
    empty[:] = cv2.medianBlur(photos[0], 31)  # the surface without its tiles: little to judge by
    assert _odd(photos[:3] + [empty] + photos[3:]) == []
    # a photo with no features is not judged
    assert _odd(photos[:3] + [np.full_like(stray, 90)] + photos[3:]) == []
    assert len(scene_features(np.zeros((540, 960, 3), np.uint8)).points) == 0
    assert shared_points(SceneFeatures(np.zeros((0, 2), np.float32), None), scene_features(stray)) == 0


def test_a_folder_review_skips_the_photo_of_another_table_as_if_it_were_not_there(tmp_path):
    """The demo's first 6 plays, one photo each, with a photo of another table (its tiles read as they lie)
    in the middle: the same plays, scores and rows as without it, and one ``unreadable_image`` notice."""
    gt, profile = _demo()
    plays = gt["plays"][:6]
    indices = [round((p["t"] + 0.9) * gt["fps"]) for p in plays]
    photos = _frames(indices)
    stray, stray_tiles = _stray()
    keyframes = sorted(gt["keyframes"], key=lambda k: k["frame"])
    by_picture = {hashlib.md5(p.tobytes()).hexdigest(): _obs([k for k in keyframes if k["frame"] <= f][-1]["tiles"],
                                                             profile)
                  for p, f in zip(photos, indices)}
    by_picture[hashlib.md5(stray.tobytes()).hexdigest()] = _obs(stray_tiles, profile)

    def recognize(image):
        return by_picture[hashlib.md5(image.tobytes()).hexdigest()]

    def review(name: str, images: list[np.ndarray]):
        folder = tmp_path / name
        folder.mkdir()
        for i, im in enumerate(images):
            cv2.imwrite(str(folder / f"move_{i + 1:02d}.png"), im)
        summary = run_review(open_source(folder), load_ruleset(gt["rules"]), recognize, tmp_path / f"{name}_out",
                             profile, annotate=False)
        rows = [json.loads(x) for x in (tmp_path / f"{name}_out" / "events.jsonl").read_text().splitlines()]
        return summary, rows

    clean, clean_rows = review("clean", photos)
    summary, rows = review("stray", photos[:3] + [stray] + photos[3:])
    notices = [r for r in rows if r.get("kind") == "unreadable_image"]
    assert len(notices) == 1 and notices[0]["frame"] == 3 and notices[0]["file"].endswith("move_04.png")
    assert "shows another table" in notices[0]["message"] and notices[0]["message"].endswith("; skipped")
    assert len(summary.skipped) == 1 and "move_04.png shows another table" in summary.skipped[0]
    want = [(p["seat"], p["tile"]) for p in plays]
    assert [(r["seat"], r["tile"]) for r in clean_rows if r["type"] == "play"] == want

    def same(rs):  # the rows but where they come from (one photo later after the stray one)
        return [{k: v for k, v in r.items() if k not in ("t", "frame", "file", "text", "snapshot")}
                for r in rs if r.get("kind") != "unreadable_image"]

    assert same(rows) == same(clean_rows)
    assert (summary.plays, summary.score, summary.warnings) == (clean.plays, clean.score, clean.warnings)
