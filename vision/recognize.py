"""Frame -> tiles: detection, pip reading, set-aware decoding, table coordinates.

    from vision.recognize import Recognizer, recognize
    rec = Recognizer(threads=2)                      # loads both ONNX models once
    tiles = rec(frame, profile)                      # list[TileObservation]
    tiles = recognize(frame)                         # one-off (cached default Recognizer)

Pipeline (docs/recognition.md):

1. the frame ((H, W) grey, (H, W, 3) BGR or (H, W, 4) BGRA uint8, any size) becomes BGR;
2. the tile size in pixels comes from ``tile_px``, else the calibration profile (tile
   length in mm x local scale at the table centre), else a coarse-to-fine search;
3. :class:`vision.detector.OBBDetector` finds oriented boxes (class tile_up/tile_down);
4. the tile verifier (:class:`models.runtime.TileVerifier`) looks at each face-down box with
   its surroundings and drops those it is sure hold no tile (table texture boxed as a tile
   back), and, once read (step 5), each face-up box read blank (0-0) that shows no divider;
   other face-up boxes have the pip reader to vouch for them; then face-down boxes the
   detector is unsure of and whose colour is no set back's seen in the frame are dropped
   (:func:`vision.set_backs.unlike_backs`);
5. face-up tiles: halves cut from the full-resolution frame, read by
   :class:`vision.pip_reader.PipReader` (learned, cross-checked by the classical counter);
6. :func:`vision.set_constraint.resolve_readings` applies the set constraint;
7. with a table-calibrated profile, boxes whose centre lies off the table (a tile held in a
   hand, an overlay drawn on the picture, the floor) are dropped before reading
   (:data:`OFF_TABLE_MARGIN`), and each tile gets its centre (mm) and long-axis angle
   (degrees) on the table.
"""

from __future__ import annotations

import math
import os
from collections import Counter
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from models.runtime import TileVerifier
from vision.crops import canonical_polygon, context_crop, divider_contrast, face_colours_lab
from vision.set_backs import BACK_CHROMA_MAX, unlike_backs
from vision.detector import (ACCEPT_SCORE, MIN_SUPPORT, TARGET_TILE_PX, Detections, OBBDetector, derived_from,
                             make_session)
from vision.exposure import lift_dim
from vision.glare_pips import GLARE_CONFIDENCE, GLARE_SCORE, glare_tiles
from vision.obb import changed_share, convex_overlap
from vision.observation import (FLAG_DUPLICATE, FLAG_FRAME_EDGE, FLAG_GLARE_FIT, FLAG_PIP_DISAGREE, TileObservation,
                               touches_frame)
from vision.pip_reader import FLAG_PIPS_BEYOND_SET, PipReader
from vision.set_constraint import pictures_of_held_tiles, resolve_readings, set_tiles
from vision.tile_turn import tile_patch

if TYPE_CHECKING:  # pragma: no cover
    from calibration.profile import TableProfile

__all__ = ["Recognizer", "FocusedRecognize", "FOCUS_THRESHOLD", "recognize", "ModelsMissingError",
           "DEFAULT_DETECTOR", "INT8_DETECTOR", "DYNAMIC_DETECTOR", "default_detector", "check_profile",
           "DEFAULT_PIP_READER", "as_bgr", "table_pose", "off_table_dropped", "OFF_TABLE_MARGIN", "off_table_message",
           "OFF_TABLE_SURE_SCORE", "SECOND_LOOK_SCALE", "SCALE_OFF_FACTOR", "profile_tile_px", "table_share"]

