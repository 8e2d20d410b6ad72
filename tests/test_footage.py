"""Footage generator: line-of-play geometry, determinism, agreement with the engine, video frames."""

from __future__ import annotations

import json
import random

import cv2
import numpy as np
import pytest
from typer.testing import CliRunner

from interrupting import interrupt_at  # tests/interrupting.py

from calibration.profile import TableProfile
from datasets.footage import make_footage
from datasets.render.line_of_play import GAP_MM, Box, Planner, overlap_area, plan_hand
from datasets.render.tiles import TILE_SHORT_MM
from engine.hand import HandContext, replay
from engine.ruleset import load_ruleset
from engine.simulate import simulate_hand, simulate_match
from engine.tiles import Tile

TABLE = Box(0.0, 0.0, 1000.0, 600.0)
BOXES = [TABLE.inset(75.0), TABLE.inset(62.0)]


def _plays(rules, log) -> list[tuple[int, int, str, bool]]:
    st = replay(rules, log)
    return [(o.placement.tile.a, o.placement.tile.b, o.placement.end, o.placement.became_spinner)
            for o in st.outcomes if o.placement is not None]


# ---- geometry -----------------------------------------------------------------------------

@pytest.mark.parametrize("preset", ["lisa-b-all-fives", "block", "bdc-partnership"])
def test_touching_half_is_next_to_the_end_it_was_played_on(preset):
    rules = load_ruleset(preset)
    for seed in range(20):
        planner = plan_hand(_plays(rules, simulate_hand(rules, random.Random(seed))), (500.0, 300.0), BOXES)
        for k in range(1, len(planner.placements)):
            gap = np.linalg.norm(planner.contact[k] - planner.anchors[k])
            assert gap <= TILE_SHORT_MM + GAP_MM + 1e-6, (preset, seed, k, gap)


@pytest.mark.parametrize("preset", ["lisa-b-all-fives", "block", "bdc-partnership"])
def test_tiles_never_overlap_and_stay_on_the_table(preset):
    rules = load_ruleset(preset)
    for seed in range(20):
        planner = plan_hand(_plays(rules, simulate_hand(rules, random.Random(seed))), (500.0, 300.0), BOXES)
        ps = planner.placements
        assert planner.fallbacks == 0
        assert all(BOXES[-1].contains(p) for p in ps)
        for i in range(len(ps)):
            for j in range(i):
                assert overlap_area(ps[i], ps[j]) < 0.01, (preset, seed, i, j)


def test_arm_turns_at_the_margin_and_keeps_touching():
    planner = Planner((100.0, 100.0), [Box(0.0, 0.0, 260.0, 400.0)])
    planner.lead(1, 2)
    for k in range(6):
        planner.play(2 + k, 3 + k, "E")
    angles = [round(p.angle_deg) % 360 for p in planner.placements]
    assert angles[:3] == [0, 0, 0] and 90 in angles  # E goes right, then turns toward +y (clockwise)
    assert all(Box(0.0, 0.0, 260.0, 400.0).contains(p) for p in planner.placements)
    for k in range(1, 7):
        assert np.linalg.norm(planner.contact[k] - planner.anchors[k]) <= TILE_SHORT_MM + GAP_MM + 1e-6


def test_spinner_arms_leave_from_its_ends_north_up():
    planner = Planner((500.0, 300.0), BOXES)
    lead = planner.lead(4, 4, spinner=True)
    w, e = planner.play(4, 1, "W"), planner.play(4, 2, "E")
    n, s = planner.play(4, 5, "N"), planner.play(4, 6, "S")
    assert w.x_mm < lead.x_mm < e.x_mm
    assert n.y_mm < lead.y_mm < s.y_mm and abs(n.x_mm - lead.x_mm) < 1e-6
    assert round(lead.angle_deg) == 90  # the double lies crosswise


def test_bumped_tile_moves_and_later_tiles_attach_to_it():
    planner = Planner((500.0, 300.0), BOXES)
    planner.lead(1, 2)
    planner.play(2, 3, "E")
    moved = planner.bump(1, 2.0, -1.0, 2.0)
    assert moved is not None and planner.placements[1] == moved
    planner.play(3, 4, "E")
    assert np.linalg.norm(planner.contact[2] - planner.anchors[2]) <= TILE_SHORT_MM + GAP_MM + 1e-6
    assert overlap_area(planner.placements[1], planner.placements[2]) < 0.01


