"""A photo folder's photos put back in the order they were taken (vision.photo_order), told by the line of play.

The demo's photos, one per play (``test_photo_states.LINES``: the ground truth's tiles where they lie), named out of
order as a player renaming or re-numbering them, or copying them from two phones, would name them.
"""

from __future__ import annotations

import pytest

from test_photo_states import DEALT, LINES  # the demo's photos' tiles (tests/test_photo_states.py)
from vision.photo_order import grows, moved_photos, new_hand, order_message, taken_order
from vision.photo_states import PhotoTiles


def _shuffled(order: list[int]) -> list[PhotoTiles]:
    """The demo's photos in name order ``order`` (``order[i]``: the photo taken ``order[i]``-th, named ``i``-th)."""
    return [LINES[k] for k in order]


def _swap(i: int, j: int) -> list[int]:
    order = list(range(len(LINES)))
    order[i], order[j] = order[j], order[i]
    return order


def test_photos_in_the_order_taken_keep_name_order():
    assert len(LINES) == 17 and all(grows(a, b) for a, b in zip(LINES, LINES[1:]))
    assert taken_order(LINES) is None
    assert taken_order([DEALT] + LINES) is None  # the dealt table first: no tile laid, then the lead
    assert taken_order([]) is None and taken_order(LINES[:1]) is None  # no photo read, one photo


@pytest.mark.parametrize("named, moved", [
    (_swap(5, 9), [9, 5]),  # helper-255's folder: the 6th and 10th photos' names swapped
    (_swap(5, 6), [5]),  # side by side: one of the two is moved (the first named)
    ([k for k in range(17) if k != 5] + [5], [16]),  # the 6th photo named last
    ([0, 1, 2, 3, 4, 8, 5, 6, 7, 9, 10, 11, 12, 13, 14, 15, 16], [5]),  # the 9th photo named 6th
])
def test_photos_named_out_of_order_are_put_back(named, moved):
    order = taken_order(_shuffled(named))
    assert order is not None and [named[p] for p in order] == list(range(17))  # the order taken
    assert moved_photos(order) == moved  # the photos (name positions) a reader moves


def test_the_line_says_which_photos_moved_and_after_which():
    names = [f"move_{i:03d}.png" for i in range(17)]
    order = taken_order(_shuffled(_swap(5, 9)))
    assert order_message(names, order) == (
        "photos put back in the order they were taken, told by the line of play (in name order some photos lack "
        "tiles an earlier one shows): move_009.png after move_004.png, move_005.png after move_008.png; rename "
        "them to keep this order")
    side = [1, 0] + list(range(2, 17))  # the first two side by side: the lead named second
    assert order_message(names, taken_order(_shuffled(side))).split(": ", 1)[1] == (
        "move_000.png after move_001.png; rename them to keep this order")
    # the lead named after a longer line looks like a new hand's lead: not sure, name order kept
    assert taken_order(_shuffled(list(range(1, 17)) + [0])) is None
    assert taken_order(_shuffled([3, 0, 1, 2] + list(range(4, 17)))) is None


def _line(tiles: list[tuple], x0: float = 100.0) -> PhotoTiles:
    """A photo showing ``tiles`` in a row, 50 px apart (tiles 40 px long)."""
    return PhotoTiles({t: (x0 + 50.0 * k, 300.0) for k, t in enumerate(tiles)}, 40.0)


def test_photos_that_fit_nowhere_or_in_two_places_keep_name_order():
    named = _shuffled(_swap(5, 9))
    # a copy of a later photo among the first ones (a draw's photo, the same line, too): it fits before and after
    # the other, which stays (vision.photo_states leaves the copy out)
    assert taken_order(named[:2] + [LINES[12]] + named[2:]) is None
    assert taken_order(LINES[:12] + [LINES[12]] + LINES[12:]) is None  # beside it: in order as named
    # a photo lacking a tile of the middle of the line (an arm over it, a misread): it fits nowhere
    arm = PhotoTiles({t: p for t, p in LINES[7].places.items() if t != sorted(LINES[3].tiles - LINES[2].tiles)[0]},
                     LINES[7].tile_px)
    assert not grows(LINES[6], arm) and not any(grows(a, arm) and grows(arm, b) for a, b in zip(LINES, LINES[1:]))
    assert taken_order(named[:7] + [arm] + named[8:]) is None
    assert taken_order(LINES[:7] + [arm] + LINES[8:]) is None  # alone: name order kept, said as before