#: Default ``read_threshold`` of :class:`Recognizer` (measured on DDD photos and the held-out
#: synthetic frames, docs/benchmarks.md).
READ_THRESHOLD = 0.2
#: Default ``focus_threshold``: on the part of the table that just changed (a footage read,
#: ``focus``) face-up boxes down to this score are kept when the pip reader vouches for them
#: (a blank double at a corner of the line scored 0.14 the moment it was laid, 0.37 later).
FOCUS_THRESHOLD = 0.1
#: ... when at least this share of the box changed (a printed domino on a game board next to a
#: new tile scores 0.1-0.2 too, but its pixels did not change).
FOCUS_MIN_CHANGED = 0.5
#: A ``second_look`` (the read that confirms a tile gone) scales the frame for tiles this many times
#: the known size, i.e. 1 / 0.88 = 1.14x larger in the detector input (45 px instead of 40, inside the
#: trained 28-56 px). The detector's misses depend on the scale, and a still frame read again at the same
#: scale repeats them: jersey-partnership seed 37 (held-out marble) at its calibrated 51 px boxed neither
#: the line's 2-6 and 1-2 nor E's new 6-0 in two reads, which became two take-backs and 9 plays lost;
#: at 0.88x all three were boxed (0.66, 0.36, 0.91).
SECOND_LOOK_SCALE = 0.88
_MODELS = Path(os.environ.get("DOMINOCAST_MODELS") or Path(__file__).resolve().parent.parent / "models")
#: Default model files (shipped in ``models/``; the ``DOMINOCAST_MODELS`` folder when that is set).
#: ``DOMINOCAST_DETECTOR`` names another detector file, e.g. ``models/tile_detector.int8.onnx``
#: (``python -m models.quantize``: ~0.7x the latency, slightly lower precision; models/tile_detector.md).
DEFAULT_DETECTOR = Path(os.environ.get("DOMINOCAST_DETECTOR") or _MODELS / "tile_detector.onnx")
#: The int8 detector (same interface as the fp32 one; pass it as ``detector_path``).
INT8_DETECTOR = _MODELS / "tile_detector.int8.onnx"
#: The same weights as ``tile_detector.onnx`` exported with a dynamic input size
#: (``python -m models.export_dynamic``): one detector pass per frame instead of 8 windows
#: at 1080p, ~0.7x the detector time.  Used by default when present and current.
DYNAMIC_DETECTOR = _MODELS / "tile_detector.dynamic.onnx"
DEFAULT_PIP_READER = _MODELS / "pip_reader.onnx"
#: Tile long side (px) below which pips are misread noticeably more often in compressed footage:
#: rendered val frames downscaled and JPEG-compressed (quality 40), tiles both halves right 0.993 at
#: 48 px, 0.989 at 32 px, 0.982 at 24-28 px, 0.958 at 20 px (bench/tile_size_sweep.py, docs/recognition.md).
READABLE_TILE_PX = 28.0
#: With a table-calibrated profile, a box whose centre lies more than this many tile lengths
#: outside the table's edges is dropped: no tile rests there. Half a tile leaves room for a
#: calibration a few millimetres off and for a tile's raised top face, which an oblique camera
#: shows displaced outwards.
OFF_TABLE_MARGIN = 0.5
#: The tile verifier (``dominocast train verifier``, models/tile_verifier.md).
DEFAULT_VERIFIER = _MODELS / "tile_verifier.onnx"
#: Default ``none_threshold`` of :class:`Recognizer`: face-down boxes the verifier gives at least
#: this probability of holding no tile are dropped: the lowest that loses no true tile on 60 val
#: frames (0.7 loses 2), models/tile_verifier.md "Threshold".
NONE_THRESHOLD = 0.8
#: A box the frame's edge cuts is dropped when less than this share of a tile's area (``tile_px`` x
#: ``tile_px`` / 2) lies in the frame: under a quarter of a tile shows no half whole, nothing to read or to
#: tell from table. Rendered frames (bench seed 0): true tiles' boxes keep at least 0.33 of a tile in the
#: frame (60 val, 120 held-out frames); below 0.25, 5 false boxes and 53 on tiles under half visible.
EDGE_MIN_TILE_SHARE = 0.25
#: A given tile size (``tile_px``, or a calibration's tile at the table centre) is called wrong when the tiles
#: in the frame measure more than this many times it, or less than its inverse (:meth:`Recognizer.scale_check`).
#: The detector was trained on tiles 0.7-1.4x its target size (28-56 px around 40), so beyond 1.5x they lie
#: outside what it saw. helper-187, a frame of 53 px tiles: --tile-px 200 found 1 of 28, --tile-px 20 47
#: "tiles" (halves, a board's pictures), a profile with a 25 mm tile for 48 mm ones 40 (13 read twice); with
#: the right size its sure boxes measure 0.97x (--tile-px 55) and 1.00x (its own profile).
SCALE_OFF_FACTOR = 1.5
#: A face-up box read 0-0 is dropped when the verifier gives it P(none) >= this and it shows no
#: divider: with no pips to vouch for it, the divider is the evidence, and the verifier only keeps a
#: tile whose divider a glare washed out (true 0-0 tiles: P(none) <= 0.36 on 180 rendered frames).
BLANK_NONE_THRESHOLD = 0.5
#: ... no divider: :func:`vision.crops.divider_contrast` (L*) under this. True blank tiles show
#: 16-84 (rendered and real), bare table boxed as a tile 0.1.
DIVIDER_MIN_CONTRAST = 8.0


def _dynamic_wanted() -> bool:
    """No ``$DOMINOCAST_DETECTOR`` and both files present: the dynamic export is worth checking."""
    try:
        return not os.environ.get("DOMINOCAST_DETECTOR") and DYNAMIC_DETECTOR.is_file() and DEFAULT_DETECTOR.is_file()
    except OSError:  # an unreadable models folder: the loading that follows names the file
        return False


