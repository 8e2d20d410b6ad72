"""Synthetic footage of whole hands with exact ground truth (``dominocast datasets footage``).

``make_footage`` simulates a hand (or several) under a rule set, scripts it as a video
(arms coming in from the players' edges, tiles carried from the hands to the line of
play, draws from the boneyard, knocks for passes, pauses, small bumps) and renders it
with the synthetic scene renderer at a fixed camera, surface and tile style. It writes:

* ``<name>.mp4``: the video (``mp4v``; ``cv2.VideoCapture`` reads back every frame);
* ``ground_truth.json``: rules, seed, command, fps, frame size, camera, every engine
  event with its frame and time, every play (rest frame, seat, tile [touching, other],
  end, points, flags), passes, draws, bumps and keyframes (every tile's polygon);
* ``profile.json``: a :class:`calibration.profile.TableProfile` for the camera.

Same arguments, same ground truth and same frames. See ``docs/footage.md``.
"""

from __future__ import annotations

import contextlib
import errno
import json
import math
import os
import shlex
import shutil
from dataclasses import replace
from pathlib import Path

import cv2
import numpy as np

from calibration.images import opencv_name, quiet_opencv
from calibration.profile import MIN_TILE_PX, TableProfile
from datasets.footage_script import Script
from engine.simulate import simulate_match
from datasets.render import layouts as Ly
from datasets.render import tiles as T
from datasets.render.camera import Camera
from datasets.render.effects import sample_effects
from datasets.render.motion import Compositor, arm_px, covered_fraction, tile_top_px
from datasets.render.scene import RECIPES, SceneSpec, render_scene
from engine.events import Draw, Pass, Play, Reveal
from engine.files import InputFileError, read_json_object, readable
from engine.hand import replay
from engine.match import next_context, replay_match
from engine.ruleset import load_ruleset
from engine.tiles import Tile, full_set

FORMAT = "dominocast-footage/1"
TABLE_MM = (1000.0, 600.0)  # the double-six table, mm
BUMP_CHANCE = 0.12  # per event
#: Bytes of the file written to tell a full disk from a missing codec when OpenCV's video writer fails
#: (it says only that it failed): more than a directory entry, less than any real video.
PROBE_BYTES = 64 * 1024


class VideoWriterError(RuntimeError):
    """OpenCV's video writer cannot encode the footage although its folder takes files (no mp4v encoder)."""


