"""``dominocast score``: a scripted hand or match scored from the command line.

Good scripts print a row per event (``--json``) or a table; bad input exits with code 2 and
one line on stderr naming the problem and where it is (``hands[i].events[j]`` for a script
error, ``hand h, event #n`` for an event the engine refuses, a line for malformed YAML).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

try:  # the full CLI; other helpers add sub-command modules, which may not import mid-change
    from service.cli import app
except Exception:  # pragma: no cover - fallback with the engine commands only
    from service import cli_engine

    app = typer.Typer()
    cli_engine.register(app)

runner = CliRunner()


def script(tmp_path: Path, text: str, name: str = "hand.yaml") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def score(*args: str):
    return runner.invoke(app, ["score", *map(str, args)])


def test_score_json_rows_carry_points_ends_and_the_running_score(tmp_path):
    path = script(tmp_path, """\
rules: all-fives
hands:
  - events:
      - N 6-4
      - S 4-1 E
      - N 5-5 W t=12.5
""")
    result = score(path, "--json")
    assert result.exit_code == 0, result.output
    rows = [json.loads(line) for line in result.stdout.splitlines()]
    # 1 N 6-4: 6 + 4 = 10 -> N 10.  2 S 4-1 E: 6 + 1 = 7.  3 N [5-5] on W (6) does not match: a flag
    assert [r["points"] for r in rows] == [{"N": 10}, {}, {}]
    assert [r["ends_total"] for r in rows[:2]] == [10, 7]
    assert rows[1]["open_ends"] == {"W": 6, "E": 1}
    assert rows[-1]["score"] == {"N": 10, "S": 0}
    assert rows[2]["t"] == 12.5 and [f["kind"] for f in rows[2]["flags"]] == ["mismatched_end"]


def test_score_table_names_the_players_and_prints_standings(tmp_path):
    path = script(tmp_path, """\
rules: all-fives
players: {N: Ana, S: Bob}
hands:
  - events:
      - N 6-4
      - S 4-1 E
      - N 6-6 W