def default_detector() -> Path:
    """The detector file a :class:`Recognizer` loads when given none.

    ``$DOMINOCAST_DETECTOR`` when set; else :data:`DYNAMIC_DETECTOR` when it exists and
    was exported from the present :data:`DEFAULT_DETECTOR` (:func:`vision.detector.derived_from`:
    a stale export after a retraining is ignored); else :data:`DEFAULT_DETECTOR`.
    """
    if _dynamic_wanted():
        try:
            if derived_from(make_session(DYNAMIC_DETECTOR), DEFAULT_DETECTOR):
                return DYNAMIC_DETECTOR
        except Exception:  # noqa: BLE001 - an unreadable optional file: fall back to the shipped one
            pass
    return DEFAULT_DETECTOR


def _load_default_detector(*args) -> OBBDetector:
    """:class:`OBBDetector` of :func:`default_detector`'s choice, the dynamic file loaded once
    (its own session answers whether it is current). ``args``: OBBDetector's after the path."""
    if _dynamic_wanted():
        try:
            det = OBBDetector(DYNAMIC_DETECTOR, *args)
            if derived_from(det.session, DEFAULT_DETECTOR):
                return det
        except Exception:  # noqa: BLE001 - an unreadable optional file: fall back to the shipped one
            pass
    return OBBDetector(DEFAULT_DETECTOR, *args)


class ModelsMissingError(FileNotFoundError):
    """A model file is missing; the message says how to get it (one line)."""


def _dropped(obs: list[TileObservation], up: list[TileObservation], readings, drop: np.ndarray,
             keep: list[TileObservation] = ()):
    """``(obs, up, readings)`` less the face-up tiles of ``up`` where the (M,) bool ``drop`` is True
    (``readings``: their :class:`vision.pip_reader.HalfReadings`, in ``up``'s order); those in ``keep``
    leave ``up`` and ``readings`` only (no longer read as face up, still tiles)."""
    if not drop.any():
        return obs, up, readings
    gone = {id(o) for o, x in zip(up, drop) if x} - {id(o) for o in keep}
    return ([o for o in obs if id(o) not in gone], [o for o, x in zip(up, drop) if not x],
            readings.subset(~drop))


def as_bgr(frame: np.ndarray) -> np.ndarray:
    """Validate a frame and return it as (H, W, 3) uint8 BGR (no copy when already BGR).

    Raises:
        TypeError: not a uint8 numpy array.
        ValueError: empty, or not (H, W), (H, W, 1), (H, W, 3) or (H, W, 4).
    """
    import cv2

    if not isinstance(frame, np.ndarray):
        raise TypeError(f"frame must be a numpy array, got {type(frame).__name__}")
    if frame.dtype != np.uint8:
        raise TypeError(f"frame must be uint8, got {frame.dtype}")
    if frame.ndim not in (2, 3) or frame.shape[0] < 1 or frame.shape[1] < 1:
        raise ValueError(f"frame must be a non-empty (H, W[, C]) image, got shape {frame.shape}")
    if frame.ndim == 2:
        return cv2.cvtColor(frame, cv2.COLOR_GRAY2BGR)
    c = frame.shape[2]
    if c == 1:
        return cv2.cvtColor(frame[:, :, 0], cv2.COLOR_GRAY2BGR)
    if c == 3:
        return frame
    if c == 4:
        return cv2.cvtColor(frame, cv2.COLOR_BGRA2BGR)
    raise ValueError(f"frame must have 1, 3 or 4 channels, got {c}")


def check_profile(profile: TableProfile, frame_shape: tuple[int, ...]) -> None:
    """Whether ``profile`` fits frames of ``frame_shape`` (H, W[, C]).

    Raises:
        CalibrationError: the profile has no table calibration.
        ValueError: it was calibrated for another image size (message names both sizes).
    """
    h, w = frame_shape[:2]
    if profile.homography is None:
        from calibration.errors import CalibrationError

        raise CalibrationError(f"profile {profile.name!r} has no table calibration; run `dominocast calibrate table`")
    if tuple(profile.image_size) != (w, h):
        raise ValueError(f"frame is {w}x{h} px but profile {profile.name!r} was calibrated for "
                         f"{profile.image_size[0]}x{profile.image_size[1]} px")


def profile_tile_px(profile: TableProfile) -> float:
    """Tile long side in image px at the table centre, from the profile's tile size and homography
    (:meth:`calibration.profile.TableProfile.tile_px_at_centre`).

    Raises:
        CalibrationError: the profile has no table calibration.
    """
    return profile.tile_px_at_centre()


#: Points per side of the grid :func:`table_share` maps onto the table (64 x 64: the share to 0.03 %).
TABLE_SHARE_GRID = 64


