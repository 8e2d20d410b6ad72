"""Whether the footage fits the rule set (vision/rules_fit.py): draws under a rule set without drawing,
hands of another size at the deal, a lock with tiles left to draw, a boneyard under a rule set that deals
every tile, arms from more seats than it seats. Inputs are counts worked out by hand; the presets named
are those of docs/rules.md's table (hand_size, players, boneyard, play_direction rows), fitting what the
camera saw (:class:`Observed`), never the rule set under review."""

from engine.ruleset import load_ruleset
from vision.rules_fit import (Observed, RulesFitWatch, deal_misfit, deal_observed, direction_misfit, draws_misfit,
                              larger_set, lock_misfit, pile_misfit, seats_misfit, set_misfit)

BLOCK = load_ruleset("block")  # 2 seats, 7 tiles each, no drawing: 28 - 14 = 14 tiles stay undealt
DRAW = load_ruleset("draw")  # the same deal, with a boneyard
JERSEY = load_ruleset("jersey-partnership")  # 4 seats, 7 tiles each: all 28 dealt, no boneyard
FOUR = ["N", "E", "S", "W"]
TWO_OF_7 = Observed(players=2, hand_size=7)  # the deal of draw seed 13, seen under block


def test_draws_under_a_rule_set_without_drawing_need_a_tile_the_hand_to_play_gained():
    assert draws_misfit(BLOCK, drawn=0, gained=0) is None
    assert draws_misfit(BLOCK, drawn=1, gained=0) is None  # a drop no hand explains: a missed box?
    # jersey-partnership seed 37 reviewed as block: W's and E's hands are "undealt", their tiles leave
    assert draws_misfit(BLOCK, drawn=2, gained=0) is None
    one = draws_misfit(BLOCK, drawn=1, gained=1, first=("N", 37.0), observed=TWO_OF_7)
    # the presets with a boneyard that deal as block does (7 tiles to 2 seats, double six)
    assert one == ("a draw from the boneyard seen (N at 37.0 s), but block has no drawing (boneyard = "
                   "false): the footage looks like a draw game; the hand's end and score may be wrong; check the "
                   "rule set (--rules); presets with a boneyard dealing 7 tiles to 2 seats: all-fives, draw, "
                   "lisa-b-all-fives")
    assert draws_misfit(JERSEY, drawn=1, gained=1, observed=Observed(players=4, hand_size=7)).endswith(
        "no shipped preset with a boneyard dealing 7 tiles to 4 seats: write a rule set file (--rules FILE)")
    assert draws_misfit(BLOCK, drawn=3, gained=2).startswith("a draw from the boneyard seen, but block")
    # nothing else seen: every preset with a boneyard
    assert draws_misfit(BLOCK, drawn=1, gained=1).endswith(
        "; presets with a boneyard: all-fives, draw, lisa-b-all-fives, muggins")


def test_draws_fit_a_rule_set_with_a_boneyard():
    assert draws_misfit(DRAW, drawn=9, gained=9) is None
    assert draws_misfit(load_ruleset("muggins"), drawn=3, gained=0) is None


def test_hands_at_the_deal_must_all_show_another_size_to_misfit():
    order = ["N", "S"]
    assert deal_misfit(DRAW, {"N": 7, "S": 7}, order) is None  # draw deals 7
    assert deal_misfit(DRAW, {"N": 5, "S": 5}, order, deal_observed({"N": 5, "S": 5})) == (
        "hands of 5 tiles seen at the deal (N and S), but draw deals 7 (hand_size): the hand's end and score may "
        "be wrong; check the rule set (--rules); presets dealing 5 tiles to 2 seats: muggins")
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


def test_a_deal_no_preset_makes_says_so():
    assert deal_misfit(DRAW, {"N": 6, "S": 6}, ["N", "S"], Observed(players=2)).endswith(
        "; no shipped preset dealing 6 tiles to 2 seats: write a rule set file (--rules FILE)")
    # muggins footage's deal under all-fives: muggins named, the rule set under review never
    assert deal_misfit(load_ruleset("muggins"), {"N": 7, "S": 7}, ["N", "S"], Observed(players=2)).endswith(
        "; presets dealing 7 tiles to 2 seats: all-fives, block, draw, fives-and-threes, lisa-b-all-fives")


