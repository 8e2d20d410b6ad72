"""Whether the footage fits the rule set it is reviewed under, by what the camera sees of the deal,
the boneyard and the seats.

Four rule-set parameters (``engine/ruleset.py``, ``docs/rules.md``) show on the table whatever the
score says:

* ``boneyard``: a rule set without one (``block``, pagat: "no drawing; the undealt tiles stay out of
  play"; ``nova-block``, ``jersey-partnership``, ``bdc-partnership``, ``fives-and-threes``) has no
  drawing, so undealt tiles that go into the seat to play's hand are draws its rules forbid: the
  footage is a draw game (reviewed as a block game its draws are lost, and the drawer "dominoes"
  tiles early). One that deals every tile (the 4-seat ones: 7 each of 28) leaves no face-down tile
  outside the hands at the deal, so a pile of them there is a misfit (:func:`pile_misfit`): a boneyard
  or tiles set aside (pagat's block game for 2 leaves 14 out of play), which only draws tell apart;
* ``draw_rule``: under ``until_playable`` (pagat Draw Game: "draw until a tile will play or the
  boneyard is empty, then pass") a hand cannot lock while tiles the reserve does not keep back are
  left to draw: such a lock is a game without drawing (:func:`lock_misfit`);
* ``hand_size``: the tiles each seat holds at the deal, the face-down tiles in every playing seat's
  hand area at the last read before the lead;
* ``set_max``: face-down tiles at the deal (the hands and the rest) nearer a larger set's count than the
  rule set's (:func:`set_misfit`): a larger set (double-twelve footage reviewed as draw: 7 + 7 + 77 = 91
  tiles), whose halves beyond the rule set's pips the review cannot read;
* ``players``: arms that clearly laid tiles from more seats than the rule set seats
  (:func:`seats_misfit`). Fewer seats are the tracker's own check (``seats_unseen``), whose hint
  comes from here (:meth:`RulesFitWatch.seats_seen`);
* ``play_direction``: with 3 or 4 seats the next seat to play is the one to the left (clockwise,
  pagat's "play passes to the left") or to the right; plays by arm that keep going the other way
  (:data:`REVERSED_PLAYS`, most of the pairs) are a table playing the other direction
  (:func:`direction_misfit`). With 2 seats both directions are the same order.

Only clear evidence counts, as a wrong rule set is warned about, never refused: a count must show
:data:`CLEAR_TILES` tiles or more, held over two reads. A draw seen is a drop of a
:class:`vision.boneyard.BoneyardCounter` kept on the undealt tiles (a count that matched the deal
before the lead, a drop held for two reads) first seen in a read that laid no tile and in which the
seat to play's hand area gained that tile: a drop alone is no draw, as under a 2-seat rule set the
hands of a 4-seat table's other seats count as undealt, and their plays take tiles from them
(jersey-partnership seed 37 reviewed as block: 2 such drops, none into the hand to play). The deal
is a misfit (:func:`deal_misfit`) only when every playing seat holds the same number of tiles and
that is not the rule set's. Each warning names the shipped presets that fit what was seen
(:func:`engine.ruleset.presets_with`), when any do: all warnings of a footage draw on one
:class:`Observed` (the seats, tiles each and boneyard seen so far, never the values of the rule set
that the footage contradicts), so no hint names presets another one rules out.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import asdict, dataclass, field, replace

from engine.events import Draw
from engine.ruleset import Ruleset, presets_with
from engine.seats import SEATS
from engine.tiles import full_set
from engine.words import plural
from vision.boneyard import BoneyardCounter
from vision.placements import Notice

__all__ = ["BY_HAND", "CLEAR_TILES", "EXTRA_SEAT_PLAYS", "LARGER_SETS", "OTHER_WAY", "READ_SET_MAX", "REVERSED_PLAYS",
           "SET_WORDS", "Observed", "RulesFitWatch", "deal_misfit", "deal_observed", "direction_misfit", "draws_misfit",
           "larger_set", "lock_misfit", "pile_misfit", "seats_misfit", "set_misfit", "seats_turned"]

#: Tiles a count must show (and hold over two reads) to be evidence against the rule set: one or two are
#: a box missed or a false box (the table beside a laid tile: ``vision.tracking.LINE_GAP_TILES``), or a
#: last draw not yet confirmed when the hand ended.
CLEAR_TILES = 3
#: Plays an arm must clearly lay from a seat before that seat counts as playing (as ``seats_unseen``
#: asks two plays by arm of each seat it counts).
EXTRA_SEAT_PLAYS = 2
#: Pairs of successive plays by arm that went to the seat before the last one in the rule set's turn
#: order (the other direction), and at least twice those that went to the seat after it, before the
#: direction is a misfit: a play direction that fits goes back a seat only when every other seat passed.
REVERSED_PLAYS = 4
#: The play direction a table playing the other way round has.
OTHER_WAY = {"clockwise": "counterclockwise", "counterclockwise": "clockwise"}
#: The largest set whose tiles the review reads: the pip reader's classes are 0..6 (models/pip_reader.md), and
#: ``dominocast review`` refuses rule sets beyond it (``service.cli_review._check_set``).
READ_SET_MAX = 6
#: The sets above double six a rule set can play (``engine.ruleset.Ruleset.set_max``), smallest first.
LARGER_SETS = (9, 12)
#: How the sets are called (double-nine, double-twelve).
SET_WORDS = {6: "six", 9: "nine", 12: "twelve"}
#: A hint's advice when the footage's set is beyond what the review reads (no rule set file helps).
BY_HAND = (f"the review reads tiles of sets up to double {SET_WORDS[READ_SET_MAX]} (pips 0..{READ_SET_MAX}) only: "
           "check the plays and score by hand")
#: The advice every warning ends with.
CHECK = "the hand's end and score may be wrong; check the rule set (--rules)"


@dataclass(frozen=True)
class Observed:
    """What the camera showed of the rule set so far, each None until seen clearly: how many seats play
    (the deal's hands, or arms), the tiles each was dealt, whether there is a boneyard (draws seen, or
    a lock with tiles left that none drew; a pile beyond the hands is none: it may be tiles set aside), the play
    direction, and a set larger than the rule set's. Every hint names the presets that fit all of it (:meth:`hint`)."""

    players: int | None = None
    hand_size: int | None = None
    boneyard: bool | None = None
    play_direction: str | None = None
    #: the set the tiles counted at the deal need (:func:`set_misfit`; None: the rule set's)
    set_max: int | None = None
    #: the seats the draws that showed a boneyard were counted among (the rule set's ``players``; None: no
    #: draws seen). Draws are read under the rule set: the face-down tiles apart from its seats' hand areas
    #: are its boneyard, and a tile leaving them and the next play is a draw. When more seats play
    #: (``players``), those tiles are the other seats' hands and the "draws" their plays, so the boneyard is
    #: no fact then (:meth:`facts`): 4-seat bdc-partnership footage reviewed as lisa-b-all-fives (2 seats,
    #: a boneyard) counted 8 draws, and its hint named no preset "with a boneyard dealing 7 tiles to 4 seats"
    #: instead of bdc-partnership (helper-201).
    drawn_among: int | None = None

    def but(self, **facts: object) -> "Observed":
        """This with ``facts`` (a warning's own) added, over what was seen before."""
        return replace(self, **facts)

    def facts(self) -> "Observed":
        """What the presets named must fit: this, less a boneyard shown only by draws counted among fewer
        seats than play (:attr:`drawn_among`), whose "boneyard" is the other seats' hands."""
        if self.boneyard and self.drawn_among is not None and self.players and self.players > self.drawn_among:
            return replace(self, boneyard=None, drawn_among=None)
        return replace(self, drawn_among=None)

    def draws_doubtful(self) -> bool:
        """Whether draws were counted among fewer seats than play: the seats the rule set lacks had their hands
        taken for the boneyard, and their plays for draws (:attr:`drawn_among`)."""
        return bool(self.boneyard and self.drawn_among is not None and self.players
                    and self.players > self.drawn_among)

    def hint(self, rules: Ruleset) -> str:
        """``"presets {what was seen}: a, b"``, the shipped presets with these values (and ``rules``'s set),
        or ``"no shipped preset {what was seen}: write a rule set file (--rules FILE)"``; for a set beyond double
        :data:`READ_SET_MAX`, which no rule set file would make readable, :data:`BY_HAND` instead. A warning's own
        fact contradicts ``rules``, so it is never named; a copy of a preset under the preset's own name, changed
        where the footage differs, can name that preset."""
        seen = self.facts()
        fields = {"set_max": rules.set_max, **{key: value for key, value in asdict(seen).items() if value is not None}}
        if fields["set_max"] > READ_SET_MAX:  # a rule set file would be refused: no file can help
            return f"no shipped preset {seen.describe()}; {BY_HAND}"
        names = presets_with(**fields)
        if names:
            return f"presets {seen.describe()}: {', '.join(names)}"
        return f"no shipped preset {seen.describe()}: write a rule set file (--rules FILE)"

    def describe(self) -> str:
        """``"with a boneyard dealing 7 tiles to 2 seats"``, ``"for 4 seats playing counterclockwise"``,
        ``"for a double-twelve set dealing 7 tiles to 2 seats"``."""
        parts = [] if self.set_max is None else [f"for a double-{SET_WORDS[self.set_max]} set"]
        parts += [] if self.boneyard is None else ["with a boneyard" if self.boneyard else "without a boneyard"]
        if self.hand_size:
            parts.append(f"dealing {plural(self.hand_size, 'tile')}"
                         + (f" to {plural(self.players, 'seat')}" if self.players else ""))
        elif self.players:
            parts.append(f"for {plural(self.players, 'seat')}")
        if self.play_direction:
            parts.append(f"playing {self.play_direction}")
        return " ".join(parts)