# ---- footage ------------------------------------------------------------------------------

SMALL = dict(fps=4.0, size=(320, 240))


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """The same small video made twice (seed 3, one mismatched end), plus the ground truth."""
    out = []
    for k in range(2):
        d = tmp_path_factory.mktemp(f"footage{k}")
        paths = make_footage("lisa-b-all-fives", 3, d, inject_mismatch=1, **SMALL)
        out.append((paths, json.loads(paths["ground_truth"].read_text())))
    return out


def _frames(path) -> list[np.ndarray]:
    cap = cv2.VideoCapture(str(path))
    frames = []
    while True:
        ok, f = cap.read()
        if not ok:
            return frames
        frames.append(f)


def test_same_seed_same_ground_truth_and_frames(runs):
    (pa, ga), (pb, gb) = runs
    ga, gb = dict(ga), dict(gb)
    assert ga.pop("command") != gb.pop("command")  # only the output folder differs
    assert ga == gb
    fa, fb = _frames(pa["video"]), _frames(pb["video"])
    assert fa[0].tobytes() == fb[0].tobytes() and fa[-1].tobytes() == fb[-1].tobytes()


def test_video_has_the_frames_the_ground_truth_says(runs):
    paths, gt = runs[0]
    frames = _frames(paths["video"])
    assert len(frames) == gt["n_frames"]
    assert frames[0].shape == (gt["frame_size"][1], gt["frame_size"][0], 3)


def test_plays_are_the_engines_hand(runs):
    rules = load_ruleset("lisa-b-all-fives")
    _, gt = runs[0]
    log = simulate_match(rules, 3, hands=1, mismatches=1)[0]
    st = replay(rules, log)
    engine_plays = [(o.placement.tile.a, o.placement.tile.b, o.placement.end, o.points)
                    for o in st.outcomes if o.placement is not None]
    assert [(p["tile"][0], p["tile"][1], p["end"], p["points"]) for p in gt["plays"]] == engine_plays
    assert gt["hands"][0]["result"]["kind"] == st.result.kind
    frames = [p["frame"] for p in gt["plays"]]
    assert frames == sorted(frames) and all(abs(p["t"] - p["frame"] / gt["fps"]) < 1e-3 for p in gt["plays"])


def test_timed_events_replay_to_the_same_score(runs):
    from engine.events import Deal, Draw, Play, Reveal

    rules = load_ruleset("lisa-b-all-fives")
    _, gt = runs[0]
    hand = gt["hands"][0]
    kinds = {"deal": Deal, "play": Play, "draw": Draw, "reveal": Reveal}
    log = [kinds[e.pop("type")](**e) for e in (dict(e) for e in hand["events"])]
    ctx = hand["context"]
    st = replay(rules, log, HandContext(ctx["leader"], Tile(*ctx["required_lead"]) if ctx["required_lead"] else None))
    assert st.scores == hand["scores"]
    assert all(ev.frame is not None for ev in log)


def test_every_seat_left_with_tiles_reveals_them_face_up(runs):
    _, gt = runs[0]
    result = gt["hands"][0]["result"]
    assert result["kind"] in ("domino", "locked")
    shown = {r["seat"]: r["tiles"] for r in gt["reveals"]}
    # the reveals are exactly the seats with pips left, and their pips are what the engine counted
    assert {s for s, pips in result["remaining"].items() if pips} <= set(shown)
    assert {s: sum(a + b for a, b in tiles) for s, tiles in shown.items()} == \
        {s: p for s, p in result["remaining"].items() if s in shown}
    keys = {k["frame"]: k for k in gt["keyframes"]}
    for r in gt["reveals"]:  # at the rest frame the seat's tiles lie face up in its hand row
        ups = sorted(sorted(t["pips"]) for t in keys[r["frame"]]["tiles"]
                     if t["where"] == f"hand:{r['seat']}" and t["face"] == "up")
        assert ups == sorted(sorted(t) for t in r["tiles"])


