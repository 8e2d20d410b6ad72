"""The game record: JSON and text notation round trips, fixed hands scored by hand, errors, CLI."""

from __future__ import annotations

import html
import json
import os
import random
import re
from pathlib import Path

import pytest
import typer
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from engine.events import Correction, Draw, Pass, Penalty, Play
from engine.match import replay_match
from engine.notation import NotationError, parse_event
from engine.record import (
    MatchRecord, RecordError, event_to_dict, from_json, record_from_match, rederive, replay_record, rules_of,
    to_json, unfinished_hands,
)
from engine.record_text import read_text, write_text
from engine.ruleset import load_ruleset
from engine.script import load_script
from service import cli_engine, cli_record
from strategies import PRESETS, play_random_hand

ROOT = Path(__file__).resolve().parents[1]
DEMO = ROOT / "docs" / "examples" / "record-demo.yaml"


def log_of(*lines: str) -> list:
    return [parse_event(line) for line in lines]


def round_trips(rec: MatchRecord) -> None:
    """JSON and text both give back the record: logs exactly, derived parts recomputed equal."""
    via_json = from_json(to_json(rec))
    via_text = read_text(write_text(rec))
    for other in (via_json, via_text):
        assert other.logs == rec.logs
        assert other == rec
    assert from_json(to_json(rec, indent=None)) == rec


# ---- fixed hands, scored by hand ------------------------------------------------------------

@pytest.fixture(scope="module")
def demo() -> MatchRecord:
    sc = load_script(DEMO)
    return record_from_match(sc.rules, sc.hands, sc.players)


def test_demo_hand_scores(demo):
    # Lisa B. All Fives, singles; ends counted as W + E + N + S (perpendicular arms once started).
    # 1 N 5-5 lead (6-6 asleep, the highest double leads): lone spinner 10 -> N +10
    # 2 S 5-0 E: spinner side 10 + 0 -> S +10          3 N 0-0 E: 10 + 0 (double 0) -> N +10
    # 4 S draws 1-0 (no 5 or 0)                        5 S 1-0 E: 10 + 1 = 11
    # 6 N 5-1 W covers the spinner: 1 + 1 = 2          7 S 1-1 W: 2 + 1 = 3
    # 8 N 5-2 S: 2 + 1 + 2 -> N +5                     9 S 6-3 E misread; 10 fixes it to 6-1 E: 2 + 6 + 2 -> S +10
    # 11 N 6-2 E: 2 + 2 + 2 = 6                        12 S 2-1 E: 2 + 1 + 2 -> S +5
    # 13 N 5-3 N: 2 + 1 + 2 + 3 = 8                    14 S 4-1 W: 4 + 1 + 2 + 3 -> S +10
    # 15 N 4-4 W: 8 + 1 + 2 + 3 = 14, N is out; S holds 6-4 6-3 = 19 pips -> nearest 5 -> N +20
    hand = demo.hands[0]
    assert hand.status == "over"
    assert hand.result.kind == "domino" and hand.result.winner == "N"
    assert hand.result.awards == {"N": 20, "S": 0}
    assert hand.result.remaining == {"N": 0, "S": 19}
    assert hand.points == {"N": 10 + 10 + 5 + 20, "S": 10 + 10 + 5 + 10}
    by_index = {o.index: o.points for o in hand.outcomes}
    assert by_index[1] == {"N": 10} and by_index[9] == {"S": 10} and 10 not in by_index  # 10 is the fix
    assert by_index[15] == {}  # the domino play itself scores 14: nothing; the award is the result's
    assert (hand.start_t, hand.end_t) == (4.2, 75.3)
    assert [(s.side, s.total) for s in demo.standings] == [("N", 45), ("S", 35)]
    assert demo.players == {"N": "Ana", "S": "Bob"} and demo.teams == {"N": ["N"], "S": ["S"]}
    assert demo.rules.preset == "lisa-b-all-fives"
    assert demo.rules.params == load_ruleset("lisa-b-all-fives").model_dump(mode="json")


def test_demo_text_lines(demo):
    text = write_text(demo)
    lines = text.splitlines()
    assert lines[:3] == ['[Format "dominocast-record 1"]', '[Rules "lisa-b-all-fives"]', '[Players "N: Ana; S: Bob"]']
    assert "1. N 5-5 t=4.2 f=126  {+10}" in lines
    assert "4. S draw 1-0 t=21.5 f=645" in lines
    assert "9. S 6-3 E t=47.7 f=1431" in lines  # replaced: its points show on the fix
    assert "10. fix 9 S 6-1 E t=52.0  {+10}" in lines
    assert "= domino N +20  (pips: N 0, S 19; hand: N +45, S +35)" in lines
    round_trips(demo)


def test_json_shape(demo):
    data = json.loads(to_json(demo))
    assert (data["format"], data["version"]) == ("dominocast-record", 1)
    events = data["hands"][0]["events"]
    assert events[2] == {"type": "play", "t": 9.8, "frame": 294, "seat": "S", "tile": [5, 0], "end": "E"}
    assert events[4] == {"type": "draw", "t": 21.5, "frame": 645, "seat": "S", "tiles": [[1, 0]]}
    assert events[10] == {"type": "correction", "t": 52.0, "replaces": 9,
                          "event": {"type": "play", "seat": "S", "tile": [6, 1], "end": "E"}}
    assert replay_record(demo).games[0].scores == {"N": 45, "S": 35}


def test_unseen_draw_reveal_and_rule_override():
    # All Fives with 2-tile hands (an override). N 5-5: 10. S draws 2 unseen, plays 5-1 E: 10 + 1.
    # N 5-0 W: 0 + 1; N is out but S's hand is unknown until S reveals 4-4 3-2 6-6 = 25 pips.
    rules = load_ruleset("all-fives", hand_size=2)
    log = log_of("deal N 5-5 5-0 / S 4-4 3-2", "N 5-5 t=1", "S draw 2 t=3.5", "S 5-1 E t=7.25 f=217",
                 "N 5-0 W t=11 f=330")
    waiting = record_from_match(rules, [log])
    assert waiting.hands[0].status == "awaiting_reveal" and waiting.hands[0].result is None
    assert "= awaiting reveal" in write_text(waiting)
    round_trips(waiting)
    rec = record_from_match(rules, [log + log_of("S reveal 4-4 3-2 6-6 t=20")])
    assert rec.hands[0].result.awards == {"N": 25, "S": 0}
    assert rec.hands[0].points == {"N": 35, "S": 0}
    text = write_text(rec)
    assert '[Rule hand_size "2"]' in text.splitlines()
    assert "2. S draw 2 t=3.5" in text
    back = read_text(text)
    assert rules_of(back).hand_size == 2 and back.rules.params == rules.model_dump(mode="json")
    round_trips(rec)


def test_penalties_and_fines():
    # Lisa B.: a bogus play costs the infractor 25 and ends the hand for a redeal; a fine stands alone.
    rules = load_ruleset("lisa-b-all-fives")
    log = log_of("N 6-6 t=2", "N penalty -5/+5 slow play", "S penalty bogus_play t=30")
    rec = record_from_match(rules, [log])
    hand = rec.hands[0]
    assert hand.result.kind == "redeal"
    assert hand.points == {"N": 0 - 5, "S": 5 - 25}  # 6-6 alone counts 12: nothing
    lines = write_text(rec).splitlines()
    assert "1. N penalty -5/+5 slow play  {N -5, S +5}" in lines
    assert "2. S penalty bogus_play t=30.0  {-25}" in lines
    assert "= redeal +0  (hand: N -5, S -20)" in lines
    round_trips(rec)


def test_locked_block_hand():
    # Block: N 6-6, S 6-5; neither holds a 6 or a 5: two passes lock the hand. N has
    # 1-1 1-0 2-2 2-0 3-3 3-0 = 18 pips, S 4-4 4-1 4-2 4-0 3-1 2-1 = 30: N takes S's 30.
    rules = load_ruleset("block")
    log = log_of("deal N 6-6 1-1 1-0 2-2 2-0 3-3 3-0 / S 6-5 4-4 4-1 4-2 4-0 3-1 2-1",
                 "N 6-6 t=0.5 f=15", "S 6-5 E t=3.25 f=98", "N pass t=9 f=270", "S pass t=14.5 f=435")
    rec = record_from_match(rules, [log], {"N": "Ana", "S": "Bob"}, {"title": "Club night", "table": "3",
                                                                     "date": "2025-06-01"})
    res = rec.hands[0].result
    assert (res.kind, res.winner, res.awards, res.remaining) == ("locked", "N", {"N": 30, "S": 0}, {"N": 18, "S": 30})
    text = write_text(rec)
    assert '[Event "Club night"]' in text and '[Table "3"]' in text and '[Date "2025-06-01"]' in text
    assert "= locked N +30  (pips: N 18, S 30; hand: N +30, S +0)" in text
    assert read_text(text).event == rec.event
    round_trips(rec)


def test_partnership_penalty_and_game_lines():
    # BDC partnership: all 28 tiles dealt. E passes holding 6-5 after the lead: the umpire applies
    # pass_with_play (opponents +30, the hand ends, NS lead next).
    rules = load_ruleset("bdc-partnership")
    deal = ("deal N 6-6 1-1 1-0 2-2 2-0 3-3 3-0 / E 6-5 4-4 4-1 4-2 4-0 3-1 2-1 / "
            "S 6-4 6-3 6-2 6-1 6-0 5-5 5-4 / W 5-3 5-2 5-1 5-0 4-3 3-2 0-0")
    log = log_of(deal, "N 6-6", "W pass", "E pass", "E penalty pass_with_play")
    # counterclockwise: N, W, S, E. W holds no 6; E is not on turn (out_of_turn) and holds 6-5
    rec = record_from_match(rules, [log], {"N": "Ana", "E": "Eve", "S": "Sam", "W": "Wes"})
    hand = rec.hands[0]
    assert hand.points == {"EW": 0, "NS": 30}  # the hand ended before anyone answered the lead
    flags = {o.index: [f.kind for f in o.flags] for o in hand.outcomes}
    assert "pass_with_play" in flags[3] and "out_of_turn" in flags[3]
    assert rec.teams == {"NS": ["N", "S"], "EW": ["W", "E"]}
    text = write_text(rec)
    assert '[Teams "NS: N S; EW: W E"]' in text
    assert "4. E penalty pass_with_play  {NS +30}" in text
    round_trips(rec)


def test_partnership_full_hand_from_simulation():
    rules = load_ruleset("bdc-partnership")
    h = play_random_hand(rules, 11)
    rec = record_from_match(rules, [h.log])
    assert rec.hands[0].result.kind == h.end
    if h.end == "domino":
        assert rec.hands[0].result.winner == h.winner
        left = sum(t.pips for hand in h.hands.values() for t in hand)
        assert rec.hands[0].result.awards[("NS" if h.winner in "NS" else "EW")] >= left  # + capicua
    round_trips(rec)


def test_a_bogus_play_called_after_the_domino_shows_the_penalty_not_the_voided_award():
    """helper-157: lisa-b's bogus play (-25, seed 000: called after the end it folds the hand) showed {-30}
    after N's domino, 5 for S's 6 pips, since the voided award was taken back in the penalty's points;
    the outcomes plus the awards then did not sum to the hand's points. By hand: N 5-5 scores 10, N 5-0 E
    leaves ends 5 + 0 + the spinner's 5 (10), the fold leaves no award: 10 + 10 - 25 = -5."""
    rules = load_ruleset("lisa-b-all-fives", hand_size=2)
    rec = record_from_match(rules, [log_of("deal N 5-5 5-0 / S 1-1 2-2", "N 5-5", "S pass", "N 5-0 E",
                                           "N penalty bogus_play")])
    hand = rec.hands[0]
    assert [o.points for o in hand.outcomes] == [{}, {"N": 10}, {}, {"N": 10}, {"N": -25}]
    assert (hand.result.kind, hand.result.awards, hand.points) == ("redeal", {}, {"N": -5, "S": 0})
    assert "4. N penalty bogus_play  {-25}" in write_text(rec)
    round_trips(rec)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(preset=st.sampled_from(PRESETS), seed=st.integers(0, 10_000), late=st.booleans())
