"""Synthetic generator and dataset export: determinism, label geometry, held-out split, pip layouts."""

from __future__ import annotations

import dataclasses
import json

import cv2
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from datasets import build as B
from datasets.render import layouts as Ly
from datasets.render import scene as SC
from datasets.render import tiles as T
from datasets.render.camera import Camera
from vision.crops import canonical_polygon, rectified_halves, rectified_tile

FRAME = (640, 360)
IMGSZ = 192


def _count_blobs(img: np.ndarray, dark: bool) -> int:
    g = cv2.cvtColor(img, cv2.COLOR_BGR2GRAY)
    m = (g < 110) if dark else (g > 140)
    n, _, stats, _ = cv2.connectedComponentsWithStats(m.astype(np.uint8), connectivity=8)
    return int(sum(1 for k in range(1, n) if stats[k, cv2.CC_STAT_AREA] >= 4))


@pytest.mark.parametrize("n", list(range(13)))
def test_pip_layout_counts(n):
    rng = np.random.default_rng(0)
    for kind, dark in (("white", True), ("black", False)):
        style = T.make_style(kind, rng)
        half = T.render_half(n, style, 96)
        assert half.shape == (96, 96, 3) and half.dtype == np.uint8
        assert _count_blobs(half, dark) == n, (kind, n)
    assert T.pip_positions(n).shape == (n, 2)


def test_render_one_is_deterministic():
    a = B.render_one(3, seed=11, imgsz=IMGSZ, frame_size=FRAME)
    b = B.render_one(3, seed=11, imgsz=IMGSZ, frame_size=FRAME)
    assert a["frame"].tobytes() == b["frame"].tobytes()
    assert len(a["labels"]) == len(b["labels"]) > 0
    for la, lb in zip(a["labels"], b["labels"]):
        assert np.array_equal(la["polygon"], lb["polygon"]) and la["pips"] == lb["pips"]
    c = B.render_one(3, seed=12, imgsz=IMGSZ, frame_size=FRAME)
    assert c["frame"].tobytes() != a["frame"].tobytes()


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    out = tmp_path_factory.mktemp("ds")
    summary = B.build(out / "a", 12, seed=5, imgsz=IMGSZ, workers=1, frame_size=FRAME)
    return out, summary


def test_build_is_byte_identical(built, tmp_path):
    out, _ = built
    B.build(tmp_path / "b", 12, seed=5, imgsz=IMGSZ, workers=2, frame_size=FRAME)
    fa = sorted(p.relative_to(out / "a") for p in (out / "a").rglob("*") if p.is_file() and p.suffix != ".yaml")
    fb = sorted(p.relative_to(tmp_path / "b") for p in (tmp_path / "b").rglob("*") if p.is_file()
                and p.suffix != ".yaml")
    assert fa == fb and len(fa) > 50
    for rel in fa:
        assert (out / "a" / rel).read_bytes() == (tmp_path / "b" / rel).read_bytes(), rel


def test_yolo_labels_parse_and_are_normalised(built):
    out, summary = built
    d = out / "a" / "detect"
    data = (d / "data.yaml").read_text()
    assert "tile_up" in data and "tile_down" in data
    n_lines = 0
    for split in B.SPLITS:
        imgs = sorted((d / "images" / split).glob("*.jpg"))
        for img in imgs:
            im = cv2.imread(str(img))
            assert im.shape == (IMGSZ, IMGSZ, 3)
            lab = d / "labels" / split / f"{img.stem}.txt"
            for line in lab.read_text().split("\n"):
                if not line.strip():
                    continue
                v = line.split()
                assert len(v) == 9 and v[0] in ("0", "1")
                q = np.array(v[1:], float)
                assert ((q >= 0) & (q <= 1)).all()
                n_lines += 1
    assert n_lines > 20
    assert sum(c["detect_images"] for c in summary["counts"].values()) > 0