def test_a_lock_with_tiles_left_to_draw_misfits_draw_until_playable():
    """block seed 7 reviewed as draw: the hand locked at 42.4 s with the 14 undealt tiles untouched."""
    assert lock_misfit(DRAW, left=14, blocked=False, t=42.4, observed=TWO_OF_7) == (
        "the hand locked at 42.4 s with 14 tiles left to draw, but under draw a seat that cannot play draws until "
        "it can (draw_rule = until_playable; boneyard_reserve: none kept back): the footage looks like a game "
        "without drawing; the hand's end and score may be wrong; check the rule set (--rules); presets without a "
        "boneyard dealing 7 tiles to 2 seats: block, fives-and-threes")
    assert lock_misfit(DRAW, left=0, blocked=False) is None  # drawn out: a lock as the rules allow
    assert lock_misfit(DRAW, left=2, blocked=False) is None  # a box or two, a last draw unconfirmed
    assert lock_misfit(DRAW, left=14, blocked=True) is None  # no tile fits the line: locked whatever is left
    assert lock_misfit(BLOCK, left=14, blocked=False) is None  # no drawing: the undealt tiles stay
    assert lock_misfit(load_ruleset("draw", draw_rule="any_time"), left=14, blocked=False) is None
    # draws seen (helper-179: 56 counted, then "looks like a game without drawing"): the seats draw
    assert lock_misfit(DRAW, left=14, blocked=False, observed=Observed(boneyard=True)) is None
    w = RulesFitWatch(DRAW)
    w.new_hand()
    w.drew()
    assert w.observed == Observed(boneyard=True, drawn_among=2) and w.locked(14, False, 30.0, 31.0, 465) == []


def test_the_reserve_is_not_left_to_draw():
    """muggins: "When there are 2 players, the last two tiles in the boneyard may not be drawn"."""
    muggins = load_ruleset("muggins")
    assert lock_misfit(muggins, left=4, blocked=False) is None  # 2 drawable: no clear evidence
    assert lock_misfit(muggins, left=5, blocked=False).startswith(
        "the hand locked with 3 tiles left to draw, but under muggins a seat that cannot play draws until it can "
        "(draw_rule = until_playable; boneyard_reserve: 2 kept back)")
    assert lock_misfit(muggins, left=5, blocked=False, observed=Observed(players=2, hand_size=5)).endswith(
        "; no shipped preset without a boneyard dealing 5 tiles to 2 seats: write a rule set file (--rules FILE)")


