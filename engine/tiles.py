"""Tiles of a double-N domino set.

A :class:`Tile` is an ordered pair of halves. Its *identity* (which physical tile
it is) ignores the order: ``[6|4]`` and ``[4|6]`` are the same tile. On the table
the order matters: in a play, the first half is the one touching the open end.

>>> Tile.parse("6-4")
[6|4]
>>> Tile(6, 4).key == Tile(4, 6).key
True
>>> len(full_set(6)), len(full_set(9)), len(full_set(12))
(28, 55, 91)
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_TILE_RE = re.compile(r"^\s*\[?\s*(\d{1,2})\s*[-|:/x,]\s*(\d{1,2})\s*\]?\s*$", re.ASCII)


class TileError(ValueError):
    """A tile that cannot be parsed or is not in the set."""


@dataclass(frozen=True, slots=True)
class Tile:
    """One domino tile: two halves ``a`` and ``b`` (pips, ints >= 0), in a given order."""

    a: int
    b: int

    @classmethod
    def parse(cls, text: "str | Tile | list[int] | tuple[int, int]", set_max: int = 12) -> "Tile":
        """Parse ``"6-4"``, ``"[6|4]"``, ``"6:4"``, ``[6, 4]`` into a Tile (order kept).

        Raises:
            TileError: not two pip values, or a value above ``set_max``.
        """
        if isinstance(text, Tile):
            tile = text
        elif isinstance(text, (list, tuple)) and len(text) == 2:
            if any(isinstance(v, bool) or isinstance(v, float) and not v.is_integer() for v in text):
                raise TileError(f"not a tile: {list(text)!r} (two pip counts, e.g. [6, 4])")  # [true, false] was 1-0
            try:  # "6" counts as 6, as it always did; "x" is no pip count
                vals = [int(v) for v in text]
            except (TypeError, ValueError, OverflowError):
                raise TileError(f"not a tile: {list(text)!r} (two pip counts, e.g. [6, 4])") from None
            if any(abs(v) > 1000 for v in vals):  # helper-152: [1e308, 6] was told back as a 309-digit tile
                raise TileError(f"not a tile: a pip count of {float(max(vals, key=abs)):g} "
                                f"(a set runs 0 to {set_max})")
            tile = cls(*vals)
        else:
            m = _TILE_RE.match(str(text))
            if not m:  # a list of another length gets the list form's hint (helper-124: [6, 5, 1] was told "6-4")
                raise TileError(f"not a tile: {text!r} " + ("(two pip counts, e.g. [6, 4])" if isinstance(text, (list, tuple))
                                                            else "(write it as two pip counts, e.g. 6-4)"))
            tile = cls(int(m.group(1)), int(m.group(2)))
        if tile.a < 0 or tile.b < 0:  # said apart: "not in a double-12 set" read as a set mix-up
            raise TileError(f"tile {tile}: pips cannot be negative")
        if tile.a > set_max or tile.b > set_max:
            raise TileError(f"tile {tile} is not in a double-{set_max} set")
        return tile

    @property
    def key(self) -> tuple[int, int]:
        """Identity of the tile regardless of order: (high, low)."""
        return (self.a, self.b) if self.a >= self.b else (self.b, self.a)

    @property
    def is_double(self) -> bool:
        return self.a == self.b

    @property
    def pips(self) -> int:
        """Total pips on the tile (its count in a hand)."""
        return self.a + self.b

    def has(self, value: int) -> bool:
        return self.a == value or self.b == value

    def other(self, value: int) -> int:
        """The half opposite to ``value``.

        Raises:
            TileError: ``value`` is on neither half.
        """
        if self.a == value:
            return self.b
        if self.b == value:
            return self.a
        raise TileError(f"{self} has no {value}")

    def flipped(self) -> "Tile":
        return Tile(self.b, self.a)

    def canonical(self) -> "Tile":
        return Tile(*self.key)

    def __str__(self) -> str:
        return f"{self.a}-{self.b}"

    def __repr__(self) -> str:
        return f"[{self.a}|{self.b}]"


def full_set(set_max: int = 6) -> list[Tile]:
    """Every tile of a double-``set_max`` set, once, canonical order ([0|0], [1|0], [1|1], ...)."""
    return [Tile(hi, lo) for hi in range(set_max + 1) for lo in range(hi + 1)]


def hand_pips(tiles: "list[Tile] | tuple[Tile, ...]") -> int:
    """Sum of pips of a hand."""
    return sum(t.pips for t in tiles)
