"""When a photo was taken, as its camera wrote it: EXIF ``DateTimeOriginal`` (and ``SubSecTimeOriginal``).

A phone writes the time a photo was taken into the photo (JPEG: an APP1 "Exif" segment; PNG: an ``eXIf``
chunk), and renaming or copying the file keeps it. Read with Pillow, which opens a JPEG's header without
decoding its picture. Rendered or exported photos (helper-230's demo folders) carry none. Two phones' clocks may
differ: :func:`service.review_pipeline.taken_order_note` follows the times only where the line of play agrees
with them.
"""

from __future__ import annotations

import os
from datetime import datetime

from PIL import ExifTags, Image, UnidentifiedImageError

__all__ = ["capture_time", "exif_time"]


def capture_time(path: str | os.PathLike) -> datetime | None:
    """The time the photo at ``path`` (JPEG or PNG) was taken, from its EXIF ``DateTimeOriginal`` (with
    ``SubSecTimeOriginal`` as a fraction of a second when present); None when it has none, or it cannot be read."""
    try:
        with Image.open(path) as image:
            return _when(image.getexif())
    except (OSError, UnidentifiedImageError, ValueError, SyntaxError):  # Pillow's errors for a bad file
        return None


def exif_time(tiff: bytes) -> datetime | None:
    """``DateTimeOriginal`` ("YYYY:MM:DD HH:MM:SS", plus ``SubSecTimeOriginal`` digits) of an EXIF TIFF block
    (either byte order, with or without the ``Exif\\0\\0`` header); None when it is missing or malformed."""
    exif = Image.Exif()
    try:
        exif.load(tiff)
    except (OSError, ValueError, SyntaxError, KeyError, IndexError):
        return None
    return _when(exif)


def _when(exif: Image.Exif) -> datetime | None:
    """The capture time in ``exif``'s Exif IFD, None when missing or malformed."""
    try:
        tags = exif.get_ifd(ExifTags.IFD.Exif)
        when = datetime.strptime(str(tags[ExifTags.Base.DateTimeOriginal]).strip("\x00 "), "%Y:%m:%d %H:%M:%S")
    except (KeyError, ValueError, TypeError, OSError):
        return None
    sub = str(tags.get(ExifTags.Base.SubsecTimeOriginal, "")).strip("\x00 ")
    return when.replace(microsecond=int((sub + "000000")[:6])) if sub.isdigit() else when
