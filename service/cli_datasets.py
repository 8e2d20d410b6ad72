"""``dominocast datasets``: build synthetic training data (see docs/generator.md)."""

from __future__ import annotations

import json
from pathlib import Path

import typer

from service.cli_common import (check_positive, check_scenes, check_seed, check_utf8, check_workers, console,
                                err_console, fail, first_missing, folder_option, make_folder, one_line, plural,
                                undo_partial)

datasets_app = typer.Typer(help="Synthetic datasets for the tile detector and the pip reader.",
                           no_args_is_help=True)


#: Largest frame (8K UHD) of a build or footage: a frame is rendered whole in memory.
MAX_FRAME_SIZE = (7680, 4320)


def _check_not_too_large(w: int, h: int, given: str) -> None:
    """A rendered frame of ``w`` x ``h`` px (``given``: the options as typed) no larger than 8K."""
    if w > MAX_FRAME_SIZE[0] or h > MAX_FRAME_SIZE[1]:
        raise fail(f"{given} is larger than a camera's frame: at most {MAX_FRAME_SIZE[0]}x{MAX_FRAME_SIZE[1]}")


@datasets_app.command("build")
def build_cmd(
    out_text: str = typer.Option(..., "--out", help="Output folder (created)."),
    scenes: int = typer.Option(1000, "--scenes", help="Number of rendered frames."),
    seed: int = typer.Option(0, "--seed", help="Master seed; same seed, same bytes."),
    imgsz: int = typer.Option(320, "--imgsz", help="Detector window side, pixels (the shipped detector's: 320)."),
    workers: int = typer.Option(2, "--workers", help="Rendering processes."),
    width: int = typer.Option(1280, "--width", help="Rendered frame width, pixels."),
    height: int = typer.Option(720, "--height", help="Rendered frame height, pixels."),
) -> None:
    """Render scenes and write the OBB detection and pip classification datasets."""
    from datasets.build import CLOSE_UP_SHARE, DATASET_PARTS, build
    from datasets.footage import footage_in

    out = folder_option("--out", out_text)
    check_scenes(scenes)
    check_seed(seed)
    if width < 64 or height < 64:
        raise fail(f"--width and --height must be at least 64 pixels, got {width}x{height}")
    _check_not_too_large(width, height, f"--width {width} --height {height}")
    if imgsz < 64 or imgsz % 32:
        raise fail("--imgsz must be a multiple of 32, at least 64")
    if imgsz > min(width, height):
        raise fail(f"--imgsz {imgsz} is larger than the frame ({width}x{height})")
    check_workers(workers)
    old = [p for p in DATASET_PARTS if (out / p).exists()]
    if old:  # a build writes file by file: into an earlier one, stale files of it would stay mixed in
        raise fail(f"--out {out} already holds a dataset ({', '.join(old)}); choose a new folder or delete it")
    footage_files = footage_in(out)
    if footage_files:  # helper-195: a dataset was mixed in with a `datasets footage` video and its ground truth
        raise fail(f"--out {out} holds a footage ({', '.join(footage_files)}), not a dataset: choose a new "
                   "folder or move them")
    made = first_missing(out)
    make_folder("--out", out)
    try:
        summary = build(out, scenes, seed=seed, imgsz=imgsz, workers=workers, frame_size=(width, height),
                        progress=True)
    except KeyboardInterrupt:
        left = undo_partial(out, DATASET_PARTS, made)
        err_console.print(f"interrupted: no dataset written; {left}", highlight=False, markup=False, soft_wrap=True)
        raise typer.Exit(code=130) from None
    except OSError as exc:  # a full disk: what was written is half a dataset
        left = undo_partial(out, DATASET_PARTS, made)
        raise fail(f"--out {out}: {exc.strerror or exc}; no dataset written, {left}") from None
    for split, c in summary["counts"].items():
        console.print(f"{split}: {plural(c['scenes'], 'scene')}, {plural(c['detect_images'], 'detector image')}, "
                      f"{plural(c['halves'], 'half', 'halves')}")
    empty = [f"{split} split ({plural(c['scenes'], 'scene')})" for split, c in summary["counts"].items()
             if c["scenes"] and not c["detect_images"]]
    if empty:  # helper-187: --scenes 10 gave val no detector image without a word: the detector would train unchecked
        console.print(f"note: the {' and the '.join(empty)} hold{'s' if len(empty) == 1 else ''} no detector image: "
                      f"{CLOSE_UP_SHARE:.0%} of the scenes are close-ups for the pip reader only, and a frame whose "
                      "tiles cannot be scaled into a detector window gives none; build more scenes (each split gets "
                      f"1 scene in 10) or take another --seed before training the detector on {out}",
                      markup=False, highlight=False, soft_wrap=True)
    if scenes < 10:
        console.print("note: scene i goes to val when i % 10 == 8 and to the held-out test split when i % 10 == 9; "
                      "build 10 scenes or more to have both", markup=False, highlight=False)
    console.print(f"wrote {out}")