def test_the_outcomes_and_the_awards_sum_to_the_hand_points(preset, seed, late):
    """The record's invariant (docs/record-format.md: an event's points exclude the end-of-hand awards,
    which are the result's): summed independently of the engine's own total, also when a penalty that
    ends the hand is called after it was played out (it folds the hand and voids the awards)."""
    rules = load_ruleset(preset)
    h = play_random_hand(rules, seed)
    log = list(h.log)
    folding = [n for n, p in rules.penalties.items() if p.ends_hand or p.redeal]
    if late and folding and h.winner:
        log.append(Penalty(seat=h.winner, name=folding[0]))
    hand = record_from_match(rules, [log]).hands[0]
    total: dict[str, int] = {}
    for pts in [o.points for o in hand.outcomes] + [hand.result.awards]:
        for side, p in pts.items():
            total[side] = total.get(side, 0) + p
    assert {k: v for k, v in total.items() if v} == {k: v for k, v in hand.points.items() if v}


def test_a_reveal_after_a_flat_domino_award_gives_the_result_its_pips_left():
    """helper-157: Fives and Threes scores 1 for going out (pagat) without waiting for the reveals, and
    the result kept "remaining {}" after S showed 6-6; now N 0, S 12, the award unchanged."""
    rules = load_ruleset("fives-and-threes", hand_size=2)
    rec = record_from_match(rules, [log_of("N 5-5", "S 5-0 E", "N 0-3 E", "S reveal 6-6")])
    res = rec.hands[0].result
    assert (res.kind, res.winner, res.awards, res.remaining) == ("domino", "N", {"N": 1, "S": 0}, {"N": 0, "S": 12})
    round_trips(rec)


def test_exotic_events_fall_back_to_json_lines():
    rules = load_ruleset("all-fives")
    log = [
        Play(seat="N", tile="5-5", t=123456789.123, frame=3),
        Play(seat="S", tile="5-0", end="E", confidence=0.9321, oriented=True, t=1e-05),
        Penalty(seat="N", points=-5, reason="slow #play {x} !y t=3"),
        Correction(replaces=1, event=Play(seat="S", tile="0-5", end="W", t=4.0), t=9.5, reason="misread"),
        Penalty(seat="S", name="unknown", points=3),
        Pass(seat="N", t=12.0),
        Correction(replaces=5, event=None, by="umpire"),
        Draw(seat="N", count=1, t=13.0),
    ]
    rec = record_from_match(rules, [log], {"N": "Ana; Jr", "S": " Bob"}, {"title": 'He said "hi"\nagain'})
    text = write_text(rec)
    assert "1. S 5-0 E t=0.00001 c=0.9321 oriented" in text
    assert "0. N 5-5 t=123456789.123 f=3  {+10}" in text
    assert re.search(r'^2\. json \{"type": "penalty"', text, re.M)
    assert '[Player N "Ana; Jr"]' in text and '[Event "He said \\"hi\\"\\nagain"]' in text
    assert '6. void 5 by="umpire"' in text  # who corrected is said in the notation, not as JSON
    round_trips(rec)


def test_an_umpires_corrections_are_notation_lines_with_who_and_why():
    """helper-97: every correction the service records carries ``by``/``reason`` and was written as a
    JSON line (a swap of two plays made two). They are ``fix``/``void`` lines with ``by=`` and ``why=``."""
    rules = load_ruleset("all-fives")
    log = [Play(seat="N", tile="6-1"), Play(seat="S", tile="6-3", end="W"), Play(seat="N", tile="1-4", end="E"),
           Correction(replaces=1, event=Play(seat="S", tile="1-4", end="E"), by="umpire Ana",
                      reason='tiles "recorded the wrong way round" — swap'),
           Correction(replaces=2, event=Play(seat="N", tile="6-3", end="W"), by="umpire Ana", reason="swap")]
    text = write_text(record_from_match(rules, [log]))
    assert '3. fix 1 S 1-4 E by="umpire Ana" why="tiles \\"recorded the wrong way round\\" — swap"  {+10}' in text
    assert '4. fix 2 N 6-3 W by="umpire Ana" why="swap"  {+0}' in text
    assert "json" not in text
    back = read_text(text)
    assert back.hands[0].events == log


def test_rules_outside_the_presets_are_written_in_full():
    rules = load_ruleset("muggins").model_copy(update={"name": "my-club", "title": "My club", "target": 61})
    rec = record_from_match(rules, [log_of("N 5-5")])
    text = write_text(rec)
    assert '[Rules "my-club"]' in text and '[Rule target "61"]' in text and '[Rule title "My club"]' in text
    assert read_text(text).rules == rec.rules
    round_trips(rec)


def test_multi_game_match_text_lines():
    rules = load_ruleset("block", target=10)
    log = log_of("deal N 6-6 1-1 1-0 2-2 2-0 3-3 3-0 / S 6-5 4-4 4-1 4-2 4-0 3-1 2-1",
                 "N 6-6", "S 6-5 E", "N pass", "S pass")
    rules2 = rules.model_copy(update={"games_per_match": 2})
    rec = record_from_match(rules2, [log, log])
    assert [(h.game, h.number) for h in rec.hands] == [(1, 1), (2, 1)]
    assert rec.over and [g.winner for g in rec.games] == ["N", "N"]
    text = write_text(rec)
    assert "Hand 1 (game 2)" in text and "== game 1 over (target): N  (N 30, S 0)" in text
    assert "== standings (side, games won, points): N 2 60; S 0 0" in text
    round_trips(rec)


def test_doc_example_is_current(demo):
    doc = (ROOT / "docs" / "record-format.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```(\w*)\n(.*?)```", doc, re.S)
    text_block = next(b for lang, b in blocks if b.startswith('[Format "dominocast-record 1"]'))
    json_block = next(b for lang, b in blocks if lang == "json" and '"format": "dominocast-record"' in b)
    assert text_block == write_text(demo)
    from_doc = from_json(json_block)
    assert from_doc.hands == demo.hands and from_doc.standings == demo.standings
    assert from_doc.players == demo.players and from_doc.rules == demo.rules  # every parameter, as the doc says


# ---- property: random legal matches round-trip -------------------------------------------

def decorate(log: list, rng: random.Random) -> list:
    """Camera-style extras on a legal log: timestamps, frames, confidences, a re-timing fix, a fine."""
    out, t = [], rng.uniform(0, 5)
    for ev in log:
        t += rng.uniform(0.5, 20)
        extra: dict = {}
        if rng.random() < 0.7:
            extra.update(t=round(t, rng.choice([0, 1, 3, 6])), frame=int(t * 30))
        if isinstance(ev, Play) and rng.random() < 0.5:
            extra["confidence"] = rng.random()
        out.append(ev.model_copy(update=extra))
    if rng.random() < 0.3:
        at = rng.randrange(len(out) + 1)
        out.insert(at, Penalty(seat=rng.choice([s for s in "NESW" if any(getattr(e, "seat", None) == s for e in log)]),
                               points=-5, reason="slow play", t=t))
    if rng.random() < 0.5:
        i = rng.randrange(len(out))
        out.append(Correction(replaces=i, event=out[i].model_copy(update={"t": None, "frame": None}),
                              t=t + 1, reason="re-timed"))
    return out


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(PRESETS), st.integers(0, 2**32 - 1), st.integers(1, 3))
def test_random_matches_round_trip(preset, seed, hands):
    rules = load_ruleset(preset)
    rng = random.Random(seed)
    logs: list[list] = []
    for k in range(hands):
        if logs and replay_match(rules, logs).over:
            break
        logs.append(decorate(play_random_hand(rules, seed + k).log, rng))
    rec = record_from_match(rules, logs, {"N": "Ana"}, {"title": "random"})
    via_json, via_text = from_json(to_json(rec)), read_text(write_text(rec))
    expected = replay_match(rules, logs).standings()
    for other in (via_json, via_text):
        assert other.logs == logs
        assert replay_record(other).standings() == expected
        assert [h.points for h in other.hands] == [h.points for h in rec.hands]
        assert other == rec


# ---- errors -------------------------------------------------------------------------------

@pytest.mark.parametrize("text, message", [
    ("{not json", "not JSON: line 1"),
    ("[1, 2]", "not a dominocast record"),
    ('{"format": "pgn", "version": 1}', "not a dominocast record (format is 'pgn'"),
    ('{"format": "dominocast-record"}', "has no version"),
    ('{"format": "dominocast-record", "version": 2}', "record version 2 is newer than this reader"),
    ('{"format": "dominocast-record", "version": "2.1"}', "record version 2.1 is newer"),
    ('{"format": "dominocast-record", "version": "one"}', "unsupported record version 'one'"),
    ('{"format": "dominocast-record", "version": 1}', "malformed record: rules: Field required"),
])
def test_bad_json(text, message):
    with pytest.raises(RecordError, match=re.escape(message)):
        from_json(text)


def test_bad_json_fields(demo):
    data = json.loads(to_json(demo))
    data["hands"][0]["events"][1]["tile"] = [13, 1]
    with pytest.raises(RecordError, match=r"malformed record: hands\.0\.events\.1\.play\.tile"):
        from_json(json.dumps(data))
    data = json.loads(to_json(demo))
    data["rules"]["params"]["players"] = 5
    with pytest.raises(RecordError, match="key 'players'"):
        from_json(json.dumps(data))
    assert from_json(to_json(demo).replace('"version": 1', '"version": "1.3"')) == demo  # a minor version
    # a field this version does not know: maybe a newer dominocast wrote it (helper-132)
    data = json.loads(to_json(demo))
    data["hands"][0]["events"][1]["seen_from_above"] = True
    with pytest.raises(RecordError, match=r"play\.seen_from_above: Extra inputs are not permitted \(a field this "
                                          r"version does not know: was the record written by a newer dominocast\? "):
        from_json(json.dumps(data))