def test_a_pile_beyond_the_hands_is_a_misfit_where_every_tile_is_dealt():
    """draw seed 7 reviewed as jersey-partnership: the boneyard's 14 tiles lie along the W edge, in W's
    hand area; E's is empty. Block seed 3 (2 seats) lays its 14 undealt tiles there too, with no draws:
    the pile alone is a boneyard or tiles set aside, so the hint names block with the draw games
    (helper-179)."""
    assert pile_misfit(JERSEY, 0, {"N": 7, "S": 7, "W": 14}, FOUR) == (
        "face-down tiles beyond the hands at the deal (14 in W's hand area), but jersey-partnership deals every "
        "tile, 7 to each of 4 seats: a boneyard or tiles set aside, the footage looks like a game that leaves "
        "tiles undealt (a draw game, or a block game for fewer seats); the hand's end and score may be wrong; "
        "check the rule set (--rules); presets dealing 7 tiles to 2 seats: all-fives, block, draw, "
        "fives-and-threes, lisa-b-all-fives")
    assert pile_misfit(JERSEY, 0, {"N": 7, "E": 7, "S": 7, "W": 7}, FOUR) is None  # the deal it makes
    assert pile_misfit(JERSEY, 2, {"N": 7, "E": 7, "S": 7, "W": 7}, FOUR) is None  # 2 false boxes: no pile
    assert pile_misfit(JERSEY, 1, {"N": 7, "E": 7, "S": 7, "W": 8}, FOUR) is None  # 1 apart, 1 more than 7
    assert pile_misfit(JERSEY, 1, {"N": 7, "E": 7, "S": 7, "W": 9}, FOUR).startswith(  # 1 apart, 2 more: 3
        "face-down tiles beyond the hands at the deal (9 in W's hand area and 1 apart from the hand areas)")
    assert pile_misfit(load_ruleset("nova-block"), 5, {"N": 5, "E": 5, "S": 5, "W": 5}, FOUR).endswith(
        "(5 apart from the hand areas), but nova-block deals every tile, 7 to each of 4 seats: a boneyard or "
        "tiles set aside, the footage looks like a game that leaves tiles undealt (a draw game, or a block game "
        "for fewer seats); the hand's end and score may be wrong; check the rule set (--rules); no shipped preset "
        "dealing 5 tiles to 4 seats: write a rule set file (--rules FILE)")
    assert pile_misfit(BLOCK, 14, {"N": 7, "S": 7}, ["N", "S"]) is None  # undealt tiles by its rules


def test_arms_from_more_seats_than_the_rule_set_seats_misfit():
    """A 4-seat draw game (5 tiles each) reviewed as draw: by 25.1 s N, E and S had each laid 2 tiles by
    arm, W 1."""
    laid = {"N": 2, "E": 2, "S": 2, "W": 1}
    assert seats_misfit(DRAW, laid, ["N", "S"], 25.1, Observed(hand_size=5)) == (
        "arms from 4 seats laid tiles by 25.1 s (N, E, S, W), but draw seats 2 (players = 2: N and S): the plays "
        "from E and W were given to the seat to play, and the hand's end and score may be wrong; check the rule set "
        "(--rules); no shipped preset dealing 5 tiles to 4 seats: write a rule set file (--rules FILE)")
    # the rule set's boneyard is not what was seen (helper-171: "without a boneyard for 4 seats" under block)
    assert seats_misfit(DRAW, laid, ["N", "S"]).endswith(
        "; presets for 4 seats: bdc-partnership, jersey-partnership, nova-block")
    assert seats_misfit(BLOCK, {"N": 3, "E": 2, "S": 2}, ["N", "S"]).endswith(
        "; no shipped preset for 3 seats: write a rule set file (--rules FILE)")
    assert seats_misfit(DRAW, {"N": 9, "S": 9}, ["N", "S"]) is None  # the seats it has
    assert seats_misfit(DRAW, {"N": 9, "S": 9, "E": 1, "W": 1}, ["N", "S"]) is None  # an arm once: no seat yet
    assert seats_misfit(DRAW, {"E": 9, "W": 9}, ["N", "S"]) is None  # 2 players at the side edges: 2 seats
    assert seats_misfit(JERSEY, {"N": 5, "E": 5, "S": 5, "W": 5}, FOUR) is None
    # 2 players under a 4-seat rule set: fewer seats, the tracker's seats_unseen
    assert seats_misfit(JERSEY, {"N": 5, "S": 5}, FOUR) is None