def test_injected_mismatch_is_flagged_by_the_engine(runs):
    _, gt = runs[0]
    bad = [p for p in gt["plays"] if p["mismatched_end"]]
    assert len(bad) == 1
    assert "mismatched_end" in bad[0]["flags"] and bad[0]["tile"][0] != bad[0]["end_value"]
    assert all("mismatched_end" not in p["flags"] for p in gt["plays"] if not p["mismatched_end"])


def test_arm_covers_the_tile_when_it_comes_to_rest(runs):
    paths, gt = runs[0]
    frames = _frames(paths["video"])
    keys = {k["frame"]: k for k in gt["keyframes"]}
    last = frames[-1].astype(np.int16)
    for p in gt["plays"]:
        key = keys[p["frame"]]
        tid = f"{max(p['tile'])}-{min(p['tile'])}"
        tile = next(t for t in key["tiles"] if t["id"] == tid)
        assert tile["where"] == "line" and key["arm_polygon"] is not None
        assert tile["unoccluded"] < 0.9
        mask = np.zeros(last.shape[:2], np.uint8)
        cv2.fillPoly(mask, [np.round(np.array(tile["polygon"]) - 0.5).astype(np.int32)], 1)
        diff = np.abs(frames[p["frame"]].astype(np.int16) - last).sum(2)
        assert diff[mask > 0].mean() > 20  # the arm is over it, unlike in the last (still) frame


def test_profile_maps_table_points_to_the_keyframe_polygons(runs):
    paths, gt = runs[0]
    prof = TableProfile.load(paths["profile"])
    key = gt["keyframes"][-1]
    for tile in key["tiles"]:
        x, y, _ = tile["pose_mm"]
        centre_px = np.array(tile["polygon"]).mean(0) - 0.5
        # polygons are top faces (8 mm up): allow the small parallax of a near-vertical camera
        assert np.linalg.norm(prof.table_to_image(np.array([x, y]))[0] - centre_px) < 2.0


def test_every_table_version_has_the_same_printed_board(tmp_path, monkeypatch):
    """A game board's grid is fixed for the whole video (it followed the first tile, which moves:
    the board changed under the players, and motion gating saw a still arm for seconds)."""
    import datasets.footage as F

    real, specs = F.render_scene, []

    def spy(spec):
        specs.append(spec)
        return real(spec)

    monkeypatch.setattr(F, "render_scene", spy)
    gt = json.loads(make_footage("block", 5, tmp_path, **SMALL)["ground_truth"].read_text())
    assert len(specs) == gt["table_renders"] > 10
    angles = {s.grid_angle_deg for s in specs}
    assert len(angles) == 1 and None not in angles
    firsts = {(s.placements[0].x_mm, s.placements[0].angle_deg) for s in specs}
    assert len(firsts) > 1  # the first tile did move: the old rule would have turned the grid


def test_an_interrupted_render_leaves_the_folders_earlier_footage_as_it_was(tmp_path, monkeypatch):
    """Ctrl-C while rendering left a half video of the new seed next to the old seed's ground truth."""
    import datasets.footage as F
    from service.cli import app

    make_footage("block", 5, tmp_path, **SMALL)
    before = {p.name: p.read_bytes() for p in tmp_path.iterdir()}
    calls = interrupt_at(monkeypatch, F, "render_scene", 5)
    res = CliRunner().invoke(app, ["datasets", "footage", "--rules", "block", "--seed", "6", "--out", str(tmp_path),
                                   "--fps", "4", "--size", "320x240"])
    assert res.exit_code == 130
    assert res.stderr.strip() == f"interrupted: no footage written; {tmp_path} holds what it held before"
    new = tmp_path / "new"  # a folder made for the render goes with it (helper-94)
    calls.clear()
    res = CliRunner().invoke(app, ["datasets", "footage", "--rules", "block", "--seed", "6", "--out", str(new),
                                   "--fps", "4", "--size", "320x240"])
    assert res.exit_code == 130 and not new.exists()
    assert res.stderr.strip() == f"interrupted: no footage written; {new} was not made"
    assert {p.name: p.read_bytes() for p in tmp_path.iterdir()} == before  # no hidden partial folder either


