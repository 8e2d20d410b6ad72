"""Line-of-play reconstruction: which open end (arm) a new tile touches, in table geometry.

The engine (:mod:`engine.layout`) knows the layout as a graph: arms ``W``/``E`` from the
lead, ``N``/``S`` (``N2``/``S2``, ...) from spinners, each with an open value. This module
keeps the *physical* side of the same graph: for every arm name, the exposed end of the
arm's last tile (an :class:`ExposedEnd`: an anchor point, an outward direction and how a
tile may touch it), and answers "which end does this new tile touch, with which half?".

Units: every length is in the units of the tile geometry given (table millimetres when
the camera is calibrated, image pixels otherwise); the thresholds are fractions of the
tile size, so one code path serves both.

Contacts (``h`` = half length of a tile, about its width):

* ``"half"`` ends (the outer half of a tile laid along its arm): a tile may continue
  straight, turn 90 degrees beyond the end (an L at the table border), turn alongside
  the exposed half, or be a double laid crosswise across the end.
* ``"side"`` ends (the long side of a double laid crosswise, or of a spinner): a tile
  continues straight out of the middle of that side, or turns 90 degrees in front of it;
  a double may also lie crosswise beyond it (a mismatch, or a second set's twin).

Conventions (docs/tracking.md):

* the lead's first half (the engine's ``W`` half) is the half with the smaller x; for a
  lead lying along y (|dx| < 0.1 of its length), the half with the smaller y;
* a lone lead double is not oriented until the first tile touches it: the pair of sites
  that tile touches (its two long sides, or its two ends) becomes ``W``/``E`` and the
  other pair the spinner's ``N``/``S``;
* of two sites of a pair (W/E, or a spinner's N/S), the one facing smaller x is ``W``,
  the one facing smaller y is ``N`` (ties: smaller y, smaller x).

>>> import numpy as np
>>> lead = TileGeom.from_polygon(np.array([[0, 0], [48, 0], [48, 24], [0, 24]], float))
>>> lop = LineOfPlay()
>>> lop.set_lead(lead, (3, 5))
(3, 5)
>>> new = TileGeom.from_polygon(np.array([[48, 0], [96, 0], [96, 24], [48, 24]], float))
>>> fit = lop.assign(new, (5, 2))
>>> fit.end, fit.tile, fit.touching
('E', (5, 2), 0)
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

__all__ = ["TileGeom", "ExposedEnd", "EndFit", "LineOfPlay", "lead_order", "first_of_pair", "spinner_arms_opened"]

#: Geometric residual (in half lengths) at which the fit falls to exp(-1) ~ 0.37.
FIT_SIGMA = 0.5
#: Fits below this are "no contact".
MIN_FIT = 0.1
#: A fit below this, or a runner-up end within ``AMBIGUOUS_RATIO`` of the best, is uncertain.
UNCERTAIN_FIT = 0.5
AMBIGUOUS_RATIO = 0.7
#: Residual added when a double would turn the line instead of lying across it.
DOUBLE_TURN_PENALTY = 0.3
#: Factor on the fit when the touching half's pips differ from the end's value.
MISMATCH_FACTOR = 0.35


def _unit(v: np.ndarray) -> np.ndarray:
    n = float(np.linalg.norm(v))
    return v / n if n > 0 else np.array([1.0, 0.0])


def _perp(v: np.ndarray) -> np.ndarray:
    return np.array([-v[1], v[0]])


def first_of_pair(d0: np.ndarray, d1: np.ndarray, axis: str = "x") -> int:
    """Which of two opposite directions (each (2,)) is first: 0 or 1.

    ``axis="x"``: the one pointing to smaller x (the W one), ties (|dx| < 0.1) to smaller y.
    ``axis="y"``: the one pointing to smaller y (the N one), ties to smaller x.
    """
    i, j = (0, 1) if axis == "x" else (1, 0)
    if abs(d0[i] - d1[i]) >= 0.2:
        return 0 if d0[i] < d1[i] else 1
    return 0 if d0[j] <= d1[j] else 1


@dataclass(frozen=True)
class TileGeom:
    """A tile's top face as a rectangle, in table mm or image px.

    Attributes:
        center: (2,) float64 centre.
        axis: (2,) float64 unit vector along the long axis, from half ``a`` (corners 0/3)
            to half ``b`` (corners 1/2).
        length: long side (mm or px).
        width: short side (mm or px).
    """

    center: np.ndarray
    axis: np.ndarray
    length: float
    width: float

    @classmethod
    def from_polygon(cls, polygon: np.ndarray) -> TileGeom:
        """From (4, 2) corners ordered as :class:`vision.observation.TileObservation` (edge 0->1 long)."""
        p = np.asarray(polygon, np.float64).reshape(4, 2)
        axis = (p[1] - p[0]) + (p[2] - p[3])
        length = 0.5 * (np.linalg.norm(p[1] - p[0]) + np.linalg.norm(p[2] - p[3]))
        width = 0.5 * (np.linalg.norm(p[3] - p[0]) + np.linalg.norm(p[2] - p[1]))
        return cls(p.mean(0), _unit(axis), float(length), float(width))

    @classmethod
    def from_pose(cls, center: np.ndarray, angle_deg: float, length: float, width: float) -> TileGeom:
        """From a centre (2,), the long-axis angle (degrees from +x towards +y) and the size."""
        t = math.radians(angle_deg)
        return cls(np.asarray(center, np.float64).reshape(2), np.array([math.cos(t), math.sin(t)]),
                   float(length), float(width))

    @property
    def half(self) -> float:
        """Half length: the size of one half along the axis."""
        return self.length / 2

    def half_center(self, k: int) -> np.ndarray:
        """(2,) centre of half ``k`` (0 = ``a``, 1 = ``b``)."""
        return self.center + (self.length / 4) * (self.axis if k else -self.axis)

    def direction_from(self, k: int) -> np.ndarray:
        """(2,) unit vector from half ``k`` to the other half."""
        return -self.axis if k else self.axis

    def polygon(self) -> np.ndarray:
        """(4, 2) float64 corners, edge 0->1 along the axis from half a to half b."""
        u, v = self.axis * self.length / 2, _perp(self.axis) * self.width / 2
        c = self.center
        return np.stack([c - u - v, c + u - v, c + u + v, c - u + v])


@dataclass(frozen=True)
class ExposedEnd:
    """The physical open end of one arm.

    Attributes:
        name: engine arm name (W, E, N, S, N2, ...).
        value: pips a tile must show to match this end.
        anchor: (2,) centre of the exposed half (``kind="half"``) or of the double whose
            long side is exposed (``kind="side"``).
        out: (2,) unit vector pointing away from the layout.
        kind: ``"half"`` or ``"side"``.
        reach: distance from ``anchor`` to the contact edge along ``out``.
        lateral: distance from ``anchor`` to the side edges across ``out``.
        size: half length of the tile that holds the end (scale of the residuals).
        side_turns: a tile may turn alongside the exposed half (not at a double's ends, where
            the line of play lies alongside).
    """

    name: str
    value: int
    anchor: np.ndarray
    out: np.ndarray
    kind: str
    reach: float
    lateral: float
    size: float
    side_turns: bool = True


@dataclass(frozen=True)
class EndFit:
    """Where a new tile goes: the ``Placement``-like record of one observed play.

    Attributes:
        end: arm name (``"lead"`` for the first tile).
        touching: index (0 = the observation's half ``a``, 1 = ``b``) of the touching half.
        tile: ``(touching pips, other pips)``: the engine's oriented tile.
        fit: geometric fit in [0, 1] (1 = exactly where a tile touching that end lies).
        pip_match: the touching half shows the end's value.
        confidence: ``fit`` x the reading's confidence (pips and detector), in [0, 1].
        uncertain: weak fit, ambiguous between ends, or pips that do not match.
        contact: the contact that fitted (``straight``, ``turn``, ``side_turn``,
            ``crosswise``, ``side``, ``lead``).
        runner_up: fit of the best other end (0 when none).
    """

    end: str
    touching: int
    tile: tuple[int, int]
    fit: float
    pip_match: bool
    confidence: float
    uncertain: bool
    contact: str
    runner_up: float = 0.0


def lead_order(geom: TileGeom) -> tuple[int, int]:
    """``(k_W, k_E)``: which half of the lead is its first (W) half, by the convention above."""
    k = first_of_pair(geom.direction_from(1), geom.direction_from(0), "x")
    return (0, 1) if k == 0 else (1, 0)


def spinner_arms_opened(layout, before: set[str]) -> tuple[str, str] | None:
    """The names ``(N-like, S-like)`` of the arms a spinner just opened, for :meth:`LineOfPlay.place`.

    Args:
        layout: the engine's :class:`engine.layout.Layout` after the play.
        before: the layout's arm names before the play.

    Only the spinner's perpendicular arms (``opened_by`` set) count: a lead double also
    creates ``W``/``E``, which are not spinner arms. None when no spinner arm is new.
    """
    new = sorted((n for n, arm in layout.arms.items() if n not in before and arm.opened_by is not None),
                 key=lambda n: (n[0] != "N", n))
    return (new[0], new[1]) if len(new) >= 2 else None


def _contact_residual(end: ExposedEnd, g: TileGeom, k: int, is_double: bool) -> tuple[float, str]:
    """Smallest residual (in half lengths) over the contacts ``g``'s half ``k`` may make with ``end``."""
    P, o = end.anchor, end.out
    p = _perp(o)
    h_new = g.half
    scale = 0.5 * (end.size + h_new)
    Q = g.half_center(k)
    d = g.direction_from(k)
    best, name = math.inf, ""

    def consider(q_exp: np.ndarray, d_exp: np.ndarray, label: str) -> None:
        nonlocal best, name
        r = float(np.linalg.norm(Q - q_exp)) / scale + (1.0 - float(np.dot(d, d_exp)))
        if is_double and label in ("turn", "side_turn"):
            r += DOUBLE_TURN_PENALTY  # doubles are laid across the line far more often than turning it
        if r < best:
            best, name = r, label

    straight = P + o * (end.reach + h_new / 2)
    consider(straight, o, "straight" if end.kind == "half" else "side")
    consider(straight, p, "turn")  # an L: touching half in front of the end, the tile across
    consider(straight, -p, "turn")
    if end.kind == "half" and end.side_turns:
        side = end.lateral + h_new / 2
        consider(P + p * side, p, "side_turn")
        consider(P - p * side, -p, "side_turn")
    if is_double:  # a double laid crosswise across the end: centre beyond it, axis across
        # Any end: after a crosswise double this is only a bogus play (or a second set's twin),
        # and it must still be placed so the umpire sees the mismatch and later plays attach.
        c_exp = P + o * (end.reach + g.width / 2)
        r = float(np.linalg.norm(g.center - c_exp)) / scale + abs(float(np.dot(g.axis, o)))
        if r < best:
            best, name = r, "crosswise"
    return best, name


def _fit(residual: float) -> float:
    return math.exp(-((residual / FIT_SIGMA) ** 2))


@dataclass
class _Record:
    end: str
    geom: TileGeom
    pips: tuple[int, int]
    touching: int
    contact: str
    spinner_arms: tuple[str, str] | None


@dataclass
class LineOfPlay:
    """The physical layout of one hand: an :class:`ExposedEnd` per engine arm.

    Mutated by :meth:`set_lead` and :meth:`place`; :meth:`rebuild` replays the records
    (used after a take-back). It does not decide legality or scoring: the engine does.
    """

    ends: dict[str, ExposedEnd] = field(default_factory=dict)
    lead: TileGeom | None = None
    records: list[_Record] = field(default_factory=list)
    _lone_double: tuple[int, int] | None = None  # lead double pips while no tile touches it
    _lead_spinner: tuple[str, str] | None = None

    # ---- the lead -------------------------------------------------------------------
    def set_lead(self, geom: TileGeom, pips: tuple[int, int],
                 spinner_arms: tuple[str, str] | None = None, west: int | None = None) -> tuple[int, int]:
        """Lay the lead; returns the engine's lead tile ``(W pips, E pips)``.

        Args:
            geom: the lead's geometry.
            pips: ``(a, b)`` as observed (polygon order).
            spinner_arms: the arm names the engine opened when the lead became a spinner
                (``("N", "S")``), else None.
            west: the half (0 or 1) whose end is named ``W``; None: the picture's (:func:`lead_order`).
                A record that named the lead's ends otherwise (a lead entered by hand) sets it.
        """
        _check_spinner_arms(spinner_arms, set())
        kw, ke = lead_order(geom) if west is None else (int(west), 1 - int(west))
        self.lead = geom
        self.records = [_Record("lead", geom, pips, kw, "lead", spinner_arms)]
        self.ends = {}
        self._lead_spinner = spinner_arms
        if pips[0] == pips[1]:
            self._lone_double = pips
        else:
            self._lone_double = None
            for name, k in (("W", kw), ("E", ke)):
                self.ends[name] = self._half_end(name, pips[k], geom, k)
        return pips[kw], pips[ke]

    @staticmethod
    def _half_end(name: str, value: int, g: TileGeom, k: int, side_turns: bool = True) -> ExposedEnd:
        """The end at half ``k`` of ``g``, facing away from the other half."""
        return ExposedEnd(name, value, g.half_center(k), -g.direction_from(k), "half", g.half / 2, g.width / 2,
                          g.half, side_turns)

    @staticmethod
    def _side_end(name: str, value: int, g: TileGeom, out: np.ndarray) -> ExposedEnd:
        """The end at the long side of ``g`` facing ``out``."""
        return ExposedEnd(name, value, g.center.copy(), _unit(out), "side", g.width / 2, g.half, g.half)

    def _double_sites(self, g: TileGeom, value: int) -> dict[str, list[ExposedEnd]]:
        """The four sites of a lone lead double, named W/E for either pair: {"sides": [W, E], "ends": [W, E]}."""
        p = _perp(g.axis)
        sides = [self._side_end("", value, g, p), self._side_end("", value, g, -p)]
        ends = [self._half_end("", value, g, 0, False), self._half_end("", value, g, 1, False)]
        out = {}
        for label, pair in (("sides", sides), ("ends", ends)):
            w = first_of_pair(pair[0].out, pair[1].out, "x")
            out[label] = [_renamed(pair[w], "W"), _renamed(pair[1 - w], "E")]
        return out

    # ---- queries --------------------------------------------------------------------
    @property
    def lone_double(self) -> bool:
        """The lead is a double that no tile touches yet: which of its sites is W or E is open."""
        return self.lead is not None and self._lone_double is not None

    def candidate_ends(self) -> list[ExposedEnd]:
        """Every site a new tile may touch now (for a lone lead double: its four sides/ends)."""
        if self.lead is not None and self._lone_double is not None:
            sites = self._double_sites(self.lead, self._lone_double[0])
            return sites["sides"] + sites["ends"]
        return list(self.ends.values())

    def fits(self, geom: TileGeom, pips: tuple[int, int], arms: set[str] | None = None
             ) -> list[tuple[float, ExposedEnd, int, str, bool]]:
        """All (score, end, touching half, contact, pip match) for ``geom``, best first.

        ``score`` is the geometric fit times :data:`MISMATCH_FACTOR` when the pips differ.
        ``arms`` limits the ends to those names (None: all).
        """
        out = []
        is_double = pips[0] == pips[1]
        for end in self.candidate_ends():
            if arms is not None and end.name not in arms:
                continue
            for k in (0, 1):
                res, contact = _contact_residual(end, geom, k, is_double)
                f = _fit(res)
                match = pips[k] == end.value
                out.append((f * (1.0 if match else MISMATCH_FACTOR), end, k, contact, match))
        out.sort(key=lambda r: -r[0])
        return out

    def assign(self, geom: TileGeom, pips: tuple[int, int], read_confidence: float = 1.0,
               arms: set[str] | None = None) -> EndFit | None:
        """The end ``geom`` touches, or None when it touches none (fit < :data:`MIN_FIT`).

        Args:
            geom: the new tile.
            pips: its ``(a, b)`` as observed.
            read_confidence: confidence of the reading in [0, 1] (detector x weaker half).
            arms: arm names allowed (None: all).
        """
        if self.lead is None:
            return None
        ranked = self.fits(geom, pips, arms)
        if not ranked or ranked[0][0] < MIN_FIT:
            return None
        score, end, k, contact, match = ranked[0]
        geo = score / (1.0 if match else MISMATCH_FACTOR)
        runner = max((r[0] for r in ranked[1:] if r[1].name != end.name or r[1].kind != end.kind), default=0.0)
        uncertain = geo < UNCERTAIN_FIT or not match or runner > AMBIGUOUS_RATIO * score
        # how sure we are of *what was played where*: a clear, confidently read mismatch is a
        # confident play (the engine flags the mismatched end); the mismatch only ranks the ends
        conf = float(geo * read_confidence)
        return EndFit(end.name, k, (pips[k], pips[1 - k]), float(geo), match, conf, bool(uncertain), contact,
                      float(runner))

    # ---- the mutation ---------------------------------------------------------------
    def place(self, fit: EndFit, geom: TileGeom, pips: tuple[int, int],
              spinner_arms: tuple[str, str] | None = None) -> None:
        """Put ``geom`` at ``fit.end`` (touching with ``fit.touching``) and update the ends.

        Args:
            fit: from :meth:`assign` (or built by hand: ``end``, ``touching``, ``contact``).
            geom, pips: the tile as observed.
            spinner_arms: the names of the arms the engine opened because this tile became a
                spinner (e.g. ``("N", "S")``), else None.
        """
        _check_spinner_arms(spinner_arms, set(self.ends) | {fit.end})
        self.records.append(_Record(fit.end, geom, pips, fit.touching, fit.contact, spinner_arms))
        self._apply(self.records[-1])

    def _apply(self, rec: _Record) -> None:
        end_name, g, pips, k = rec.end, rec.geom, rec.pips, rec.touching
        if self._lone_double is not None:
            self._resolve_lone_double(g, k, end_name)
        prev = self.ends.get(end_name)
        if prev is None:  # should not happen: the engine named an arm we do not hold
            self.ends[end_name] = self._half_end(end_name, pips[1 - k], g, 1 - k)
            return
        is_double = pips[0] == pips[1]
        # a double across the line (centred on it); a double that turns the line (its touching half
        # in front of the end, like any turning tile) is lengthwise along the new direction
        crosswise = is_double and rec.contact not in ("turn", "side_turn", "straight", "side") \
            and abs(float(np.dot(g.axis, prev.out))) < 0.5
        if crosswise:
            out = _perp(g.axis)
            if float(np.dot(out, g.center - prev.anchor)) < 0:
                out = -out
            self.ends[end_name] = self._side_end(end_name, pips[1 - k], g, out)
        else:
            self.ends[end_name] = self._half_end(end_name, pips[1 - k], g, 1 - k)
        if rec.spinner_arms:
            self._open_spinner(g, pips[0], crosswise, rec.spinner_arms)

    def _open_spinner(self, g: TileGeom, value: int, crosswise: bool, names: tuple[str, str]) -> None:
        """The spinner's two free sites become arms ``names`` (N-like first)."""
        if crosswise:  # its ends are free
            pair = [self._half_end("", value, g, 0, False), self._half_end("", value, g, 1, False)]
        else:  # laid inline: its long sides are free
            p = _perp(g.axis)
            pair = [self._side_end("", value, g, p), self._side_end("", value, g, -p)]
        n = first_of_pair(pair[0].out, pair[1].out, "y")
        self.ends[names[0]] = _renamed(pair[n], names[0])
        self.ends[names[1]] = _renamed(pair[1 - n], names[1])

    def _resolve_lone_double(self, g: TileGeom, k: int, name: str) -> None:
        """The first tile touching a lone lead double fixes which pair of its sites is W/E, and
        the site it touches is named ``name`` (the picture names that site so when the tracker laid
        the tile; a record entered by hand may name it the other way round: the record's name holds)."""
        lead = self.lead
        assert lead is not None and self._lone_double is not None
        value = self._lone_double[0]
        sites = self._double_sites(lead, value)
        q = g.half_center(k)
        # the pair holding the site nearest to the touching half
        best = min(sites, key=lambda lab: min(_site_distance(s, q) for s in sites[lab]))
        other = "ends" if best == "sides" else "sides"
        w, e = sites[best]
        if name in ("W", "E") and (min((w, e), key=lambda s: _site_distance(s, q)).name != name):
            w, e = _renamed(e, "W"), _renamed(w, "E")
        self.ends = {"W": w, "E": e}
        if self._lead_spinner:
            pair = sites[other]
            n = first_of_pair(pair[0].out, pair[1].out, "y")
            names = self._lead_spinner
            self.ends[names[0]] = _renamed(pair[n], names[0])
            self.ends[names[1]] = _renamed(pair[1 - n], names[1])
        self._lone_double = None

    def rebuild(self, records: list[_Record] | None = None) -> None:
        """Replay ``records`` (default: the current ones), e.g. without a tile taken back."""
        recs = list(self.records if records is None else records)
        self.ends, self.lead, self.records, self._lone_double = {}, None, [], None
        if not recs:
            return
        lead = recs[0]
        self.set_lead(lead.geom, lead.pips, lead.spinner_arms, west=lead.touching)
        for rec in recs[1:]:
            self.records.append(rec)
            self._apply(rec)

    def without(self, index: int) -> None:
        """Remove record ``index`` (1 = the first tile after the lead) and rebuild."""
        recs = [r for i, r in enumerate(self.records) if i != index]
        self.rebuild(recs)

    def update_geometry(self, index: int, geom: TileGeom) -> None:
        """A placed tile was bumped: replace record ``index``'s geometry and rebuild."""
        recs = list(self.records)
        r = recs[index]
        recs[index] = _Record(r.end, geom, r.pips, r.touching, r.contact, r.spinner_arms)
        self.rebuild(recs)


def _check_spinner_arms(names: tuple[str, str] | None, taken: set[str]) -> None:
    """A spinner opens two new arms: never ``W``/``E`` (the lead's) nor an arm already held.

    Raises:
        ValueError: ``names`` would overwrite an end (e.g. a lead double's arms given as
            ``("N", "E")``: the spinner's S site would replace the lead's E side).
    """
    if names is None:
        return
    bad = set(names) & (taken | {"W", "E"})
    if len(set(names)) != 2 or bad:
        raise ValueError(f"spinner arms {names} are not two new arms (taken: {sorted(bad) or names})")


def _renamed(end: ExposedEnd, name: str) -> ExposedEnd:
    return ExposedEnd(name, end.value, end.anchor, end.out, end.kind, end.reach, end.lateral, end.size,
                      end.side_turns)


def _site_distance(end: ExposedEnd, q: np.ndarray) -> float:
    """Distance from a touching half centre ``q`` (2,) to where it would sit straight off ``end``."""
    return float(np.linalg.norm(q - (end.anchor + end.out * (end.reach + end.size / 2))))
