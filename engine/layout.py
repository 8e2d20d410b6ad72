"""The layout on the table: the line of play, its arms, the spinner and the open ends.

Arms are named from the lead tile (the first tile of the hand) as seen from above:
``W`` and ``E`` are the two directions of the line of play; a spinner opens two
perpendicular arms ``N`` and ``S`` (further spinners, when every double spins,
open ``N2``/``S2``, ``N3``/``S3``, ...). Each arm is a chain of tiles laid
[inner half | outer half]; its open end is the outer half of its last tile, or the
lead's half on that side while the arm is empty. Doubles are laid crosswise: their
outer half equals the inner one, and at an arm end they may count both halves.

Spinner rules come from the rule set (``spinner``, ``spinner_arms_open``; see
``docs/rules.md``): All Fives (pagat, seed 000) makes the first double the spinner,
playable on four sides; most texts open its perpendicular arms only once both of
its long sides are covered.

>>> lay = Layout(set_max=6, spinner="first_double", spinner_arms_open="after_both_sides")
>>> lay.place(Tile(5, 5), None).end
'lead'
>>> lay.open_ends()
{'W': 5, 'E': 5}
>>> lay.ends_count()
10
"""

from __future__ import annotations

from dataclasses import dataclass, field

from engine.tiles import Tile


class LayoutError(ValueError):
    """A placement that cannot happen on a real table: unknown end, tile already on the table."""


@dataclass
class Arm:
    """One arm of the layout: tiles laid outward from its origin (the lead or a spinner)."""

    name: str
    origin_value: int
    origin_double: bool
    tiles: list[Tile] = field(default_factory=list)  # each [inner|outer]
    opened_by: int | None = None  # index in ``Layout.spinners`` for perpendicular arms

    @property
    def open_value(self) -> int:
        return self.tiles[-1].b if self.tiles else self.origin_value


@dataclass(frozen=True)
class Placement:
    """Where a tile went: ``tile`` oriented [touching|outer], the end and the value it met."""

    tile: Tile
    end: str
    end_value: int | None  # None for the lead
    matched: bool
    closed_end: bool  # played on a spinner arm that was not open yet
    became_spinner: bool


@dataclass
class _Spinner:
    tile: Tile
    arm: str | None  # None: the lead is the spinner
    position: int  # index in the arm's tiles (-1 for the lead)