def table_share(profile: TableProfile, frame_shape: tuple[int, ...]) -> float:
    """Share of a frame of ``frame_shape`` (H, W[, C]) that the calibrated table covers, 0-1.

    A grid of :data:`TABLE_SHARE_GRID` x :data:`TABLE_SHARE_GRID` pixel centres is mapped onto
    the table; a point the homography sends to infinity (a table behind the camera's horizon)
    counts as off it. Mapping the table's corners into the image instead fails there.

    Raises:
        CalibrationError: the profile has no table calibration (homography and table size).
    """
    h, w = frame_shape[:2]
    u = (np.arange(TABLE_SHARE_GRID) + 0.5) / TABLE_SHARE_GRID
    xs, ys = np.meshgrid(u * w - 0.5, u * h - 0.5)  # OpenCV pixel-centre convention, as table_pose
    with np.errstate(all="ignore"):  # a degenerate profile maps points to inf / nan: off the table
        mm = profile.image_to_table(np.stack([xs.ravel(), ys.ravel()], 1))
        return float(profile.on_table(mm).mean())


def table_pose(polygon_px: np.ndarray, profile: TableProfile) -> tuple[np.ndarray, float]:
    """Centre (mm) and long-axis direction (degrees) of a canonical polygon on the table.

    Args:
        polygon_px: (4, 2) float corners in pixel-edge coordinates, edge 0->1 = long side.
        profile: a table-calibrated profile (OpenCV pixel-centre convention, hence -0.5 px).

    Returns:
        ``(center_mm (2,) float32, angle_deg)``; the angle is the direction from the
        corner-0/3 end to the corner-1/2 end, in (-180, 180].
    """
    mm = profile.image_to_table(np.asarray(polygon_px, np.float64).reshape(4, 2) - 0.5).astype(np.float64)
    centre = mm.mean(0)
    axis = (mm[1] - mm[0]) + (mm[2] - mm[3])
    ang = math.degrees(math.atan2(axis[1], axis[0]))
    if ang <= -180.0:
        ang += 360.0
    return centre.astype(np.float32), float(ang)


def off_table_dropped(obs: list[TileObservation], profile: TableProfile) -> list[TileObservation]:
    """The observations whose centre lies on the calibrated table (:data:`OFF_TABLE_MARGIN`).

    Args:
        obs: observations with ``polygon_px`` (4, 2) float image px.
        profile: a profile with a table calibration (homography and table size).

    Raises:
        CalibrationError: the profile has no table calibration.
    """
    if not obs:
        return obs
    centres = np.stack([o.polygon_px.mean(0) for o in obs]).astype(np.float64) - 0.5  # pixel-centre convention
    keep = profile.on_table(profile.image_to_table(centres), OFF_TABLE_MARGIN * profile.tile_size_mm.length)
    return [o for o, k in zip(obs, keep) if k]


#: Detector score from which a box dropped off the calibrated table was surely a tile. The bench's footage
#: with its own profiles (all-fives, bdc-partnership, block, draw; 16-34 reads each) drops 0-305 boxes off
#: the table (texture beyond its edge: 0.69-0.79 in a draw frame looked at), 0-2 of them scoring 0.85 or
#: more per review; with another table's profile (helper-145: 900 x 600 mm for a 1 000 x 600 table) 243 of
#: 243 in 17 reads, the hands among them.
OFF_TABLE_SURE_SCORE = 0.85


def off_table_message(boxes: int, calibration: str) -> str:
    """What to tell of ``boxes`` dropped as off the table the profile ``calibration`` calibrates."""
    return (f"{boxes} {'box' if boxes == 1 else 'boxes'} off the calibrated table dropped (a tile held up, the floor, "
            "text on the picture); if tiles on the table are missing, the camera may have moved since "
            f"{calibration} was made, or it is another table's: run `dominocast calibrate table` again")


def _missing(path: Path, what: str) -> ModelsMissingError:
    return ModelsMissingError(f"model file {path} is missing: train it with `dominocast train {what}` "
                              f"(or copy the released {path.name} into {path.parent})")


