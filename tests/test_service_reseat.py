"""service.reseat: the seats of the camera's events judged again by the turn once the record is right."""

from __future__ import annotations

from engine.events import Draw, Pass, Play
from service.reseat import ReadSeats, reseated


def _play(seat: str, frame: int, by_turn: bool = False) -> Play:
    return Play(seat=seat, tile=[6, 0], end="W", frame=frame, seat_by_turn=by_turn)


def test_a_draw_goes_to_the_turn_and_a_seen_play_keeps_its_seat():
    assert reseated(Draw(seat="N", frame=6), "S") == "S"
    assert reseated(Draw(seat="S", frame=6), "S") is None  # the turn's already
    assert reseated(Draw(seat="N", frame=6), None) is None  # the turn not known
    assert reseated(_play("N", 6), "S") is None  # an arm or a hand area showed N
    assert reseated(_play("N", 6, by_turn=True), "S") == "S"
    assert reseated(Pass(seat="N", frame=6), "S") is None  # the camera's passes are not given by the turn


def test_the_drawers_play_follows_its_draw_when_the_turn_is_the_drawers():
    assert reseated(_play("N", 6), "S", drew=("N", "S")) == "S"
    assert reseated(_play("E", 6), "S", drew=("N", "S")) is None  # another seat's play than the drawer's
    assert reseated(_play("N", 6), "W", drew=("N", "S")) is None  # the turn is not the drawer's


def test_read_seats_ties_a_play_to_the_draw_of_its_own_read_only():
    seats = ReadSeats()
    assert [seats.seat(Draw(seat="N", frame=6), "S"), seats.seat(_play("N", 6), "S")] == ["S", "S"]
    seats = ReadSeats()  # the draw of read 6, the play of read 7: the play's seat is its own
    assert [seats.seat(Draw(seat="N", frame=6), "S"), seats.seat(_play("N", 7), "S")] == ["S", None]
    seats = ReadSeats()  # one play per draw: the second play of the read keeps its seat
    assert [seats.seat(Draw(seat="N", frame=6), "S"), seats.seat(_play("N", 6), "S"),
            seats.seat(_play("N", 6), "S")] == ["S", "S", None]
