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
import pytest

from calibration.profile import TableProfile
from engine.ruleset import load_ruleset
from service.review import run_review
from vision.observation import TileObservation
from vision.photo_scene import (EXPOSURE_RATIO, NO_TABLE_CONTRAST, SAME_TABLE_POINTS, OneTable, SceneFeatures,
                                no_table, scene_features, shared_match, shared_points)
from vision.recognize import table_pose
from vision.sources import Frame, open_source

from video_frames import video_frames  # tests/video_frames.py

DEMO = Path(__file__).resolve().parent.parent / "examples" / "footage"


def _demo():
    return json.loads((DEMO / "ground_truth.json").read_text()), TableProfile.load(DEMO / "profile.json")


def _frames(indices: list[int]) -> list[np.ndarray]:
    return video_frames(DEMO / "demo.mp4", indices)


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


def test_a_quiet_mark_decides_the_frames_held_as_at_the_end_and_the_frames_go_on():
    """helper-243: a followed folder's newest photo waited for the next one. At a Quiet mark the frames held are
    decided (the last by those before it) before the next frame is taken; then before(None) is called (the skips
    held, a corrupt newest photo's, are said then) and the mark is yielded (a reveal's second look)."""
    from vision.sources import Quiet

    plain = [np.full((48, 64, 3), 40 * k, np.uint8) for k in range(4)]  # too plain to judge: all kept
    order = []

    def frames():
        yield from (Frame(i, float(i), plain[i]) for i in (0, 1))
        yield Quiet(4.5)
        order.append("taken 2")
        yield Frame(2, 5.0, plain[2])
        yield Quiet(8.0)
        yield Frame(3, 9.0, plain[3])

    one = OneTable(frames(), lambda frame, message: order.append(("other", frame.index)),
                   before=lambda index: order.append(("before", index)))
    order.extend(f if isinstance(f, Quiet) else f.index for f in one)
    assert order == [("before", 0), 0, ("before", 1), 1, ("before", None), Quiet(4.5), "taken 2", ("before", 2), 2,
                     ("before", None), Quiet(8.0), ("before", 3), 3]


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
    # a photo with no features shows no table at all: left out by itself (below)
    assert _odd(photos[:3] + [np.full_like(stray, 90)] + photos[3:]) == [3]
    assert len(scene_features(np.zeros((540, 960, 3), np.uint8)).points) == 0
    assert shared_points(SceneFeatures(np.zeros((0, 2), np.float32), None), scene_features(stray)) == 0


def test_a_blank_picture_is_left_out_as_no_table_and_a_dark_or_cleared_photo_is_not():
    """helper-230 defect 7: a 960x540 picture of the felt's green alone between two photos was read as this
    table with its tiles gone (2 tile_missing notices, "the photos may be out of order"; its colours are the
    felt's, so it was no other table). It is left out wherever it lies among photos of a table, said to show no
    table; a black picture and a lens cap's noise too. A dimmed photo (every tile still found by the detector at
    0.1x), an overexposed one and a cleared table are kept."""
    gt, _ = _demo()
    photos = _frames([round((p["t"] + 0.9) * gt["fps"]) for p in gt["plays"][:6]])
    felt = np.zeros_like(photos[0])
    felt[:] = (40, 90, 40)
    said = []
    one = OneTable([Frame(i, float(i), im) for i, im in enumerate(photos[:3] + [felt] + photos[3:])],
                   lambda frame, message: said.append(message), name=lambda i: f"photo_{i}")
    assert [f.index for f in one] == [0, 1, 2, 4, 5, 6] and one.left_out == [3]
    assert said == ["image photo_3 shows no table: a plain picture, 0 image features, too few to match it with "
                    "any photo (blank, black, or taken with the lens covered): not read; leave it out"]
    assert _odd([felt] + photos) == [0] and _odd(photos + [felt]) == [6]  # the first and the last photo
    assert _odd(photos[:3] + [felt, felt] + photos[3:]) == [3, 4]  # two in a row
    assert _odd([felt]) == [] and _odd([felt, felt * 2]) == []  # no photo of a table to be among
    lens = np.clip(np.random.default_rng(0).normal(4, 4, felt.shape), 0, 255).astype(np.uint8)
    assert _odd(photos[:3] + [np.zeros_like(felt)] + photos[3:]) == [3]  # black
    assert _odd(photos[:3] + [lens] + photos[3:]) == [3]
    # the photo before a blank one is judged by the photo after that (a stray photo there is still caught)
    stray, _ = _stray()
    assert _odd(photos[:2] + [stray, felt] + photos[2:]) == [2, 3]
    for k in (0.1, 0.05):  # dimmed: few features, its tiles' contrast kept
        dim = (photos[0] * k).astype(np.uint8)
        features = scene_features(dim)
        assert len(features.points) < SAME_TABLE_POINTS and features.contrast >= NO_TABLE_CONTRAST
        assert not no_table(features) and _odd([dim] + photos[1:]) == [] and _odd(photos[:3] + [dim] + photos[3:]) == []
    assert _odd(photos[:3] + [np.clip(photos[3] * 1.6 + 20, 0, 255).astype(np.uint8)] + photos[3:]) == []
    assert _odd(photos[:3] + [cv2.medianBlur(_frames([0])[0], 31)] + photos[3:]) == []  # cleared: hand rows, cloth
    assert not no_table(SceneFeatures(np.zeros((0, 2), np.float32), None))  # no contrast taken: not judged