def test_draws_counted_among_fewer_seats_than_play_do_not_rule_out_the_presets_whose_hands_they_were():
    """helper-201 item 4: bdc-partnership footage (4 seats, 7 each, no boneyard) reviewed as lisa-b-all-fives
    (2 seats, a boneyard). E's and W's hands lie apart from N's and S's areas: the review took them for
    its boneyard and their plays for 8 draws, and the warning at 22.2 s said "no shipped preset with a
    boneyard dealing 7 tiles to 4 seats: write a rule set file". 4 hands of 7 are the 28 tiles: the presets
    that seat 4 fit, whatever the 2-seat reading drew."""
    lisa = load_ruleset("lisa-b-all-fives")
    laid = {"N": 2, "E": 1, "S": 2, "W": 2}
    drew = Observed(hand_size=7, boneyard=True, drawn_among=2)  # the tracker's draws (RulesFitWatch.drew)
    assert seats_misfit(lisa, laid, ["N", "S"], 22.2, drew) == (
        "arms from 4 seats laid tiles by 22.2 s (N, E, S, W), but lisa-b-all-fives seats 2 (players = 2: N and S): "
        "the plays from E and W were given to the seat to play (their hands were taken for the boneyard, and the "
        "draws counted from it may be their plays), and the hand's end and score may be wrong; check the rule set "
        "(--rules); presets dealing 7 tiles to 4 seats: bdc-partnership, jersey-partnership, nova-block")
    w = RulesFitWatch(lisa)
    w.new_hand()
    w.drew()
    out = [n for seat in ("N", "E", "S", "W", "N", "S", "W") for n in w.laid_by(seat, ["N", "S"], 22.2, 333)]
    assert len(out) == 1 and out[0].message.endswith(
        "; presets for 4 seats: bdc-partnership, jersey-partnership, nova-block")
    # every later hint draws on the same facts: no boneyard held against the 4-seat presets
    assert w.observed.facts() == Observed(players=4)
    # draws counted among as many seats as play are evidence: jersey-partnership footage with real draws
    assert Observed(players=4, hand_size=7, boneyard=True, drawn_among=4).hint(JERSEY) == (
        "no shipped preset with a boneyard dealing 7 tiles to 4 seats: write a rule set file (--rules FILE)")
    # the reverse (helper-201: f1, lisa-b-all-fives footage, reviewed as bdc-partnership): draws counted among
    # 4 seats on a 2-seat table still show the boneyard, and the hint names the 2-seat draw games
    bdc = load_ruleset("bdc-partnership")
    assert draws_misfit(bdc, drawn=1, gained=1, first=("S", 39.0), observed=TWO_OF_7).endswith(
        "; presets with a boneyard dealing 7 tiles to 2 seats: all-fives, draw, lisa-b-all-fives")


def test_a_lock_is_judged_once_a_hand_by_the_lower_of_the_count_and_the_last_read():
    w = RulesFitWatch(DRAW)
    w.new_hand()
    _read(w, 14, {"N": 7, "S": 7}, started=False, t=0.5)
    _read(w, 2, {"N": 3, "S": 1}, turn="N", t=40.0)  # 12 drawn, the drop not yet confirmed
    assert w.locked(14, False, 41.0, 42.0, 630) == []
    assert w.locked(14, False, 41.0, 43.0, 645) == []  # judged already this hand
    w.new_hand()
    _read(w, 14, {"N": 7, "S": 7}, started=False, t=50.0)
    (note,) = w.locked(14, False, 60.0, 61.0, 915)
    assert (note.kind, note.t, note.frame) == ("rules_misfit", 61.0, 915)
    assert note.details == {"parameter": "draw_rule", "rule": "until_playable", "left": 14, "reserve": 0}
    assert note.message.startswith("the hand locked at 60.0 s with 14 tiles left to draw")
    w.new_hand()
    _read(w, 14, {"N": 7, "S": 7}, started=False, t=70.0)
    assert w.locked(14, False, 80.0, 81.0, 1215) == []  # said once for the footage


def test_a_pile_at_the_deal_must_still_lie_there_at_the_lead():
    """jersey-partnership: the tiles shuffled face down in mid-table until the last read before the lead
    are taken up as the lead comes: no boneyard. A pile still there at the lead's read is one."""
    w = RulesFitWatch(JERSEY)
    w.new_hand()
    assert w.step(28, {}, FOUR, None, False, 0, 0.5, 7) == []
    assert w.step(0, {"N": 6, "E": 7, "S": 7, "W": 7}, FOUR, None, False, 1, 1.0, 15) == []
    w.new_hand()
    assert w.step(0, {"N": 7, "S": 7, "W": 14}, FOUR, None, False, 0, 2.0, 30) == []
    (note,) = w.step(0, {"N": 6, "S": 7, "W": 14}, FOUR, None, False, 1, 2.5, 37)
    assert note.details == {"parameter": "boneyard", "rule": False, "apart": 0,
                            "seen": {"N": 7, "E": 0, "S": 7, "W": 14}}
    assert note.message.startswith("face-down tiles beyond the hands at the deal (14 in W's hand area)")
    # no draws seen: the seats' hint that follows names block too (no boneyard is learnt from the pile)
    assert w.seats_seen(2) == ("presets dealing 7 tiles to 2 seats: all-fives, block, draw, fives-and-threes, "
                               "lisa-b-all-fives")


