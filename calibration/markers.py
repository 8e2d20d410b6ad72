"""Printable sheets: the four table-corner markers, and a checkerboard for the lens.

Sheets are rendered at true size for the given dpi (default A4 at 300 dpi) and
written as PNG with the dpi recorded in the file (pHYs chunk); print them at 100%
("actual size", no fit-to-page) and check the 100 mm scale bar with a ruler.
"""

from __future__ import annotations

import os
import struct
import zlib
from pathlib import Path

import cv2
import numpy as np

from calibration.errors import CalibrationError
from calibration.lens import check_board_size
from calibration.table import (CORNER_IDS, CORNER_LABELS, DEFAULT_MARKER_MARGIN_MM,
                               DEFAULT_MARKER_MM, MARKER_DICTIONARY)
from engine.files import write_bytes_atomic

#: Paper sizes ``(width, height)`` in mm, portrait.
PAPER_MM: dict[str, tuple[float, float]] = {"A4": (210.0, 297.0), "letter": (215.9, 279.4)}
MM_PER_INCH = 25.4
_FONT = cv2.FONT_HERSHEY_SIMPLEX
_INK = 0
_GREY = 150


class _Page:
    """A white page with mm-based drawing helpers; pixel (0, 0)'s centre is at 0.5 px."""

    def __init__(self, paper: str, dpi: float) -> None:
        if paper not in PAPER_MM:
            raise CalibrationError(f"unknown paper {paper!r} (use {', '.join(PAPER_MM)})")
        if not 72 <= dpi <= 1200:
            raise CalibrationError(f"dpi must be between 72 and 1200, got {dpi}")
        self.w_mm, self.h_mm = PAPER_MM[paper]
        self.px_per_mm = dpi / MM_PER_INCH
        self.image = np.full((self.px(self.h_mm), self.px(self.w_mm)), 255, np.uint8)

    def px(self, mm: float) -> int:
        return int(round(mm * self.px_per_mm))

    def text(self, s: str, x_mm: float, y_mm: float, height_mm: float = 4.0, *,
             centre: bool = False, max_width_mm: float | None = None) -> None:
        """Draw one line of text; ``y_mm`` is the baseline."""
        scale = height_mm * self.px_per_mm / 22.0  # Hershey simplex caps are ~22 px at scale 1
        thick = max(1, round(scale * 1.6))
        width = cv2.getTextSize(s, _FONT, scale, thick)[0][0]
        limit = (max_width_mm if max_width_mm is not None else self.w_mm - 20) * self.px_per_mm
        if width > limit:
            scale *= limit / width
            width = cv2.getTextSize(s, _FONT, scale, thick)[0][0]
        x = self.px(x_mm) - (width // 2 if centre else 0)
        cv2.putText(self.image, s, (x, self.px(y_mm)), _FONT, scale, _INK, thick, cv2.LINE_AA)

    def dashed_rect(self, x_mm: float, y_mm: float, w_mm: float, h_mm: float) -> None:
        """Thin grey dashed rectangle (a cut line)."""
        x0, y0, x1, y1 = self.px(x_mm), self.px(y_mm), self.px(x_mm + w_mm), self.px(y_mm + h_mm)
        dash, thick = max(4, self.px(2.0)), max(1, self.px(0.25))
        for a, b in (((x0, y0), (x1, y0)), ((x1, y0), (x1, y1)), ((x1, y1), (x0, y1)), ((x0, y1), (x0, y0))):
            length = int(np.hypot(b[0] - a[0], b[1] - a[1]))
            for s in range(0, length, 2 * dash):
                t0, t1 = s / length, min(s + dash, length) / length
                p = (round(a[0] + (b[0] - a[0]) * t0), round(a[1] + (b[1] - a[1]) * t0))
                q = (round(a[0] + (b[0] - a[0]) * t1), round(a[1] + (b[1] - a[1]) * t1))
                cv2.line(self.image, p, q, _GREY, thick)

    def scale_bar(self, x_mm: float, y_mm: float, length_mm: float = 100.0) -> None:
        """A ruler-check bar with end ticks and its length written under it."""
        thick = max(1, self.px(0.4))
        x0, x1, y = self.px(x_mm), self.px(x_mm + length_mm), self.px(y_mm)
        cv2.line(self.image, (x0, y), (x1, y), _INK, thick)
        for x in (x0, x1):
            cv2.line(self.image, (x, y - self.px(2)), (x, y + self.px(2)), _INK, thick)
        self.text(f"{length_mm:g} mm (check with a ruler)", x_mm + length_mm / 2, y_mm + 7, 3.0,
                  centre=True)


#: Smallest printed corner marker, mm: at arm's length above a table a smaller one is a few
#: pixels across, too few for its 5 x 5 bits to be read.
MIN_MARKER_MM = 10.0


def marker_sheet(*, paper: str = "A4", dpi: float = 300.0, marker_mm: float = DEFAULT_MARKER_MM,
                 margin_mm: float = DEFAULT_MARKER_MARGIN_MM) -> np.ndarray:
    """Render the sheet of the four table-corner markers at true size.

    Each marker (``DICT_4X4_50`` ids 0..3) sits in a dashed cut square of side
    ``marker_mm + 2 * margin_mm``, laid out like the table seen from above (0 top-left,
    1 top-right, 2 bottom-right, 3 bottom-left) and labelled with its table corner.
    Cut each square out and lay it flush into its corner: the marker centre is then
    ``margin_mm + marker_mm / 2`` from both edges (the default ``--marker-inset-mm``).

    Args:
        paper: ``"A4"`` or ``"letter"``.
        dpi: dots per inch (72..1200).
        marker_mm: side of the black marker square, mm.
        margin_mm: white margin around the marker inside the cut line, mm (>= 2).

    Returns:
        ``(rows, cols)`` uint8 grayscale page, 255 = white.

    Raises:
        CalibrationError: unknown paper, bad dpi, or markers that do not fit the page.
    """
    page = _Page(paper, dpi)
    cut = marker_mm + 2 * margin_mm
    if not (margin_mm >= 2 and marker_mm >= MIN_MARKER_MM):  # "not >=": nan fails too
        raise CalibrationError(f"marker size must be at least {MIN_MARKER_MM:g} mm and its margin at least 2 mm, "
                               f"got {marker_mm:g} mm and {margin_mm:g} mm")
    gap_x = (page.w_mm - 2 * cut) / 3
    top, label_h, gap_y = 38.0, 16.0, 8.0
    if gap_x < 5 or top + 2 * (cut + label_h) + gap_y + 25 > page.h_mm:
        raise CalibrationError(f"{marker_mm:g} mm markers do not fit on {paper} paper")
    dictionary = cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, MARKER_DICTIONARY))
    inset = margin_mm + marker_mm / 2
    page.text("dominocast table corner markers", 15, 14, 6.0)
    page.text(f"ArUco {MARKER_DICTIONARY}, marker {marker_mm:g} mm. Print at 100% (no scaling).",
              15, 21, 3.2)
    page.text("Cut on the dashed lines and lay each square flush in its table corner", 15, 26.5, 3.2)
    page.text(f"(marker centre {inset:g} mm from both edges). Any way up.", 15, 32, 3.2)
    slots = {0: (0, 0), 1: (1, 0), 2: (1, 1), 3: (0, 1)}  # (column, row) on the page
    for ident in CORNER_IDS:
        col, row = slots[ident]
        x = gap_x + col * (cut + gap_x)
        y = top + row * (cut + label_h + gap_y)
        page.dashed_rect(x, y, cut, cut)
        x0, y0 = page.px(x + margin_mm), page.px(y + margin_mm)
        side = page.px(x + margin_mm + marker_mm) - x0
        page.image[y0:y0 + side, x0:x0 + side] = cv2.aruco.generateImageMarker(dictionary, ident, side)
        page.text(f"id {ident}", x + cut / 2, y + cut + 6.5, 4.5, centre=True)
        page.text(CORNER_LABELS[ident], x + cut / 2, y + cut + 12, 3.0, centre=True,
                  max_width_mm=cut + gap_x - 2)
    diagram_top = top + 2 * (cut + label_h) + gap_y + 4
    if page.h_mm - 26 - diagram_top >= 40:
        _table_diagram(page, diagram_top, page.h_mm - 26)
    page.scale_bar((page.w_mm - 100) / 2, page.h_mm - 18)
    return page.image