@pytest.mark.parametrize("text, message", [
    ('[Rules "block"]\n', "no [Format"),
    ('[Format "dominocast-record 2"]\n', "line 1: record version 2 is newer"),
    ('[Format "pgn 1"]\n', "line 1: not a dominocast record"),
    ('[Format "dominocast-record 1"]\n[Colour "red"]\n', "line 2: unknown tag 'Colour'"),
    ('[Format "dominocast-record 1"]\n[Rules block]\n', "line 2: malformed tag"),
    ('[Format "dominocast-record 1"]\n', "no [Rules"),
    ('[Format "dominocast-record 1"]\n[Rules "nope"]\n', "unknown rule set 'nope' (presets: all-fives, "),
    ('[Format "dominocast-record 1"]\n[Rules "block"]\n[Rule players "5"]\n', "key 'players'"),
    ('[Format "dominocast-record 1"]\n[Rules "block"]\n0. N 6-6\n', "line 3: an event line before the first"),
    ('[Format "dominocast-record 1"]\n[Rules "block"]\nHand 1\n1. N 6-6\n', "line 4: event number 1, expected 0"),
    ('[Format "dominocast-record 1"]\n[Rules "block"]\nHand 1\n0. N dance\n', "line 4: 'N dance'"),
    ('[Format "dominocast-record 1"]\n[Rules "block"]\nHand 1\n0. N 6-6\n1. S 6-6 E\n', "hand 1, event #1"),
    ('[Format "dominocast-record 1"]\n[Rules "block"]\nHand 1\n0. N pass c=0.5\n', "apply to plays only"),
    ('[Format "dominocast-record 1"]\n[Rules "block"]\nHand 1\n0. N 6-6 c=7\n',
     "event 0: confidence: Input should be less than or equal to 1"),
    ('[Format "dominocast-record 1"]\n[Rules "block"]\nHand 1\n0. N 6-6 t=-5\n',
     "event 0: t: Input should be greater than or equal to 0"),
    ('[Format "dominocast-record 1"]\n[Rules "block"]\nHand 1\n0. N 6-6 t=nan\n',
     "'N 6-6 t=nan': t: input should be a finite number"),
    # helper-48: stamps before a stray word were dropped in silence; raw Python messages; a repeat kept one
    ('[Format "dominocast-record 1"]\n[Rules "block"]\nHand 1\n0. N 6-6 t=7.5 f=60 c=0.9 junk\n',
     "a play is SEAT TILE [END]"),
    ('[Format "dominocast-record 1"]\n[Rules "block"]\nHand 1\n0. N 6-6 c=1.2.3\n', "event 0: c=1.2.3 is not a number"),
    ('[Format "dominocast-record 1"]\n[Rules "block"]\nHand 1\n0. N 6-6 f=1.5\n',
     "event 0: f=1.5 is not a frame index (a whole number >= 0)"),
    ('[Format "dominocast-record 1"]\n[Rules "block"]\nHand 1\n0. N 6-6 c=0.5 c=0.6\n', "event 0: c= given twice"),
    ('[Format "dominocast-record 1"]\n[Rules "block"]\nHand 1\n0. json {"type": "jump"}\n', "bad JSON event"),
    ('[Format "dominocast-record 1"]\n[Rules "block"]\n[Players "N Ana"]\n', "is not 'SEAT: name'"),
    ('[Format "dominocast-record 1"]\n[Rules "block"]\n[Players "E: Eve"]\n', "seat 'E' is not playing"),
    # helper-77: a repeated tag silently won (a target of 300 read as 100; another rule set's deal refused)
    ('[Format "dominocast-record 1"]\n[Rules "block"]\n[Rule target "300"]\n[Rule target "100"]\n',
     "line 4: [Rule target] is given twice"),
    ('[Format "dominocast-record 1"]\n[Rules "lisa-b-all-fives"]\n[Rules "muggins"]\n', "line 3: [Rules] is given twice"),
    # helper-121: these two were taken
    ('[Format "dominocast-record 1"]\n[Format "dominocast-record 1"]\n[Rules "block"]\n', "line 2: [Format] is given twice"),
    ('[Format "dominocast-record 1"]\n[Rules "block"]\n[Players "N: Ana"]\n[Players "S: Bob"]\n',
     "line 4: [Players] is given twice"),
    ('[Format "dominocast-record 1"]\n[Rules "block"]\n[Players "N: Ana; S: Bob; N: Carl"]\n',
     "line 3: seat N is named twice ('Ana' and 'Carl')"),
    ('[Format "dominocast-record 1"]\n[Rules "block"]\n[Players "N: Ana"]\n[Player N "Carl"]\n',
     "line 4: seat N is named twice"),
    ('[Format "dominocast-record 1"]\n[Rules "block"]\nHand 1\n0. N 6-6 by="Ana"\n',
     "event 0: by= and why= apply to fix and void lines only"),
    ('[Format "dominocast-record 1"]\n[Rules "block"]\nHand 1\n0. N 6-6\n1. void 0 why="a" why="b"\n',
     "event 1: why= given twice"),
    # helper-98: the rest of a void line was dropped without a word; a bad by= got the play grammar's message
    ('[Format "dominocast-record 1"]\n[Rules "block"]\nHand 1\n0. N 6-6\n1. void 0 because="x"\n',
     "'void 0 because=\"x\"': 'void N' takes nothing after the event number"),
    ('[Format "dominocast-record 1"]\n[Rules "block"]\nHand 1\n0. N 6-6\n1. void 0 by="umpire Ana\n',
     'event 1: by= takes one double-quoted text (a JSON string: \\" for a quote), after the event'),
    ('[Format "dominocast-record 1"]\n[Rules "block"]\nHand 1\n0. N 6-6\n1. void 0 why="' + "x" * 501 + '"\n',
     "event 1: why=: String should have at most 500 characters"),
    # a raw pydantic message before (helper-77)
    ('[Format "dominocast-record 1"]\n[Rules "block"]\nHand 1\n0. N 6-6\n1. fix 0 fix 0 N 6-5\n',
     "a fix replaces an event with an event, not with another correction (to change event 0 again, write "
     "'fix 0 EVENT' anew)"),
    # helper-172: an empty warning was read as one (a score put in doubt by nothing), \q as q (the backslash lost)
    ('[Format "dominocast-record 1"]\n[Rules "block"]\n[Warning ""]\n',
     'line 3: [Warning ""] is empty: a warning says what puts the record in doubt (delete the tag if there is none)'),
    ('[Format "dominocast-record 1"]\n[Rules "block"]\n[Warning " "]\n', 'line 3: [Warning " "] is empty'),
    ('[Format "dominocast-record 1"]\n[Rules "block"]\n[Event "C:\\\\games\\q"]\n',
     'line 3: unknown escape \\q in a tag\'s value: inside the quotes \\" \\\\ \\n and \\r are the escapes '
     '(write \\\\ for a backslash)'),
])
def test_bad_text(text, message):
    with pytest.raises(RecordError, match=re.escape(message)):
        read_text(text)


def test_tag_escapes_read_as_written_and_an_empty_warning_is_refused_in_json_too(demo):
    """helper-172: the escapes a tag's value has (\\" \\\\ \\n \\r) read back as what they stand for; a JSON
    record with an empty warning is refused as the notation's [Warning ""] is (it would write one)."""
    head = '[Format "dominocast-record 1"]\n[Rules "block"]\n'
    assert read_text(head + r'[Event "a \"b\" C:\\games\\x\n\r"]' + "\n").event.title == 'a "b" C:\\games\\x\n\r'
    data = json.loads(to_json(demo))
    with pytest.raises(RecordError, match=re.escape("malformed record: warnings: a warning is empty: a warning says "
                                                    "what puts the record in doubt")):
        from_json(json.dumps({**data, "warnings": ["seats guessed", ""]}))


def test_record_from_match_checks_inputs():
    rules = load_ruleset("block")
    with pytest.raises(RecordError, match="unknown key 'venue'"):
        record_from_match(rules, [], meta={"venue": "x"})
    with pytest.raises(RecordError, match="hand 1, event #0: not an event"):
        record_from_match(rules, [[{"type": "jump"}]])
    assert record_from_match(rules, [[event_to_dict(parse_event("N 6-6"))]]).logs == [[parse_event("N 6-6")]]


def test_comments_and_derived_lines_are_ignored(demo):
    text = write_text(demo).replace("= domino N +20", "= domino S +99")
    text = "# a comment\n" + text.replace("{+10}", "{+1000}")
    assert read_text(text) == demo  # derived parts come from the logs, not from the text


# ---- CLI ----------------------------------------------------------------------------------

@pytest.fixture
def cli() -> typer.Typer:
    app = typer.Typer()
    cli_engine.register(app)
    cli_record.register(app)
    return app


def test_cli_score_writes_record_and_notation(cli, tmp_path, demo):
    out_json, out_txt = tmp_path / "m.json", tmp_path / "m.txt"
    res = CliRunner().invoke(cli, ["score", str(DEMO), "--record", str(out_json), "--notation", str(out_txt)])
    assert res.exit_code == 0, res.output
    assert from_json(out_json.read_text()) == demo
    assert out_txt.read_text() == write_text(demo)
    # written again over its own outputs; never over a file of another kind (helper-74: a video)
    res = CliRunner().invoke(cli, ["score", str(DEMO), "--record", str(out_json), "--notation", str(out_txt)])
    assert res.exit_code == 0, res.output
    clip = tmp_path / "clip.mp4"
    clip.write_bytes(b"\x00\x00\x00\x20ftypisom")
    res = CliRunner().invoke(cli, ["score", str(DEMO), "--notation", str(clip)])
    assert res.exit_code == 2 and "exists and is not a dominocast notation" in " ".join(res.output.split())
    assert clip.read_bytes() == b"\x00\x00\x00\x20ftypisom"
    # nor a notation over a JSON record, or a JSON record over a notation: one holds what the other may not
    before = out_json.read_bytes(), out_txt.read_bytes()
    res = CliRunner().invoke(cli, ["score", str(DEMO), "--notation", str(out_json)])
    assert res.exit_code == 2 and "exists and is not a dominocast notation" in " ".join(res.output.split())
    res = CliRunner().invoke(cli, ["score", str(DEMO), "--record", str(out_txt)])
    assert res.exit_code == 2 and "exists and is not a dominocast JSON record" in " ".join(res.output.split())
    assert (out_json.read_bytes(), out_txt.read_bytes()) == before


def test_files_that_merely_quote_our_markers_are_not_outputs(cli, tmp_path):
    """helper-121: a script, YAML or notes quoting `[Rules "` near their start, or a page quoting
    `content='dominocast `, were taken for earlier outputs and written over."""
    files = {"notes.py": '"""Writes [Format "dominocast-record 1"] and [Rules "all-fives"] tags."""\n',
             "match.yaml": '# [Rules "all-fives"]\nrules: all-fives\n',
             "page.html": "<!doctype html><p>made with content='dominocast 1' in mind</p>",
             "data.json": '{"note": "not a \\"dominocast-record\\""}'}
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    for opt, name in (("--notation", "notes.py"), ("--notation", "match.yaml"), ("--record", "data.json")):
        res = CliRunner().invoke(cli, ["score", str(DEMO), opt, str(tmp_path / name)])
        assert res.exit_code == 2 and "it would be overwritten" in " ".join(res.output.split()), name
    res = CliRunner().invoke(cli, ["record", "report", str(DEMO), "--out", str(tmp_path / "page.html")])
    assert res.exit_code == 2 and "it would be overwritten" in " ".join(res.output.split())
    assert {n: (tmp_path / n).read_text() for n in files} == files


def test_cli_record_show(cli, tmp_path, demo):
    (tmp_path / "m.json").write_text(to_json(demo))
    (tmp_path / "m.txt").write_text(write_text(demo))
    for name in ("m.json", "m.txt"):
        res = CliRunner().invoke(cli, ["record", "show", str(tmp_path / name)])
        assert res.exit_code == 0, res.output
        assert res.stdout == write_text(demo)
    res = CliRunner().invoke(cli, ["record", "show", str(tmp_path / "m.txt"), "--json"])
    assert from_json(res.stdout) == demo
    # `-` reads standard input (helper-103: "-: cannot read: No such file or directory")
    res = CliRunner().invoke(cli, ["record", "show", "-"], input=to_json(demo))
    assert res.exit_code == 0 and res.stdout == write_text(demo)
    (tmp_path / "latin1.txt").write_bytes(write_text(demo).replace("Ana", "Ana Peña").encode("latin-1"))
    res = CliRunner().invoke(cli, ["record", "show", str(tmp_path / "latin1.txt")])
    assert res.exit_code == 2 and res.output.strip() == f"error: {tmp_path / 'latin1.txt'}: not UTF-8 text: save the record as UTF-8"
    (tmp_path / "utf16.txt").write_bytes(write_text(demo).encode("utf-16"))  # PowerShell's `>` (helper-106)
    res = CliRunner().invoke(cli, ["record", "show", str(tmp_path / "utf16.txt")])
    assert res.exit_code == 0 and res.stdout == write_text(demo)
    res = CliRunner().invoke(cli, ["record", "show", "-"], input="garbage\n")
    assert res.exit_code == 2 and res.output.strip() == (
        "error: standard input: line 1: 'garbage' is not a tag, a 'Hand N' line or a comment")


def test_cli_stale_json_summary_is_recomputed(cli, tmp_path, demo):
    data = json.loads(to_json(demo))
    data["hands"][0]["points"] = {"N": 1, "S": 2}
    (tmp_path / "m.json").write_text(json.dumps(data))
    res = CliRunner().invoke(cli, ["record", "show", str(tmp_path / "m.json")])
    assert "hand: N +45, S +35" in res.stdout
    assert rederive(from_json(json.dumps(data))) == demo