def test_plays_by_arm_from_more_seats_are_noticed_once_at_the_play_that_shows_it():
    w = RulesFitWatch(DRAW)
    out = []
    for i, seat in enumerate(["N", "E", "S", None, "W", "N", "E", "S", "W", "N"]):
        out.append(w.laid_by(seat, ["N", "S"], 3.0 * i, 45 * i))
    assert [len(o) for o in out] == [0, 0, 0, 0, 0, 0, 0, 1, 0, 0]  # the 8th: S's second, a third seat at 2
    (note,) = out[7]
    assert (note.kind, note.t, note.frame) == ("rules_misfit", 21.0, 315)
    assert note.details == {"parameter": "players", "rule": 2, "laid_by_arm": {"N": 2, "E": 2, "S": 2, "W": 1}}


def test_the_deal_seen_is_the_hand_areas_holding_as_many():
    """All four hand areas at the deal, the rule set's seats or not: the hands are the areas holding the
    count most of them hold; any other must be empty or a pile (3 tiles more), else nothing is clear."""
    assert deal_observed({"N": 7, "S": 7, "W": 14}) == Observed(players=2, hand_size=7)  # draw: boneyard at W
    assert deal_observed({"N": 5, "E": 5, "S": 5, "W": 5}) == Observed(players=4, hand_size=5)  # a 4-seat draw4
    assert deal_observed({"N": 7, "E": 7, "S": 7, "W": 6}) == Observed()  # a tile missed: 3 or 4 seats?
    assert deal_observed({"N": 7, "E": 7, "S": 5, "W": 5}) == Observed()  # as many of each
    assert deal_observed({"N": 7, "W": 14}) == Observed()  # one hand: no deal to tell
    assert deal_observed({}) == Observed()


def test_the_hints_of_two_warnings_fit_the_same_table():
    """helper-171: a 4-seat draw game (5 tiles each) reviewed as block. Before, the deal's hint named the
    presets dealing 5 tiles to block's 2 seats (muggins) and the seats' hint those without a boneyard, as
    block, for 4 seats (bdc-partnership, jersey-partnership, nova-block): each contradicted the other.
    Both now name what fits the 4 hands of 5 seen in the hand areas at the deal, and the 4 seats' arms; and the
    deal's own words name the 4 seats holding 5 (helper-186: it said "(N and S)" beside a hint for 4 seats)."""
    w = RulesFitWatch(BLOCK)
    w.new_hand()
    dealt = {"N": 5, "E": 5, "S": 5, "W": 5}  # E's and W's hand areas are no seats of block's
    assert w.step(18, {"N": 5, "S": 5}, ["N", "S"], None, False, 0, 0.5, 7, edges=dealt) == []
    (deal,) = w.step(18, {"N": 4, "S": 5}, ["N", "S"], None, False, 1, 4.0, 60, edges=dealt)
    assert deal.details["parameter"] == "hand_size"
    assert w.observed == Observed(players=4, hand_size=5)
    hint = "; no shipped preset dealing 5 tiles to 4 seats: write a rule set file (--rules FILE)"
    assert deal.message.startswith("hands of 5 tiles seen at the deal (N, E, S and W), but block deals 7 "
                                   "(hand_size) to 2 seats (players = 2: N and S): ")
    assert deal.message.endswith(hint)
    out = [w.laid_by(seat, ["N", "S"], 4.0 + 3 * i, 60 + 45 * i) for i, seat in enumerate("NESWNES")]
    (seats,) = out[6]
    assert seats.details["parameter"] == "players" and seats.message.endswith(hint)