def test_a_folder_the_footage_cannot_land_in_is_refused_before_rendering(tmp_path, monkeypatch):
    """A folder named ground_truth.json was found after the whole render, with the video already moved
    in; a second --name left one video's ground truth next to another video (helper-48)."""
    import datasets.footage as F

    monkeypatch.setattr(F, "render_scene", lambda spec: pytest.fail("rendered before refusing"))
    (tmp_path / "a" / "ground_truth.json").mkdir(parents=True)
    with pytest.raises(ValueError, match="ground_truth.json is a folder"):
        make_footage("block", 5, tmp_path / "a", **SMALL)
    b = tmp_path / "b"
    b.mkdir()
    (b / "footage.mp4").write_bytes(b"x")
    (b / "ground_truth.json").write_text('{"format": "dominocast-footage/1", "video": "footage.mp4"}')
    with pytest.raises(ValueError, match="holds footage.mp4 with its ground truth"):
        make_footage("block", 5, b, name="other", **SMALL)
    assert sorted(p.name for p in b.iterdir()) == ["footage.mp4", "ground_truth.json"]


@pytest.mark.parametrize("files, named", [
    ({"footage.mp4": b"my recording"}, "footage.mp4"),
    ({"profile.json": b'{"table": "mine"}'}, "profile.json"),
    ({"ground_truth.json": b'{"my": "notes"}', "profile.json": b"{}", "footage.mp4": b"v"},
     "ground_truth.json and profile.json and footage.mp4"),
])
def test_files_no_render_wrote_are_never_replaced(tmp_path, monkeypatch, files, named):
    """helper-92: a recording named footage.mp4, a table's profile.json and notes in ground_truth.json
    were overwritten without a word; the CLI says so in one line (exit 2) and leaves them."""
    import datasets.footage as F
    from service.cli import app

    monkeypatch.setattr(F, "render_scene", lambda spec: pytest.fail("rendered before refusing"))
    for n, data in files.items():
        (tmp_path / n).write_bytes(data)
    res = CliRunner().invoke(app, ["datasets", "footage", "--rules", "block", "--out", str(tmp_path),
                                   "--fps", "4", "--size", "320x240"])
    them = "them" if " and " in named else "it"
    assert (res.exit_code, res.stderr.strip()) == (2, f"error: {tmp_path} holds {named} but no ground truth of an "
                                                      "earlier footage render naming footage.mp4: choose another "
                                                      f"folder (--out) or move {them}")
    assert {p.name: p.read_bytes() for p in tmp_path.iterdir()} == files


def test_an_earlier_render_is_replaced(tmp_path):
    first = make_footage("block", 5, tmp_path, **SMALL)
    again = make_footage("block", 6, tmp_path, **SMALL)
    assert json.loads(again["ground_truth"].read_text())["seed"] == 6 and first["video"] == again["video"]


def test_a_leftover_work_file_does_not_stop_a_render(tmp_path):
    (tmp_path / ".footage.partial").write_text("left by something")
    paths = make_footage("block", 5, tmp_path, **SMALL)
    assert paths["video"].is_file() and not (tmp_path / ".footage.partial").exists()


def test_test_appearance_uses_held_out_surface_and_style(tmp_path):
    from datasets.footage import appearance_choices
    from datasets.render.scene import RECIPES

    surfaces, styles = appearance_choices("test")
    assert surfaces and styles
    assert not set(surfaces) & set(RECIPES["train"].surfaces)
    assert not set(styles) & set(RECIPES["train"].styles)


def test_cli_rejects_a_bad_size(tmp_path):
    from service.cli import app

    res = CliRunner().invoke(app, ["datasets", "footage", "--rules", "block", "--out", str(tmp_path),
                                   "--size", "big"])
    assert res.exit_code == 2 and "--size" in res.output


