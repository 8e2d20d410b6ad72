"""A folder's photo of a later or earlier state of its table, told by the tiles read (vision.photo_states), and
no real change of the table.

helper-230's demo folder (one photo per move, N 15 S 35 for 16 plays): a copy of the photo after N's 5-5 put after
the 8th photo gave N 25 S 20 for 21 plays; a copy of the 11th photo put first split the hand (N 20 S 30); a copy of
the 4th photo last was read silently; two copies of it in a row lost a draw. The image points shared could not
tell these (helper-233: 0.81 and 0.68 of what the neighbours share).
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import numpy as np
import pytest

from calibration.profile import TableProfile
from engine.ruleset import load_ruleset
from service.review import run_review
from service.review_pipeline import ReadAhead
from vision.observation import TileObservation
from vision.photo_scene import OneTable
from vision.photo_states import PhotoTiles, earlier_state, later_first, later_state, photo_tiles, under_arm
from vision.sources import Frame, open_source

DEMO = Path(__file__).resolve().parent.parent / "examples" / "footage"
GT = json.loads((DEMO / "ground_truth.json").read_text())
KEYFRAMES = sorted(GT["keyframes"], key=lambda k: k["frame"])
PLAY_FRAMES = [round((p["t"] + 0.9) * GT["fps"]) for p in GT["plays"]]  # one photo per play, the arm gone


def _tiles_at(frame: int) -> list[dict]:
    return [k for k in KEYFRAMES if k["frame"] <= frame][-1]["tiles"]


def _obs(tiles: list[dict]) -> list[TileObservation]:
    obs = []
    for t in tiles:
        o = TileObservation(np.asarray(t["polygon"], np.float32), t["face"], 0.99)
        if t["face"] == "up":
            o.pips, o.half_confidence = tuple(t["pips"]), (0.99, 0.99)
        obs.append(o)
    return obs


#: the tiles read in the photo after each play (the ground truth's), then the hands shown (S's 4-3) at the end
LINES = [photo_tiles(_obs(_tiles_at(f))) for f in PLAY_FRAMES] + [photo_tiles(_obs(KEYFRAMES[-1]["tiles"]))]
DEALT = photo_tiles(_obs(KEYFRAMES[0]["tiles"]))  # the table dealt, no tile laid


def _left_out(lines: list[PhotoTiles]) -> tuple[list[int], list[str]]:
    """The photos OneTable leaves out of a folder whose photos read ``lines`` (blank pictures: no image points to
    judge by, so only the tiles tell), and the messages."""
    said = []
    blank = np.full((54, 96, 3), 90, np.uint8)
    one = OneTable([Frame(i, float(i), blank) for i in range(len(lines))], lambda f, m: said.append(m),
                   name=lambda i: f"photo_{i}", tiles=lambda f: lines[f.index])
    kept = [f.index for f in one]
    assert sorted(kept + one.left_out) == list(range(len(lines)))
    return one.left_out, said


def test_the_demo_lines_are_what_the_cases_need():
    """The ground truth read as the tests take it: one tile more per play, S's 4-3 shown at the end."""
    assert [len(x.tiles) for x in LINES] == list(range(1, 17)) + [17]
    assert LINES[-1].tiles - LINES[-2].tiles == {(3, 4)} and not DEALT.tiles
    assert 25 < LINES[0].tile_px < 45  # the demo's tiles are about 40 px long


def test_a_copy_of_a_later_photo_among_earlier_ones_is_left_out():
    """The 16th photo's state (after N's 5-5) put after the 8th: it adds 8 tiles laid on the line, and the 9th
    photo lacks 7 of them (it adds the 8th's own next play)."""
    gone = later_state(LINES[15], LINES[7], LINES[8])
    assert gone == sorted(LINES[15].tiles - LINES[8].tiles) and len(gone) == 7
    out, said = _left_out(LINES[:8] + [LINES[15]] + LINES[8:])
    assert out == [8] and len(said) == 1
    assert said[0].startswith("image photo_8 looks like a copy of a later state of this table: it adds 7 tiles (")
    assert "the photo after it lacks them" in said[0] and said[0].endswith("put it in its place")
    # two plays ahead is a missed photo, not a copy: the next photo keeps them
    assert later_state(LINES[9], LINES[7], LINES[10]) is None


