"""A match: games of hands, folded from each hand's event log.

Game breaks come from the rule set, not from the input: a game ends when a side
reaches the target (``target_exact``: a hand that would overshoot scores nothing),
when ``target_checked = immediately`` and a side reaches it during play (seed 004),
or at the end of the hand in progress once ``time_limit_min`` has passed (seed 003:
"toda mano que haya empezado sera terminada"); with ``hand_in_progress_finishes = false`` the hand
stops at the limit (seed 002, ``engine.hand``). For block games ranked by pips
(``standings = cumulative_pips``, seed 002) every hand is a game and the match is
``games_per_match`` games, ranked by cumulative remaining pips.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from engine.hand import HandContext, HandState, replay
from engine.ruleset import Ruleset
from engine.tiles import Tile


@dataclass
class GameState:
    """One game: its hands and the running score per side after each hand."""

    number: int
    hands: list[HandState] = field(default_factory=list)
    scores: dict[str, int] = field(default_factory=dict)
    pips: dict[str, int] = field(default_factory=dict)  # cumulative remaining pips per seat
    winner: str | None = None
    ended_by: str | None = None  # target | time | hands | hand (one-hand games) | None while running
    start_t: float | None = None
    tie_hands_left: int | None = None  # extra hands still to play after a tie at the target
    tie_from: int | None = None  # the hand (1-based, in this game) in which that tie arose
    # where a game ended during play (target_checked = immediately): (hand in this game, 1-based;
    # position in that hand's outcomes); later events of that hand score nothing
    ended_at: tuple[int, int] | None = None


@dataclass
class MatchState:
    """All games so far and the standings across them."""

    rules: Ruleset
    games: list[GameState]
    over: bool

    def standings(self) -> list[tuple[str, int, int]]:
        """(side, games won, points or pips) sorted best first.

        ``points``: most games won, then most points; ``cumulative_pips``: fewest pips.
        """
        wins: dict[str, int] = {}
        totals: dict[str, int] = {}
        for g in self.games:
            src = g.pips if self.rules.standings == "cumulative_pips" else g.scores
            for side, v in src.items():
                totals[side] = totals.get(side, 0) + v
                wins.setdefault(side, 0)
            if g.winner:
                wins[g.winner] = wins.get(g.winner, 0) + 1
        if self.rules.standings == "cumulative_pips":
            return sorted(((s, wins[s], totals[s]) for s in totals), key=lambda r: (r[2], -r[1]))
        return sorted(((s, wins[s], totals[s]) for s in totals), key=lambda r: (-r[1], -r[2]))


def first_context(rules: Ruleset, number: int = 1) -> HandContext:
    """The context of a game's first hand (hand ``number`` of the match): no leader known, and the
    opener the rule set requires (``first_hand_opener``: the highest double, e.g. seed 001's 6-6), if any."""
    req = Tile(rules.set_max, rules.set_max) if rules.first_hand_opener != "any" else None
    return HandContext(leader=None, required_lead=req, number=number)


def _leading(scores: dict[str, int]) -> str | None:
    if not scores:
        return None
    best = max(scores.values())
    top = [s for s, v in scores.items() if v == best]
    return top[0] if len(top) == 1 else None


def _event_time(hand: HandState, last: bool) -> float | None:
    times = [o.event.t for o in hand.outcomes if getattr(o.event, "t", None) is not None]
    return (times[-1] if last else times[0]) if times else None


def next_context(rules: Ruleset, games: list[GameState], number: int) -> HandContext:
    """Who leads hand ``number`` (1-based over the match) and with what, given the games so far.

    A new game opens as the first (``first_hand_opener``), or with the previous game's
    winner leading any tile (``next_game_opener = previous_winner``, seed 002); within a
    game, the previous hand's result says (``next_hand_opener``, ``after_lock_opener``).
    """
    game = games[-1]
    if not game.hands:
        prev = games[-2].hands[-1].result if len(games) > 1 and games[-2].hands else None
        if rules.next_game_opener == "previous_winner" and prev is not None and prev.winner_seat:
            return HandContext(leader=prev.winner_seat, number=number)
        return first_context(rules, number)
    last = game.hands[-1]
    # warnings to the table (seed 003) and the game's clock (seed 002) carry over within the game
    leader, required = last.next_lead()
    return HandContext(leader, required, _leading(game.scores), number, warnings=dict(last.warnings),
                       game_start_t=game.start_t)


def replay_match(rules: Ruleset, hand_logs: list[list]) -> MatchState:
    """Fold every hand's log into games and standings.

    Raises:
        engine.hand.IllegalEvent: from any hand (message names the hand and event number).
    """
    games: list[GameState] = [GameState(1)]
    match_over = False
    for h, log in enumerate(hand_logs, start=1):
        if match_over:  # said how (helper-253: an umpire's 4-hand script to 50 gave this line alone, no table)
            raise ValueError(f"hand {h}: the match is already over: {_match_end(rules, games[-1])}")
        game = games[-1]
        if game.ended_by is None and game.hands and _begins_after_time(rules, game, log):
            # seed 003: "at the end of forty minutes the team that is ahead wins"; only a hand already
            # begun is finished (helper-122: a hand dealt after 40:00 was played and counted)
            game.winner, game.ended_by = _leading(game.scores), "time"
            if len(games) >= rules.games_per_match:
                raise ValueError(f"hand {h}: the match is already over (its time ran out before this hand began)")
            games.append(GameState(len(games) + 1))
            game = games[-1]
        try:
            hand = replay(rules, log, next_context(rules, games, h))
        except ValueError as exc:
            raise type(exc)(f"hand {h}, {exc}") from None
        game.hands.append(hand)
        if game.start_t is None:
            game.start_t = _event_time(hand, last=False)
        _add_hand(rules, game, hand)
        if game.ended_by is None and hand.result is not None:
            _check_time(rules, game, hand)
        if game.ended_by is not None:
            match_over = len(games) >= rules.games_per_match
            if not match_over:
                games.append(GameState(len(games) + 1))
    return MatchState(rules, games, match_over)


def _match_end(rules: Ruleset, game: GameState) -> str:
    """How the match's last ``game`` ended, for a hand scripted after it: ``"game 1 ended with its hand 2
    (target 50: S 55, N 15), the last of 1 game a match"``; a pips game's pips left, fewest first."""
    how = {"target": f"target {rules.target}", "time": "time", "hands": "its hands played"}.get(game.ended_by or "",
                                                                                               "one hand a game")
    if rules.standings == "cumulative_pips":  # seed 002: ranked by the pips left, fewest first
        scores = "pips " + ", ".join(f"{seat} {p}" for seat, p in sorted(game.pips.items(), key=lambda kv: kv[1]))
    else:
        scores = ", ".join(f"{side} {pts}" for side, pts in sorted(game.scores.items(), key=lambda kv: -kv[1]))
    games = f"{rules.games_per_match} game{'s' if rules.games_per_match != 1 else ''}"
    return (f"game {game.number} ended with its hand {len(game.hands)} ({how}" + (f": {scores}" if scores else "")
            + f"), the last of {games} a match")


def _add_hand(rules: Ruleset, game: GameState, hand: HandState) -> None:
    for side in hand.sides:
        game.scores.setdefault(side, 0)
    for seat in hand.order:
        game.pips.setdefault(seat, 0)
    if rules.standings == "cumulative_pips":
        # a redeal is the same game dealt again, not a game played (seed 002: "Each tournament will be
        # five games"; helper-119: a misdeal used one up)
        if hand.result is not None and hand.result.kind != "redeal":
            for seat, p in hand.result.remaining.items():
                game.pips[seat] += p
            # seed 002: a game stopped by the time limit is won by the fewest pips, as a blocked one
            game.winner, game.ended_by = hand.result.winner_side, "time" if hand.result.kind == "time" else "hand"
        return
    target = rules.target
    running = dict(game.scores)
    # a fold confirmed after the hand's end voided its domino or lock (seed 000 bogus play): that award
    # never reached the score, so it cannot have won the game in between
    voided = next((o.result for o in hand.outcomes if o.result is not None and o.result is not hand.result), None)
    for k, out in enumerate(hand.outcomes):
        points = dict(out.points)
        if voided is not None and out.result is not None:
            sign = -1 if out.result is voided else 1  # the award, then the fold that took it back
            for side, pts in voided.awards.items():
                points[side] = points.get(side, 0) + sign * pts
        for side, pts in points.items():
            if rules.target_exact and target is not None and running[side] + pts > target:
                continue  # exact target: a score that overshoots does not count
            running[side] += pts
        # fix (tests/test_engine_seeds.py, seed 004 target): the whole tally of the event is added before
        # the check ("more than one player has a score of 200 or more, the player with the highest score
        # wins"); during the extra hands after a tie the game ends only when they are played
        if rules.target_checked == "immediately" and target is not None and game.tie_hands_left is None:
            top = _top_at_target(running, target)
            if len(top) == 1:
                game.scores = running
                game.winner, game.ended_by = top[0], "target"
                game.ended_at = (len(game.hands), k)
                return
            if top:
                _start_tie(rules, game)
    game.scores = running
    if hand.result is None:
        return
    if target is not None:
        _check_target(rules, game, hand, target)
    played = sum(h.result is not None and h.result.kind != "redeal" for h in game.hands)
    if game.ended_by is None and rules.hands_per_game and played >= rules.hands_per_game:
        game.winner, game.ended_by = _leading(game.scores), "hands"


def _top_at_target(scores: dict[str, int], target: int) -> list[str]:
    """The sides with the highest score among those at or over the target (several: a tie)."""
    reached = {s: v for s, v in scores.items() if v >= target}
    if not reached:
        return []
    best = max(reached.values())
    return [s for s, v in reached.items() if v == best]


def _start_tie(rules: Ruleset, game: GameState) -> None:
    """Seed 004: "In case of a tie ... If 2 are playing, play two more hands 3 players, play three more
    hands 4 players, play four more hands" (``per_player``); ``one``: one more hand."""
    if game.tie_hands_left is None:
        game.tie_hands_left = rules.players if rules.target_tie_extra_hands == "per_player" else 1
        game.tie_from = len(game.hands)


def _check_target(rules: Ruleset, game: GameState, hand: HandState, target: int) -> None:
    """End the game at the target, unless the top is tied or the points came from penalties.

    After a tie the extra hands are played out (each hand after the one that tied counts); then
    the highest score wins, or a new tie plays the extra hands again.
    """
    if game.tie_hands_left is not None:
        if len(game.hands) > (game.tie_from or 0):
            game.tie_hands_left -= 1
        if game.tie_hands_left > 0:
            return
        game.tie_hands_left = game.tie_from = None  # the extra hands are played: decide now
    reached = {s: v for s, v in game.scores.items() if v >= target}
    if not rules.penalty_points_can_win:
        # seed 001: "You cannot win a match with a penalty": only a side that won this hand by play
        won = hand.result.winner_side if hand.result.kind in ("domino", "locked", "time") else None
        reached = {s: v for s, v in reached.items() if s == won}
    if not reached:
        return
    top = _top_at_target(reached, target)
    if len(top) > 1:  # seed 004: a tie at the target plays on
        _start_tie(rules, game)
        return
    game.winner, game.ended_by = top[0], "target"


def _begins_after_time(rules: Ruleset, game: GameState, log: list) -> bool:
    """Whether the hand of ``log`` begins (its first timed event) once the game's time limit has passed."""
    if rules.time_limit_min is None or game.start_t is None:
        return False
    first = next((ev.t for ev in log if getattr(ev, "t", None) is not None), None)
    return first is not None and first - game.start_t >= rules.time_limit_min * 60


def _check_time(rules: Ruleset, game: GameState, hand: HandState) -> None:
    if rules.time_limit_min is None or game.start_t is None:
        return
    end_t = _event_time(hand, last=True)
    if end_t is not None and end_t - game.start_t >= rules.time_limit_min * 60:
        game.winner, game.ended_by = _leading(game.scores), "time"
