"""The bundled rule-set presets: each loads, carries its seed's values, and bad files fail loudly.

Values asserted here are quoted from the seed texts in ``shared/seeds/`` (see ``docs/rules.md``).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from engine.ruleset import (MAX_RULESET_BYTES, RULESET_DIR, Ruleset, RulesetError, available_presets, load_ruleset,
                            presets_with)

PRESETS = available_presets()
DOCS = Path(__file__).resolve().parents[1] / "docs" / "rules.md"

# One vocabulary for infractions across presets (docs/rules.md, "Writing your own").
PENALTY_NAMES = {
    "bogus_play", "pass_with_play", "draw_with_play", "play_out_of_turn", "exposed_tile", "wrong_start",
    "signalling", "rearranging_tiles", "slow_play", "looking_at_tiles", "showing_tiles",
    "first_tile_orientation",
}


def test_the_expected_presets_are_bundled():
    assert set(PRESETS) >= {
        "lisa-b-all-fives", "bdc-partnership", "nova-block", "jersey-partnership", "muggins",
        "all-fives", "fives-and-threes", "block", "draw",
    }


@pytest.mark.parametrize("name", PRESETS)
def test_every_preset_loads_and_is_named_for_its_file(name):
    rs = load_ruleset(name)
    assert isinstance(rs, Ruleset)
    assert rs.name == name
    assert rs.title and rs.source
    assert set(rs.penalties) <= PENALTY_NAMES


@pytest.mark.parametrize("name", PRESETS)
def test_every_value_in_a_preset_file_says_where_it_comes_from(name):
    lines = (RULESET_DIR / f"{name}.toml").read_text(encoding="utf-8").splitlines()
    for i, line in enumerate(lines):
        key = re.match(r"([a-z_]+)\s*=", line)
        if key and key.group(1) not in {"name", "title", "source"} and not _inside_table(lines, i):
            assert lines[i - 1].startswith("#"), f"{name}.toml line {i + 1}: {key.group(1)} has no source comment"
        if line.startswith("[penalties."):
            assert lines[i - 1].startswith("#"), f"{name}.toml line {i + 1}: {line} has no source comment"


def _inside_table(lines: list[str], i: int) -> bool:
    return any(prev.startswith("[") for prev in lines[:i])


@pytest.mark.parametrize("name", PRESETS)
def test_docs_table_has_a_column_per_preset(name):
    header = next(line for line in DOCS.read_text(encoding="utf-8").splitlines() if line.startswith("| parameter |"))
    assert f"`{name}`" in header


def test_docs_table_has_a_row_per_parameter():
    text = DOCS.read_text(encoding="utf-8")
    for field in Ruleset.model_fields:
        if field not in {"name", "title", "source", "penalties"}:
            assert f"\n| {field} |" in text, field


def test_penalties_are_described_as_the_docs_table_says():
    """``Penalty.describe`` (what `dominocast rules` prints) against docs/rules.md's penalty rows, written by
    hand from the presets: every preset's every penalty."""
    lines = DOCS.read_text(encoding="utf-8").splitlines()
    header = next(line for line in lines if line.startswith("| parameter |"))
    columns = [c.strip(" `") for c in header.strip("|").split("|")][1:]
    for line in lines:
        m = re.match(r"\| penalty `(\w+)` \|(.*)\|$", line)
        if not m:
            continue
        cells = [c.strip() for c in m[2].split("|")]
        for preset, cell in zip(columns, cells):
            spec = load_ruleset(preset).penalties.get(m[1])
            assert (spec.describe() if spec else "") == cell, (preset, m[1])


def test_rules_command_shows_where_each_value_comes_from():
    """helper-122: `dominocast rules PRESET` printed no quotes, and left out a penalty's warnings and leader."""
    from typer.testing import CliRunner

    from service.cli import app

    out = " ".join(CliRunner().invoke(app, ["rules", "jersey-partnership"], env={"COLUMNS": "400"}).stdout.split())
    assert "time_limit_min │ 40.0 │" in out and "at the end of forty minutes" in out.lower()
    assert "penalty first_tile_orientation │ -25 infr.; 1 warning │" in out
    out = " ".join(CliRunner().invoke(app, ["rules", "bdc-partnership"], env={"COLUMNS": "400"}).stdout.split())
    assert "penalty looking_at_tiles │ +30 opp.; opp. lead; right of infractor │" in out