def test_held_out_split_uses_unseen_surface_and_style(built):
    out, summary = built
    recipe = json.loads((out / "a" / "recipe.json").read_text())
    rec = recipe["recipes"]
    seen_s = set(rec["train"]["surfaces"]) | set(rec["val"]["surfaces"])
    # a share of the training scenes lie on procedural textures (recipe 6), no held-out surface
    assert recipe["procedural_train_share"] > 0 and "procedural" not in rec["test"]["surfaces"]
    seen_s.add("procedural")
    seen_t = set(rec["train"]["styles"]) | set(rec["val"]["styles"])
    assert set(rec["test"]["surfaces"]) - seen_s, "test needs a surface never used in train/val"
    assert set(rec["test"]["styles"]) - seen_t, "test needs a tile style never used in train/val"
    for split in ("train", "val"):
        for f in (out / "a" / "detect" / "gt" / split).glob("*.json"):
            g = json.loads(f.read_text())
            assert g["surface"] in seen_s and g["style"] in seen_t
    # Sampling honours the recipes.
    rng = np.random.default_rng(1)
    for _ in range(30):
        spec = SC.sample_scene(rng, "train", *FRAME)
        assert spec.surface in seen_s and spec.style.name in seen_t


def _plain_scene(rng: np.random.Generator, k1: float = 0.0, tilt: float = 0.0) -> SC.SceneSpec:
    cam = Camera(w=640, h=360, px_per_mm=1.5, height_mm=900.0, target_mm=(0.0, 0.0), tilt_deg=tilt,
                 tilt_dir_deg=30.0, roll_deg=17.0, k1=k1)
    placements = [
        Ly.TilePlacement(-80.0, -20.0, 10.0, 1, 5, True),
        Ly.TilePlacement(0.0, 30.0, 95.0, 6, 3, True),
        Ly.TilePlacement(70.0, -30.0, -40.0, 0, 4, True),
        Ly.TilePlacement(120.0, 40.0, 60.0, 2, 2, False),
    ]
    style = T.TileStyle("white", (236, 238, 240), tuple([(20, 20, 20)] * 13), (40, 40, 40), False)
    return SC.SceneSpec(camera=cam, surface="felt", style=style, placements=placements, effects=None, seed=3,
                        shadow_mm=(2.0, 2.0, 0.3))


@pytest.mark.parametrize("k1,tilt", [(0.0, 0.0), (-0.1, 12.0), (0.06, 5.0)])
def test_polygons_match_rendered_tiles_and_pips(k1, tilt):
    rng = np.random.default_rng(0)
    spec = _plain_scene(rng, k1, tilt)
    frame, labels = SC.render_scene(spec)
    h, w = frame.shape[:2]
    surface = np.median(frame.reshape(-1, 3), axis=0)
    for lab, p in zip(labels, spec.placements):
        poly = lab["polygon"]
        assert poly.shape == (4, 2) and poly.dtype == np.float32
        assert lab["in_frame"] == pytest.approx(1.0, abs=0.02)
        assert (poly[:, 0] >= 0).all() and (poly[:, 0] <= w).all() and (poly[:, 1] >= 0).all()
        assert (poly[:, 1] <= h).all()
        tile = rectified_tile(frame, poly, 128)
        assert tile.shape == (64, 128, 3)
        inner = tile[8:-8, 8:-8].reshape(-1, 3).astype(float)
        # Mostly the white body: far from the felt colour.
        assert np.linalg.norm(np.median(inner, 0) - surface) > 80
        assert np.median(inner, 0).min() > 170
        if p.face_up:
            # Edge 0->1 is the long axis and the halves carry pips a, b in that order.
            assert np.linalg.norm(poly[1] - poly[0]) > 1.6 * np.linalg.norm(poly[3] - poly[0])
            ha, hb = rectified_halves(frame, poly, 128)
            m = 6
            assert _count_blobs(ha[m:-m, m:-m], True) == p.a
            assert _count_blobs(hb[m:-m, m:-m], True) == p.b
            assert lab["pips"] == [p.a, p.b] and lab["cls"] == 0
        else:
            assert lab["cls"] == 1 and lab["face"] == "down"


