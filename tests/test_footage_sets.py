"""Footage generator with the larger sets: the table grows with the set, and the line of play fits on it."""

from __future__ import annotations

import json
from itertools import combinations

import cv2
import pytest
from typer.testing import CliRunner

from datasets import footage as F
from datasets.footage import TABLE_MM, footage_table_mm, make_footage
from datasets.footage_boneyard import keep_out
from datasets.render.layouts import TilePlacement
from datasets.render.line_of_play import Box, Planner
from datasets.render.tiles import TILE_LONG_MM, TILE_SHORT_MM
from engine.ruleset import RULESET_DIR

#: The ground truth is the point, not the pictures: a small 4:3 frame whose double-twelve tiles reach the
#: 8 px a footage needs (calibration.profile.MIN_TILE_PX; 160 x 120 made them 3.9 px, now refused).
TINY = dict(fps=2.0, size=(352, 264))
TINY_SIZE = "{}x{}".format(*TINY["size"])
SEED = 22  # a short double-twelve hand (34 plays) that two tiles overlapped on the double-six table


@pytest.fixture
def double_twelve(tmp_path):
    """The pagat draw game with a double-twelve set, 2 players taking 7 tiles each: a TOML path."""
    text = (RULESET_DIR / "draw.toml").read_text()
    assert '\nname = "draw"\n' in text and "\nset_max = 6\n" in text and "\nhand_size = 7\n" in text
    path = tmp_path / "d12.toml"
    path.write_text(text.replace('\nname = "draw"\n', '\nname = "d12"\n').replace("\nset_max = 6\n", "\nset_max = 12\n"))
    return path


def _overlaps(tiles: list[dict], tol_mm2: float = 1.0) -> list[tuple[str, str, float]]:
    """Pairs of a keyframe's tiles at rest whose footprints (from ``pose_mm``) share more than ``tol_mm2``."""
    rects = [(t["id"], ((t["pose_mm"][0], t["pose_mm"][1]), (TILE_LONG_MM, TILE_SHORT_MM), t["pose_mm"][2]))
             for t in tiles if t["where"] != "held"]
    out = []
    for (i, r), (j, q) in combinations(rects, 2):
        kind, pts = cv2.rotatedRectangleIntersection(r, q)
        if kind != cv2.INTERSECT_NONE and pts is not None and len(pts) >= 3:
            area = float(cv2.contourArea(cv2.convexHull(pts)))
            if area > tol_mm2:
                out.append((i, j, area))
    return out


def test_the_table_grows_with_the_set():
    assert footage_table_mm(6) == TABLE_MM  # the shipped presets' footage is unchanged
    assert footage_table_mm(9) == (1400.0, 840.0)
    assert footage_table_mm(12) == (1800.0, 1080.0)


def test_a_double_twelve_hand_lies_on_the_table_without_overlapping_tiles(tmp_path, double_twelve):
    """helper-173: on the double-six table a double-twelve line of play overlapped tiles (layout_fallbacks 25
    for seed 6), without a word."""
    gt = json.loads(make_footage(str(double_twelve), SEED, tmp_path / "f", **TINY)["ground_truth"].read_text())
    assert gt["table_size_mm"] == [1800.0, 1080.0]
    assert [h["layout_fallbacks"] for h in gt["hands"]] == [0]
    assert len(gt["plays"]) == 34
    w, h = gt["table_size_mm"]
    for key in gt["keyframes"]:
        assert _overlaps(key["tiles"]) == [], key["frame"]
        for t in key["tiles"]:
            x, y, _ = t["pose_mm"]
            assert 0 < x < w and 0 < y < h, (key["frame"], t["id"])


def test_plays_laid_overlapping_are_said_in_one_line(tmp_path, double_twelve, monkeypatch):
    from service.cli import app

    monkeypatch.setattr(F, "footage_table_mm", lambda set_max: TABLE_MM)  # the table it used to get
    res = CliRunner().invoke(app, ["datasets", "footage", "--rules", str(double_twelve), "--seed", str(SEED),
                                   "--out", str(tmp_path / "f"), "--fps", "2", "--size", TINY_SIZE])
    assert res.exit_code == 0, res.output
    gt = json.loads((tmp_path / "f" / "ground_truth.json").read_text())
    laid = sum(h["layout_fallbacks"] for h in gt["hands"])
    assert laid > 0 and any(_overlaps(k["tiles"]) for k in gt["keyframes"])
    lines = [ln for ln in res.stdout.splitlines() if "could not be laid clear" in ln]
    assert lines == [f"note: {laid} play{'s' if laid > 1 else ''} of 34 could not be laid clear of the other tiles "
                     "on the 1000 x 600 mm table and overlap them (layout_fallbacks in the ground truth): a review "
                     "may misread those tiles"]


def test_a_tile_drawn_from_the_boneyard_no_longer_stands_in_the_lines_way():
    # a boneyard tile (and its fence) right in front of the E end: once drawn, the line goes straight on
    table = Box(0.0, 0.0, 1000.0, 600.0)
    yard = TilePlacement(600.0, 300.0, 0.0, 0, 0, False)
    planner = Planner((500.0, 300.0), [table.inset(75.0), table.inset(62.0)], [yard], keep_out([yard]))
    planner.lead(0, 1)
    assert round(planner.play(1, 2, "E").angle_deg) == 90  # it turns away from the tile (clockwise)
    planner = Planner((500.0, 300.0), [table.inset(75.0), table.inset(62.0)], [yard], keep_out([yard]))
    planner.lead(0, 1)
    planner.lift(yard)
    p = planner.play(1, 2, "E")
    assert (round(p.angle_deg), p.y_mm) == (0, 300.0) and planner.obstacles == [] and planner.keep_out == []


def test_footage_of_a_set_the_review_cannot_read_says_so(tmp_path):
    """helper-187: a double-nine game was rendered without a word, though `review` reads pips 0..6 only."""
    from service.cli import app

    nine = tmp_path / "d9.toml"
    nine.write_text((RULESET_DIR / "draw.toml").read_text().replace('\nname = "draw"\n', '\nname = "d9"\n')
                    .replace("\nset_max = 6\n", "\nset_max = 9\n"))
    notes = {}
    for rules in (str(nine), "draw"):
        res = CliRunner().invoke(app, ["datasets", "footage", "--rules", rules, "--out", str(tmp_path / rules[-4:]),
                                       "--fps", "2", "--size", TINY_SIZE])
        assert res.exit_code == 0, res.output
        notes[rules] = [line for line in res.stdout.splitlines() if "pips 0..6" in line]
    assert notes == {str(nine): ["note: d9 plays a double-nine set (set_max = 9), but the review reads tiles of sets "
                                 "up to double six (pips 0..6) only: `dominocast review` refuses this rule set, and "
                                 "without it misreads the tiles"],
                     "draw": []}
