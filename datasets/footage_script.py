"""The script of a whole-hand video: what is on the table and where the arm is, frame by frame.

:class:`Script` turns engine events into frames without rendering anything: each frame
is a :class:`Frame` (a table *version*, the arm, the carried tile). A version is a
snapshot of every tile at rest (line of play, hands, boneyard) and changes only when a
tile leaves a hand or the boneyard, comes to rest, or is bumped; the renderer draws
each version once (``docs/footage.md``).

Table millimetres, x right, y down, origin at the corner of marker 0 (``docs/calibration.md``);
seats N, E, S, W sit at the edges y=0, x=W, y=H, x=0. Times are seconds, frames are
indices at the video's fps.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from datasets.footage_boneyard import clear_of_hands, interior_block, keep_out
from datasets.render.layouts import TilePlacement
from datasets.render.line_of_play import Box, Planner
from datasets.render.motion import Arm, arm_polygon, ease, edge_point, lerp_pose
from datasets.render.tiles import TILE_LONG_MM, TILE_SHORT_MM

HAND_INSET_MM = 10.0  # gap between a table edge and the tiles of the hand in front of it
SLOT_STEP_MM = TILE_SHORT_MM + 4.0  # spacing of tiles in a hand row
PLAY_INSET_MM = 75.0  # the line of play keeps this far from the edges when it can
HARD_INSET_MM = 62.0  # ... and never nearer than this unless the table is full
LIFT_MM = 12.0  # highest point of a carried tile above the table


def tile_id(a: int, b: int) -> str:
    """A tile's identity whatever its orientation: ``"6-4"`` (high first)."""
    return f"{max(a, b)}-{min(a, b)}"


@dataclass(frozen=True)
class Frame:
    """One video frame: table ``version``, the ``arm`` (or None), the carried tile (or None)."""

    version: int
    arm: Arm | None = None
    held: TilePlacement | None = None
    lift_mm: float = 0.0
    held_id: str | None = None


@dataclass
class Timing:
    """Durations of the motions, seconds (jittered per event by the script's generator)."""

    think: tuple[float, float] = (0.6, 1.5)
    reach: float = 0.45
    carry: float = 0.7
    settle: float = 0.3
    retreat: float = 0.45
    knock: float = 0.35
    first_still: float = 1.0
    last_still: float = 2.0


