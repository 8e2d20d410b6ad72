"""``dominocast record``: read game records (JSON or text notation); see docs/record-format.md."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Optional

import typer
from rich.markup import escape

from engine.files import InputFileError, read_input, readable, write_text_atomic
from engine.record import (MAX_RECORD_BYTES, HandRecord, MatchRecord, RecordError, defaulted_params, from_json,
                           hand_name, is_event_lines, rederive, to_json)
from engine.record_text import read_text, write_text
from service.cli_common import (check_distinct_outputs, check_out_file, check_replaceable, err_console, fail,
                                is_review_page, path_parser)
from service.finality import score_doubt
from service.views import rows_in_turn_order

record_app = typer.Typer(help="Game records: the JSON record and the text notation.", no_args_is_help=True)


#: JSON text: an object, or an array (``[]``, ``[{...``, ``[1, 2]``; a JSON record is an object, and
#: from_json says so); a notation file opens with tags such as ``[Event "..."]``.
_JSON_START = re.compile(r"\s*(\{|\[\s*([{\[\]\"\d-]|$))")


#: Video codecs (OpenCV FOURCC) that a ``.mp4`` may hold but browsers do not decode.
BROWSER_UNPLAYABLE = {"FMP4": "MPEG-4 Part 2 (FMP4)", "MP4V": "MPEG-4 Part 2 (mp4v)", "XVID": "MPEG-4 Part 2 (XVID)",
                      "DIVX": "MPEG-4 Part 2 (DIVX)", "MJPG": "Motion JPEG"}


def _decodes(video: Path) -> bool:
    """Whether OpenCV reads a frame of ``video``."""
    import cv2

    cap = cv2.VideoCapture(str(video))
    try:
        return bool(cap.isOpened() and cap.read()[0])
    finally:
        cap.release()


def _codec(video: Path) -> str:
    """The video's FOURCC as OpenCV reads it, upper case ("" when it cannot be opened)."""
    import cv2

    cap = cv2.VideoCapture(str(video))
    try:
        code = int(cap.get(cv2.CAP_PROP_FOURCC)) if cap.isOpened() else 0
    finally:
        cap.release()
    return code.to_bytes(4, "little").decode("ascii", "replace").upper() if code else ""


def load_record(path: Path) -> MatchRecord:
    """Read a JSON record (text starting with ``{``) or a text notation file (``-``: standard input).

    Raises:
        RecordError: unreadable file, or a record that does not read (the message names the file).
    """
    name = "standard input" if str(path) == "-" else str(path)
    try:
        if str(path) == "-":  # `... | dominocast record show -`
            import sys

            data = sys.stdin.buffer.read(MAX_RECORD_BYTES + 1)
            if len(data) > MAX_RECORD_BYTES:
                raise RecordError(f"{name} gave more than {MAX_RECORD_BYTES} bytes: a record is at most that")
        else:
            data = read_input(path, "record file", limit=MAX_RECORD_BYTES)
        # a byte-order mark, as Notepad writes one, is fine; UTF-16 is what PowerShell's `>` writes (helper-106)
        text = data.decode("utf-16") if data[:2] in (b"\xff\xfe", b"\xfe\xff") else data.decode("utf-8-sig")
    except UnicodeDecodeError:
        if b"\x00" not in data[:4096]:  # text in another encoding (helper-105: Latin-1 was "a video?")
            raise RecordError(f"{name}: not UTF-8 text: save the record as UTF-8") from None
        raise RecordError(f"{name}: not a text file (a video or a picture?): a record is JSON or text "
                          "notation") from None
    except InputFileError as exc:
        raise RecordError(str(exc)) from None
    except OSError as exc:
        raise RecordError(f"{name}: cannot read: {exc.strerror or exc}") from None
    doubts: list[str] = []  # a notation that looks cut off at a line end: said, the rest still shown
    if text.lstrip()[:14].lower().startswith(("<!doctype html", "<html")):  # its first line was quoted whole
        raise RecordError(f"{name}: a web page, not a record (a report page shows a record: give that, "
                          "e.g. a review's record.json beside its report.html)")
    try:
        record = from_json(text) if _JSON_START.match(text) else read_text(text, doubts)
    except RecordError as exc:
        raise RecordError(f"{name}: {exc}{_what_it_is(text)}") from None
    for doubt in doubts:
        err_console.print(escape(f"warning: {name}: {doubt}"), highlight=False, soft_wrap=True)
    missing = defaulted_params(record)
    if missing:  # said, not refused: a record written before a parameter existed lacks it too
        err_console.print(escape(f"note: {name}: the rules lack {', '.join(missing)}: the engine's defaults are used"),
                          highlight=False, soft_wrap=True)
    return record