def deal_observed(hands: dict[str, int]) -> Observed:
    """The seats and tiles each of a deal, from the face-down tiles in the four hand areas (seats with
    none may be left out): the hands are the areas holding the count most of them hold, two at least;
    every other area must be empty or hold :data:`CLEAR_TILES` more (a pile: a 2-seat game's boneyard
    lies along a side edge), else nothing is clear. ``{N: 7, S: 7, W: 14}``: 2 seats, 7 tiles each."""
    held = Counter(n for n in hands.values() if n > 0)
    ranked = held.most_common()
    if not ranked or ranked[0][1] < 2 or (len(ranked) > 1 and ranked[1][1] == ranked[0][1]):
        return Observed()
    k, seats = ranked[0]
    if any(n != k and 0 < n < k + CLEAR_TILES for n in hands.values()):
        return Observed()  # a tile missed or a false box in a hand: no clear deal
    return Observed(players=seats, hand_size=k)


def draws_misfit(rules: Ruleset, drawn: int, gained: int, first: tuple[str, float] | None = None,
                 observed: Observed = Observed()) -> str | None:
    """The warning when the camera saw draws that ``rules`` forbid, else None.

    Args:
        rules: the rule set of the review.
        drawn: tiles seen leaving the undealt ones (confirmed drops of a trusted count, from reads that
            laid no tile), over the whole footage.
        gained: of those, tiles that the hand area of the seat to play gained in the same read: the
            draws seen (one is clear evidence; a drop alone is none).
        first: ``(seat, t seconds)`` of the first draw seen, for the message.
        observed: what else was seen (the hint's presets fit it, with a boneyard).
    """
    if rules.boneyard or min(drawn, gained) < 1:
        return None
    # said at the first draw seen, once: no count, as later draws are not added to it (helper-166: "1 tile"
    # read as a misread on footage with 9 draws)
    where = f" ({first[0]} at {first[1]:.1f} s)" if first else ""
    hint = observed.but(boneyard=True, drawn_among=rules.players).hint(rules)
    return (f"a draw from the boneyard seen{where}, but {rules.name} has no drawing (boneyard = false): the "
            f"footage looks like a draw game; {CHECK}; {hint}")