class Recognizer:
    """Loads the ONNX models once; call it on frames.

    Args:
        detector_path: tile detector ONNX (default :func:`default_detector`: ``$DOMINOCAST_DETECTOR``,
            else ``models/tile_detector.dynamic.onnx`` when current, else ``models/tile_detector.onnx``;
            :data:`INT8_DETECTOR` is the quantized one).
        pip_reader_path: pip reader ONNX (default ``models/pip_reader.onnx``).
        threads: onnxruntime intra-op threads per model.
        n_sets: complete sets on the table (each tile exists ``n_sets`` times).
        conf_threshold: detector score threshold.
        read_threshold: face-up boxes scoring from this up to ``conf_threshold`` are kept only
            when both halves read at ``confident`` or more and the classical counter does
            not disagree (the pip reader vouches for the tile); None or >= ``conf_threshold``
            turns this off.  Real tiles often score 0.2-0.35 (DDD photos, docs/recognition.md step 6b).
        iou_threshold: rotated-NMS IoU threshold.
        cross_check: ``"uncertain"`` (halves the network is < 0.9 sure of), ``"all"`` or
            ``"none"``: which halves the classical pip counter cross-checks
            (:class:`vision.pip_reader.PipReader`; "all" costs ~10-25 ms per half).
        confident: half confidence at or above which the set constraint never changes a reading.
        tile_px: fixed tile long side in frame px (skips the profile / search).
        target_px: tile long side the frame is scaled to for the detector, px.
        verifier_path: tile verifier ONNX (default, or True: ``models/tile_verifier.onnx``); False
            turns the verification off.
        none_threshold: face-down boxes whose verifier probability of "no tile" is at least this
            are dropped; in (0, 1].
        focus_threshold: the ``read_threshold`` for boxes on a call's ``focus`` (where the table
            just changed); None turns this off.
        back_chroma_max: face-down boxes scoring below 0.9 whose colour is further than this from
            every surer face-down box's are dropped (:func:`vision.set_backs.unlike_backs`); None
            turns this off.
        glare_fit: look for face-up tiles washed out by glare in the frame's near-white areas, from
            their pips (:func:`vision.glare_pips.glare_tiles`; flagged ``glare_fit``).

    Raises:
        ModelsMissingError: a model file is missing.
        ValueError: a model file onnxruntime cannot load, a verifier without 3 output classes,
            ``none_threshold`` outside (0, 1].
    """

    def __init__(self, detector_path: str | Path | None = None, pip_reader_path: str | Path | None = None,
                 threads: int = 1, n_sets: int = 1, conf_threshold: float = 0.35, iou_threshold: float = 0.5,
                 cross_check: bool | str = "uncertain", confident: float = 0.9, tile_px: float | None = None,
                 target_px: float = TARGET_TILE_PX, read_threshold: float | None = READ_THRESHOLD,
                 verifier_path: str | Path | bool | None = None, none_threshold: float = NONE_THRESHOLD,
                 focus_threshold: float | None = FOCUS_THRESHOLD, back_chroma_max: float | None = BACK_CHROMA_MAX,
                 glare_fit: bool = True):
        det = Path(detector_path) if detector_path else (DYNAMIC_DETECTOR if _dynamic_wanted() else DEFAULT_DETECTOR)
        pip = Path(pip_reader_path) if pip_reader_path else DEFAULT_PIP_READER
        if not det.is_file():
            raise _missing(det, "quantize" if det.name.endswith(".int8.onnx") else "detector")
        if not pip.is_file():
            raise _missing(pip, "pips")
        if not 0 < float(none_threshold) <= 1:  # also refuses nan
            raise ValueError(f"none_threshold must be in (0, 1], got {none_threshold}")
        ver = (None if verifier_path is False
               else DEFAULT_VERIFIER if verifier_path is None or verifier_path is True else Path(verifier_path))
        if ver is not None and not ver.is_file():
            raise _missing(ver, "verifier")
        self.conf_threshold = float(conf_threshold)
        self.read_threshold = min(self.conf_threshold, read_threshold if read_threshold is not None else 1.0)
        self.focus_threshold = min(self.read_threshold, focus_threshold if focus_threshold is not None else 1.0)
        args = (threads, self.focus_threshold, iou_threshold, target_px)
        self.detector = OBBDetector(det, *args) if detector_path else _load_default_detector(*args)
        self.reader = PipReader(pip, threads, cross_check)
        #: None when verification is off.
        self.verifier = TileVerifier(ver, threads) if ver is not None else None
        self.none_threshold = float(none_threshold)
        self.back_chroma_max = None if back_chroma_max is None else float(back_chroma_max)
        self.glare_fit = bool(glare_fit)
        self.n_sets = int(n_sets)
        self.confident = float(confident)
        self.tile_px = tile_px
        self.last_tile_px: float | None = None
        #: Boxes of the last call dropped as off the calibrated table (:func:`off_table_dropped`), and how
        #: many of them scored :data:`OFF_TABLE_SURE_SCORE` or more (tiles, not texture beyond the table).
        self.last_off_table = self.last_off_table_sure = 0

    def bind(self, profile: TableProfile | None = None) -> FocusedRecognize:
        """This recognizer with a fixed profile, as the footage pipeline calls it (with ``focus``)."""
        return FocusedRecognize(self, profile)

    def __call__(self, frame: np.ndarray, profile: TableProfile | None = None,
                 tile_px: float | None = None, focus: np.ndarray | None = None,
                 second_look: bool = False) -> list[TileObservation]:
        """Recognize the tiles in one frame.

        Args:
            frame: (H, W) grey, (H, W, 3) BGR or (H, W, 4) BGRA uint8 image.
            profile: table calibration (same image size as ``frame``) for table coordinates.
            tile_px: tile long side in px for this frame (overrides profile and search).
            focus: (H, W) bool, True where the table just changed
                (:meth:`vision.motion.MotionInfo.changed_mask`): face-up boxes with at least
                :data:`FOCUS_MIN_CHANGED` of their area on it count from ``focus_threshold``
                instead of ``read_threshold`` (the pip reader still has to vouch for them).
            second_look: a read that confirms what the last one missed: with a known tile size the
                detector looks at tiles :data:`SECOND_LOOK_SCALE` times that size (the same frame at the
                same scale would repeat a miss); sizes given back (``last_tile_px``) stay the real ones.

        Returns:
            one :class:`TileObservation` per tile, highest detector score first.

        Raises:
            TypeError, ValueError: bad frame; profile for another image size.
            CalibrationError: the profile has no table calibration.
        """
        bgr = lift_dim(as_bgr(frame))  # a dim photo's tiles are read in its levels lifted
        if profile is not None:
            check_profile(profile, bgr.shape)
        size = tile_px or self.tile_px or (profile_tile_px(profile) if profile is not None else None)
        if size:
            dets = self.detector.detect(bgr, size * SECOND_LOOK_SCALE if second_look else size)
            dets.tile_px = size  # the tiles' size in the frame (edge slivers, glare fits), not the look's
        else:
            dets = self.detector.detect_auto(bgr)
        dets = dets.without_straddling()
        self.last_tile_px = dets.tile_px
        H, W = bgr.shape[:2]
        obs: list[TileObservation] = []
        for poly, score, cls in zip(dets.polygons, dets.scores, dets.classes):
            floor = (self.focus_threshold if score < self.read_threshold and focus is not None
                     and changed_share(poly, focus) >= FOCUS_MIN_CHANGED else self.read_threshold)
            if score < floor or (score < self.conf_threshold and int(cls) != 0):
                continue  # too weak, or weak and face down: no pips to vouch for it
            p = canonical_polygon(poly)
            o = TileObservation(p, "up" if int(cls) == 0 else "down", float(score))
            if touches_frame(p, (W, H)):
                inside, _ = convex_overlap(p, np.float32([[0, 0], [W, 0], [W, H], [0, H]]))
                if dets.tile_px and inside < EDGE_MIN_TILE_SHARE * dets.tile_px ** 2 / 2:
                    continue  # a sliver of a tile (or of nothing) at the edge: no tile to read or count
                o.flags.append(FLAG_FRAME_EDGE)
            obs.append(o)
        self.last_off_table = self.last_off_table_sure = 0
        if profile is not None and profile.homography is not None and profile.table_size_mm is not None:
            kept = off_table_dropped(obs, profile)
            on = {id(o) for o in kept}
            self.last_off_table = len(obs) - len(kept)
            self.last_off_table_sure = sum(1 for o in obs if id(o) not in on and o.det_score >= OFF_TABLE_SURE_SCORE)
            obs = kept
        down = [o for o in obs if o.face == "down"]
        if self.verifier is not None and down:  # face-up boxes have the pip reader to vouch for them
            p_none = self.verifier.p_none(np.stack([context_crop(bgr, o.polygon_px) for o in down]))
            gone = {id(o) for o, p in zip(down, p_none) if p >= self.none_threshold}
            obs = [o for o in obs if id(o) not in gone]
            down = [o for o in down if id(o) not in gone]
        if self.back_chroma_max is not None and down:  # table texture has the table's colour, not the set's
            odd = unlike_backs(bgr, np.stack([o.polygon_px for o in down]), np.array([o.det_score for o in down]),
                               self.back_chroma_max)
            gone = {id(o) for o, x in zip(down, odd) if x}
            obs = [o for o in obs if id(o) not in gone]
        up = [o for o in obs if o.face == "up"]
        if up:
            hr = self.reader.read(bgr, np.stack([o.polygon_px for o in up]))
            weak = np.array([o.det_score < self.conf_threshold for o in up])
            if weak.any():
                vouched = (hr.conf >= self.confident).all(1) & ~hr.disagree.any(1)
                obs, up, hr = _dropped(obs, up, hr, weak & ~vouched)
            bare, backs = self._blank_boxes(bgr, up, hr.probs)
            turned = [o for o, x in zip(up, backs) if x]
            for o in turned:
                o.face = "down"  # a tile back (see _blank_boxes): counted as the face-down tile it is
            obs, up, hr = _dropped(obs, up, hr, bare | backs, keep=turned)
            # before the set constraint, so that a picture's reading neither flags the tile it shows
            # as a duplicate nor moves another reading
            raw = [tuple(int(v) for v in r) for r in hr.probs.argmax(2)]
            pictures = pictures_of_held_tiles(raw, np.array([o.det_score for o in up]),
                                              (hr.conf >= self.confident).all(1), self.n_sets)
            obs, up, hr = _dropped(obs, up, hr, pictures)
            res = resolve_readings(hr.probs, hr.conf, self.n_sets, self.confident)
            labs = face_colours_lab(bgr, hr.polygons)
            for i, (o, r) in enumerate(zip(up, res)):
                o.polygon_px = hr.polygons[i]
                o.face_lab = tuple(float(v) for v in labs[i])
                o.patch = tile_patch(bgr, o.polygon_px)  # a knocked tile's turn is registered from it
                o.half_probs = hr.probs[i]
                o.raw_pips = r.raw_pips
                o.pips = r.pips
                o.half_confidence = r.half_confidence
                if (hr.classical[i] >= 0).any():
                    o.classical_pips = tuple(int(v) if v >= 0 else None for v in hr.classical[i])  # type: ignore
                if hr.disagree[i].any():
                    o.flags.append(FLAG_PIP_DISAGREE)
                if hr.beyond is not None and hr.beyond[i].any():
                    o.flags.append(FLAG_PIPS_BEYOND_SET)  # a larger set's half: the reading is wrong (helper-187)
                o.flags.extend(r.flags)
        if self.glare_fit and dets.tile_px:
            obs += self._glare_tiles(bgr, float(dets.tile_px), obs)
        if profile is not None:
            for o in obs:
                o.center_mm, o.angle_deg = table_pose(o.polygon_px, profile)
        return obs

    def scale_check(self, frame: np.ndarray, tiles: list[TileObservation], tile_px: float) -> float | None:
        """The tiles' long side measured in ``frame``, px, when the size they were looked for at is wrong.

        ``tiles`` is this recognizer's result for ``frame`` at the given tile size ``tile_px`` (px: the
        ``tile_px`` argument, or the profile's :func:`profile_tile_px`). Their boxes scoring
        :data:`vision.detector.ACCEPT_SCORE` or more and tile-shaped are measured (median long side)
        without a detector pass. Only when the result looks wrong (under :data:`vision.detector.MIN_SUPPORT`
        such boxes, their size off ``tile_px``, a tile flagged duplicate, or more tiles than ``n_sets``
        double-six sets hold) the frame is measured again by the size search
        (:meth:`vision.detector.OBBDetector.detect_auto`), whose measure then counts: at a wrong size the
        sure boxes are often things of that size (--tile-px 20 on 53 px tiles: halves, 28 px).

        Returns:
            the measured long side (px) when it is more than :data:`SCALE_OFF_FACTOR` times ``tile_px`` or
            less than its inverse; None when it is not, or when under ``MIN_SUPPORT`` boxes measure it.

        Raises:
            TypeError, ValueError: a bad frame (:func:`as_bgr`), ``tile_px`` not > 0.
        """
        if not tile_px > 0:
            raise ValueError(f"tile_px must be > 0, got {tile_px}")

        def off(px: float) -> bool:
            return max(px / tile_px, tile_px / px) > SCALE_OFF_FACTOR

        own = [t for t in tiles if FLAG_GLARE_FIT not in t.flags]  # glare fits are drawn at tile_px: no measure
        measured = None
        if own:
            d = Detections(np.stack([t.polygon_px for t in own]).astype(np.float32),
                           np.array([t.det_score for t in own], np.float32), np.zeros(len(own), np.int64))
            sure = d.long_sides()[d.confident(ACCEPT_SCORE)]
            measured = float(np.median(sure)) if len(sure) >= MIN_SUPPORT else None
        if (measured is not None and not off(measured) and not any(FLAG_DUPLICATE in t.flags for t in tiles)
                and len(tiles) <= self.n_sets * len(set_tiles())):
            return None  # the normal case: no second pass
        found = self.detector.detect_auto(as_bgr(frame))
        good = found.confident(ACCEPT_SCORE)
        if good.sum() >= MIN_SUPPORT:
            measured = float(np.median(found.long_sides()[good]))
        return measured if measured is not None and off(measured) else None

    def _blank_boxes(self, bgr: np.ndarray, up: list[TileObservation], probs: np.ndarray
                     ) -> tuple[np.ndarray, np.ndarray]:
        """Two (M,) bool masks of the face-up boxes read "0-0" with no divider
        (:func:`vision.crops.divider_contrast` < :data:`DIVIDER_MIN_CONTRAST`; a real blank tile shows one):
        ``bare``, those the verifier leans to calling no tile (P(none) >= :data:`BLANK_NONE_THRESHOLD`):
        bare marble boxed at an open end was recorded as a play of 0-0 in a photo folder; and ``backs``,
        the rest that it calls face down rather than face up: a black set's back in a boneyard column,
        read 0-0 at 0.26, was an unplaced tile that kept a perfect review's score from being final
        (helper-144). The verifier alone would take real blank tiles, flat and rim-less, for bare table
        (36 of DDD's at P(none) >= 0.8). ``probs``: (M, 2, C)."""
        bare, backs = np.zeros(len(up), bool), np.zeros(len(up), bool)
        idx = [i for i in np.flatnonzero(probs.argmax(2).sum(1) == 0)
               if divider_contrast(bgr, up[i].polygon_px) < DIVIDER_MIN_CONTRAST]
        if self.verifier is None or not idx:
            return bare, backs
        p = self.verifier.probs(np.stack([context_crop(bgr, up[i].polygon_px) for i in idx]))
        cls = {c: k for k, c in enumerate(self.verifier.CLASSES)}
        for i, (pu, pd, pn) in zip(idx, p[:, [cls["up"], cls["down"], cls["none"]]]):
            bare[i] = pn >= BLANK_NONE_THRESHOLD
            backs[i] = not bare[i] and pd > pu
        return bare, backs

    def _glare_tiles(self, bgr: np.ndarray, tile_px: float, obs: list[TileObservation]) -> list[TileObservation]:
        """Face-up tiles fitted to their pips in washed-out areas (:mod:`vision.glare_pips`), not on
        the boxes already kept; one the sets already hold as often as they can is left out."""
        boxes = np.stack([o.polygon_px for o in obs]) if obs else None
        held = Counter(tuple(sorted(o.pips)) for o in obs if o.pips is not None)
        out = []
        for t in glare_tiles(bgr, tile_px, boxes):
            key = tuple(sorted(t.pips))
            if held[key] >= self.n_sets:
                continue
            held[key] += 1
            out.append(TileObservation(t.polygon_px, "up", GLARE_SCORE, pips=t.pips, raw_pips=t.pips,
                                       half_confidence=(GLARE_CONFIDENCE,) * 2, flags=[FLAG_GLARE_FIT]))
        return out


