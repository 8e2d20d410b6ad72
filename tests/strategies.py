"""Hypothesis strategies: random LEGAL hands for a rule-set preset, played without the engine's help.

The player here is independent of ``engine/hand.py``: it deals from a seeded shuffle,
keeps every seat's tiles and the boneyard itself, and decides turns, draws, passes,
extra turns and the end of the hand from the rule set. Only the board graph
(:class:`engine.layout.Layout`, tested on its own in ``tests/test_layout.py``) is
shared, to know which open ends a tile fits. The engine then replays the log, and the
property tests check that it agrees: no flags, the same end, every tile once.

Use (from a test module; ``tests/`` is on the path under pytest)::

    from strategies import legal_hands, random_hands, play_random_hand

    @given(legal_hands())                 # (rules, log) for any preset; legal_hands(["muggins"]) for one
    def test_x(rules_and_log):
        rules, log = rules_and_log        # replay(rules, log) folds it

    @given(random_hands())                # RandomHand: log, context, the true end and hands left
    ...
    play_random_hand(load_ruleset("draw"), seed=7)   # plain function, no hypothesis

Draws are written with the tiles seen (``Draw(tiles=[...])``), so every hand stays known
to the engine and its legality checks (pass or draw with a legal play) run.
"""

from __future__ import annotations

import copy
import random
from dataclasses import dataclass, field

from hypothesis import strategies as st

from engine.events import Deal, Draw, Pass, Play
from engine.hand import HandContext
from engine.layout import Layout
from engine.ruleset import Ruleset, available_presets, load_ruleset
from engine.scoring import play_points
from engine.seats import seats_for
from engine.tiles import Tile, full_set

PRESETS = available_presets()

# Flags a legal hand must never raise (too_many_doubles and must_draw are information, not faults).
VIOLATIONS = {
    "mismatched_end", "closed_end", "out_of_turn", "pass_with_play", "draw_with_play",
    "pass_before_drawing", "wrong_start", "boneyard_reserve", "no_domino_with_scoring_or_double",
}


@dataclass
class RandomHand:
    """One random legal hand: its log, the context to replay it in, and the truth at the end."""

    rules: Ruleset
    log: list
    context: HandContext
    end: str  # "domino" | "locked"
    winner: str | None  # the seat that went out (domino)
    hands: dict[str, list[Tile]] = field(default_factory=dict)  # tiles left in each hand
    boneyard: list[Tile] = field(default_factory=list)
    table: list[Tile] = field(default_factory=list)  # tiles played, in order


def _deal(rules: Ruleset, rng: random.Random) -> tuple[dict[str, list[Tile]], list[Tile]]:
    order = seats_for(rules.players, rules.play_direction)
    for _ in range(1000):
        tiles = full_set(rules.set_max)
        rng.shuffle(tiles)
        hands = {s: tiles[i * rules.hand_size:(i + 1) * rules.hand_size] for i, s in enumerate(order)}
        rest = tiles[len(order) * rules.hand_size:]
        limit = rules.redeal_doubles
        if limit is not None and rules.redeal_doubles_mode == "mandatory" and any(
            sum(t.is_double for t in h) >= limit for h in hands.values()
        ):
            continue  # seed 001: five doubles, the hand is reshuffled (the table deals again)
        if rules.first_hand_opener == "highest_double_descending" and not any(
            t.is_double for h in hands.values() for t in h
        ):
            continue  # seed 000: no double dealt, fold and pull again
        return hands, rest
    raise RuntimeError("could not deal a playable hand")  # pragma: no cover


def _opening(rules: Ruleset, hands: dict[str, list[Tile]], order: list[str], rng: random.Random):
    """(leader, lead tile, context) for the first hand of a game under the rule set.

    ``double_six``: the holder of [6-6] leads it; ``highest_double_descending`` (seed 000,
    singles): the highest double dealt; ``any``: a random seat leads a random tile.
    """
    top = Tile(rules.set_max, rules.set_max)
    doubles = sorted((t.key for h in hands.values() for t in h if t.is_double), reverse=True)
    if rules.first_hand_opener == "any" or not doubles or (
        rules.first_hand_opener == "double_six" and doubles[0] != top.key
    ):
        seat = rng.choice(order)
        return seat, rng.choice(hands[seat]), HandContext()
    lead = Tile(*doubles[0])
    seat = next(s for s, h in hands.items() if any(t.key == lead.key for t in h))
    return seat, lead, HandContext(required_lead=top)


def _points_if_played(rules: Ruleset, layout: Layout, tile: Tile, end: str) -> int:
    trial = copy.deepcopy(layout)
    trial.place(tile, end)
    return play_points(trial.ends_count(), rules.end_score_scale) if rules.score_ends else 0