def deal_misfit(rules: Ruleset, hands: dict[str, int], order: list[str],
                observed: Observed = Observed(), edges: dict[str, int] | None = None) -> str | None:
    """The warning when the hands seen at the deal are not the rule set's ``hand_size``, else None; it
    names the seats seen holding that many and the shipped presets that deal that many tiles (to the
    seats seen: muggins, 5 to 2).

    Args:
        rules: the rule set of the review.
        hands: face-down tiles in each playing seat's hand area at the last read before the lead
            (seats with none may be left out).
        order: the playing seats (the hand's turn order).
        observed: what else was seen (the seats: the hand areas holding as many, :func:`deal_observed`).
        edges: face-down tiles in each of the four hand areas at that read, the rule set's seats or not
            (None: not known). The message names every area holding as many as the playing seats, and
            says how many seats the rule set deals to when they are more (helper-186: a 4-seat deal of 7
            reviewed as muggins named "N and S" beside a hint "dealing 7 tiles to 4 seats").
    """
    counts = {seat: hands.get(seat, 0) for seat in order}
    sizes = set(counts.values())
    if len(order) < 2 or len(sizes) != 1:
        return None  # a seat with another count: a tile missed or a false box, no clear deal
    k = sizes.pop()
    if k < 1 or k == rules.hand_size or k * len(order) > len(full_set(rules.set_max)):
        return None
    holding = list(order) if edges is None else [seat for seat in SEATS if seat in order or edges.get(seat, 0) == k]
    seated = ("" if len(holding) == len(order)
              else f" to {plural(len(order), 'seat')} (players = {rules.players}: {' and '.join(order)})")
    hint = observed.but(hand_size=k).hint(rules)
    return (f"hands of {k} tiles seen at the deal ({_seats(holding)}), but {rules.name} deals "
            f"{rules.hand_size} (hand_size){seated}: {CHECK}; {hint}")


