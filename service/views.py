"""JSON views of engine states for the feeds and pages: the layout as geometry, a hand, a play.

The overlay, the umpire console and the review page draw what these return; they hold
no domino logic of their own.
"""

from __future__ import annotations

from engine.hand import HandState
from engine.layout import Layout
from engine.notation import format_event

_DIRS = {"W": (-1, 0), "E": (1, 0)}


def _tile_item(a: int, b: int, cx: float, cy: float, d: tuple[int, int], arm: str) -> dict:
    """A tile centred at (cx, cy) laid along direction d (doubles crosswise); a is the inner half."""
    double = a == b
    horizontal = d[0] != 0
    if double:  # crosswise: one unit along the arm, two across it
        w, h = (1, 2) if horizontal else (2, 1)
        px, py = (0, 0.5) if horizontal else (0.5, 0)
        halves = [[cx - px, cy - py, a], [cx + px, cy + py, b]]
    else:
        w, h = (2, 1) if horizontal else (1, 2)
        halves = [[cx - d[0] * 0.5, cy - d[1] * 0.5, a], [cx + d[0] * 0.5, cy + d[1] * 0.5, b]]
    return {"x": cx - w / 2, "y": cy - h / 2, "w": w, "h": h, "halves": halves, "tile": [a, b],
            "key": f"{max(a, b)}-{min(a, b)}", "arm": arm, "double": double}


def layout_geometry(layout: Layout) -> dict:
    """Tiles and open ends in half-tile units (a tile is 2 x 1), lead at the origin.

    Returns ``{"tiles": [...], "ends": [...], "box": [x0, y0, x1, y1]}``: each tile with its
    rectangle, its two halves (centre and pips) and its arm; each open end with the point
    just past it and its value.
    """
    tiles: list[dict] = []
    ends: list[dict] = []
    if layout.lead is None:
        return {"tiles": [], "ends": [], "box": [-2, -2, 2, 2]}
    lead = layout.lead
    if lead.is_double:
        tiles.append(_tile_item(lead.a, lead.b, 0, 0, (1, 0), "lead"))
        starts = {"W": (-0.5, 0.0), "E": (0.5, 0.0)}
    else:
        tiles.append({**_tile_item(lead.a, lead.b, 0, 0, (1, 0), "lead")})
        starts = {"W": (-1.0, 0.0), "E": (1.0, 0.0)}
    centres: dict[str, list[tuple[float, float]]] = {}
    dirs: dict[str, tuple[int, int]] = dict(_DIRS)
    open_ends = layout.open_ends()

    def walk(name: str, start: tuple[float, float], d: tuple[int, int]) -> None:
        x, y = start
        centres[name] = []
        for t in layout.arms[name].tiles:
            step = 1 if t.is_double else 2
            cx, cy = x + d[0] * step / 2, y + d[1] * step / 2
            tiles.append(_tile_item(t.a, t.b, cx, cy, d, name))
            centres[name].append((cx, cy))
            x, y = x + d[0] * step, y + d[1] * step
        if name in open_ends:
            ends.append({"arm": name, "value": open_ends[name], "x": x + d[0] * 0.6, "y": y + d[1] * 0.6})

    for name in ("W", "E"):
        walk(name, starts[name], _DIRS[name])
    for k, sp in enumerate(layout.spinners):
        suffix = "" if k == 0 else str(k + 1)
        if sp.arm is None:
            cx, cy, line = 0.0, 0.0, (1, 0)
        else:
            cx, cy = centres[sp.arm][sp.position]
            line = dirs[sp.arm]
        perp = [(0, -1), (0, 1)] if line[0] != 0 else [(-1, 0), (1, 0)]
        for side, d in zip(("N", "S"), perp):
            name = side + suffix
            if name in layout.arms:
                dirs[name] = d
                walk(name, (cx + d[0], cy + d[1]), d)
    xs = [t["x"] for t in tiles] + [t["x"] + t["w"] for t in tiles] + [e["x"] for e in ends]
    ys = [t["y"] for t in tiles] + [t["y"] + t["h"] for t in tiles] + [e["y"] for e in ends]
    return {"tiles": tiles, "ends": ends, "box": [min(xs) - 1, min(ys) - 1, max(xs) + 1, max(ys) + 1]}