@pytest.mark.parametrize("content, message", [
    ('{"format": "dominocast-record", "version": 9}', "record version 9 is newer"),
    ("[Format \"dominocast-record 1\"]\n[Rules \"block\"]\nHand 1\n0. N 6-6\n1. S 6-6 E\n", "hand 1, event #1"),
    # JSON arrays are read as JSON, not as notation tags (helper-72: "malformed tag '[]'")
    ("[]\n", 'not a dominocast record (the JSON is an array, a record is an object with "format": '
              '"dominocast-record")'),
    ('[\n {"hands": []}\n]', "the JSON is an array"),
    ("[1, 2]", "the JSON is an array"),  # "malformed tag" before (helper-84)
    ('["a"]', "the JSON is an array"),
    # files people take for records (helper-80): said what they are
    ('{"type": "play", "t": 4.2}\n{"type": "pass", "t": 9.0}\n',
     "not JSON: line 2 column 1: Extra data (this is a review's event log, one row per line: its record is "
     "record.json beside it)"),
    ("rules: all-fives\nhands:\n  - events:\n      - N 6-6\n",
     "(this is a script: `dominocast score` reads it, and writes its record with --record)"),
    (b"\x00\x00\x00\x20ftypisom\xb3\xff", "not a text file (a video or a picture?): a record is JSON or text notation"),
    # helper-253: the page's whole first line was quoted as "not a tag"; the others said "format is None"
    ("<!doctype html><html lang='en'><head><title>Review</title>\n<body></body></html>\n",
     "a web page, not a record (a report page shows a record: give that, e.g. a review's record.json beside"),
    ('{"format": "dominocast-footage/1", "seed": 19, "plays": []}',
     "(this is the ground truth of a rendered footage: `dominocast review` its video for a record)"),
    ('{"version": 1, "name": "t", "image_size": [960, 540], "homography": null}',
     "format is None, expected 'dominocast-record') (this is a calibration profile: `dominocast calibrate show`"),
])
def test_cli_record_show_errors(cli, tmp_path, content, message):
    path = tmp_path / "bad.txt"
    path.write_bytes(content) if isinstance(content, bytes) else path.write_text(content)
    res = CliRunner().invoke(cli, ["record", "show", str(path)])
    assert res.exit_code == 2
    assert message in res.output and str(path) in res.output
    assert "Traceback" not in res.output
    res = CliRunner().invoke(cli, ["record", "show", str(tmp_path / "missing.json")])
    assert res.exit_code == 2 and "no such record file" in res.output


def test_cli_score_output_in_a_new_folder_and_unwritable_output(cli, tmp_path):
    out = tmp_path / "new" / "m.json"  # missing folders are created, as detect --json and review --out do
    text = tmp_path / "t" / "m.txt"
    res = CliRunner().invoke(cli, ["score", str(DEMO), "--record", str(out), "--notation", str(text)])
    assert res.exit_code == 0, res.output
    assert json.loads(out.read_text())["rules"] and text.read_text().strip()
    (tmp_path / "plain").write_text("x")
    res = CliRunner().invoke(cli, ["score", str(DEMO), "--record", str(tmp_path / "plain" / "m.json")])
    assert res.exit_code == 2 and f"{tmp_path / 'plain'} is a file, not a folder" in res.output.replace("\n", "")
    res = CliRunner().invoke(cli, ["score", str(DEMO), "--notation", str(tmp_path)])
    assert res.exit_code == 2 and "is a folder, not a file" in res.output


def test_cli_score_never_writes_over_its_script_or_one_output_over_the_other(cli, tmp_path):
    script = tmp_path / "hand.yaml"
    script.write_bytes(DEMO.read_bytes())
    (tmp_path / "link.yaml").symlink_to(script)
    os.link(script, tmp_path / "hard.yaml")  # a hard link is the same file too
    for opt, path in (("--record", script), ("--notation", script), ("--record", tmp_path / "link.yaml"),
                      ("--notation", tmp_path / "hard.yaml")):
        res = CliRunner().invoke(cli, ["score", str(script), opt, str(path)])
        said = res.output.replace("\n", "")
        assert res.exit_code == 2 and f"{opt} {path} is the script: it would be overwritten" in said
    assert script.read_bytes() == DEMO.read_bytes()
    same = tmp_path / "out"
    res = CliRunner().invoke(cli, ["score", str(script), "--record", str(same), "--notation", str(same)])
    assert res.exit_code == 2 and "--notation and --record name the same file" in res.output and not same.exists()


def test_a_record_lists_no_game_that_has_no_hand_yet():
    """nova-block: one hand is a game, so after it the engine opens game 2, empty; the record listed
    it (``hands: 0``) as if it had been played (helper-58)."""
    hand = [parse_event(x) for x in (
        "N 6-6", "E pass", "S pass", "W pass", "N 6-5 E", "E pass", "S pass", "W pass", "N 5-4 E", "E pass",
        "S pass", "W pass", "N 4-3 E", "E pass", "S pass", "W pass", "N 3-2 E", "E pass", "S pass", "W pass",
        "N 2-1 E", "E pass", "S pass", "W pass", "N 1-0 E", "E reveal 6-4 6-3 6-2 6-1 6-0 5-5 5-3",
        "S reveal 5-2 5-1 5-0 4-4 4-2 4-1 4-0", "W reveal 3-3 3-1 3-0 2-2 2-0 1-1 0-0")]
    rules = load_ruleset("nova-block")
    assert len(replay_match(rules, [hand]).games) == 2  # the engine's next game, waiting for its hand
    rec = record_from_match(rules, [hand])
    assert [(g.number, g.hands, g.winner) for g in rec.games] == [(1, 1, "N")]
    assert len(record_from_match(rules, []).games) == 1  # a match not begun still has its first game


def test_points_after_the_game_ended_in_play_are_flagged_in_the_record(demo):
    # helper-72: with a target the game reaches during the hand ("immediately", seed 000 text), the
    # record's hand said N +45, S +35 next to "game over", with nothing on the events that did not count
    rec = demo.model_copy(deep=True)
    rec.rules.params["target"] = 20
    rec = rederive(rec)
    # 1 N 5-5 +10, 2 S 5-0 +10, 3 N 0-0 +10: N has 20 -> the game is over after event 3
    assert [(s.side, s.total) for s in rec.standings] == [("N", 20), ("S", 10)]
    hand = rec.hands[0]
    assert hand.points == {"N": 45, "S": 35}  # what the hand scored, as before
    late = {o.index: [f.message for f in o.flags if f.kind == "not_counted"] for o in hand.outcomes}
    late = {i: m for i, m in late.items() if m}
    assert sorted(late) == [8, 9, 12, 14, 15]  # every later scoring event, the domino's award included
    assert late[8] == ["N's 5 points not counted: the game was over (N reached 20)"]
    assert late[15] == ["N's 20 points not counted: the game was over (N reached 20)"]


def test_cli_record_show_and_report_mark_the_seats_the_turn_order_gave(cli, tmp_path):
    """The seats a review guessed from the turn order are marked where a player reads the record: the
    notation `record show` prints, its --json, and the play's row on `record report`'s page."""
    log = [Play(seat="N", tile="5-5", t=1.0, frame=30), Play(seat="S", tile="5-0", end="E", seat_by_turn=True, t=2.0,
                                                             frame=60)]
    (tmp_path / "m.json").write_text(to_json(record_from_match(load_ruleset("all-fives"), [log])))
    res = CliRunner().invoke(cli, ["record", "show", str(tmp_path / "m.json")])
    assert res.exit_code == 0, res.output
    lines = res.stdout.splitlines()
    assert lines[lines.index("Hand 1 (game 1)") + 1:][:2] == ["0. N 5-5 t=1.0 f=30  {+10}",
                                                             "1. S 5-0 E t=2.0 f=60 seat_by_turn  {+10}"]
    res = CliRunner().invoke(cli, ["record", "show", str(tmp_path / "m.json"), "--json"])
    assert [e.get("seat_by_turn") for e in json.loads(res.stdout)["hands"][0]["events"]] == [None, True]
    out = tmp_path / "page.html"
    res = CliRunner().invoke(cli, ["record", "report", str(tmp_path / "m.json"), "--out", str(out)])
    assert res.exit_code == 0, res.output
    page = out.read_text()
    assert page.count("(seat by turn)") == 1 and 'S 5-0 E <span class="guess" title="the camera did not see' in page


def test_a_records_warnings_survive_both_forms_and_stand_on_its_report_page(cli, tmp_path, demo):
    """helper-169: a review's warnings (a rules_misfit: draws seen under a rule set without drawing) were lost
    to its record, so `record report` showed its score without them. The record keeps them (``warnings``,
    ``[Warning]`` tags), in both forms and through a correction; its page shows them above an unfinished
    hand's, and the terminal says them; a record with none is written as before."""
    misfit = 'a draw from the boneyard seen (S at 21.5 s), but "block" has no drawing (boneyard = false): [5|5] ...'
    sc = load_script(DEMO)
    rec = record_from_match(sc.rules, sc.hands, sc.players, warnings=[misfit, "no --calibration: seats guessed"])
    round_trips(rec)
    assert rederive(rec).warnings == rec.warnings
    assert write_text(rec).splitlines()[3:5] == [
        '[Warning "a draw from the boneyard seen (S at 21.5 s), but \\"block\\" has no drawing (boneyard = false): '
        '[5|5] ..."]', '[Warning "no --calibration: seats guessed"]']
    assert "warnings" not in json.loads(to_json(demo))  # none: the JSON as before
    (tmp_path / "m.txt").write_text(write_text(rec).split("= domino")[0] + "16. fix 14 S 4-1 W\n")  # corrected
    out = tmp_path / "m.html"
    res = CliRunner().invoke(cli, ["record", "report", str(tmp_path / "m.txt"), "--out", str(out)])
    assert res.exit_code == 0, res.output
    box = re.search(r"<p class='warn'>(.*?)</p>", out.read_text(), re.S).group(1)
    assert html.unescape(box).splitlines() == [f"warning: {misfit}", "warning: no --calibration: seats guessed"]
    assert res.stderr.splitlines()[-2:] == [f"warning: {misfit}", "warning: no --calibration: seats guessed"]
    (tmp_path / "demo.json").write_text(to_json(demo))  # no warnings: no box, nothing said
    res = CliRunner().invoke(cli, ["record", "report", str(tmp_path / "demo.json"), "--out", str(out)])
    assert res.exit_code == 0 and "<p class='warn'>" not in out.read_text() and res.stderr == ""


