"""One line of the text notation per event: the grammar shared by hand scripts and records.

    N 6-6              lead (the first tile of the hand)
    E 6-4 W            play [6|4] on end W (the half that matches touches; written touching-first)
    S pass             knock
    W draw 2           draw two unseen tiles;  ``W draw 3-1 2-2`` draws seen tiles
    N takeback 6-4     a play taken back
    N penalty bogus_play          a named penalty of the rule set
    N penalty -10 slow play       a fine: points to the infractor's side, then the reason
    N penalty -25/+25 pass        points to the infractor / to each opponent side
    E reveal 6-5 4-4   tiles shown at the end of the hand
    deal N 6-6 5-4 ... / S 1-1 ...   the tiles dealt (one group per seat)
    deal unseen        hands and draws are not seen (a camera): no domino by counting tiles
    deal hidden        tiles dealt but not listed (a public copy of a hand in play); draws are counted
    end domino N | end locked | end time | end redeal | end umpire [reason]
    fix 7 E 3-4 W      correction: event number 7 is replaced by the event after it
    void 7             correction: event number 7 is voided

Any line may end with ``t=SECONDS`` and/or ``f=FRAME``. ``#`` starts a comment.

>>> parse_event("E 6-4 W t=12.5")
Play(t=12.5, frame=None, type='play', seat='E', tile=[6|4], end='W', oriented=False, confidence=None, seat_by_turn=False)
>>> format_event(parse_event("N penalty -25/+25 pass with a play"))
'N penalty -25/+25 pass with a play'
"""

from __future__ import annotations

import re

from pydantic import ValidationError

from engine.events import Correction, Deal, Draw, HandEnd, Pass, Penalty, Play, Reveal, TakeBack
from engine.seats import SEATS
from engine.tiles import Tile, TileError


class NotationError(ValueError):
    """A line that does not follow the notation; the message quotes it."""


#: The end a play names: the line's two arms (W, E), a spinner's other two (N, S), and further
#: spinners' (N2, S2, ...).
_END_RE = re.compile(r"^[WENS]\d*$", re.ASCII)
_TS_RE = re.compile(r"\s+([tf])=(\S*)\s*$", re.IGNORECASE)
_PTS_RE = re.compile(r"^([+-]?\d+)(?:/([+-]?\d+))?$", re.ASCII)


def _whole(word: str) -> bool:
    """A whole number in ASCII digits (``str.isdigit`` also takes "²" and "٣", which ``int`` reads or refuses)."""
    return word.isascii() and word.isdigit()


def _split_stamps(line: str) -> tuple[str, dict]:
    stamps: dict = {}
    while True:
        m = _TS_RE.search(line)
        if not m:
            return line, stamps
        key = "t" if m.group(1).lower() == "t" else "frame"
        try:
            if not m.group(2).isascii():
                raise ValueError  # float() also reads other scripts' digits
            value = float(m.group(2)) if key == "t" else int(m.group(2))
        except ValueError:
            what = "seconds (a number >= 0)" if key == "t" else "a frame index (a whole number >= 0)"
            raise NotationError(f"{line.strip()!r}: {m.group(1)}={m.group(2)} is not {what}") from None
        stamps[key] = value
        line = line[: m.start()]


def without_stamps(line: str) -> str:
    """A notation line without its trailing ``t=``/``f=`` stamps (a correction's inner ones too), for
    a page that shows the time in a column of its own; a line whose stamps do not parse is kept whole."""
    try:
        return _split_stamps(line)[0].rstrip()
    except NotationError:
        return line


def _tiles(words: list[str]) -> list[Tile]:
    return [Tile.parse(w) for w in words]


def parse_event(line: str):
    """Parse one notation line into an engine event.

    Raises:
        NotationError: the line does not follow the grammar (message quotes it and says why).
    """
    text = line.split("#", 1)[0].strip() if not line.strip().startswith(("fix", "void")) else line.strip()
    body, stamps = _split_stamps(text)
    words = body.split()
    if not words:
        raise NotationError("empty line")
    try:
        return _parse_words(words, stamps)
    except ValidationError as exc:
        err = exc.errors()[0]
        field = {"t": "t", "frame": "f", "confidence": "c"}.get(str(err["loc"][0]), "") if err["loc"] else ""
        msg = f"{field}: {err['msg'][0].lower()}{err['msg'][1:]}" if field else err["msg"]
        raise NotationError(f"{line.strip()!r}: {msg}") from None
    except (TileError, ValueError, IndexError) as exc:
        if isinstance(exc, NotationError):
            raise
        raise NotationError(f"{line.strip()!r}: {exc}") from None