def test_a_stale_copy_of_an_earlier_photo_is_left_out_and_a_new_hand_is_not():
    """helper-220: a copy of an early photo put among the last ones was read as the line cleared, and the next
    photo's whole line as a second hand (N 35 S 60 for N 15 S 35). A photo of this table sharing under
    STALE_SHARE of what the photos around it share with each other is left out, said as such; a new hand
    (the line gone for good) and a copy at the folder's ends are not."""
    gt, _ = _demo()
    photos = _frames([round((p["t"] + 0.9) * gt["fps"]) for p in gt["plays"]])  # one per play: 16
    said = []
    one = OneTable([Frame(i, float(i), im) for i, im in enumerate(photos[:13] + [photos[1]] + photos[13:])],
                   lambda frame, message: said.append(message), name=lambda i: f"photo_{i}")
    assert [f.index for f in one] == [i for i in range(17) if i != 13] and one.left_out == [13]
    assert len(said) == 1 and said[0].startswith("image photo_13 shows the table as the photos before and after "
                                                 "it do not") and "a copy of an earlier photo" in said[0]
    assert _odd(photos[:13] + [photos[11]] + photos[13:]) == []  # two plays behind: most of it is shared
    assert _odd(photos[:12] + photos[:4]) == []  # the next hand's first plays where the line was
    assert _odd([photos[1]] + photos[12:]) == [] and _odd(photos[10:] + [photos[1]]) == []  # one side only


def test_a_dimmed_photo_is_kept_among_its_neighbours_and_a_stale_copy_still_left_out():
    """helper-238: a real photo dimmed to 0.2x (a venue's light dimmed, a short exposure) keeps fewer ORB
    features, so it shared under STALE_SHARE of what its neighbours share and was left out as a stale copy.
    A photo exposed over EXPOSURE_RATIO times darker (or brighter) than both neighbours is judged against the
    points its own features allow; a stale copy in the folder's light, or at 0.5x or 1.6x, is still left out."""
    gt, _ = _demo()
    photos = _frames([round((p["t"] + 0.9) * gt["fps"]) for p in gt["plays"]])  # one per play: 16
    for k, gain in ((10, 0.2), (10, 0.1), (6, 0.15), (13, 0.1)):
        lit = [p.copy() for p in photos]
        lit[k] = (photos[k] * gain).astype(np.uint8)
        dim, own = scene_features(lit[k]), scene_features(photos[k])
        assert dim.brightness * EXPOSURE_RATIO < own.brightness and len(dim.points) < len(own.points) / 2
        assert _odd(lit) == [], (k, gain)
    for gain in (1.0, 0.5, 1.6):  # helper-220's stale copy, in the folder's light or not far from it
        stale = np.clip(photos[1] * gain, 0, 255).astype(np.uint8)
        assert _odd(photos[:13] + [stale] + photos[13:]) == [13], gain