def test_full_scene_labels_in_bounds_and_visible_tiles_differ_from_surface():
    r = B.render_one(7, seed=2, imgsz=IMGSZ, frame_size=FRAME)
    frame, labels = r["frame"], r["labels"]
    h, w = frame.shape[:2]
    inside = [l for l in labels if l["in_frame"] > 0.999 and l["unoccluded"] > 0.999]
    assert inside
    for l in inside:
        p = l["polygon"]
        assert (p >= -1).all() and (p[:, 0] <= w + 1).all() and (p[:, 1] <= h + 1).all()
    # Pixels inside tile polygons differ from pixels far from every tile.
    mask = np.zeros((h, w), np.uint8)
    for l in labels:
        cv2.fillPoly(mask, [np.round(l["polygon"]).astype(np.int32)], 255)
    far = cv2.dilate(mask, np.ones((25, 25), np.uint8)) == 0
    if far.sum() > 1000:
        bg = frame[far].astype(float).mean(0)
        diffs = []
        for l in inside:
            m = np.zeros((h, w), np.uint8)
            cv2.fillPoly(m, [np.round(l["polygon"]).astype(np.int32)], 255)
            m = cv2.erode(m, np.ones((3, 3), np.uint8))
            if m.sum() == 0:
                continue
            diffs.append(np.linalg.norm(frame[m > 0].astype(float).mean(0) - bg))
        assert np.median(diffs) > 15


def test_canonical_polygon_and_crop_shapes():
    poly = np.array([[10, 10], [10, 60], [110, 60], [110, 10]], np.float32)  # 0->1 is a short edge
    c = canonical_polygon(poly)
    assert np.linalg.norm(c[1] - c[0]) > np.linalg.norm(c[2] - c[1])
    frame = np.zeros((100, 200, 3), np.uint8)
    ha, hb = rectified_halves(frame, poly, 64)
    assert ha.shape == hb.shape == (32, 32, 3) and ha.dtype == np.uint8


def test_pip_halves_labels_match_counts():
    """Halves exported for the pip reader carry the right class (white tiles, no effects)."""
    rng = np.random.default_rng(0)
    spec = _plain_scene(rng)
    frame, labels = SC.render_scene(spec)
    hv = B.pip_halves(frame, labels, np.random.default_rng(4), jitter=0.0)
    assert len(hv) == 6  # three face-up tiles, two halves each
    for n, half in hv:
        big = cv2.resize(half, (96, 96), interpolation=cv2.INTER_CUBIC)
        assert _count_blobs(big[10:-10, 10:-10], True) == n


def test_pip_split_loader_orders_classes(tmp_path):
    """Pip counts ascending (10 after 9); labels follow that order; other folders are not classes."""
    for name, n in (("10", 1), ("9", 2), ("0", 1), ("notes", 1)):
        (tmp_path / name).mkdir()
        for k in range(n):
            cv2.imwrite(str(tmp_path / name / f"s000001_{k:02d}.png"), np.full((32, 32, 3), k, np.uint8))
    assert B.half_class_names(tmp_path) == ["0", "9", "10"]
    x, y, names, stems = B.load_pip_split(tmp_path)
    assert x.shape == (4, 32, 32, 3) and y.tolist() == [0, 1, 1, 2]
    assert stems[:2] == ["s000001_00", "s000001_00"] and x[2, 0, 0, 0] == 1


def test_scene_render_speed():
    import time

    rng = np.random.default_rng(9)
    spec = SC.sample_scene(rng, "train", 1280, 720)
    t = time.perf_counter()
    SC.render_scene(spec)
    assert time.perf_counter() - t < 5.0  # ~0.15 s typical on one idle core; generous for loaded CI machines


# -- realism additions: game boards with printed dominoes, contact shadows, colour cast, tile shapes --

from datasets.render import surfaces as S  # noqa: E402


