"""Camera: pinhole projection of table millimetres to pixels, oblique tilt, lens distortion.

World frame: x right, y down on the table plane, z up (millimetres).  The camera
looks down at ``target_mm`` from ``height_mm``; the view is tilted by up to
~15 degrees and rolled by any angle.  Radial lens distortion (``k1``) is applied
to the rendered frame afterwards with :meth:`Camera.distort_image`, and to
label points with :meth:`Camera.distort_points`.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np


@dataclass(frozen=True)
class Camera:
    """Pinhole camera over the table.

    Attributes:
        w, h: frame size in pixels.
        px_per_mm: image scale at the target point (pixels per millimetre).
        height_mm: camera height above the table (mm); sets perspective strength.
        target_mm: (x, y) table point at the image centre (mm).
        tilt_deg: angle between the optical axis and the vertical (degrees).
        tilt_dir_deg: azimuth of the tilt (degrees).
        roll_deg: rotation of the image about the optical axis (degrees).
        k1: radial distortion coefficient (negative = barrel).
    """

    w: int
    h: int
    px_per_mm: float
    height_mm: float
    target_mm: tuple[float, float]
    tilt_deg: float = 0.0
    tilt_dir_deg: float = 0.0
    roll_deg: float = 0.0
    k1: float = 0.0

    def _rotation(self) -> np.ndarray:
        a = np.deg2rad(self.tilt_dir_deg)
        axis = np.array([np.cos(a), np.sin(a), 0.0]) * np.deg2rad(self.tilt_deg)
        Rt, _ = cv2.Rodrigues(axis)
        Rr, _ = cv2.Rodrigues(np.array([0.0, 0.0, np.deg2rad(self.roll_deg)]))
        return Rr @ Rt

    def project(self, pts_mm: np.ndarray) -> np.ndarray:
        """Project table points to undistorted pixels.

        Args:
            pts_mm: (N, 3) or (N, 2) float array in mm (z = 0 when 2 columns).

        Returns:
            (N, 2) float64 pixel coordinates (before lens distortion).
        """
        p = np.asarray(pts_mm, np.float64)
        if p.shape[1] == 2:
            p = np.concatenate([p, np.zeros((len(p), 1))], axis=1)
        tx, ty = self.target_mm
        rel = p - np.array([tx, ty, 0.0])
        # Camera coordinates: x right, y down, z forward (down toward the table).
        rel = rel @ self._rotation().T
        zc = self.height_mm - rel[:, 2]
        f = self.px_per_mm * self.height_mm
        u = f * rel[:, 0] / zc + self.w / 2
        v = f * rel[:, 1] / zc + self.h / 2
        return np.stack([u, v], axis=1)

    def table_homography(self) -> np.ndarray:
        """3x3 homography from the table plane (z = 0, mm) to undistorted pixels."""
        src = np.array([[-100, -100], [100, -100], [100, 100], [-100, 100]], np.float64)
        src = src + np.array(self.target_mm)
        dst = self.project(src)
        return cv2.getPerspectiveTransform(src.astype(np.float32), dst.astype(np.float32))

    def footprint_mm(self) -> np.ndarray:
        """The frame's corners back-projected onto the table plane, (4, 2) float64 mm."""
        Hinv = np.linalg.inv(self.table_homography())
        c = np.array([[0, 0], [self.w, 0], [self.w, self.h], [0, self.h]], np.float64)
        return cv2.perspectiveTransform(c[None], Hinv)[0]

    def _norm(self) -> float:
        return 0.5 * max(self.w, self.h)

    def distort_points(self, pts_px: np.ndarray) -> np.ndarray:
        """Map undistorted pixel points to distorted ones, (N, 2) -> (N, 2) float64.

        Inverts :meth:`distort_image`'s mapping ``r_u = r_d (1 + k1 r_d^2)`` (radii normalised by
        half the frame's long side) by bisection on its rising branch. With ``k1 < 0`` the mapping
        turns at ``r_t = 1 / sqrt(3 |k1|)`` (outside the frame for every sampled ``k1``): a point
        beyond ``r_u(r_t)`` has no image, so it is put past ``r_t`` on its ray, off the frame.
        (A fixed-point iteration diverged there and threw tiles far off the frame into it.)
        """
        p = np.asarray(pts_px, np.float64)
        if self.k1 == 0.0:
            return p.copy()
        c = np.array([self.w / 2, self.h / 2])
        s = self._norm()
        pu = (p - c) / s
        ru = np.linalg.norm(pu, axis=1)
        k1 = self.k1
        if k1 < 0:
            rt = 1.0 / np.sqrt(-3.0 * k1)
            r_top = rt * (1 + k1 * rt * rt)
            hi = np.minimum(rt, 1.5 * ru)  # on [0, r_t] r_u >= 2/3 r_d
        else:
            r_top = np.inf
            hi = ru.copy()
        lo = np.zeros_like(ru)
        for _ in range(60):
            mid = 0.5 * (lo + hi)
            below = mid * (1 + k1 * mid * mid) < ru
            lo = np.where(below, mid, lo)
            hi = np.where(below, hi, mid)
        rd = 0.5 * (lo + hi)
        if k1 < 0:
            rd = np.where(ru > r_top, rt * ru / r_top, rd)
        scale = np.divide(rd, ru, out=np.ones_like(ru), where=ru > 0)
        return pu * scale[:, None] * s + c

    def distortion_margin(self) -> int:
        """Pixels beyond each frame edge that :meth:`distort_image` samples (0 unless ``k1 > 0``)."""
        if self.k1 <= 0.0:
            return 0
        s = self._norm()
        xd, yd = self.w / 2 / s, self.h / 2 / s  # a frame corner: the farthest sample
        g = 1 + self.k1 * (xd * xd + yd * yd)
        return int(np.ceil(max((g - 1) * self.w / 2, (g - 1) * self.h / 2))) + 2

    def distort_image(self, img: np.ndarray, margin: int = 0) -> np.ndarray:
        """Apply radial distortion with cv2.remap: an (h + 2 margin, w + 2 margin, C) canvas,
        rendered with ``margin`` px (:meth:`distortion_margin`) around the frame, -> (h, w, C)."""
        if self.k1 == 0.0:
            return img[margin:margin + self.h, margin:margin + self.w]
        s = self._norm()
        yy, xx = np.mgrid[0:self.h, 0:self.w].astype(np.float32)
        xd = (xx - self.w / 2) / s
        yd = (yy - self.h / 2) / s
        g = 1 + self.k1 * (xd * xd + yd * yd)
        mx = xd * g * s + self.w / 2 + margin
        my = yd * g * s + self.h / 2 + margin
        return cv2.remap(img, mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REFLECT)


def sample_camera(rng: np.random.Generator, w: int, h: int, tile_long_px: float, tile_long_mm: float,
                  target_mm: tuple[float, float], max_tilt_deg: float = 15.0) -> Camera:
    """A random camera whose scale puts a tile's long side at ~``tile_long_px`` pixels."""
    return Camera(
        w=w, h=h, px_per_mm=tile_long_px / tile_long_mm,
        height_mm=float(rng.uniform(600, 1400)), target_mm=target_mm,
        tilt_deg=float(abs(rng.normal(0, max_tilt_deg / 2)) if rng.random() < 0.7 else 0.0) % max_tilt_deg,
        tilt_dir_deg=float(rng.uniform(0, 360)), roll_deg=float(rng.uniform(0, 360)),
        k1=float(rng.uniform(-0.12, 0.06)) if rng.random() < 0.6 else 0.0,
    )
