"""Hands to film: seeded random hands (``engine.simulate``), optionally with mismatched ends.

A *mismatched end* is a tile put on an open end it does not match (the seeds' "bogus
play"); the engine places it anyway and flags it ``mismatched_end``. Footage injects
them to check that the vision side and the umpire flags see them.
"""

from __future__ import annotations

import random

from engine.events import Deal, Draw, Pass, Play
from engine.hand import Hand, HandContext
from engine.match import next_context, replay_match
from engine.ruleset import Ruleset
from engine.simulate import _opening, deal, simulate_hand


def simulate_hand_with_mismatches(rules: Ruleset, rng: random.Random, mismatches: int,
                                  context: HandContext | None = None, max_events: int = 400) -> list:
    """Like :func:`engine.simulate.simulate_hand`, but ``mismatches`` plays put a tile from the
    player's hand on an open end it does not match (played ``oriented``: its first half touches).

    The injected plays are at random play numbers among the first ``hand_size`` answers to
    the lead (pushed to the next play when the seat holds no non-matching tile); fewer are
    injected when the hand ends first. With ``mismatches = 0`` this *is* ``simulate_hand``.

    Raises:
        RuntimeError: the hand did not end within ``max_events``.
    """
    if mismatches <= 0:
        return simulate_hand(rules, rng, context, max_events)
    hands, boneyard = deal(rules, rng)
    h = Hand(rules, context)
    h.append(Deal(hands={s: list(t) for s, t in hands.items()}))
    if h.state.over:
        return h.log
    seat, lead = _opening(h, hands)
    if lead is None:
        lead = rng.choice(h.state.known[seat])  # type: ignore[arg-type]
    h.append(Play(seat=seat, tile=lead))
    targets = sorted(rng.sample(range(1, rules.hand_size + 1), min(mismatches, rules.hand_size)))
    answered = 0
    while not h.state.over:
        if len(h.log) > max_events:
            raise RuntimeError("simulated hand did not end")
        st = h.state
        seat = st.turn or st.order[0]
        moves = [(t, e) for e, tiles in st.legal_ends(seat).items() for t in tiles]
        if moves:
            answered += 1
            if targets and answered >= targets[0]:
                bad = sorted(((t, e) for e, v in st.layout.open_ends().items()
                              for t in st.known[seat] or [] if not t.has(v)), key=lambda m: (m[0].key, m[1]))
                if bad:
                    tile, end = rng.choice(bad)
                    targets.pop(0)
                    h.append(Play(seat=seat, tile=tile, end=end, oriented=True))
                    continue
            tile, end = rng.choice(sorted(moves, key=lambda m: (m[0].key, m[1])))
            h.append(Play(seat=seat, tile=tile, end=end))
        elif rules.boneyard and rules.draw_rule != "none" and st.drawable() > 0:
            h.append(Draw(seat=seat, count=1, tiles=[boneyard.pop()]))
        else:
            h.append(Pass(seat=seat))
    return h.log


def simulate_hands(rules: Ruleset, seed: int, hands: int = 1, mismatches: int = 0, max_hands: int = 60) -> list[list]:
    """``hands`` consecutive hands of a match (each hand's context from the ones before; 0: the
    whole match, at most ``max_hands``), one log per hand; ``mismatches`` injected per hand.
    Same seed, same logs. Stops early when the match is over."""
    rng = random.Random(seed)
    logs: list[list] = []
    while len(logs) < (hands or max_hands):
        state = replay_match(rules, logs)
        if state.over:
            break
        ctx = next_context(rules, state.games, len(logs) + 1)
        logs.append(simulate_hand_with_mismatches(rules, rng, mismatches, ctx))
    return logs