def test_game_board_prints_tile_sized_dominoes_that_are_never_labelled(monkeypatch):
    L = 60.0
    printed: list = []
    img = S._game_board(360, 640, np.random.default_rng(4), L, 0.0, printed)
    again = S._game_board(360, 640, np.random.default_rng(4), L, 0.0)
    assert img.shape == (360, 640, 3) and img.dtype == np.uint8
    assert np.array_equal(img, again)  # deterministic per seed
    inside = [p for p in printed if (p.mean(0) > 0).all() and p.mean(0)[0] < 640 and p.mean(0)[1] < 360]
    assert len(inside) >= 6
    longs = np.array([max(np.linalg.norm(p[1] - p[0]), np.linalg.norm(p[3] - p[0])) for p in inside])
    assert (longs > 0.85 * L).all() and (longs < 1.15 * L).all()  # as big as the scene's tiles
    # A scene on such a board with no tiles has no labels, however many printed dominoes it shows.
    monkeypatch.setattr(S, "make_surface", lambda kind, h, w, rng, tl=60.0, a=0.0: S._game_board(h, w, rng, tl, a))
    spec = _plain_scene(np.random.default_rng(0))
    spec = SC.SceneSpec(camera=spec.camera, surface="board", style=spec.style, placements=[], effects=None)
    frame, labels = SC.render_scene(spec)
    assert labels == [] and frame.std() > 10


def test_fixed_grid_angle_keeps_the_board_when_the_first_tile_turns(monkeypatch):
    """Footage renders a table version per move: the printed board must not change under it."""
    monkeypatch.setattr(S, "make_surface", lambda kind, h, w, rng, tl=60.0, a=0.0: S._game_board(h, w, rng, tl, a))
    base = _plain_scene(np.random.default_rng(0))
    first = base.placements[0]
    turned = [dataclasses.replace(first, angle_deg=first.angle_deg + 90.0)] + base.placements[1:]
    far = None
    frames = {}
    for fixed in (None, 0.0):
        for key, pl in (("a", base.placements), ("b", turned)):
            spec = dataclasses.replace(base, surface="board", placements=pl, grid_angle_deg=fixed)
            frames[fixed, key], labels = SC.render_scene(spec)
            m = np.zeros(frames[fixed, key].shape[:2], np.uint8)
            for lab in labels:
                cv2.fillPoly(m, [np.round(lab["polygon"]).astype(np.int32)], 1)
            m = cv2.dilate(m, np.ones((31, 31), np.uint8))  # tiles and their shadows
            far = (m == 0) if far is None else far & (m == 0)
    moved = {f: np.abs(frames[f, "a"].astype(int) - frames[f, "b"].astype(int))[far].mean() for f in (None, 0.0)}
    assert moved[0.0] == 0.0  # fixed: the board away from the tiles is the same picture
    assert moved[None] > 5.0  # following the first tile: the grid turns with it (what stills want)


def _ring_ratio(frame: np.ndarray, poly: np.ndarray) -> float:
    """Mean grey of a 1-4 px ring just outside ``poly`` / of a ring 14-18 px outside."""
    g = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY).astype(np.float64)
    m = np.zeros(g.shape, np.uint8)
    cv2.fillPoly(m, [np.round(poly).astype(np.int32)], 1)
    d = cv2.distanceTransform((1 - m).astype(np.uint8), cv2.DIST_L2, 5)
    return float(g[(d > 1) & (d <= 4)].mean() / g[(d > 14) & (d <= 18)].mean())


def _lens_forward(cam: Camera, pd: np.ndarray) -> np.ndarray:
    """Where the frame's pixel ``pd`` samples the undistorted render: Camera.distort_image's map."""
    c, s = np.array([cam.w / 2, cam.h / 2]), 0.5 * max(cam.w, cam.h)
    q = (pd - c) / s
    return q * (1 + cam.k1 * (q ** 2).sum(1, keepdims=True)) * s + c


@given(k1=st.floats(-0.12, 0.06), x=st.floats(0.0, 640.0), y=st.floats(0.0, 360.0))
@settings(max_examples=200, deadline=None)
def test_lens_points_invert_the_frame_mapping(k1, x, y):
    cam = Camera(w=640, h=360, px_per_mm=1.5, height_mm=900.0, target_mm=(0.0, 0.0), k1=k1)
    pd = np.array([[x, y]])
    assert np.abs(cam.distort_points(_lens_forward(cam, pd)) - pd).max() < 1e-6