def play_view(out, players: dict[str, str], side_of, dismissed: frozenset = frozenset(),  # noqa: ANN001
              settled: frozenset = frozenset()) -> dict:
    """The last play (or pass/draw/penalty, hand end) for the overlay: who, what, points, flags.

    ``dismissed``: (event index, flag kind) pairs whose alert the umpire dismissed: such a flag is
    sent with ``dismissed: true`` (the overlay shows no accusation the umpire has rejected);
    ``settled``: those whose alert the umpire confirmed or that was resolved: ``settled: true``
    (the overlay's banner is for flags still waiting for the umpire).
    """
    ev = out.event
    seat = getattr(ev, "seat", None)
    view = {"index": out.index, "type": ev.type, "text": format_event(ev), "seat": seat,
            "player": players.get(seat, seat) if seat else None, "side": side_of(seat) if seat else None,
            "points": dict(out.points),
            "flags": [{"kind": f.kind, "message": f.message, "dismissed": (out.index, f.kind) in dismissed,
                       "settled": (out.index, f.kind) in settled, "notice": f.notice} for f in out.flags]}
    if ev.type == "draw":  # helper-89: "Bob (S) drew" for a draw of 3 tiles
        view["count"] = ev.count
    if ev.type == "hand_end":  # the overlay words it; the text carries the reason and the read's stamps
        view["kind"], view["winner"] = ev.kind, ev.winner
        view["winner_player"] = players.get(ev.winner, ev.winner) if ev.winner else None
    if out.placement is not None:
        view["tile"] = [out.placement.tile.a, out.placement.tile.b]
        view["end"] = out.placement.end
    if getattr(ev, "confidence", None) is not None:
        view["confidence"] = ev.confidence
    if ev.type == "penalty":
        view["penalty"] = ev.name
    if out.result is not None and any(out.result.awards.values()):
        # the hand's end-of-hand award, included in ``points``: the overlay says it apart from the play's
        # own (helper-118: "played 4-4 +3 · domino" for a play worth 2 and a domino worth 1)
        view["awards"] = {k: v for k, v in out.result.awards.items() if v}
    return view


def hand_view(hs: HandState, players: dict[str, str], dismissed: frozenset = frozenset(),
              settled: frozenset = frozenset()) -> dict:
    """The current hand: layout geometry, turn, tiles left, points, result, last play.

    ``dismissed``: (event index, flag kind) pairs whose alert the umpire dismissed: their tiles are
    not marked flagged; ``settled``: those confirmed or resolved (:func:`play_view`).
    """
    geo = layout_geometry(hs.layout)
    flagged = {o.placement.tile.key for o in hs.outcomes
               if o.placement is not None and any(f.kind == "mismatched_end" and (o.index, f.kind) not in dismissed
                                                  for f in o.flags)}
    for t in geo["tiles"]:
        t["flagged"] = tuple(sorted(t["tile"], reverse=True)) in flagged
    plays = [o for o in hs.outcomes if o.event.type in ("play", "pass", "draw", "penalty", "take_back", "hand_end")]
    res = hs.result
    return {
        "status": "over" if res else "awaiting_reveal" if hs.pending_end else "in_progress",
        "turn": hs.turn,
        "layout": geo,
        "open_ends": hs.layout.open_ends(),
        "ends_total": hs.layout.ends_count(),
        "counts": dict(hs.counts),
        "boneyard": hs.boneyard,
        # a camera's hand (deal unseen) counts the boneyard only from the draws it saw: not for the screen
        "boneyard_known": hs.counts_known,
        "points": dict(hs.scores),
        "last_play": play_view(plays[-1], players, hs.side, dismissed, settled) if plays else None,
        "result": None if res is None else {
            "kind": res.kind, "winner": res.winner_seat, "side": res.winner_side, "awards": dict(res.awards),
            "remaining": dict(res.remaining), "capicua": res.capicua, "note": res.note},
    }