def _what_it_is(text: str) -> str:
    """A hint for the files people take for records: a review's event log, a script to score, a footage's
    ground truth, a calibration profile (the last two helper-253: "format is None")."""
    lines = text.lstrip().splitlines()
    if is_event_lines(text):
        return " (this is a review's event log, one row per line: its record is record.json beside it)"
    if any(line.startswith(("rules:", "hands:")) for line in lines[:20]):
        return " (this is a script: `dominocast score` reads it, and writes its record with --record)"
    if '"dominocast-footage' in text[:2000]:
        return " (this is the ground truth of a rendered footage: `dominocast review` its video for a record)"
    if '"homography"' in text[:20000] and '"image_size"' in text[:20000]:
        return " (this is a calibration profile: `dominocast calibrate show` prints it)"
    return ""


def write_outputs(record: MatchRecord, json_path: Path | None, text_path: Path | None) -> None:
    """Write the record as JSON and/or as text notation (missing folders above a file are created).

    Raises:
        RecordError: a file that cannot be written (the message names it).
    """
    for path, render in ((json_path, to_json), (text_path, write_text)):
        if path is None:
            continue
        try:
            write_text_atomic(path, render(record))
        except UnicodeEncodeError:
            raise RecordError(f"{path}: not written: the record holds text that is not UTF-8 (a lone surrogate, "
                              "as a JSON \\ud800 escape makes)") from None
        except OSError as exc:
            raise RecordError(f"{path}: cannot write: {exc.strerror or exc}") from None


@record_app.command("show")
def show(
    file: Path = typer.Argument(..., parser=path_parser,
                                help="a JSON record or a text notation file (- reads standard input)"),
    as_json: bool = typer.Option(False, "--json", help="print the JSON record instead of the notation"),
) -> None:
    """Print a record (JSON or text notation) as text notation, its scores recomputed from the logs."""
    try:
        record = rederive(load_record(file))
    except (RecordError, ValueError) as exc:  # ValueError: a log the engine cannot replay
        name = "standard input" if str(file) == "-" else str(file)
        raise fail(str(exc) if name in str(exc) else f"{name}: {exc}")
    print(to_json(record) if as_json else write_text(record), end="")
    doubt = score_doubt(record, "its " + ('"warnings"' if as_json else "[Warning] tags") + " at the top")
    if doubt:  # said under the standings it doubts, on stderr: the notation printed stays a record to read back
        err_console.print(doubt, highlight=False, markup=False, soft_wrap=True)


def _review_video(folder: Path) -> Path | None:
    """The annotated video of the review whose folder ``folder`` is (``record report``'s default
    ``--video``), or None."""
    from service.review_snapshots import is_review_folder
    from service.video_out import VIDEO_NAMES

    if not is_review_folder(folder):
        return None
    return next((folder / n for n in VIDEO_NAMES if (folder / n).is_file()), None)


