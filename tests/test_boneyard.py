"""The boneyard counter of draw games (vision/boneyard.py): counts read by read -> draws."""

from engine.events import Draw
from engine.words import plural
from vision.boneyard import BoneyardCounter
from vision.placements import Notice


def steps(counter, reads):
    """Feed ``(seen, turn)`` reads at t = 1, 2, ... s (frame = 10 x t); returns every output."""
    out = []
    for i, (seen, turn) in enumerate(reads, start=1):
        out += counter.step(seen, turn, float(i), 10 * i, started=turn is not None)
    return out


def draws(out):
    return [(e.seat, e.count, e.t, e.frame) for e in out if isinstance(e, Draw)]


def test_a_lower_count_held_for_two_reads_is_a_draw_by_the_seat_to_play_when_first_seen():
    c = BoneyardCounter(expected=14)
    out = steps(c, [(14, None), (14, "N"), (13, "N"), (13, "S")])
    # first seen at the 3rd read under N's turn: N drew 1 at t=3 s; confirmed by the 4th read
    assert draws(out) == [("N", 1, 3.0, 30)] and c.level == 13 and c.trusted


def test_one_read_missing_a_tile_is_no_draw():
    c = BoneyardCounter(expected=14)
    out = steps(c, [(14, None), (13, "N"), (14, "N"), (14, "S"), (14, "S")])
    assert draws(out) == [] and c.level == 14


def test_several_tiles_at_once_and_two_seats_in_order():
    c = BoneyardCounter(expected=14)
    # N draws 2 between reads (12 first seen at read 2), S then draws 1 (11 first seen at read 4)
    out = steps(c, [(14, None), (12, "N"), (12, "N"), (11, "S"), (11, "S")])
    assert draws(out) == [("N", 2, 2.0, 20), ("S", 1, 4.0, 40)] and c.level == 11


def test_a_drop_the_hands_are_seen_to_gain_is_a_draw_at_once():
    """A folder's photos: the tiles the boneyard lost are in the hands (``drawn``), so the draw is
    emitted in that read, before the play made with it (helper-110); a drop the hands do not explain
    (a tile the detector missed) still waits for the next read."""
    c = BoneyardCounter(expected=14)
    c.step(14, None, 1.0, 10, started=False)
    assert draws(c.step(13, "S", 2.0, 20, started=True, drawn=(1,))) == [("S", 1, 2.0, 20)] and c.level == 13
    assert draws(c.step(12, "N", 3.0, 30, started=True, drawn=(0,))) == []  # not seen in a hand: a slip?
    assert draws(c.step(13, "S", 4.0, 40, started=True)) == [] and c.level == 13  # it was: back to 13
    assert draws(c.step(11, "N", 5.0, 50, started=True, drawn=(1,))) == []  # 2 fewer, 1 in the hands: wait
    assert draws(c.step(11, "N", 6.0, 60, started=True)) == [("N", 2, 5.0, 50)] and c.level == 11


def test_a_drop_matching_the_drawers_own_gain_is_a_draw_at_once():
    """Hand-held photos: another hand's row read one tile more made all hands' gain 4 for a drop of 3;
    the drawer's own gain (3, ``drawn`` = (all hands, the drawer's)) matches it: the draw comes in that
    read, before the drawer's play. A drop neither count explains still waits for the next read."""
    c = BoneyardCounter(expected=14)
    c.step(14, None, 1.0, 10, started=False)
    assert draws(c.step(11, "S", 2.0, 20, started=True, drawn=(4, 3))) == [("S", 3, 2.0, 20)] and c.level == 11
    assert draws(c.step(10, "N", 3.0, 30, started=True, drawn=(2, 0))) == []  # 1 fewer, neither is 1: wait
    assert draws(c.step(10, "S", 4.0, 40, started=True, drawn=(0, 0))) == [("N", 1, 3.0, 30)]


def test_the_confirmed_level_is_the_higher_of_the_last_two_reads():
    c = BoneyardCounter(expected=10)
    out = steps(c, [(10, None), (8, "N"), (9, "N")])
    # 8 was seen once and 9 once after it: only the tile missing from both reads (10 -> 9) is drawn,
    # timed when 9 was first seen (the 2nd read)
    assert draws(out) == [("N", 1, 2.0, 20)] and c.level == 9


def test_no_baseline_until_a_read_shows_what_the_deal_leaves_and_one_notice():
    c = BoneyardCounter(expected=14)
    out = steps(c, [(22, None), (21, "N"), (20, "N"), (19, "S")])
    assert draws(out) == [] and not c.trusted
    (note,) = [e for e in out if isinstance(e, Notice)]
    assert note.kind == "boneyard_uncounted" and "21 face-down" in note.message and "leaves 14" in note.message
    assert (note.t, note.frame) == (2.0, 20)