def test_record_report_and_show_say_the_score_of_a_record_with_warnings_is_not_final(cli, tmp_path, demo):
    """helper-172: `record report` and `record show` gave the score of a record whose review warned (a rule set
    that does not fit the footage) as any other. One line says it is not final, how many warnings and of what
    kind, and where they are: on stderr under the standings `record show` prints (its notation stays a record),
    in the page's subtitle and after the "wrote" line of `record report`."""
    from service.review_summary import out_of_order_warning
    from vision.rules_fit import CHECK

    misfit = f"a draw from the boneyard seen (S at 21.5 s), but block has no drawing (boneyard = false): {CHECK}; ..."
    sc = load_script(DEMO)
    rec = record_from_match(sc.rules, sc.hands, sc.players, warnings=[misfit, "no --calibration: seats guessed"])
    (tmp_path / "m.json").write_text(to_json(rec))
    said = "score not final (it may be wrong): 1 rules warning (rules_misfit) and 1 other warning in the record; see "
    res = CliRunner().invoke(cli, ["record", "show", str(tmp_path / "m.json")])
    assert res.exit_code == 0, res.output
    assert res.stdout == write_text(rec)  # the notation as before: read back, it is the record
    assert res.stderr.splitlines() == [said + "its [Warning] tags at the top"]
    res = CliRunner().invoke(cli, ["record", "show", "--json", str(tmp_path / "m.json")])
    assert res.stderr.splitlines() == [said + 'its "warnings" at the top']
    out = tmp_path / "m.html"
    res = CliRunner().invoke(cli, ["record", "report", str(tmp_path / "m.json"), "--out", str(out)])
    assert res.exit_code == 0, res.output
    assert res.stderr.splitlines() == [said + "the warnings below", f"warning: {misfit}",
                                       "warning: no --calibration: seats guessed"]
    sub = html.unescape(re.search(r"<p class='sub'>(.*?)</p>", out.read_text()).group(1))
    assert sub.endswith(" · from m.json · " + said + "the warnings below")
    (tmp_path / "one.json").write_text(to_json(rec.model_copy(update={"warnings": ["no --calibration: ..."]})))
    res = CliRunner().invoke(cli, ["record", "show", str(tmp_path / "one.json")])
    assert res.stderr.splitlines() == ["score not final (it may be wrong): 1 warning in the record; "
                                       "see its [Warning] tags at the top"]
    # helper-242: a review's warning that the photos may be out of order is named, as the rules warning is
    order = out_of_order_warning([("move_10.png", "3-1")])
    (tmp_path / "three.json").write_text(to_json(rec.model_copy(update={"warnings": [misfit, order, "no ..."]})))
    res = CliRunner().invoke(cli, ["record", "show", str(tmp_path / "three.json")])
    assert res.stderr.splitlines() == ["score not final (it may be wrong): 1 rules warning (rules_misfit), 1 warning "
                                       "that the photos may be out of order (tile_missing) and 1 other warning in the "
                                       "record; see its [Warning] tags at the top"]
    (tmp_path / "two.json").write_text(to_json(rec.model_copy(update={"warnings": [order, order]})))
    res = CliRunner().invoke(cli, ["record", "report", str(tmp_path / "two.json"), "--out", str(out)])
    assert res.stderr.splitlines()[0] == ("score not final (it may be wrong): 2 warnings that the photos may be out "
                                          "of order (tile_missing) in the record; see the warnings below")
    (tmp_path / "demo.json").write_text(to_json(demo))  # no warnings: nothing said
    res = CliRunner().invoke(cli, ["record", "show", str(tmp_path / "demo.json")])
    assert res.exit_code == 0 and res.stderr == ""


def test_cli_record_report_of_a_corrected_record(cli, tmp_path, demo):
    # helper-72: corrections made in notation never reached a report page
    text = write_text(demo).split("= domino")[0] + "16. fix 14 S 4-1 W\n17. S penalty -10/+0 slow play\n"
    (tmp_path / "fixed.txt").write_text(text)
    video = tmp_path / "review" / "annotated #1.webm"
    video.parent.mkdir()
    video.write_bytes(b"\x1aE")
    out = tmp_path / "pages" / "report.html"
    res = CliRunner().invoke(cli, ["record", "report", str(tmp_path / "fixed.txt"), "--out", str(out),
                                   "--video", str(video)])
    assert res.exit_code == 0, res.output
    assert res.stdout.strip() == f"wrote {out}: 13 plays, 1 draw, 0 flags on the recorded events"  # events 1-15 but the draw (4) and the fix (10)
    html = out.read_text()
    # the standings recomputed: S 35 - 10 = 25; N keeps 45
    assert "<tr><td>N</td><td>0</td><td>45</td></tr>" in html and "<tr><td>S</td><td>0</td><td>25</td></tr>" in html
    assert "S penalty -10/+0" in html and "fix #14" not in html  # the fix is in force, not a row of its own
    # helper-77: the page named no players and hid what the fix replaced (the service's review page shows both)
    # the draw (event 4) counted on the page as in the terminal (helper-90)
    assert "rules lisa-b-all-fives · 1 hand, 13 plays, 1 draw · 0 flags on the recorded events · N Ana · S Bob · from fixed.txt" in html
    assert "<h2>Corrections (2)</h2><ul><li>hand 1 #10: fix 9 S 6-1 E t=52.0 (was S 6-3 E t=47.7 f=1431)</li>" \
           "<li>hand 1 #16: fix 14 S 4-1 W (was S 4-1 W t=70.8 f=2124)</li></ul>" in html
    assert 'href="../review/annotated%20%231.webm#t=75.30"' in html  # relative to the report, escaped
    # bad input: one line, exit code 2, nothing written
    for args, message in ((["record", "report", str(tmp_path / "none.txt"), "--out", str(tmp_path / "r.html")],
                           "none.txt: no such record file"),
                          (["record", "report", str(tmp_path / "fixed.txt"), "--out", str(tmp_path / "fixed.txt")],
                           "is the record: it would be overwritten"),
                          (["record", "report", str(tmp_path / "fixed.txt"), "--out", str(tmp_path / "r.html"),
                            "--video", str(tmp_path / "nope.webm")], "no such file"),
                          (["record", "report", str(tmp_path / "fixed.txt"), "--out", str(tmp_path / "r.html"),
                            "--video", str(tmp_path / "fixed.txt")], "not a video a page can play (one of .webm"),
                          # helper-87: any name got an HTML page
                          (["record", "report", str(tmp_path / "fixed.txt"), "--out", str(tmp_path / "r.txt")],
                           "the report is an HTML page; give a file ending in .html (e.g. " + str(tmp_path / "r.html"))):
        res = CliRunner().invoke(cli, args)
        assert res.exit_code == 2 and message in res.output and "Traceback" not in res.output
    assert not (tmp_path / "r.html").exists() and not (tmp_path / "r.txt").exists()
    # its own page is written again; a review's page, with its snapshots, is not written over (helper-84)
    res = CliRunner().invoke(cli, ["record", "report", str(tmp_path / "fixed.txt"), "--out", str(out)])
    assert res.exit_code == 0, res.output
    from service.report import render_report

    page = tmp_path / "review" / "report.html"
    page.write_text(render_report("Game review", "", [{"type": "play", "t": 1.0}], {0: "snapshots/0000_play.jpg"}, []))
    before = page.read_bytes()
    res = CliRunner().invoke(cli, ["record", "report", str(tmp_path / "fixed.txt"), "--out", str(page)])
    assert res.exit_code == 2 and "is a review's page, with its snapshots: a record's page would replace it" in \
        " ".join(res.output.split())
    assert page.read_bytes() == before


def test_cli_record_report_umpire_end_bom_and_linked_folder(cli, tmp_path, demo):
    # helper-73: an umpire's "end domino" row lost its text (taken for a review's summary row); a
    # notation saved with a byte-order mark was refused; a page in a linked folder linked the video
    # from the link's target
    text = write_text(demo).split("15. N 4-4 W")[0] + "15. end umpire called by hand\n"
    (tmp_path / "m.txt").write_bytes(b"\xef\xbb\xbf" + text.encode())
    real = tmp_path / "a" / "b"
    real.mkdir(parents=True)
    (tmp_path / "pages").symlink_to(real)
    (tmp_path / "pages" / "game.webm").write_bytes(b"\x1aE")
    out = tmp_path / "pages" / "report.html"
    res = CliRunner().invoke(cli, ["record", "report", str(tmp_path / "m.txt"), "--out", str(out),
                                   "--video", str(tmp_path / "pages" / "game.webm")])
    assert res.exit_code == 0, res.output
    html = out.read_text()
    assert "end umpire called by hand" in html and "(awarded above: )" not in html
    assert 'src="game.webm"' in html


def test_outputs_never_replace_a_file_of_another_kind(cli, tmp_path, demo):
    # helper-74: `record report --out copy.mp4` replaced a 5.7 MB video with a 5 KB page
    (tmp_path / "m.txt").write_text(write_text(demo))
    video = tmp_path / "copy.mp4"
    video.write_bytes(b"\x00\x00\x00\x20ftypisom" + bytes(100))
    for args in (["record", "report", str(tmp_path / "m.txt"), "--out", str(video)],):
        res = CliRunner().invoke(cli, args)
        assert res.exit_code == 2 and "Traceback" not in res.output
        assert f"--out {video} exists and is not a report page: it would be overwritten" in " ".join(res.output.split())
    assert video.read_bytes().startswith(b"\x00\x00\x00\x20ftyp")
    # an earlier page of its own kind is replaced, as a rerun expects
    page = tmp_path / "report.html"
    for _ in range(2):
        assert CliRunner().invoke(cli, ["record", "report", str(tmp_path / "m.txt"), "--out", str(page)]).exit_code == 0
    # a page of someone else's is not (helper-90: any HTML file was written over)
    mine = tmp_path / "mine.html"
    mine.write_text("<!doctype html><html><head><title>my notes</title></head><body>mine</body></html>")
    res = CliRunner().invoke(cli, ["record", "report", str(tmp_path / "m.txt"), "--out", str(mine)])
    assert res.exit_code == 2 and "exists and is not a report page" in " ".join(res.output.split())
    assert "mine" in mine.read_text()


@pytest.mark.parametrize("line, message", [
    ("void ²", "a correction is 'void N'"),        # "²".isdigit() is True, int("²") fails
    ("fix ³ N 6-6", "a correction is 'fix N EVENT'"),
    ("N draw ²", "not a tile: '²'"),
    ("N ٦-٦", "not a tile: '٦-٦'"),                  # int() would read Arabic-Indic digits as 6-6
    ("N 6-6 W t=１", "t=１ is not seconds"),          # float() would read a fullwidth 1
])
def test_notation_takes_ascii_digits_only(line, message):
    with pytest.raises(NotationError, match=re.escape(message)):
        parse_event(line)


def test_a_fix_line_takes_its_plays_confidence_and_orientation():
    """helper-84: '2. fix 1 S 6-3 E c=0.5 oriented' was refused ('c= and oriented apply to plays only')."""
    text = ('[Format "dominocast-record 1"]\n[Rules "all-fives"]\n\nHand 1\n0. N 6-6\n1. S 6-4 E\n'
            "2. fix 1 S 6-3 E t=9.5 c=0.5 oriented\n")
    fix = read_text(text).logs[0][2]
    assert (fix.replaces, fix.t, str(fix.event.tile), fix.event.confidence, fix.event.oriented) == (1, 9.5, "6-3", 0.5,
                                                                                                        True)
    with pytest.raises(RecordError, match="c=, oriented and seat_by_turn apply to plays only"):
        read_text(text.replace("fix 1 S 6-3 E", "void 1"))
    with pytest.raises(RecordError, match="confidence"):
        read_text(text.replace("c=0.5", "c=2"))


def test_a_play_whose_seat_the_turn_order_gave_keeps_its_mark_in_json_and_notation():
    """A camera that did not see who laid a tile gives it to the seat whose turn it was (the tracker's
    ``seat_by_turn``): the record keeps that mark on the play, in JSON and notation, on a fix too (a
    misread tile fixed, its seat still a guess), so a player can tell the guessed seats later."""
    rules = load_ruleset("all-fives")
    log = [Play(seat="N", tile="5-5", t=1.0, frame=30),
           Play(seat="S", tile="5-0", end="E", oriented=True, confidence=0.9, seat_by_turn=True, t=2.0, frame=60),
           Correction(replaces=1, event=Play(seat="S", tile="5-1", end="E", seat_by_turn=True), by="umpire")]
    rec = record_from_match(rules, [log])
    events = json.loads(to_json(rec))["hands"][0]["events"]
    assert [e.get("seat_by_turn") for e in events] == [None, True, None]  # absent: the seat was seen
    assert events[2]["event"] == {"type": "play", "seat": "S", "tile": [5, 1], "end": "E", "seat_by_turn": True}
    lines = write_text(rec).splitlines()
    assert lines[lines.index("Hand 1 (game 1)") + 1:][:3] == [
        "0. N 5-5 t=1.0 f=30  {+10}", "1. S 5-0 E t=2.0 f=60 c=0.9 oriented seat_by_turn",
        '2. fix 1 S 5-1 E seat_by_turn by="umpire"  {+0}']
    round_trips(rec)
    # a record written before the mark existed reads as seats seen; the mark is a play's only
    assert not from_json(to_json(record_from_match(rules, [log[:1]]))).logs[0][0].seat_by_turn
    text = '[Format "dominocast-record 1"]\n[Rules "all-fives"]\n\nHand 1\n0. N 6-6\n1. S pass seat_by_turn\n'
    with pytest.raises(RecordError, match="event 1: c=, oriented and seat_by_turn apply to plays only"):
        read_text(text)