def _table_diagram(page: _Page, top_mm: float, bottom_mm: float) -> None:
    """Small sketch of the table seen from above: corner ids and the x / y axes."""
    h = min(bottom_mm - top_mm - 12, 45.0)
    w = 1.5 * h
    x0, y0 = (page.w_mm - w) / 2, top_mm + 6
    page.text("table seen from above", page.w_mm / 2, top_mm + 2, 3.0, centre=True)
    thick = max(1, page.px(0.4))
    cv2.rectangle(page.image, (page.px(x0), page.px(y0)), (page.px(x0 + w), page.px(y0 + h)), _INK, thick)
    for ident, (cx, cy) in zip(CORNER_IDS, ((0, 0), (1, 0), (1, 1), (0, 1))):
        bx, by = x0 + 1.5 + cx * (w - 7), y0 + 5.5 + cy * (h - 7)
        page.text(str(ident), bx, by, 3.5)
    ax, ay, arrow = x0 + 8, y0 + 8, 0.45 * h
    cv2.arrowedLine(page.image, (page.px(ax), page.px(ay)), (page.px(ax + arrow), page.px(ay)), _INK,
                    thick, cv2.LINE_AA, tipLength=0.15)
    cv2.arrowedLine(page.image, (page.px(ax), page.px(ay)), (page.px(ax), page.px(ay + arrow)), _INK,
                    thick, cv2.LINE_AA, tipLength=0.15)
    page.text("x (mm)", ax + arrow + 2, ay + 1.5, 3.0)
    page.text("y (mm)", ax + 2, ay + arrow + 2, 3.0)


