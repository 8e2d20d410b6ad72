"""How a flag on a camera's read is worded: a mismatched end on an unsure read is a question.

A play the camera read with low confidence that seems to miss its end is more often a misread
than a bogus play, so the review and the report page of its record (corrected or not) call it
``uncertain_read`` and leave the accusation (``mismatched_end``) to confident reads and to plays
the umpire typed or fixed (they carry no confidence).
"""

from __future__ import annotations

#: Read confidence (0-1) below which a mismatched end is an ``uncertain_read``.
CONFIDENT = 0.8
#: The review's kind for an ``out_of_turn`` while the camera did not follow the boneyard (:func:`turn_in_doubt`).
UNCERTAIN_TURN = "uncertain_turn"


def turn_in_doubt(flag: dict) -> dict:
    """An ``out_of_turn`` ``flag`` worded as a question, :data:`UNCERTAIN_TURN` (helper-94: a seat that drew the
    boneyard out and passed looks the same as a turn played out of order when the camera could not count the
    boneyard); returns a new dict."""
    return {**flag, "kind": UNCERTAIN_TURN, "message": f"{flag['message']}, or {flag['expected']} passed: the "
                                                       "boneyard was not followed, so a pass cannot be told "
                                                       "from a turn played out of order"}


def as_read(flag: dict, confidence: float | None, confident: float = CONFIDENT) -> dict:
    """``flag`` (a timeline row's flag dict: ``kind``, ``message``, ...) as worded for a play read
    with ``confidence`` (None: typed by a person, never softened); returns a new dict or ``flag``."""
    if flag.get("kind") != "mismatched_end" or confidence is None or confidence >= confident:
        return flag
    return {**flag, "kind": "uncertain_read",
            "message": f"uncertain read of a possible mismatched end: {flag.get('message', '')} "
                       f"(confidence {confidence:.2f})"}


def rows_as_read(rows: list[dict], confident: float = CONFIDENT) -> list[dict]:
    """Timeline rows (:func:`engine.timeline.timeline`) with their flags worded by :func:`as_read`."""
    return [{**r, "flags": [as_read(f, r.get("confidence"), confident) for f in r["flags"]]} if r.get("flags") else r
            for r in rows]