def _seats(seats: list[str]) -> str:
    """``"N and S"``, ``"N, E, S and W"``."""
    return seats[0] if len(seats) == 1 else f"{', '.join(seats[:-1])} and {seats[-1]}"


def lock_misfit(rules: Ruleset, left: int, blocked: bool, t: float | None = None,
                observed: Observed = Observed()) -> str | None:
    """The warning when the hand locked with tiles left to draw under a rule set whose seats must draw
    until they can play, else None.

    Under ``draw_rule = "until_playable"`` (pagat Draw Game: "draw until a tile will play or the boneyard
    is empty, then pass"; muggins: "he must draw tiles from the boneyard until he draws a playable tile")
    a round of passes needs a boneyard drawn down to its reserve (``boneyard_reserve``: muggins keeps 2
    of a 2-seat game's). A line that no tile of the set fits (``blocked``: the seeds' "locked game") ends
    the hand whatever is left to draw, and ``any_time`` or ``none`` allows a pass with tiles to draw: no
    warning then.

    Args:
        rules: the rule set of the review.
        left: face-down tiles in the boneyard when the hand locked (a count the camera followed).
        blocked: the line of play is blocked (``engine.layout.Layout.is_locked``).
        t: when the hand locked, seconds, for the message.
        observed: what else was seen (the hint's presets fit it, without a boneyard); draws seen
            (``boneyard`` True) show a game with drawing: no warning.
    """
    drawable = left - rules.reserve()
    if not rules.boneyard or rules.draw_rule != "until_playable" or blocked or drawable < CLEAR_TILES:
        return None
    if observed.boneyard:  # draws seen: the seats draw, so the lock is a misread, not a game without drawing
        return None  # (helper-179: said of double-twelve footage just after 56 draws were counted)
    at = f" at {t:.1f} s" if t is not None else ""
    kept = f"{rules.reserve()} kept back" if rules.reserve() else "none kept back"
    hint = observed.but(boneyard=False).hint(rules)
    return (f"the hand locked{at} with {plural(drawable, 'tile')} left to draw, but under {rules.name} a seat "
            f"that cannot play draws until it can (draw_rule = until_playable; boneyard_reserve: {kept}): the "
            f"footage looks like a game without drawing; {CHECK}; {hint}")


def larger_set(rules: Ruleset, tiles: int) -> int | None:
    """The set of :data:`LARGER_SETS` above ``rules``'s whose tile count is nearest to ``tiles`` face-down
    tiles counted, when it is nearer than the rule set's own (false boxes or missed ones move a count by a
    few, the sets lie 27 and more apart: 28, 55, 91); else None. 91 tiles: 12; 34 (6 false boxes): None; 136
    (a double fifteen, beyond what the engine plays): 12, the largest."""
    sets = [rules.set_max] + [n for n in LARGER_SETS if n > rules.set_max]
    nearest = min(sets, key=lambda n: abs(len(full_set(n)) - tiles))
    return None if nearest == rules.set_max else nearest


def set_misfit(rules: Ruleset, apart: int, hands: dict[str, int], observed: Observed = Observed()) -> str | None:
    """The warning when the face-down tiles on the table at the deal are nearer a larger set's count than
    the rule set's (:func:`larger_set`), else None: the footage plays a larger set. Its tiles with more pips
    on a half than the rule set's are misread or missed (the pip reader reads up to double
    :data:`READ_SET_MAX`), so the plays and the score cannot be trusted (helper-186: double-twelve footage
    reviewed as draw, 7 + 7 + 77 = 91 tiles at the deal, got only a note that the boneyard was not counted,
    and 20 "face-up tiles touched no open end").

    Args:
        rules: the rule set of the review.
        apart: face-down tiles apart from the playing seats' hand areas (a boneyard, or undealt tiles).
        hands: face-down tiles in each playing seat's hand area (seats with none may be left out).
        observed: what else was seen (the hint's presets fit it, for the set seen).
    """
    in_hands = sum(hands.values())
    seen, held = apart + in_hands, len(full_set(rules.set_max))
    n = larger_set(rules, seen)
    if n is None:
        return None
    # more than the largest set the engine plays holds (a double fifteen has 136): that one or larger
    larger = f"a double-{SET_WORDS[n]} set ({plural(len(full_set(n)), 'tile')})" + (
        " or a larger one" if n == LARGER_SETS[-1] and seen >= len(full_set(n)) + CLEAR_TILES else "")
    hint = observed.but(set_max=n).hint(rules)
    return (f"{plural(seen, 'face-down tile')} seen at the deal ({in_hands} in the hands, {apart} apart from them), "
            f"but {rules.name} plays a double-{SET_WORDS[rules.set_max]} set of {held} tiles (set_max = "
            f"{rules.set_max}): the footage looks like {larger}, whose tiles with more than {rules.set_max} pips on "
            f"a half are misread or missed: {CHECK}; {hint}")