def _parse_words(words: list[str], stamps: dict):
    head = words[0]
    if head in ("void", "fix") and (len(words) < (2 if head == "void" else 3) or not _whole(words[1])):
        form = "void N" if head == "void" else "fix N EVENT"
        raise NotationError(f"{' '.join(words)!r}: a correction is '{form}', N the number of the event it replaces")
    if head == "void":
        if len(words) > 2 and not words[2].startswith("#"):  # helper-98: "void 18 because ..." was dropped silently
            raise NotationError(f"{' '.join(words)!r}: 'void N' takes nothing after the event number (who and "
                                "why go in a record's by=\"...\" why=\"...\")")
        return Correction(replaces=int(words[1]), event=None, **stamps)
    if head == "fix":
        if words[2] in ("fix", "void"):  # a correction replaces the event itself: fix its number again
            raise NotationError(f"{' '.join(words)!r}: a fix replaces an event with an event, not with another "
                                f"correction (to change event {words[1]} again, write 'fix {words[1]} EVENT' anew)")
        return Correction(replaces=int(words[1]), event=_parse_words(words[2:], {}), **stamps)
    if head == "deal" and words[1:] == ["unseen"]:
        return Deal(hands={}, draws_seen=False, **stamps)
    if head == "deal" and words[1:] == ["hidden"]:
        return Deal(hands={}, **stamps)
    if head == "deal":  # deal N 6-6 5-4 ... / S 1-1 ...
        hands: dict[str, list[Tile]] = {}
        for group in " ".join(words[1:]).split("/"):
            if not group.split():
                raise NotationError(f"{' '.join(words)!r}: a deal is 'deal SEAT TILES ... / SEAT TILES ...' "
                                    "(or 'deal unseen', 'deal hidden')")
            seat = group.split()[0].upper()
            if seat in hands:  # fix (tests/test_cli_score.py): the second group silently replaced the first
                raise NotationError(f"{' '.join(words)!r}: {seat} is dealt twice in one deal line")
            hands[seat] = _tiles(group.split()[1:])
        return Deal(hands=hands, **stamps)
    if head == "end":
        if len(words) < 2:
            raise NotationError("'end': say how the hand ended: end domino SEAT | end locked | end time | "
                                "end redeal | end umpire [reason]")
        kind = words[1]
        winner = words[2] if kind == "domino" and len(words) > 2 else None
        reason = " ".join(words[3:] if winner else words[2:])
        return HandEnd(kind=kind, winner=winner, reason=reason, **stamps)
    seat = head.upper()
    if seat not in SEATS:
        raise NotationError(f"{' '.join(words)!r}: a line starts with a seat (N, E, S, W), deal, end, fix or void")
    if len(words) < 2:
        raise NotationError(f"{' '.join(words)!r}: what did {seat} do?")
    verb, rest = words[1], words[2:]
    if verb == "pass":
        return Pass(seat=seat, **stamps)
    if verb == "draw":
        if not rest:
            return Draw(seat=seat, **stamps)
        if len(rest) == 1 and _whole(rest[0]):
            return Draw(seat=seat, count=int(rest[0]), **stamps)
        tiles = _tiles(rest)
        return Draw(seat=seat, count=len(tiles), tiles=tiles, **stamps)
    if verb == "takeback":
        if len(rest) != 1:
            raise NotationError(f"{' '.join(words)!r}: a take-back is SEAT takeback TILE")
        return TakeBack(seat=seat, tile=Tile.parse(rest[0]), **stamps)
    if verb == "reveal":
        return Reveal(seat=seat, tiles=_tiles(rest), **stamps)
    if verb == "penalty":
        if not rest:  # fix (tests/test_cli_score.py): was "list index out of range"
            raise NotationError(f"{' '.join(words)!r}: a penalty needs a name or points: SEAT penalty NAME [reason], "
                                "SEAT penalty POINTS[/OPPONENTS] [reason]")
        m = _PTS_RE.match(rest[0])
        if m:
            opp = int(m.group(2)) if m.group(2) is not None else None
            return Penalty(seat=seat, points=int(m.group(1)), opponents=opp, reason=" ".join(rest[1:]), **stamps)
        return Penalty(seat=seat, name=rest[0], reason=" ".join(rest[1:]), **stamps)
    tile = Tile.parse(verb)
    if len(rest) > 1 or (rest and not _END_RE.match(rest[0].upper())):
        # an unknown word was an end name, or silently dropped with the t=/f= before it
        raise NotationError(f"{' '.join(words)!r}: a play is SEAT TILE [END] [t=SECONDS] [f=FRAME], END one of "
                            "W, E, N, S (N2, S2, ... for further spinners)")
    end = rest[0].upper() if rest else None
    return Play(seat=seat, tile=tile, end=end, **stamps)


def format_event(ev) -> str:
    """The notation line of an event (inverse of :func:`parse_event`)."""
    if isinstance(ev, Correction):
        body = f"void {ev.replaces}" if ev.event is None else f"fix {ev.replaces} {format_event(ev.event)}"
        return body + _stamps(ev)
    if isinstance(ev, Deal) and not ev.hands:
        return ("deal hidden" if ev.draws_seen else "deal unseen") + _stamps(ev)
    if isinstance(ev, Deal):
        return "deal " + " / ".join(f"{s} " + " ".join(map(str, t)) for s, t in ev.hands.items()) + _stamps(ev)
    if isinstance(ev, HandEnd):
        parts = ["end", ev.kind] + ([ev.winner] if ev.winner else []) + ([ev.reason] if ev.reason else [])
        return " ".join(parts) + _stamps(ev)
    if isinstance(ev, Play):
        body = f"{ev.seat} {ev.tile}" + (f" {ev.end}" if ev.end else "")
    elif isinstance(ev, Pass):
        body = f"{ev.seat} pass"
    elif isinstance(ev, Draw):
        body = f"{ev.seat} draw " + (" ".join(map(str, ev.tiles)) if ev.tiles else str(ev.count))
    elif isinstance(ev, TakeBack):
        body = f"{ev.seat} takeback {ev.tile}"
    elif isinstance(ev, Reveal):
        body = f"{ev.seat} reveal " + " ".join(map(str, ev.tiles))
    elif isinstance(ev, Penalty):
        if ev.name:
            what = ev.name
        else:
            what = f"{ev.points:+d}" + (f"/{ev.opponents:+d}" if ev.opponents is not None else "")
        body = f"{ev.seat} penalty {what}" + (f" {ev.reason}" if ev.reason else "")
    else:
        raise NotationError(f"cannot write {ev!r}")
    return body + _stamps(ev)


def _stamps(ev) -> str:
    out = ""
    if ev.t is not None:
        out += f" t={ev.t!r}"  # repr: shortest text that reads back to the same float
    if ev.frame is not None:
        out += f" f={ev.frame}"
    return out