@record_app.command("report")
def report(
    file: Path = typer.Argument(..., parser=path_parser, help="a JSON record or a text notation file"),
    out: Path = typer.Option(..., "--out", parser=path_parser, help="the HTML report to write (e.g. report.html)"),
    video: Optional[Path] = typer.Option(None, "--video", parser=path_parser,
                                         help="the game's video (a review's annotated.webm): "
                                              "each event's time then plays it from that moment; default the "
                                              "review's, when the record lies in its folder (or --review names it)"),
    review: Optional[Path] = typer.Option(None, "--review", parser=path_parser,
                                          help="the review's folder (events.jsonl, snapshots/) "
                                               "whose snapshots to show beside the events; default the record's "
                                               "folder when it is one"),
) -> None:
    """Write the report page of a record (a corrected one too): its review's warnings, timeline, score chart, flags,
    standings."""
    from engine.record import hand_name, replay_record, unfinished_hands
    from engine.timeline import corrections, timeline
    from service.read_flags import rows_as_read
    from service.report import (PLAYABLE_VIDEO_SUFFIXES, RECORD_PAGE, event_counts, plural, relative_link,
                                write_report)
    from service.review_snapshots import flags_off_the_record, is_review_folder, review_folder_problem

    check_out_file("--out", out, "record-report.html")  # report.html is a review's own page
    # helper-116: the review's own page plays its video; the corrected record's page did not (said once the
    # page is written: helper-124, the note came before a refusal)
    defaulted = video is None and (video := _review_video(review if review is not None else file.parent)) is not None
    check_distinct_outputs([("--out", out)], [("the record", file), ("the --video", video)])
    if is_review_page(out):  # the review's own page, with its notices and flags (helper-84)
        raise fail(f"--out {out} is a review's page, with its snapshots: a record's page would replace it; "
                   "choose another file")
    check_replaceable("--out", out, "a report page")
    if out.suffix.lower() not in (".html", ".htm"):  # helper-87: x.txt got a page a browser would not open
        raise fail(f"--out {out}: the report is an HTML page; give a file ending in .html (e.g. "
                   f"{out.with_suffix('.html')})")
    if video is not None and not video.is_file():
        raise fail(f"--video {video}: " + ("a folder, not a video file" if video.is_dir() else
                                            "not a regular file (a device or a pipe), not a video file"
                                            if video.exists() else "no such file"))
    if video is not None and video.suffix.lower() not in PLAYABLE_VIDEO_SUFFIXES:
        raise fail(f"--video {video}: not a video a page can play (one of {', '.join(PLAYABLE_VIDEO_SUFFIXES)})")
    if review is not None and review_folder_problem(review):
        raise fail(f"--review {review}: {review_folder_problem(review)}")
    codec = _codec(video) if video is not None else ""
    if video is not None and not defaulted and not _decodes(video):  # helper-132: a text file named .mp4 was linked
        err_console.print(f"warning: --video {video}: no frame can be read from it (not a video, or not yet whole?): "
                          "the page links it anyway", highlight=False)
    if codec in BROWSER_UNPLAYABLE:  # helper-85: linked without a word, and then it did not play
        err_console.print(f"warning: --video {video} is {BROWSER_UNPLAYABLE[codec]}, which most browsers do not "
                          "play: the page links it anyway (a review's annotated.webm plays)", highlight=False)
    try:
        record = rederive(load_record(file))
        match = replay_record(record)
    except (RecordError, ValueError) as exc:  # ValueError: a log the engine cannot replay
        raise fail(str(exc) if str(file) in str(exc) else f"{file}: {exc}")
    # an unsure read's mismatch is a question, as in the review; the seats as they play (not E N S W)
    rows = rows_as_read(rows_in_turn_order(list(timeline(match)), match.rules))
    gone = unfinished_hands(record)
    unfinished = (None if not gone else
                  f"{hand_name(gone[0][0], record).capitalize()} has no result: {hand_name(gone[0][1], record)} began "
                  "before it ended, so its end-of-hand points are not counted (end it with its result)." if len(gone) == 1
                  else f"{', '.join(hand_name(h, record) for h, _ in gone).capitalize()} have no result: the next hand "
                  "began before each ended, so their end-of-hand points are not counted (end each with its result).")
    plays = sum(r.get("type") == "play" for r in rows)
    draws = sum(r.get("count", 1) for r in rows if r.get("type") == "draw")
    passes = sum(r.get("type") == "pass" for r in rows)
    flags = sum(not f.get("notice") for r in rows for f in r.get("flags") or [])  # on the record's events only
    # the review's warnings, kept in its record: its page showed them above a score they put in doubt (helper-169)
    warned = [f"warning: {w}" for w in record.warnings]
    doubt = score_doubt(record, "the warnings below")
    title = record.event.title or file.stem
    names = " · ".join(f"{seat} {name}" for seat, name in record.players.items())
    # relative to the page, as the paths are named (not resolved: a page in a linked folder links beside
    # itself), so that the folder can move as a whole; '#' or '?' in a name escaped
    link = None if video is None else relative_link(video, out.parent)
    folder = review if review is not None else file.parent
    rows, snaps, reviewed = _review_pictures(rows, record, file, folder, review is not None, out.parent) \
        if is_review_folder(folder) else (rows, {}, None)
    # helper-179/185: "0 flags" beside a review that said 5: the camera's flags (a rule set that does not fit, an
    # unsure read, tiles after the hand's end, a play the engine refused) are in the review's events.jsonl only
    extra = None if reviewed is None else resolved_flags(flags_off_the_record(rows, reviewed), record)
    events_file = folder / "events.jsonl"
    flagged = plural(flags, "flag") + " on the recorded events"
    if extra:
        # readable: said on stdout, where a folder name's byte that is not UTF-8 cannot be printed (helper-150)
        resolved = sum("resolved_by" in r for r in extra)  # of events a correction replaced since (helper-201)
        flagged = (f"{plural(flags + len(extra), 'flag')} ({flags} on the recorded events, {len(extra)} only in "
                   f"{readable(str(events_file))}" + (f", {resolved} of them resolved by a correction" if resolved
                                                     else "") + ")")
    flags_note = None  # one line under the page's flags when a review's could not be listed
    if not is_review_folder(folder):
        flags_note = (f"The camera's flags, which only a review's events.jsonl keeps, are not listed: {folder}: "
                      f"{review_folder_problem(folder)}.")
    elif reviewed is None:
        flags_note = f"The flags of {events_file} are not listed: its review shows none of this record's plays."
    # draws and passes too (helper-90: the terminal counted them, the page did not)
    subtitle = (f"rules {record.rules.preset} · {plural(len(record.hands), 'hand')}, "
                f"{event_counts(plays, draws, passes)} · "
                f"{flagged}{f' · {names}' if names else ''} · from {file.name}")
    if doubt:  # above the warnings, as the review's own page says its score is not final (helper-139)
        subtitle += f" · {doubt}"
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        write_report(out, title, subtitle, rows, snaps, match.standings(), video=link,
                     corrections=[{**c, "where": hand_name(record.hands[c["hand"] - 1], record)}
                                  for c in corrections(record.logs)], generator=RECORD_PAGE,
                     warning="\n".join([*([unfinished] if unfinished else []), *warned]) or None,
                     unit="pips" if match.rules.standings == "cumulative_pips" else "points",
                     score_ends=match.rules.score_ends, review_flags=extra, flags_note=flags_note)
    except OSError as exc:
        raise fail(f"{out}: cannot write: {exc.strerror or exc}") from None
    if defaulted:
        err_console.print(f"note: the review's video {video} is linked (--video to choose another)", highlight=False)
    shown = f", {plural(len(snaps), 'snapshot')}" if snaps else ""
    print(f"wrote {out}: {event_counts(plays, draws, passes)}, {flagged}{shown}")
    if doubt:
        err_console.print(doubt, highlight=False, markup=False, soft_wrap=True)
    if unfinished:
        err_console.print(f"warning: {unfinished}", highlight=False, soft_wrap=True)
    for line in warned:
        err_console.print(escape(line), highlight=False, soft_wrap=True)


