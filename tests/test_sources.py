"""Frame sources (vision/sources.py): files, folders, and the live reader with fake captures."""

from __future__ import annotations

import os
import threading
import time
from pathlib import Path

import cv2
import numpy as np
import pytest

from vision.sources import (BLURRED_SHARE, ImageFolderSource, LiveSource, SourceError, VideoFileSource, natural_key,
                            open_source)


def _frame(i: int, size=(64, 48)) -> np.ndarray:
    """A frame whose brightness encodes ``i`` (survives lossless coding; ~ MJPG coding)."""
    img = np.full((size[1], size[0], 3), (i * 20) % 250, np.uint8)
    cv2.putText(img, str(i), (4, 30), cv2.FONT_HERSHEY_SIMPLEX, 0.8, (255, 255, 255), 2)
    return img


def _write_video(path, n=12, fps=10.0):
    w = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"MJPG"), fps, (64, 48))
    assert w.isOpened()
    for i in range(n):
        w.write(_frame(i))
    w.release()


# ---- video files -------------------------------------------------------------------------------

def test_video_file_is_read_back_frame_exactly(tmp_path):
    path = tmp_path / "clip.avi"
    _write_video(path, n=12, fps=10.0)
    with VideoFileSource(path) as src:
        frames = list(src)
    assert [f.index for f in frames] == list(range(12))
    assert [f.t for f in frames] == pytest.approx([i / 10.0 for i in range(12)])
    assert all(f.image.shape == (48, 64, 3) and f.image.dtype == np.uint8 for f in frames)
    # each decoded frame is the one written at that index (brightness of a corner, JPEG-tolerant)
    levels = np.array([(i * 20) % 250 for i in range(12)], float)
    decoded = [float(f.image[2:8, 50:60].mean()) for f in frames]
    assert [int(np.argmin(abs(levels - d))) for d in decoded] == list(range(12))


def test_a_videos_sample_is_its_frames_spread_over_it_and_leaves_the_iteration_whole(tmp_path):
    """``sample`` (the uncalibrated review's tile size, helper-159): frames 0, 4, 7 and 11 of 12 (spread,
    first and last among them), each the frame written there, and the iteration still yields all 12."""
    path = tmp_path / "clip.avi"
    _write_video(path, n=12, fps=10.0)
    levels = np.array([(i * 20) % 250 for i in range(12)], float)
    with VideoFileSource(path) as src:
        sampled = list(src.sample(4))
        frames = list(src)
    assert [int(np.argmin(abs(levels - float(im[2:8, 50:60].mean())))) for im in sampled] == [0, 4, 7, 11]
    assert [f.index for f in frames] == list(range(12))


class _TimedCapture:
    """A capture whose frames carry the given presentation times (ms), as a phone's VFR file."""

    def __init__(self, times_ms, fps=30.0, declared=None):
        self.times, self.fps, self.i = list(times_ms), fps, -1
        self.declared = len(self.times) if declared is None else declared

    def isOpened(self):
        return True

    def read(self):
        if self.i + 1 >= len(self.times):
            return False, None
        self.i += 1
        return True, np.full((8, 8, 3), self.i, np.uint8)

    def get(self, prop):
        return {cv2.CAP_PROP_FPS: self.fps, cv2.CAP_PROP_FRAME_COUNT: self.declared,
                cv2.CAP_PROP_POS_MSEC: self.times[max(self.i, 0)]}.get(prop, 0.0)

    def release(self):
        pass


def test_a_variable_rate_video_keeps_its_frames_own_times(tmp_path):
    """A phone slows to 15 fps in dim light: index / 30 would put frame 5 at 0.167 s, not 0.267 s."""
    path = tmp_path / "phone.mp4"
    path.write_bytes(b"x")
    times = [1000.0, 1033.3, 1066.7, 1133.3, 1200.0, 1266.7, 1300.0]  # the file starts at 1 s
    src = VideoFileSource(path, capture_factory=lambda p: _TimedCapture(times))
    assert [f.t for f in src] == [0.0, 0.033, 0.067, 0.133, 0.2, 0.267, 0.3]  # each frame's own time, to the ms
    # --fps given: the caller's rate, exactly
    src = VideoFileSource(path, fps=10.0, capture_factory=lambda p: _TimedCapture(times))
    assert [f.t for f in src] == pytest.approx([i / 10.0 for i in range(7)])