def test_a_stale_copy_first_last_and_twice_in_a_row_is_left_out():
    # first: the 11th photo's state before the dealt table and the first plays (the lead, the 6-2 where it shows them)
    first = [LINES[10], DEALT] + LINES
    assert later_first(LINES[10], [DEALT, LINES[0], LINES[1]]) == sorted(LINES[10].tiles)
    out, said = _left_out(first)
    assert out == [0] and "looks like a copy of a later state" in said[0] and "lacks 11 tiles" in said[0]
    # last: a copy of the 4th photo after the hands shown (the 12 line tiles it lacks; S's 4-3 lies face down in
    # S's hand there, where the photo before it shows it)
    out, said = _left_out(LINES + [LINES[3]])
    assert out == [17] and said[0].startswith("image photo_17 looks like a copy of an earlier state of this table: "
                                              "it lacks 12 tiles (")
    # two copies of the 4th photo in a row after the 14th: both
    assert earlier_state(LINES[3], LINES[13], LINES[3], LINES[:13]) == sorted(LINES[13].tiles - LINES[3].tiles)
    out, _ = _left_out(LINES[:14] + [LINES[3], LINES[3]] + LINES[14:])
    assert out == [14, 15]


def test_no_real_change_of_the_table_is_left_out():
    assert _left_out(LINES)[0] == []
    assert _left_out([DEALT] + LINES)[0] == []
    # a take-back photo (a tile gone for one photo), a missed photo (two plays at once), exact duplicates
    took = LINES[:9] + [LINES[7]] + LINES[9:]
    assert _left_out(took)[0] == []
    assert _left_out(LINES[:6] + LINES[8:])[0] == []
    assert _left_out(LINES[:5] + [LINES[5], LINES[5]] + LINES[5:])[0] == []
    # a new hand: the table cleared (or dealt anew) after the hands shown, its line laid again from the lead
    assert _left_out(LINES + [DEALT] + LINES[:4])[0] == []
    assert _left_out(LINES + LINES[:4])[0] == []  # no photo of the cleared table: the new line grows
    # the hands shown, then turned down again with the line still there: the tiles shown lie off the line
    assert _left_out(LINES + [LINES[-2], LINES[-2]])[0] == []
    # a folder that begins with the last hand's final table, then a new hand whose first tiles lie elsewhere
    moved = PhotoTiles({t: (x + 200.0, y) for t, (x, y) in LINES[1].places.items()}, LINES[1].tile_px)
    assert _left_out([LINES[-1], DEALT, LINES[0], moved])[0] == []
    # a first photo with the line only hidden in the next (an arm): the next photos add a tile it lacks
    assert _left_out([LINES[10], DEALT, LINES[11], LINES[12]])[0] == []


@pytest.mark.parametrize("case", ["later", "first"])
def test_a_folder_review_reads_a_photo_once_and_leaves_the_copy_out(tmp_path, case):
    """End to end on the demo's 16 photos (tiles as they lie, by the picture): the same plays as without the
    copy, one ``unreadable_image`` row naming it, each photo read once (the read made ahead is the pipeline's)."""
    import cv2

    from video_frames import video_frames  # tests/video_frames.py

    photos = video_frames(DEMO / "demo.mp4", PLAY_FRAMES)
    by_picture = {hashlib.md5(p.tobytes()).hexdigest(): KEYFRAMES.index([k for k in KEYFRAMES if k["frame"] <= f][-1])
                  for p, f in zip(photos, PLAY_FRAMES)}
    profile = TableProfile.load(DEMO / "profile.json")
    reads = []

    class Recognize:
        reads_alone = True

        def __call__(self, image, **kwargs):
            k = by_picture[hashlib.md5(image.tobytes()).hexdigest()]
            reads.append(k)
            return _obs(KEYFRAMES[k]["tiles"])

    def review(name, images):
        folder = tmp_path / name
        folder.mkdir()
        for i, im in enumerate(images):
            cv2.imwrite(str(folder / f"move_{i + 1:02d}.png"), im)
        reads.clear()
        s = run_review(open_source(folder), load_ruleset(GT["rules"]), Recognize(), tmp_path / f"{name}_out", profile,
                       annotate=False)
        rows = [json.loads(x) for x in (tmp_path / f"{name}_out" / "events.jsonl").read_text().splitlines()]
        return s, rows, list(reads)

    _, clean, clean_reads = review("clean", photos)
    copy = photos[:8] + [photos[15]] + photos[8:] if case == "later" else [photos[10]] + photos
    where = 8 if case == "later" else 0
    s, rows, copy_reads = review(case, copy)
    plays = lambda rs: [(r["seat"], r["tile"], r.get("points")) for r in rs if r["type"] == "play"]  # noqa: E731
    assert plays(rows) == plays(clean) and len(plays(clean)) == 16
    notices = [r for r in rows if r.get("kind") == "unreadable_image"]
    assert len(notices) == 1 and notices[0]["file"].endswith(f"move_{where + 1:02d}.png")
    assert "looks like a copy of a later state of this table" in notices[0]["message"] and len(s.skipped) == 1
    # the copy is read once (ahead, to judge it), every other photo once, as in the clean folder (and the last
    # again, as a folder's last photo always is when the tracker waits for a second look)
    assert len(copy_reads) == len(clean_reads) + 1