def _tile_key(tile: object) -> tuple[int, int] | None:
    """A tile as a sorted pair of pips, from an event's tile or a row's ``[a, b]``; None: none."""
    pips = (getattr(tile, "a", None), getattr(tile, "b", None)) if hasattr(tile, "a") else tile
    if not isinstance(pips, (list, tuple)) or len(pips) != 2 or not all(isinstance(p, int) for p in pips):
        return None
    return tuple(sorted(pips))


def resolved_flags(flag_rows: list[dict], record: MatchRecord) -> list[dict]:
    """The review's flag rows that are no flag of the record's events (:func:`service.review_snapshots.
    flags_off_the_record`), each that concerns an event a correction of the record replaced or voided given
    ``resolved_by``: the correction, as the page's Corrections name it (``"hand 1 #18: fix 6 N 0-1 W"``). A flag
    concerns an event when both have the flag's frame and tile (and seat, and game and hand, when the row has
    them). helper-201: the camera's "uncertain play 4-0 on E by N" stayed listed as a flag beside the two fixes
    that corrected that play and the next."""
    from engine.events import Correction
    from engine.notation import format_event

    fixed: list[tuple[HandRecord, object, str]] = []  # (hand, the event as the review read it, its correction)
    for hand, log in zip(record.hands, record.logs):
        for i, ev in enumerate(log):
            if isinstance(ev, Correction) and 0 <= ev.replaces < len(log):
                fixed.append((hand, log[ev.replaces], f"{hand_name(hand, record)} #{i}: {format_event(ev)}"))
    out = []
    for row in flag_rows:
        tile = _tile_key(row.get("tile"))
        for hand, ev, fix in fixed:
            if (tile is not None and row.get("frame") is not None and getattr(ev, "frame", None) == row.get("frame")
                    and _tile_key(getattr(ev, "tile", None)) == tile
                    and row.get("seat") in (None, getattr(ev, "seat", None))
                    and row.get("game") in (None, hand.game) and row.get("hand") in (None, hand.number)):
                row = {**row, "resolved_by": fix}
                break
        out.append(row)
    return out