def test_a_gap_in_a_videos_frame_times_is_an_outage(tmp_path):
    """Frames missing from the file (dropped while recording, or damaged and skipped by the decoder)
    show as a jump in the frame times: kept in ``outages`` before the frame after it is yielded."""
    path = tmp_path / "gap.mp4"
    path.write_bytes(b"x")
    times = [0.0, 33.3, 66.7, 100.0, 900.0, 933.3]  # 0.8 s of frames missing after 0.1 s
    src = VideoFileSource(path, capture_factory=lambda p: _TimedCapture(times))
    seen = []
    for f in src:
        seen.append((round(f.t, 4), [(round(a, 4), round(b, 4)) for a, b in src.outages]))
    assert seen[3] == (0.1, []) and seen[4] == (0.9, [(0.1, 0.9)]) and seen[5][1] == [(0.1, 0.9)]
    # a phone's variable rate (gaps of 2 frames) is no outage, nor is anything with --fps given
    vfr = VideoFileSource(path, capture_factory=lambda p: _TimedCapture([0.0, 33.3, 100.0, 166.7, 200.0]))
    assert len(list(vfr)) == 5 and vfr.outages == []
    fixed = VideoFileSource(path, fps=30.0, capture_factory=lambda p: _TimedCapture(times))
    assert len(list(fixed)) == 6 and fixed.outages == []
    # The header may count the gap's frames (a capture tool's empty chunks): 6 read + 23 in the
    # 0.8 s gap at 30 fps = 29 is no truncation; 6 + 23 well short of 60 is.
    counted = VideoFileSource(path, capture_factory=lambda p: _TimedCapture(times, declared=29))
    assert len(list(counted)) == 6 and len(counted.outages) == 1
    short = VideoFileSource(path, capture_factory=lambda p: _TimedCapture(times, declared=60))
    with pytest.raises(SourceError, match="ends at frame 6 of the 60"):
        list(short)


def test_times_that_stop_increasing_fall_back_to_the_frame_rate_from_there(tmp_path):
    path = tmp_path / "odd.avi"
    path.write_bytes(b"x")
    times = [0.0, 40.0, 80.0, 80.0, 0.0, 0.0]  # the backend loses the clock after frame 2
    src = VideoFileSource(path, capture_factory=lambda p: _TimedCapture(times, fps=25.0))
    assert [round(f.t, 3) for f in src] == [0.0, 0.04, 0.08, 0.12, 0.16, 0.2]


def test_missing_video_is_a_source_error(tmp_path):
    with pytest.raises(SourceError, match="does not exist"):
        VideoFileSource(tmp_path / "nope.mp4")


def test_a_text_file_is_no_video_source(tmp_path):
    """helper-253: `review match.txt` read a record's notation as 7 frames of ANSI art (FFmpeg's tty demuxer),
    reviewed them and wrote an empty record; now one error before anything is written."""
    path = tmp_path / "match.txt"
    path.write_text("Hand 1 (game 1)\n0. N 6-6  {+0}\n1. S 6-5 E  {+0}\n" * 30)
    with pytest.raises(SourceError, match=r"match.txt is a text file, not a video"):
        VideoFileSource(path)


def test_corrupt_video_is_a_source_error(tmp_path):
    path = tmp_path / "bad.mp4"
    path.write_bytes(b"this is not a video at all" * 50)
    with pytest.raises(SourceError, match="bad.mp4"):
        VideoFileSource(path)