def test_points_the_lens_cannot_show_land_off_the_frame():
    # scene 179 of the held-out bench: a tile corner 125 px above a 1280 x 720 frame (barrel lens) was
    # put at (833, 503), inside it, by a diverging fixed-point iteration: a "missed tile" in the bench
    cam = Camera(w=1280, h=720, px_per_mm=1.5, height_mm=900.0, target_mm=(0.0, 0.0), k1=-0.1156)
    far = np.array([[-14.0, -125.0], [-164.0, 54.0], [-2000.0, 360.0], [640.0, -3000.0]])
    d = cam.distort_points(far)
    off = (d[:, 0] < 0) | (d[:, 0] > 1280) | (d[:, 1] < 0) | (d[:, 1] > 720)
    assert off.all(), d
    # and along a ray the distorted radius keeps growing (a polygon across the limit stays convex)
    ray = cam.distort_points(np.stack([640 + np.linspace(0, 2000, 50), np.full(50, 360.0)], 1))
    assert (np.diff(ray[:, 0]) > 0).all()


def test_a_widening_lens_shows_only_labelled_tiles_at_the_frame_edges():
    # k1 > 0 samples past the frame's edges (up to 9 % at its corners); a mirrored edge showed
    # unlabelled mirror images of the tiles there (held-out scene 279: two "false boxes")
    cam = Camera(w=640, h=360, px_per_mm=1.5, height_mm=900.0, target_mm=(0.0, 0.0), k1=0.06)
    style = T.TileStyle("white", (236, 238, 240), tuple([(20, 20, 20)] * 13), (40, 40, 40), False)
    # tiles just inside the corners (a mirror copies them past the corner, where nothing lies),
    # along the top and bottom edges, and just past the left and right edges (only the lens shows them)
    placements = [Ly.TilePlacement(x, y, 0.0, 1, 2, True) for x in (-187.0, 187.0) for y in (-103.0, 103.0)]
    placements += [Ly.TilePlacement(float(x), y, 0.0, 5, 6, True) for x in np.linspace(-100, 100, 3) for y in (-118.0, 118.0)]
    placements += [Ly.TilePlacement(x, y, 90.0, 3, 4, True) for x in (-218.0, 218.0) for y in (-30.0, 30.0)]
    spec = SC.SceneSpec(camera=cam, surface="dark", style=style, placements=placements, effects=None, seed=4,
                        shadow_mm=(0.0, 0.0, 0.0))
    frame, labels = SC.render_scene(spec)
    white = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY) > 140
    near = np.zeros(white.shape, np.uint8)
    for lab in labels:
        cv2.fillPoly(near, [np.round(lab["polygon"]).astype(np.int32)], 1)
    near = cv2.dilate(near, np.ones((7, 7), np.uint8)) > 0
    assert int((white & ~near).sum()) == 0
    shown = [lab for lab in labels if lab["in_frame"] > 0.3]
    assert len(shown) >= 14
    for lab in shown:
        m = np.zeros(white.shape, np.uint8)
        cv2.fillPoly(m, [np.round(lab["polygon"]).astype(np.int32)], 1)
        assert white[m > 0].mean() > 0.6


def test_contact_shadow_darkens_a_rim_around_tiles_only_when_asked():
    cam = Camera(w=320, h=240, px_per_mm=2.0, height_mm=900.0, target_mm=(0.0, 0.0))
    style = T.TileStyle("white", (236, 238, 240), tuple([(20, 20, 20)] * 13), (40, 40, 40), False)
    ratios = []
    for contact in (0.0, 0.6):
        spec = SC.SceneSpec(camera=cam, surface="linen", style=style, effects=None, seed=1,
                            placements=[Ly.TilePlacement(0.0, 0.0, 0.0, 2, 3, True)],
                            shadow_mm=(0.0, 0.0, 0.0), contact_shadow=contact)
        frame, labels = SC.render_scene(spec)
        ratios.append(_ring_ratio(frame, labels[0]["polygon"]))
    assert ratios[0] == pytest.approx(1.0, abs=0.05)
    assert ratios[1] < 0.8


