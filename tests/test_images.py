"""Tests for the shared image loader (calibration/images.py): transparent pixels."""

from __future__ import annotations

import struct
import zlib

import cv2
import numpy as np

from calibration.images import decode_image, load_image
from vision.obb import PAD_VALUE


def test_half_transparent_16_bit_png_is_blended_with_grey(tmp_path):
    """A 16-bit PNG's alpha is scaled as its colours are: alpha 32768 of 65535 is half the colour, half grey."""
    img = np.zeros((10, 12, 4), np.uint16)
    img[..., :3] = 200 * 257  # 200 when read as 8-bit
    img[..., 3] = 65535
    img[:, 6:, 3] = 32768
    path = tmp_path / "half.png"
    cv2.imwrite(str(path), img)
    shares = []
    out = decode_image(path, on_transparent=shares.append)
    assert out.dtype == np.uint8 and out.shape == (10, 12, 3)
    assert (out[:, :6] == 200).all()
    assert np.abs(out[:, 6:].astype(int) - round((200 + PAD_VALUE) / 2)).max() <= 1
    assert shares == [0.5]
    grey = load_image(path, gray=True)  # `calibrate lens` reads grey: the same fill
    assert grey.shape == (10, 12) and (grey[:, :6] == 200).all() and np.abs(grey[:, 6:].astype(int) - 157).max() <= 1


def _with_orientation(png: bytes, orientation: int) -> bytes:
    """``png`` with an eXIf chunk (PNG 1.5) holding one EXIF tag, Orientation (0x0112) = ``orientation``:
    a big-endian TIFF header and one IFD entry, put right after IHDR (8-byte signature + 25-byte chunk)."""
    tiff = b"MM\x00\x2a\x00\x00\x00\x08" + struct.pack(">HHHIHHI", 1, 0x0112, 3, 1, orientation, 0, 0)
    chunk = struct.pack(">I", len(tiff)) + b"eXIf" + tiff + struct.pack(">I", zlib.crc32(b"eXIf" + tiff))
    return png[:33] + chunk + png[33:]


def test_the_fill_follows_the_pixels_of_a_turned_photo(tmp_path):
    """OpenCV turns a PNG by its EXIF orientation, except when it keeps the alpha: the grey must still
    land on the transparent pixels, not on the turned picture's."""
    rgba = np.zeros((4, 6, 4), np.uint8)
    rgba[:, :3] = (10, 10, 250, 255)  # opaque red (BGR) on the left, transparent on the right
    path = tmp_path / "turned.png"
    path.write_bytes(_with_orientation(cv2.imencode(".png", rgba)[1].tobytes(), 6))  # turn 90 degrees clockwise
    out = load_image(path)
    red = (out == (10, 10, 250)).all(axis=2)
    grey = (out == PAD_VALUE).all(axis=2)
    assert red.sum() == grey.sum() == 12 and (red | grey).all()


def test_transparent_fill_is_the_detectors_padding():
    from calibration.images import TRANSPARENT_FILL

    assert TRANSPARENT_FILL == PAD_VALUE  # the detector was trained to see neither table nor tile there


def test_a_few_transparent_pixels_are_not_said_as_none():
    from calibration.images import percent, transparency_note

    assert percent(0.0001) == "under 1%" and percent(0.004) == "under 1%" and percent(0.3) == "30%"
    assert transparency_note("p.png", 1 / (48 * 64)).startswith("p.png: under 1% of it is transparent")


def test_a_nearly_opaque_alpha_is_not_said_as_transparent(tmp_path):
    """helper-138: a PNG at alpha 250 everywhere was "100% transparent"; one at 100 on a quarter is a quarter."""
    seen = []
    faint = np.full((8, 8, 4), 200, np.uint8)
    faint[..., 3] = 250
    cv2.imwrite(str(tmp_path / "faint.png"), faint)
    out = load_image(tmp_path / "faint.png", on_transparent=seen.append)
    assert seen == [] and abs(int(out[0, 0, 0]) - round(200 * 250 / 255 + PAD_VALUE * 5 / 255)) <= 1
    faint[:4, :4, 3] = 100
    cv2.imwrite(str(tmp_path / "part.png"), faint)
    load_image(tmp_path / "part.png", on_transparent=seen.append)
    assert seen == [0.25]