def pile_misfit(rules: Ruleset, seen: int, hands: dict[str, int], order: list[str],
                observed: Observed | None = None) -> str | None:
    """The warning when a rule set that deals every tile and has no boneyard (jersey-partnership,
    nova-block, bdc-partnership: 7 to each of 4 seats, all 28) sees a pile of face-down tiles beyond
    the hands at the deal, else None: the footage deals fewer tiles. That pile is a boneyard (a draw
    game) or tiles set aside (block, pagat: "the undealt tiles stay out of play"); only draws seen
    tell which (:func:`draws_misfit`), so the presets it names fit ``observed`` (None: the deal
    ``hands`` shows, :func:`deal_observed`) with or without a boneyard (helper-179: a 2-seat block
    game reviewed as nova-block was told to pick a draw game, and never named block).

    Args:
        rules: the rule set of the review.
        seen: face-down tiles apart from the playing seats' hand areas.
        hands: face-down tiles in each playing seat's hand area (seats with none may be left out); a hand
            area holding more than ``hand_size`` has the rest of the pile.
        order: the playing seats.
    """
    if rules.boneyard or rules.hand_size * rules.players < len(full_set(rules.set_max)):
        return None  # undealt tiles lie apart from the hands by the rules: the draws seen decide
    over = {seat: hands[seat] for seat in order if hands.get(seat, 0) > rules.hand_size}
    if seen + sum(n - rules.hand_size for n in over.values()) < CLEAR_TILES:
        return None
    where = [f"{n} in {seat}'s hand area" for seat, n in over.items()] + (
        [f"{seen} apart from the hand areas"] if seen else [])
    hint = (deal_observed(hands) if observed is None else observed).hint(rules)
    return (f"face-down tiles beyond the hands at the deal ({' and '.join(where)}), but {rules.name} deals "
            f"every tile, {rules.hand_size} to each of {plural(rules.players, 'seat')}: a boneyard or tiles set "
            f"aside, the footage looks like a game that leaves tiles undealt (a draw game, or a block game for "
            f"fewer seats); {CHECK}; {hint}")


def seats_misfit(rules: Ruleset, laid: dict[str, int], order: list[str], t: float | None = None,
                 observed: Observed = Observed()) -> str | None:
    """The warning when arms clearly laid tiles from more seats than ``rules`` seats (``players``), else
    None. Decided once more seats than ``order`` holds each laid :data:`EXTRA_SEAT_PLAYS` tiles, one of
    them a seat outside ``order`` (2 players at the E and W edges under a 2-seat rule set are no more
    seats: their arms are only named otherwise); the message then names every seat seen laying a tile.

    Args:
        rules: the rule set of the review.
        laid: seat -> plays its arm clearly laid (entry votes decided among all four edges).
        order: the playing seats.
        t: the time of the play that decided it, seconds, for the message.
        observed: what else was seen (the hint's presets fit it, for the seats seen laying tiles).
    """
    playing = [seat for seat in SEATS if laid.get(seat, 0) >= EXTRA_SEAT_PLAYS]
    if len(playing) <= len(order) or all(seat in order for seat in playing):
        return None
    seen = [seat for seat in SEATS if laid.get(seat, 0) > 0]
    extra = [seat for seat in seen if seat not in order]
    by = f" by {t:.1f} s" if t is not None else ""
    observed = observed.but(players=len(seen))
    # their hands lay apart from the rule set's seats' areas: taken for its boneyard, their plays for draws
    drawn = (f" (their hands were taken for the boneyard, and the draws counted from it may be their plays)"
             if observed.draws_doubtful() else "")
    return (f"arms from {plural(len(seen), 'seat')} laid tiles{by} ({', '.join(seen)}), but {rules.name} seats "
            f"{len(order)} (players = {rules.players}: {' and '.join(order)}): the plays from {' and '.join(extra)} "
            f"were given to the seat to play{drawn}, and {CHECK}; {observed.hint(rules)}")