""")
    result = score(path)
    assert result.exit_code == 0, result.output
    assert "Standings" in result.stdout and "Ana" in result.stdout and "Bob" in result.stdout


def test_score_a_match_ends_the_game_at_the_target(tmp_path):
    # jersey-partnership, the lock line twice: NS 7 + 28 = 35 against EW 15 + 40 = 55, NS win all 90
    # pips each time; a third hand takes them to 270 >= 200
    lock = ["N 6-6", "W 6-5 E", "S 6-1 W", "E 5-4 E", "N 1-0 W", "W 4-6 E", "S 0-6 W", "E 6-3 E", "N 3-2 E",
            "W 2-6 E", "N reveal 0-0 1-1 2-0 2-1", "W reveal 3-0 3-1 4-0 2-2", "S reveal 4-1 4-2 3-3 5-0 5-1",
            "E reveal 4-3 4-4 5-2 5-3 5-5"]
    hand = "  - events:\n" + "".join(f"      - {line}\n" for line in lock)
    path = script(tmp_path, "rules: jersey-partnership\nhands:\n" + hand * 3)
    result = score(path, "--json")
    assert result.exit_code == 0, result.output
    rows = [json.loads(line) for line in result.stdout.splitlines()]
    end = rows[-1]
    assert end["type"] == "game_end" and end["winner"] == "NS" and end["ended_by"] == "target"
    assert end["score"] == {"NS": 270, "EW": 0}


def test_rules_override_on_the_command_line(tmp_path):
    path = script(tmp_path, "rules: all-fives\nhands:\n  - events:\n      - N 5-5\n      - S 5-0 E\n")
    result = score(path, "--json", "--rules", "muggins")
    assert result.exit_code == 0, result.output
    rows = [json.loads(line) for line in result.stdout.splitlines()]
    # muggins: [5-5] scores 10 and is a double, so N plays again; S playing is out of turn
    assert rows[0]["points"] == {"N": 10}
    assert [f["kind"] for f in rows[1]["flags"]] == ["out_of_turn"]


# ---- bad input: exit code 2, one line naming the problem and where ------------------------------

BAD = [
    ("unknown_preset", "rules: double-nine-blitz\nhands:\n  - events:\n      - N 6-4\n",
     ["unknown rule set 'double-nine-blitz'", "presets:"]),
    ("tile_not_in_set", "rules: all-fives\nhands:\n  - events:\n      - N 6-4\n      - S 7-3 E\n",
     ["hand 1, event #1", "7-3", "not in a double-6 set"]),
    ("tile_twice", "rules: all-fives\nhands:\n  - events:\n      - N 6-4\n      - S 4-6 E\n",
     ["hand 1, event #1", "already on the table"]),
    ("no_such_end", "rules: all-fives\nhands:\n  - events:\n      - N 6-4\n      - S 4-1 N\n",
     ["hand 1, event #1", "no end 'N'", "open ends: W, E"]),
    ("bad_notation", "rules: all-fives\nhands:\n  - events:\n      - N 6-4\n      - S 4-x E\n",
     ["hands[0].events[1]", "not a tile"]),
    ("stray_word", "rules: all-fives\nhands:\n  - events:\n      - N 6-4\n      - S 4-1 E t=3 junk\n",
     ["hands[0].events[1]", "a play is SEAT TILE [END]"]),
    ("lead_garbage", "rules: all-fives\nhands:\n  - events:\n      - N 6-4 GARBAGE\n",
     ["hands[0].events[0]", "END one of W, E, N, S (N2, S2"]),
    ("bad_seat", "rules: all-fives\nhands:\n  - events:\n      - N 6-4\n      - X 4-1 E\n",
     ["hands[0].events[1]", "seat"]),
    ("malformed_yaml", "rules: all-fives\nhands:\n  - events: [N 6-4\n",
     ["malformed YAML", "line 4"]),
    ("second_hand", "rules: all-fives\nhands:\n  - events:\n      - N 6-4\n  - events:\n      - N 6-4\n"
     "      - S 4-6 E\n", ["hand 2, event #1", "already on the table"]),
    # helper-220: a misspelt key inside a hand was "'events' must be a list"; it is named, as a top-level one is
    ("hand_key_typo", "rules: all-fives\nhands:\n  - evnts:\n      - N 6-4\n",
     ["hands[0]: unknown key 'evnts' (keys: events)"]),
    ("hand_key_extra", "rules: all-fives\nhands:\n  - events:\n      - N 6-4\n  - events: []\n    note: x\n",
     ["hands[1]: unknown key 'note' (keys: events)"]),
    ("hand_events_a_mapping", "rules: all-fives\nhands:\n  - events: {N: 6-4}\n",
     ["hands[0]: 'events' must be a list"]),
    # a traceback before (helper-47): rules, overrides, players and title of the wrong type
    ("rules_a_number", "rules: 5\nhands:\n  - events:\n      - N 6-6\n",
     ["'rules' is a preset name or a TOML file, got 5"]),
    ("rules_a_mapping", "rules: {preset: muggins}\nhands:\n  - events:\n      - N 6-6\n",
     ["'rules' is a preset name or a TOML file, got {'preset': 'muggins'}"]),
    ("overrides_a_list", "rules: block\noverrides: [1]\nhands:\n  - events:\n      - N 6-6\n",
     ["'overrides' is a mapping of rule-set fields, got [1]"]),
    ("overrides_a_number_key", "rules: block\noverrides: {1: 2}\nhands:\n  - events:\n      - N 6-6\n",
     ["'overrides' is a mapping of rule-set fields, got {1: 2}"]),
    ("players_a_number", "rules: block\nplayers: 5\nhands:\n  - events:\n      - N 6-6\n",
     ["'players' maps seats to names (N: Ana), got 5"]),
    ("title_a_list", "rules: block\ntitle: [x]\nhands:\n  - events:\n      - N 6-6\n", ["'title' is text"]),
    # accepted before, standings "N (N)" (helper-77); --record refused it
    ("players_of_no_seat", "rules: block\nplayers: {N: Ana, E: Eve}\nhands:\n  - events:\n      - N 6-6\n",
     ["players: seat 'E' is not playing (seats: N, S)"]),
    # a traceback before (helper-77): the penalty written as a mapping bypassed the notation's check
    ("penalty_mapping_without_points", "rules: lisa-b-all-fives\nhands:\n  - events:\n      - N 5-5\n"
     "      - {type: penalty, seat: S}\n", ["a penalty on S needs a rule-set penalty name or explicit points"]),
    ("a_record", '{"format": "dominocast-record", "version": 1, "rules": {}, "event": "x", "hands": []}',
     ["is a game record, not a script: `dominocast record show"]),
    # "unknown key 'appearance'" before (helper-253): a footage folder's other JSON
    ("a_footage_ground_truth", '{"format": "dominocast-footage/1", "rules": "block", "appearance": "train"}',
     ["is the ground truth of a rendered footage, not a script: `dominocast review` its video"]),
    # "malformed YAML: expected '<document start>'" before (helper-84)
    ("a_notation_record", '[Format "dominocast-record 1"]\n[Rules "all-fives"]\n\nHand 1\n0. N 6-6\n',
     ["is a game record in text notation, not a script: `dominocast record show"]),
    ("an_event_log", '{"type": "play", "seat": "N", "tile": [6, 6]}\n{"type": "pass", "seat": "S"}\n',
     ["is a review's event log (one row per line), not a script"]),
    # "list index out of range" before (helper-57)
    ("penalty_without_name", "rules: all-fives\nhands:\n  - events:\n      - N 6-6\n      - N penalty\n",
     ["hands[0].events[1]", "'N penalty': a penalty needs a name or points"]),
    ("void_without_number", "rules: all-fives\nhands:\n  - events:\n      - N 6-6\n      - void\n",
     ["hands[0].events[1]", "a correction is 'void N'"]),
    ("end_without_kind", "rules: all-fives\nhands:\n  - events:\n      - N 6-6\n      - end\n",
     ["hands[0].events[1]", "end domino SEAT | end locked"]),
    # a seat dealt twice: the second group silently replaced the first before (helper-57)
    ("deal_seat_twice_in_a_line", "rules: block\nhands:\n  - events:\n"
     "      - deal N 6-6 6-5 6-4 0-0 3-1 2-2 1-1 / N 5-5 4-4 3-3 2-1 2-0 1-0 5-4\n",
     ["hands[0].events[0]", "N is dealt twice in one deal line"]),
    ("deal_seat_twice_in_two_lines", "rules: block\nhands:\n  - events:\n"
     "      - deal N 6-6 6-5 6-4 0-0 3-1 2-2 1-1\n      - deal N 5-5 4-4 3-3 2-1 2-0 1-0 5-4\n",
     ["hand 1, event #1 (deal)", "N was already dealt (6-6 6-5 6-4 0-0 3-1 2-2 1-1)"]),
]


def test_a_hand_after_the_match_ended_says_how_it_ended(tmp_path):
    """helper-253: the example lisa-b match to 50 (S 35 after hand 2's #19, +10 at its #25: 55) said only "hand 3:
    the match is already over"; the umpire saw no table and no reason."""
    text = (EXAMPLES / "lisa-b-all-fives.yaml").read_text().replace(
        "rules: lisa-b-all-fives\n", "rules: lisa-b-all-fives\noverrides: {target: 50}\n")
    result = score(script(tmp_path, text))
    assert result.exit_code == 2 and result.stderr.strip().endswith(
        "hand 3: the match is already over: game 1 ended with its hand 2 (target 50: S 55, N 15), the last of "
        "1 game a match"), result.output


def test_a_video_given_as_a_script_is_said_so(tmp_path):
    path = tmp_path / "demo.mp4"
    path.write_bytes(b"\x00\x00\x00\x20ftypisom\xb3\xff")  # helper-80: "'utf-8' codec can't decode byte 0xb3"
    result = score(path)
    assert result.exit_code == 2 and result.stderr.strip() == (
        f"error: {path}: not a text file (a video or a picture?): a script is YAML or JSON")


@pytest.mark.parametrize("name,text,needles", BAD, ids=[b[0] for b in BAD])
def test_bad_scripts_exit_2_with_one_line(tmp_path, name, text, needles):
    path = script(tmp_path, text, f"{name}.yaml")
    result = score(path)
    assert result.exit_code == 2, result.output
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("error:") and f"{name}.yaml" in lines[0]
    for needle in needles:
        assert needle in lines[0], (needle, lines[0])
    assert "Traceback" not in result.output


def test_missing_file_exits_2(tmp_path):
    result = score(tmp_path / "nowhere.yaml")
    assert result.exit_code == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "nowhere.yaml" in lines[0] and "no such script file" in lines[0]


def test_unknown_preset_on_the_command_line_exits_2(tmp_path):
    path = script(tmp_path, "rules: all-fives\nhands:\n  - events:\n      - N 6-4\n")
    result = score(path, "--rules", "nope")
    assert result.exit_code == 2
    assert "unknown rule set 'nope'" in result.stderr and len(result.stderr.strip().splitlines()) == 1


def test_score_table_of_a_game_ranked_by_pips_shows_the_pips_not_a_score(tmp_path):
    """NOVA (seed 002) ranks players by the spots left in their hands: the table's game-over row
    shows those pips, and no running score of zeros."""
    path = script(tmp_path, """\
rules: nova-block
overrides: {games_per_match: 1}
hands:
  - events:
      - N 6-6
      - E pass
      - S pass
      - W pass
      - N 6-5 E
      - E pass
      - S pass
      - W pass
      - N 5-4 E
      - E pass
      - S pass
      - W pass
      - N 4-3 E
      - E pass
      - S pass
      - W pass
      - N 3-2 E
      - E pass
      - S pass
      - W pass
      - N 2-1 E
      - E pass
      - S pass
      - W pass
      - N 1-0 E
      - E reveal 6-4 6-3 6-2 6-1 6-0 5-5 5-3
      - S reveal 5-2 5-1 5-0 4-4 4-2 4-1 4-0
      - W reveal 3-3 3-1 3-0 2-2 2-0 1-1 0-0
""")
    result = runner.invoke(app, ["score", str(path)], env={"COLUMNS": "220"})
    assert result.exit_code == 0, result.output
    over = next(line for line in result.stdout.splitlines() if "game over" in line)
    assert "pips N 0 E 58 S 41 W 21" in over  # 10+9+8+7+6+10+8, 7+6+5+8+6+5+4, 6+4+3+4+2+2+0
    assert "N 0 E 0" not in result.stdout.replace("pips N 0 E 58", "")


def test_a_hand_with_no_end_followed_by_another_is_a_warning(tmp_path):
    path = script(tmp_path, """\
rules: all-fives
hands:
  - events:
      - N 6-4
      - S 4-1 E
  - events:
      - S 5-5
""")
    result = score(path, "--json")
    assert result.exit_code == 0, result.output
    assert result.stderr.strip().splitlines() == [
        "warning: hand 1 of game 1 has no end (no domino, lock or 'end' line) but another hand follows it: "
        "scored as it stands"]
    rows = [json.loads(line) for line in result.stdout.splitlines()]  # stdout stays rows only
    assert [r["hand"] for r in rows] == [1, 1, 2] and rows[-1]["score"] == {"N": 10, "S": 10}
    ended = script(tmp_path, "rules: all-fives\nhands:\n  - events:\n      - N 6-4\n      - end umpire\n"
                             "  - events:\n      - S 5-5\n", "ended.yaml")
    assert score(ended, "--json").stderr == ""


def test_a_hand_locked_from_the_board_with_no_hand_known_says_it_awaits_the_reveals(tmp_path):
    """helper-215: no deal line; S's 0-6 leaves both ends on 6 with all seven 6s laid. The engine ends the hand
    as locked but cannot count it: ``score`` said nothing of it (and, with a hand after it, that it had "no
    end"). With the reveals (N 0-0 1-1: 2 pips, S 5-5 4-4: 18) pagat's block game gives N S's 18."""
    line = "".join(f"      - {e}\n" for e in ("N 6-6", "S 6-5 E", "N 5-4 E", "S 4-6 E", "N 6-3 W", "S 3-2 W",
                                                "N 2-6 W", "S 6-1 E", "N 1-0 E", "S 0-6 E"))
    waiting = ("warning: hand 1 of game 1 ended (locked) but the tiles of N, S are not shown (no reveal line): its "
               "end-of-hand points are not counted")
    result = score(script(tmp_path, f"rules: block\nhands:\n  - events:\n{line}"), "--json")
    assert result.exit_code == 0, result.output
    assert result.stderr.strip().splitlines() == [waiting]
    # a hand after it: the same line, not "has no end"
    result = score(script(tmp_path, f"rules: block\nhands:\n  - events:\n{line}  - events:\n      - N 5-5\n",
                          "next.yaml"), "--json")
    assert result.stderr.strip().splitlines() == [waiting]
    shown = script(tmp_path, f"rules: block\nhands:\n  - events:\n{line}      - N reveal 0-0 1-1\n"
                             "      - S reveal 5-5 4-4\n", "shown.yaml")
    result = score(shown, "--json")
    assert result.stderr == ""
    end = json.loads(result.stdout.splitlines()[-1])["hand_end"]
    assert (end["kind"], end["winner"], end["remaining"], end["awards"]) == ("locked", "N", {"N": 2, "S": 18},
                                                                          {"N": 18, "S": 0})


def test_the_row_of_the_play_that_locks_a_hand_with_no_hand_known_says_whose_tiles_it_awaits(tmp_path):
    """helper-221: the same lock as above; only the stderr warning said the hand ended, the rows nothing. The
    locking play's --json row now carries ``awaiting_reveal`` (kind, winner, seats) and the table says it beside
    the play. With N's reveal alone S is still awaited; with both the last reveal's row is the plain result."""
    line = "".join(f"      - {e}\n" for e in ("N 6-6", "S 6-5 E", "N 5-4 E", "S 4-6 E", "N 6-3 W", "S 3-2 W",
                                                "N 2-6 W", "S 6-1 E", "N 1-0 E", "S 0-6 E"))
    locked = script(tmp_path, f"rules: block\nhands:\n  - events:\n{line}")
    rows = [json.loads(r) for r in score(locked, "--json").stdout.splitlines()]
    assert [r["text"] for r in rows if "awaiting_reveal" in r] == ["S 0-6 E"]
    assert rows[-1]["awaiting_reveal"] == {"kind": "locked", "winner": None, "seats": ["N", "S"]}
    assert "hand_end" not in rows[-1] and rows[-1]["score"] == {"N": 0, "S": 0}
    table = runner.invoke(app, ["score", str(locked)], env={"COLUMNS": "160"}).stdout
    assert "S 0-6 E  → hand over (locked): reveal the tiles of N, S" in table
    # the record's page says it on that row too (it said nothing)
    assert score(locked, "--record", str(tmp_path / "locked.json")).exit_code == 0
    page = tmp_path / "locked.html"
    res = runner.invoke(app, ["record", "report", str(tmp_path / "locked.json"), "--out", str(page)])
    assert res.exit_code == 0, res.output
    row = next(r for r in page.read_text().split("<tr") if "S 0-6 E" in r)
    assert "<b>hand over (locked): reveal the tiles of N, S</b>" in row
    half = script(tmp_path, f"rules: block\nhands:\n  - events:\n{line}      - N reveal 0-0 1-1\n", "half.yaml")
    rows = [json.loads(r) for r in score(half, "--json").stdout.splitlines()]
    assert [(r["text"], r["awaiting_reveal"]["seats"]) for r in rows if "awaiting_reveal" in r] == [
        ("S 0-6 E", ["N", "S"]), ("N reveal 0-0 1-1", ["S"])]
    shown = script(tmp_path, f"rules: block\nhands:\n  - events:\n{line}      - N reveal 0-0 1-1\n"
                             "      - S reveal 5-5 4-4\n", "shown.yaml")
    last = json.loads(score(shown, "--json").stdout.splitlines()[-1])
    assert "awaiting_reveal" not in last
    assert (last["hand_end"]["kind"], last["hand_end"]["winner"], last["score"]) == ("locked", "N", {"N": 18, "S": 0})
    table = runner.invoke(app, ["score", str(shown)], env={"COLUMNS": "160"}).stdout
    assert "S reveal 5-5 4-4  → locked N (lowest 2 pips; S's 18 pips)" in table


def test_no_warning_for_a_hand_ended_by_the_target_during_play(tmp_path):
    """fives-and-threes, target 1 checked at once: N's 5-0 makes 5 and ends game 1 mid-hand; game 2
    follows. That hand needs no end line (helper-61: it was warned about)."""
    path = script(tmp_path, """\
rules: fives-and-threes
overrides: {target: 1, games_per_match: 2, target_checked: immediately}
hands:
  - events:
      - N 5-0
  - events:
      - S 6-6
""")
    result = score(path, "--json")
    assert result.exit_code == 0, result.output
    assert result.stderr == ""


def test_score_table_says_what_each_flag_means_once(tmp_path):
    """helper-116: "must_draw" stood in the table with no word of what it means (only --json had it). Once per
    kind and seat (helper-209): N's mismatch names another tile than S's."""
    path = script(tmp_path, """\
rules: all-fives
hands:
  - events:
      - N 6-4
      - S 2-1 E
      - N 3-3 E
""")
    result = score(path)
    assert result.exit_code == 0, result.output
    lines = [x.strip() for x in result.stdout.splitlines() if x.strip().startswith("mismatched_end:")]
    assert lines == ["mismatched_end: 1.1 #1: S played 2-1 on E showing 4: the ends do not match",
                     "mismatched_end: 1.1 #2: N played 3-3 on E showing 1: the ends do not match"]


def test_a_notice_is_marked_in_the_json_and_not_counted_as_a_flag(tmp_path):
    """helper-117: seed 004's must_draw (N went out with a double and draws) is what the rules require
    next, not an infraction: the JSON marks it, the flags of a real infraction carry no mark."""
    path = script(tmp_path, """\
rules: muggins
players: {N: Ana, S: Bob}
hands:
  - events:
      - N 5-5
      - N 5-0 E
      - N 0-1 E
      - S 1-4 E
      - N 5-2 W
      - S 4-3 E
      - S 3-3 E
      - S 3-2 E
      - N 2-2 W
      - S 2-6 W
""")
    result = score(path, "--json")
    assert result.exit_code == 0, result.output
    flags = [(f["kind"], f.get("notice", False)) for line in result.stdout.splitlines()
             for f in json.loads(line).get("flags", [])]
    assert flags == [("must_draw", True), ("out_of_turn", False)]


def test_script_event_errors_say_what_to_write(tmp_path):
    """helper-124: a list tile of three numbers was told "(write it as 6-4)", and an event object without a
    type got pydantic's "Unable to extract tag using discriminator 'type'"."""
    path = script(tmp_path, "rules: block\nhands:\n  - events:\n      - {type: play, seat: N, tile: [6, 5, 1]}\n")
    result = score(path)
    assert result.exit_code == 2 and result.stderr.strip().endswith("not a tile: [6, 5, 1] (two pip counts, e.g. [6, 4])")
    path = script(tmp_path, "rules: block\nhands:\n  - events:\n      - {seat: N}\n")
    result = score(path)
    assert result.exit_code == 2 and result.stderr.strip().endswith(
        "an event needs its type: one of deal, play, pass, draw, take_back, penalty, reveal, hand_end, correction")


EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


def test_the_standings_and_the_record_list_tied_sides_in_turn_order(tmp_path):
    """helper-215: ``HandState.sides`` was name order, so a game's scores, a hand's points and awards in
    ``record.json`` read EW before NS, and the standings listed tied sides so: `score` of one bdc-partnership
    hand in play (both teams on 0) put EW above NS. Now as they play: NS, then EW."""
    path = script(tmp_path, "rules: bdc-partnership\nhands:\n  - events:\n      - N 6-6\n      - W 6-5 E\n")
    rec = tmp_path / "record.json"
    result = runner.invoke(app, ["score", str(path), "--record", str(rec)], env={"COLUMNS": "120"})
    assert result.exit_code == 0, result.output
    standings = [line.split()[1] for line in result.stdout.splitlines() if line.startswith("│ ") and " 0 " in line
                 and line.split()[1] in ("NS", "EW")]
    assert standings == ["NS", "EW"]
    data = json.loads(rec.read_text())
    assert [s["side"] for s in data["standings"]] == ["NS", "EW"]
    assert list(data["games"][0]["scores"]) == ["NS", "EW"] and list(data["hands"][0]["points"]) == ["NS", "EW"]


def test_score_tables_list_the_seats_in_turn_order_not_by_name(tmp_path):
    """helper-206: nova-block (4 seats, each its own side) listed its scores "E 0 N 0 S 0 W 0" (the engine's
    name order) in `score`, the record report and the notation: now N E S W, as they play; a partnership
    game lists its teams NS then EW (bdc-partnership plays N W S E: teams together, N's first)."""
    from engine.record_text import write_text
    from service.cli_record import load_record
    from service.views import in_turn_order, key_order, side_order
    from engine.ruleset import load_ruleset

    nova, bdc = load_ruleset("nova-block"), load_ruleset("bdc-partnership")
    assert side_order(nova) == ["N", "E", "S", "W"] and side_order(bdc) == ["NS", "EW"]
    assert key_order(bdc) == ["NS", "EW", "N", "S", "W", "E"]  # the seats team by team, each in turn order
    assert side_order(load_ruleset("all-fives")) == ["N", "S"]
    assert list(in_turn_order({"E": 1, "N": 2, "S": 3, "W": 4}, side_order(nova))) == ["N", "E", "S", "W"]
    assert list(in_turn_order({"EW": 1, "NS": 2, "X": 0}, side_order(bdc))) == ["NS", "EW", "X"]

    rows = [json.loads(x) for x in score(EXAMPLES / "nova-block.yaml", "--json").stdout.splitlines()]
    assert rows and all(list(r["score"]) == ["N", "E", "S", "W"] for r in rows)
    assert [list(r["pips"].items()) for r in rows if r["type"] == "game_end"][0] == \
        [("N", 5), ("E", 16), ("S", 2), ("W", 0)]
    rows = [json.loads(x) for x in score(EXAMPLES / "bdc-partnership.yaml", "--json").stdout.splitlines()]
    assert rows and all(list(r["score"]) == ["NS", "EW"] for r in rows)
    # hand 1: N went out, the pips left W 5 + S 14 + E 6 = 25 to NS; hand 2 locked, S lowest, NS +50
    # (the 50 the rules give); hand 3: W went out, EW +24
    ends = [r for r in rows if "hand_end" in r]
    assert [list(r["hand_end"]["awards"].items()) for r in ends] == [[("NS", 25), ("EW", 0)], [("NS", 50), ("EW", 0)],
                                                                    [("NS", 0), ("EW", 24)]]
    assert [list(r["hand_end"]["remaining"]) for r in ends][0] == ["N", "S", "W", "E"]  # teams together
    assert ends[-1]["score"] == {"NS": 75, "EW": 24} and list(ends[-1]["score"]) == ["NS", "EW"]
    table = runner.invoke(app, ["score", str(EXAMPLES / "bdc-partnership.yaml")], env={"COLUMNS": "220"}).stdout
    assert "NS 75 EW 24" in table and "EW 24 NS 75" not in table

    out = tmp_path / "nova.json"
    assert score(EXAMPLES / "nova-block.yaml", "--record", out).exit_code == 0
    text = write_text(load_record(out))
    assert "= domino W +0  (pips: N 5, E 16, S 2, W 0; hand: N +0, E +0, S +0, W +0)" in text
    assert "E +0, N +0" not in text
    report = tmp_path / "nova.html"
    assert runner.invoke(app, ["record", "report", str(out), "--out", str(report)]).exit_code == 0
    page = report.read_text()
    # a pips game keeps no running score: the game's end rows hold its pips, seats in turn order (helper-209)
    assert "<td>pips N 5 E 16 S 2 W 0</td>" in page and "N 0 E 0 S 0 W 0" not in page and "E 16 N 5" not in page


def test_score_says_each_seats_flag_of_a_kind_and_counts_the_rest(tmp_path):
    """helper-209: the list under the table said each kind once, so S's reveal_leaves_out (6-4, taken back) was
    hidden under N's (4-0, exposed): it says each seat's first flag of a kind, and counts those it leaves out;
    a notice (what the rules require next) is said once per kind as before."""
    path = script(tmp_path, """\
rules: block
hands:
  - events:
      - deal unseen
      - N 4-1
      - N reveal 4-0
      - S 6-4 W
      - S takeback 6-4
      - S 3-1 E
      - N 5-3 E
      - S 5-4 W
      - N pass
      - S 6-5 E
      - N 6-0 E
      - S 2-0 E
      - N 2-2 E
      - S pass
      - N 3-2 E
      - S 6-3 E
      - N 6-2 E
      - S pass
      - N pass
      - N reveal 1-1
      - S reveal 4-4 5-5
""")
    result = score(path)
    assert result.exit_code == 0, result.output
    lines = [x.strip() for x in result.stdout.splitlines() if x.startswith("  ") and ": 1.1 #" in x]
    assert lines == ["exposed_tile: 1.1 #2: N exposed 4-0",
                     "take_back: 1.1 #4: S took back 6-4",
                     "reveal_leaves_out: 1.1 #19: N's reveal leaves out 4-0, exposed at #2",
                     "reveal_leaves_out: 1.1 #20: S's reveal leaves out 6-4, taken back at #4"]

    from service.cli_engine import flag_notes

    def row(index: int, seat: str, kind: str = "mismatched_end", notice: bool = False) -> dict:
        flag = {"kind": kind, "seat": seat, "message": f"{seat} at #{index}", **({"notice": True} if notice else {})}
        return {"game": 1, "hand": 2, "index": index, "flags": [flag]}

    rows = [row(1, "S"), row(2, "N"), row(3, "S"), row(4, "N"), row(5, "S"), row(6, "E", "out_of_turn"),
            row(7, "E", "out_of_turn"), row(8, "N", "must_draw", True), row(9, "S", "must_draw", True)]
    assert flag_notes(rows) == [
        ("red", "mismatched_end", "1.2 #1: S at #1"), ("red", "mismatched_end", "1.2 #2: N at #2"),
        ("red", "mismatched_end", "3 more by the same seats (the table marks their rows; --json has their messages)"),
        ("red", "out_of_turn", "1.2 #6: E at #6"),
        ("red", "out_of_turn", "1 more by the same seat (the table marks its row; --json has its message)"),
        ("yellow", "must_draw", "1.2 #8: N at #8")]
