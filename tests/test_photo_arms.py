"""Arms over the table in a folder of photos (``vision/photo_arms.py``): drawn tables with arms from
known edges, so which photo holds an arm, and from where, is known by construction."""

from __future__ import annotations

import cv2
import numpy as np

from vision.photo_arms import PhotoArms, arm_regions

W, H = 640, 480


def _table(tiles: int = 3) -> np.ndarray:
    """A green cloth with ``tiles`` white tiles in a row in the middle."""
    img = np.full((H, W, 3), (40, 110, 40), np.uint8)
    for k in range(tiles):
        x = 200 + 60 * k
        cv2.rectangle(img, (x, 220), (x + 48, 244), (235, 235, 235), -1)
    return img


def _arm(img: np.ndarray, side: str) -> np.ndarray:
    """The table with a skin-coloured arm (about 8 % of the frame) reaching in from ``side``."""
    out = img.copy()
    box = {"top": ((280, 0), (360, 200)), "bottom": ((280, 280), (360, H)), "left": ((0, 200), (230, 280)),
           "right": ((410, 200), (W, 280))}[side]
    cv2.rectangle(out, *box, (120, 160, 210), -1)
    return out


def _decide(photos: list[np.ndarray]) -> list[tuple[int, str]]:
    arms = PhotoArms()
    out = []
    for i, img in enumerate(photos):
        out += arms.add(i, float(i), img)
    out += arms.add(len(photos) - 1, float(len(photos)), photos[-1])  # a second look at the last photo: no photo
    out += arms.finish()
    return [(i, side) for i, _, side in out]


def test_the_photo_holding_the_arm_is_named_with_its_edge():
    clean = _table()
    placed = _table(4)  # a tile laid between two photos is no arm
    assert arm_regions(clean, placed) is None
    assert _decide([clean, placed, _table(5)]) == []
    # the first and the last photo, each with one neighbour
    assert _decide([_arm(clean, "top"), clean, placed, _arm(placed, "bottom")]) == [(0, "top"), (3, "bottom")]
    # two photos in a row with arms from different edges, the clean ones beside them not named
    assert _decide([clean, _arm(clean, "left"), _arm(placed, "right"), placed]) == [(1, "left"), (2, "right")]
    # a photo of another size is not compared
    small = cv2.resize(clean, (320, 240))
    assert arm_regions(clean, small) is None


def test_a_change_of_light_is_no_arm():
    clean = _table()
    brighter = cv2.convertScaleAbs(clean, alpha=1.0, beta=60)  # the whole frame changed: lighting
    assert _decide([clean, brighter, brighter]) == []


def test_a_camera_moved_between_photos_is_no_arm():
    """helper-126: photos taken hand-held differed at the border where the table's edge and the hands
    along it lay: false arms. The whole picture shifted is steadied before the photos are compared."""
    table = _table()
    cv2.rectangle(table, (0, 440), (W, 480), (30, 60, 90), -1)  # the table's edge along the bottom
    cv2.rectangle(table, (150, 400), (450, 430), (235, 235, 235), -1)  # a hand's row of tiles by it
    shifted = cv2.warpAffine(table, np.float32([[1, 0, 14], [0, 1, -18]]), (W, H), borderMode=cv2.BORDER_REPLICATE)
    assert arm_regions(table, shifted) is None
    assert _decide([table, shifted, table]) == []
    # an arm in a shifted photo is still one
    assert _decide([table, _arm(shifted, "top"), table]) == [(1, "top")]


def test_a_photos_transparent_border_is_no_arm():
    """helper-136: one photo of a folder saved with a transparent border (read as plain grey 114) was
    named as showing an arm from the top; an arm in such a photo still is one."""
    from calibration.images import flatten_transparency

    clean, placed = _table(), _table(4)
    alpha = np.full((H, W), 255, np.uint8)
    alpha[:40], alpha[:, :30] = 0, 0  # a top and a left border transparent, 14 % of the photo
    cut, _ = flatten_transparency(placed, alpha)
    assert _decide([clean, cut, _table(5)]) == []
    cut_arm, _ = flatten_transparency(_arm(placed, "bottom"), alpha)
    assert _decide([clean, cut_arm, _table(5)]) == [(1, "bottom")]


