"""Hand areas of an uncalibrated folder of photos or video, found from where the face-down tiles lie.

Without a calibration the seats are the image's borders (``vision.reveals.seat_of_position``), and a
hand area used to be a fixed band along each border. Photos frame the table with a margin of their own
choosing: helper-123's four-seat folders (a 1000 x 600 mm table 131 px inside a 1280 x 720 frame) had
W's hand 150 px from the border, past the band (144 px), while false boxes on the cloth beyond the table
(at the frame's edge) fell inside it; seats were guessed by the turn and a lead went to the wrong seat.
Each seat's hand lies in a row along its own edge of the table, so the row tells how deep the area
reaches, in tile lengths, and that nothing of the hand lies much further out than the row.
"""

from __future__ import annotations

import numpy as np

__all__ = ["ROW_MIN_TILES", "ROW_SHARE", "ROW_WIDTH_TILES", "REACH_IN_TILES", "REACH_OUT_TILES", "REACH_ALONG_TILES",
           "border_distances", "hand_rows", "in_row_area"]

#: Face-down tiles that make a row (one tile alone can be a false box on the cloth).
ROW_MIN_TILES = 2
#: A row holds at least this share of the tiles of the fullest group along its border.
ROW_SHARE = 0.5
#: A row's depth spread, in tile lengths: tiles laid along or across the edge, a little askew.
ROW_WIDTH_TILES = 0.6
#: A hand area reaches this many tile lengths in from its row's outer side: the calibrated hand
#: areas reach 110 mm in from the table's edge, 2.3 tiles of 48 mm, and hands lie about one tile in.
REACH_IN_TILES = 1.3
#: ... and this many out from it: what lies further out is off the table (the cloth or floor
#: around it, where the detector's false boxes are), not in the hand.
REACH_OUT_TILES = 0.75
#: ... and this many tile lengths along the border past the row's end tiles (drawn tiles join a hand
#: beside it): a boneyard column running up to the next border is not that seat's hand (helper-144:
#: the top tile of a boneyard column by the left border, 89 px below the top and 100 px from the left,
#: counted in N's hand 9 tile lengths away; S drew it and N was given S's play).
REACH_ALONG_TILES = 2.5

_SIDES = ("N", "E", "S", "W")  # image top, right, bottom, left: north up, as seat_of_position


def border_distances(centers: np.ndarray, image_size: tuple[int, int]) -> tuple[np.ndarray, np.ndarray]:
    """Each point's nearest image border as a seat and its distance from it.

    Args:
        centers: (N, 2) float image px (x right, y down).
        image_size: (width, height) px.

    Returns:
        ``(sides, distances)``: (N,) int indices into ``("N", "E", "S", "W")`` and (N,) float64 px.
    """
    c = np.asarray(centers, np.float64).reshape(-1, 2)
    w, h = image_size
    d = np.stack([c[:, 1], w - c[:, 0], h - c[:, 1], c[:, 0]], axis=1)
    sides = np.argmin(d, axis=1)
    return sides, d[np.arange(len(c)), sides]


def _along(centers: np.ndarray, sides: np.ndarray) -> np.ndarray:
    """(N,) px: each point's position along its border (x for the top and bottom, y for the sides)."""
    c = np.asarray(centers, np.float64).reshape(-1, 2)
    return np.where(np.asarray(sides) % 2 == 0, c[:, 0], c[:, 1])


def hand_rows(centers: np.ndarray, length_px: float, image_size: tuple[int, int]
              ) -> dict[str, tuple[float, int, float, float]]:
    """Where each seat's hand row lies: per image border, among the face-down tiles nearest it, the
    outermost group of tiles within :data:`ROW_WIDTH_TILES` tile lengths of one another in depth that
    holds at least :data:`ROW_MIN_TILES` tiles and :data:`ROW_SHARE` of the fullest such group's (two
    false boxes on the cloth beyond a hand of seven are no row; a boneyard laid in from a hand is not
    the hand's row unless it holds more than twice as many tiles).

    Args:
        centers: (N, 2) float image px, the face-down tiles' centres (not the line of play's).
        length_px: a tile's long side in px (> 0).
        image_size: (width, height) px.

    Returns:
        seat (``N`` top, ``E`` right, ``S`` bottom, ``W`` left) -> (distance of the row's outer side
        from the border in px, tiles in the row, first and last of the row's tiles along the border in
        px: x for N and S, y for E and W); a border with no such group is left out.
    """
    sides, dist = border_distances(centers, image_size)
    along = _along(centers, sides)
    rows: dict[str, tuple[float, int, float, float]] = {}
    for k, seat in enumerate(_SIDES):
        order = np.argsort(dist[sides == k], kind="stable")
        d, a = dist[sides == k][order], along[sides == k][order]
        # tiles in the depth window starting at each tile
        counts = np.searchsorted(d, d + ROW_WIDTH_TILES * length_px, side="right") - np.arange(len(d))
        if not len(d) or counts.max() < ROW_MIN_TILES:
            continue
        i = int(np.argmax(counts >= max(ROW_MIN_TILES, ROW_SHARE * counts.max())))
        span = a[i:i + int(counts[i])]
        rows[seat] = (float(d[i]), int(counts[i]), float(span.min()), float(span.max()))
    return rows


def in_row_area(center: np.ndarray, length_px: float, image_size: tuple[int, int],
                rows: dict[str, tuple[float, int, float, float]], band_px: float) -> bool:
    """Whether a tile centred at ``center`` (image px) lies in the hand area of its nearest border.

    With a row known on that border (:func:`hand_rows`): from :data:`REACH_OUT_TILES` tile lengths
    outside the row to :data:`REACH_IN_TILES` inside it, or to ``band_px`` from the border when that
    reaches further in, and along the border no more than :data:`REACH_ALONG_TILES` past the row's end
    tiles; without one, within ``band_px`` of the border.
    """
    sides, dist = border_distances(np.asarray(center, np.float64)[None], image_size)
    d = float(dist[0])
    if _SIDES[int(sides[0])] not in rows:
        return d < band_px
    row, _, first, last = rows[_SIDES[int(sides[0])]]
    along = float(_along(np.asarray(center, np.float64)[None], sides)[0])
    return (row - REACH_OUT_TILES * length_px <= d < max(band_px, row + REACH_IN_TILES * length_px)
            and first - REACH_ALONG_TILES * length_px <= along <= last + REACH_ALONG_TILES * length_px)