def test_photos_are_put_back_within_their_hand():
    one = [(6, 6), (6, 5), (5, 5), (5, 4), (4, 4)]
    two = [(0, 0), (0, 1), (1, 1), (1, 2), (2, 2)]
    first = [_line(one[:k]) for k in range(1, 6)]
    second = [_line(two[:k], x0=60.0) for k in range(1, 6)]
    assert new_hand(first[-1], second[0]) and not grows(first[-1], second[0])
    assert taken_order(first + second) is None
    named = first + [second[0], second[3], second[2], second[1], second[4]]
    assert taken_order(named) == [0, 1, 2, 3, 4, 5, 8, 7, 6, 9]
    # a photo of the first hand named among the second's: not a new hand, not sure
    assert taken_order(first[:3] + first[4:] + second[:2] + [first[3]] + second[2:]) is None


def test_one_hands_photos_named_in_two_runs_are_one_hand():
    """helper-262: a phone's counter wrapped (IMG_9994.png ... IMG_9999.png, then IMG_0000.png ...), so the demo's
    photos from the 7th on sort before its first six: the last photo (the hands shown) then the dealt table looked
    like a new hand, each run was kept in name order and the review read two hands, 11 flags, not final."""
    photos = [DEALT] + LINES  # 18 photos, as helper-230's folder P
    wrapped = list(range(6, 18)) + list(range(6))  # name order: the photo taken 7th named first
    assert new_hand(photos[17], photos[0])  # where the two runs meet
    order = taken_order([photos[k] for k in wrapped])
    assert order is not None and [wrapped[p] for p in order] == list(range(18))
    assert moved_photos(order) == [12, 13, 14, 15, 16, 17]  # the six photos named last, put first


def test_a_new_hand_of_tiles_the_hand_before_showed_is_still_a_new_hand():
    """A second hand laying tiles the first one's line showed (in another order) is not joined to it: its photos
    fit nowhere among the first hand's, so each hand is put back alone, as before."""
    one = [(6, 6), (6, 5), (5, 5), (5, 4), (4, 4)]
    two = [(5, 5), (6, 5), (4, 4), (5, 4)]
    first = [_line(one[:k]) for k in range(1, 6)]
    second = [_line(two[:k], x0=60.0) for k in range(1, 5)]
    assert new_hand(first[-1], second[0]) and grows(second[-1], first[-1])  # its tiles all in the first line
    assert taken_order(first + second) is None
    assert taken_order(first + [second[0], second[2], second[1], second[3]]) == [0, 1, 2, 3, 4, 5, 7, 6, 8]


@pytest.mark.parametrize("named, timed, interval", [(_swap(5, 9)[:16], False, 1.0),
                                                    ([k for k in range(16) if k != 5] + [5], False, 1.0),
                                                    (list(range(1, 16)) + [0], True, 1.0),
                                                    (_swap(5, 9)[:16], False, 2.5)])