def checkerboard_sheet(*, paper: str = "A4", dpi: float = 300.0, cols: int = 8, rows: int = 11,
                       square_mm: float = 20.0) -> np.ndarray:
    """Render a checkerboard of ``cols`` x ``rows`` squares at true size, centred.

    The top-left square is black; the board has a white border of one square
    (10 to 15 mm) around it and a label under it.  Use the same ``cols``, ``rows`` and
    ``square_mm`` with ``dominocast calibrate lens``.

    Returns:
        ``(rows_px, cols_px)`` uint8 grayscale page, 255 = white.

    Raises:
        CalibrationError: bad sizes, or a board that does not fit the page with a
            white border of one square (10 to 15 mm) and room for the label.
    """
    page = _Page(paper, dpi)
    check_board_size(cols, rows, square_mm)
    bw, bh = cols * square_mm, rows * square_mm
    quiet = min(max(10.0, square_mm), 15.0)
    if bw + 2 * quiet > page.w_mm or bh + 2 * quiet + 24 > page.h_mm:
        raise CalibrationError(
            f"{cols} x {rows} squares of {square_mm:g} mm do not fit on {paper} paper")
    x0_mm, y0_mm = (page.w_mm - bw) / 2, (page.h_mm - 24 - bh) / 2
    xs = [page.px(x0_mm + i * square_mm) for i in range(cols + 1)]
    ys = [page.px(y0_mm + j * square_mm) for j in range(rows + 1)]
    for j in range(rows):
        for i in range(cols):
            if (i + j) % 2 == 0:
                page.image[ys[j]:ys[j + 1], xs[i]:xs[i + 1]] = _INK
    label_y = y0_mm + bh + max(quiet, 12.0)
    page.text(f"checkerboard {cols} x {rows} squares of {square_mm:g} mm "
              f"({cols - 1} x {rows - 1} inner corners). Print at 100%, keep it flat.",
              page.w_mm / 2, label_y, 3.0, centre=True)
    page.scale_bar((page.w_mm - 100) / 2, label_y + 6)
    return page.image


def png_bytes(image: np.ndarray, dpi: float | None = None) -> bytes:
    """Encode a uint8 image as PNG, recording ``dpi`` in a pHYs chunk when given."""
    ok, buf = cv2.imencode(".png", image)
    if not ok:
        raise CalibrationError("PNG encoding failed")
    data = buf.tobytes()
    if dpi is None:
        return data
    ppm = int(round(dpi / (MM_PER_INCH / 1000.0)))  # pixels per metre
    body = b"pHYs" + struct.pack(">IIB", ppm, ppm, 1)
    chunk = struct.pack(">I", 9) + body + struct.pack(">I", zlib.crc32(body) & 0xFFFFFFFF)
    ihdr_end = 8 + 4 + 4 + 13 + 4  # signature + IHDR (length, type, data, crc)
    return data[:ihdr_end] + chunk + data[ihdr_end:]


def png_dpi(data: bytes) -> float | None:
    """The dpi recorded in a PNG's pHYs chunk (None if absent or not in metres)."""
    pos = 8
    while pos + 8 <= len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        if kind == b"pHYs" and length == 9:
            x, _y, unit = struct.unpack(">IIB", data[pos + 8:pos + 17])
            return x * MM_PER_INCH / 1000.0 if unit == 1 else None
        if kind == b"IDAT":
            return None
        pos += 12 + length
    return None


def write_png(path: str | os.PathLike[str], image: np.ndarray, dpi: float | None = None) -> Path:
    """Write ``image`` as PNG (creating parent directories), with ``dpi`` recorded.

    Raises:
        CalibrationError: the path does not end in ``.png`` or cannot be written.
    """
    p = Path(path)
    if p.suffix.lower() != ".png":
        raise CalibrationError(f"{p}: output must be a .png file")
    try:
        write_bytes_atomic(p, png_bytes(image, dpi))  # an earlier sheet stays whole if this fails (helper-154)
    except OSError as exc:
        raise CalibrationError(f"{p}: cannot write ({exc.strerror or exc})") from exc
    return p