class Layout:
    """The board graph of one hand. Mutated only through :meth:`place`.

    Args:
        set_max: highest pip value of the set (6, 9, 12); used for lock detection.
        spinner: ``first_double`` | ``every_double`` | ``none``.
        spinner_arms_open: ``immediately`` | ``after_both_sides``.
        double_at_end_counts / lone_spinner_counts: ``both`` | ``one`` (see :meth:`ends_count`).
    """

    def __init__(
        self,
        set_max: int = 6,
        spinner: str = "first_double",
        spinner_arms_open: str = "after_both_sides",
        double_at_end_counts: str = "both",
        lone_spinner_counts: str = "both",
    ) -> None:
        self.set_max = set_max
        self.spinner_rule = spinner
        self.arms_open_rule = spinner_arms_open
        self.double_at_end_counts = double_at_end_counts
        self.lone_spinner_counts = lone_spinner_counts
        self.lead: Tile | None = None
        self.arms: dict[str, Arm] = {}
        self.spinners: list[_Spinner] = []
        self.on_table: set[tuple[int, int]] = set()

    def empty_like(self) -> Layout:
        """A new, empty layout under the same rules (to lay a hand's plays again)."""
        return Layout(self.set_max, self.spinner_rule, self.arms_open_rule, self.double_at_end_counts,
                      self.lone_spinner_counts)

    # ---- queries ---------------------------------------------------------------
    def _spinner_sides_covered(self, sp: _Spinner) -> bool:
        if sp.arm is None:
            return bool(self.arms["W"].tiles) and bool(self.arms["E"].tiles)
        return len(self.arms[sp.arm].tiles) > sp.position + 1

    def _arm_is_open(self, arm: Arm) -> bool:
        if arm.opened_by is None:
            return True
        return self.arms_open_rule == "immediately" or self._spinner_sides_covered(self.spinners[arm.opened_by])

    def open_ends(self) -> dict[str, int]:
        """Open ends a tile may be played on: arm name -> pip value (empty before the lead)."""
        return {name: arm.open_value for name, arm in self.arms.items() if self._arm_is_open(arm)}

    def ends_count(self) -> int:
        """Sum of the open ends as counted for scoring (pips, before the rule set's scale).

        A double at the end of an arm counts both halves (``double_at_end_counts = both``);
        a lone lead double counts once (both halves or one, ``lone_spinner_counts``, or
        ``double_at_end_counts`` when it is not a spinner); perpendicular arms count once
        open and started; a spinner whose long sides are both covered no longer counts.
        Only the ends :meth:`open_ends` lists count: a tile laid on a spinner arm not open
        yet (``Placement.closed_end``) is no open end, so it counts only once the arm opens.
        """
        if self.lead is None:
            return 0
        dbl = 2 if self.double_at_end_counts == "both" else 1
        # helper-225: a closed arm's tile was counted while open_ends left it out (6-6 lead, 6-5 on the
        # closed N arm, then 6-3 on E scored 20 with ends W:6 E:3 shown, instead of 15)
        arms = [arm for arm in self.arms.values() if self._arm_is_open(arm)]
        if not any(arm.tiles for arm in arms):
            if not self.lead.is_double:
                return self.lead.pips
            lone = self.lone_spinner_counts if self.spinners else self.double_at_end_counts
            return self.lead.a * (2 if lone == "both" else 1)
        total = 0
        for arm in arms:
            if arm.tiles:
                last = arm.tiles[-1]
                total += last.b * (dbl if last.is_double else 1)
            elif arm.opened_by is None:  # an uncovered side of the lead
                if arm.name == "E" and arm.origin_double and not self.arms["W"].tiles:
                    # fix (tests/test_layout.py): a lead double with both long sides uncovered while a
                    # spinner arm is started (spinner_arms_open = immediately) is one crosswise tile:
                    # count it once (W already did), not once per side
                    continue
                total += arm.origin_value * (dbl if arm.origin_double else 1)
        return total

    def is_locked(self) -> bool:
        """True when no tile of the set can be played: every tile holding an open-end number is on the table.

        Works from the board alone (hands unknown), as the seeds' "locked game" (tranque).
        """
        if self.lead is None:
            return False
        for value in set(self.open_ends().values()):
            if any((max(value, o), min(value, o)) not in self.on_table for o in range(self.set_max + 1)):
                return False
        return True

    def can_play(self, tile: Tile) -> list[str]:
        """The open ends ``tile`` fits (any end when the layout is empty: ``['lead']``)."""
        if self.lead is None:
            return ["lead"]
        return [name for name, v in self.open_ends().items() if tile.has(v)]

    def chains(self) -> dict[str, list[Tile]]:
        """Each arm's tiles from the origin outward, oriented [inner|outer] (a copy)."""
        return {name: list(arm.tiles) for name, arm in self.arms.items()}

    # ---- the one mutation ------------------------------------------------------
    def place(self, tile: Tile, end: str | None, oriented: bool = False) -> Placement:
        """Put ``tile`` on the table at open end ``end`` and return where it went.

        The first tile is the lead (``end`` ignored); its first half faces W. Otherwise the
        tile is turned so that a matching half touches the end, unless ``oriented`` says
        the given order was seen; a tile that does not match is still placed (a
        mismatched end, the seeds' "bogus play") and ``Placement.matched`` is False.

        Raises:
            LayoutError: the tile is already on the table, or ``end`` names no arm.
        """
        if tile.key in self.on_table:
            raise LayoutError(f"tile {tile} is already on the table")
        if self.lead is None:
            self.lead = tile
            self.on_table.add(tile.key)
            self.arms["W"] = Arm("W", tile.a, tile.is_double)
            self.arms["E"] = Arm("E", tile.b, tile.is_double)
            became = tile.is_double and self.spinner_rule != "none"
            if became:
                self._add_spinner(_Spinner(tile, None, -1))
            return Placement(tile, "lead", None, True, False, became)
        if end not in self.arms:
            opts = ", ".join(self.open_ends())
            if end is None:  # e.g. a second tile put down as if it led
                raise LayoutError(f"a play after the lead needs an end (open ends: {opts})")
            raise LayoutError(f"no end {end!r} on the table (open ends: {opts})")
        arm = self.arms[end]
        value = arm.open_value
        closed = not self._arm_is_open(arm)
        if not oriented and tile.a != value and tile.b == value:
            tile = tile.flipped()
        arm.tiles.append(tile)
        self.on_table.add(tile.key)
        became = tile.is_double and (
            self.spinner_rule == "every_double" or (self.spinner_rule == "first_double" and not self.spinners)
        )
        if became:
            self._add_spinner(_Spinner(tile, end, len(arm.tiles) - 1))
        return Placement(tile, end, value, tile.a == value, closed, became)

    def _add_spinner(self, sp: _Spinner) -> None:
        k = len(self.spinners)
        self.spinners.append(sp)
        suffix = "" if k == 0 else str(k + 1)
        for side in ("N", "S"):
            self.arms[side + suffix] = Arm(side + suffix, sp.tile.a, True, opened_by=k)


def rebuild(plays: list[tuple[Tile, str | None, bool]], **rules: str | int) -> tuple[Layout, list[Placement]]:
    """A fresh layout with ``plays`` (tile, end, oriented) placed in order; used after a take-back."""
    lay = Layout(**rules)  # type: ignore[arg-type]
    return lay, [lay.place(t, e, o) for t, e, o in plays]