def test_each_fact_seen_narrows_the_later_hints():
    """A draw seen (a boneyard), then a lock with tiles left (none): the lock's hint says what it saw,
    without a boneyard, over the deal seen; the draw's, made before, with one."""
    w = RulesFitWatch(BLOCK)
    w.new_hand()
    w.step(14, {"N": 7, "S": 7}, ["N", "S"], None, False, 0, 0.5, 7, edges={"N": 7, "S": 7})
    w.step(14, {"N": 6, "S": 7}, ["N", "S"], None, False, 1, 4.0, 60)
    assert w.observed == TWO_OF_7
    w.step(14, {"N": 6, "S": 6}, ["N", "S"], "N", True, 0, 10.0, 150)
    w.step(13, {"N": 7, "S": 6}, ["N", "S"], "N", True, 0, 11.0, 165)
    (draw,) = w.step(13, {"N": 7, "S": 6}, ["N", "S"], "N", True, 0, 12.0, 180)
    assert draw.message.endswith("; presets with a boneyard dealing 7 tiles to 2 seats: all-fives, draw, "
                                 "lisa-b-all-fives")
    assert w.observed == Observed(players=2, hand_size=7, boneyard=True, drawn_among=2)
    assert w.seats_seen(2).startswith("presets with a boneyard dealing 7 tiles to 2 seats")


def test_plays_that_keep_going_the_other_way_round_misfit_the_play_direction():
    """nova-block seed 7 (clockwise: N, E, S, W) reviewed under a copy playing counterclockwise (N, W, S, E):
    every play came from the seat before the last one in its order, and 44 passes were invented for the
    seats in between, with no warning (helper-171). A direction that fits goes back a seat only when every
    other seat passed; across the table (4 seats) is either way."""
    ccw = load_ruleset("nova-block", name="nova-ccw", play_direction="counterclockwise")
    assert direction_misfit(ccw, forward=0, reverse=3) is None  # too few yet
    assert direction_misfit(ccw, forward=3, reverse=5) is None  # 3 of 8 went forward: no clear direction
    assert direction_misfit(ccw, forward=2, reverse=4) is not None  # twice as many back a seat
    assert direction_misfit(ccw, forward=1, reverse=4, t=21.1, observed=Observed(players=4, hand_size=7)) == (
        "plays by arm go the other way round the table: 4 times by 21.1 s the next play came from the seat before "
        "the last player's in turn order (1 from the seat after it), but nova-ccw plays counterclockwise "
        "(play_direction): the footage looks like a table playing clockwise, and the turns in between were taken "
        "for passes or plays out of turn; the hand's end and score may be wrong; check the rule set (--rules); "
        "presets dealing 7 tiles to 4 seats playing clockwise: nova-block")
    assert direction_misfit(DRAW, forward=0, reverse=9) is None  # 2 seats: one order either way
    w = RulesFitWatch(ccw)
    w.new_hand()
    order = ["N", "W", "S", "E"]
    out = [w.laid_by(seat, order, 3.0 * i, 45 * i) for i, seat in enumerate(["N", "E", "S", "W", None, "E"])]
    assert [len(o) for o in out] == [0, 0, 0, 0, 0, 0]  # 3 back a seat, then one not clear: W -> E no pair
    assert w.turns == {"forward": 0, "reverse": 3}
    (note,) = w.laid_by("S", order, 21.1, 316)  # E -> S: the 4th
    assert note.details == {"parameter": "play_direction", "rule": "counterclockwise", "forward": 0, "reverse": 4}
    assert w.observed.play_direction == "clockwise"
    assert w.laid_by("N", order, 24.0, 360) == []  # across the table: either way; and said once
    w.new_hand()  # a hand's first play follows no play of this hand
    assert w.laid_by("E", order, 30.0, 450) == [] and w.turns == {"forward": 0, "reverse": 4}  # N -> E: no pair