def test_rules_command_names_each_source_by_title_and_file():
    """helper-165: the list showed a tournament text as ``seed 000_708a877065d77bfc (...)``, an id that names
    no file; it reads title first, then the seed's file. The preset's stored ``source`` (API, records) keeps
    the id; a published source is shown as written."""
    from typer.testing import CliRunner

    from service.cli import app

    out = " ".join(CliRunner().invoke(app, ["rules"], env={"COLUMNS": "400"}).stdout.split())
    assert ("│ lisa-b-all-fives │ Lisa B. Domino Tournament: All Fives, singles │ "
            "Lisa B. Domino Tournament rules (seed file 000_708a877065d77bfc.txt) │") in out
    assert "│ all-fives │ All Fives (pagat) │ pagat.com All Fives │" in out
    assert "seed files: ../shared/seeds/, beside the repository" in out and "│ seed 00" not in out
    out = " ".join(CliRunner().invoke(app, ["rules", "muggins"], env={"COLUMNS": "400"}).stdout.split())
    assert ("│ source │ Muggins rules with variations (seed file 004_8bc1e44f230f4fc0.txt) │ ../shared/seeds/, "
            "beside the repository │") in out
    assert load_ruleset("muggins").source == "seed 004_8bc1e44f230f4fc0 (Muggins rules with variations)"


# --- seed 000: Lisa B. All Fives ---------------------------------------------------------


def test_lisa_b_all_fives():
    rs = load_ruleset("lisa-b-all-fives")
    # "Each player starts with seven tiles."
    assert (rs.players, rs.hand_size, rs.boneyard, rs.draw_rule) == (2, 7, True, "until_playable")
    # "The spinner is the first double laid on the table by any player in each hand."
    assert rs.spinner == "first_double"
    assert rs.score_ends and rs.end_score_scale == "total"
    # "if double six is not pulled then go to the next lowest double"; none at all: remix
    assert rs.first_hand_opener == "highest_double_descending"
    assert rs.first_hand_no_double == "redeal"
    # "rounded to the nearest 5 either up or down"
    assert rs.domino_rounding == "nearest5"
    assert rs.domino_counts == "all_others"
    # "In the case of a locked game, double six starts the next hand."
    assert rs.after_lock_opener == "double_six"
    # "Players must play the hand pulled including four or more doubles"
    assert rs.redeal_doubles is None
    bogus = rs.penalties["bogus_play"]
    assert (bogus.infractor, bogus.opponents, bogus.redeal, bogus.ends_hand) == (-25, 0, True, True)
    assert bogus.next_leader == "not_infractor"
    assert rs.penalties["pass_with_play"].infractor == -50
    assert rs.penalties["draw_with_play"].infractor == -50


def test_lisa_b_plays_four_players_by_override():
    rs = load_ruleset("lisa-b-all-fives", players=4)
    assert rs.players == 4 and rs.reserve() == 0


# --- seed 001: BDC partnership -----------------------------------------------------------


def test_bdc_partnership():
    rs = load_ruleset("bdc-partnership")
    assert (rs.players, rs.partnership, rs.boneyard, rs.spinner) == (4, True, False, "none")
    assert rs.target == 200
    assert rs.first_hand_opener == "double_six" and rs.next_hand_opener == "hand_winner"
    # "he/she will lock against the player to his/her right"
    assert rs.lock_winner == "locker_vs_right"
    # "30 Bonus points are given to a team if any of the following occur"
    assert rs.capicua_bonus == rs.first_tile_unanswered_bonus == rs.all_pass_bonus == 30
    # "the last domino played to win the hand can be played on either side except a double": even ends
    # showing the same number (the schema default asks for different numbers)
    assert rs.capicua_ends == "either_side" and load_ruleset("jersey-partnership").capicua_ends == "different_numbers"
    # "If you have 5 doubles in your hand ... The hand is reshuffled"
    assert (rs.redeal_doubles, rs.redeal_doubles_mode) == (5, "mandatory")
    assert rs.penalty_points_can_win is False
    passed = rs.penalties["pass_with_play"]
    assert (passed.opponents, passed.infractor, passed.ends_hand, passed.opponents_lead_next) == (30, 0, True, True)
    assert rs.penalties["play_out_of_turn"].opponents == 30
    assert rs.penalties["exposed_tile"].opponents == 30
    assert rs.penalties["exposed_tile"].ends_hand is False
    looking = rs.penalties["looking_at_tiles"]
    assert looking.opponents_lead_next and looking.next_leader == "right_of_infractor"


