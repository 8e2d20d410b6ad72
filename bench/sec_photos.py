"""Benchmark section: folders of photos, one per move, to a scored record (``dominocast review DIR``).

The footage section's hands (the same cached renders: every rule preset, held-out appearance, one
injected mismatched end) and the match section's several-hand video, cut into the photos a player
with a phone or a time-lapse camera takes: the dealt table, the table :data:`PHOTO_AFTER_S` after
each event of the ground truth (the arm gone), and the last frame. Each folder is reviewed as ``dominocast review`` reviews one
(:func:`service.review.run_review` on :class:`vision.sources.ImageFolderSource`): no arm is ever seen,
so the seat of a play comes from the hand area that lost a tile (``docs/tracking.md``). The record is
compared with the ground truth in order, play by play (seat, tile, end), and hand by hand (result and
points): there are no times to match by, a photo's time being its index.
"""

from __future__ import annotations

import json
import shutil
from collections import Counter
from pathlib import Path

import cv2
import numpy as np

from bench.common import BenchConfig, md_table, pct
from bench.sec_footage import ACC_FPS, ACC_SIZE, SEED0, SMOKE_FPS, SMOKE_RULES, SMOKE_SIZE, footage
from bench.sec_match import MATCH_HANDS, MATCH_RULES, SEED_OFFSET

TITLE = "Photo folders to a scored record"

#: A photo is taken this long after its event's frame (s): the arm has left the table by then.
PHOTO_AFTER_S = 0.8


def photo_frames(gt: dict, plays_only: bool = False) -> list[int]:
    """Frame indices of the photos of a footage's ground truth: the first frame, each event's frame
    plus :data:`PHOTO_AFTER_S`, and the last frame (sorted, distinct). ``plays_only``: the README's
    least, one photo per play, one of the hands shown at each hand's end, and the last frame (no
    dealt table, no photo of a draw or a pass)."""
    fps, last = float(gt["fps"]), int(gt["n_frames"]) - 1
    after = round(PHOTO_AFTER_S * fps)
    events = [e["frame"] for h in gt["hands"] for e in h["events"]
              if e.get("frame") and (e["type"] in ("play", "reveal") or not plays_only)]
    return sorted({last, *(min(f + after, last) for f in events)} | (set() if plays_only else {0}))


#: The photo recipes measured, name -> (one photo per play only, reviewed with the table's calibration,
#: taken hand-held): every event (the dealt table, each play, draw and pass), one per play, one per play
#: without a calibration (the tile size measured on the folder, seats from the image's borders, the hand
#: areas from the rows of face-down tiles), and those taken with a phone in the hand (:func:`hand_held`).
RECIPES = {"events": (False, True, False), "plays": (True, True, False), "uncalibrated": (True, False, False),
           "hand_held": (True, False, True)}
#: A hand-held photo shows the quad whose corners lie this share of the frame in from its corners ...
HAND_HELD_INSET = 0.03
#: ... each moved by a normal draw of this share of the frame's width (clipped to twice that).
HAND_HELD_SHAKE = 0.012


def hand_held(folder: Path, seed: int) -> None:
    """Rewrite each photo of ``folder`` as a phone held over the table would have taken it: the view of
    a quad inside the frame (corners :data:`HAND_HELD_INSET` in, each moved by :data:`HAND_HELD_SHAKE`
    of the width, seeded), stretched to the full frame: shifted, turned, tilted and zoomed a little,
    each photo its own way, every pixel from the scene (no border made up)."""
    rng = np.random.default_rng(seed)
    for path in sorted(folder.glob("*.png")):
        image = cv2.imread(str(path))
        h, w = image.shape[:2]
        full = np.float32([[0, 0], [w, 0], [w, h], [0, h]])
        inset = np.float32([[1, 1], [-1, 1], [-1, -1], [1, -1]]) * np.float32([w, h]) * HAND_HELD_INSET
        reach = 2 * HAND_HELD_SHAKE * w
        shake = np.clip(rng.normal(0, HAND_HELD_SHAKE * w, full.shape), -reach, reach)
        quad = np.clip(full + inset + shake.astype(np.float32), 0, [w - 1, h - 1]).astype(np.float32)
        cv2.imwrite(str(path), cv2.warpPerspective(image, cv2.getPerspectiveTransform(quad, full), (w, h)))


