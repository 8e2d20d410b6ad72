"""The board graph: arms, the spinner, open ends, the ends count and lock detection.

Every expected count is worked out by hand in the comment above it: W/E are the two
directions of the line from the lead, N/S the spinner's perpendicular arms; an open end
is the outer half of an arm's last tile (or the lead's half on that side while empty).
"""

from __future__ import annotations

import pytest

from engine.layout import Layout, LayoutError, rebuild
from engine.tiles import Tile


def T(text: str) -> Tile:
    return Tile.parse(text)


def lay(**kw) -> Layout:
    kw.setdefault("spinner", "first_double")
    kw.setdefault("spinner_arms_open", "after_both_sides")
    return Layout(set_max=6, **kw)


# ---- the lead ---------------------------------------------------------------------------

def test_a_lead_that_is_not_a_double_opens_two_ends_and_counts_both_halves():
    b = lay()
    p = b.place(T("6-4"), None)
    # the lead's first half faces W: W shows 6, E shows 4; the count is 6 + 4 = 10
    assert (p.end, p.end_value, p.matched, p.became_spinner) == ("lead", None, True, False)
    assert b.open_ends() == {"W": 6, "E": 4}
    assert b.ends_count() == 10


def test_a_lone_spinner_counts_both_halves_or_one_as_the_rules_say():
    both = lay()
    both.place(T("5-5"), None)
    # pagat: a lone spinner [5-5] counts 5 + 5 = 10
    assert both.ends_count() == 10
    one = lay(lone_spinner_counts="one")
    one.place(T("5-5"), None)
    # lone_spinner_counts = one: 5
    assert one.ends_count() == 5
    # without a spinner a lone double is just a double at the end: double_at_end_counts decides
    plain = lay(spinner="none", double_at_end_counts="one")
    assert plain.place(T("5-5"), None).became_spinner is False
    assert plain.ends_count() == 5


# ---- the spinner ----------------------------------------------------------------------------

def test_spinner_arms_open_only_after_both_long_sides_are_covered():
    b = lay()
    b.place(T("6-6"), None)
    assert b.open_ends() == {"W": 6, "E": 6}  # N and S closed
    b.place(T("6-3"), "E")
    # W side of the spinner still open: 6 + 6 = 12, plus E 3 = 15
    assert b.open_ends() == {"W": 6, "E": 3}
    assert b.ends_count() == 15
    b.place(T("6-1"), "W")
    # both long sides covered: N and S open at 6, but they count only once started; the spinner
    # itself no longer counts: W 1 + E 3 = 4
    assert b.open_ends() == {"W": 1, "E": 3, "N": 6, "S": 6}
    assert b.ends_count() == 4
    b.place(T("6-5"), "N")
    # 1 + 3 + 5 = 9
    assert b.ends_count() == 9
    b.place(T("6-2"), "S")
    # all four arms: 1 + 3 + 5 + 2 = 11
    assert b.open_ends() == {"W": 1, "E": 3, "N": 5, "S": 2}
    assert b.ends_count() == 11


def test_playing_on_a_closed_spinner_arm_is_placed_but_marked():
    b = lay()
    b.place(T("6-6"), None)
    p = b.place(T("6-3"), "N")  # N is not open yet: neither long side of [6-6] is covered
    assert p.closed_end is True and p.matched is True
    assert b.chains()["N"] == [Tile(6, 3)]
    # N is no open end yet, so the count leaves its 3 out: the lone spinner's 6 + 6 = 12
    assert b.open_ends() == {"W": 6, "E": 6}
    assert b.ends_count() == 12
    b.place(T("6-1"), "E")
    # W side of the spinner 12 + E 1 = 13 (with the closed arm's 3 it would be 16)
    assert b.ends_count() == 13
    b.place(T("6-2"), "W")
    # both long sides covered: N opens showing 3 and counts; W 2 + E 1 + N 3 = 6
    assert b.open_ends() == {"W": 2, "E": 1, "N": 3, "S": 6}
    assert b.ends_count() == 6


def test_a_tile_on_a_closed_arm_beside_a_lone_spinner_counting_one_half():
    b = lay(lone_spinner_counts="one")
    b.place(T("5-5"), None)
    b.place(T("5-0"), "S")  # closed: the spinner is still alone on the line, counting one half: 5
    assert b.ends_count() == 5