# --- seed 002: NOVA block ------------------------------------------------------------------


def test_nova_block():
    rs = load_ruleset("nova-block")
    assert (rs.players, rs.hand_size, rs.partnership) == (4, 7, False)
    assert rs.boneyard is False and rs.draw_rule == "none"
    assert rs.spinner == "none" and rs.score_ends is False
    assert rs.standings == "cumulative_pips"
    assert rs.games_per_match == 5
    assert rs.hands_per_game == 1
    assert rs.time_limit_min == 5
    # "If the game does not naturally end by that point, then the player with the least ... wins."
    assert rs.hand_in_progress_finishes is False
    assert rs.penalties == {}


# --- seed 003: Jersey partnership ----------------------------------------------------------


def test_jersey_partnership():
    rs = load_ruleset("jersey-partnership")
    assert (rs.players, rs.partnership, rs.target) == (4, True, 200)
    # "(200) points or (40) minutes, whichever comes first"; a hand in progress is finished
    assert rs.time_limit_min == 40 and rs.hand_in_progress_finishes is True
    # "If a player picks 5 or more doubles has the option of a reshuffle."
    assert (rs.redeal_doubles, rs.redeal_doubles_mode) == (5, "option")
    # "In case of a tie the points won't count. The same player that started will start again."
    assert (rs.lock_winner, rs.lock_tie, rs.after_lock_tie_opener) == ("lowest_team", "no_score", "same_as_last")
    assert rs.exposed_tile_domino_scores is False
    assert (rs.play_time_limit_s, rs.locking_play_time_limit_s) == (20, 40)
    passed = rs.penalties["pass_with_play"]
    assert (passed.opponents, passed.infractor, passed.redeal) == (25, -25, True)
    assert rs.penalties["wrong_start"].infractor == -25 and rs.penalties["wrong_start"].redeal
    assert rs.penalties["play_out_of_turn"].infractor == -25
    assert rs.penalties["signalling"].infractor == -25
    assert rs.penalties["rearranging_tiles"].infractor == -25
    assert rs.penalties["slow_play"].infractor == -10
    assert rs.penalties["first_tile_orientation"].warnings == 1


# --- seed 004: Muggins ------------------------------------------------------------------------


def test_muggins():
    rs = load_ruleset("muggins")
    # "Players draw 5 tiles from the stock regardless of the number of players."
    assert (rs.players, rs.hand_size) == (2, 5)
    assert rs.extra_turn == "scoring_or_double"
    assert rs.no_domino_with_scoring_or_double is True
    # "When there are 2 players, the last two tiles in the boneyard may not be drawn."
    assert rs.reserve() == 2
    assert load_ruleset("muggins", players=3).reserve() == 1
    assert load_ruleset("muggins", players=4).reserve() == 1
    assert rs.lock_points == "difference_cascade"
    assert rs.domino_subtract_partner is True
    assert (rs.target, rs.target_checked, rs.target_tie_extra_hands) == (200, "immediately", "per_player")
    assert rs.end_score_scale == "total"


def test_muggins_variations_are_overrides():
    rs = load_ruleset("muggins", end_score_scale="fives_divided", target=250)
    assert (rs.end_score_scale, rs.target) == ("fives_divided", 250)


# --- published games ----------------------------------------------------------------------------


def test_published_games():
    fives = load_ruleset("all-fives")
    assert (fives.game, fives.players, fives.hand_size, fives.spinner) == ("draw", 2, 7, "first_double")
    assert fives.spinner_arms_open == "after_both_sides" and fives.domino_rounding == "nearest5"
    f3 = load_ruleset("fives-and-threes")
    assert (f3.end_score_scale, f3.spinner, f3.target, f3.target_exact) == ("fives_and_threes", "none", 61, True)
    assert f3.boneyard is False and f3.domino_fixed_points == 1
    block, draw = load_ruleset("block"), load_ruleset("draw")
    for rs in (block, draw):
        assert (rs.spinner, rs.score_ends, rs.domino_counts, rs.target) == ("none", False, "opponents", 100)
    assert block.boneyard is False and block.draw_rule == "none"
    assert draw.boneyard is True and draw.draw_rule == "until_playable"


# --- errors ---------------------------------------------------------------------------------------


