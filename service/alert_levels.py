"""Which camera notices need the umpire's decision and which are for information only.

Every vision notice (:class:`vision.placements.Notice`, sent as ``SourceItem.alert``) is stored as an alert
(``service.tables.TableRegistry._feed``). One that needs the umpire opens (``severity: "action"``): a tile the
camera cannot read for sure, a play it could not place, a tile gone from the line, an event the engine refused,
a pass it inferred without seeing the seat knock (an out-of-turn play?), an end of hand it inferred (the umpire
confirms the result), a rule set the table does not fit. One the tracker settled itself (a tile knocked a few mm
and followed, a printed picture taken for no play, a play it corrected after clear reads) is stored closed
from the start (``severity: "info"``, ``status: "resolved"``): in the alert list (``?status=all``), the match's
timeline and the console's camera notes, with its time, but never counted open nor waiting to be dismissed.

Measured (helper-260; the service with the shipped models on ``examples/footage/demo.mp4``, the demo's two
photo folders and six bench videos): the demo opened 2 alerts in each (a ``bump`` of 6-6 and the inferred end),
1 now; jersey-partnership seed 1500 opened 19, 4 now (14 ``pass_inferred``, each seat seen knocking, all 14 true
passes, and a ``bump`` are notes); muggins seed 1007 10, 3 now (7 passes seen knocked); the others kept their
flags, unsure reads and inferred ends.
"""

from __future__ import annotations

from typing import Callable

ACTION = "action"
INFO = "info"
SEVERITIES = (ACTION, INFO)
#: The ``note`` of an ``info`` alert, stored resolved by the worker from the start.
INFO_NOTE = "for information: the camera settled it, nothing for the umpire to decide"

#: Notice kinds the tracker settles itself, whatever their details: nothing in the record waits on the umpire.
INFO_NOTICES = {
    "bump": "a laid tile knocked a few mm or degrees: followed, no play",
    "moved": "a laid tile pushed further than a bump: followed, no play",
    "arm_in_photo": "a photo taken while an arm reached in: its move is read a photo late, seats counted so",
    "unlike_set": "a face-up tile unlike the set (a printed picture): no play",
    "picture_tile": "a face-up tile off the line found to be a picture: no play",
    # the review says it as a note too (vision/photo_order.py: done only when the tiles or the times are clear)
    "photos_reordered": "a folder's photos named out of order, read in the order taken",
}


def severity(notice: dict) -> str:
    """``"info"`` for a notice the tracker settled itself, else ``"action"`` (the umpire decides).

    Args:
        notice: a ``SourceItem.alert`` dict (``kind``, ``message`` and the notice's details at the top level,
            as :meth:`vision.placements.Notice.to_json` gives them).

    Besides :data:`INFO_NOTICES`: a ``reread`` the camera corrected the play for (``fixed``: a camera ``fix``
    in the hand's log, after clear reads); a ``tile_missing`` of a folder's photo that lacked a tile the photos
    before and after it show (``out_of_order``, nothing taken back; not when the seat's hand held a tile more
    there, ``hand_again``: photos out of order); a ``pass_inferred`` whose seat was seen knocking
    (``knock_seen``: its arm reached over the table and laid nothing, the next seat played); an
    ``overexposed`` picture whose glare hides no laid or held tile and lies at no open end.
    """
    kind = notice.get("kind")
    if kind in INFO_NOTICES:
        return INFO
    if kind == "reread" and notice.get("fixed"):
        return INFO
    if kind == "tile_missing" and notice.get("out_of_order") and not notice.get("hand_again"):
        return INFO
    if kind == "pass_inferred" and notice.get("knock_seen"):
        return INFO
    if kind == "overexposed" and "clipped" in notice and not any(
            notice.get(k) for k in ("hidden_tiles", "ends_glared", "hidden_hand_tiles")):
        return INFO
    return ACTION


def _tile(x: object) -> list[int] | None:
    return sorted(x) if isinstance(x, (list, tuple)) and len(x) == 2 else None


def settled_by(notice: dict, hand: int | None) -> tuple[Callable[[dict], bool], str] | None:
    """The open alerts of ``hand`` (the match hand it goes to) that ``notice`` settles, and why, or None:
    a ``picture_tile`` that was an ``unplaced_tile`` settles that tile's ``unplaced_tile`` alert; a ``reread``
    the camera corrected the play for settles the ``reread`` alerts of the tile as it was read before."""
    kind = notice.get("kind")
    if kind == "picture_tile" and notice.get("unplaced") and _tile(notice.get("tile")):
        tile, about = _tile(notice["tile"]), "unplaced_tile"
        why = f"the camera found {'-'.join(map(str, notice['tile']))} a picture: no play"
    elif kind == "reread" and notice.get("fixed") and _tile(notice.get("old")):
        tile, about = _tile(notice["old"]), "reread"
        why = f"the camera corrected the play: {notice.get('message', '')}"
    else:
        return None

    def moot(a: dict) -> bool:
        d = a.get("details") or {}
        return (a.get("category") == "vision" and a.get("kind") == about and a.get("hand") == hand
                and _tile(d.get("tile")) == tile and not d.get("fixed"))

    return moot, why