def _review_pictures(rows: list[dict], record: MatchRecord, file: Path, folder: Path, given: bool,
                     page_dir: Path) -> tuple[list[dict], dict[int, str], list[dict] | None]:
    """The review's snapshots (and photo names) for the record's page (``service.review_snapshots``), and its
    flag rows (None: not this game's review); a review of another game is refused when given with --review,
    else left out with a warning."""
    from service.report import plural
    from service.review_snapshots import attach, read_review

    try:
        pics = read_review(folder, record.logs)
    except OSError as exc:
        raise fail(f"{folder / 'events.jsonl'}: cannot read: {exc.strerror or exc}") from None
    why = None
    if pics.plays and not pics.agree:
        why = f"none of its {plural(pics.plays, 'play')} with a snapshot is in {file.name}: a review of another game?"
    elif not pics.plays and pics.placements:  # helper-106: taken without a word
        why = "it is a review with no rules (placements only), whose pictures show no record's plays."
    if why:
        if given:
            raise fail(f"--review {folder}: {why}")
        err_console.print(f"warning: {folder} holds a review, but {why} The page shows no snapshots.",
                          highlight=False, soft_wrap=True)
        return rows, {}, None
    left_out = pics.plays - pics.agree
    if left_out:
        err_console.print(f"warning: {plural(left_out, 'play')} of the review in {folder} not in {file.name} as "
                          "recorded: their snapshots are left out", highlight=False, soft_wrap=True)
    if pics.missing:
        err_console.print(f"warning: {plural(pics.missing, 'snapshot')} named in {folder / 'events.jsonl'} "
                          "no longer there", highlight=False, soft_wrap=True)
    return *attach(rows, pics, page_dir), pics.flag_rows if pics.agree else None


def register(app: typer.Typer) -> None:
    """Add the ``record`` sub-command group to the main CLI."""
    app.add_typer(record_app, name="record")