def test_a_folder_review_reads_photos_named_out_of_order_in_the_order_taken(tmp_path, named, timed, interval):
    """End to end on the demo's 16 photos (tiles as they lie, by the picture): the same rows as the folder named in
    order (less its ``file``, and the ``photos_reordered`` row), one note naming the photos moved, none skipped,
    each photo read once. ``timed``: each photo carries the time it was taken (EXIF), which tells the lead named
    last (the line alone does not). ``interval`` (``--interval``): the photos' times follow the order read
    (helper-264)."""
    import json

    import cv2
    import numpy as np

    from calibration.profile import TableProfile
    from engine.ruleset import load_ruleset
    from service.review import run_review
    from test_photo_states import DEMO, GT, KEYFRAMES, PLAY_FRAMES, _obs
    from video_frames import video_frames  # tests/video_frames.py
    from vision.sources import open_source

    photos = video_frames(DEMO / "demo.mp4", PLAY_FRAMES)
    by_picture = {p.tobytes(): [k for k in KEYFRAMES if k["frame"] <= f][-1]["tiles"]
                  for p, f in zip(photos, PLAY_FRAMES)}
    reads = []

    class Recognize:
        reads_alone = True

        def __call__(self, image, **kwargs):
            reads.append(1)
            return _obs(by_picture[image.tobytes()])

    def review(name, order):
        folder = tmp_path / name
        folder.mkdir()
        for i, k in enumerate(order):
            exif = np.frombuffer(_exif(f"2026:12:05 21:{k:02d}:00".encode() + b"\x00"), np.uint8)
            cv2.imwriteWithMetadata(str(folder / f"move_{i:03d}.png"), photos[k], [cv2.IMAGE_METADATA_EXIF] * timed,
                                    [exif] * timed)
        reads.clear()
        s = run_review(open_source(folder, interval), load_ruleset(GT["rules"]), Recognize(), tmp_path / f"{name}_out",
                       TableProfile.load(DEMO / "profile.json"), annotate=False)
        rows = [json.loads(x) for x in (tmp_path / f"{name}_out" / "events.jsonl").read_text().splitlines()]
        return s, rows, len(reads)

    clean, clean_rows, clean_reads = review("clean", list(range(16)))
    s, rows, n_reads = review("named", named)
    assert not clean.skipped and not s.skipped and n_reads == clean_reads
    moved = [r for r in rows if r.get("kind") == "photos_reordered"]
    want = [f"move_{i:03d}.png" for i in sorted(range(16), key=named.__getitem__)]  # the names in the order taken
    assert len(moved) == 1 and moved[0]["details"]["order"] == want and moved[0]["message"] in s.notes
    assert ("(EXIF)" in moved[0]["message"]) == timed
    strip = lambda rs: [{k: v for k, v in r.items() if k not in ("file", "snapshot")}  # noqa: E731
                        for r in rs if r.get("kind") != "photos_reordered"]
    assert strip(rows) == strip(clean_rows) and s.score == clean.score
    plays = [r for r in rows if r["type"] == "play"]
    assert len(plays) == 16 and all(r["file"].endswith(want[r["frame"]]) for r in plays)
    assert [r["t"] for r in plays] == [k * interval for k in range(16)]  # photo k of the order taken shows play k


def _exif(when: bytes, sub: bytes | None = None, order: str = "<") -> bytes:
    """An EXIF TIFF block, laid out by hand: IFD0 with one entry (the Exif IFD's offset), the Exif IFD with
    DateTimeOriginal (its 20 bytes after the IFD) and SubSecTimeOriginal (in its entry's 4 bytes)."""
    import struct

    exif_at = 8 + 2 + 12 + 4
    n = 1 + (sub is not None)
    text_at = exif_at + 2 + 12 * n + 4
    out = (b"II*\x00" if order == "<" else b"MM\x00*") + struct.pack(order + "I", 8)
    out += struct.pack(order + "HHHII", 1, 0x8769, 4, 1, exif_at) + b"\0\0\0\0"
    out += struct.pack(order + "HHHII", n, 0x9003, 2, len(when), text_at)
    if sub is not None:
        out += struct.pack(order + "HHI", 0x9291, 2, len(sub)) + sub.ljust(4, b"\0")
    return out + b"\0\0\0\0" + when


def test_capture_time_reads_exif_date_time_original_of_jpeg_and_png(tmp_path):
    from datetime import datetime

    import cv2
    import numpy as np

    from vision.capture_time import capture_time, exif_time

    assert exif_time(_exif(b"2026:12:05 21:14:03\x00", b"25\x00")) == datetime(2026, 12, 5, 21, 14, 3, 250000)
    assert exif_time(_exif(b"2026:12:05 21:14:03\x00", order=">")) == datetime(2026, 12, 5, 21, 14, 3)
    assert exif_time(_exif(b"2026:13:05 21:14:03\x00")) is None  # no 13th month
    assert exif_time(b"II*\x00\x08\x00\x00\x00\x00\x00") is None  # no entries
    picture = np.full((60, 80, 3), 90, np.uint8)
    for name in ("a.jpg", "b.png"):
        blob = np.frombuffer(_exif(b"2026:12:05 21:14:03\x00", b"5\x00"), np.uint8)
        assert cv2.imwriteWithMetadata(str(tmp_path / name), picture, [cv2.IMAGE_METADATA_EXIF], [blob])
        assert capture_time(tmp_path / name) == datetime(2026, 12, 5, 21, 14, 3, 500000)
    cv2.imwrite(str(tmp_path / "c.png"), picture)
    assert capture_time(tmp_path / "c.png") is None and capture_time(tmp_path / "missing.jpg") is None