def test_spinner_arms_open_at_once_when_the_rules_say_so():
    b = lay(spinner_arms_open="immediately")
    b.place(T("6-6"), None)
    assert b.open_ends() == {"W": 6, "E": 6, "N": 6, "S": 6}
    # lone spinner: 6 + 6 = 12
    assert b.ends_count() == 12
    p = b.place(T("6-4"), "N")
    assert p.closed_end is False
    # the spinner's long sides are both still open: it counts ONCE as 6 + 6 = 12, plus N 4 = 16
    # (not 12 for W and 12 again for E)
    assert b.ends_count() == 16
    b.place(T("6-1"), "E")
    # W side still open: 12; E 1; N 4 -> 17
    assert b.ends_count() == 17


def test_a_double_inside_an_arm_becomes_the_spinner_when_it_is_the_first_double():
    b = lay()
    b.place(T("6-5"), None)
    p = b.place(T("5-5"), "E")
    assert p.became_spinner is True
    # [5-5] sits crosswise at the E end: W 6 + E 5 + 5 = 16; its N/S stay closed (E side open)
    assert b.open_ends() == {"W": 6, "E": 5}
    assert b.ends_count() == 16
    b.place(T("5-2"), "E")
    # both long sides of [5-5] covered: N/S open at 5 (uncounted until started); W 6 + E 2 = 8
    assert b.open_ends() == {"W": 6, "E": 2, "N": 5, "S": 5}
    assert b.ends_count() == 8
    r = b.place(T("6-6"), "W")
    # a second double is not a spinner under first_double; at the W end it counts 12: 12 + 2 = 14
    assert r.became_spinner is False
    assert b.ends_count() == 14


def test_every_double_spins_and_opens_numbered_arms():
    b = lay(spinner="every_double")
    b.place(T("6-6"), None)
    b.place(T("6-3"), "E")
    b.place(T("6-2"), "W")
    p = b.place(T("3-3"), "E")
    assert p.became_spinner is True
    # second spinner's arms are N2/S2, closed until a tile is laid beyond [3-3]
    assert set(b.open_ends()) == {"W", "E", "N", "S"}
    b.place(T("3-1"), "E")
    assert b.open_ends() == {"W": 2, "E": 1, "N": 6, "S": 6, "N2": 3, "S2": 3}
    # W 2 + E 1 = 3 (both spinners covered, unstarted arms do not count)
    assert b.ends_count() == 3


def test_no_spinner_rule_keeps_two_ends():
    b = lay(spinner="none")
    b.place(T("6-6"), None)
    b.place(T("6-3"), "E")
    b.place(T("6-1"), "W")
    assert b.open_ends() == {"W": 1, "E": 3}
    # 1 + 3 = 4
    assert b.ends_count() == 4


# ---- doubles at the end of an arm ------------------------------------------------------

def test_a_double_at_the_end_of_an_arm_counts_both_halves_by_default():
    b = lay(spinner="none")
    b.place(T("6-4"), None)
    b.place(T("4-4"), "E")
    # W 6 + E [4-4] crosswise 4 + 4 = 14
    assert b.ends_count() == 14
    b.place(T("6-6"), "W")
    # 12 + 8 = 20
    assert b.ends_count() == 20


def test_a_double_at_the_end_counts_one_half_when_the_rules_say_so():
    b = lay(spinner="none", double_at_end_counts="one")
    b.place(T("6-4"), None)
    b.place(T("4-4"), "E")
    # 6 + 4 = 10
    assert b.ends_count() == 10


# ---- placement: orientation, mismatches, impossible moves ---------------------------------

def test_an_unoriented_tile_is_turned_to_match_the_end():
    b = lay()
    b.place(T("6-4"), None)
    p = b.place(T("1-4"), "E")
    # the 4 touches the E end (4); the outer half 1 is the new end
    assert p.tile == Tile(4, 1) and p.end_value == 4 and p.matched
    assert b.open_ends() == {"W": 6, "E": 1}


def test_an_oriented_tile_is_kept_as_seen_and_a_wrong_orientation_is_a_mismatch():
    b = lay()
    b.place(T("6-4"), None)
    p = b.place(T("1-4"), "E", oriented=True)
    # seen as [1|4]: 1 touches an end showing 4
    assert p.tile == Tile(1, 4) and p.matched is False
    assert b.open_ends()["E"] == 4