def test_read_ahead_gives_the_pipeline_the_read_it_made_and_a_second_look_anew():
    calls = []

    def recognize(image, **kwargs):
        calls.append(kwargs)
        return [TileObservation(np.float32([[0, 0], [40, 0], [40, 20], [0, 20]]), "up", 0.9, pips=(1, 2),
                                half_confidence=(0.9, 0.9))]

    ahead = ReadAhead(recognize)
    a, b = np.zeros((4, 4), np.uint8), np.ones((4, 4), np.uint8)
    assert ahead.tiles(Frame(0, 0.0, a)).places == {(1, 2): (20.0, 10.0)}
    ahead.tiles(Frame(1, 1.0, b))
    held = ahead._held[1][1]
    assert len(calls) == 2 and ahead(b) is held and len(calls) == 2  # the read made ahead; photo 0 left out
    assert ahead._held == {}
    ahead.tiles(Frame(2, 2.0, a))
    assert ahead(a, second_look=True) is not ahead._held[2][1] and calls[-1] == {"second_look": True}
    # a photo the pipeline will not read (a restarted service table's, already recorded): its read is dropped
    ahead.forget(2)
    assert ahead._held == {} and len(calls) == 4
    ahead(a)
    assert len(calls) == 5  # read anew


def _with_arm(photo: np.ndarray, tip: tuple, base: tuple) -> np.ndarray:
    """``photo`` with the demo's arm (frame 644: S reaching in to lay 6-4, its orange pixels) laid from ``base`` (on
    the image border) to ``tip`` (px), half as wide again."""
    import cv2

    from video_frames import video_frames  # tests/video_frames.py

    arm = video_frames(DEMO / "demo.mp4", [644])[0]
    hsv = cv2.cvtColor(arm, cv2.COLOR_BGR2HSV)
    mask = cv2.morphologyEx(((hsv[..., 0] >= 5) & (hsv[..., 0] <= 25) & (hsv[..., 1] >= 100)).astype(np.uint8),
                            cv2.MORPH_OPEN, np.ones((5, 5), np.uint8))
    ys, xs = np.nonzero(mask)
    a_tip = np.array([xs[ys < ys.min() + 8].mean(), ys.min()])  # the hand's end, up over the table
    a_base = np.array([xs[ys > ys.max() - 8].mean(), ys.max()])  # where it leaves the picture (S's edge)
    side = lambda p, q, k: p + k * np.array([q[1] - p[1], p[0] - q[0]])  # noqa: E731 - a point across the arm
    d_tip, d_base = np.array(tip, float), np.array(base, float)
    m = cv2.getAffineTransform(np.float32([a_base, a_tip, side(a_base, a_tip, 0.2)]),
                               np.float32([d_base, d_tip, side(d_base, d_tip, 0.3 * np.linalg.norm(a_tip - a_base)
                                                               / np.linalg.norm(d_tip - d_base))]))
    size = (photo.shape[1], photo.shape[0])
    over = cv2.warpAffine(mask * 255, m, size) > 127
    out = photo.copy()
    out[over] = cv2.warpAffine(arm, m, size)[over]
    return out