#: Photos of a folder on which, without a calibration, the tile size is measured once for all
#: (``dominocast review``, spread over the folder: ``ImageFolderSource.sample``).
FOLDER_SIZE_PHOTOS = 5
#: :func:`folder_tile_px`: a photo's search counts when it finds at least this many tiles scoring 0.5.
FOLDER_SIZE_MIN_TILES = 3


def folder_tile_px(recognizer: Recognizer, images) -> float | None:
    """One tile size for a folder of photos one camera set-up took, without a calibration: the median of
    the sizes the coarse-to-fine search (:meth:`vision.detector.OBBDetector.detect_auto`) settles on in
    ``images`` (an iterable of (H, W, 3) uint8 BGR photos), counting the photos where it finds at least
    :data:`FOLDER_SIZE_MIN_TILES` tiles scoring 0.5; tile long side in px, None when no photo counts.
    Searched photo by photo, 5 of a folder's 55 settled on a wrong size (two huge boxes read 0|0 and
    1|0, the lead flagged a wrong start: helper-123)."""
    sizes = []
    for image in images:
        found = recognizer.detector.detect_auto(as_bgr(image))
        if found.tile_px and int((np.asarray(found.scores) >= 0.5).sum()) >= FOLDER_SIZE_MIN_TILES:
            sizes.append(float(found.tile_px))
    return float(np.median(sizes)) if sizes else None


