"""Whether the footage fits the rule set (vision/rules_fit.py): draws under a rule set without drawing,
hands of another size at the deal. Inputs are counts worked out by hand."""

from engine.ruleset import load_ruleset
from vision.rules_fit import RulesFitWatch, deal_misfit, draws_misfit

BLOCK = load_ruleset("block")  # 2 seats, 7 tiles each, no drawing: 28 - 14 = 14 tiles stay undealt
DRAW = load_ruleset("draw")  # the same deal, with a boneyard


def test_draws_under_a_rule_set_without_drawing_need_a_tile_the_hand_to_play_gained():
    assert draws_misfit(BLOCK, drawn=0, gained=0) is None
    assert draws_misfit(BLOCK, drawn=1, gained=0) is None  # a drop no hand explains: a missed box?
    # jersey-partnership seed 37 reviewed as block: W's and E's hands are "undealt", their tiles leave
    assert draws_misfit(BLOCK, drawn=2, gained=0) is None
    one = draws_misfit(BLOCK, drawn=1, gained=1, first=("N", 37.0))
    assert one == ("a draw from the boneyard seen (N at 37.0 s), but block has no drawing (boneyard = "
                   "false): the footage looks like a draw game (e.g. --rules draw), and the hand's end and score "
                   "may be wrong; check the rule set")
    assert draws_misfit(BLOCK, drawn=3, gained=2).startswith("a draw from the boneyard seen, but block")


def test_draws_fit_a_rule_set_with_a_boneyard():
    assert draws_misfit(DRAW, drawn=9, gained=9) is None
    assert draws_misfit(load_ruleset("muggins"), drawn=3, gained=0) is None


def test_hands_at_the_deal_must_all_show_another_size_to_misfit():
    order = ["N", "S"]
    assert deal_misfit(DRAW, {"N": 7, "S": 7}, order) is None  # draw deals 7
    assert deal_misfit(DRAW, {"N": 5, "S": 5}, order) == (
        "hands of 5 tiles seen at the deal (N and S), but draw deals 7 (hand_size): the hand's end and score may "
        "be wrong; check the rule set (--rules)")
    assert deal_misfit(DRAW, {"N": 5, "S": 6}, order) is None  # a tile missed or a false box: no clear deal
    assert deal_misfit(DRAW, {"N": 5}, order) is None  # S's hand not seen
    assert deal_misfit(DRAW, {}, order) is None
    assert deal_misfit(DRAW, {"N": 15, "S": 15}, order) is None  # 30 tiles from a set of 28: false boxes
    nova = load_ruleset("nova-block")  # 4 seats: W and E empty is the seats' check (seats_unseen), not this
    assert deal_misfit(nova, {"N": 7, "S": 7}, ["N", "E", "S", "W"]) is None


def _read(watch, seen, hands, turn=None, started=True, laid=0, t=1.0):
    return watch.step(seen, hands, ["N", "S"], turn, started, laid, t, int(t * 15))


def test_a_draw_into_the_hand_to_play_under_block_is_noticed_once():
    """draw seed 13 reviewed as block (the counts its calibrated review showed): 14 undealt tiles at the
    deal; at 37.0 s 13 and N's hand 1 -> 2 with no tile laid; the next read confirms."""
    w = RulesFitWatch(BLOCK)
    w.new_hand()
    assert _read(w, 14, {"N": 7, "S": 7}, started=False, t=0.5) == []
    assert _read(w, 14, {"N": 6, "S": 7}, started=False, laid=1, t=4.7) == []  # the lead: the deal fits
    assert _read(w, 14, {"N": 1, "S": 1}, turn="N", t=34.8) == []
    assert _read(w, 13, {"N": 2, "S": 1}, turn="N", t=37.0) == []  # a drop: not yet confirmed
    (note,) = _read(w, 13, {"N": 1, "S": 1}, turn="N", laid=1, t=40.7)
    assert note.kind == "rules_misfit" and note.seat == "N" and note.t == 40.7
    assert note.details == {"parameter": "boneyard", "rule": False, "drawn": 1, "drawn_into_hand": 1}
    assert "(N at 37.0 s)" in note.message
    assert _read(w, 12, {"N": 1, "S": 2}, turn="S", t=42.0) + _read(w, 12, {"N": 1, "S": 2}, turn="S", t=43.0) == []
    assert (w.drawn, w.gained) == (2, 2)  # counted on, noticed once


def test_drops_with_a_tile_laid_into_no_hand_or_unconfirmed_are_no_draws():
    """A 2-seat rule set on 4-seat footage: W's and E's hands are "undealt" tiles, and their plays take one
    away, mostly in the read that lays it, some before (a tile held up): no draw either way. A box missed
    for one read comes back: no draw either."""
    w = RulesFitWatch(BLOCK)
    w.new_hand()
    _read(w, 14, {"N": 7, "S": 7}, started=False, t=0.5)
    _read(w, 14, {"N": 6, "S": 7}, started=False, laid=1, t=1.0)
    for i, seen in enumerate((13, 13, 12, 12, 11, 11)):
        assert _read(w, seen, {"N": 6, "S": 7}, turn="S", laid=i % 2 == 0, t=2.0 + i) == []
    assert w.drawn == 0
    for i, seen in enumerate((10, 10, 9, 9)):  # dropped in reads that laid nothing, into no hand
        assert _read(w, seen, {"N": 6, "S": 7}, turn="S", t=10.0 + i) == []
    assert (w.drawn, w.gained) == (2, 0)
    w.new_hand()
    _read(w, 14, {"N": 7, "S": 7}, started=False, t=10.0)
    _read(w, 14, {"N": 6, "S": 7}, started=False, laid=1, t=11.0)
    assert _read(w, 13, {"N": 6, "S": 8}, turn="S", t=12.0) + _read(w, 14, {"N": 6, "S": 7}, turn="S", t=13.0) == []
    assert (w.drawn, w.gained) == (2, 0)  # the footage's counts, as before this hand


def test_a_count_that_never_matched_the_deal_gives_no_draws_and_no_notice():
    w = RulesFitWatch(BLOCK)
    w.new_hand()
    _read(w, 20, {"N": 7, "S": 7}, started=False, t=0.5)  # false boxes beside the undealt tiles
    out = []
    for i, seen in enumerate((20, 18, 18, 16, 16)):
        out += _read(w, seen, {"N": 7, "S": 7}, turn="N", t=1.0 + i)
    assert out == [] and w.drawn == 0  # its boneyard_uncounted is no evidence of anything here


def test_the_deal_is_judged_on_the_last_read_before_the_lead():
    """Hands still being taken up (3 and 3, then 5 and 5): the deal is what lay there as the lead came."""
    w = RulesFitWatch(DRAW)
    w.new_hand()
    assert _read(w, 22, {"N": 3, "S": 3}, started=False, t=0.5) == []
    assert _read(w, 18, {"N": 5, "S": 5}, started=False, t=1.0) == []
    (note,) = _read(w, 18, {"N": 4, "S": 5}, started=False, laid=1, t=2.0)
    assert note.details == {"parameter": "hand_size", "rule": 7, "seen": {"N": 5, "S": 5}}
    w.new_hand()  # the next hand: the same misfit is not said again
    _read(w, 18, {"N": 5, "S": 5}, started=False, t=3.0)
    assert _read(w, 18, {"N": 4, "S": 5}, started=False, laid=1, t=4.0) == []


def test_a_camera_started_after_the_lead_does_not_judge_the_deal():
    w = RulesFitWatch(DRAW)
    w.new_hand()
    assert _read(w, 14, {"N": 5, "S": 5}, turn="N", t=1.0) == []
