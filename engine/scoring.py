"""Scoring arithmetic of the rule sets: the ends count scale, rounding, end-of-hand awards.

Sources: All Fives (pagat; seed 000 "all sides add up to a denomination of five (5)
being the lowest, and thirty-five (35) being the highest"), Fives and Threes (pagat:
15 scores 5 + 3 = 8), Muggins (seed 004: "one point every time ... a multiple of 5").

>>> play_points(15, "total"), play_points(15, "fives_divided"), play_points(15, "fives_and_threes")
(15, 3, 8)
>>> [round_points(n, "nearest5") for n in (22, 23, 52, 53, 2, 3, 7)]
[20, 25, 50, 55, 0, 5, 5]
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.words import plural


def play_points(ends_total: int, scale: str) -> int:
    """Points a play scores from the sum of the open ends (pips).

    ``total``: the sum when it is a positive multiple of 5; ``fives_divided``: one point
    per 5; ``fives_and_threes``: sum/5 when divisible by 5 plus sum/3 when divisible by 3.

    Raises:
        ValueError: unknown scale.
    """
    if ends_total <= 0:
        return 0
    if scale == "total":
        return ends_total if ends_total % 5 == 0 else 0
    if scale == "fives_divided":
        return ends_total // 5 if ends_total % 5 == 0 else 0
    if scale == "fives_and_threes":
        return (ends_total // 5 if ends_total % 5 == 0 else 0) + (ends_total // 3 if ends_total % 3 == 0 else 0)
    raise ValueError(f"unknown end_score_scale {scale!r}")


def round_points(pips: int, rounding: str) -> int:
    """Round a pip count awarded at the end of a hand.

    ``nearest5``: 1-2 down, 3-4 up (seed 000: 22 -> 20, 23 -> 25, 52 -> 50, 53 -> 55;
    seed 004: 1 or 2 pips worth nothing, 3..7 worth 5); ``down5``; ``up5``; ``exact``.
    Negative inputs round symmetrically.
    """
    if pips < 0:
        return -round_points(-pips, rounding)
    if rounding == "exact":
        return pips
    if rounding == "down5":
        return pips - pips % 5
    if rounding == "up5":
        return pips + (-pips) % 5
    if rounding == "nearest5":
        return 5 * ((pips + 2) // 5)
    raise ValueError(f"unknown rounding {rounding!r}")


@dataclass(frozen=True)
class LockResult:
    """Outcome of a locked hand: points per side, the winning side (None on a tie) and why."""

    awards: dict[str, int]
    winner: str | None
    tie: bool
    note: str


def lock_awards(
    pips_by_seat: dict[str, int],
    side_of: dict[str, str],
    *,
    winner_rule: str,
    points_rule: str,
    tie_rule: str,
    rounding: str,
    locker: str | None = None,
    right_of_locker: str | None = None,
    leading_side: str | None = None,
) -> LockResult:
    """Points awarded in a locked game (tranque) from each seat's remaining pips.

    Args:
        pips_by_seat: remaining pips per playing seat.
        side_of: seat -> scoring side (team in partnerships, else the seat).
        winner_rule: ``lowest_individual`` | ``lowest_team`` | ``locker_vs_right`` (seed 001:
            "he/she will lock against the player to his/her right. The lowest score wins").
        points_rule: ``opponents_pips`` | ``all_pips`` | ``difference`` | ``difference_cascade``
            (seed 004: "the player with the lowest number of pips scores the difference ...
            then the player with the next-lowest ... and so on") | ``none``.
        tie_rule: ``no_score`` | ``split`` | ``split_if_three`` (seed 004's variation where the lowest
            hand takes the opponents' pips: split when three play, no score when two or four do) |
            ``locker`` | ``leading_team``. Not used by ``difference_cascade``, where tied hands score
            0 against each other.
    """
    sides = sorted(set(side_of[s] for s in pips_by_seat))
    side_pips = {side: sum(p for s, p in pips_by_seat.items() if side_of[s] == side) for side in sides}
    if winner_rule == "locker_vs_right":
        if locker is None or right_of_locker is None:
            raise ValueError("locker_vs_right needs the locker and the player to the right")
        duel = {locker: pips_by_seat[locker], right_of_locker: pips_by_seat[right_of_locker]}
        contenders = {side_of[s]: p for s, p in duel.items()}
    elif winner_rule == "lowest_team":
        contenders = dict(side_pips)
    else:  # lowest individual hand; in a partnership it scores for that seat's team
        contenders = {}
        for s, p in pips_by_seat.items():
            contenders[side_of[s]] = min(contenders.get(side_of[s], p), p)
    low = min(contenders.values())
    lowest = [side for side, p in contenders.items() if p == low]
    awards = {side: 0 for side in sides}

    def won(side: str) -> int:
        others = sum(p for sd, p in side_pips.items() if sd != side)
        if points_rule == "opponents_pips":
            return others
        if points_rule == "all_pips":
            return sum(side_pips.values())
        if points_rule == "difference":
            return sum(p - side_pips[side] for sd, p in side_pips.items() if sd != side)
        if points_rule == "none":
            return 0
        raise ValueError(points_rule)

    if points_rule == "difference_cascade":
        # player by player against each opponent holding more, for his team when partners play (seed 004:
        # "Players must play individually, but a common score is kept for partners"; helper-119: team
        # totals were compared, and the lowest player's team scored nothing). Tied lowest hands score 0
        # against each other and their difference to every hand above: the seed's tie sentences ("no
        # score", "split evenly") follow its variation where the lowest hand takes the opponents' total
        # (helper-153: a four-player tie gave nobody anything)
        for seat, p in pips_by_seat.items():
            gap = sum(q - p for o, q in pips_by_seat.items() if side_of[o] != side_of[seat] and q > p)
            awards[side_of[seat]] += round_points(gap, rounding)
        if len(lowest) > 1:
            return LockResult(awards, None, True, f"tie at {low} pips: each scores the difference to the hands above")
        return LockResult(awards, lowest[0], False, f"lowest {low} pip{'' if low == 1 else 's'}")
    if len(lowest) > 1:
        split = tie_rule == "split" or tie_rule == "split_if_three" and len(pips_by_seat) == 3
        if split and points_rule == "opponents_pips":
            rest = sum(p for sd, p in side_pips.items() if sd not in lowest)
            for side in lowest:
                awards[side] = round_points(rest // len(lowest), rounding)
            return LockResult(awards, None, True, f"tie at {low} pips: opponents' {rest} split")
        chosen = None
        if tie_rule == "locker" and locker is not None:
            chosen = side_of[locker]
        elif tie_rule == "leading_team" and leading_side is not None:
            chosen = leading_side
        if chosen is None or chosen not in lowest:
            return LockResult(awards, None, True, f"tie at {low} pips: no score")
        lowest = [chosen]
    winner = lowest[0]
    awards[winner] = round_points(won(winner), rounding)
    note = f"lowest {low} pip{'' if low == 1 else 's'}"
    basis = _lock_basis(winner, side_pips, points_rule)
    if basis:
        rounded = f", rounded to {awards[winner]}" if awards[winner] != won(winner) else ""
        note += f"; {basis}{rounded}"
    return LockResult(awards, winner, False, note)


def _lock_basis(winner: str, side_pips: dict[str, int], points_rule: str) -> str:
    """What the lock's ``winner`` side scores, in pips before rounding, as a domino's note says the pips left
    (helper-253: ``locked S (lowest 6 pips)`` beside ``S+10`` did not say it was N's 8 pips, rounded):
    ``N's 8 pips``, ``8 pips in the other hands (E 3, W 5)``, ``all 14 pips left``, ``N's 8 pips less S's 6``;
    "" for ``none``. ``side_pips``: pips left per scoring side."""
    others = {side: p for side, p in side_pips.items() if side != winner}
    total = sum(others.values())
    if points_rule == "none" or not others:
        return ""
    if points_rule == "all_pips":
        return f"all {plural(total + side_pips[winner], 'pip')} left"
    if len(others) == 1:
        (side, pips), = others.items()
        held = f"{side}'s {plural(pips, 'pip')}"
    else:
        held = f"{plural(total, 'pip')} in the other hands ({', '.join(f'{s} {p}' for s, p in others.items())})"
    if points_rule == "difference":
        each = "" if len(others) == 1 else " each"
        return f"{held} less {winner}'s {side_pips[winner]}{each}"
    return held