def write_photos(video: Path, frames: list[int], folder: Path) -> int:
    """Save ``frames`` of ``video`` as ``move_NNN.png`` in ``folder`` (replaced); returns how many."""
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    want, k, i = set(frames), 0, 0
    cap = cv2.VideoCapture(str(video))
    try:
        while want:
            ok, img = cap.read()
            if not ok:
                break
            if i in want:
                cv2.imwrite(str(folder / f"move_{k:03d}.png"), img)
                want.discard(i)
                k += 1
            i += 1
    finally:
        cap.release()
    return k


def in_force_plays(hand) -> list[tuple[str, tuple[int, int], str]]:
    """(seat, tile key (high, low), end) of the plays a hand's record keeps, in order (taken-back plays removed).

    ``hand``: an engine :class:`engine.hand.HandState`; the lead's end is ``"lead"``.
    """
    out: list[tuple[str, tuple[int, int], str]] = []
    for o in hand.outcomes:
        if o.event.type == "play" and o.placement is not None:
            out.append((o.event.seat, o.placement.tile.key, o.placement.end))
        elif o.event.type == "take_back":
            gone = max((i for i, p in enumerate(out) if p[1] == o.event.tile.key), default=None)
            if gone is not None:
                out.pop(gone)
    return out


def score_folder(gt: dict, record_json: str) -> dict:
    """Compare a folder review's record with the footage's ground truth.

    Returns:
        ``plays`` (ground truth), ``plays_right`` (same position in order with the same seat, tile
        and end), ``seats_right``, ``extra_plays`` (record plays past the ground truth's), ``hands``,
        ``hands_right`` (result kind and winner, and the hand's points, as the ground truth's).
    """
    from engine.record import from_json, replay_record

    match = replay_record(from_json(record_json))
    ours = [h for g in match.games for h in g.hands]
    out = dict.fromkeys(("plays", "plays_right", "seats_right", "extra_plays", "hands", "hands_right"), 0)
    for i, gh in enumerate(gt["hands"]):
        want = [(e["seat"], tuple(sorted(e["tile"], reverse=True)), e.get("end") or "lead")
                for e in gh["events"] if e["type"] == "play"]
        got = in_force_plays(ours[i]) if i < len(ours) else []
        out["plays"] += len(want)
        out["plays_right"] += sum(w == g for w, g in zip(want, got))
        out["seats_right"] += sum(w[0] == g[0] for w, g in zip(want, got))
        out["extra_plays"] += max(0, len(got) - len(want))
        out["hands"] += 1
        res, want_res = (ours[i].result if i < len(ours) else None), gh.get("result")
        out["hands_right"] += bool(res and want_res and (res.kind, res.winner_seat) == (
            want_res["kind"], want_res.get("winner")) and dict(ours[i].scores) == gh["scores"])
    return out


def score_draws(gt: dict, rows: list[dict]) -> dict:
    """The tiles drawn from the boneyard: ``gt_drawn`` (the ground truth's, every hand), ``drawn`` (the review's
    ``draw`` rows, their counts) and ``drawn_right`` (per hand and seat the smaller of the two, summed: a draw
    given to the wrong seat, or to the wrong hand, is not right). ``rows``: the review's events.jsonl rows."""
    want: Counter = Counter()
    for i, h in enumerate(gt["hands"]):
        for e in h["events"]:
            if e["type"] == "draw":
                want[(i + 1, e["seat"])] += len(e.get("tiles") or [None])
    got: Counter = Counter()
    hands: dict = {}  # (game, hand) -> its place in the match, as the ground truth lists hands
    for r in rows:
        if "hand" in r:
            n = hands.setdefault((r.get("game"), r["hand"]), len(hands) + 1)
            if r.get("type") == "draw":
                got[(n, r["seat"])] += r.get("count", 1)
    return {"gt_drawn": sum(want.values()), "drawn": sum(got.values()),
            "drawn_right": sum(min(n, got[k]) for k, n in want.items())}