def seats_turned(laid: dict[str, int], order: list[str], spec: str) -> str | None:
    """The hint when a calibration's seats look turned, else None: arms clearly laid tiles
    (:data:`EXTRA_SEAT_PLAYS` each) from seats the rule set does not seat, and a rotation of the seat spec
    (``calibrate table --seats``) puts the rule set's seats at those edges. helper-187: ``--seats ESWN`` on
    2-seat footage whose players sit at y=0 and y=H gave every play to the turn order, and only a 420-character
    warning said to check the seats. ``{"E": 7, "W": 7}`` laid, ``["N", "S"]``, ``"ESWN"``: ``"arms came from
    E and W, the rule set seats N and S: calibrate again with --seats NESW or SWNE"``.

    Args:
        laid: seat -> plays its arm clearly laid (entry votes among all four edges, the calibration's names).
        order: the rule set's seats.
        spec: the calibration's seat spec (:func:`calibration.seats.seat_spec`), seats at y=0, x=W, y=H, x=0.
    """
    armed = [seat for seat in SEATS if laid.get(seat, 0) >= EXTRA_SEAT_PLAYS]
    if not armed or all(seat in order for seat in armed) or len(armed) > len(order):
        return None
    at = [spec.index(seat) for seat in armed]  # the edges the arms came from
    specs = [rot for rot in ("".join(SEATS[(i + k) % 4] for i in range(4)) for k in range(4))
             if rot != spec and all(rot[i] in order for i in at)]
    if not specs:
        return None
    return (f"arms came from {' and '.join(armed)}, the rule set seats {' and '.join(order)}: "
            f"calibrate again with --seats {' or '.join(specs)}")


def direction_misfit(rules: Ruleset, forward: int, reverse: int, t: float | None = None,
                     observed: Observed = Observed()) -> str | None:
    """The warning when plays by arm keep going to the seat before the last one in the rule set's turn
    order (``play_direction``), else None: :data:`REVERSED_PLAYS` such pairs of successive plays, and at
    least twice those that went to the seat after it (a turn that fits goes back a seat only when every
    other seat passed). With 2 seats both are the same order: never.

    Args:
        rules: the rule set of the review.
        forward: pairs of successive plays by arm, in one hand, the second by the seat after the first's.
        reverse: those by the seat before it.
        t: the time of the play that decided it, seconds, for the message.
        observed: what else was seen (the hint's presets fit it, playing the other way).
    """
    if rules.players < 3 or reverse < REVERSED_PLAYS or reverse < 2 * forward:
        return None
    other = OTHER_WAY[rules.play_direction]
    by = f" by {t:.1f} s" if t is not None else ""
    hint = observed.but(play_direction=other).hint(rules)
    return (f"plays by arm go the other way round the table: {plural(reverse, 'time')}{by} the next play came from "
            f"the seat before the last player's in turn order ({forward} from the seat after it), but {rules.name} "
            f"plays {rules.play_direction} (play_direction): the footage looks like a table playing {other}, and the "
            f"turns in between were taken for passes or plays out of turn; {CHECK}; {hint}")