def test_the_time_taken_orders_photos_the_line_cannot_and_only_where_the_line_agrees():
    from datetime import datetime, timedelta

    from vision.photo_order import time_order

    at = [datetime(2026, 12, 5, 21) + timedelta(seconds=30 * k) for k in range(17)]
    named = list(range(1, 17)) + [0]  # the lead named last: the line alone does not tell (a new hand's lead?)
    assert taken_order(_shuffled(named)) is None
    assert time_order(_shuffled(named), [at[k] for k in named]) == [16] + list(range(16))
    assert time_order(LINES, at) == list(range(17))  # the times agree with name order
    assert time_order(LINES, at[:5] + [None] + at[6:]) is None  # one photo without a time
    assert time_order(LINES, at[:5] + [at[4]] + at[6:]) is None  # two of one time
    skewed = at[:8] + [t - timedelta(minutes=5) for t in at[8:]]  # a second phone's clock 5 minutes behind
    assert time_order(LINES, skewed) is None  # its order breaks the line: not followed


def test_a_folders_photos_are_reordered_in_place_with_what_was_measured_of_each(tmp_path):
    import cv2
    import numpy as np

    from vision.sources import ImageFolderSource

    for i, grey in enumerate((40, 120, 200)):
        cv2.imwrite(str(tmp_path / f"p{i}.png"), np.full((30, 40, 3), grey, np.uint8))
    src = ImageFolderSource(tmp_path)
    files = src.files
    src.frame_shape  # noqa: B018 - measures each photo (plain ones have no detail: set by hand below)
    src._detail = {0: 1.0, 1: 2.0, 2: 3.0}
    src.transparent[0] = 0.5
    src.reorder([2, 0, 1])
    assert src.files is files and [p.name for p in files] == ["p2.png", "p0.png", "p1.png"]
    assert src.transparent == {1: 0.5} and src._detail == {0: 3.0, 1: 1.0, 2: 2.0}
    assert [int(f.image[0, 0, 0]) for f in src] == [200, 40, 120]
    with pytest.raises(ValueError, match="not an order of the folder's 3 photos"):
        src.reorder([0, 0, 1])


def test_an_arm_over_the_tiles_a_photo_lacks_keeps_name_order(tmp_path):
    """Three photos: after 0-0, one taken while S reaches in over the W end's newest tiles (0-6, 0-0 and 0-4 hidden:
    read as the line after 3-1, test_photo_states's arm photo), after 1-1. By the tiles alone the arm photo fits
    first (its line is the earlier one's); it is the arm photo it is, and name order is kept. The photo after 3-1
    itself in its place is put first."""
    import cv2

    from service.review_pipeline import ReadAhead, taken_order_note
    from test_photo_states import DEMO, _obs, _tiles_at, _with_arm
    from video_frames import video_frames  # tests/video_frames.py
    from vision.sources import ImageFolderSource

    frames = [229, 336, 373, 404]  # the photos after 3-1, 0-0, 0-4 and 1-1
    photos = video_frames(DEMO / "demo.mp4", frames)
    under = _with_arm(photos[2], (414, 248), (330, 540))

    def note(middle, tiles_of):
        folder = tmp_path / str(len(list(tmp_path.iterdir())))
        folder.mkdir()
        pictures = [photos[1], middle, photos[3]]
        reads = {p.tobytes(): _obs(_tiles_at(f)) for p, f in zip(pictures, [336, tiles_of, 404])}
        for i, p in enumerate(pictures):
            cv2.imwrite(str(folder / f"p{i}.png"), p)
        src = ImageFolderSource(folder)
        src.on_unreadable = lambda *skip: None
        said = taken_order_note(src, ReadAhead(lambda image, **kw: reads[image.tobytes()]))
        return said, [p.name for p in src.files]

    assert note(under, 229) == (None, ["p0.png", "p1.png", "p2.png"])
    said, order = note(photos[0], 229)  # the photo after 3-1, no arm: named after the photo after 0-0
    assert order == ["p1.png", "p0.png", "p2.png"] and "p0.png after p1.png" in said