def run(cfg: BenchConfig) -> dict:
    """Every preset's footage (``bench.sec_footage``'s seeds and size) as a photo folder, reviewed and scored."""
    from calibration.profile import TableProfile
    from engine.ruleset import available_presets, load_ruleset
    from service.review import run_review
    from vision.recognize import FOLDER_SIZE_PHOTOS, Recognizer, folder_tile_px
    from vision.sources import open_source

    presets = [SMOKE_RULES] if cfg.smoke else available_presets()
    size, fps = (SMOKE_SIZE, SMOKE_FPS) if cfg.smoke else (ACC_SIZE, ACC_FPS)
    recognizer = Recognizer(threads=cfg.threads)
    work = cfg.scratch / "photo-review"
    # the footage section's hands and, but for a smoke run, the match section's several-hand video
    cases = [(rules, rules, SEED0 + cfg.seed + (0 if cfg.smoke else k), 1) for k, rules in enumerate(presets)]
    if not cfg.smoke:
        cases.append((f"{MATCH_RULES} match", MATCH_RULES, SEED0 + SEED_OFFSET + cfg.seed, MATCH_HANDS))
    out: dict = {"size": f"{size[0]}x{size[1]}", "fps": fps, "photo_after_s": PHOTO_AFTER_S}
    for recipe, (plays_only, calibrated, shaken) in RECIPES.items():
        per = {}
        for name, rules, seed, hands in cases:
            paths, _ = footage(cfg, rules, seed, size, fps, hands=hands)  # from the other sections' cache
            gt = json.loads(Path(paths["ground_truth"]).read_text())
            folder = work / rules / "photos"
            n = write_photos(Path(paths["video"]), photo_frames(gt, plays_only), folder)
            if shaken:
                hand_held(folder, seed)
            profile = TableProfile.load(paths["profile"]) if calibrated else None
            src = open_source(folder)
            # without a calibration, one tile size for the folder, as `dominocast review` measures it
            recognizer.tile_px = None if calibrated else folder_tile_px(recognizer, src.sample(FOLDER_SIZE_PHOTOS))
            try:
                run_review(src, load_ruleset(rules), recognizer.bind(profile), work / rules / "review", profile,
                           annotate=False)
            finally:
                src.close()
            record = work / rules / "review" / "record.json"
            sc = score_folder(gt, record.read_text())
            rows = [json.loads(x) for x in (work / rules / "review" / "events.jsonl").read_text().splitlines()]
            sc["flags"] = sum(r.get("type") == "flag" for r in rows)
            sc.update(score_draws(gt, rows))
            per[name] = {"seed": seed, "photos": n, **sc}
            print(f"[photos] {recipe} {name}: {sc['plays_right']}/{sc['plays']} plays right ({sc['seats_right']} "
                  f"seats), {sc['hands_right']}/{sc['hands']} hands right, {sc['flags']} flags, draws "
                  f"{sc['drawn_right']}/{sc['gt_drawn']} right ({sc['drawn']} recorded), {n} photos", flush=True)
        total = {k: sum(p[k] for p in per.values()) for k in ("plays", "plays_right", "seats_right", "extra_plays",
                                                              "hands", "hands_right", "photos", "flags", "gt_drawn",
                                                              "drawn", "drawn_right")}
        # the every-event recipe keeps the keys it was published under
        out.update({"per_preset": per, "total": total} if recipe == "events"
                   else {f"per_preset_{recipe}": per, f"total_{recipe}": total})
    shutil.rmtree(work, ignore_errors=True)
    return out


