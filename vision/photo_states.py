"""A folder's photo of another state of its table than the photos around it agree on, told by the tiles read.

:class:`vision.photo_scene.OneTable` leaves out a stale copy by the image points it shares with its neighbours;
that tells one apart only when most of the line of play changed (helper-233: a copy of a photo 8 plays later put
between two photos shares 0.81 of what they share, the first photo 10 plays ahead of a dealt table 0.68, both
inside the range of real neighbours). The face-up tiles read tell them apart (helper-230's demo folder,
N 15 S 35 for 16 plays):

* a later state among earlier photos (:func:`later_state`): a copy of the photo after N's 5-5 put after the 8th
  photo adds 7 tiles to the line the photo before it shows, and 6 of them are gone again in the photo after it,
  which still shows the line before (read as 7 plays at once and 5 take-backs: N 25 S 20 for 21 plays). A real
  photo adds one play (two or three after a missed photo) and the next photo keeps it; a take-back takes one;
  the hands shown at a hand's end lie off the line, and the table is cleared after them;
* an earlier state after later photos (:func:`earlier_state`): a copy of the 4th photo after the 14th, or after the
  hands shown, shows a line of play that an earlier photo showed, lacking 3 or more of the tiles of the photo
  before it and adding none, and the photo after it (if any) shows them again or is the same copy (two copies
  in a row lost a draw; one last was read silently). A cleared table shows no line at all; a new hand's line
  is followed by its growth, not by the old line;
* a later state as the first photo (:func:`later_first`): a copy of the 11th photo put first showed 9 tiles
  that are gone in the next photo (the dealt table), and the first tiles laid after it lie in its line, at its
  places (the lead where it showed the lead: read as a hand cleared before it ended, N 20 S 30).

Tiles are compared by their identity; places (px, one photo to another) only where they must agree (a phone
moved between shots makes them disagree: the photo is then kept).
"""

from __future__ import annotations

from typing import Iterable, NamedTuple

import cv2
import numpy as np

__all__ = ["LOST_TILES", "PhotoTiles", "earlier_state", "later_first", "later_state", "photo_tiles", "turned",
           "state_message", "tile_list", "under_arm"]

#: A photo is another state of its table when at least this many face-up tiles differ (one is a play, a take-back
#: or a misread; two a missed photo).
LOST_TILES = 3
#: A tile the line of play reaches lies within this many tile lengths (centre to centre) of a tile of the line.
LINE_REACH = 1.5
#: Two reads of a tile lie at the same place within this many tile lengths.
SAME_PLACE = 0.5
#: Face-up reads under this confidence are not counted.
MIN_CONFIDENCE = 0.5


class PhotoTiles(NamedTuple):
    """The face-up tiles read in one photo: ``places`` maps each tile ``(low, high)`` to its centre (x, y) px;
    ``tile_px`` is a tile's long side (px, the median of those read; 0.0 when none); ``down``: the centres (x, y)
    px of the face-down tiles read."""
    places: dict
    tile_px: float
    down: tuple = ()

    @property
    def tiles(self) -> set:
        return set(self.places)


def photo_tiles(observations: Iterable) -> PhotoTiles:
    """The face-up tiles of one read (:class:`vision.observation.TileObservation`\\ s) read at
    :data:`MIN_CONFIDENCE` or more, the most confident read of a tile kept."""
    places, sides, down = {}, [], []
    for o in sorted(observations, key=lambda o: -o.confidence):
        if o.face == "down" and o.confidence >= MIN_CONFIDENCE:
            down.append(tuple(float(v) for v in o.center_px))
        if o.face != "up" or o.tile is None or o.confidence < MIN_CONFIDENCE or o.tile in places:
            continue
        places[o.tile] = tuple(float(v) for v in o.center_px)
        p = np.asarray(o.polygon_px, np.float32)
        sides.append(max(np.linalg.norm(p[1] - p[0]), np.linalg.norm(p[2] - p[1])))
    return PhotoTiles(places, float(np.median(sides)) if sides else 0.0, tuple(down))


def _near(a: tuple, b: tuple, reach: float) -> bool:
    return (a[0] - b[0]) ** 2 + (a[1] - b[1]) ** 2 <= reach ** 2


def turned(shown: PhotoTiles, tile: tuple, other: PhotoTiles) -> bool:
    """Whether ``other`` shows a face-down tile at the place (within :data:`SAME_PLACE`) where ``shown`` shows
    ``tile`` face up: a hand shown and turned down again (or the other way), not a tile laid or taken."""
    reach = SAME_PLACE * max(shown.tile_px, 1.0)
    return any(_near(shown.places[tile], q, reach) for q in other.down)