@dataclass
class Script:
    """Frames and ground truth of one video, built event by event (no rendering).

    Args:
        table_mm: (W, H) table size, mm.
        fps: frames per second.
        rng: generator for timings, bumps and arm paths.
        arm_colours: seat -> BGR skin colour.
    """

    table_mm: tuple[float, float]
    fps: float
    rng: np.random.Generator
    arm_colours: dict[str, tuple[int, int, int]]
    timing: Timing = field(default_factory=Timing)
    frames: list[Frame] = field(default_factory=list)
    versions: list[dict[str, tuple[TilePlacement, str]]] = field(default_factory=list)
    tiles: dict[str, tuple[TilePlacement, str]] = field(default_factory=dict)
    rest_frames: list[int] = field(default_factory=list)
    bumps: list[dict] = field(default_factory=list)
    planner: Planner | None = None
    line_ids: list[str] = field(default_factory=list)
    slots: dict[str, dict[int, str]] = field(default_factory=dict)
    hand_size: int = 7

    # ---- table state ---------------------------------------------------------------
    def commit(self) -> None:
        """Snapshot the tiles at rest as a new table version."""
        self.versions.append(dict(self.tiles))

    @property
    def version(self) -> int:
        return len(self.versions) - 1

    def _n(self, seconds: float) -> int:
        return max(1, int(round(seconds * self.fps)))

    def hold(self, seconds: float, arm: Arm | None = None) -> None:
        """Still frames (the arm, if any, still too)."""
        self.frames += [Frame(self.version, arm)] * self._n(seconds)

    def _jitter(self, seconds: float) -> float:
        return seconds * float(self.rng.uniform(0.8, 1.25))

    # ---- geometry ------------------------------------------------------------------
    def slot_pose(self, seat: str, slot: int) -> TilePlacement:
        """Face-down pose of slot ``slot`` of ``seat``'s hand row (long axis toward the seat)."""
        right = (slot - (self.hand_size - 1) / 2) * SLOT_STEP_MM
        c = edge_point(seat, self.table_mm, out_mm=-(HAND_INSET_MM + TILE_LONG_MM / 2), right_mm=right)
        ang = {"N": -90.0, "E": 0.0, "S": 90.0, "W": 180.0}[seat]
        return TilePlacement(float(c[0]), float(c[1]), ang, 0, 0, False)

    def _free_slot(self, seat: str) -> int:
        taken = self.slots[seat]
        order = list(range(self.hand_size))
        for k in range(1, 40):
            order += [self.hand_size - 1 + k, -k]
        return next(s for s in order if s not in taken)

    def boneyard_poses(self, n: int, seats: list[str]) -> tuple[list[TilePlacement], list[Box]]:
        """Face-down poses for ``n`` undealt tiles, clear of the playing ``seats``' hand areas
        (:func:`datasets.footage_boneyard.clear_of_hands`), and the boxes the line of play keeps out
        of. The first of these that is clear:

        * a column along the W edge when W is empty, unfenced as it always was (the shipped
          presets' footage must not change);
        * half of the tiles along the W edge and half along the E edge, when both are empty;
        * a block in the middle of the table (:func:`datasets.footage_boneyard.interior_block`).

        The last two are fenced off (:func:`datasets.footage_boneyard.keep_out`).

        Raises:
            ValueError: the table has no room for them.
        """
        if "W" not in seats:
            column = self._edge_column(n)
            if clear_of_hands(column, seats, self.table_mm):
                return column, []
            if "E" not in seats:
                split = self._edge_column((n + 1) // 2) + self._edge_column(n // 2, east=True)
                if clear_of_hands(split, seats, self.table_mm):
                    return split, keep_out(split)
        block = interior_block(n, self.table_mm)
        return block, keep_out(block)

    def _edge_column(self, n: int, east: bool = False) -> list[TilePlacement]:
        """``n`` face-down poses in columns along the W (or E) edge, centred on its middle."""
        w, h = self.table_mm
        step = SLOT_STEP_MM
        rows = max(1, int((h - 2 * 70) // step))
        out = []
        for j in range(n):
            col, row = divmod(j, rows)
            k = min(rows, n - col * rows)
            y = h / 2 + (row - (k - 1) / 2) * step
            x = HAND_INSET_MM + TILE_LONG_MM / 2 + col * (TILE_LONG_MM + 6)
            out.append(TilePlacement(w - x if east else x, y, 0.0, 0, 0, False))
        return out

    # ---- a new hand ----------------------------------------------------------------
    def deal(self, hands: dict[str, list[tuple[int, int]]], undealt: list[tuple[int, int]]) -> None:
        """Clear the table, lay each seat's hand face down in front of it and the undealt tiles
        in the boneyard; start a new line of play."""
        self.tiles = {}
        self.slots = {s: {} for s in hands}
        self.hand_size = max(len(t) for t in hands.values())
        for seat, tiles in hands.items():
            for i, (a, b) in enumerate(tiles):
                p = self.slot_pose(seat, i)
                self.tiles[tile_id(a, b)] = (TilePlacement(p.x_mm, p.y_mm, p.angle_deg, a, b, False), f"hand:{seat}")
                self.slots[seat][i] = tile_id(a, b)
        yard, fence = self.boneyard_poses(len(undealt), list(hands))
        for (a, b), p in zip(undealt, yard):
            self.tiles[tile_id(a, b)] = (TilePlacement(p.x_mm, p.y_mm, p.angle_deg, a, b, False), "boneyard")
        w, h = self.table_mm
        table = Box(0.0, 0.0, w, h)
        self.planner = Planner((w / 2, h / 2), [table.inset(PLAY_INSET_MM), table.inset(HARD_INSET_MM)],
                               [p for p, _ in self.tiles.values()], fence)
        self.line_ids = []
        self.commit()
        self.hold(self.timing.first_still)

    # ---- motions -------------------------------------------------------------------
    def _arm(self, seat: str, tip: np.ndarray) -> Arm:
        root = edge_point(seat, self.table_mm, out_mm=320.0, right_mm=140.0)
        return Arm(arm_polygon(root, tip), self.arm_colours[seat])

    def _rest_tip(self, seat: str) -> np.ndarray:
        return edge_point(seat, self.table_mm, out_mm=60.0, right_mm=90.0)

    def _reach(self, seat: str, a: np.ndarray, b: np.ndarray, seconds: float) -> None:
        n = self._n(seconds)
        for i in range(n):
            s = ease((i + 1) / n)
            self.frames.append(Frame(self.version, self._arm(seat, a + (b - a) * s)))

    def _carry(self, seat: str, p0: TilePlacement, p1: TilePlacement, face_up: bool, hid: str,
               seconds: float) -> np.ndarray:
        """Frames of the tile going from ``p0`` to ``p1`` under the hand; returns the last tip."""
        n = self._n(seconds)
        root = edge_point(seat, self.table_mm, out_mm=320.0, right_mm=140.0)
        tip = np.array([p0.x_mm, p0.y_mm])
        for i in range(n):
            s = ease((i + 1) / n)
            held = lerp_pose(p0, p1, s, face_up)
            c = np.array([held.x_mm, held.y_mm])
            d = (c - root) / (np.linalg.norm(c - root) + 1e-9)
            tip = c + d * 4.0  # finger tips just past the tile centre: the hand covers its near half
            lift = LIFT_MM * float(np.sin(np.pi * s)) if i < n - 1 else 0.0
            self.frames.append(Frame(self.version, self._arm(seat, tip), held, lift, hid))
        return tip

    def take(self, seat: str, hid: str) -> TilePlacement:
        """The arm reaches tile ``hid`` (in a hand or the boneyard) and lifts it; returns its pose."""
        p, where = self.tiles[hid]
        self._reach(seat, self._rest_tip(seat), np.array([p.x_mm, p.y_mm]), self._jitter(self.timing.reach))
        del self.tiles[hid]
        if self.planner is not None:
            self.planner.lift(p)
        if where.startswith("hand:"):
            s = where.split(":")[1]
            self.slots[s] = {k: v for k, v in self.slots[s].items() if v != hid}
        self.commit()
        return p

    def lay(self, seat: str, hid: str, p0: TilePlacement, p1: TilePlacement, where: str) -> int:
        """Carry the taken tile from ``p0`` to rest at ``p1`` (``where`` it now lies), then the arm
        leaves. Returns the rest frame (the first frame with the tile at rest)."""
        tip = self._carry(seat, p0, p1, p1.face_up, hid, self._jitter(self.timing.carry))
        self.tiles[hid] = (p1, where)
        self.commit()
        rest = len(self.frames)
        self.rest_frames.append(rest)
        self.hold(self.timing.settle, self._arm(seat, tip))
        self._reach(seat, tip, self._rest_tip(seat), self._jitter(self.timing.retreat))
        return rest

    def think(self, seconds: float | None = None) -> None:
        lo, hi = self.timing.think
        self.hold(seconds if seconds is not None else float(self.rng.uniform(lo, hi)))

    def knock(self, seat: str) -> int:
        """A pass: the arm comes in, knocks in front of the hand, leaves. Returns the knock frame."""
        spot = edge_point(seat, self.table_mm, out_mm=-(HAND_INSET_MM + TILE_LONG_MM + 45.0), right_mm=30.0)
        self._reach(seat, self._rest_tip(seat), spot, self._jitter(self.timing.knock))
        frame = len(self.frames)
        self.hold(0.2, self._arm(seat, spot))
        self._reach(seat, spot, self._rest_tip(seat), self._jitter(self.timing.knock))
        return frame

    def play(self, seat: str, a: int, b: int, end: str | None, spinner: bool) -> tuple[int, TilePlacement]:
        """Seat plays [a (touching) | b] on ``end`` (None: the lead). Returns (rest frame, pose)."""
        hid = tile_id(a, b)
        p0 = self.take(seat, hid)
        assert self.planner is not None
        p1 = self.planner.lead(a, b, spinner) if end is None else self.planner.play(a, b, end, spinner)
        self.line_ids.append(hid)
        return self.lay(seat, hid, p0, p1, "line"), p1

    def draw(self, seat: str, a: int, b: int) -> int:
        """Seat takes tile [a|b] from the boneyard into its hand. Returns the rest frame."""
        hid = tile_id(a, b)
        p0 = self.take(seat, hid)
        slot = self._free_slot(seat)
        self.slots[seat][slot] = hid
        q = self.slot_pose(seat, slot)
        return self.lay(seat, hid, p0, TilePlacement(q.x_mm, q.y_mm, q.angle_deg, p0.a, p0.b, False), f"hand:{seat}")

    def reveal(self, seat: str) -> tuple[int, list[tuple[int, int]]]:
        """End of the hand: the seat turns its whole hand face up where it lies, in one gesture.

        Returns (rest frame: the first frame with the tiles face up, the tiles as (a, b)).
        """
        hids = [self.slots[seat][k] for k in sorted(self.slots[seat])]
        if not hids:
            return len(self.frames), []
        poses = [self.tiles[h][0] for h in hids]
        spot = np.mean([[p.x_mm, p.y_mm] for p in poses], axis=0)
        self._reach(seat, self._rest_tip(seat), spot, self._jitter(self.timing.reach))
        self.hold(0.3, self._arm(seat, spot))
        for h, p in zip(hids, poses):
            self.tiles[h] = (TilePlacement(p.x_mm, p.y_mm, p.angle_deg, p.a, p.b, True), f"hand:{seat}")
        self.commit()
        rest = len(self.frames)
        self.rest_frames.append(rest)
        self.hold(self.timing.settle, self._arm(seat, spot))
        self._reach(seat, spot, self._rest_tip(seat), self._jitter(self.timing.retreat))
        return rest, [(p.a, p.b) for p in poses]

    def maybe_bump(self, chance: float) -> dict | None:
        """With probability ``chance``, nudge a tile of the line 1-3 mm and 1-3 degrees (no event)."""
        if not self.line_ids or self.rng.random() >= chance:
            return None
        assert self.planner is not None
        k = int(self.rng.integers(len(self.line_ids)))
        r, phi = float(self.rng.uniform(1, 3)), float(self.rng.uniform(0, 2 * np.pi))
        da = float(self.rng.uniform(1, 3) * self.rng.choice([-1, 1]))
        before = self.planner.placements[k]
        after = self.planner.bump(k, r * np.cos(phi), r * np.sin(phi), da)
        if after is None:
            return None
        self.tiles[self.line_ids[k]] = (after, "line")
        self.commit()
        bump = {"frame": len(self.frames), "tile": self.line_ids[k], "shift_mm": round(r, 3),
                "turn_deg": round(da, 3), "from_mm": [before.x_mm, before.y_mm, before.angle_deg],
                "to_mm": [after.x_mm, after.y_mm, after.angle_deg]}
        self.bumps.append(bump)
        self.hold(0.2)
        return bump
