"""Seeded random legal play: whole hands and matches for examples, tests and the footage generator.

Each seat on turn plays a random legal tile on a random legal end; in draw games a
seat that cannot play draws (seen tiles) until it can or the boneyard is spent, then
passes. The hand ends as the engine decides (domino or lock).

>>> from engine.ruleset import load_ruleset
>>> import random
>>> log = simulate_hand(load_ruleset("all-fives"), random.Random(7))
>>> log[0].type, log[1].type
('deal', 'play')
"""

from __future__ import annotations

import random

from engine.events import Deal, Draw, Pass, Play
from engine.hand import Hand, HandContext
from engine.ruleset import Ruleset
from engine.tiles import Tile, full_set


def deal(rules: Ruleset, rng: random.Random) -> tuple[dict[str, list[Tile]], list[Tile]]:
    """Shuffle a set and deal ``hand_size`` tiles to each playing seat; returns (hands, boneyard)."""
    from engine.seats import seats_for

    tiles = full_set(rules.set_max)
    rng.shuffle(tiles)
    seats = seats_for(rules.players, rules.play_direction)
    hands = {s: tiles[i * rules.hand_size:(i + 1) * rules.hand_size] for i, s in enumerate(seats)}
    return hands, tiles[len(seats) * rules.hand_size:]


def _opening(hand: Hand, hands: dict[str, list[Tile]]) -> tuple[str, Tile | None]:
    """Who leads and with which tile, when the context requires a tile nobody can be asked about."""
    st = hand.state
    if st.leader is not None and st.context.required_lead is not None:
        return st.leader, st.context.required_lead
    if st.leader is not None:
        return st.leader, None
    doubles = sorted(((t.key, s) for s, h in hands.items() for t in h if t.is_double), reverse=True)
    if st.context.required_lead is not None and doubles:
        return doubles[0][1], Tile(*doubles[0][0])
    return st.order[0], None


def simulate_hand(rules: Ruleset, rng: random.Random, context: HandContext | None = None,
                  max_events: int = 400, mismatches: int = 0) -> list:
    """Play one hand at random but legally; returns its event log (a Deal first).

    ``mismatches`` plays (at random play numbers among the first ``hand_size`` answers to the
    lead) instead put a tile of the player's hand on an open end it does not match, played
    ``oriented`` so its first half touches: the seeds' "bogus play", which the engine places
    and flags ``mismatched_end``. Fewer are injected when the hand ends first.

    Raises:
        RuntimeError: the hand did not end within ``max_events`` (an engine bug).
    """
    hands, boneyard = deal(rules, rng)
    h = Hand(rules, context)
    h.append(Deal(hands={s: list(t) for s, t in hands.items()}))
    if h.state.over:
        return h.log
    seat, lead = _opening(h, hands)
    if lead is None:
        lead = rng.choice(h.state.known[seat])  # type: ignore[arg-type]
    h.append(Play(seat=seat, tile=lead))
    targets = sorted(rng.sample(range(1, rules.hand_size + 1), min(mismatches, rules.hand_size))) if mismatches else []
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


def simulate_match(rules: Ruleset, seed: int, max_hands: int = 60, hands: int = 0, mismatches: int = 0) -> list[list]:
    """Hands played until the match is over (per the rule set), ``hands`` hands (0: no limit) or
    ``max_hands``; one log per hand, ``mismatches`` injected per hand (see :func:`simulate_hand`).
    Same seed, same logs."""
    from engine.match import next_context, replay_match

    rng = random.Random(seed)
    logs: list[list] = []
    while len(logs) < (hands or max_hands):
        state = replay_match(rules, logs)
        if state.over:
            break
        ctx = next_context(rules, state.games, len(logs) + 1)
        logs.append(simulate_hand(rules, rng, ctx, mismatches=mismatches))
    return logs