@pytest.mark.parametrize("heads, message", [
    (("Hand 3 (game 1)", "Hand 1 (game 1)"), "line 4: 'Hand 3 (game 1)' is hand 1 of game 1"),
    (("Hand 1 (game 1)", "Hand 1 (game 1)"), "'Hand 1 (game 1)' is hand 2 of game 1"),
    (("Hand 1 (game 0)", "Hand 2 (game 1)"), "'Hand 1 (game 0)' is hand 1 of game 1"),
])
def test_hand_lines_must_number_the_hands_as_they_are(heads, message):
    """helper-84: renumbered without a word."""
    body = "\n0. N 6-6\n1. S 6-5 E\n2. end umpire\n\n"
    text = '[Format "dominocast-record 1"]\n[Rules "all-fives"]\n\n' + "".join(h + body for h in heads)
    with pytest.raises(RecordError, match=re.escape(message)):
        read_text(text)
    good = "".join(h + body for h in ("Hand 1 (game 1)", "Hand 2"))  # a game left out is the hand's
    assert len(read_text('[Format "dominocast-record 1"]\n[Rules "all-fives"]\n\n' + good).hands) == 2


def test_record_report_warns_of_a_video_browsers_do_not_play(cli, tmp_path, demo):
    """helper-85: an MPEG-4 Part 2 .mp4 was linked without a word, and the page's video did not play."""
    import cv2
    import numpy as np

    video = tmp_path / "old.mp4"
    w = cv2.VideoWriter(str(video), cv2.VideoWriter_fourcc(*"mp4v"), 5, (64, 48))
    for _ in range(3):
        w.write(np.zeros((48, 64, 3), np.uint8))
    w.release()
    (tmp_path / "m.json").write_text(to_json(demo))
    res = CliRunner().invoke(cli, ["record", "report", str(tmp_path / "m.json"), "--out", str(tmp_path / "r.html"),
                                   "--video", str(video)])
    assert res.exit_code == 0, res.output
    assert "is MPEG-4 Part 2" in res.output and "most browsers do not play" in res.output
    assert (tmp_path / "r.html").is_file()
    # helper-132: a text file named .mp4 was linked without a word (it may be a video still being copied)
    fake = tmp_path / "bad.mp4"
    fake.write_text("not a video")
    res = CliRunner().invoke(cli, ["record", "report", str(tmp_path / "m.json"), "--out", str(tmp_path / "s.html"),
                                   "--video", str(fake)])
    assert res.exit_code == 0 and (tmp_path / "s.html").is_file()
    assert "no frame can be read from it (not a video, or not yet whole?): the page links it anyway" in " ".join(
        res.output.split())


def test_open_ends_show_the_count_the_rules_score_when_it_is_not_their_sum():
    """helper-85: 'W:0 E:0 N:4 S:6' scored 4 (the spinner's S arm not played on): people added 10."""
    from engine.timeline import ends_text

    assert ends_text({"open_ends": {"W": 0, "E": 0, "N": 4, "S": 6}, "ends_total": 4}) == "W:0 E:0 N:4 S:6 (counts 4)"
    assert ends_text({"open_ends": {"W": 6, "E": 5}, "ends_total": 17}) == "W:6 E:5 (counts 17)"  # a double: both halves
    # helper-165: the count is said on every row, not only where it is not the sum (a reader could not tell
    # whether a row without it counted); a rule set that scores no ends (block, draw) shows none
    assert ends_text({"open_ends": {"W": 3, "E": 4}, "ends_total": 7}) == "W:3 E:4 (counts 7)"
    assert ends_text({"open_ends": {"W": 6, "E": 5}, "ends_total": 17}, score_ends=False) == "W:6 E:5"
    assert ends_text({"open_ends": {}, "ends_total": 0}) == ""


def test_score_and_report_say_the_count_on_every_row_where_the_ends_score(tmp_path):
    """helper-165: `score` and report.html showed "(counts N)" only where N was not the ends' sum, so a
    hand's rows said what counted on some and not others; a block game showed counts that score nothing."""
    from typer.testing import CliRunner

    from service.cli import app as cli_app

    def ends_column(preset: str) -> list[str]:
        out = CliRunner().invoke(cli_app, ["score", f"examples/{preset}.yaml"], env={"COLUMNS": "400"}).stdout
        return [cells[5].strip() for line in out.splitlines() if (cells := line.split("│")) and len(cells) > 6
                and cells[5].strip()]

    ends = ends_column("lisa-b-all-fives")
    # S leads 6-6 (a lone spinner: 6 + 6), N plays 6-5 at E (the spinner's W side 12 + 5), S 5-5 at E (12 + 10)
    assert ends[:3] == ["W:6 E:6 (counts 12)", "W:6 E:5 (counts 17)", "W:6 E:5 (counts 17)"]
    assert "W:6 E:3 (counts 15)" in ends  # S 3-0 at E: 12 + 3 = 15, the row that scores S+15
    assert all(e.endswith(")") and "(counts " in e for e in ends)
    block = ends_column("block")
    assert block[:2] == ["W:4 E:1", "W:4 E:3"] and not any("counts" in e for e in block)
    # the report page of the same matches, through `record report`
    for preset, want, unwanted in (("lisa-b-all-fives", "W:6 E:6 (counts 12)", None), ("block", "W:4 E:1", "(counts")):
        rec, page = tmp_path / f"{preset}.json", tmp_path / f"{preset}.html"
        assert CliRunner().invoke(cli_app, ["score", f"examples/{preset}.yaml", "--record", str(rec)]).exit_code == 0
        assert CliRunner().invoke(cli_app, ["record", "report", str(rec), "--out", str(page)]).exit_code == 0
        text = page.read_text()
        assert f"<td>{want}</td>" in text and (unwanted is None or unwanted not in text)


def test_a_hand_left_without_a_result_while_the_next_began_is_said(cli, tmp_path):
    """helper-109: the play that went out voided, hand 1 read "= in progress" while hands 2 and 3 were
    scored after it, and the report said nothing of the points it lost."""
    notation = tmp_path / "draw.txt"
    assert CliRunner().invoke(cli, ["score", "examples/draw.yaml", "--notation", str(notation)]).exit_code == 0
    text = notation.read_text()
    first = text.split("\nHand 2")[0]
    last = [line for line in first.splitlines() if re.match(r"\d+\. [NS] \d-\d", line)][-1]  # hand 1's going out
    assert "= domino" in first
    n = int(last.split(".")[0])
    voided = text.replace(last + "\n", f"{last}\n{n + 1}. void {n}\n", 1)
    (tmp_path / "voided.txt").write_text(voided)
    rec = read_text(voided)
    assert [(h.game, h.number, nxt.number) for h, nxt in unfinished_hands(rec)] == [(1, 1, 2)]
    assert unfinished_hands(read_text(text)) == []
    shown = write_text(rec)
    assert ("= unfinished (in progress): hand 2 began before it ended, so its end-of-hand points are not counted; "
            "end it with its result") in shown
    assert "= in progress" not in shown and write_text(read_text(shown)) == shown  # a derived line: it reads back
    out = tmp_path / "report.html"
    res = CliRunner().invoke(cli, ["record", "report", str(tmp_path / "voided.txt"), "--out", str(out)])
    assert res.exit_code == 0, res.output
    warning = ("Hand 1 has no result: hand 2 began before it ended, so its end-of-hand points are not counted "
               "(end it with its result).")
    # helper-259: and the line on the score says it is not final, as it says of a hand in play at the end
    assert res.stderr.splitlines() == [
        "score not final: hand not finished: hand 1 has no result (hand 2 began before it ended), so its "
        "end-of-hand points are not counted", f"warning: {warning}"]
    assert f"<p class='warn'>{warning}</p>" in out.read_text()


def test_a_hand_cut_short_by_its_games_end_is_not_unfinished():
    """helper-121: a game won on target during play (seed 000: the target is checked at once) left its hand
    without a result; the notation and the report then called it unfinished, "hand 2 began before it ended",
    though the next hand was hand 1 of game 2."""
    rules = load_ruleset("lisa-b-all-fives", target=20, games_per_match=3)
    # N 5-5: 10; S 5-0: 10; N 0-0 on the 0: 5 + 5 (the spinner) = 10 -> N 20, game 1 over at once
    logs = [[parse_event(x) for x in ("N 5-5", "S 5-0 E", "N 0-0 E")], [parse_event("N 6-6")]]
    rec = record_from_match(rules, logs)
    assert [(g.number, g.ended_by) for g in rec.games] == [(1, "target"), (2, None)] and rec.hands[0].result is None
    assert unfinished_hands(rec) == [] and "= unfinished" not in write_text(rec)


@settings(max_examples=80, deadline=None)
@given(st.text(min_size=1, max_size=12), st.text(max_size=12), st.text(min_size=1, max_size=12))
def test_any_name_title_and_reason_round_trip_through_the_notation(name, title, reason):
    """helper-121: a name, title or reason holding U+2028, U+0085, \\v, \\f or \\x1c was written, then read back
    as two lines ("malformed tag", "bad JSON event"). Lines end only at \\n, \\r\\n and \\r."""
    rules = load_ruleset("all-fives")
    logs = [[parse_event("N 6-6"), Penalty(seat="S", points=-5, reason=reason)]]
    try:
        rec = record_from_match(rules, logs, {"N": name}, {"title": title})
    except RecordError:
        return  # a name the record itself refuses (blank, control characters): nothing to write
    assert read_text(write_text(rec)) == rec


def test_a_notation_line_too_long_to_read_is_one_error():
    """helper-121: a 30 MB tag line took 6 GB and 42 s before "unknown tag"."""
    with pytest.raises(RecordError, match=r"line 2 is 1,000,001 characters long \(at most 1,000,000\)"):
        read_text('[Format "dominocast-record 1"]\n[Event "' + "x" * (1_000_001 - 10) + '"]\n')


def test_report_of_a_pips_match_and_of_a_later_games_correction(cli, tmp_path):
    """helper-121: a nova-block page headed its pips "points" under a chart of zeros; a correction in game 3
    was listed as "hand 3 #20" where the timeline says 3.1; a flag of an untimed event read "0.0 s"."""
    script = load_script(Path(__file__).resolve().parents[1] / "examples" / "nova-block.yaml")
    logs = [list(log) for log in script.hands]
    first = logs[2][4]  # game 3's first play, re-timed by the umpire
    logs[2].append(Correction(replaces=4, event=first.model_copy(update={"t": 12.0}), reason="re-timed"))
    rec = record_from_match(script.rules, logs)
    (tmp_path / "m.json").write_text(to_json(rec))
    res = CliRunner().invoke(cli, ["record", "report", str(tmp_path / "m.json"), "--out", str(tmp_path / "m.html")])
    assert res.exit_code == 0, res.output
    page = (tmp_path / "m.html").read_text()
    assert "<th>games won</th><th>pips</th>" in page and "<h2>Score</h2>" not in page
    assert f"<li>hand 1 of game 3 #{len(logs[2]) - 1}: fix 4 " in page
    # an untimed event's flag is listed by the event, as the timeline names it
    row = {"type": "play", "game": 2, "hand": 1, "index": 7, "t": None, "text": "E 6-5 W",
           "flags": [{"kind": "out_of_turn", "message": "E played out of turn"}]}
    from service.report import render_report

    assert "<li>2.1 #7 — out_of_turn: E played out of turn</li>" in render_report("t", "s", [row], {}, [])