@pytest.mark.parametrize("odd", ["another table", "no table"])
def test_a_folder_review_skips_the_photo_of_another_table_as_if_it_were_not_there(tmp_path, odd):
    """The demo's first 6 plays, one photo each, with a photo of another table (its tiles read as they lie)
    in the middle: the same plays, scores and rows as without it, and one ``unreadable_image`` notice. So too
    a blank picture of the felt's colour (helper-230 defect 7: read as this table with its tiles gone)."""
    gt, profile = _demo()
    plays = gt["plays"][:6]
    indices = [round((p["t"] + 0.9) * gt["fps"]) for p in plays]
    photos = _frames(indices)
    stray, stray_tiles = _stray()
    if odd == "no table":
        stray[:], stray_tiles = (40, 90, 40), []
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
    assert f"shows {odd}" in notices[0]["message"] and notices[0]["message"].endswith("; skipped")
    assert len(summary.skipped) == 1 and f"move_04.png shows {odd}" in summary.skipped[0]
    want = [(p["seat"], p["tile"]) for p in plays]
    assert [(r["seat"], r["tile"]) for r in clean_rows if r["type"] == "play"] == want

    def same(rs):  # the rows but where they come from (one photo later after the stray one)
        return [{k: v for k, v in r.items() if k not in ("t", "frame", "file", "text", "snapshot")}
                for r in rs if r.get("kind") != "unreadable_image"]

    assert same(rows) == same(clean_rows)
    assert (summary.plays, summary.score, summary.warnings) == (clean.plays, clean.score, clean.warnings)


def test_a_photo_folder_table_skips_the_photo_of_another_table_with_an_alert(footage, tmp_path, monkeypatch):
    """The live service's photo-folder table read a stray photo of another table as that table (the
    review skipped it): a folder cut from generated footage (a photo each event, ``bench.sec_photos``)
    with a rendered photo of another table among them records the same plays as without it, and the
    umpire gets one ``unreadable_image`` alert naming the stray photo."""
    from fastapi.testclient import TestClient

    import service.sources as sources
    from bench.sec_photos import photo_frames, write_photos
    from service.testing import AUTH, app_for, wait_for
    from service.vision_source import VisionSource

    gt, profile = footage["gt"], footage["profile"]
    frames = photo_frames(gt)  # every event: each draw and pass seen
    clean = tmp_path / "clean"
    assert write_photos(Path(footage["paths"]["video"]), frames, clean) == len(frames) >= 6
    photos = sorted(clean.glob("move_*.png"))
    keyframes = sorted(gt["keyframes"], key=lambda k: k["frame"])
    stray, stray_tiles = _stray()
    stray = cv2.resize(stray, (640, 360), interpolation=cv2.INTER_AREA)
    scale = np.float32([640 / 960, 360 / 540])
    stray_tiles = [{**t, "polygon": (np.asarray(t["polygon"], np.float32) * scale).tolist()} for t in stray_tiles]
    by_picture = {hashlib.md5(cv2.imread(str(p)).tobytes()).hexdigest():
                  _obs([k for k in keyframes if k["frame"] <= f][-1]["tiles"], profile, hands=False)
                  for p, f in zip(photos, frames)}
    by_picture[hashlib.md5(stray.tobytes()).hexdigest()] = _obs(stray_tiles, profile)
    strayed = tmp_path / "stray"  # the stray photo after the 4th
    strayed.mkdir()
    images = [cv2.imread(str(p)) for p in photos]
    for i, im in enumerate(images[:4] + [stray] + images[4:]):
        cv2.imwrite(str(strayed / f"move_{i:03d}.png"), im)

    def factory(table):
        return VisionSource(table, recognizer_factory=lambda profile: (
            lambda image: by_picture[hashlib.md5(image.tobytes()).hexdigest()]))

    monkeypatch.setitem(sources._FACTORIES, "vision", factory)

    def run(folder: Path):
        with TestClient(app_for(tmp_path / f"{folder.name}_data")) as c:
            body = {"id": "cam", "name": "Photo table", "rules": "all-fives", "video_source": str(folder),
                    "calibration": str(footage["paths"]["profile"]), "worker": {"kind": "vision", "speed": 10000}}
            assert c.post("/api/tables", json=body, headers=AUTH).status_code == 201
            c.post("/api/tables/cam/start", json={}, headers=AUTH)
            st = wait_for(lambda: (s := c.get("/api/tables/cam/status").json())["state"] in ("finished", "error")
                          and s, timeout=60)
            assert st["state"] == "finished", st
            mid = c.get("/api/tables/cam/snapshot").json()["data"]["state"]["match"]["id"]
            hands = [c.get(f"/api/matches/{mid}/hands/{h}").json() for h in (1, 2)]
            alerts = c.get("/api/tables/cam/alerts").json()
            scores = c.get("/api/tables/cam/snapshot").json()["data"]["state"]["game"]["scores"]
        plays = [(e["seat"], e["tile"]) for h in hands if "events" in h for e in h["events"] if e["type"] == "play"]
        return plays, [a for a in alerts if a["kind"] == "unreadable_image"], scores, alerts

    want = [(p["seat"], p["tile"]) for p in gt["plays"]]
    plays, skipped, scores, alerts = run(clean)
    assert plays == want and skipped == []
    plays2, skipped2, scores2, alerts2 = run(strayed)
    assert (plays2, scores2) == (plays, scores)
    assert [(a["details"]["file"], a["details"]["frame"]) for a in skipped2] == [(str(strayed / "move_004.png"), 4)]
    message = skipped2[0]["message"]
    assert message.startswith(f"image {strayed / 'move_004.png'} shows another table") and message.endswith("; skipped")
    assert sorted(a["kind"] for a in alerts2 if a["kind"] != "unreadable_image") == sorted(a["kind"] for a in alerts)