def later_state(x: PhotoTiles, before: PhotoTiles, after: PhotoTiles) -> list | None:
    """The tiles (sorted) that photo ``x`` adds to the line of the photo ``before`` it, laid on that line (a chain
    of tiles each within :data:`LINE_REACH` of the next), that are gone in the photo ``after`` it, which shows the
    line ``before`` (all but one tile): a later state of the table, when there are :data:`LOST_TILES` or more;
    else None. A tile with a face-down tile at its place (within :data:`SAME_PLACE`) in ``after`` is not gone: a
    hand shown beside the line and turned down again."""
    if len(before.tiles - after.tiles) > 1:
        return None  # the table changed for good (cleared, dealt anew): not a copy
    reach = LINE_REACH * x.tile_px
    line = [x.places[t] for t in x.tiles & before.tiles]
    added = {t: x.places[t] for t in x.tiles - before.tiles}
    grew = True
    while grew:  # the added tiles laid on the line: reached from it tile by tile (the hands shown lie apart)
        grew = False
        for t, p in list(added.items()):
            if any(_near(p, q, reach) for q in line):
                line.append(p)
                del added[t]
                grew = True
    laid = (x.tiles - before.tiles) - set(added)
    gone = sorted(t for t in laid - after.tiles if not turned(x, t, after))
    return gone if len(gone) >= LOST_TILES else None


def earlier_state(x: PhotoTiles, before: PhotoTiles, after: PhotoTiles | None,
                  earlier: Iterable[PhotoTiles]) -> list | None:
    """The tiles (sorted) of the line of the photo ``before`` that photo ``x`` lacks, when ``x`` shows the line of
    an ``earlier`` photo (the same tiles, two or more), adds no tile to ``before``'s and lacks :data:`LOST_TILES` or
    more of it, and the photo ``after`` it (None: ``x`` is the last) shows them again (all but one) or the same
    line as ``x`` (a second copy): an earlier state of the table; else None. A tile with a face-down tile at its
    place in ``x`` is not lacked (a hand shown, then turned down)."""
    if len(x.tiles) < 2 or x.tiles - before.tiles:
        return None
    lost = sorted(t for t in before.tiles - x.tiles if not turned(before, t, x))
    if len(lost) < LOST_TILES or not any(e.tiles == x.tiles for e in earlier):
        return None
    if after is not None and len(set(lost) - after.tiles) > 1 and after.tiles != x.tiles:
        return None  # the tiles stay gone: a table cleared or changed for good
    return lost


def later_first(x: PhotoTiles, after: list[PhotoTiles]) -> list | None:
    """The tiles (sorted) of the first photo ``x``'s line that are gone in the next photo, when the tiles the
    photos ``after`` it show (two or more, together) all lie in ``x``'s line at its places (within
    :data:`SAME_PLACE` of a tile length): ``x`` shows the table later than they do; else None."""
    if not after:
        return None
    gone = sorted(x.tiles - after[0].tiles)
    if len(gone) < LOST_TILES:
        return None
    shown: dict = {}
    for a in after:
        shown.update(a.places)
    reach = SAME_PLACE * max(x.tile_px, 1.0)
    if len(shown) < 2 or any(t not in x.places or not _near(p, x.places[t], reach) for t, p in shown.items()):
        return None
    return gone


def under_arm(tiles: list, seen: PhotoTiles, arm: np.ndarray | None, width_px: int) -> bool:
    """Whether each of ``tiles`` lies under the ``arm`` of a photo ``width_px`` wide ((h, w) bool mask, any scale:
    :func:`vision.photo_arms.arm_over`; None: no arm), at its place in ``seen`` (the photo beside it that shows
    them), within :data:`SAME_PLACE` of a tile length of the arm: tiles an arm hides, not a table's earlier state
    (the arm's edge cuts through a tile it half hides)."""
    if arm is None or not tiles or any(t not in seen.places for t in tiles):
        return False
    scale = arm.shape[1] / width_px
    reach = max(1, round(SAME_PLACE * seen.tile_px * scale))
    grown = cv2.dilate(arm.astype(np.uint8), cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * reach + 1,) * 2)) > 0
    h, w = grown.shape
    return all(grown[min(h - 1, int(seen.places[t][1] * scale)), min(w - 1, int(seen.places[t][0] * scale))]
               for t in tiles)


def state_message(name: str, later: bool, why: str) -> str:
    """The line that says photo ``name`` shows a ``later`` (else earlier) state of its table; ``why``: the clause
    that tells it (:func:`tile_list` names the tiles)."""
    return (f"image {name} looks like a copy of {'a later' if later else 'an earlier'} state of this table: {why} "
            "(a copy of another photo, or photos out of order): not read; leave it out or put it in its place")


def tile_list(tiles: list) -> str:
    """``3 tiles (0-0, 4-4, 5-5)``."""
    return f"{len(tiles)} tiles ({', '.join(f'{a}-{b}' for a, b in tiles)})"