def test_a_partnerships_notation_pips_and_report_legend_follow_the_turn_order(cli, tmp_path):
    """helper-209: bdc-partnership (N W S E, counterclockwise) wrote its result lines' pips in play order
    ("pips: N 5, W 0, S 11, E 8") beside "hand: NS +0, EW +24", where --json lists the teams' seats together;
    the report's chart legend listed the teams by name ("EW 24 NS 75"), its score column NS first."""
    from service.report import score_chart_svg

    script = load_script(Path(__file__).resolve().parents[1] / "examples" / "bdc-partnership.yaml")
    rec = record_from_match(script.rules, [list(log) for log in script.hands])
    results = [x for x in write_text(rec).splitlines() if x.startswith("= ")]
    assert results == ["= domino N +25  (pips: N 0, S 14, W 5, E 6; hand: NS +25, EW +0)",
                       "= locked S +50  (pips: N 12, S 11, W 8, E 19; hand: NS +50, EW +0)",
                       "= domino W +24  (pips: N 5, S 11, W 0, E 8; hand: NS +0, EW +24)"]
    round_trips(rec)
    (tmp_path / "m.json").write_text(to_json(rec))
    res = CliRunner().invoke(cli, ["record", "report", str(tmp_path / "m.json"), "--out", str(tmp_path / "m.html")])
    assert res.exit_code == 0, res.output
    legend = re.findall(r'<div class="legend">(.*?)</div>', (tmp_path / "m.html").read_text())
    assert legend == ['<span style="color:#1f77b4">■ NS 75</span><span style="color:#d62728">■ EW 24</span>']
    # the rows' order, not the names': a clockwise game's N E S W
    rows = [{"type": "play", "score": {"N": 1, "E": 2, "S": 3, "W": 4}}]
    assert re.findall(r"■ (\w+)", score_chart_svg(rows)) == ["N", "E", "S", "W"]


def test_a_pips_games_report_shows_its_games_pips_not_a_score_of_zeros(cli, tmp_path):
    """helper-209: nova-block's report (a pips game: lowest pips left wins) read "N 0 E 0 S 0 W 0" in every
    row's score cell and had no game-over rows; `score` leaves the cell empty and says each game's pips."""
    nova = Path(__file__).resolve().parents[1] / "examples" / "nova-block.yaml"
    script = load_script(nova)
    (tmp_path / "m.json").write_text(to_json(record_from_match(script.rules, [list(log) for log in script.hands])))
    res = CliRunner().invoke(cli, ["record", "report", str(tmp_path / "m.json"), "--out", str(tmp_path / "m.html")])
    assert res.exit_code == 0, res.output
    page = (tmp_path / "m.html").read_text()
    timeline = page.split("<h2>Timeline</h2>")[1]
    rows = re.findall(r"<tr[^>]*>(.*?)</tr>", timeline)[1:]
    assert re.findall(r'<tr class="game-end">(.*?)</tr>', timeline) == [
        f"<td>{g}</td><td></td><td><b>game over (hand): {w}</b></td><td></td><td></td><td>pips {pips}</td><td></td>"
        for g, w, pips in ((1, "W", "N 5 E 16 S 2 W 0"), (2, "S", "N 27 E 31 S 13 W 27"),
                           (3, "E", "N 22 E 19 S 26 W 29"))]
    score_cells = [re.findall(r"<td>(.*?)</td>", r)[5] for r in rows]
    assert len(rows) == 77 and sum(bool(c) for c in score_cells) == 3  # 74 events, 3 game ends: these alone score
    # `score` says the same from the same rows (engine.timeline.score_text)
    table = CliRunner().invoke(cli, ["score", str(nova)], env={"COLUMNS": "220"}).stdout
    assert "pips N 5 E 16 S 2 W 0" in table and "game over (hand): W" in table and "N 0 E 0 S 0 W 0" not in table


def test_a_record_missing_a_rule_parameter_says_so(cli, tmp_path, demo):
    """helper-121: a record without rules.params.target was replayed to the engine's default target, silently."""
    data = json.loads(to_json(demo))
    del data["rules"]["params"]["target"]
    (tmp_path / "m.json").write_text(json.dumps(data))
    res = CliRunner().invoke(cli, ["record", "show", str(tmp_path / "m.json")])
    assert res.exit_code == 0
    assert res.stderr.strip() == f"note: {tmp_path / 'm.json'}: the rules lack target: the engine's defaults are used"
    (tmp_path / "whole.json").write_text(to_json(demo))  # every parameter written: nothing to say
    assert CliRunner().invoke(cli, ["record", "show", str(tmp_path / "whole.json")]).stderr == ""


def test_a_notation_cut_off_at_a_line_end_reads_with_a_warning(demo):
    """helper-125: a notation cut off (an interrupted copy) read back without a word, the end of the game lost."""
    text = write_text(demo)
    cut = text[: text.index("9. S 6-3 E")]  # up to event 8's line end
    doubts: list[str] = []
    rec = read_text(cut, doubts)
    assert len(rec.hands[0].events) == 9 and rec.hands[0].status == "in_progress"
    assert doubts == ["the record looks cut off (an interrupted copy or download?): it ends after event 8 of hand 1 "
                      "without the '== standings' line dominocast writes last, so events or hands after that may "
                      "be missing"]
    # every cut at a line end of a three-game match after its first derived part (the first play's points;
    # before it, nothing tells the file from one written by hand) is said; the whole file is not
    script = load_script(ROOT / "examples" / "nova-block.yaml")
    full = write_text(record_from_match(script.rules, [list(h) for h in script.hands]))
    lines = full.splitlines(keepends=True)
    first = next(k for k, line in enumerate(lines) if "  {" in line)
    assert sum(line.startswith("Hand ") for line in lines) == len(script.hands) == 3
    for k in range(first + 1, len(lines)):
        doubts = []
        read_text("".join(lines[:k]), doubts)
        assert len(doubts) == 1 and "looks cut off" in doubts[0], k
    doubts = []
    read_text(full, doubts)
    assert doubts == []


def test_a_record_in_progress_or_written_by_hand_is_not_taken_for_a_cut_one(demo):
    """A live session's record (its last hand unfinished) closes with '= in progress' and the standings;
    a notation written by hand has no derived lines at all: neither looks cut off."""
    live = record_from_match(rules_of(demo), [demo.logs[0][:9]], demo.players)
    text = write_text(live)
    assert "= in progress\n" in text
    doubts: list[str] = []
    assert read_text(text, doubts) == live and doubts == []
    by_hand = '[Format "dominocast-record 1"]\n[Rules "block"]\n\nHand 1\n0. N 6-6\n1. S 6-5 E\n'
    assert read_text(by_hand, doubts).hands[0].events == log_of("N 6-6", "S 6-5 E") and doubts == []
    # nor is its last line refused for want of a line end: an editor may not write one
    assert read_text(by_hand.rstrip("\n"), doubts).hands[0].events == log_of("N 6-6", "S 6-5 E")


def test_a_notation_cut_inside_a_line_is_refused(demo):
    """helper-125: a line cut mid-token read as another event (f=1857 cut to f=18) without a word."""
    text = write_text(demo)
    cut = text[: text.index("f=1857") + 4]
    assert cut.endswith("12. S 2-1 E t=61.9 f=18")
    with pytest.raises(RecordError) as err:
        read_text(cut)
    assert str(err.value) == (
        "line 18: the file ends inside this line ('12. S 2-1 E t=61.9 f=18', no line end after it): it looks cut off "
        "(an interrupted copy or download?) and the line may be incomplete; compare it with the original (a whole "
        "file ends with a line end)")
    # a cut anywhere after the first derived part (the first play's points) is refused or said; a cut in a
    # derived line loses no event
    start = text.index("\n", text.index("{")) + 1
    for k in range(start, len(text)):
        if text[k - 1] == "\n" or text[:k].rsplit("\n", 1)[-1].lstrip().startswith("="):
            continue  # at a line end, or inside a derived line: the warning above
        with pytest.raises(RecordError, match="the file ends inside this line"):
            read_text(text[:k])


def test_a_json_record_cut_off_says_so_in_one_line(demo):
    """helper-125: a cut JSON record was "not JSON: line 88 column 11: Unterminated string starting at"."""
    text = to_json(demo)
    with pytest.raises(RecordError) as err:
        from_json(text[:3000])
    assert str(err.value) == ("not JSON: it ends at line 88 before the JSON is complete: the file looks cut off (an "
                              "interrupted copy or download?); get the whole record again")
    for k in range(1, len(text.rstrip())):
        with pytest.raises(RecordError, match=r"^not JSON: it ends at line \d+ before the JSON is complete"):
            from_json(text[:k])
    with pytest.raises(RecordError, match=r"^not JSON: line 1 column 9: Expecting ',' delimiter$"):
        from_json('{"a": 1 "b": 2}')  # a wrong character, not a cut


def test_cli_says_when_a_record_looks_cut_off(cli, tmp_path, demo):
    text = write_text(demo)
    (tmp_path / "lines.txt").write_text(text[: text.index("9. S 6-3 E")])
    res = CliRunner().invoke(cli, ["record", "show", str(tmp_path / "lines.txt")])
    assert res.exit_code == 0 and "8. N 5-2 S t=41.0 f=1230  {+5}\n= in progress\n" in res.stdout
    assert " ".join(res.stderr.split()) == (
        f"warning: {tmp_path / 'lines.txt'}: the record looks cut off (an interrupted copy or download?): it ends "
        "after event 8 of hand 1 without the '== standings' line dominocast writes last, so events or hands after "
        "that may be missing score not final: hand not finished: hand 1 has no result (the record ends while it is "
        "in play), so its end-of-hand points are not counted")  # the hand read has no result (helper-259)
    (tmp_path / "mid.txt").write_text(text[: text.index("f=1857") + 4])
    (tmp_path / "cut.json").write_text(to_json(demo)[:3000])
    for name in ("mid.txt", "cut.json"):
        res = CliRunner().invoke(cli, ["record", "report", str(tmp_path / name), "--out", str(tmp_path / "r.html")])
        assert res.exit_code == 2 and res.stdout == "" and "Traceback" not in res.output
        assert len(res.stderr.strip().splitlines()) == 1 and "looks cut off" in res.stderr
        assert res.stderr.startswith(f"error: {tmp_path / name}: ")