def test_tilted_tile_shows_side_faces():
    """Pixels of a tile outside its labelled top face are its side faces (perspective and tilt)."""
    style = T.TileStyle("white", (236, 238, 240), tuple([(20, 20, 20)] * 13), (40, 40, 40), False)
    counts = []
    for tilt in (0.0, 15.0):
        cam = Camera(w=480, h=320, px_per_mm=2.0, height_mm=500.0, target_mm=(0.0, 0.0), tilt_deg=tilt)
        spec = SC.SceneSpec(camera=cam, surface="dark", style=style, effects=None, seed=1,
                            placements=[Ly.TilePlacement(60.0, 40.0, 0.0, 2, 3, True)], shadow_mm=(0.0, 0.0, 0.0))
        frame, labels = SC.render_scene(spec)
        top = np.zeros(frame.shape[:2], np.uint8)
        cv2.fillPoly(top, [np.round(labels[0]["polygon"] - 0.5).astype(np.int32)], 1)
        top = cv2.dilate(top, np.ones((3, 3), np.uint8))
        light = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY) > 120  # the dark table is < 60
        counts.append(int((light & (top == 0)).sum()))
    # Even straight down, a tile 72 mm off the nadir shows a side band (perspective); tilted, a wider one.
    assert counts[0] > 20 and counts[1] > 3 * counts[0], counts  # measured: 46 and 225 px


def test_surface_colour_cast_tints_white_tiles():
    cam = Camera(w=320, h=240, px_per_mm=2.0, height_mm=900.0, target_mm=(0.0, 0.0))
    style = T.TileStyle("white", (236, 238, 240), tuple([(20, 20, 20)] * 13), (40, 40, 40), False)
    out = []
    for cast in (0.0, 0.3):
        spec = SC.SceneSpec(camera=cam, surface="felt", style=style, effects=None, seed=2, cast=cast,
                            placements=[Ly.TilePlacement(0.0, 0.0, 0.0, 0, 0, True)], shadow_mm=(0.0, 0.0, 0.0))
        frame, labels = SC.render_scene(spec)
        tile = rectified_tile(frame, labels[0]["polygon"], 96)[10:-10, 10:-10].reshape(-1, 3)
        far = frame[:20].reshape(-1, 3).astype(np.float64).mean(0)
        out.append((np.median(tile, 0).astype(np.float64), far))
    (t0, surf), (t1, _) = out
    assert np.abs(t0 - np.array(style.body)).max() < 12  # no cast: the body colour
    # With a cast the tile moves toward the surface's hue: its dominant channel gains on the weakest.
    hi, lo = int(np.argmax(surf)), int(np.argmin(surf))
    assert (t1[hi] - t1[lo]) - (t0[hi] - t0[lo]) > 20


@pytest.mark.parametrize("kind", ["white", "black"])
def test_style_shape_variations_keep_pip_counts(kind):
    for seed in range(6):
        style = T.make_style(kind, np.random.default_rng(seed))
        assert 0.9 <= style.pip_scale <= 1.22 and 0.025 <= style.divider_frac <= 0.075
        for big in (style, dataclasses.replace(style, pip_scale=1.22)):
            for n in range(7):
                assert _count_blobs(T.render_half(n, big, 96), kind == "white") == n
        face = T.render_face_up(style, 6, 6, 128, np.random.default_rng(0))
        assert face.shape == (64, 128, 3)


def test_monochrome_camera_effect_gives_grey_frames_and_is_sampled_sometimes():
    from dataclasses import replace

    from datasets.render import effects as E

    img = np.random.default_rng(3).integers(0, 255, (48, 64, 3), np.uint8)
    p = replace(E.sample_effects(np.random.default_rng(1)), grey=True, jpeg_quality=100)
    out = E.apply_all(img, p)
    assert np.array_equal(out[..., 0], out[..., 1]) and np.array_equal(out[..., 1], out[..., 2])
    colour = E.apply_all(img, replace(p, grey=False))
    assert np.abs(colour[..., 0].astype(int) - colour[..., 2]).max() > 20
    rate = np.mean([E.sample_effects(np.random.default_rng([7, i])).grey for i in range(2000)])
    assert 0.03 < rate < 0.07  # 5 % of frames