@pytest.mark.parametrize("args, line", [
    (["--size", "100000x100000"], "--size 100000x100000 is larger than a camera's frame: at most 7680x4320"),
    (["--fps", "1e-7"], "--fps must be 2-120 frames a second, got 1e-07"),
    (["--fps", "1e9"], "--fps must be 2-120 frames a second, got 1e+09"),
    (["--mismatch", "1000"], "--mismatch must be 0-3 mismatched ends per hand, got 1000"),
])
def test_cli_refuses_extreme_sizes_and_rates_in_one_line(tmp_path, args, line):
    """They crashed with a traceback (a 10^10-pixel frame; no frame for an arm's reach; a
    video at 10^9 fps), after the output folder was made."""
    from service.cli import app

    out = tmp_path / "out"
    res = CliRunner().invoke(app, ["datasets", "footage", "--rules", "block", "--out", str(out), *args])
    assert (res.exit_code, res.stderr.strip()) == (2, f"error: {line}") and not out.exists()


def test_without_mismatches_the_hand_is_engine_simulate_match():
    from engine.simulate import simulate_match

    rules = load_ruleset("all-fives")
    assert simulate_match(rules, 8, hands=2) == simulate_match(rules, 8)[:2]


def test_drawn_tiles_come_to_rest_in_the_players_hand(runs):
    _, gt = runs[0]
    keys = {k["frame"]: k for k in gt["keyframes"]}
    assert gt["draws"]
    for d in gt["draws"]:
        a, b = d["tiles"][-1]
        tile = next(t for t in keys[d["frame"]]["tiles"] if t["id"] == f"{max(a, b)}-{min(a, b)}")
        assert tile["where"] == f"hand:{d['seat']}" and tile["face"] == "down"


def test_cli_refuses_an_unknown_rule_set_before_making_the_folder(tmp_path):
    from service.cli import app

    out = tmp_path / "out"
    res = CliRunner().invoke(app, ["datasets", "footage", "--rules", "nosuch", "--out", str(out)])
    assert res.exit_code == 2 and len(res.stderr.strip().splitlines()) == 1 and "nosuch" in res.stderr
    assert not out.exists()  # helper-64: an empty folder was left behind


def test_each_hands_deal_is_timed_when_its_table_first_shows():
    """helper-84: hand 2's deal had t=0.0, frame 0 in the ground truth, before hand 1's plays."""
    from datasets.footage import TABLE_MM, _script_hands
    from datasets.footage_script import Script

    rules, fps = load_ruleset("all-fives"), 10.0
    script = Script(TABLE_MM, fps, np.random.default_rng([6, 11]), {s: (90, 120, 160) for s in "NESW"})
    hands = _script_hands(script, rules, simulate_match(rules, 6, hands=2), fps)
    first, second = hands[0]["log"], hands[1]["log"]
    assert (first[0].frame, first[0].t) == (0, 0.0)
    assert second[0].frame > max(ev.frame for ev in first)  # after hand 1's last play and reveals
    assert second[0].t == round(second[0].frame / fps, 4)
    assert [ev.frame for ev in second] == sorted(ev.frame for ev in second)


def test_a_footage_too_small_to_read_says_so(tmp_path):
    """helper-92: `--size 100x100` rendered without a word; its review then misread most tiles."""
    from calibration.profile import TableProfile
    from service.cli import app
    from vision.recognize import profile_tile_px

    res = CliRunner().invoke(app, ["datasets", "footage", "--rules", "block", "--out", str(tmp_path / "s"),
                                   "--fps", "4", "--size", "320x240"])  # 160x120's 7.2 px tiles are refused
    assert res.exit_code == 0, res.output
    px = profile_tile_px(TableProfile.load(tmp_path / "s" / "profile.json"))
    assert px < 28 and f"note: tiles are {px:.0f} px long in this footage" in res.stdout
    res = CliRunner().invoke(app, ["datasets", "footage", "--rules", "block", "--out", str(tmp_path / "b"),
                                   "--fps", "4", "--size", "1280x720"])
    assert res.exit_code == 0 and "note: tiles are" not in res.stdout