def test_record_report_marks_the_reviews_flags_on_plays_a_fix_corrected_as_resolved(cli, tmp_path):
    """helper-201 item 8: photos out of order gave two uncertain reads in p07 (N 4-0 E and S 0-1 W, seats by
    turn); the umpire fixed both (fix 6, fix 7). The record's page still listed both camera flags as open beside
    the corrections. Each now names the correction that resolved it, and the counts say how many are."""
    log = [Play(seat="S", tile="6-6", t=1.0, frame=1), Play(seat="N", tile="6-4", end="E", t=2.0, frame=2),
           Play(seat="S", tile="6-2", end="W", t=3.0, frame=3),
           Play(seat="N", tile="4-0", end="E", t=6.0, frame=6, seat_by_turn=True),  # really S's
           Play(seat="S", tile="2-1", end="W", t=6.0, frame=6, seat_by_turn=True),  # really N's
           Play(seat="N", tile="0-3", end="E", t=8.0, frame=8, seat_by_turn=True),
           Correction(replaces=3, event=Play(seat="N", tile="2-1", end="W"), by="me", reason="photos out of order"),
           Correction(replaces=4, event=Play(seat="S", tile="4-0", end="E"))]
    rv = tmp_path / "rv"
    (rv / "snapshots").mkdir(parents=True)
    rows = [{"type": "flag", "kind": "uncertain_read", "t": t, "frame": f, "tile": tile, "seat": seat, "game": 1,
             "hand": 1, "message": f"uncertain play {tile[0]}-{tile[1]} on {end} by {seat}: seat_by_turn"}
            for t, f, tile, seat, end in [(6.0, 6, [4, 0], "N", "E"), (6.0, 6, [2, 1], "S", "W"),
                                          (8.0, 8, [0, 3], "N", "E")]]
    for i, e in enumerate(log[:6]):
        (rv / "snapshots" / f"{i}.jpg").write_bytes(b"\xff\xd8")
        rows.append({"type": "play", "t": e.t, "frame": e.frame, "seat": e.seat, "tile": [e.tile.a, e.tile.b],
                     "game": 1, "hand": 1, "snapshot": f"snapshots/{i}.jpg"})
    (rv / "events.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    (tmp_path / "fixed.json").write_text(to_json(record_from_match(load_ruleset("lisa-b-all-fives"), [log])))
    res = CliRunner().invoke(cli, ["record", "report", str(tmp_path / "fixed.json"), "--review", str(rv), "--out",
                                   str(tmp_path / "p.html")])
    assert res.exit_code == 0, res.output
    said = f"3 flags (0 on the recorded events, 3 only in {rv / 'events.jsonl'}, 2 of them resolved by a correction)"
    assert res.stdout.strip().startswith(f"wrote {tmp_path / 'p.html'}: 6 plays, {said}"), res.stdout
    page = html.unescape((tmp_path / "p.html").read_text())
    items = re.findall(r"<li>(.*?)</li>", re.search(
        r"<h2>Flags \(3, 2 of them resolved by a correction\)</h2><ul>(.*?)</ul>", page).group(1))
    assert [re.sub(r"<[^>]+>", "", i) for i in items] == [
        "6.0 s — uncertain_read: uncertain play 4-0 on E by N: seat_by_turn (only in the review's events.jsonl; "
        "resolved by hand 1 #6: fix 3 N 2-1 W)",
        "6.0 s — uncertain_read: uncertain play 2-1 on W by S: seat_by_turn (only in the review's events.jsonl; "
        "resolved by hand 1 #7: fix 4 S 4-0 E)",
        "8.0 s — uncertain_read: uncertain play 0-3 on E by N: seat_by_turn (only in the review's events.jsonl)"]
    assert "<li>hand 1 #6: fix 3 N 2-1 W (was N 4-0 E t=6.0 f=6) by me: photos out of order</li>" in page


def test_record_report_lists_the_reviews_flags_that_its_record_does_not_keep(cli, tmp_path):
    """helper-185: the page of a review's record listed the flags of the recorded events only, while the
    review's report.html listed the camera's too (a tile laid after the hand's end, a play the engine refused).
    They are listed after the record's, each saying where it comes from, and counted so; a record with no
    review beside it says, in one line, that such flags are not listed."""
    log = [Play(seat="N", tile="5-5", t=1.0, frame=30), Play(seat="S", tile="5-0", end="E", t=2.0, frame=60),
           Play(seat="S", tile="0-0", end="E", t=3.0, frame=90),  # out of turn: N was to play
           Play(seat="N", tile="3-1", end="W", t=4.0, frame=120)]  # on W showing 5: mismatched_end
    rv = tmp_path / "rv"
    (rv / "snapshots").mkdir(parents=True)
    rows = []
    for i, e in enumerate(log):
        (rv / "snapshots" / f"{i}.jpg").write_bytes(b"\xff\xd8")
        rows.append({"type": "play", "t": e.t, "frame": e.frame, "seat": e.seat, "tile": [e.tile.a, e.tile.b],
                     "snapshot": f"snapshots/{i}.jpg"})
    camera = [{"type": "flag", "t": 5.0, "frame": 150, "kind": "after_hand_end", "message": "tile 6-6 placed late"},
              {"type": "flag", "t": 5.5, "frame": 165, "kind": "rejected", "message": "event #4: 2-2 fits no end"}]
    rows += [{"type": "flag", "t": 3.0, "frame": 90, "kind": "uncertain_turn", "message": "S played out of turn, or"},
             {"type": "flag", "t": 4.0, "frame": 120, "kind": "mismatched_end", "message": "N played 3-1 on W"},
             *camera]
    (rv / "events.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    (rv / "record.json").write_text(to_json(record_from_match(load_ruleset("all-fives"), [log])))
    res = CliRunner().invoke(cli, ["record", "report", str(rv / "record.json"), "--out", str(tmp_path / "p.html")])
    assert res.exit_code == 0, res.output
    said = f"4 flags (2 on the recorded events, 2 only in {rv / 'events.jsonl'})"
    assert res.stdout.strip() == f"wrote {tmp_path / 'p.html'}: 4 plays, {said}, 4 snapshots"
    page = html.unescape((tmp_path / "p.html").read_text())
    assert f" · {said} · from record.json" in page
    items = re.findall(r"<li>(.*?)</li>", re.search(r"<h2>Flags \(4\)</h2><ul>(.*?)</ul>", page).group(1))
    assert [re.sub(r"<[^>]+>", "", i) for i in items] == [
        "3.0 s — out_of_turn: S played out of turn (N was to play) (on the recorded event)",
        "4.0 s — mismatched_end: N played 3-1 on W showing 5: the ends do not match (on the recorded event)",
        "5.0 s — after_hand_end: tile 6-6 placed late (only in the review's events.jsonl)",
        "5.5 s — rejected: event #4: 2-2 fits no end (only in the review's events.jsonl)"]
    # the record alone: its own flags, and one line saying that a review's are not listed
    (tmp_path / "lone").mkdir()
    (tmp_path / "lone" / "record.json").write_bytes((rv / "record.json").read_bytes())
    res = CliRunner().invoke(cli, ["record", "report", str(tmp_path / "lone" / "record.json"), "--out",
                                   str(tmp_path / "q.html")])
    assert res.exit_code == 0 and res.stdout.strip().endswith(": 4 plays, 2 flags on the recorded events"), res.output
    flags = re.search(r"<h2>Flags \(2\)</h2>(.*?)<ul>", html.unescape((tmp_path / "q.html").read_text())).group(1)
    assert flags == (f"<p class='sub'>The camera's flags, which only a review's events.jsonl keeps, are not listed: "
                     f"{tmp_path / 'lone'}: not a review's folder (no events.jsonl and no snapshots/ in it).</p>")


# ---- warning kinds, and a hand not over (helper-259) ------------------------------------------------------

def _short_hand(*tail: str) -> list:
    """A hand of lisa-b-all-fives, its deal unseen, as a review records one: S 6-6, N 6-2 E, then ``tail``."""
    return log_of("deal unseen", "S 6-6", "N 6-2 E", *tail)


def test_a_records_warnings_keep_their_kinds_in_json_and_in_the_notation():
    """Each warning's kind and whether it doubts the score are kept beside its text (``warning_kinds``; the
    notation's ``[Warning KIND "..."]``, ``KIND.final`` for one that leaves the score final), through both forms
    and a rederive; a warning of no kind stays as before (``[Warning "..."]``, no ``warning_kinds``)."""
    from engine.record import WarningKind

    kinds = [WarningKind(kind="no_calibration"), WarningKind(kind="small_tiles", doubts_score=False), None]
    rec = record_from_match(load_ruleset("lisa-b-all-fives"), [_short_hand("end domino N", "S reveal 4-3")],
                            warnings=["seats guessed", "tiles small", "an old one"], warning_kinds=kinds)
    data = json.loads(to_json(rec))
    assert data["warning_kinds"] == [{"kind": "no_calibration", "doubts_score": True},
                                     {"kind": "small_tiles", "doubts_score": False}, None]
    text = write_text(rec)
    assert [line for line in text.splitlines() if line.startswith("[Warning")] == [
        '[Warning no_calibration "seats guessed"]', '[Warning small_tiles.final "tiles small"]',
        '[Warning "an old one"]']
    round_trips(rec)
    assert rederive(rec).warning_kinds == kinds and read_text(text).kinds() == kinds
    plain = record_from_match(load_ruleset("lisa-b-all-fives"), [_short_hand()], warnings=["a"], warning_kinds=[None])
    assert "warning_kinds" not in json.loads(to_json(plain)) and plain.kinds() == [None]
    assert '[Warning "a"]' in write_text(plain)
    with pytest.raises(RecordError, match=re.escape("malformed record: warning_kinds: 2 for 3 warnings: one per "
                                                    "warning, in order")):
        from_json(json.dumps({**data, "warning_kinds": data["warning_kinds"][:2]}))
    # null is the field left out: each warning judged by its words (helper-262: it was refused)
    assert from_json(json.dumps({**data, "warning_kinds": None})).kinds() == [None, None, None]
    with pytest.raises(RecordError, match=re.escape("line 4: [Warning small_tiles.maybe]: a warning's key is its "
                                                    "kind, a word (no_calibration), ending in .final")):
        read_text(text.replace("small_tiles.final", "small_tiles.maybe"))


def test_record_show_judges_a_warning_by_the_kind_its_record_keeps_and_an_old_one_by_its_words(cli, tmp_path):
    """The kind kept beside a warning decides, not its words: words of a doubt on reads only (small tiles) under
    a kind that doubts the score make it not final, and a kind that leaves it final does so whatever its words;
    a record that keeps no kinds is judged by the words, as before (small tiles: final)."""
    from engine.record import WarningKind
    from service.review_summary import small_tiles_warning

    small = small_tiles_warning(20.0)  # words that leave a score final
    over = [_short_hand("end domino N", "S reveal 4-3")]

    def said(warnings: list[str], kinds: list) -> str:
        rec = record_from_match(load_ruleset("lisa-b-all-fives"), over, warnings=warnings, warning_kinds=kinds)
        out = []
        for name, body in (("r.json", to_json(rec)), ("r.txt", write_text(rec))):
            (tmp_path / name).write_text(body)
            res = CliRunner().invoke(cli, ["record", "show", str(tmp_path / name)])
            assert res.exit_code == 0, res.output
            out.append(res.stderr.strip())
        assert out[0] == out[1]  # the notation keeps the kinds as the JSON does
        return out[0]

    doubt = "score not final (it may be wrong): 1 warning in the record; see its [Warning] tags at the top"
    assert said([small], [WarningKind(kind="small_tiles")]) == doubt
    assert said(["seats guessed"], [WarningKind(kind="no_calibration", doubts_score=False)]) == ""
    assert said([small, "seats guessed"], []) == doubt  # no kinds: by the words, the second only
    assert said([small], []) == ""
    # a rules warning told by its kind, whatever its words
    assert said(["draws seen"], [WarningKind(kind="rules_misfit")]) == (
        "score not final (it may be wrong): 1 rules warning (rules_misfit) in the record; see its [Warning] tags "
        "at the top")


def test_record_show_and_report_say_a_hand_not_over_is_not_final_whatever_the_warnings(cli, tmp_path):
    """A hand with no result (in play when the record ends, or awaiting the tiles shown at its end) leaves the
    score not final, warnings or none, and the line says why (before helper-259 a review of footage that ends
    mid-hand wrote a record without warnings, and `record show` said nothing); with a warning both reasons."""
    from engine.record import WarningKind, hands_without_result

    rules = load_ruleset("lisa-b-all-fives")
    cases = [
        ([_short_hand()], [], "score not final: hand not finished: hand 1 has no result (the record ends while it is "
                              "in play), so its end-of-hand points are not counted"),
        ([_short_hand("end domino N")], [], "score not final: hand not finished: hand 1 ended but awaits the tiles "
                                            "shown at its end, so its end-of-hand points are not counted"),
        ([_short_hand()], ["seats guessed"], "score not final: hand not finished: hand 1 has no result (the record "
                                             "ends while it is in play), so its end-of-hand points are not counted; "
                                             "and it may be wrong: 1 warning in the record; see {shown}"),
        ([_short_hand("end domino N", "S reveal 4-3")], [], ""),
    ]
    for logs, warnings, line in cases:
        rec = record_from_match(rules, logs, warnings=warnings,
                                warning_kinds=[WarningKind(kind="no_calibration")] * len(warnings))
        assert [h.number for h in hands_without_result(rec)] == ([] if not line else [1])
        (tmp_path / "r.json").write_text(to_json(rec))
        res = CliRunner().invoke(cli, ["record", "show", str(tmp_path / "r.json")])
        assert res.exit_code == 0 and res.stderr.strip() == line.format(shown="its [Warning] tags at the top")
        out = tmp_path / "r.html"
        res = CliRunner().invoke(cli, ["record", "report", str(tmp_path / "r.json"), "--out", str(out)])
        assert res.exit_code == 0, res.output
        assert res.stderr.splitlines()[:1] == ([line.format(shown="the warnings below")] if line else [])
        page = out.read_text()
        assert (" · " + html.escape(line.format(shown="the warnings below"), quote=False) in page) if line else (
            "score not final" not in page)