def test_training_glare_is_centred_on_tiles_and_held_out_frames_keep_theirs():
    """Recipe 5: 7 of stage 3's 12 held-out misses lay under glare; training spots now fall on tiles
    70 % of the time, while the held-out frames render exactly as before (no new draws)."""
    from dataclasses import replace

    from datasets.render import effects as E

    dark = np.zeros((240, 320, 3), np.uint8)
    p = replace(E.sample_effects(np.random.default_rng(0)), glare=1, glare_on_tiles=1.0)
    spot = E.glare(dark, p, np.array([[250.0, 40.0]]))[..., 0]
    ys, xs = np.nonzero(spot >= 0.9 * spot.max())  # the blurred ellipse's top (maybe clipped at 255)
    assert abs(xs.mean() - 250) <= 2 and abs(ys.mean() - 40) <= 2  # centred on the tile
    off = replace(p, glare_on_tiles=0.0)
    assert np.array_equal(E.glare(dark, off, np.array([[250.0, 40.0]])), E.glare(dark, off))
    for split, chance in (("train", SC.GLARE_ON_TILES), ("val", 0.0), ("test", 0.0)):
        assert SC.sample_scene(np.random.default_rng(5), split).effects.glare_on_tiles == chance
    # the held-out split's frame is the one the earlier recipe drew: same effects, tiles unchanged
    before = SC.sample_scene(np.random.default_rng(9), "test")
    assert dataclasses.replace(before.effects, glare_on_tiles=0.0) == before.effects


def test_a_share_of_the_training_scenes_lie_on_a_procedural_surface_and_held_out_ones_keep_theirs():
    """Recipe 6: banded marble (never trained on) gave most held-out false face-down boxes; a share of
    the training scenes now lie on procedural textures. Val and test scenes render as before."""
    from datasets.build import PROCEDURAL_TRAIN_SHARE, on_procedural, render_one, scene_spec, split_of

    train = [i for i in range(400) if split_of(i) == "train"]
    share = np.mean([on_procedural(i, 3, PROCEDURAL_TRAIN_SHARE) for i in train])
    assert abs(share - PROCEDURAL_TRAIN_SHARE) < 0.05
    i = next(i for i in train if on_procedural(i, 3, PROCEDURAL_TRAIN_SHARE))
    assert render_one(i, 3, imgsz=320, frame_size=(320, 180))["spec"].surface == "procedural"
    for k in (8, 9):  # a val and a test scene: their own surface, whatever the draw says
        assert split_of(k) in ("val", "test")
        assert render_one(k, 3, imgsz=320, frame_size=(320, 180))["spec"] == scene_spec(k, 3, (320, 180))[0]


def test_deck_deals_whole_sets_before_repeating_a_tile():
    """28 draws from a double-six deck are the 28 distinct tiles; the 29th opens a second set;
    a wanted end comes first; a put-back tile can be drawn again."""
    deck = Ly.Deck(6)
    rng = np.random.default_rng(3)
    first = [deck.draw(rng) for _ in range(28)]
    assert sorted({(min(t), max(t)) for t in first}) == [(a, b) for a in range(7) for b in range(a, 7)]
    assert deck.sets == 1 and deck.left == []
    a, b = deck.draw(rng, end=4)
    assert a == 4 and deck.sets == 2 and len(deck.left) == 27
    deck.put_back((b, a))
    assert len(deck.left) == 28
    assert deck.draw(rng, end=5, double=True) == (5, 5)