def test_a_size_too_small_for_readable_tiles_is_refused_naming_one_that_works(tmp_path):
    """helper-195: `--size 160x90` wrote a profile whose 6.6 px tiles `calibrate table` refuses (under
    MIN_TILE_PX) and the profile loader now refuses too: refused before anything is made, naming the smallest
    size of that shape that works; that size renders, with a profile that loads."""
    from calibration.profile import MIN_TILE_PX, TableProfile
    from datasets.footage import footage_tile_px
    from engine.ruleset import load_ruleset
    from service.cli import app

    res = CliRunner().invoke(app, ["datasets", "footage", "--rules", "block", "--seed", "3", "--out",
                                   str(tmp_path / "s"), "--fps", "4", "--size", "160x90"])
    assert res.exit_code == 2 and "Traceback" not in res.output
    assert res.stderr.strip().startswith("error: --size 160x90 makes this footage's tiles 6.6 px long, under the 8 px "
                                         "whose pips can be read (its profile would be refused): give --size 196x110 "
                                         "or larger")
    assert len(res.stderr.strip().splitlines()) == 1
    assert not (tmp_path / "s").exists()
    block = load_ruleset("block")
    assert footage_tile_px(block, 3, (196, 110)) >= MIN_TILE_PX > footage_tile_px(block, 3, (192, 108))
    with pytest.raises(ValueError, match="give --size 196x110 or larger"):  # the library refuses it too
        make_footage("block", 3, tmp_path / "lib", size=(160, 90))
    assert not (tmp_path / "lib").exists()
    res = CliRunner().invoke(app, ["datasets", "footage", "--rules", "block", "--seed", "3", "--out",
                                   str(tmp_path / "s"), "--fps", "4", "--size", "196x110"])
    assert res.exit_code == 0, res.output
    assert TableProfile.load(tmp_path / "s" / "profile.json").tile_px_at_centre() == pytest.approx(8.02, abs=0.01)


def test_more_hands_than_the_match_lasts_are_said(tmp_path, monkeypatch):
    """helper-149: --hands 40 gave the 10 hands the match lasted without a word."""
    import datasets.footage as F
    from service.cli import app

    real = F.simulate_match
    monkeypatch.setattr(F, "simulate_match", lambda rules, seed, hands, mismatches: real(rules, seed, hands=1, mismatches=mismatches))
    res = CliRunner().invoke(app, ["datasets", "footage", "--rules", "block", "--seed", "6", "--out", str(tmp_path),
                                   "--fps", "4", "--size", "320x240", "--hands", "3"])
    assert res.exit_code == 0, res.output
    gt = json.loads((tmp_path / "ground_truth.json").read_text())
    assert len(gt["hands"]) == 1
    assert "note: the match was won after 1 hand; the video holds it, not 3" in " ".join(res.stdout.split())


def test_footage_of_a_rule_set_file_keeps_that_files_parameters(tmp_path, monkeypatch):
    """helper-151: ``--rules ./block`` (a file whose rule set is named "block") stored only "block", and the
    bench reviewed the footage under the preset; a folder name with bytes that are not UTF-8 made the
    ground truth's command unwritable."""
    import os

    from bench.sec_footage import footage_rules
    from engine.ruleset import RULESET_DIR, load_ruleset

    text = (RULESET_DIR / "block.toml").read_text()
    target = load_ruleset("block").target
    assert f"\ntarget = {target}\n" in text
    (tmp_path / "block").write_text(text.replace(f"\ntarget = {target}\n", f"\ntarget = {target + 50}\n"))
    monkeypatch.chdir(tmp_path)
    gt = json.loads(make_footage("./block", 5, tmp_path / "f", **SMALL)["ground_truth"].read_text(encoding="utf-8"))
    assert gt["rules"] == "block" and gt["rule_params"]["target"] == target + 50
    assert footage_rules(gt).target == target + 50
    named = tmp_path / os.fsdecode(b"r\xfe.toml")
    named.write_text(text.replace('name = "block"', 'name = "mine"'))
    gt2 = json.loads(make_footage(str(named), 5, tmp_path / "g", **SMALL)["ground_truth"].read_text(encoding="utf-8"))
    assert "r\ufffd.toml" in gt2["command"] and gt2["rules"] == "mine"
    del gt["rule_params"]  # footage rendered before the parameters were stored: the preset of its name
    assert footage_rules(gt).target == target


def _full_disk(monkeypatch):
    """The footage folder's disk is full: a file's bytes cannot be stored (``os.fsync`` says so, as the probe
    of :func:`datasets.footage._write_problem` sees a full disk)."""
    import errno
    import os

    def full(fd):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(os, "fsync", full)