@dataclass
class RulesFitWatch:
    """Per footage: what the camera saw of the deal, the boneyard and the seats (:attr:`observed`, which
    every hint draws on), and the ``rules_misfit`` notices it makes (each once). The tracker calls
    :meth:`new_hand`, at each committed read before its plays :meth:`step`, at each play :meth:`laid_by`,
    once the hand ended locked :meth:`locked`, and :meth:`seats_seen` for its ``seats_unseen`` hint."""

    rules: Ruleset
    drawn: int = 0  # tiles seen leaving the undealt ones, in reads that laid no tile
    gained: int = 0  # of those, tiles the seat to play's hand area gained in that read: draws seen
    first: tuple[str, float] | None = None  # (seat, t s) of the first draw seen
    laid: dict[str, int] = field(default_factory=dict)  # seat -> plays its arm clearly laid
    #: successive plays by arm in a hand whose second seat is the one after the first's in turn order, or before it
    turns: dict[str, int] = field(default_factory=lambda: {"forward": 0, "reverse": 0})
    observed: Observed = field(default_factory=Observed)  # what the footage showed so far, for the hints
    noticed: set[str] = field(default_factory=set)  # the parameters already warned about
    _undealt: BoneyardCounter | None = None
    # (apart, playing seats' hands, all four hand areas or None) at the last read before the lead
    _deal: tuple[int, dict[str, int], dict[str, int] | None] | None = None
    _dealt = False  # the deal of this hand was judged
    _lock_judged = False  # this hand's lock was judged
    _seen = 0  # face-down tiles apart from the hands at the last read
    _hands: dict[str, int] | None = None  # hands at the previous read
    _reads: dict[int, tuple[int, int]] = field(default_factory=dict)  # frame -> (tiles laid, turn's gain)
    _last: str | None = None  # the seat whose arm laid this hand's last play (None: not clear, or none yet)

    def new_hand(self) -> None:
        """A new hand starts: a count of its undealt tiles (rule sets without drawing only)."""
        undealt = len(full_set(self.rules.set_max)) - self.rules.hand_size * self.rules.players
        self._undealt = BoneyardCounter(undealt) if not self.rules.boneyard and undealt > 0 else None
        self._deal, self._dealt, self._lock_judged, self._hands, self._reads = None, False, False, None, {}
        self._last = None

    def step(self, seen: int, hands: dict[str, int], order: list[str], turn: str | None, started: bool,
             laid: int, t: float, frame: int, edges: dict[str, int] | None = None) -> list[Notice]:
        """One committed read: ``seen`` face-down tiles apart from the playing seats' hand areas,
        ``hands`` those in each one (seats with none left out), ``turn`` the seat to play (None before the
        lead or after the end), ``started`` the lead is down, ``laid`` new face-up tiles outside the hand
        areas in this read, ``edges`` the face-down tiles in each of the four hand areas, the rule set's
        seats or not (None: not known, as without a table calibration, whose guessed hand areas can miss
        hands lying further in: no seats are taken from the deal then). Returns at most one
        ``rules_misfit`` notice per parameter for the footage."""
        out: list[Notice] = []
        self._seen = seen
        if not started and not self._dealt:
            if laid:  # the lead's read: the hands as they stood just before it are the deal
                self._dealt = True
                out += self._judge_deal(seen, hands, order, t, frame)
            else:
                self._deal = (seen, dict(hands), None if edges is None else dict(edges))
        elif not self._dealt:  # the lead was seen laid in an earlier read (a read that laid it and more)
            self._dealt = True
            out += self._judge_deal(seen, hands, order, t, frame)
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
        message = None if "boneyard" in self.noticed else draws_misfit(self.rules, self.drawn, self.gained, self.first,
                                                                       self.observed)
        if message:
            out.append(self._notice("boneyard", message, t, frame, seat=self.first[0] if self.first else None,
                                    facts={"boneyard": True, "drawn_among": self.rules.players}, rule=False,
                                    drawn=self.drawn,
                                    drawn_into_hand=self.gained))
        return out

    def locked(self, left: int, blocked: bool, ended_t: float | None, t: float, frame: int) -> list[Notice]:
        """The hand ended locked (judged once a hand): ``left`` tiles in the boneyard as the camera
        followed it (the last read's count when lower: a drop not yet confirmed), ``blocked`` the line of
        play is blocked, ``ended_t`` when it locked. Returns the ``draw_rule`` notice of
        :func:`lock_misfit`, once for the footage, or []."""
        if self._lock_judged:
            return []
        self._lock_judged = True
        left = min(left, self._seen)
        message = (None if "draw_rule" in self.noticed
                   else lock_misfit(self.rules, left, blocked, ended_t, self.observed))
        if message is None:
            return []
        return [self._notice("draw_rule", message, t, frame, facts={"boneyard": False}, rule=self.rules.draw_rule,
                             left=left, reserve=self.rules.reserve())]

    def drew(self) -> None:
        """The tracker counted a draw from the boneyard of a draw game (a rule set with one): the footage
        has a boneyard that is drawn from, for the hints (:class:`Observed`) and :func:`lock_misfit`."""
        self._learn(boneyard=True, drawn_among=self.rules.players)

    def laid_by(self, seat: str | None, order: list[str], t: float, frame: int) -> list[Notice]:
        """A play whose arm came clearly from ``seat`` (entry votes among all four edges; None: not clear).
        Returns the ``players`` notice of :func:`seats_misfit` and the ``play_direction`` one of
        :func:`direction_misfit`, each once for the footage, or []."""
        last, self._last = self._last, seat
        if seat is None:
            return []
        self.laid[seat] = self.laid.get(seat, 0) + 1
        out = []
        message = None if "players" in self.noticed else seats_misfit(self.rules, self.laid, order, t, self.observed)
        if message is not None:
            laid = {s: self.laid[s] for s in SEATS if s in self.laid}
            out.append(self._notice("players", message, t, frame, facts={"players": len(laid)},
                                    rule=self.rules.players, laid_by_arm=laid))
        return out + self._direction(last, seat, order, t, frame)

    def _direction(self, last: str | None, seat: str, order: list[str], t: float, frame: int) -> list[Notice]:
        """A play by ``seat``'s arm after one by ``last``'s in this hand: counted forward when ``seat`` is
        the one after ``last`` in turn order, reverse when the one before it (across the table, either way);
        returns the ``play_direction`` notice of :func:`direction_misfit`, once for the footage, or []."""
        if last is None or last == seat or last not in order or seat not in order or len(order) < 3:
            return []
        i = order.index(last)
        way = "forward" if seat == order[(i + 1) % len(order)] else "reverse" if seat == order[i - 1] else None
        if way is None:
            return []
        self.turns[way] += 1
        forward, reverse = self.turns["forward"], self.turns["reverse"]
        message = (None if "play_direction" in self.noticed
                   else direction_misfit(self.rules, forward, reverse, t, self.observed))
        if message is None:
            return []
        other = OTHER_WAY[self.rules.play_direction]
        return [self._notice("play_direction", message, t, frame, facts={"play_direction": other},
                             rule=self.rules.play_direction, forward=forward, reverse=reverse)]

    def seats_seen(self, players: int) -> str:
        """The tracker's ``seats_unseen``: only ``players`` seats play. Kept for the hints; returns that
        notice's hint (:meth:`Observed.hint`)."""
        self._learn(players=players)
        return self.observed.hint(self.rules)

    def _judge_deal(self, seen: int, hands: dict[str, int], order: list[str], t: float, frame: int) -> list[Notice]:
        """The deal (the last read before the lead) against ``hand_size``, and against a rule set that
        deals every tile: a pile beyond the hands there and in this read too (``seen``, ``hands``). What
        it shows of the seats and tiles each is kept (:func:`deal_observed` on the four hand areas; on the
        playing seats' alone, the tiles each only; their count when they all hold the same)."""
        if self._deal is None:
            return []
        out = []
        apart, dealt, edges = self._deal
        deal = deal_observed(dealt if edges is None else edges)
        if edges is None:  # the playing seats' areas alone tell the tiles each, not how many seats hold them
            deal = Observed(hand_size=deal.hand_size)
        counts = {dealt.get(seat, 0) for seat in order}
        if len(counts) == 1 and min(counts) > 0 and deal.hand_size not in counts:
            deal = Observed(hand_size=min(counts))  # the seats it plays agree, the others' areas are unclear
        self._learn(players=deal.players, hand_size=deal.hand_size)
        # the set first: its hint (check by hand) is the one every later hint must give
        tiles = apart + sum(dealt.values())
        held = set_misfit(self.rules, seen, hands) is not None  # there at the lead's read too, as a pile
        message = None if "set_max" in self.noticed or not held else set_misfit(self.rules, apart, dealt, self.observed)
        if message is not None:
            out.append(self._notice("set_max", message, t, frame, facts={"set_max": larger_set(self.rules, tiles)},
                                    rule=self.rules.set_max, tiles=tiles, set_tiles=len(full_set(self.rules.set_max))))
        message = (None if "hand_size" in self.noticed
                   else deal_misfit(self.rules, dealt, order, self.observed, edges))
        if message is not None:
            out.append(self._notice("hand_size", message, t, frame, rule=self.rules.hand_size,
                                    seen={seat: dealt.get(seat, 0) for seat in order}))
        held = pile_misfit(self.rules, seen, hands, order) is not None
        message = (None if "boneyard" in self.noticed or not held
                   else pile_misfit(self.rules, apart, dealt, order, self.observed))
        if message is not None:
            out.append(self._notice("boneyard", message, t, frame, rule=False, apart=apart,
                                    seen={seat: dealt.get(seat, 0) for seat in order}))
        return out

    def _learn(self, **facts: object) -> None:
        """Add the ``facts`` that are known (not None) to :attr:`observed`."""
        self.observed = self.observed.but(**{key: value for key, value in facts.items() if value is not None})

    def _notice(self, parameter: str, message: str, t: float, frame: int, seat: str | None = None,
                facts: dict[str, object] | None = None, **details: object) -> Notice:
        """The ``rules_misfit`` notice about ``parameter``, said once for the footage; the ``facts`` it
        shows are kept for the later hints."""
        self.noticed.add(parameter)
        self._learn(**(facts or {}))
        return Notice("rules_misfit", t, frame, message, seat=seat, details={"parameter": parameter, **details})