def test_without_the_four_hand_areas_the_deal_tells_no_seats():
    """Uncalibrated, the hand areas are bands guessed from the image's borders: a 4-seat draw game's E and
    W hands (5 tiles each) lay beyond them, counted apart, and the deal looked like 2 hands of 5. Without
    the four areas (``edges``) the deal tells the tiles each, not the seats."""
    w = RulesFitWatch(BLOCK)
    w.new_hand()
    w.step(18, {"N": 5, "S": 5}, ["N", "S"], None, False, 0, 0.5, 7)
    (deal,) = w.step(18, {"N": 4, "S": 5}, ["N", "S"], None, False, 1, 4.0, 60)
    assert w.observed == Observed(hand_size=5)
    assert deal.message.endswith("; presets dealing 5 tiles: muggins")


def test_a_deal_names_every_seat_holding_the_count():
    """helper-186: jersey-partnership footage (7 tiles to each of 4 seats) reviewed as muggins (5 to 2): the
    deal named "N and S" while its hint said 4 seats were seen. The four hand areas (``edges``) name the
    seats; a pile (W's 14) is no seat, and with no areas known the playing seats are named as before."""
    muggins = load_ruleset("muggins")
    four = {"N": 7, "E": 7, "S": 7, "W": 7}
    assert deal_misfit(muggins, {"N": 7, "S": 7}, ["N", "S"], deal_observed(four), four) == (
        "hands of 7 tiles seen at the deal (N, E, S and W), but muggins deals 5 (hand_size) to 2 seats (players = "
        "2: N and S): the hand's end and score may be wrong; check the rule set (--rules); presets dealing 7 tiles "
        "to 4 seats: bdc-partnership, jersey-partnership, nova-block")
    pile = {"N": 7, "S": 7, "W": 14}
    assert deal_misfit(muggins, {"N": 7, "S": 7}, ["N", "S"], deal_observed(pile), pile).startswith(
        "hands of 7 tiles seen at the deal (N and S), but muggins deals 5 (hand_size): ")
    assert deal_misfit(muggins, {"N": 7, "S": 7}, ["N", "S"]).startswith(
        "hands of 7 tiles seen at the deal (N and S), but muggins deals 5 (hand_size): ")


def test_a_larger_set_is_the_one_whose_tile_count_is_nearest():
    """A double-N set holds (N + 1)(N + 2) / 2 tiles: 28, 55 (nine), 91 (twelve). False or missed boxes move
    a count by a few; the set named is the nearest, and the rule set's own when it is nearest."""
    assert larger_set(DRAW, 28) is None
    assert larger_set(DRAW, 34) is None  # 6 false boxes (test above): nearer 28 than 55
    assert larger_set(DRAW, 41) is None and larger_set(DRAW, 42) == 9  # (28 + 55) / 2 = 41.5
    assert larger_set(DRAW, 55) == 9
    assert larger_set(DRAW, 74) == 12 and larger_set(DRAW, 88) == 12  # (55 + 91) / 2 = 73; 3 missed boxes
    assert larger_set(load_ruleset("draw", set_max=9), 55) is None
    assert larger_set(DRAW, 136) == 12  # a double fifteen: the largest the engine plays