def _writer(monkeypatch, opens: bool = True, keeps: int | None = None):
    """OpenCV's video writer that cannot open its file (``opens``), or that drops every frame after the first
    ``keeps``, with a warning only, as it does on a disk that fills up mid-render."""
    real = cv2.VideoWriter

    class Writer:
        def __init__(self, *args):
            self.w, self.n = real(*args), 0

        def isOpened(self):  # noqa: N802 - OpenCV's name
            return opens and self.w.isOpened()

        def write(self, img):
            self.n += 1
            if keeps is None or self.n <= keeps:
                self.w.write(img)

        def release(self):
            self.w.release()

    monkeypatch.setattr(cv2, "VideoWriter", Writer)


FOOTAGE_ARGS = ["--rules", "block", "--seed", "6", "--fps", "4", "--size", "320x240"]


@pytest.mark.parametrize("opens, keeps", [(False, None), (True, 10)])
def test_a_full_disk_is_one_line_and_leaves_the_folder_as_it_was(tmp_path, monkeypatch, opens, keeps):
    """helper-187: a full disk was a 48-line traceback (exit 1) blaming the mp4v codec and left an empty folder;
    one filling up mid-render gave hundreds of FFmpeg warnings and the same traceback."""
    from service.cli import app

    make_footage("block", 5, tmp_path, **SMALL)
    before = {p.name: p.read_bytes() for p in tmp_path.iterdir()}
    _writer(monkeypatch, opens, keeps)
    _full_disk(monkeypatch)
    res = CliRunner().invoke(app, ["datasets", "footage", *FOOTAGE_ARGS, "--out", str(tmp_path)])
    assert (res.exit_code, res.stderr.strip()) == (
        2, f"error: --out {tmp_path}: No space left on device; no footage written, {tmp_path} holds what it held "
           "before")
    assert {p.name: p.read_bytes() for p in tmp_path.iterdir()} == before  # no partial folder or probe either
    new = tmp_path / "a" / "b"
    res = CliRunner().invoke(app, ["datasets", "footage", *FOOTAGE_ARGS, "--out", str(new)])
    assert (res.exit_code, res.stderr.strip()) == (
        2, f"error: --out {new}: No space left on device; no footage written, {new} was not made")
    assert not (tmp_path / "a").exists()


def test_a_writer_that_fails_on_a_disk_with_room_blames_the_encoder(tmp_path, monkeypatch):
    """Only when the folder takes a file is OpenCV's failure the codec's: one line, exit 2, no folder left."""
    from datasets.footage import VideoWriterError
    from service.cli import app

    _writer(monkeypatch, opens=False)
    out = tmp_path / "f"
    res = CliRunner().invoke(app, ["datasets", "footage", *FOOTAGE_ARGS, "--out", str(out)])
    assert (res.exit_code, res.stderr.strip()) == (
        2, f"error: cannot open {out}/.footage.partial/footage.mp4 for writing: OpenCV's video writer has no working "
           "mp4v (MPEG-4 Part 2) encoder here; check the opencv-python-headless install")
    assert not out.exists()
    monkeypatch.undo()
    _writer(monkeypatch, keeps=10)
    with pytest.raises(VideoWriterError, match=r"footage.mp4 holds 10 of its \d+ frames: OpenCV's video writer"):
        make_footage("block", 6, out, **SMALL)
    assert list(out.iterdir()) == []


def test_a_render_over_an_earlier_footage_says_what_it_replaced(tmp_path):
    """helper-187: another seed's footage (and the calibration made for its camera) was replaced without a word."""
    from service.cli import app

    def render(seed: int) -> list[str]:
        res = CliRunner().invoke(app, ["datasets", "footage", "--rules", "block", "--seed", str(seed), "--out",
                                       str(tmp_path), "--fps", "4", "--size", "320x240"])
        assert res.exit_code == 0, res.output
        return [line for line in res.stdout.splitlines() if "replaced" in line]

    assert render(5) == []
    assert render(6) == [f"replaced the earlier footage in {tmp_path} (footage.mp4: block, seed 5); its camera was "
                         "another: a table calibration made for that video does not fit this one "
                         f"({tmp_path / 'profile.json'} does)"]
    assert render(6) == [f"replaced the earlier footage in {tmp_path} (footage.mp4: block, seed 6)"]  # same camera
