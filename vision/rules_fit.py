"""Whether the footage fits the rule set it is reviewed under, by what the camera sees of the deal
and the boneyard.

Two rule-set parameters (``engine/ruleset.py``, ``docs/rules.md``) show on the table whatever the
score says:

* ``boneyard``: a rule set without one (``block``, pagat: "no drawing; the undealt tiles stay out of
  play"; ``nova-block``, ``jersey-partnership``, ``bdc-partnership``, ``fives-and-threes``) has no
  drawing, so undealt tiles that go into the seat to play's hand are draws its rules forbid: the
  footage is a draw game (reviewed as a block game its draws are lost, and the drawer "dominoes"
  tiles early);
* ``hand_size``: the tiles each seat holds at the deal, the face-down tiles in every playing seat's
  hand area at the last read before the lead.

The seats are checked by the tracker itself (``seats_unseen``, from the arms). Only clear evidence
counts, as a wrong rule set is warned about, never refused. A draw seen is a drop of a
:class:`vision.boneyard.BoneyardCounter` kept on the undealt tiles (a count that matched the deal
before the lead, a drop held for two reads) first seen in a read that laid no tile and in which the
seat to play's hand area gained that tile: a drop alone is no draw, as under a 2-seat rule set the
hands of a 4-seat table's other seats count as undealt, and their plays take tiles from them
(jersey-partnership seed 37 reviewed as block: 2 such drops, none into the hand to play). The deal
is a misfit (:func:`deal_misfit`) only when every playing seat holds the same number of tiles and
that is not the rule set's.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from engine.events import Draw
from engine.ruleset import Ruleset
from engine.tiles import full_set
from vision.boneyard import BoneyardCounter
from vision.placements import Notice

__all__ = ["RulesFitWatch", "deal_misfit", "draws_misfit"]


def draws_misfit(rules: Ruleset, drawn: int, gained: int, first: tuple[str, float] | None = None) -> str | None:
    """The warning when the camera saw draws that ``rules`` forbid, else None.

    Args:
        rules: the rule set of the review.
        drawn: tiles seen leaving the undealt ones (confirmed drops of a trusted count, from reads that
            laid no tile), over the whole footage.
        gained: of those, tiles that the hand area of the seat to play gained in the same read: the
            draws seen (one is clear evidence; a drop alone is none).
        first: ``(seat, t seconds)`` of the first draw seen, for the message.
    """
    if rules.boneyard or min(drawn, gained) < 1:
        return None
    # said at the first draw seen, once: no count, as later draws are not added to it (helper-166: "1 tile"
    # read as a misread on footage with 9 draws)
    where = f" ({first[0]} at {first[1]:.1f} s)" if first else ""
    return (f"a draw from the boneyard seen{where}, but {rules.name} has no drawing "
            "(boneyard = false): the footage looks like a draw game (e.g. --rules draw), and the hand's end and "
            "score may be wrong; check the rule set")


def deal_misfit(rules: Ruleset, hands: dict[str, int], order: list[str]) -> str | None:
    """The warning when the hands seen at the deal are not the rule set's ``hand_size``, else None.

    Args:
        rules: the rule set of the review.
        hands: face-down tiles in each playing seat's hand area at the last read before the lead
            (seats with none may be left out).
        order: the playing seats (the hand's turn order).
    """
    counts = {seat: hands.get(seat, 0) for seat in order}
    sizes = set(counts.values())
    if len(order) < 2 or len(sizes) != 1:
        return None  # a seat with another count: a tile missed or a false box, no clear deal
    k = sizes.pop()
    if k < 1 or k == rules.hand_size or k * len(order) > len(full_set(rules.set_max)):
        return None
    return (f"hands of {k} tiles seen at the deal ({' and '.join(order)}), but {rules.name} deals "
            f"{rules.hand_size} (hand_size): the hand's end and score may be wrong; check the rule set (--rules)")


@dataclass
class RulesFitWatch:
    """Per footage: what the camera saw of the deal and the boneyard, and the ``rules_misfit`` notices
    it makes (each once). The tracker calls :meth:`new_hand` and, at each committed read before its
    plays, :meth:`step`."""

    rules: Ruleset
    drawn: int = 0  # tiles seen leaving the undealt ones, in reads that laid no tile
    gained: int = 0  # of those, tiles the seat to play's hand area gained in that read: draws seen
    first: tuple[str, float] | None = None  # (seat, t s) of the first draw seen
    noticed: set[str] = field(default_factory=set)  # the parameters already warned about
    _undealt: BoneyardCounter | None = None
    _deal: dict[str, int] | None = None  # hands at the last read before the lead (laying no tile)
    _dealt = False  # the deal of this hand was judged
    _hands: dict[str, int] | None = None  # hands at the previous read
    _reads: dict[int, tuple[int, int]] = field(default_factory=dict)  # frame -> (tiles laid, turn's gain)

    def new_hand(self) -> None:
        """A new hand starts: a count of its undealt tiles (rule sets without drawing only)."""
        undealt = len(full_set(self.rules.set_max)) - self.rules.hand_size * self.rules.players
        self._undealt = BoneyardCounter(undealt) if not self.rules.boneyard and undealt > 0 else None
        self._deal, self._dealt, self._hands, self._reads = None, False, None, {}

    def step(self, seen: int, hands: dict[str, int], order: list[str], turn: str | None, started: bool,
             laid: int, t: float, frame: int) -> list[Notice]:
        """One committed read: ``seen`` face-down tiles apart from the playing seats' hand areas,
        ``hands`` those in each one (seats with none left out), ``turn`` the seat to play (None before the
        lead or after the end), ``started`` the lead is down, ``laid`` new face-up tiles outside the hand
        areas in this read. Returns at most one ``rules_misfit`` notice per parameter for the footage."""
        out: list[Notice] = []
        if not started and not self._dealt:
            if laid:  # the lead's read: the hands as they stood just before it are the deal
                self._dealt = True
                out += self._judge_deal(order, t, frame)
            else:
                self._deal = dict(hands)
        elif not self._dealt:  # the lead was seen laid in an earlier read (a read that laid it and more)
            self._dealt = True
            out += self._judge_deal(order, t, frame)
        prev, self._hands = self._hands, dict(hands)
        if self._undealt is None:
            return out
        if turn is not None and prev is not None:
            self._reads[frame] = (laid, hands.get(turn, 0) - prev.get(turn, 0))
        for ev in self._undealt.step(seen, turn, t, frame, started):
            if not isinstance(ev, Draw):
                continue  # its boneyard_uncounted notice is for draw games: here no count is no evidence
            laid0, gain0 = self._reads.get(ev.frame, (1, 0))
            if laid0:
                continue
            self.drawn += ev.count
            self.gained += min(ev.count, max(0, gain0))
            if gain0 > 0:
                self.first = self.first or (ev.seat, ev.t)
        message = None if "boneyard" in self.noticed else draws_misfit(self.rules, self.drawn, self.gained, self.first)
        if message:
            self.noticed.add("boneyard")
            out.append(Notice("rules_misfit", t, frame, message, seat=self.first[0] if self.first else None,
                              details={"parameter": "boneyard", "rule": False, "drawn": self.drawn,
                                       "drawn_into_hand": self.gained}))
        return out

    def _judge_deal(self, order: list[str], t: float, frame: int) -> list[Notice]:
        if self._deal is None or "hand_size" in self.noticed:
            return []
        message = deal_misfit(self.rules, self._deal, order)
        if message is None:
            return []
        self.noticed.add("hand_size")
        seen = {seat: self._deal.get(seat, 0) for seat in order}
        return [Notice("rules_misfit", t, frame, message,
                       details={"parameter": "hand_size", "rule": self.rules.hand_size, "seen": seen})]
