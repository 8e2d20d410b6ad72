"""The passes a play by an arm implies (vision/pass_inference.py): their times, in turn order."""

from types import SimpleNamespace

from vision.pass_inference import SeatTurns


def _turns():
    return SeatTurns(SimpleNamespace(infer_passes=True, visit_gap_s=1.0, unseen_seat_turns=2))


def test_a_pass_with_no_knock_seen_is_timed_no_later_than_the_next_seats_knock():
    """helper-201 item 8 (lisa-b-all-fives footage reviewed as bdc-partnership): S's arm played 2-0 at 16.2 s
    on E's turn, past E, N and W; only N's arm was seen (11.8 s, its knock). E's pass was timed at the play,
    16.2 s, before N's at 11.8 s in turn order and in events.jsonl: E's turn went by before N's knock."""
    turns = _turns()
    turns.visits = {"N": [(117, 11.7), (118, 11.8), (119, 11.9)]}
    passes = turns.passes(["E", "N", "W"], 16.2, 162, nothing_to_draw=True)
    assert [(p.seat, p.t, p.frame) for p in passes] == [("E", 11.8, 118), ("N", 11.8, 118), ("W", 16.2, 162)]
    choice = SimpleNamespace(seat="S", source="entry", confidence=0.9)
    out = turns.played(choice, ["E", "N", "W"], passes, SimpleNamespace(tile="2-0"), 16.2, 162, photos=False)
    notes = out[1::2]
    # only N knocked: E's pass takes N's time without a knock of its own
    assert [n.details["knock_seen"] for n in notes] == [False, True, False]
    assert [n.message for n in notes] == [
        "E passed: S's arm played 2-0 on E's turn",
        "N passed: S's arm played 2-0 on N's turn (N knocked at 11.8 s: its arm reached over the table and laid "
        "nothing)",
        "W passed: S's arm played 2-0 on W's turn"]


def test_passes_with_no_knock_seen_are_timed_at_the_play():
    turns = _turns()
    passes = turns.passes(["S", "W"], 3.0, 90, nothing_to_draw=True)
    assert [(p.seat, p.t, p.frame) for p in passes] == [("S", 3.0, 90), ("W", 3.0, 90)]
    turns.visits = {"S": [(40, 1.3)]}
    passes = turns.passes(["S", "W"], 3.0, 90, nothing_to_draw=True)
    assert [(p.seat, p.t, p.frame) for p in passes] == [("S", 1.3, 40), ("W", 3.0, 90)]