def test_a_mismatched_tile_is_still_placed_and_reported():
    b = lay()
    b.place(T("6-4"), None)
    p = b.place(T("3-2"), "E")
    # neither half is 4: the tile stays [3|2], E now shows 2
    assert (p.tile, p.end_value, p.matched) == (Tile(3, 2), 4, False)
    assert b.open_ends() == {"W": 6, "E": 2}


def test_the_same_tile_cannot_be_placed_twice_in_either_orientation():
    b = lay()
    b.place(T("6-4"), None)
    b.place(T("4-1"), "E")
    with pytest.raises(LayoutError, match="already on the table"):
        b.place(T("1-4"), "E")
    with pytest.raises(LayoutError, match="already on the table"):
        b.place(T("4-6"), "W")


def test_an_end_that_does_not_exist_is_refused_naming_the_open_ends():
    b = lay()
    b.place(T("6-4"), None)
    with pytest.raises(LayoutError, match=r"no end 'X'.*W, E"):
        b.place(T("6-1"), "X")
    # N exists only once a spinner is down
    with pytest.raises(LayoutError, match="no end 'N'"):
        b.place(T("6-1"), "N")
    with pytest.raises(LayoutError, match=r"^a play after the lead needs an end \(open ends: W, E\)$"):
        b.place(T("6-1"), None)


def test_equal_open_ends_update_only_the_named_arm():
    b = lay(spinner="none")
    b.place(T("2-5"), None)
    b.place(T("5-1"), "E")
    b.place(T("1-2"), "E")
    assert b.open_ends() == {"W": 2, "E": 2}
    b.place(T("2-6"), "W")
    # only W moved: W 6, E still 2
    assert b.open_ends() == {"W": 6, "E": 2}
    b.place(T("2-3"), "E")
    assert b.open_ends() == {"W": 6, "E": 3}
    assert b.chains() == {"W": [Tile(2, 6)], "E": [Tile(5, 1), Tile(1, 2), Tile(2, 3)]}


def test_can_play_lists_every_open_end_a_tile_fits():
    b = lay(spinner="none")
    assert b.can_play(T("3-1")) == ["lead"]
    b.place(T("3-3"), None)
    assert b.can_play(T("3-1")) == ["W", "E"]
    assert b.can_play(T("1-2")) == []


# ---- lock from the board alone ----------------------------------------------------------------

LOCK_LINE = [("6-6", None), ("6-5", "E"), ("6-1", "W"), ("5-4", "E"), ("1-0", "W"), ("4-6", "E"),
             ("0-6", "W"), ("6-3", "E"), ("3-2", "E"), ("2-6", "E")]


@pytest.mark.parametrize("spinner", ["none", "first_double"])
def test_a_board_is_locked_once_every_tile_with_an_open_number_is_on_it(spinner):
    b = lay(spinner=spinner)
    assert b.is_locked() is False  # empty table
    for i, (tile, end) in enumerate(LOCK_LINE):
        b.place(T(tile), end)
        # both ends (and a spinner's arms) show 6 after the last tile; the seven 6s are 6-6, 6-5,
        # 6-1, 4-6, 0-6, 6-3, 2-6, all on the table only after the tenth tile
        assert b.is_locked() is (i == len(LOCK_LINE) - 1), (i, b.open_ends())
    assert set(b.open_ends().values()) == {6}


def test_rebuild_replays_placements():
    plays = [(Tile(6, 6), None, True), (Tile(6, 3), "E", True), (Tile(6, 1), "W", True)]
    b, placements = rebuild(plays, set_max=6, spinner="first_double")
    assert [p.end for p in placements] == ["lead", "E", "W"]
    assert b.open_ends() == {"W": 1, "E": 3, "N": 6, "S": 6}


def test_tile_parse_says_what_is_wrong_with_a_tile():
    from engine.tiles import TileError

    assert Tile.parse([6, 4], 6) == Tile(6, 4) and Tile.parse("12-0") == Tile(12, 0)
    # helper-72: a negative pip read "is not in a double-12 set" in a double-six game
    with pytest.raises(TileError, match=r"^tile -1-2: pips cannot be negative$"):
        Tile.parse([-1, 2])
    with pytest.raises(TileError, match=r"^tile 7-3 is not in a double-6 set$"):
        Tile.parse("7-3", 6)