def test_a_deal_of_more_tiles_than_the_set_holds_misfits_the_set():
    """helper-186: double-twelve draw footage (7 + 7 dealt, 77 in the boneyard: 91 = 13 * 14 / 2) reviewed as
    draw (double six, 28 tiles) got only a note that the boneyard was not counted. Its halves beyond 6 pips
    cannot be read, and no rule set file helps (the review refuses sets beyond double six)."""
    assert set_misfit(DRAW, 14, {"N": 7, "S": 7}) is None  # draw's own deal: 28
    assert set_misfit(DRAW, 20, {"N": 7, "S": 7}) is None  # 34: 6 false boxes, no larger set
    by_hand = "the review reads tiles of sets up to double six (pips 0..6) only: check the plays and score by hand"
    assert set_misfit(DRAW, 77, {"N": 7, "S": 7}, TWO_OF_7) == (
        "91 face-down tiles seen at the deal (14 in the hands, 77 apart from them), but draw plays a double-six set "
        "of 28 tiles (set_max = 6): the footage looks like a double-twelve set (91 tiles), whose tiles with more "
        "than 6 pips on a half are misread or missed: the hand's end and score may be wrong; check the rule set "
        "(--rules); no shipped preset for a double-twelve set dealing 7 tiles to 2 seats; " + by_hand)
    assert "looks like a double-nine set (55 tiles)," in set_misfit(DRAW, 41, {"N": 7, "S": 7})
    # 94 = 91 + 3: more than any set the engine plays (a double fifteen has 16 * 17 / 2 = 136)
    assert set_misfit(DRAW, 80, {"N": 7, "S": 7}).endswith(
        "looks like a double-twelve set (91 tiles) or a larger one, whose tiles with more than 6 pips on a half are "
        "misread or missed: the hand's end and score may be wrong; check the rule set (--rules); no shipped preset "
        "for a double-twelve set; " + by_hand)
    assert "(91 tiles), whose" in set_misfit(DRAW, 79, {"N": 7, "S": 7})  # 93: two false boxes


def test_a_larger_set_is_noticed_at_the_deal_once_and_every_later_hint_says_check_by_hand():
    """The count must be there at the deal and at the lead's read (a pile being dealt out is no set); the set
    seen then goes into every later hint: no double-six preset fits double-twelve tiles."""
    w = RulesFitWatch(DRAW)
    w.new_hand()
    assert _read(w, 77, {"N": 7, "S": 7}, started=False, t=0.5) == []
    (note,) = _read(w, 77, {"N": 6, "S": 7}, started=False, laid=1, t=4.0)
    assert note.details == {"parameter": "set_max", "rule": 6, "tiles": 91, "set_tiles": 28}
    assert w.observed == Observed(players=None, hand_size=7, set_max=12)  # _read gives no four hand areas
    assert w.seats_seen(2) == ("no shipped preset for a double-twelve set dealing 7 tiles to 2 seats; the review "
                               "reads tiles of sets up to double six (pips 0..6) only: check the plays and score by hand")
    w.new_hand()  # said once for the footage
    _read(w, 77, {"N": 7, "S": 7}, started=False, t=60.0)
    assert _read(w, 77, {"N": 6, "S": 7}, started=False, laid=1, t=64.0) == []
    w = RulesFitWatch(DRAW)
    w.new_hand()
    _read(w, 77, {"N": 7, "S": 7}, started=False, t=0.5)  # a miscount of one read: 14 at the lead's
    assert _read(w, 14, {"N": 6, "S": 7}, started=False, laid=1, t=4.0) == []


def test_seats_turned_names_the_seat_specs_that_put_the_rule_sets_seats_where_the_arms_came_from():
    """helper-187: --seats ESWN on a 2-seat table whose players sit at y=0 and y=H."""
    from vision.rules_fit import seats_turned

    assert seats_turned({"E": 7, "W": 7}, ["N", "S"], "ESWN") == (
        "arms came from E and W, the rule set seats N and S: calibrate again with --seats NESW or SWNE")
    assert seats_turned({"N": 5, "S": 6}, ["N", "S"], "NESW") is None  # the seats fit
    assert seats_turned({"N": 5, "E": 1}, ["N", "S"], "NESW") is None  # one play by E's arm: not clear
    assert seats_turned({"N": 4, "E": 4, "S": 4, "W": 4}, ["N", "E", "S", "W"], "ESWN") is None  # 4 seats: any turn fits
    assert seats_turned({"N": 3, "E": 3}, ["N", "S"], "NESW") is None  # side by side: no turn of the spec fits
    assert seats_turned({"N": 3, "E": 3, "S": 3}, ["N", "S"], "NESW") is None  # more seats than the rule set's
