"""Pip reading: the ONNX half classifier, cross-checked by the classical blob counter.

Each tile's top face is cut from the full-resolution frame with
:func:`vision.crops.rectified_halves` (the same function the training halves were cut
with, ``TILE_OUT_PX`` = 64 -> 32 x 32 px halves) and classified by PipNet
(``models/pipnet.py``): input (N, 3, 32, 32) float32, **BGR** channel order, values
``uint8 / 255``; output (N, C) softmax probabilities, class k = k pips.  The session and
that preprocessing are the training helper's :class:`models.runtime.PipReader` (shared,
not copied).  A tile the network reads weakly is re-cut after an alignment search
(:meth:`PipReader.align`).

Cross-check (per half, by default only halves the network is < 0.9 sure of) with :func:`vision.pips_classical.count`:

* agreement: the half confidence is the network's probability of its argmax;
* disagreement: the value stays the network's argmax, but its confidence becomes
  ``p * (1 - 0.5 * c)`` (``c`` = classical confidence), the classical value becomes the
  preferred alternative (its probability is raised to ``0.5 * c * p`` if lower, so the
  set constraint tries it first), and the tile is flagged ``pip_disagreement`` when
  ``c >= DISAGREE_MIN_CONF``;
* more pips than the classes (:data:`BEYOND_MARGIN` or more blobs over ``C - 1``): a half of a larger set
  (a double-twelve 12|9 read 6|6 at 0.97, helper-187), which no class can read: its confidence is scaled by
  :data:`BEYOND_CONF_SCALE` and the tile is flagged :data:`FLAG_PIPS_BEYOND_SET`. Halves the network reads as
  its top class are checked too in ``"uncertain"`` mode (a larger set's halves are read as 5 or 6, surely).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from models.runtime import PipReader as _OnnxPipReader
from engine.words import plural
from vision.crops import rectified_halves

try:  # written concurrently; the recognizer works (without cross-check) until it lands
    from vision.pips_classical import count as _classical_count
except ImportError:  # pragma: no cover - depends on the checkout
    _classical_count = None

__all__ = ["PipReader", "HalfReadings", "TILE_OUT_PX", "DISAGREE_MIN_CONF", "BEYOND_MARGIN", "BEYOND_CONF_SCALE",
           "FLAG_PIPS_BEYOND_SET", "beyond_set_message", "cross_check", "classical_available"]

#: Rectified tile long side for the pip reader, px (= ``datasets.build.TILE_OUT_PX``).
TILE_OUT_PX = 64
#: A disagreement is flagged when the classical counter's confidence is at least this.
DISAGREE_MIN_CONF = 0.25
#: Blobs over the reader's largest class a half must show to be a larger set's: one more is a speck or a
#: neighbour's pip now and then (1 of 164 double-six halves read 6 in 30 eval scenes showed 7 blobs), two or
#: more were never seen on a double-six half, and are a double-nine or double-twelve half's 8..12.
BEYOND_MARGIN = 2
#: A half with more pips than the classes: its confidence is scaled by this (never vouched for).
BEYOND_CONF_SCALE = 0.5
#: The tile flag of a half with more pips than the reader's classes (:data:`BEYOND_MARGIN`): the set is
#: larger than the one assumed, and the reading is wrong whatever it says.
FLAG_PIPS_BEYOND_SET = "pips_beyond_set"


def beyond_set_message(tiles: int, max_pips: int = 6, reads: int | None = None) -> str:
    """What ``detect`` says of ``tiles`` face-up tiles flagged :data:`FLAG_PIPS_BEYOND_SET` (a half shows more
    pips than the reader's classes 0..``max_pips`` hold: the set is larger, those readings are wrong); with
    ``reads``, what ``review`` says: in that many reads, ``tiles`` the most in one, on two lines."""
    if reads is None:
        return (f"{plural(tiles, 'tile')} show more than {max_pips} pips on a half (flag {FLAG_PIPS_BEYOND_SET}): "
                f"a double-nine or -twelve set? The models read 0..{max_pips} only")
    return (f"tiles with more than {max_pips} pips on a half in {plural(reads, 'read')} (up to {tiles} a read): a "
            f"double-nine or -twelve set?\n  the models read pips 0..{max_pips} only: only double-six footage can be "
            "reviewed")


def classical_available() -> bool:
    """True when :mod:`vision.pips_classical` could be imported."""
    return _classical_count is not None


@dataclass
class HalfReadings:
    """Pip readings of M tiles (two halves each; half 0 is the corner-0 end).

    Attributes:
        probs: (M, 2, C) float32 class probabilities after the cross-check.
        conf: (M, 2) float32 half confidences.
        values: (M, 2) int64 network argmax per half.
        classical: (M, 2) int64 classical counts, -1 where not run.
        classical_conf: (M, 2) float32 classical confidences (0 where not run).
        disagree: (M, 2) bool flagged disagreements.
        beyond: (M, 2) bool halves whose classical count found more pips than the classes
            (:data:`BEYOND_MARGIN`); None: all False.
        found: (M, 2) int64 pips the classical counter found before its cut to the classes, -1 where not run.
        polygons: (M, 4, 2) float32 polygons the halves were finally cut from (shifted
            where the alignment search moved them).
        refined: (M,) bool, True where the alignment search moved the polygon.
    """

    probs: np.ndarray
    conf: np.ndarray
    values: np.ndarray
    classical: np.ndarray
    classical_conf: np.ndarray
    disagree: np.ndarray
    polygons: np.ndarray | None = None
    refined: np.ndarray | None = None
    beyond: np.ndarray | None = None
    found: np.ndarray | None = None

    def subset(self, keep: np.ndarray) -> "HalfReadings":
        """The readings of the tiles where the (M,) bool ``keep`` is True."""
        return HalfReadings(*(None if v is None else v[keep] for v in (
            self.probs, self.conf, self.values, self.classical, self.classical_conf, self.disagree,
            self.polygons, self.refined, self.beyond, self.found)))


def cross_check(probs: np.ndarray, classical: np.ndarray, classical_conf: np.ndarray,
                found: np.ndarray | None = None) -> HalfReadings:
    """Combine network probabilities with classical counts (rules in the module doc).

    Args:
        probs: (M, 2, C) float network probabilities.
        classical: (M, 2) int classical counts (-1 = not available).
        classical_conf: (M, 2) float classical confidences in [0, 1].
        found: (M, 2) int pips the classical counter found before its cut to ``C - 1`` (-1 or None: not
            known); :data:`BEYOND_MARGIN` or more over ``C - 1`` is a larger set's half.

    Returns:
        :class:`HalfReadings`.
    """
    P = np.array(probs, np.float32, copy=True)
    M, _, C = P.shape
    cls = np.asarray(classical, np.int64).reshape(M, 2)
    cc = np.clip(np.asarray(classical_conf, np.float32).reshape(M, 2), 0, 1)
    values = P.argmax(2)
    top = np.take_along_axis(P, values[..., None], 2)[..., 0]
    conf = top.copy()
    valid = (cls >= 0) & (cls < C)
    dis = valid & (cls != values)
    for i, k in zip(*np.nonzero(dis)):
        c = int(cls[i, k])
        conf[i, k] = top[i, k] * (1.0 - 0.5 * cc[i, k])
        P[i, k, c] = max(P[i, k, c], 0.5 * cc[i, k] * top[i, k])
        P[i, k] /= P[i, k].sum()
    got = np.full((M, 2), -1, np.int64) if found is None else np.asarray(found, np.int64).reshape(M, 2)
    beyond = got >= C - 1 + BEYOND_MARGIN
    conf[beyond] *= BEYOND_CONF_SCALE
    return HalfReadings(P, conf.astype(np.float32), values.astype(np.int64), cls, cc,
                        dis & (cc >= DISAGREE_MIN_CONF), beyond=beyond, found=got)


class PipReader:
    """ONNX pip classifier for rectified halves (load once).

    Args:
        path: ``pip_reader.onnx`` (input (N, 3, S, S), output (N, C) probabilities).
        threads: onnxruntime intra-op threads.
        cross_check: when to run the classical blob counter (if it is available):
            ``"all"`` (or True) every half, ``"uncertain"`` only halves whose network
            probability is below ``check_below`` (the counter costs ~10-25 ms per half on
            one core, the network well under 1 ms), ``"none"`` (or False) never.
        check_below: threshold of the ``"uncertain"`` mode (the network is trained with
            label smoothing 0.05, so a sure half scores about 0.95).
        max_checks: in ``"uncertain"`` mode, at most this many halves per frame (the least
            sure first), to bound the latency; None = no limit.
        top_checks: in ``"uncertain"`` mode, besides those, at most this many halves the network
            reads surely as its top class (6) are counted per frame, for the larger-set check alone
            (:data:`FLAG_PIPS_BEYOND_SET`): a double-nine or -twelve set shows in a few reads, and
            counting every sure 6 cost 8 % of a double-six footage's reads (5.7 counts a read, 5 ms
            each; 2 bound it to about 10 ms). 0 turns the check off, None counts every one.
        align_below: tiles whose weaker half scores below this are re-read after an
            alignment search (:meth:`align`); 0 disables it.

    Raises:
        FileNotFoundError: missing model file.
        ValueError: unexpected input/output shapes.
    """

    def __init__(self, path: str | Path, threads: int = 1, cross_check: bool | str = "uncertain",
                 check_below: float = 0.9, max_checks: int | None = 12, align_below: float = 0.8,
                 top_checks: int | None = 2):
        self.path = Path(path)
        if not self.path.is_file():
            raise FileNotFoundError(f"{self.path}: no such model file")
        if threads < 1:
            raise ValueError(f"threads must be >= 1, got {threads}")
        self._onnx = _OnnxPipReader(self.path, threads)
        self.session = self._onnx.sess
        inp, out = self.session.get_inputs()[0], self.session.get_outputs()[0]
        if len(inp.shape) != 4 or not isinstance(inp.shape[2], int) or inp.shape[2] != inp.shape[3]:
            raise ValueError(f"{self.path}: expected input (N, 3, S, S), got {inp.shape}")
        self.half_px = int(inp.shape[2])
        self.input_name = inp.name
        if not isinstance(out.shape[1], int):
            raise ValueError(f"{self.path}: expected output (N, C), got {out.shape}")
        self.num_classes = int(out.shape[1])
        mode = {True: "all", False: "none"}.get(cross_check, cross_check)  # type: ignore[call-overload]
        if mode not in ("all", "uncertain", "none"):
            raise ValueError(f"cross_check must be 'all', 'uncertain' or 'none', got {cross_check!r}")
        self.cross_check = mode if classical_available() else "none"
        self.check_below = float(check_below)
        self.max_checks = max_checks
        self.top_checks = top_checks
        self.align_below = float(align_below)

    @property
    def max_pips(self) -> int:
        """Largest pip value the classifier knows (C - 1)."""
        return self.num_classes - 1

    def classify(self, halves: np.ndarray) -> np.ndarray:
        """(N, S, S, 3) uint8 BGR halves -> (N, C) float32 probabilities."""
        if len(halves) == 0:
            return np.zeros((0, self.num_classes), np.float32)
        h = np.asarray(halves)
        if h.ndim != 4 or h.shape[1:] != (self.half_px, self.half_px, 3) or h.dtype != np.uint8:
            raise ValueError(f"halves must be (N, {self.half_px}, {self.half_px}, 3) uint8, got {h.shape} {h.dtype}")
        return np.asarray(self._onnx.probs(h), np.float32)

    def cut(self, frame: np.ndarray, polygons: np.ndarray) -> np.ndarray:
        """Rectified halves of M tiles: (M, 4, 2) polygons (frame px) -> (M, 2, S, S, 3) uint8.

        Half 0 is the end at corners 0/3 of each (canonical) polygon.
        """
        out = np.zeros((len(polygons), 2, self.half_px, self.half_px, 3), np.uint8)
        for i, p in enumerate(polygons):
            a, b = rectified_halves(frame, p, 2 * self.half_px)
            out[i, 0], out[i, 1] = a, b
        return out

    def read(self, frame: np.ndarray, polygons: np.ndarray) -> HalfReadings:
        """Read the pips of M face-up tiles in a (H, W, 3) uint8 BGR full-resolution frame.

        Args:
            frame: the frame the polygons are in.
            polygons: (M, 4, 2) float32 canonical polygons (edge 0->1 = long side), px.

        Returns:
            :class:`HalfReadings` for the M tiles.
        """
        M = len(polygons)
        polygons = np.asarray(polygons, np.float32).reshape(M, 4, 2).copy()
        halves = self.cut(frame, polygons)
        probs = self.classify(halves.reshape(-1, self.half_px, self.half_px, 3)).reshape(M, 2, -1)
        refined = np.zeros(M, bool)
        if self.align_below > 0:
            weak = np.nonzero(probs.max(2).min(1) < self.align_below)[0]
            if len(weak):
                new_p, new_h, new_pr, moved = self.align(frame, polygons[weak])
                polygons[weak], halves[weak], probs[weak], refined[weak] = new_p, new_h, new_pr, moved
        cls = np.full((M, 2), -1, np.int64)
        found = np.full((M, 2), -1, np.int64)
        cc = np.zeros((M, 2), np.float32)
        if self.cross_check != "none" and _classical_count is not None:
            top = probs.max(2)
            only_found: set[tuple[int, int]] = set()  # halves counted for the larger-set check alone
            if self.cross_check == "all":
                todo = [(i, k) for i in range(M) for k in range(2)]
            else:
                order = np.argsort(top, axis=None, kind="stable")
                todo = [divmod(int(j), 2) for j in order if top.flat[j] < self.check_below]
                # then the sure top-class halves, for their pip count alone: a larger set's 7..12 are read as
                # the top class, surely; their cross-check stays as it was (a sure half is not second-guessed)
                sure_top = [divmod(int(j), 2) for j in order if top.flat[j] >= self.check_below
                            and probs.reshape(-1, probs.shape[2])[j].argmax() == self.max_pips][:self.top_checks]
                todo = todo[:self.max_checks] if self.max_checks is not None else todo
                only_found = set(sure_top)  # sure halves: never among the uncertain ones to check
                todo += sure_top
            for i, k in todo:
                r = _classical_count(halves[i, k], max_pips=self.max_pips, divider=("right", "left")[k])
                found[i, k] = -1 if r.found is None else r.found
                if (i, k) not in only_found:
                    cls[i, k], cc[i, k] = r.pips, r.confidence
        hr = cross_check(probs, cls, cc, found)
        hr.polygons, hr.refined = polygons, refined
        return hr

    #: Alignment search: shifts along the long axis (fractions of the long side), then
    #: across it (fractions of the short side) at the best long-axis shift.
    ALONG = (-0.15, -0.1, -0.05, 0.05, 0.1, 0.15)
    ACROSS = (-0.1, 0.1)

    def align(self, frame: np.ndarray, polygons: np.ndarray
              ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Shift weakly read polygons to where the classifier reads them best.

        A detector box shifted along a line of touching tiles cuts the halves off-centre
        (part of the neighbour in one half); the classifier is then unsure.  The polygon
        is shifted by :data:`ALONG` x its long side, then by :data:`ACROSS` x its short
        side at the best of those, and the position maximising the summed log of the two
        halves' top probabilities wins (the unshifted polygon competes too).

        Args:
            frame: (H, W, 3) uint8 BGR.
            polygons: (K, 4, 2) float32 canonical polygons, px.

        Returns:
            ``(polygons (K, 4, 2), halves (K, 2, S, S, 3), probs (K, 2, C), moved (K,) bool)``.
        """
        K = len(polygons)
        P = np.asarray(polygons, np.float64)
        u = ((P[:, 1] - P[:, 0]) + (P[:, 2] - P[:, 3])) / 2  # (K, 2) long side vector
        v = ((P[:, 3] - P[:, 0]) + (P[:, 2] - P[:, 1])) / 2  # short side vector
        best_p = P.copy()
        best_h = self.cut(frame, P.astype(np.float32))
        best_pr = self.classify(best_h.reshape(-1, self.half_px, self.half_px, 3)).reshape(K, 2, -1)
        best_s = np.log(best_pr.max(2) + 1e-9).sum(1)
        for steps, axis in ((self.ALONG, u), (self.ACROSS, v)):
            base = best_p.copy()
            cand = np.concatenate([base + f * axis[:, None, :] for f in steps])  # (n*K, 4, 2)
            h = self.cut(frame, cand.astype(np.float32))
            pr = self.classify(h.reshape(-1, self.half_px, self.half_px, 3)).reshape(len(cand), 2, -1)
            sc = np.log(pr.max(2) + 1e-9).sum(1).reshape(len(steps), K)
            j = sc.argmax(0)
            for k in range(K):
                if sc[j[k], k] > best_s[k]:
                    idx = j[k] * K + k
                    best_s[k], best_p[k], best_h[k], best_pr[k] = sc[j[k], k], cand[idx], h[idx], pr[idx]
        moved = np.abs(best_p - P).max(axis=(1, 2)) > 1e-6
        return best_p.astype(np.float32), best_h, best_pr, moved
