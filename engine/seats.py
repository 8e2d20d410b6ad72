"""Seats, turn order and teams.

Seats are compass letters as seen from above the table with N at the top: N, E, S, W.
"Clockwise" (the seeds' "next player to the left or clockwise") is N -> E -> S -> W.
Partnerships sit opposite: N-S against E-W.

>>> seats_for(4, "clockwise")
['N', 'E', 'S', 'W']
>>> seats_for(2, "clockwise")
['N', 'S']
>>> team_of("E", partnership=True)
'EW'
"""

from __future__ import annotations

SEATS = ("N", "E", "S", "W")


class SeatError(ValueError):
    """A seat name that is not N, E, S or W, or not playing in this hand."""


def seats_for(players: int, direction: str = "clockwise") -> list[str]:
    """Playing seats in turn order for 2..4 players (2 players sit N and S)."""
    if players == 2:
        base = ["N", "S"]
    elif players == 3:
        base = ["N", "E", "S"]
    elif players == 4:
        base = list(SEATS)
    else:
        raise SeatError(f"players must be 2..4, got {players}")
    if direction == "counterclockwise":
        base = [base[0]] + base[1:][::-1]
    return base


def team_of(seat: str, partnership: bool) -> str:
    """The side a seat scores for: 'NS'/'EW' in partnerships, else the seat itself."""
    if seat not in SEATS:
        raise SeatError(f"unknown seat {seat!r}; seats are N, E, S, W")
    if not partnership:
        return seat
    return "NS" if seat in ("N", "S") else "EW"


def partner_of(seat: str) -> str:
    """The seat opposite (the partner in a partnership game)."""
    return SEATS[(SEATS.index(seat) + 2) % 4]


def next_seat(order: list[str], seat: str, step: int = 1) -> str:
    """The seat ``step`` turns after ``seat`` in ``order``."""
    return order[(order.index(seat) + step) % len(order)]


def right_of(order: list[str], seat: str) -> str:
    """The playing seat to a seat's right, by where they sit (not by turn order).

    Seen from above with N at the top, a player at N faces south and has W on the right;
    so the right of N, E, S, W is W, N, E, S. In clockwise play that is the player who
    plays just before; in counterclockwise play, the one who plays just after.

    >>> right_of(["N", "E", "S", "W"], "N"), right_of(["N", "W", "S", "E"], "N")
    ('W', 'W')
    """
    i = SEATS.index(seat)
    for step in range(1, 4):
        cand = SEATS[(i - step) % 4]
        if cand in order:
            return cand
    raise SeatError(f"{seat} has nobody to the right")