def test_the_notice_counts_in_words():
    """helper-92: "1 face-down tiles lie apart from the hands"."""
    (note,) = BoneyardCounter(expected=14).step(1, "N", 1.0, 10, started=True)
    assert note.message == ("the boneyard is not counted: the camera sees 1 face-down tile apart from the hands, "
                            "the deal leaves 14; draws are not followed and passes are not inferred this hand")
    assert [plural(n, "pip") for n in (0, 1, 2)] == ["0 pips", "1 pip", "2 pips"]


def test_a_count_rising_by_two_twice_stops_the_count():
    c = BoneyardCounter(expected=14)
    out = steps(c, [(14, None), (16, "N"), (17, "N"), (10, "S"), (10, "S")])
    assert draws(out) == [] and c.lost and not c.trusted
    assert [e.kind for e in out if isinstance(e, Notice)] == ["boneyard_uncounted"]


def test_reads_without_a_turn_are_ignored_and_break_the_confirmation():
    c = BoneyardCounter(expected=14)
    out = steps(c, [(14, None), (13, "N"), (12, None), (13, "N")])
    assert draws(out) == []  # the 4th read has no read before it to confirm it: the 3rd was not taken
    out = c.step(13, "N", 5.0, 50, started=True)
    assert draws(out) == [("N", 1, 2.0, 20)]  # timed when 13 was first seen


def test_a_count_that_matches_the_deal_only_after_the_lead_is_no_baseline():
    """draw footage on marble: 22 boxes before the lead, 14 only after some draws had been made."""
    c = BoneyardCounter(expected=14)
    out = steps(c, [(22, None), (16, "N"), (14, "N"), (13, "S"), (13, "S")])
    assert draws(out) == [] and not c.trusted
    assert [e.kind for e in out if isinstance(e, Notice)] == ["boneyard_uncounted"]


def test_a_resumed_hand_confirms_the_records_count_at_its_first_read_only():
    c = BoneyardCounter(expected=11, resumed=True)  # 14 dealt, 3 drawn before the restart
    out = steps(c, [(11, "N"), (10, "N"), (10, "S")])
    assert draws(out) == [("N", 1, 2.0, 20)] and c.trusted
    c = BoneyardCounter(expected=11, resumed=True)
    out = steps(c, [(12, "N"), (11, "N")])  # not at the first read: uncounted, as any hand after its lead
    assert not c.trusted and [e.kind for e in out if isinstance(e, Notice)] == ["boneyard_uncounted"]
    assert "12 face-down tiles" in out[0].message and "the record leaves 11" in out[0].message


def test_a_restart_during_a_draw_takes_the_records_count_and_confirms_the_draw():
    """helper-89: stopped 1.4 s after S took a tile, before its draw was confirmed; the first read
    after the restart shows 13 where the record says 14: S's draw, once the next read confirms it."""
    c = BoneyardCounter(expected=14, resumed=True)
    out = steps(c, [(13, "S"), (13, "S"), (12, "S"), (12, "N")])
    assert draws(out) == [("S", 1, 1.0, 10), ("S", 1, 3.0, 30)] and c.trusted and c.level == 12
    c = BoneyardCounter(expected=14, resumed=True)  # three fewer: more than a restart explains
    assert [e.kind for e in steps(c, [(11, "S")])] == ["boneyard_uncounted"] and not c.trusted


def test_a_drop_one_short_of_what_every_hand_count_gained_is_that_draw():
    """Hand-held muggins: N drew 2 and played; both hand counts (all hands', N's own) gained 2, the boneyard read
    15 for 14 (a tile counted twice): the draw waited a photo, came after N's play, and S's next draws with it.
    Two or more gained by every count and one fewer gone from the boneyard is that draw; a single tile gained
    with nothing gone (a false box in a hand) is none, and counts that disagree still wait."""
    c = BoneyardCounter(expected=16)
    c.step(16, None, 1.0, 10, started=False)
    out = c.step(15, "N", 2.0, 20, started=True, drawn=(2, 2), played=True)
    assert draws(out) == [("N", 2, 2.0, 20)] and c.level == 14
    assert draws(c.step(10, "S", 3.0, 30, started=True, drawn=(4, 4), played=True)) == [("S", 4, 3.0, 30)]
    assert draws(c.step(10, "N", 4.0, 40, started=True, drawn=(1, 1), played=True)) == [] and c.level == 10  # none gone
    out = c.step(9, "S", 5.0, 50, started=True, drawn=(3, 2), played=True)
    assert draws(out) == [] and c.level == 10  # the counts disagree: wait
    assert draws(c.step(9, "S", 6.0, 60, started=True)) == [("S", 1, 5.0, 50)] and c.level == 9
    # a photo of the draw alone (every event photographed): a hand read one tile more than N drew, the
    # boneyard is believed, and the next read confirms it
    assert draws(c.step(8, "N", 7.0, 70, started=True, drawn=(2, 2))) == [] and c.level == 9
    assert draws(c.step(8, "N", 8.0, 80, started=True)) == [("N", 1, 7.0, 70)] and c.level == 8