def test_an_arm_over_the_newest_tiles_is_no_earlier_state():
    """A photo taken while S reaches in from the bottom after the 10th photo (frame 373), the arm over the W end's
    newest 3 tiles (6-0, 0-0, 0-4): its tiles read are exactly the 7th photo's line, 3 fewer than the photo
    before it, and the next photo shows them again; it was left out as a stale copy (rc 2, "an earlier state"),
    where it is the arm photo it is (read so: the ``arm_in_photo`` notice). An earlier photo's copy with the arm
    elsewhere (over S's hand) is still left out."""
    from video_frames import video_frames  # tests/video_frames.py
    from vision.photo_arms import arm_over

    frames = [229, 336, 373, 404]  # the photos after 3-1, 0-0, 0-4 and 1-1
    photos = video_frames(DEMO / "demo.mp4", frames)
    lines = [photo_tiles(_obs(_tiles_at(f))) for f in frames]
    hidden = {(0, 6), (0, 0), (0, 4)}
    assert hidden == lines[2].tiles - lines[0].tiles  # the newest 3, all at the W end (x 368-467 px)
    under = _with_arm(photos[2], (414, 248), (330, 540))
    seen = PhotoTiles({t: p for t, p in lines[2].places.items() if t not in hidden}, lines[2].tile_px)
    assert earlier_state(seen, lines[2], lines[3], lines[:1]) == sorted(hidden)  # what the tiles alone say

    def left_out(photo, tiles):
        said = []
        pictures, reads = photos[:3] + [photo] + photos[3:], lines[:3] + [tiles] + lines[3:]
        one = OneTable([Frame(i, float(i), im) for i, im in enumerate(pictures)], lambda f, m: said.append(m),
                       name=lambda i: f"photo_{i}", tiles=lambda f: reads[f.index])
        kept = [f.index for f in one]
        return kept, said

    kept, said = left_out(under, seen)
    assert kept == [0, 1, 2, 3, 4] and said == []
    # the 4th photo's state again after the 10th, the arm reaching in only over S's hand: a stale copy still
    stale = _with_arm(photos[0], (600, 420), (700, 540))
    assert arm_over(stale, photos[2], photos[3]) is not None  # an arm is there, only not over the tiles it lacks
    kept, said = left_out(stale, lines[0])
    assert kept == [0, 1, 2, 4] and len(said) == 1 and "an earlier state of this table" in said[0]


def test_hands_shown_beside_the_line_and_turned_down_are_no_later_state():
    """The hands shown at the end with 3 tiles (3-3, 2-3, 1-2) lying just below the line (30 px under 6-2 to 5-3,
    so reached from it as if laid), then turned down where they lay with the line left on the table: the photo
    after the shown hands shows face-down tiles at their places. Left out as a later state (the shown hands lost)
    before; the photo after them then looked like the line of an earlier photo."""
    shown = {(3, 3): (500.0, 300.0), (2, 3): (540.0, 300.0), (1, 2): (580.0, 300.0)}
    end = LINES[15]
    hands = PhotoTiles({**end.places, **shown}, end.tile_px, end.down)
    down = PhotoTiles(dict(end.places), end.tile_px, end.down + tuple(shown.values()))
    assert later_state(hands, end, down) is None and earlier_state(down, hands, None, LINES[:16]) is None
    assert _left_out(LINES[:16] + [hands, down])[0] == []
    assert _left_out(LINES[:16] + [hands, down, down])[0] == []
    # taken away instead (no tile face down there): the shown tiles are gone as a later state's are
    assert later_state(hands, end, end) == sorted(shown)


def test_tiles_under_an_arm_by_the_mask_scale():
    """A 20x10 mask for a photo 200 px wide (scale 0.1); 40 px tiles reach 0.5 x 40 x 0.1 = 2 mask px."""
    seen = PhotoTiles({(1, 2): (105.0, 50.0), (3, 4): (15.0, 15.0)}, 40.0)
    arm = np.zeros((10, 20), bool)
    arm[5, 13] = True  # 3 px right of 1-2's place (10, 5): out of reach
    assert not under_arm([(1, 2)], seen, arm, 200)
    arm[5, 12] = True  # 2 px: under the arm's edge
    assert under_arm([(1, 2)], seen, arm, 200)
    assert not under_arm([(1, 2), (3, 4)], seen, arm, 200)  # 3-4 at (1, 1) is not
    assert not under_arm([(1, 2)], seen, None, 200) and not under_arm([(5, 5)], seen, arm, 200)