class FocusedRecognize:
    """``image, focus=None -> observations``: a :class:`Recognizer` bound to a profile.

    :class:`service.review_pipeline.FramePipeline` passes what the motion gate saw change (``focus``) to
    callables that have ``takes_focus``; plain ``image -> observations`` callables get the
    image only.
    """

    takes_focus = True
    #: ... and ``second_look`` (:meth:`Recognizer.__call__`) for the read that confirms a tile gone.
    takes_second_look = True
    #: Its reads depend on the picture alone, not on the reads before: a folder review may read a photo ahead
    #: (:class:`service.review_pipeline.ReadAhead`) to compare the tiles of photos side by side.
    reads_alone = True

    def __init__(self, recognizer: Recognizer, profile: TableProfile | None):
        self.recognizer = recognizer
        self.profile = profile

    def __call__(self, image: np.ndarray, focus: np.ndarray | None = None,
                 second_look: bool = False) -> list[TileObservation]:
        return self.recognizer(image, self.profile, focus=focus, second_look=second_look)


_DEFAULT: Recognizer | None = None


def recognize(frame: np.ndarray, profile: TableProfile | None = None, **kwargs) -> list[TileObservation]:
    """Recognize the tiles of one frame with a shared default :class:`Recognizer`.

    ``kwargs`` (``threads``, ``n_sets``, ...) build a fresh recognizer instead of the
    cached default.  See :meth:`Recognizer.__call__` for arguments and errors.
    """
    global _DEFAULT
    if kwargs:
        return Recognizer(**kwargs)(frame, profile)
    if _DEFAULT is None:
        _DEFAULT = Recognizer()
    return _DEFAULT(frame, profile)