def _turned(image: np.ndarray, deg: float) -> np.ndarray:
    """``image`` turned ``deg`` degrees about its centre (+: counter-clockwise on screen, cv2's sense), same size."""
    h, w = image.shape[:2]
    return cv2.warpAffine(image, cv2.getRotationMatrix2D((w / 2, h / 2), deg, 1.0), (w, h))


def test_a_photo_turned_half_a_turn_is_left_out_as_turned_and_a_hand_held_turn_is_not():
    """helper-230 section 3: a photo turned 180 degrees (same shape, so not caught as a quarter turn) swapped
    N and S: S's 4-5 scored for N, N 20 S 30 for N 15 S 35, exit 0. It is left out, said to look turned."""
    gt, _ = _demo()
    photos = _frames([round((p["t"] + 0.9) * gt["fps"]) for p in gt["plays"][:6]])
    upside = cv2.rotate(photos[3], cv2.ROTATE_180)
    n, turn = shared_match(scene_features(photos[2]), scene_features(upside))
    assert n >= 25 and abs(abs(turn) - 180.0) < 2.0  # the table matched, half a turn round
    n, turn = shared_match(scene_features(photos[2]), scene_features(_turned(photos[3], 10)))
    assert n >= 25 and abs(abs(turn) - 10.0) < 2.0  # the sign follows the image axes (y down): size only
    said = []
    one = OneTable([Frame(i, float(i), im) for i, im in enumerate(photos[:3] + [upside] + photos[4:])],
                   lambda frame, message: said.append(message), name=lambda i: f"photo_{i}")
    assert [f.index for f in one] == [0, 1, 2, 4, 5] and one.left_out == [3]
    assert len(said) == 1 and said[0].startswith("image photo_3 looks turned 180 degrees from the photo before it")
    assert _odd([upside] + photos[:3] + photos[4:]) == [0]  # the first photo, by the one after it
    assert _odd(photos[:3] + [_turned(photos[3], 60)] + photos[4:]) == [3]  # more than 45 degrees
    assert _odd(photos[:3] + [_turned(photos[3], 10)] + photos[4:]) == []  # a phone in the hand turns a little