def play_random_hand(rules: Ruleset, seed: int, max_steps: int = 500) -> RandomHand:
    """Deal from ``random.Random(seed)`` and play a legal hand to its end (domino or lock)."""
    rng = random.Random(seed)
    order = seats_for(rules.players, rules.play_direction)
    hands, boneyard = _deal(rules, rng)
    log: list = [Deal(hands={s: list(h) for s, h in hands.items()})]
    hands = {s: list(h) for s, h in hands.items()}
    layout = Layout(
        set_max=rules.set_max, spinner=rules.spinner, spinner_arms_open=rules.spinner_arms_open,
        double_at_end_counts=rules.double_at_end_counts, lone_spinner_counts=rules.lone_spinner_counts,
    )
    reserve = rules.reserve() if rules.boneyard else 0
    table: list[Tile] = []

    def off_table() -> list[Tile]:
        return [t for h in hands.values() for t in h] + boneyard

    def locked() -> bool:  # from the board alone: nothing off the table fits an open end
        return not any(layout.can_play(t) for t in off_table())

    def drawable() -> int:
        return max(0, len(boneyard) - reserve) if rules.boneyard and rules.draw_rule != "none" else 0

    seat, lead, context = _opening(rules, hands, order, rng)
    hands[seat] = [t for t in hands[seat] if t.key != lead.key]
    layout.place(lead, None)
    table.append(lead)
    log.append(Play(seat=seat, tile=lead))
    extra = rules.extra_turn == "scoring_or_double" and (
        lead.is_double or (rules.score_ends and play_points(layout.ends_count(), rules.end_score_scale) > 0)
    )
    turn = seat if extra else order[(order.index(seat) + 1) % len(order)]
    passes = 0
    if locked():  # pragma: no cover - a single tile cannot lock a set
        return RandomHand(rules, log, context, "locked", None, hands, boneyard, table)

    for _ in range(max_steps):
        seat = turn
        hand = hands[seat]
        moves = [(t, e) for t in hand for e in layout.can_play(t)]
        if rules.no_domino_with_scoring_or_double and len(hand) == 1 and drawable() == 0:
            # seed 004: a player cannot domino with a scoring tile or a double; with nothing left
            # to draw "he must skip his turn"
            moves = [(t, e) for t, e in moves if not t.is_double and _points_if_played(rules, layout, t, e) == 0]
        if moves:
            tile, end = rng.choice(moves)
            # seen orientation half the time: [touching half, outer half]
            value = layout.open_ends()[end]
            oriented = rng.random() < 0.5
            shown = Tile(value, tile.other(value)) if oriented else (tile if rng.random() < 0.5 else tile.flipped())
            layout.place(shown, end, oriented)
            table.append(tile)
            hand.remove(tile)
            log.append(Play(seat=seat, tile=shown, end=end, oriented=oriented))
            passes = 0
            pts = play_points(layout.ends_count(), rules.end_score_scale) if rules.score_ends else 0
            again = rules.extra_turn == "scoring_or_double" and (pts > 0 or tile.is_double)
            if not hand:
                if rules.no_domino_with_scoring_or_double and (pts > 0 or tile.is_double):
                    turn = seat  # must draw (moves above made sure something is drawable)
                    continue
                return RandomHand(rules, log, context, "domino", seat, hands, boneyard, table)
            if locked():
                return RandomHand(rules, log, context, "locked", None, hands, boneyard, table)
            turn = seat if again else order[(order.index(seat) + 1) % len(order)]
        elif drawable() > 0 and rules.draw_rule == "until_playable":
            tile = boneyard.pop()
            hand.append(tile)
            log.append(Draw(seat=seat, count=1, tiles=[tile]))
        else:
            log.append(Pass(seat=seat))
            passes += 1
            if passes >= len(order):
                return RandomHand(rules, log, context, "locked", None, hands, boneyard, table)
            turn = order[(order.index(seat) + 1) % len(order)]
    raise RuntimeError(f"random hand did not end in {max_steps} steps")  # pragma: no cover


def random_hands(presets: list[str] | None = None) -> st.SearchStrategy[RandomHand]:
    """RandomHand for a preset drawn from ``presets`` (default: all bundled presets)."""
    names = presets or PRESETS
    return st.builds(
        lambda name, seed: play_random_hand(load_ruleset(name), seed),
        st.sampled_from(names),
        st.integers(min_value=0, max_value=2**32 - 1),
    )


def legal_hands(presets: list[str] | None = None) -> st.SearchStrategy[tuple[Ruleset, list]]:
    """(rules, hand_log) of a random legal hand for a preset; replay it with ``replay(rules, log)``."""
    return random_hands(presets).map(lambda h: (h.rules, h.log))
