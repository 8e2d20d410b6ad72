"""Property tests: random LEGAL hands for every preset (``tests/strategies.py``) replayed by the engine.

The strategy plays without the engine (its own hands, boneyard, turns, draws, extra turns
and end of hand), so each property compares the engine with an independent account:

* every tile is in exactly one place (table, a hand, the boneyard) and where the player put it;
* points are multiples of 5 where the rule set says so, and add up to the scores;
* the open ends agree with the chains on the board;
* replaying the log, appending it event by event, or re-applying an event through a
  correction gives the same state;
* the engine sees the same end (domino or lock) and raises no rule-violation flag.
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as hst

from engine.events import Correction, Play
from engine.hand import Hand, replay
from engine.ruleset import load_ruleset
from engine.scoring import round_points
from engine.tiles import full_set, hand_pips
from strategies import PRESETS, VIOLATIONS, RandomHand, play_random_hand, random_hands

SETTINGS = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def seeds() -> hst.SearchStrategy[int]:
    return hst.integers(min_value=0, max_value=2**32 - 1)


def _fives_only(rules) -> bool:
    """Every point a rule set can give in a hand without penalties is a multiple of 5."""
    round5 = ("nearest5", "down5", "up5")
    return (
        (not rules.score_ends or rules.end_score_scale == "total")
        and rules.domino_rounding in round5
        and (rules.lock_rounding in round5 or rules.lock_points == "none")
        and getattr(rules, "domino_fixed_points", None) is None
        and rules.capicua_bonus % 5 == 0 and rules.all_pass_bonus % 5 == 0
        and rules.first_tile_unanswered_bonus % 5 == 0
    )


def _check_hand(h: RandomHand) -> None:
    rules = h.rules
    st = replay(rules, h.log, h.context)

    # -- the engine agrees on how the hand ended, and saw nothing illegal
    assert [f.kind for f in st.flags if f.kind in VIOLATIONS] == []
    assert st.result is not None and st.pending_end is None
    assert st.result.kind == h.end
    if h.end == "domino":
        assert st.result.winner_seat == h.winner
    assert st.turn is None
    # the bare log (no match context, as ``legal_hands`` hands it out) replays to the same end
    bare = replay(rules, h.log)
    assert [f.kind for f in bare.flags if f.kind in VIOLATIONS] == []
    assert (bare.scores, bare.result.kind) == (st.scores, st.result.kind)

    # -- every tile exactly once: table + hands + boneyard = the set, each where the player put it
    table = {t.key for t in h.table}
    assert len(table) == len(h.table)
    assert st.layout.on_table == table
    in_hands = [t.key for hand in h.hands.values() for t in hand]
    bone = [t.key for t in h.boneyard]
    everything = sorted(list(table) + in_hands + bone)
    assert everything == sorted(t.key for t in full_set(rules.set_max))
    for seat, hand in h.hands.items():
        assert sorted(t.key for t in st.known[seat]) == sorted(t.key for t in hand)
        assert st.counts[seat] == len(hand)
    assert st.boneyard == (len(h.boneyard) if rules.boneyard else 0)

    # -- open ends agree with the board: each arm is a chain of matching halves from its origin
    chains = st.layout.chains()
    lead = st.layout.lead
    on_board = [lead.key] + [t.key for chain in chains.values() for t in chain]
    assert sorted(on_board) == sorted(table)
    spinner_values = {sp.tile.a for sp in st.layout.spinners}
    for name, chain in chains.items():
        origin = lead.a if name == "W" else lead.b if name == "E" else None
        if origin is None:
            assert len(spinner_values) >= 1
        for a, b in zip(chain, chain[1:]):
            assert a.b == b.a, (name, chain)
        if chain:
            if origin is not None:
                assert chain[0].a == origin, (name, chain)
            else:
                assert chain[0].a in spinner_values, (name, chain)
    for name, value in st.layout.open_ends().items():
        chain = chains[name]
        assert value == (chain[-1].b if chain else (lead.a if name == "W" else lead.b if name == "E"
                                                    else st.layout.arms[name].origin_value))
    # each play went on the end it names
    for out in st.outcomes:
        if isinstance(out.event, Play) and out.placement is not None and out.placement.end != "lead":
            assert out.placement.end == out.event.end and out.placement.matched
            assert out.placement.tile.key == out.event.tile.key

    # -- two-ended boards: the ends count is the sum of the two ends, a double at an end counted twice
    if rules.spinner == "none":
        dbl = 2 if rules.double_at_end_counts == "both" else 1
        play_outs = [out for out in st.outcomes if isinstance(out.event, Play)]
        expected = _two_end_counts([(out.event.tile, out.event.end) for out in play_outs], dbl)
        assert [out.ends_total for out in play_outs] == expected

    # -- points: multiples of 5 where the rules say so; they add up to the scores
    if _fives_only(rules):
        assert all(p % 5 == 0 for out in st.outcomes for p in out.points.values())
    if not rules.score_ends and not (rules.all_pass_bonus or rules.first_tile_unanswered_bonus):
        assert all(out.points == {} for out in st.outcomes[:-1])  # only the end of the hand scores
    totals = {side: 0 for side in st.sides}
    for out in st.outcomes:
        for side, p in out.points.items():
            totals[side] += p
    assert totals == st.scores

    # -- the end-of-hand award for a domino, counted from the player's own record of the hands
    if h.end == "domino" and getattr(rules, "domino_fixed_points", None) is None:
        left = {s: hand_pips(hand) for s, hand in h.hands.items()}
        assert st.result.remaining == left
        side = st.side(h.winner)
        counted = sum(p for s, p in left.items() if (st.side(s) != side if rules.domino_counts == "opponents"
                                                        else s != h.winner))
        expected = round_points(counted, rules.domino_rounding)
        if rules.domino_subtract_partner and rules.partnership:
            expected -= round_points(left[_partner(h.winner)], rules.domino_rounding)
        if rules.standings == "cumulative_pips":
            expected = 0  # seed 002: ranked by pips left; going out scores nothing
        assert st.result.awards[side] - (rules.capicua_bonus if st.result.capicua else 0) == expected


def _partner(seat: str) -> str:
    return {"N": "S", "S": "N", "E": "W", "W": "E"}[seat]


def _two_end_counts(plays, dbl: int) -> list[int]:
    """An independent ends count for a board without a spinner: (value, is double) at each end."""
    ends: dict[str, tuple[int, bool]] = {}
    counts = []
    for tile, end in plays:
        if not ends:
            ends = {"W": (tile.a, tile.is_double), "E": (tile.b, tile.is_double)}
            counts.append(tile.a * dbl if tile.is_double else tile.pips)  # a lone lead
            continue
        value = ends[end][0]
        ends[end] = (tile.other(value), tile.is_double)
        counts.append(sum(v * (dbl if d else 1) for v, d in ends.values()))
    return counts


@pytest.mark.parametrize("preset", PRESETS)
@SETTINGS
@given(seed=seeds())
def test_random_legal_hands_replay_consistently(preset, seed):
    _check_hand(play_random_hand(load_ruleset(preset), seed))


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(h=random_hands(), data=hst.data())
def test_appending_event_by_event_and_correcting_give_the_same_state(h, data):
    rules = h.rules
    full = replay(rules, h.log, h.context)
    hand = Hand(rules, h.context)
    for i, e in enumerate(h.log):
        out = hand.append(e)
        assert out.points == full.outcomes[i].points
        assert out.open_ends == full.outcomes[i].open_ends
    assert _snapshot(hand.state) == _snapshot(full)
    # a correction that puts the same event back changes nothing (and deletes nothing)
    i = data.draw(hst.integers(min_value=0, max_value=len(h.log) - 1), label="corrected event")
    log = h.log + [Correction(replaces=i, event=h.log[i])]
    assert _snapshot(replay(rules, log, h.context)) == _snapshot(full)
    # a replay of any prefix agrees with the full replay up to that point
    k = data.draw(hst.integers(min_value=1, max_value=len(h.log)), label="prefix")
    part = replay(rules, h.log[:k], h.context)
    assert [o.points for o in part.outcomes] == [o.points for o in full.outcomes[:k]]
    assert [o.open_ends for o in part.outcomes] == [o.open_ends for o in full.outcomes[:k]]


def _snapshot(st) -> tuple:
    res = st.result
    return (
        st.scores, st.layout.open_ends(), st.layout.chains(), st.counts,
        {s: sorted(t.key for t in h) if h is not None else None for s, h in st.known.items()},
        [f.kind for f in st.flags], st.turn,
        None if res is None else (res.kind, res.winner_seat, res.awards, res.remaining, res.capicua, res.next_leader),
    )