def _glare(img: np.ndarray, centre: tuple[int, int], radius: int, falloff: float = 6) -> np.ndarray:
    """``img`` under a lamp's glare: a disc clipped white with a soft edge (a Gaussian falloff of radius /
    ``falloff``: at 3 a small clipped core in a wide halo of light)."""
    disc = np.zeros(img.shape[:2], np.uint8)
    cv2.circle(disc, centre, radius, 255, -1)
    soft = cv2.GaussianBlur(disc, (0, 0), radius / falloff).astype(np.float32)[..., None] / 255
    return (img * (1 - soft) + 255 * soft).astype(np.uint8)


def test_a_glare_at_the_border_is_no_arm():
    """A glare over a hand row at the border changed a fifth of the photo, named an arm: the next photo's
    seat vote then reached back over it and gave a play to the wrong seat (an all-fives photo folder). A
    change half clipped white is light, not an arm; an arm in a photo with a glare elsewhere still is one."""
    from vision.exposure import clipped_share

    clean, placed = _table(), _table(4)
    glared = _glare(placed, (W // 2, H), 180)
    assert 0.05 < clipped_share(glared) < 0.15 and arm_regions(clean, glared) is not None  # changed at the border
    assert _decide([clean, glared, _table(5)]) == []
    # helper-141: a wide halo round a small core (2 % of the photo clipped) at the top border
    halo = _glare(placed, (W // 2, 0), 150, falloff=3)
    assert clipped_share(halo) < 0.03 and arm_regions(clean, halo) is not None
    assert _decide([clean, halo, _table(5)]) == []
    # (on this plain cloth the arm and the glare together throw the steadying's phase correlation 60 px
    # off, a tile's pitch, and the clean photos beside get named too: only the middle photo is checked)
    named = _decide([clean, _glare(_arm(placed, "left"), (W // 2, H), 180), _table(5)])
    assert [(i, side) for i, side in named if i == 1] == [(1, "left")]


def _zoomed(image: np.ndarray, zoom: float) -> np.ndarray:
    """``image`` cropped to its central 1/``zoom`` (the same shape) and scaled back to its size, as a photo folder
    scales a photo of its shape without a calibration."""
    h, w = image.shape[:2]
    cw, ch = round(w / zoom), round(h / zoom)
    x, y = (w - cw) // 2, (h - ch) // 2
    return cv2.resize(image[y:y + ch, x:x + cw], (w, h), interpolation=cv2.INTER_LINEAR)


def test_a_zoomed_photo_is_no_arm_and_an_arm_in_it_still_is():
    """helper-230 section 8: the demo's photo after S 4-4 cropped to its central 80 % (scaled back up by the
    folder) was named an arm reaching in from the left edge: the boneyard's column there moved outwards 94 px,
    which no shift undoes. Two photos a similarity scales by more than PHOTO_ZOOM are compared at one scale."""
    from pathlib import Path

    from video_frames import video_frames  # tests/video_frames.py

    demo = Path(__file__).resolve().parent.parent / "examples" / "footage" / "demo.mp4"
    # 0.9 s after 5 plays (no arm), and 432: S's arm over the table, 0.3 s before 4-4 lies (ground_truth.json)
    *photos, arm = video_frames(demo, [372, 403, 445, 516, 551, 432])
    assert _decide(photos) == [] and _decide(photos[:2] + [arm] + photos[3:]) == [(2, "bottom")]
    for zoom in (1.25, 1.1):
        assert _decide(photos[:2] + [_zoomed(photos[2], zoom)] + photos[3:]) == []
    assert _decide(photos[:2] + [_zoomed(arm, 1.25)] + photos[3:]) == [(2, "bottom")]
    assert _decide([_zoomed(photos[0], 1.1)] + photos[1:]) == []  # the first photo, by its one pair


def _lit(image: np.ndarray, gain) -> np.ndarray:
    """``image`` under other light: each pixel's levels times ``gain`` (a number, a per-colour (B, G, R) triple,
    or an (H, W, 1) field), rounded as a camera rounds, clipped at 255."""
    return np.clip(np.round(image.astype(np.float32) * np.asarray(gain, np.float32)), 0, 255).astype(np.uint8)


def _across(image: np.ndarray, left: float) -> np.ndarray:
    """The gain field of a lamp on the right: ``left`` at the left edge, 1 at the right, geometric in between
    (log gain ``ln(left) / 2 * (1 - x)``, x from -1 to 1 across)."""
    x = np.linspace(-1, 1, image.shape[1], dtype=np.float32)
    return np.exp(np.log(left) / 2 * (1 - x))[None, :, None]


def _demo_photos() -> tuple[list[np.ndarray], np.ndarray]:
    """Five photos of the demo 0.9 s after a play (no arm) and its frame 432: S's arm over the table (as
    :func:`test_a_zoomed_photo_is_no_arm_and_an_arm_in_it_still_is`)."""
    from pathlib import Path

    from video_frames import video_frames  # tests/video_frames.py

    demo = Path(__file__).resolve().parent.parent / "examples" / "footage" / "demo.mp4"
    *photos, arm = video_frames(demo, [372, 403, 445, 516, 551, 432])
    return photos, arm


def test_a_photo_in_other_light_is_no_arm_and_an_arm_in_it_still_is():
    """helper-250: helper-230's demo photo 5 dimmed to 0.5x was named an arm reaching in from the right edge: its
    darker cloth differed from the photos beside it by more than the gate's 25 grey levels over about half the frame
    in one region touching the border, under the 60 % the gate takes for lighting. The photos are brought to one
    light first; an arm in the photo in other light is still named, from its edge."""
    photos, arm = _demo_photos()
    dim = _lit(photos[2], 0.5)
    # the defect's picture: over 25 levels changed on far more than an arm's share, short of lighting's 60 %
    changed = (np.abs(photos[1].astype(np.int16) - dim).max(axis=2) > 25).mean()
    assert 0.3 < changed < 0.6
    for gain in (0.7, 0.5, 0.35, 0.2, (0.8, 1.0, 1.1), _across(photos[2], 0.3)):
        assert _decide(photos[:2] + [_lit(photos[2], gain)] + photos[3:]) == [], gain
        assert _decide(photos[:2] + [_lit(arm, gain)] + photos[3:]) == [(2, "bottom")], gain
    # two dim photos in a row, and the first and last photos dim
    assert _decide(photos[:2] + [_lit(p, 0.5) for p in photos[2:4]] + photos[4:]) == []
    assert _decide([_lit(photos[0], 0.5)] + photos[1:4] + [_lit(photos[4], 0.5)]) == []


def test_the_arm_in_a_dim_photo_is_where_it_is_in_a_lit_one():
    """The light fitted leaves the arm out: the mask named in a photo at 0.2x, under a colour cast or darker on one
    side is the lit photo's (the drawn arm, 231 x 81 px of 640 x 480: 6.1 % of the frame)."""
    from vision.photo_arms import arm_over

    clean, placed, later = _table(), _table(4), _table(5)
    lit = arm_over(_arm(placed, "right"), clean, later)
    assert lit is not None and abs(lit.mean() - 231 * 81 / (W * H)) < 0.005
    for gain in (0.5, 0.2, (0.8, 1.0, 1.1), _across(placed, 0.3)):
        dim = arm_over(_lit(_arm(placed, "right"), gain), clean, later)
        assert dim is not None and (dim ^ lit).mean() < 0.002, gain


def test_the_light_fitted_between_two_photos():
    """``_light_gain``'s log gain ``a + b x + c y`` per colour, against the gain each photo was made with; None
    for two photos in one light (a tile laid between them is no light)."""
    from vision.photo_arms import _light_gain

    clean = _table()
    assert _light_gain(clean, _table(4)) is None
    for (a, b, c), gain in (((np.log(0.5),) * 3, 0.5), ((np.log(0.8), 0.0, np.log(1.1)), (0.8, 1.0, 1.1))):
        fit = _light_gain(clean, _lit(clean, gain))
        assert np.allclose([f[0] for f in fit], (a, b, c), atol=0.01)
        assert np.allclose([f[1:] for f in fit], 0, atol=0.01)
    fit = _light_gain(clean, _lit(clean, _across(clean, 0.3)))  # ln(0.3) / 2 = -0.602 both as a and b
    assert np.allclose(fit, [(np.log(0.3) / 2, -np.log(0.3) / 2, 0.0)] * 3, atol=0.01)