def appearance_choices(appearance: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(surfaces, tile styles) a video may use: the train recipe, or for ``test`` the held-out
    ones (in the test recipe and never in train)."""
    if appearance == "train":
        return RECIPES["train"].surfaces, RECIPES["train"].styles
    if appearance == "test":
        tr, te = RECIPES["train"], RECIPES["test"]
        return (tuple(sorted(set(te.surfaces) - set(tr.surfaces))), tuple(sorted(set(te.styles) - set(tr.styles))))
    raise ValueError(f"appearance must be 'train' or 'test', got {appearance!r}")


def table_scale(set_max: int) -> float:
    """How many times :data:`TABLE_MM` each side of a double-``set_max`` set's table is: the square
    root of its tile count over double six's 28, so that every set has the same table area per tile
    (a double-twelve line of play runs to 90 tiles and more, with up to 77 tiles in the boneyard).
    1 for double six; about 1.40 for double nine, 1.80 for double twelve."""
    return float(np.sqrt((set_max + 1) * (set_max + 2) / 2 / 28))


def footage_table_mm(set_max: int) -> tuple[float, float]:
    """(W, H) of the footage table for a double-``set_max`` set, mm, to 10 mm: 1000 x 600 for
    double six, 1400 x 840 for double nine, 1800 x 1080 for double twelve (:func:`table_scale`)."""
    k = table_scale(set_max)
    return (round(TABLE_MM[0] * k, -1), round(TABLE_MM[1] * k, -1))


def footage_camera(rng: np.random.Generator, size: tuple[int, int], table_mm: tuple[float, float]) -> Camera:
    """A fixed overhead camera (slight tilt, no lens distortion) that sees the whole table: 0.9-1.3 m
    above a :data:`TABLE_MM` table, proportionally higher above a larger one (the same lens)."""
    w, h = size
    tw, th = table_mm
    lift = tw / TABLE_MM[0]
    cam = Camera(w=w, h=h, px_per_mm=min(w / tw, h / th), height_mm=float(rng.uniform(900, 1300)) * lift,
                 target_mm=(tw / 2, th / 2), tilt_deg=float(rng.uniform(0, 5)),
                 tilt_dir_deg=float(rng.uniform(0, 360)), roll_deg=float(rng.uniform(-2, 2)))
    corners = np.array([[0, 0], [tw, 0], [tw, th], [0, th]], float)
    for _ in range(40):  # shrink until the table (and a 2% border) is in the frame
        px = cam.project(corners)
        if (px[:, 0] >= 0.02 * w).all() and (px[:, 0] <= 0.98 * w).all() \
                and (px[:, 1] >= 0.02 * h).all() and (px[:, 1] <= 0.98 * h).all():
            break
        cam = replace(cam, px_per_mm=cam.px_per_mm * 0.97)
    return cam


def camera_profile(cam: Camera, table_mm: tuple[float, float], name: str) -> TableProfile:
    """The calibration profile of a footage camera.

    The renderer's pixel coordinates put pixel (0, 0)'s centre at (0.5, 0.5); OpenCV's (the
    profile's) at (0, 0): the homography includes that half-pixel shift. No lens distortion.
    """
    shift = np.array([[1, 0, -0.5], [0, 1, -0.5], [0, 0, 1]], float)
    to_px = shift @ cam.table_homography()
    f = cam.px_per_mm * cam.height_mm
    K = [[f, 0.0, cam.w / 2 - 0.5], [0.0, f, cam.h / 2 - 0.5], [0.0, 0.0, 1.0]]
    H = np.linalg.inv(to_px)
    return TableProfile(name=name, image_size=(cam.w, cam.h), camera_matrix=K, dist_coeffs=[0.0] * 5,
                        homography=(H / H[2, 2]).tolist(), table_size_mm=table_mm)


def _setup(rules, seed: int, size: tuple[int, int], appearance: str):
    """The seed's draws before the hands: ``(rng, surface, tile style, table mm, camera)``; the rng goes on
    to draw the effects. One place, so the size check sees the camera the render uses."""
    rng = np.random.default_rng([seed, 7])
    surfaces, styles = appearance_choices(appearance)
    surface = str(surfaces[rng.integers(len(surfaces))])
    style = T.make_style(str(styles[rng.integers(len(styles))]), rng)
    table_mm = footage_table_mm(rules.set_max)
    return rng, surface, style, table_mm, footage_camera(rng, size, table_mm)


def footage_tile_px(rules, seed: int, size: tuple[int, int], appearance: str = "train") -> float:
    """The long side (px, at the table's centre, as its profile measures it) of the tiles of a footage of
    ``rules`` (a :class:`engine.ruleset.RuleSet`), ``seed`` and ``appearance`` at ``size`` (W, H px)."""
    _, _, _, table_mm, cam = _setup(rules, seed, size, appearance)
    return camera_profile(cam, table_mm, "size check").tile_px_at_centre()


def check_footage_size(rules, seed: int, size: tuple[int, int], appearance: str = "train") -> None:
    """Refuse a frame size whose footage would have tiles under :data:`calibration.profile.MIN_TILE_PX`
    (their profile would be refused on load, and `calibrate table` refuses such a table: helper-195's
    160x90 render had 6.6 px tiles); the message names the smallest size of the same shape that works, to
    the even pixel the frame's proportions round to.

    Raises:
        ValueError: one line, naming the tile length and that size (W x H px, both even).
    """
    px = footage_tile_px(rules, seed, size, appearance)
    if px >= MIN_TILE_PX:
        return
    w, h = size
    # tiles grow in proportion to the frame, but the camera's fit to the frame moves in 3 % steps: step up
    # from the proportional guess until the tiles are long enough
    k = MIN_TILE_PX / px
    while True:
        bigger = (2 * math.ceil(w * k / 2), 2 * math.ceil(h * k / 2))
        if footage_tile_px(rules, seed, bigger, appearance) >= MIN_TILE_PX:
            break
        k *= 1.01
    raise ValueError(f"--size {w}x{h} makes this footage's tiles {px:.1f} px long, under the {MIN_TILE_PX:g} px "
                     f"whose pips can be read (its profile would be refused): give --size {bigger[0]}x{bigger[1]} or "
                     "larger (of that shape; the tiles' length grows with it)")


def _script_hands(script: Script, rules, logs: list[list], fps: float) -> list[dict]:
    """Script every event of every hand; returns per hand the log (with t/frame) and events."""
    out = []
    seats_done: list[list] = []
    for number, log in enumerate(logs, start=1):
        ctx = next_context(rules, replay_match(rules, seats_done).games, number)
        deal_ev = log[0]
        dealt = {t.key for tiles in deal_ev.hands.values() for t in tiles}
        undealt = [t.key for t in full_set(rules.set_max) if t.key not in dealt]
        order = np.random.default_rng([int(script.rng.integers(2**31)), number]).permutation(len(undealt))
        dealt_at = len(script.frames)  # the frame the dealt table first shows (helper-84: hand 2's was 0)
        script.deal({s: [t.key for t in tiles] for s, tiles in deal_ev.hands.items()}, [undealt[i] for i in order])
        st = replay(rules, log, ctx)
        placements = {o.index: o.placement for o in st.outcomes if o.placement is not None}
        timed = [deal_ev.model_copy(update={"frame": dealt_at, "t": round(dealt_at / fps, 4)})]
        for i, ev in enumerate(log[1:], start=1):
            script.think()
            if isinstance(ev, Play):
                pl = placements[i]
                frame, _ = script.play(ev.seat, pl.tile.a, pl.tile.b, None if pl.end == "lead" else pl.end,
                                       pl.became_spinner)
                timed.append(ev.model_copy(update={"frame": frame, "t": round(frame / fps, 4),
                                                   "tile": pl.tile, "oriented": True}))
            elif isinstance(ev, Draw):
                frame = 0
                for t in ev.tiles or []:
                    frame = script.draw(ev.seat, t.a, t.b)
                timed.append(ev.model_copy(update={"frame": frame, "t": round(frame / fps, 4)}))
            elif isinstance(ev, Pass):
                frame = script.knock(ev.seat)
                timed.append(ev.model_copy(update={"frame": frame, "t": round(frame / fps, 4)}))
            else:
                raise ValueError(f"footage cannot film a {ev.type} event")
            script.maybe_bump(BUMP_CHANCE)
        timed += _script_reveals(script, rules, timed, ctx, fps)
        script.hold(script.timing.last_still)
        out.append({"hand": number, "context": ctx, "log": timed, "fallbacks": script.planner.fallbacks})
        seats_done.append(log)
    return out


def _script_reveals(script: Script, rules, timed: list, ctx, fps: float) -> list[Reveal]:
    """After a domino or a lock every seat with tiles left turns them face up (seed rule texts
    count the tiles left in hand), starting left of the last player; returns the timed reveals."""
    st = replay(rules, timed, ctx)
    if st.result is None or st.result.kind not in ("domino", "locked"):
        return []
    order = list(st.order)
    last = st.last_player or order[0]
    out = []
    for k in range(1, len(order) + 1):
        seat = order[(order.index(last) + k) % len(order)]
        script.think(0.4)
        frame, tiles = script.reveal(seat)
        if tiles:
            out.append(Reveal(seat=seat, tiles=[Tile(a, b) for a, b in tiles], frame=frame, t=round(frame / fps, 4)))
    return out


def _hand_truth(rules, hand: dict) -> dict:
    """Plays, passes, draws and the result of one scripted hand, from the engine's replay."""
    st = replay(rules, hand["log"], hand["context"])
    plays, passes, draws, reveals = [], [], [], []
    for out in st.outcomes:
        ev = out.event
        base = {"hand": hand["hand"], "index": out.index, "frame": ev.frame, "t": ev.t,
                "seat": getattr(ev, "seat", None)}
        if out.placement is not None:
            p = out.placement
            plays.append({**base, "tile": [p.tile.a, p.tile.b], "end": p.end, "end_value": p.end_value,
                          "points": out.points, "flags": [f.kind for f in out.flags],
                          "mismatched_end": not p.matched, "became_spinner": p.became_spinner,
                          "open_ends": out.open_ends})
        elif isinstance(ev, Pass):
            passes.append({**base, "flags": [f.kind for f in out.flags]})
        elif isinstance(ev, Draw):
            draws.append({**base, "tiles": [[t.a, t.b] for t in ev.tiles or []]})
        elif isinstance(ev, Reveal):
            reveals.append({**base, "tiles": [[t.a, t.b] for t in ev.tiles]})
    r = st.result
    result = None if r is None else {"kind": r.kind, "winner": r.winner_seat, "side": r.winner_side,
                                     "awards": r.awards, "remaining": r.remaining, "note": r.note}
    return {"plays": plays, "passes": passes, "draws": draws, "reveals": reveals, "result": result,
            "scores": st.scores}


def _keyframe(script: Script, cam: Camera, index: int, fps: float, reason: str) -> dict:
    """Every tile of frame ``index``: polygon (4, 2) px, pips, face, where it lies, unoccluded."""
    fr = script.frames[index]
    arm = arm_px(cam, fr.arm) if fr.arm is not None else None
    tiles = []
    items = list(script.versions[fr.version].items())
    if fr.held is not None:
        items.append((fr.held_id, (fr.held, "held")))
    for tid, (p, where) in items:
        poly = tile_top_px(cam, p, fr.lift_mm if where == "held" else 0.0)
        tiles.append({"id": tid, "polygon": np.round(poly, 2).tolist(), "pips": [p.a, p.b],
                      "face": "up" if p.face_up else "down", "where": where,
                      "pose_mm": [round(p.x_mm, 3), round(p.y_mm, 3), round(p.angle_deg, 3)],
                      "unoccluded": round(1.0 - covered_fraction(poly, arm), 4)})
    return {"frame": index, "t": round(index / fps, 4), "reason": reason, "tiles": tiles,
            "arm_polygon": None if arm is None else np.round(arm, 1).tolist()}


def make_footage(rules_name: str, seed: int, out_dir: str | Path, fps: float = 15.0,
                 size: tuple[int, int] = (1280, 720), appearance: str = "train", inject_mismatch: int = 0,
                 hands: int = 1, name: str = "footage", keyframe_every_s: float = 2.0,
                 command: str | None = None, progress: bool = False) -> dict[str, Path]:
    """Render a video of ``hands`` hands of ``rules_name`` and its ground truth.

    Args:
        rules_name: a rule set preset or TOML path (``engine.ruleset.load_ruleset``).
        seed: master seed (hands, appearance, camera, timings, bumps).
        out_dir: output folder (created).
        fps: frames per second.
        size: (width, height) of the frames, pixels.
        appearance: ``train`` (the training surfaces and tile styles) or ``test`` (held out).
        inject_mismatch: mismatched-end plays per hand.
        hands: consecutive hands of a match (the table is cleared between them); 0: the whole match.
        name: the video's file stem.
        keyframe_every_s: seconds between periodic keyframes (rest frames are always keyframes).
        command: the command line to record in the ground truth (default: the equivalent CLI).

    Returns:
        {"video": ..., "ground_truth": ..., "profile": ...} paths.

    Raises:
        ValueError: a folder or name that is not UTF-8 text (OpenCV's writer cannot take it), an
            earlier render's files in the way, a bad rule set, a ``size`` whose tiles would be under
            :data:`calibration.profile.MIN_TILE_PX` (:func:`check_footage_size`).
        OSError: the folder cannot take the files (a full disk: ``errno.ENOSPC``); nothing in
            ``out_dir`` was replaced.
        VideoWriterError: OpenCV cannot encode mp4v video although the folder takes files.

    The three files are written in a hidden ``.NAME.partial`` folder and moved into ``out_dir``
    together at the end: an interrupted render (Ctrl-C) leaves the folder's earlier footage as it
    was, never a video with another video's ground truth.
    """
    out = Path(out_dir)
    opencv_name(out / f"{name}.mp4")  # before the folder is made: such a name would crash OpenCV's writer
    check_footage_size(load_ruleset(rules_name), seed, size, appearance)
    out.mkdir(parents=True, exist_ok=True)
    cmd = command or (f"dominocast datasets footage --rules {shlex.quote(rules_name)} --seed {seed} "
                      f"--out {shlex.quote(str(out))} --fps {fps:g} --size {size[0]}x{size[1]} "
                      f"--appearance {appearance} --mismatch {inject_mismatch} --hands {hands} --name {name}")
    _check_footage_folder(out, name)
    work = out / f".{name}.partial"
    _remove(work)
    try:
        made = _render(rules_name, seed, work, fps, size, appearance, inject_mismatch, hands, name,
                       keyframe_every_s, cmd, progress)
        done = {}
        for kind, path in made.items():
            done[kind] = out / path.name
            os.replace(path, done[kind])
        return done
    finally:
        _remove(work)


def _remove(path: Path) -> None:
    """Delete ``path``, a folder or a file (an earlier render's leftover), if it is there."""
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path, ignore_errors=True)
    else:
        path.unlink(missing_ok=True)


def _read_ground_truth(out: Path) -> dict | None:
    """The JSON object in ``out/ground_truth.json``, or None when there is none or it is no JSON object."""
    gt = out / "ground_truth.json"
    if not gt.is_file():
        return None
    try:
        return read_json_object(gt, "ground truth")
    except InputFileError:
        return None


def earlier_footage(out: str | Path) -> dict | None:
    """The ground truth of an earlier render in the folder ``out`` (format :data:`FORMAT`), which a render
    there replaces with its video and profile; None when the folder holds none."""
    gt = _read_ground_truth(Path(out))
    return gt if gt is not None and gt.get("format") == FORMAT else None


def footage_in(folder: str | Path) -> list[str]:
    """The files of an earlier footage render in ``folder`` (its video, ``ground_truth.json`` and
    ``profile.json``, those present), by name; [] when its ground truth is none of ours."""
    out = Path(folder)
    earlier = earlier_footage(out)
    if earlier is None:
        return []
    names = (str(earlier.get("video", "")), "ground_truth.json", "profile.json")
    return [n for n in names if n and (out / n).exists()]


def _write_problem(folder: Path) -> OSError | None:
    """Why files cannot be written in ``folder`` (a full disk, a quota, a read-only mount), found by writing
    and removing a :data:`PROBE_BYTES` file; None when that works. OpenCV's video writer reports only
    that it failed, which read as a codec problem on a full disk (helper-187)."""
    probe = folder / ".write-probe"
    try:
        with probe.open("wb") as f:
            f.write(bytes(PROBE_BYTES))
            f.flush()
            os.fsync(f.fileno())  # a file system that allocates late says it here
    except OSError as exc:
        return exc
    finally:
        with contextlib.suppress(OSError):
            probe.unlink(missing_ok=True)
    return None


def _video_failed(video: Path, why: str) -> Exception:
    """The error for a video OpenCV could not write (``why``: what went wrong): the disk's
    :func:`_write_problem` when there is one (an OSError naming the video), else a :class:`VideoWriterError`."""
    problem = _write_problem(video.parent)
    if problem is not None:
        return OSError(problem.errno or errno.EIO, problem.strerror or str(problem), str(video))
    return VideoWriterError(f"{why}: OpenCV's video writer has no working mp4v (MPEG-4 Part 2) encoder here; "
                            "check the opencv-python-headless install")


def _check_footage_folder(out: Path, name: str) -> None:
    """Refuse, before rendering, a folder the footage files cannot be moved into, one whose
    ground truth belongs to a video of another name (it would be replaced, the video kept), or one
    holding a video, ground truth or profile of the same name that no earlier render wrote.

    Raises:
        ValueError: one line saying what is in the way.
    """
    for target in (out / f"{name}.mp4", out / "ground_truth.json", out / "profile.json"):
        if target.is_dir():
            raise ValueError(f"{target} is a folder: the footage writes a file of that name")
    gt = out / "ground_truth.json"
    earlier = _read_ground_truth(out)  # the ground truth of an earlier render into this folder
    if earlier is not None:
        video = earlier.get("video")
        if video not in (None, f"{name}.mp4") and (out / str(video)).exists():
            raise ValueError(f"{out} holds {video} with its ground truth and profile: choose another folder "
                             f"(--out) or --name {Path(str(video)).stem}")
    # only an earlier render's own files are replaced (helper-92: a recording named footage.mp4 and a
    # table's calibration in profile.json were overwritten without a word)
    ours = earlier is not None and earlier.get("format") == FORMAT
    foreign = [t.name for t in (gt, out / "profile.json") if t.exists() and not ours]
    video_path = out / f"{name}.mp4"
    if video_path.exists() and not (ours and earlier.get("video") == video_path.name):
        foreign.append(video_path.name)
    if foreign:
        raise ValueError(f"{out} holds {' and '.join(foreign)} but no ground truth of an earlier footage render "
                         f"naming {video_path.name}: choose another folder (--out) or move "
                         f"{'it' if len(foreign) == 1 else 'them'}")


def _render(rules_name: str, seed: int, out: Path, fps: float, size: tuple[int, int], appearance: str,
            inject_mismatch: int, hands: int, name: str, keyframe_every_s: float, cmd: str,
            progress: bool) -> dict[str, Path]:
    """:func:`make_footage`'s work, into the (new) folder ``out``; ``cmd`` goes into the ground truth."""
    rules = load_ruleset(rules_name)
    out.mkdir(parents=True, exist_ok=True)
    rng, surface, style, table_mm, cam = _setup(rules, seed, size, appearance)
    effects = replace(sample_effects(rng), glare=0, jpeg_quality=100, motion_px=0.0,
                      blur_sigma=float(rng.uniform(0, 0.8)), noise_sigma=float(rng.uniform(0, 2.0)))
    ang = rng.uniform(0, 2 * np.pi)
    shadow = (float(3 * np.cos(ang)), float(3 * np.sin(ang)), float(rng.uniform(0.2, 0.45)))
    scene_seed = int(rng.integers(0, 2**31 - 1))
    # a game board's grid runs along the table (the default follows the first tile, which moves)
    ex = cam.project(np.array([[0.0, 0.0, 0.0], [100.0, 0.0, 0.0]]))
    grid_angle = float(np.degrees(np.arctan2(ex[1, 1] - ex[0, 1], ex[1, 0] - ex[0, 0])))
    box = (0.0, 0.0) + table_mm
    colours = {s: Ly.arm_occluder(np.random.default_rng([seed, i]), box, (0.0, 0.0)).colour
               for i, s in enumerate("NESW")}

    logs = simulate_match(rules, seed, hands=hands, mismatches=inject_mismatch)
    script = Script(table_mm, fps, np.random.default_rng([seed, 11]), colours)
    scripted = _script_hands(script, rules, logs, fps)
    n_frames = len(script.frames)

    # Render: each table version once, composite the arm; identical frames reused.
    video = out / f"{name}.mp4"
    writer = cv2.VideoWriter(opencv_name(video), cv2.VideoWriter_fourcc(*"mp4v"), fps, size)
    if not writer.isOpened():
        raise _video_failed(video, f"cannot open {video} for writing")
    comp = Compositor(cam, style, effects, shadow)
    cached: tuple[int, np.ndarray, np.ndarray] | None = None  # version, raw table, finished still
    last: tuple[object, np.ndarray] | None = None
    renders = 0
    with quiet_opencv():  # a frame the writer cannot write is a WARN line each (464 on a full disk)
        for i, fr in enumerate(script.frames):
            if cached is None or cached[0] != fr.version:
                placements = [p for p, _ in script.versions[fr.version].values()]
                raw, _ = render_scene(SceneSpec(cam, surface, style, placements, [], None, shadow, scene_seed,
                                                   grid_angle_deg=grid_angle))
                cached = (fr.version, raw, comp.finish(raw))
                renders += 1
            if last is not None and last[0] is fr:
                img = last[1]
            elif fr.arm is None and fr.held is None:
                img = cached[2]
            else:
                img = comp.compose(cached[1], fr.arm, fr.held, fr.lift_mm)
            last = (fr, img)
            writer.write(img)
            if progress and i % 100 == 0:
                print(f"frame {i}/{n_frames}", flush=True)
        writer.release()
        # the writer drops a frame it cannot write (a disk filling up) with that warning only: the
        # container's frame count tells
        cap = cv2.VideoCapture(opencv_name(video))
        written = int(cap.get(cv2.CAP_PROP_FRAME_COUNT)) if cap.isOpened() else 0
        cap.release()
    if written != n_frames:
        raise _video_failed(video, f"{video} holds {written} of its {n_frames} frames")

    # Ground truth.
    every = max(1, int(round(keyframe_every_s * fps)))
    key = {i: "periodic" for i in range(0, n_frames, every)}
    key.update({i: "rest" for i in script.rest_frames})
    truths = [_hand_truth(rules, h) for h in scripted]
    gt = {
        # the rule set's every parameter: a file given as --rules ./all-fives is not the preset of its name
        # (helper-151: the bench reloaded the preset); a name's bytes that are not UTF-8 shown as U+FFFD
        "format": FORMAT, "command": readable(cmd), "rules": readable(rules.name),
        "rule_params": rules.model_dump(mode="json"), "seed": seed, "appearance": appearance,
        "fps": fps, "frame_size": list(size), "n_frames": n_frames, "duration_s": round(n_frames / fps, 3),
        "video": video.name, "table_size_mm": list(table_mm), "surface": surface, "tile_style": style.name,
        "pixel_convention": "polygons: renderer labels, pixel (0,0) spans [0,1]x[0,1] (subtract 0.5 for OpenCV "
                            "centres); profile.json: OpenCV centres",
        "camera": {"px_per_mm": cam.px_per_mm, "height_mm": cam.height_mm, "target_mm": list(cam.target_mm),
                   "tilt_deg": cam.tilt_deg, "tilt_dir_deg": cam.tilt_dir_deg, "roll_deg": cam.roll_deg,
                   "k1": cam.k1, "table_to_px": cam.table_homography().tolist()},
        "effects": {"gain": effects.gain, "gradient": list(effects.gradient), "temperature": effects.temperature,
                    "blur_sigma": effects.blur_sigma, "noise_sigma": effects.noise_sigma},
        "shadow_mm": list(shadow),
        "seat_edges": {"N": "y=0", "E": "x=W", "S": "y=H", "W": "x=0"},
        "hands": [{"hand": h["hand"], "events": [e.model_dump(mode="json", exclude_none=True) for e in h["log"]],
                   "context": {"leader": h["context"].leader, "required_lead": None if h["context"].required_lead
                               is None else [h["context"].required_lead.a, h["context"].required_lead.b]},
                   "layout_fallbacks": h["fallbacks"], **{k: v for k, v in t.items()
                                                           if k in ("result", "scores")}}
                  for h, t in zip(scripted, truths)],
        "plays": [p for t in truths for p in t["plays"]],
        "passes": [p for t in truths for p in t["passes"]],
        "draws": [d for t in truths for d in t["draws"]],
        "reveals": [r for t in truths for r in t["reveals"]],
        "bumps": script.bumps,
        "keyframes": [_keyframe(script, cam, i, fps, key[i]) for i in sorted(key)],
        "table_renders": renders,
    }
    gt_path = out / "ground_truth.json"
    gt_path.write_text(json.dumps(gt, separators=(",", ":")) + "\n")
    prof = camera_profile(cam, table_mm, f"footage-{rules.name}-{seed}")
    prof_path = prof.save(out / "profile.json")
    return {"video": video, "ground_truth": gt_path, "profile": prof_path}