# ---- footage (datasets/footage.py, docs/footage.md) ------------------------------------
#: Most mismatched-end plays injected per hand.
MAX_MISMATCH = 3
#: --fps range: below 2 an arm's reach (about a second) has no frames of its own.
FOOTAGE_FPS_RANGE = (2.0, 120.0)

@datasets_app.command("footage")
def footage(
    rules: str = typer.Option(..., "--rules", help="Rule set preset or TOML file."),
    seed: int = typer.Option(0, "--seed", help="Master seed; same seed, same video and ground truth."),
    out_text: str = typer.Option(..., "--out", help="Output folder (created)."),
    fps: float = typer.Option(15.0, "--fps", help="Frames per second."),
    size: str = typer.Option("1280x720", "--size", help="Frame size WxH, pixels."),
    appearance: str = typer.Option("train", "--appearance", help="train, or test (held-out surface and style)."),
    mismatch: int = typer.Option(0, "--mismatch", help="Mismatched-end plays injected per hand."),
    hands: int = typer.Option(1, "--hands", help="Consecutive hands of a match in one video (0: the whole match)."),
    name: str = typer.Option("footage", "--name", help="Video file stem (<name>.mp4)."),
) -> None:
    """Render a video of whole hands being played, with ground_truth.json and profile.json."""
    import time

    from datasets.footage import VideoWriterError, check_footage_size, earlier_footage, make_footage

    out = folder_option("--out", out_text)

    try:
        w, h = (int(v) for v in size.lower().split("x"))
    except ValueError:
        raise fail(f"--size must be WxH, e.g. 1280x720 (got {size!r})") from None
    if w < 64 or h < 64 or w % 2 or h % 2:
        raise fail(f"--size needs even sides of at least 64 pixels, got {size!r}")
    _check_not_too_large(w, h, f"--size {w}x{h}")
    if appearance not in ("train", "test"):
        raise fail("--appearance must be train or test")
    check_positive("--fps", fps, "frames a second")  # nan and inf too
    if not FOOTAGE_FPS_RANGE[0] <= fps <= FOOTAGE_FPS_RANGE[1]:  # an arm's move must span frames; a file must be sane
        raise fail(f"--fps must be {FOOTAGE_FPS_RANGE[0]:g}-{FOOTAGE_FPS_RANGE[1]:g} frames a second, got {fps:g}")
    if not name or Path(name).name != name or name in (".", ".."):
        raise fail(f"--name must be a plain file stem (no folders), got {name!r}")  # it stays inside --out
    check_utf8("--name", name)
    if hands < 0 or mismatch < 0:
        raise fail("--hands and --mismatch must be at least 0")
    if mismatch > MAX_MISMATCH:  # more bogus plays than an umpire would let pass is no game
        raise fail(f"--mismatch must be 0-{MAX_MISMATCH} mismatched ends per hand, got {mismatch}")
    check_seed(seed)
    from engine.ruleset import load_ruleset

    try:  # before --out is made: a refused rule set, or a --size too small for readable tiles, leaves no folder
        ruleset = load_ruleset(rules)
        check_footage_size(ruleset, seed, (w, h), appearance)
    except (FileNotFoundError, ValueError) as exc:
        raise fail(str(exc)) from None
    made = first_missing(out)
    make_folder("--out", out)
    earlier = earlier_footage(out)
    t0 = time.perf_counter()
    # make_footage moves its files into --out only once all are written: on any failure --out holds what it
    # held, less the folders made for it (helper-94: Ctrl-C, helper-187: a full disk left them behind)
    try:
        paths = make_footage(rules, seed, out, fps=fps, size=(w, h), appearance=appearance,
                             inject_mismatch=mismatch, hands=hands, name=name)
    except (FileNotFoundError, ValueError, VideoWriterError) as exc:
        undo_partial(out, (), made)
        raise fail(str(exc)) from None
    except OSError as exc:  # helper-187: a full disk was a traceback blaming the codec
        left = undo_partial(out, (), made)
        raise fail(f"--out {out}: {exc.strerror or exc}; no footage written, {left}") from None
    except KeyboardInterrupt:
        left = undo_partial(out, (), made)
        err_console.print(f"interrupted: no footage written; {left}", highlight=False, markup=False, soft_wrap=True)
        raise typer.Exit(code=130) from None
    for kind, path in paths.items():
        console.print(f"{kind}: {path}")
    gt = json.loads(Path(paths["ground_truth"]).read_text())
    if earlier is not None:  # helper-187: another seed's video, and the calibration made for it, went without a word
        console.print(one_line(_replaced(out, earlier, gt)), highlight=False, markup=False, soft_wrap=True)
    played = len(gt["hands"])
    overlapped = sum(h.get("layout_fallbacks", 0) for h in gt["hands"])
    if overlapped:  # helper-173: a double-twelve line of play overlapped 25 tiles without a word
        console.print(f"note: {plural(overlapped, 'play')} of {len(gt['plays'])} could not be laid clear of the other "
                      f"tiles on the {gt['table_size_mm'][0]:g} x {gt['table_size_mm'][1]:g} mm table and overlap "
                      "them (layout_fallbacks in the ground truth): a review may misread those tiles",
                      highlight=False, soft_wrap=True)
    if hands > played:  # helper-149: --hands 40 gave 10 without a word
        console.print(f"note: the match was won after {plural(played, 'hand')}; the video holds "
                      f"{'it' if played == 1 else 'them'}, not {hands}", highlight=False)
    from calibration.profile import TableProfile
    from vision.recognize import READABLE_TILE_PX
    from vision.rules_fit import READ_SET_MAX, SET_WORDS

    tile_px = TableProfile.load(paths["profile"]).tile_px_at_centre()
    if tile_px < READABLE_TILE_PX:  # helper-92: a 100x100 render went through, and its review misread
        console.print(f"note: tiles are {tile_px:.0f} px long in this footage; below {READABLE_TILE_PX:.0f} px a "
                      "review misreads pips: a larger --size gives readable tiles", highlight=False)
    if ruleset.set_max > READ_SET_MAX:  # helper-187: a double-nine video was made that no review can read
        n = ruleset.set_max
        console.print(f"note: {gt['rules']} plays a double-{SET_WORDS.get(n, n)} set (set_max = {n}), but the "
                      f"review reads tiles of sets up to double {SET_WORDS[READ_SET_MAX]} (pips 0..{READ_SET_MAX}) "
                      "only: `dominocast review` refuses this rule set, and without it misreads the tiles",
                      highlight=False, markup=False, soft_wrap=True)
    console.print(f"done in {time.perf_counter() - t0:.1f} s")


def _replaced(out: Path, earlier: dict, gt: dict) -> str:
    """The line saying which footage (``earlier``: its ground truth) a render (``gt``) replaced in ``out``,
    and that a table calibration made for it does not fit the new video when the camera moved."""
    line = (f"replaced the earlier footage in {out} ({earlier.get('video', '?')}: {earlier.get('rules', '?')}, "
            f"seed {earlier.get('seed', '?')})")
    if (earlier.get("camera"), earlier.get("frame_size")) != (gt["camera"], gt["frame_size"]):
        line += ("; its camera was another: a table calibration made for that video does not fit this one "
                 f"({out / 'profile.json'} does)")
    return line


def register(app: typer.Typer) -> None:
    """Add the ``datasets`` sub-command group to the main CLI."""
    app.add_typer(datasets_app, name="datasets")