def _draws(p: dict) -> str:
    """A row's draws cell: tiles drawn to the right seat / drawn (ground truth), the review's extra ones after a +."""
    if not p["gt_drawn"] and not p["drawn"]:
        return "-"
    extra = p["drawn"] - p["drawn_right"]
    return f"{p['drawn_right']}/{p['gt_drawn']}" + (f" (+{extra})" if extra else "")


def _table(per: dict, tot: dict) -> str:
    """One recipe's table: per preset and in total (flags and draws when the run counted them)."""
    flags, draws = "flags" in tot, "gt_drawn" in tot
    extra = lambda p: [*([p["flags"]] if flags else []), *([_draws(p)] if draws else [])]  # noqa: E731
    rows = [[f"`{name}`", p["photos"], p["plays"], p["plays_right"], p["seats_right"], p["extra_plays"],
             f"{p['hands_right']}/{p['hands']}", *extra(p)] for name, p in per.items()]
    n = tot["plays"]
    right = f"{tot['plays_right']} ({pct(tot['plays_right'] / n if n else 0)})"
    rows.append(["**in total**", tot["photos"], n, right, tot["seats_right"], tot["extra_plays"],
                 f"{tot['hands_right']}/{tot['hands']}", *extra(tot)])
    return md_table(["preset", "photos", "plays", "plays right", "seats right", "extra plays", "hands right",
                     *(["flags"] if flags else []), *(["tiles drawn (right seat / drawn)"] if draws else [])], rows)


def render(results: dict) -> str:
    """The section's Markdown: per preset and in total, for each photo recipe."""
    out = [f"The footage section's hands and the match section's video ({results['size']}, held-out appearance, "
           f"one injected mismatched end per hand), cut into one photo per move: the dealt table, the table "
           f"{results['photo_after_s']:g} s after each event of the ground truth, the last frame. Reviewed as "
           "`dominocast review FOLDER` does (no arm is seen: the seat of a play is the hand area that lost a tile) and compared in order with the ground "
           "truth: a play is right with its seat, tile and end at its place in the hand; a hand is right with "
           "its result (kind, winner) and points; flags are the review's (the injected mismatched end is one "
           "a hand).\n"]
    out.append(_table(results["per_preset"], results["total"]))
    if "per_preset_plays" in results:
        out.append("\nThe same hands with the fewest photos the README allows: one per play, one of the hands shown "
                   "at each hand's end, and the last frame (no photo of the dealt table, nor of a draw or a pass: "
                   "a draw and the drawer's play, or a pass and the next play, share a photo):\n")
        out.append(_table(results["per_preset_plays"], results["total_plays"]))
    if "per_preset_uncalibrated" in results:
        out.append("\nThe same photos, one per play, reviewed without the table's calibration, as a player's phone "
                   "photos are: one tile size measured on 5 of the folder's photos, the seats from the image's "
                   "borders and each seat's hand area from where its row of face-down tiles lies "
                   "(`vision/hand_rows.py`):\n")
        out.append(_table(results["per_preset_uncalibrated"], results["total_uncalibrated"]))
    if "per_preset_hand_held" in results:
        out.append(f"\nThe same, taken with a phone in the hand (no calibration): each photo the view of a quad whose "
                   f"corners lie {HAND_HELD_INSET:.0%} of the frame in from its corners, each moved by a normal "
                   f"draw of {HAND_HELD_SHAKE:.1%} of the width (`bench.sec_photos.hand_held`), so shifted, turned, "
                   "tilted and zoomed a little, each its own way; the tracker moves the tiles with the camera "
                   "(`vision/camera_follow.py`):\n")
        out.append(_table(results["per_preset_hand_held"], results["total_hand_held"]))
    out.append("Before the hand-area seat cue, printed dominoes at the first photo, and the next hand's lead "
               "on a cleared table (2026-12-01, the same hands and models, `vision/tracking.py` of commit "
               "4276bdf): one-hand videos 94 / 163 plays right, 4 / 9 hands right (every hand a seat other than N "
               "led had its seats wrong); the match 31 / 64 plays right, 1 / 3 hands right.\n")
    return "\n".join(out)