def _write(tmp_path: Path, body: str) -> Path:
    path = tmp_path / "club.toml"
    path.write_text('name = "club"\ntitle = "Club"\nsource = "test"\n' + body, encoding="utf-8")
    return path


def test_unknown_key_names_the_key_and_the_file(tmp_path):
    path = _write(tmp_path, "spinners = 2\n")
    with pytest.raises(RulesetError) as err:
        load_ruleset(path)
    assert "spinners" in str(err.value) and str(path) in str(err.value)


def test_wrong_type_names_the_key_and_the_file(tmp_path):
    path = _write(tmp_path, 'hand_size = "seven"\n')
    with pytest.raises(RulesetError) as err:
        load_ruleset(path)
    assert "hand_size" in str(err.value) and str(path) in str(err.value)


def test_unknown_option_names_the_key_and_the_file(tmp_path):
    path = _write(tmp_path, 'spinner = "every_other_double"\n')
    with pytest.raises(RulesetError) as err:
        load_ruleset(path)
    assert "spinner" in str(err.value) and str(path) in str(err.value)


def test_bad_penalty_key_names_the_nested_key(tmp_path):
    path = _write(tmp_path, "[penalties.pass_with_play]\ninfractor = -25\nfine = 10\n")
    with pytest.raises(RulesetError) as err:
        load_ruleset(path)
    assert "penalties.pass_with_play.fine" in str(err.value) and str(path) in str(err.value)


def test_invalid_toml_names_the_file(tmp_path):
    path = _write(tmp_path, "target = \n")
    with pytest.raises(RulesetError, match=re.escape(str(path))):
        load_ruleset(path)


def test_unknown_preset_lists_the_presets():
    with pytest.raises(RulesetError) as err:
        load_ruleset("dominican-to-500")
    message = str(err.value)
    assert "dominican-to-500" in message
    for name in PRESETS:
        assert name in message


@pytest.mark.parametrize("override, message", [
    ({"target": -5}, "override 'target': Input should be greater than or equal to 1"),
    ({"target": 0}, "override 'target': Input should be greater than or equal to 1"),
    ({"games_per_match": 0}, "override 'games_per_match': Input should be greater than or equal to 1"),
    ({"capicua_bonus": -10}, "override 'capicua_bonus': Input should be greater than or equal to 0"),
    ({"play_time_limit_s": 0}, "override 'play_time_limit_s': Input should be greater than or equal to 1"),
    # helper-143: a target of 10^30 was stored and the overlay read "to 1e+30"
    ({"target": 10**30}, "override 'target': Input should be less than or equal to 10000"),
    ({"games_per_match": 10**9}, "override 'games_per_match': Input should be less than or equal to 1000"),
    ({"play_time_limit_s": 86400}, "override 'play_time_limit_s': Input should be less than or equal to 3600"),
    # helper-146: points of any size were taken (a penalty of -10^20 scored), and true was a target of 1
    ({"capicua_bonus": 10**21}, "override 'capicua_bonus': Input should be less than or equal to 1000"),
    ({"all_pass_bonus": 99999999999}, "override 'all_pass_bonus': Input should be less than or equal to 1000"),
    ({"domino_fixed_points": 10**12}, "override 'domino_fixed_points': Input should be less than or equal to 1000"),
    ({"penalties": {"bogus_play": {"infractor": -10**20}}},
     "override 'penalties.bogus_play.infractor': Input should be greater than or equal to -1000"),
    ({"target": True}, "override 'target': Input should be a valid integer"),
])
def test_overrides_out_of_range_are_refused_and_named_as_overrides(override, message):
    """A negative target was accepted (the game went on past it); the message blamed the preset's
    TOML file, by its install path, for the caller's value (helper-47)."""
    with pytest.raises(RulesetError) as exc:
        load_ruleset("muggins", **override)
    assert str(exc.value) == message


def test_a_bad_key_in_a_toml_file_names_the_file(tmp_path):
    bad = tmp_path / "house.toml"
    bad.write_text(re.sub(r"^target = .*$", "target = -1", (RULESET_DIR / "block.toml").read_text(), flags=re.M))
    with pytest.raises(RulesetError) as exc:
        load_ruleset(bad)
    assert str(exc.value) == f"{bad}: key 'target': Input should be greater than or equal to 1"