def test_truncated_video_ends_with_a_source_error(tmp_path):
    path = tmp_path / "clip.avi"
    _write_video(path, n=40)
    data = path.read_bytes()
    cut = tmp_path / "cut.avi"
    cut.write_bytes(data[: len(data) // 2])
    try:
        src = VideoFileSource(cut)
    except SourceError as exc:  # some backends refuse a cut AVI outright: also one clear error
        assert "cut.avi" in str(exc)
        return
    got = []
    with pytest.raises(SourceError, match="truncated"):
        for f in src:
            got.append(f.index)
    assert 0 < len(got) < 40


# ---- image folders -------------------------------------------------------------------------------

def test_image_folder_in_natural_order_with_interval(tmp_path):
    for i in (10, 2, 1, 33, 3):
        cv2.imwrite(str(tmp_path / f"shot{i}.png"), _frame(i))
    (tmp_path / "notes.txt").write_text("not an image")
    src = ImageFolderSource(tmp_path, interval_s=2.5)
    assert [p.name for p in src.files] == ["shot1.png", "shot2.png", "shot3.png", "shot10.png", "shot33.png"]
    frames = list(src)
    assert [f.t for f in frames] == [0.0, 2.5, 5.0, 7.5, 10.0]
    assert np.array_equal(frames[3].image, _frame(10))


def test_image_folder_sample_spreads_over_the_folder(tmp_path):
    for i in range(11):
        cv2.imwrite(str(tmp_path / f"p{i}.png"), _frame(i))
    (tmp_path / "p5.png").write_bytes(b"not a png")
    src = ImageFolderSource(tmp_path)
    # indices 0, 2.5, 5, 7.5, 10 rounded half to even: 0, 2, 5, 8, 10; p5 does not decode
    assert [int(im[0, 0, 0]) for im in src.sample(5)] == [int(_frame(i)[0, 0, 0]) for i in (0, 2, 8, 10)]
    assert len(list(src.sample(50))) == 10  # each photo once


def test_a_blurred_photo_of_a_folder_is_skipped_like_an_undecodable_one(tmp_path):
    """helper-126: one photo blurred (Gaussian, sigma 3) read only the tile it added; the line seemed
    cleared with a new lead, and a second hand began."""
    rng = np.random.default_rng(0)
    for i in range(6):
        table = np.kron(rng.integers(60, 200, (45, 80)), np.ones((16, 16))).astype(np.uint8)  # 1280 x 720, 16 px cells
        image = cv2.cvtColor(table, cv2.COLOR_GRAY2BGR)
        if i == 3:
            image = cv2.GaussianBlur(image, (0, 0), 8.0)  # 2 px at the 320 px the detail is measured at
        cv2.imwrite(str(tmp_path / f"p{i}.png"), image)
    skipped = []
    src = ImageFolderSource(tmp_path, on_unreadable=lambda i, t, p, msg: skipped.append((i, msg)))
    assert [f.index for f in src] == [0, 1, 2, 4, 5]
    assert len(skipped) == 1 and skipped[0][0] == 3 and "p3.png is blurred (its detail is" in skipped[0][1]
    assert src.blurred(3) < BLURRED_SHARE and src.blurred(2) is None


def test_without_a_calibration_photos_of_the_folders_shape_are_scaled_to_its_size(tmp_path):
    """helper-126: phone photos of three sizes (960x540, 1280x720, 1920x1080): 12 of 18 skipped."""
    sizes = [(128, 72), (128, 72), (192, 108), (96, 54), (96, 72)]  # the last is 4:3, not the folder's shape
    for i, size in enumerate(sizes):
        cv2.imwrite(str(tmp_path / f"p{i}.png"), _frame(i, size))
    skipped = []
    src = ImageFolderSource(tmp_path, on_unreadable=lambda i, t, p, msg: skipped.append((i, msg)))
    assert [f.index for f in src] == [0, 1]  # one camera, one size, by default
    assert [i for i, _ in skipped] == [2, 3, 4] and "without a calibration, photos of its shape are scaled" in (
        skipped[0][1])
    assert "scaled" not in skipped[2][1]  # 4:3: another shape
    skipped.clear()
    src.rescale = True
    frames = list(src)
    assert [f.index for f in frames] == [0, 1, 2, 3] and {f.image.shape for f in frames} == {(72, 128, 3)}
    assert [i for i, _ in skipped] == [4] and "scaled" not in skipped[0][1]
    assert np.array_equal(frames[2].image, cv2.resize(_frame(2, (192, 108)), (128, 72), interpolation=cv2.INTER_AREA))
    assert len(list(src.sample(5))) == 4  # the 4:3 photo is left out


def test_natural_key_orders_numbers_by_value():
    assert sorted(["a10", "a9", "A1", "b2"], key=natural_key) == ["A1", "a9", "a10", "b2"]


def test_empty_folder_is_a_source_error(tmp_path):
    with pytest.raises(SourceError, match="holds no images"):
        ImageFolderSource(tmp_path)
    (tmp_path / "notes.txt").write_text("x")
    with pytest.raises(SourceError, match=r"holds no images \(.png, .jpg, .jpeg, .bmp, .tif, .tiff, .webp\)$"):
        ImageFolderSource(tmp_path)
    (tmp_path / "match.MP4").write_bytes(b"")  # helper-80: the folder of a video given instead of the video
    with pytest.raises(SourceError, match=r"; it holds the video match.MP4: give that file, not its folder$"):
        ImageFolderSource(tmp_path)
    (tmp_path / "events.jsonl").write_text("")  # helper-248: a review's output folder; its video is drawn over
    with pytest.raises(SourceError, match=r"; it is a review's output folder \(events.jsonl\): review the footage "
                                          r"that review read$"):
        ImageFolderSource(tmp_path)


def test_corrupt_image_in_a_folder_is_a_source_error(tmp_path):
    cv2.imwrite(str(tmp_path / "1.png"), _frame(1))
    (tmp_path / "2.png").write_bytes(b"\x89PNG broken")
    frames = iter(ImageFolderSource(tmp_path))
    assert next(frames).index == 0
    with pytest.raises(SourceError, match="2.png"):
        next(frames)


def test_open_source_picks_the_kind(tmp_path):
    cv2.imwrite(str(tmp_path / "1.png"), _frame(1))
    assert isinstance(open_source(tmp_path), ImageFolderSource)
    assert isinstance(open_source("3"), LiveSource)
    assert isinstance(open_source("rtsp://cam.local/stream"), LiveSource)
    with pytest.raises(SourceError, match="no video file"):
        open_source(tmp_path / "missing.mp4")


# ---- live sources with fake captures ----------------------------------------------------------------

class FakeCapture:
    """Delivers numbered frames every ``period_s``; fails after ``fail_after`` frames; may hang."""

    def __init__(self, start=0, period_s=0.005, fail_after=None, opened=True, hang_after=None):
        self.i = start
        self.period_s = period_s
        self.fail_after = fail_after
        self.hang_after = hang_after
        self.opened = opened
        self.count = 0
        self.released = threading.Event()

    def isOpened(self):  # noqa: N802 - cv2's name
        return self.opened

    def read(self):
        if self.hang_after is not None and self.count >= self.hang_after:
            self.released.wait(5.0)  # a stalled network read: returns only once released
            return False, None
        time.sleep(self.period_s)
        if self.fail_after is not None and self.count >= self.fail_after:
            return False, None
        self.count += 1
        self.i += 1
        return True, np.full((4, 4, 3), self.i % 256, np.uint8)

    def release(self):
        self.released.set()


def _connections(caps: list, made: list):
    """A capture factory: the first connection gets ``caps[0]``, every later one ``caps[1]``
    (a reconnect); each target asked for is appended to ``made``."""

    def factory(target):
        made.append(target)
        return caps[min(len(made) - 1, 1)]

    return factory


def test_missing_camera_is_a_source_error():
    src = LiveSource(7, open_timeout_s=1.0, capture_factory=lambda t: FakeCapture(opened=False))
    with pytest.raises(SourceError, match="camera 7 could not be opened"):
        src.open()


def test_failed_open_returns_only_after_the_capture_is_released():
    """The error reaches the CLI, which exits; a capture still being released in a daemon
    thread then aborted the process (exit 134).  open() must raise only after the release."""

    class SlowRelease(FakeCapture):
        def release(self):
            time.sleep(0.3)
            super().release()

    cap = SlowRelease(opened=False)
    src = LiveSource(7, open_timeout_s=1.0, capture_factory=lambda t: cap)
    with pytest.raises(SourceError, match="camera 7 could not be opened"):
        src.open()
    assert cap.released.is_set()


def test_stream_that_never_delivers_is_a_source_error():
    src = LiveSource("rtsp://x", open_timeout_s=0.3, read_timeout_s=0.2,
                     capture_factory=lambda t: FakeCapture(hang_after=0))
    with pytest.raises(SourceError, match="no frame within 0.3 s"):
        src.open()
    src.close()


def test_slow_consumer_gets_the_newest_frame_and_skips_stale_ones():
    src = LiveSource(0, capture_factory=lambda t: FakeCapture(period_s=0.004))
    seen = []
    with src:
        for f in src:
            lag_frames = src._seq - f.index  # frames the reader got after this one, before we took it
            seen.append((f.index, int(f.image[0, 0, 0]), lag_frames))
            time.sleep(0.05)  # a slow consumer (50 ms per frame vs 4 ms per frame)
            if len(seen) == 6:
                break
    idx = [s[0] for s in seen]
    assert idx == sorted(idx) and len(set(idx)) == 6
    assert max(np.diff(idx)) > 3  # stale frames were skipped, not queued
    # each frame handed over was the newest one (a frame or two may arrive while the test thread wakes up;
    # a queue would be ~12 frames behind after one 50 ms sleep)
    assert all(lag <= 3 for _, _, lag in seen)
    assert all(pix == (i + 1) % 256 for i, pix, _ in seen)  # index and image belong together
    assert src.dropped > 10


def test_reconnects_after_a_drop_and_the_consumer_sees_a_gap():
    caps = [FakeCapture(period_s=0.01, fail_after=5), FakeCapture(start=100, period_s=0.01)]
    made: list = []
    factory = _connections(caps, made)
    src = LiveSource("rtsp://cam", read_timeout_s=0.5, backoff_s=0.05, capture_factory=factory)
    pixels, times = [], []
    with src:
        for f in src:
            pixels.append(int(f.image[0, 0, 0]))
            times.append(f.t)
            if pixels[-1] >= 105:
                break
    assert any(p <= 5 for p in pixels) and pixels[-1] >= 105  # frames from both connections
    assert src.reconnects == 1 and len(made) == 2
    assert len(src.outages) == 1 and src.outages[0][1] - src.outages[0][0] >= 0.04  # the backoff
    assert max(np.diff(times)) >= 0.04  # the gap is visible in t


def test_a_stalled_read_is_abandoned_after_the_read_timeout():
    caps = [FakeCapture(period_s=0.01, hang_after=3), FakeCapture(start=50, period_s=0.01)]
    made: list = []
    factory = _connections(caps, made)
    src = LiveSource(0, read_timeout_s=0.2, backoff_s=0.05, capture_factory=factory)
    t0 = time.monotonic()
    with src:
        for f in src:
            if int(f.image[0, 0, 0]) > 50:
                break
    assert len(made) == 2 and src.reconnects == 1
    assert time.monotonic() - t0 < 3.0


def test_give_up_after_a_long_outage_raises():
    made = []

    def factory(target):  # the camera works once, then is unplugged
        made.append(target)
        return FakeCapture(period_s=0.01, fail_after=2) if len(made) == 1 else FakeCapture(opened=False)

    src = LiveSource(0, read_timeout_s=0.1, backoff_s=0.05, max_backoff_s=0.05, give_up_s=0.3,
                     capture_factory=factory)
    with pytest.raises(SourceError, match="lost for more than 0.3 s"):
        for _ in src:
            pass
    src.close()


def test_real_camera_index_that_is_not_there_is_a_source_error():
    with pytest.raises(SourceError, match="camera 57"):
        LiveSource(57, open_timeout_s=3.0).open()


def test_unopenable_camera_prints_no_opencv_log_and_restores_the_level(capfd):
    import cv2

    log = cv2.utils.logging
    before = log.getLogLevel()
    with pytest.raises(SourceError):
        LiveSource(58, open_timeout_s=3.0).open()
    err = capfd.readouterr().err
    assert "WARN" not in err and "ERROR:" not in err, err
    assert log.getLogLevel() == before


def _huge_png_header() -> bytes:
    """A valid 4x4 PNG whose header claims 100000 x 100000 px: OpenCV raises on it instead of
    returning None (over CV_IO_MAX_IMAGE_PIXELS)."""
    import struct
    import zlib

    b = bytearray(cv2.imencode(".png", np.zeros((4, 4, 3), np.uint8))[1].tobytes())
    b[16:24] = struct.pack(">II", 100000, 100000)
    b[29:33] = struct.pack(">I", zlib.crc32(bytes(b[12:29])))
    return bytes(b)


def test_image_folder_can_skip_unreadable_images(tmp_path, capfd):
    cv2.imwrite(str(tmp_path / "1.png"), _frame(1))
    (tmp_path / "2.png").write_bytes(b"\x89PNG broken")
    (tmp_path / "3.jpg").write_bytes(b"")
    cv2.imwrite(str(tmp_path / "4.png"), _frame(4))
    (tmp_path / "5.png").write_bytes(_huge_png_header())
    jpg = cv2.imencode(".jpg", np.random.default_rng(0).integers(0, 255, (48, 64, 3), dtype=np.uint8))[1]
    (tmp_path / "6.jpg").write_bytes(jpg.tobytes()[: jpg.size // 2])  # cv2.imread: half grey, not None
    os.mkfifo(tmp_path / "7.jpg")  # helper-152: read from, it hung the review
    seen = []
    src = ImageFolderSource(tmp_path, interval_s=2.0, on_unreadable=lambda i, t, p, m: seen.append((i, t, p.name, m)))
    assert [(f.index, f.t) for f in src] == [(0, 0.0), (3, 6.0)]
    assert seen == [(i, 2.0 * i, n, f"image {tmp_path / n} cannot be decoded (corrupt or not an image)")
                    for i, n in ((1, "2.png"), (2, "3.jpg"), (4, "5.png"), (5, "6.jpg"))] + [
        (6, 12.0, "7.jpg", f"image {tmp_path / '7.jpg'} is not a regular file (a device or a pipe)")]
    err = capfd.readouterr().err  # the one line is the caller's, not OpenCV's or libjpeg's too
    assert "WARN" not in err and "Premature end" not in err, err


def test_a_phone_photo_format_opencv_cannot_read_is_reported_in_its_place(tmp_path):
    """helper-111: an iPhone's .HEIC among JPEGs was left out without a word (exit 0), and the next photo
    then held two moves; a folder of only such photos said it held no images."""
    cv2.imwrite(str(tmp_path / "IMG_1.jpg"), _frame(1))
    (tmp_path / "IMG_2.HEIC").write_bytes(b"\x00\x00\x00\x18ftypheic")
    cv2.imwrite(str(tmp_path / "IMG_3.jpg"), _frame(3))
    seen = []
    src = ImageFolderSource(tmp_path, on_unreadable=lambda i, t, p, m: seen.append((i, p.name, m)))
    assert [f.index for f in src] == [0, 2]
    assert seen == [(1, "IMG_2.HEIC", f"image {tmp_path / 'IMG_2.HEIC'} is a HEIC photo, which cannot be read here: "
                                      "export it as JPEG")]
    only = tmp_path / "only"
    only.mkdir()
    (only / "a.heic").write_bytes(b"x")
    (only / "b.DNG").write_bytes(b"x")
    with pytest.raises(SourceError, match=r"holds only DNG, HEIC photos, which cannot be read here: export them as JPEG"):
        ImageFolderSource(only)
    # a JPEG named .HEIC is read, as `detect` reads it (helper-123: it was refused by its name)
    named = tmp_path / "named"
    named.mkdir()
    cv2.imwrite(str(named / "IMG_1.jpg"), _frame(1))
    (named / "IMG_2.HEIC").write_bytes(cv2.imencode(".jpg", _frame(2))[1].tobytes())
    assert [f.index for f in ImageFolderSource(named)] == [0, 1]


def test_folder_photo_of_another_size_is_skipped_like_an_undecodable_one(tmp_path):
    import cv2

    from vision.sources import ImageFolderSource, SourceError

    for i, (h, w) in enumerate([(48, 64), (48, 64), (100, 100), (48, 64)]):
        cv2.imwrite(str(tmp_path / f"p{i}.png"), np.full((h, w, 3), 10 * i, np.uint8))
    skipped = []
    src = ImageFolderSource(tmp_path, on_unreadable=lambda i, t, p, m: skipped.append((i, m)))
    assert src.frame_shape == (48, 64, 3)
    assert [f.index for f in src] == [0, 1, 3]
    assert skipped == [(2, f"image {tmp_path / 'p2.png'} is 100x100 px but the folder's photos are 64x48 px "
                           "(one camera, one size)")]
    with pytest.raises(SourceError, match="is 100x100 px"):
        list(ImageFolderSource(tmp_path))


def test_a_folder_photo_turned_a_quarter_is_said_to_look_turned(tmp_path):
    """helper-220: a photo turned a quarter (540x960 among 960x540) was skipped as "another size" only,
    though the README warns of turned photos. Scaling does not take it: it is not of the folder's shape."""
    import cv2

    from vision.sources import ImageFolderSource

    for i, (h, w) in enumerate([(48, 64), (64, 48), (48, 64), (96, 72), (72, 72)]):
        cv2.imwrite(str(tmp_path / f"p{i}.png"), np.full((h, w, 3), 10 * i, np.uint8))
    skipped = []
    src = ImageFolderSource(tmp_path, on_unreadable=lambda i, t, p, m: skipped.append((i, m)))
    src.rescale = True  # no calibration: the photos of the folder's shape are scaled, a turned one is not
    assert [f.index for f in src] == [0, 2]
    turned = ": it looks turned a quarter (keep N at the top of the photos: turn it back, or leave it out)"
    assert skipped == [(1, f"image {tmp_path / 'p1.png'} is 48x64 px but the folder's photos are 64x48 px{turned}"),
                       (3, f"image {tmp_path / 'p3.png'} is 72x96 px but the folder's photos are 64x48 px{turned}"),
                       (4, f"image {tmp_path / 'p4.png'} is 72x72 px but the folder's photos are 64x48 px "
                           "(one camera, one size)")]


def test_folder_size_is_the_one_most_photos_have_not_the_first_photos(tmp_path):
    """helper-113: a resized copy first in the folder made every other photo "another size"."""
    import cv2

    from vision.sources import ImageFolderSource

    for i, (h, w) in enumerate([(100, 100), (48, 64), (48, 64), (48, 64)]):
        cv2.imwrite(str(tmp_path / f"p{i}.png"), np.full((h, w, 3), 10 * i, np.uint8))
    (tmp_path / "p4.png").write_bytes(b"not a picture")  # counts for no size
    skipped = []
    src = ImageFolderSource(tmp_path, on_unreadable=lambda i, t, p, m: skipped.append(i))
    assert src.frame_shape == (48, 64, 3)
    assert [f.index for f in src] == [1, 2, 3] and skipped == [0, 4]
    tie = tmp_path / "tie"
    tie.mkdir()
    for i, (h, w) in enumerate([(100, 100), (48, 64), (48, 64), (100, 100)]):
        cv2.imwrite(str(tie / f"p{i}.png"), np.zeros((h, w, 3), np.uint8))
    assert ImageFolderSource(tie).frame_shape == (100, 100, 3)  # two each: the earliest size


def test_image_folder_skips_hidden_files_and_reports_broken_links(tmp_path):
    cv2.imwrite(str(tmp_path / "1.png"), _frame(1))
    (tmp_path / "._1.png").write_bytes(b"\x00\x05\x16\x07 AppleDouble")  # macOS metadata, not a photo
    (tmp_path / "2.png").symlink_to(tmp_path / "gone.png")  # a broken link
    (tmp_path / "3.png").mkdir()  # a folder with an image's name
    seen = []
    src = ImageFolderSource(tmp_path, on_unreadable=lambda i, t, p, m: seen.append((i, p.name)))
    assert [p.name for p in src.files] == ["1.png", "2.png"]
    assert [f.index for f in src] == [0] and seen == [(1, "2.png")]


def test_a_stream_that_comes_back_at_another_size_is_a_source_error():
    """The calibration holds for one frame size; a camera back at another resolution used to crash
    the session with a traceback (helper-59)."""

    class Bigger(FakeCapture):
        def read(self):
            ok, image = super().read()
            return ok, (None if image is None else np.zeros((8, 6, 3), np.uint8))

    caps = [FakeCapture(period_s=0.01, fail_after=3), Bigger(start=100, period_s=0.01)]
    made: list = []
    factory = _connections(caps, made)
    src = LiveSource("rtsp://cam", read_timeout_s=0.5, backoff_s=0.05, capture_factory=factory)
    seen = []
    with src, pytest.raises(SourceError, match=r"stream rtsp://cam changed its frame size from 4x4 to 6x8 px at "):
        assert src.frame_shape is None
        for f in src:
            seen.append(f.image.shape)
    assert seen and set(seen) == {(4, 4, 3)}


def test_same_picture_is_to_the_bit_even_off_the_sample():
    from vision.sources import _same_picture

    a = np.random.default_rng(0).integers(0, 255, (64, 96, 3), dtype=np.uint8)
    b = a.copy()
    b[5, 7, 1] ^= 1  # off the every-16th-pixel sample
    assert _same_picture(a, a.copy()) and not _same_picture(a, b)
    assert not _same_picture(None, a) and not _same_picture(a[:32], a)


def test_a_reconnect_to_a_stuck_encoder_stays_frozen():
    """The frozen time ran from the newest connection's first frame, so a stuck encoder that
    dropped and came back looked like a moving picture. Frames are compared across connections."""

    class Stuck(FakeCapture):
        def read(self):
            ok, image = super().read()
            return ok, (None if image is None else np.full((4, 4, 3), 7, np.uint8))

    caps = [Stuck(period_s=0.01, fail_after=20), Stuck(period_s=0.01)]
    made: list = []
    src = LiveSource("rtsp://cam", read_timeout_s=0.5, backoff_s=0.05, capture_factory=_connections(caps, made))
    with src:
        for f in src:
            if src.reconnects == 1 and f.t > src.outages[0][1] + 0.1:
                break
        since, seconds = src.frozen_s
    assert len(made) == 2 and src.picture_changes == 0
    assert since < src.outages[0][0] and since + seconds >= src.outages[0][1] + 0.1


def test_picture_changes_counts_frames_unlike_the_one_before():
    caps = [FakeCapture(period_s=0.005)]
    src = LiveSource(0, capture_factory=lambda t: caps[0])
    with src:
        for f in src:
            if f.index >= 5:
                break
        # every FakeCapture frame differs from the one before; the first frame is no change
        with src._cond:
            changes, received = src.picture_changes, src._seq + 1
        assert changes == received - 1 and src.frozen_s[1] == 0.0


def test_an_outage_is_dated_from_the_last_frame_not_from_when_the_stall_was_noticed():
    """helper-83: a camera silent from 15.0 s was reported silent from 20.0 s (the read timeout later)."""
    caps = [FakeCapture(period_s=0.01, hang_after=5), FakeCapture(start=100, period_s=0.01)]
    src = LiveSource("rtsp://cam", read_timeout_s=0.4, backoff_s=0.05, capture_factory=_connections(caps, []))
    times = []
    with src:
        for f in src:
            times.append((int(f.image[0, 0, 0]), f.t))
            if times[-1][0] >= 103:
                break
    last_before = max(t for pix, t in times if pix <= 5)
    (down, up), = src.outages
    assert down == pytest.approx(last_before, abs=0.02)  # before: last_before + 0.4
    assert up - down >= 0.4  # the read timeout and the backoff are inside the outage


def test_a_video_named_with_a_byte_that_is_not_utf8_is_read_and_such_a_url_is_a_source_error(tmp_path):
    """helper-149: a video named with a non-UTF-8 byte (or such a URL in a service's JSON) segfaulted
    OpenCV's capture. The URL is one SourceError naming it; the video is read through a link of ours,
    frame for frame as under a UTF-8 name, and the link is gone once it is open."""
    import tempfile

    import pytest

    from vision.sources import SourceError, VideoFileSource, open_source

    plain = tmp_path / "plain.avi"
    _write_video(plain, n=6)
    odd = tmp_path / "v\udcff.avi"
    odd.write_bytes(plain.read_bytes())
    with VideoFileSource(plain) as a, VideoFileSource(odd) as b:
        assert not list(Path(tempfile.gettempdir()).glob("dominocast-video-*"))  # the link is gone
        fa, fb = list(a), list(b)
    assert len(fb) == len(fa) == 6 and all(np.array_equal(x.image, y.image) for x, y in zip(fa, fb))
    garbage = tmp_path / "g\udcff.mp4"
    garbage.write_bytes(b"\x00" * 64)
    with pytest.raises(SourceError, match="is not a video OpenCV can open"):
        open_source(garbage)
    with pytest.raises(SourceError, match="the name is not UTF-8 text, which OpenCV cannot open or write"):
        open_source("rtsp://camera\udcff/stream")


def test_a_live_stream_url_opencv_cannot_take_is_refused_before_any_capture_opens():
    """helper-150: `dominocast live 'rtsp://h\\xff/x'` went to OpenCV's capture, which crashed the process."""
    import pytest

    from vision.sources import LiveSource, SourceError

    opened = []
    src = LiveSource("rtsp://h\udcff/x", capture_factory=lambda target: opened.append(target))
    with pytest.raises(SourceError, match=r"^stream 'rtsp://h\\udcff/x': the URL holds bytes that are not UTF-8 text"):
        src.open()
    assert opened == []


def test_a_file_url_is_no_stream_and_open_source_names_its_path():
    """helper-158: `file://` was refused by the CLI commands only; a service camera table opened
    `file:///x.mp4` as a stream that kept reconnecting (helper-152's CLI case)."""
    from vision.sources import file_url_path, is_stream_url

    assert file_url_path("file://localhost/tmp/a%20b.mp4") == file_url_path("FILE:///tmp/a%20b.mp4") == "/tmp/a b.mp4"
    assert file_url_path("rtsp://cam/1") is None and file_url_path("/tmp/x.mp4") is None
    assert not is_stream_url("file:///tmp/x.mp4") and is_stream_url("rtsp://cam/1")
    with pytest.raises(SourceError, match=r"^file:///tmp/a%20b\.mp4: give the footage as a path, not a file:// URL: /tmp/a b\.mp4$"):
        open_source("file:///tmp/a%20b.mp4")