def test_scene_tiles_repeat_no_more_than_its_sets():
    """Sampled tables: no tile more often than the scene's n_sets, and the sets are the fewest
    that hold the tiles (a table of 28 or fewer tiles is one set unless a line forced more)."""
    import collections

    for i in range(12):
        spec, _ = B.scene_spec(i, 5)
        c = collections.Counter((min(p.a, p.b), max(p.a, p.b)) for p in spec.placements)
        assert max(c.values()) == spec.n_sets
        assert spec.n_sets <= max(1, -(-len(spec.placements) // 28)) + 1


def test_the_cli_build_with_worker_processes_ends_without_their_tracebacks(tmp_path):
    """helper-80: the CLI's SIGTERM handler (Ctrl-C's path) was inherited by the pool's workers, and
    the pool's terminate() at its end printed a KeyboardInterrupt traceback from each, exit 0."""
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    res = subprocess.run([sys.executable, "-m", "service.cli", "datasets", "build", "--out", str(tmp_path / "ds"),
                          "--scenes", "10", "--seed", "2", "--workers", "2"], cwd=root, capture_output=True,
                         text=True, timeout=300)
    assert res.returncode == 0 and "Traceback" not in res.stderr and "KeyboardInterrupt" not in res.stderr, res.stderr
    assert json.loads((tmp_path / "ds" / "recipe.json").read_text())["counts"]["train"]["scenes"] == 8


def test_a_tile_washed_out_by_glare_is_labelled_hidden_and_its_pips_are_gone_from_the_frame():
    """Recipe 8: a glare spot that clips every colour hides the tile under it, as an arm does."""
    from dataclasses import replace

    from datasets.render import effects as E

    spec = _plain_scene(np.random.default_rng(0))
    plain = E.EffectParams(gain=1.0, gradient=(0.0, 0.0, 0.0), temperature=0.0, glare=1, blur_sigma=0.0,
                           motion_px=0.0, noise_sigma=0.0, jpeg_quality=100, seed=0, glare_on_tiles=1.0)
    _, before = SC.render_scene(spec)
    # a seed whose one spot lands on a tile at full strength (the spot's size and strength are drawn)
    for seed in range(200):
        p = replace(plain, seed=seed)
        frame, labels = SC.render_scene(replace(spec, effects=p))
        hidden = [k for k, l in enumerate(labels) if l["unoccluded"] < 0.5]
        if hidden and min(labels[k]["unoccluded"] for k in hidden) < 0.2:
            break
    assert hidden, "no seed put a clipping spot on a tile"
    for k, l in enumerate(labels):
        mask = np.zeros(frame.shape[:2], np.uint8)
        cv2.fillPoly(mask, [np.round(l["polygon"]).astype(np.int32)], 1)
        face = frame[mask > 0].astype(int)
        if k in hidden:  # at least the hidden share of the face is white within a few levels: no pips show
            assert np.mean(face.min(1) >= 240) >= 1 - l["unoccluded"] - 0.02
            assert l["visible"] < 0.5 <= before[k]["visible"]
        elif l["unoccluded"] == 1.0:  # a tile the spot spares keeps its black pips
            assert face.min() < 60


def test_a_split_left_without_detector_images_is_noted(tmp_path):
    """helper-187: `--scenes 10` gave `val: 1 scenes, 0 detector images` without a word (scene 8 is a close-up)."""
    from typer.testing import CliRunner

    from service.cli import app

    res = CliRunner().invoke(app, ["datasets", "build", "--out", str(tmp_path / "ds"), "--scenes", "10",
                                   "--workers", "1"])
    assert res.exit_code == 0, res.output
    assert res.stdout.splitlines() == [
        "train: 8 scenes, 14 detector images, 162 halves", "val: 1 scene, 0 detector images, 24 halves",
        "test: 1 scene, 2 detector images, 24 halves",
        "note: the val split (1 scene) holds no detector image: 25% of the scenes are close-ups for the pip reader "
        "only, and a frame whose tiles cannot be scaled into a detector window gives none; build more scenes (each "
        f"split gets 1 scene in 10) or take another --seed before training the detector on {tmp_path / 'ds'}",
        f"wrote {tmp_path / 'ds'}"]


def test_every_split_left_without_detector_images_is_named(tmp_path, monkeypatch):
    from typer.testing import CliRunner

    from service.cli import app

    counts = {"train": (16, 30, 300), "val": (2, 0, 40), "test": (2, 0, 1)}
    monkeypatch.setattr(B, "build", lambda *a, **kw: {"counts": {s: dict(zip(("scenes", "detect_images", "halves"), c))
                                                                 for s, c in counts.items()}})
    res = CliRunner().invoke(app, ["datasets", "build", "--out", str(tmp_path / "ds"), "--scenes", "20"])
    assert res.exit_code == 0, res.output
    assert res.stdout.splitlines()[2:4] == [
        "test: 2 scenes, 0 detector images, 1 half",
        "note: the val split (2 scenes) and the test split (2 scenes) hold no detector image: 25% of the scenes are "
        "close-ups for the pip reader only, and a frame whose tiles cannot be scaled into a detector window gives "
        "none; build more scenes (each split gets 1 scene in 10) or take another --seed before training the "
        f"detector on {tmp_path / 'ds'}"]