def test_a_path_without_suffix_is_read_as_a_file_not_looked_up_as_a_preset(tmp_path, monkeypatch):
    """helper-149: --rules /etc/passwd said "unknown rule set"; the file is read and named as what it is."""
    f = tmp_path / "myrules"
    f.write_text("not = [toml")
    with pytest.raises(RulesetError, match=f"^{re.escape(str(f))}: not a rule set file \\(not valid TOML"):
        load_ruleset(f)
    monkeypatch.chdir(tmp_path)
    with pytest.raises(RulesetError, match="^myrules: not a rule set file \\(not valid TOML"):  # a file here, named bare
        load_ruleset("myrules")
    with pytest.raises(RulesetError, match=f"^{re.escape(str(tmp_path / 'none'))}: no such rule set file"):
        load_ruleset(tmp_path / "none")
    with pytest.raises(RulesetError, match="^unknown rule set 'nope'; presets: "):
        load_ruleset("nope")
    (tmp_path / "block").write_text("x = [")  # a file named like a preset: the preset is meant
    assert load_ruleset("block") == load_ruleset(RULESET_DIR / "block.toml")


def test_only_a_regular_file_of_sane_size_is_read_and_a_dot_slash_path_is_a_file(tmp_path, monkeypatch):
    """helper-150: --rules /dev/zero read until the memory ran out (exit 137); --rules ./all-fives played
    the preset (Path drops the "./"); --rules "" said ".: cannot read: Is a directory"."""
    with pytest.raises(RulesetError, match="^/dev/zero is not a regular file"):
        load_ruleset("/dev/zero")
    with pytest.raises(RulesetError, match=f"^{re.escape(str(tmp_path))} is a folder, not a rule set file$"):
        load_ruleset(tmp_path)
    big = tmp_path / "big.toml"
    big.write_text("# " + "x" * MAX_RULESET_BYTES + "\n")
    with pytest.raises(RulesetError, match=f"is {big.stat().st_size} bytes: a rule set file is at most"):
        load_ruleset(big)
    monkeypatch.chdir(tmp_path)
    with pytest.raises(RulesetError, match="^./all-fives: no such rule set file$"):
        load_ruleset("./all-fives")
    (tmp_path / "all-fives").write_text((RULESET_DIR / "block.toml").read_text())
    assert load_ruleset("./all-fives") == load_ruleset("block")  # the file here, not the preset
    (tmp_path / "z").symlink_to("/dev/zero")  # a bare name of something here is read as that, not a preset
    with pytest.raises(RulesetError, match="^z is not a regular file"):
        load_ruleset("z")
    for empty in ("", "  "):
        with pytest.raises(RulesetError, match="^the rule set is empty: name a preset"):
            load_ruleset(empty)


def test_presets_are_found_by_their_fields():
    """The rows players, hand_size and boneyard of docs/rules.md's table: muggins alone deals 5; the 4-seat
    presets have no boneyard; none with a boneyard seats 4."""
    assert presets_with(players=2, hand_size=5) == ["muggins"]
    assert presets_with(players=4, boneyard=False) == ["bdc-partnership", "jersey-partnership", "nova-block"]
    assert presets_with(players=2, hand_size=7, boneyard=False) == ["block", "fives-and-threes"]
    assert presets_with(players=4, boneyard=True) == []
    assert presets_with() == PRESETS
    with pytest.raises(RulesetError, match="no rule set field 'seats'"):
        presets_with(seats=2)


def test_a_preset_name_is_read_whatever_its_case_spaces_and_underscores_or_a_near_one_is_suggested():
    """helper-174: ``All-Fives``, `` all-fives`` and ``all_fives`` were unknown rule sets, with no hint."""
    for typed in ("All-Fives", " all-fives ", "all_fives", "ALL FIVES"):
        assert load_ruleset(typed) == load_ruleset("all-fives"), typed
    with pytest.raises(RulesetError) as exc:
        load_ruleset("allfives")
    assert str(exc.value).startswith("unknown rule set 'allfives' (did you mean 'all-fives'?); presets: all-fives, ")


def test_a_file_that_is_no_rule_set_is_said_to_be_none_without_its_content(tmp_path):
    """helper-174: any file the caller named (``/etc/passwd``) had the TOML parser's account of it echoed; its
    line and column say where, nothing more."""
    f = tmp_path / "passwd"
    f.write_text("root:x:0:0:root:/root:/bin/bash\n")
    with pytest.raises(RulesetError) as exc:
        load_ruleset(f)
    assert str(exc.value) == f"{f}: not a rule set file (not valid TOML at line 1, column 5)"