def test_only_a_file_that_can_hold_alpha_is_decoded_twice():
    from calibration.images import _may_hold_alpha

    rgb = np.full((6, 8, 3), 90, np.uint8)
    enc = lambda ext, im: np.frombuffer(cv2.imencode(ext, im)[1].tobytes(), np.uint8)  # noqa: E731
    assert not _may_hold_alpha(enc(".png", rgb)) and not _may_hold_alpha(enc(".jpg", rgb))
    assert _may_hold_alpha(enc(".png", np.dstack([rgb, np.full((6, 8), 255, np.uint8)])))
    assert _may_hold_alpha(enc(".tiff", rgb))  # other formats: decoded to see


#: How a viewer turns a picture stored with EXIF orientation 1-8 (the EXIF 2.3 table, as Pillow's
#: ImageOps.exif_transpose does it), on (H, W, ...) arrays.
_EXIF_TURNS = {1: lambda a: a, 2: lambda a: a[:, ::-1], 3: lambda a: a[::-1, ::-1], 4: lambda a: a[::-1],
               5: lambda a: a.swapaxes(0, 1), 6: lambda a: np.rot90(a, -1), 7: lambda a: a[::-1, ::-1].swapaxes(0, 1),
               8: lambda a: np.rot90(a, 1)}


def test_a_transparent_png_is_turned_by_its_exif_orientation_as_an_opaque_one(tmp_path):
    """A transparent PNG with an eXIf orientation was left unturned (the colours decoded unturned to lie
    under their alpha) where the same picture without alpha is turned: a phone's cut-out lay on its side."""
    rng = np.random.default_rng(140)
    rgba = np.zeros((5, 7, 4), np.uint8)
    rgba[..., :3] = rng.integers(0, 256, (5, 7, 3))  # every pixel its own colour: any wrong turn shows
    rgba[..., 3] = 255
    rgba[:2, :3, 3] = 0  # a transparent corner at the top left: a flip or a turn moves it
    rgba[4, 6, 3] = 0
    for orientation, turn in _EXIF_TURNS.items():
        cut = tmp_path / f"cut{orientation}.png"
        cut.write_bytes(_with_orientation(cv2.imencode(".png", rgba)[1].tobytes(), orientation))
        flat = tmp_path / f"flat{orientation}.png"
        flat.write_bytes(_with_orientation(cv2.imencode(".png", rgba[..., :3])[1].tobytes(), orientation))
        shares = []
        out = load_image(cut, on_transparent=shares.append)
        opaque = load_image(flat)  # OpenCV turns the picture without alpha: the reference
        assert (opaque == turn(rgba[..., :3])).all(), orientation
        see = turn(rgba[..., 3]) > 0
        assert out.shape == opaque.shape == ((7, 5, 3) if orientation >= 5 else (5, 7, 3)), orientation
        assert (out[see] == opaque[see]).all() and (out[~see] == PAD_VALUE).all(), orientation
        assert shares == [7 / 35]
        grey = load_image(cut, gray=True)  # `calibrate lens` reads grey: turned alike
        assert grey.shape == out.shape[:2] and (grey[~see] == PAD_VALUE).all(), orientation


def test_names_opencv_cannot_take_are_refused_and_pictures_are_written_under_any_name(tmp_path):
    """helper-149: a file name with a byte that is not UTF-8 (Python's lone surrogate) crashed OpenCV's
    video reader, writers and haveImageWriter (exit 139: a venue service would die with it)."""
    import pytest

    from calibration.images import opencv_name, write_image

    odd = tmp_path / "pic\udcff.png"
    with pytest.raises(ValueError, match=r"pic\\udcff.png': the name is not UTF-8 text"):
        opencv_name(odd)
    assert opencv_name(tmp_path / "é.mp4") == str(tmp_path / "é.mp4")
    img = np.arange(48 * 64 * 3, dtype=np.uint8).reshape(48, 64, 3)
    write_image(odd, img)
    back = cv2.imdecode(np.fromfile(odd, np.uint8), cv2.IMREAD_COLOR)
    assert np.array_equal(back, img)  # PNG is lossless: the very pixels
    with pytest.raises(OSError, match="OpenCV cannot write .xyz pictures"):
        write_image(tmp_path / "a.xyz", img)
