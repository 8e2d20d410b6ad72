"""How small a tile can be: the Recognizer on rendered val frames shrunk so tiles are N px long.

``python -m bench.tile_size_sweep [SCENES] [JPEG_QUALITY]`` (default 20 scenes, quality 40; 0: no
compression). Frames are val scenes (``i % 10 == 8``, seed 0) whose tiles are at least 50 px long at
1280x720, area-downscaled and JPEG-compressed as a video's frames are; scored with
:func:`bench.sec_synthetic.score_frame`. The figures behind ``vision.recognize.READABLE_TILE_PX``
(``docs/recognition.md``). About 4 minutes on 2 cores.
"""

from __future__ import annotations

import sys

import cv2
import numpy as np

from bench.sec_synthetic import score_frame
from datasets.build import scene_spec
from datasets.render.scene import render_scene
from datasets.render.tiles import TILE_LONG_MM
from vision.recognize import Recognizer

SIZES = (20, 24, 28, 32, 36, 40, 48)  # tile long side, px


def sweep(scenes: int = 20, quality: int = 40) -> dict[int, dict[str, int]]:
    """Counts (``gt``, ``tp``, ``fp``, ``up_full``, ``identity_ok``) per tile size over ``scenes`` frames."""
    rec = Recognizer(threads=2)
    tot = {t: dict(gt=0, tp=0, fp=0, up_full=0, identity_ok=0) for t in SIZES}
    done = 0
    for i in range(8, 100_000, 10):
        spec, _ = scene_spec(i, 0, (1280, 720))
        tile_px = spec.camera.px_per_mm * TILE_LONG_MM
        if tile_px < 50:
            continue
        frame, labels = render_scene(spec)
        rec.n_sets = spec.n_sets
        for size in SIZES:
            f = size / tile_px
            small = cv2.resize(frame, (round(1280 * f), round(720 * f)), interpolation=cv2.INTER_AREA)
            if quality:
                small = cv2.imdecode(cv2.imencode(".jpg", small, [cv2.IMWRITE_JPEG_QUALITY, quality])[1], cv2.IMREAD_COLOR)
            shrunk = [dict(lab, polygon=np.asarray(lab["polygon"], np.float32) * f) for lab in labels]
            r = score_frame(rec(small, tile_px=size), shrunk, (small.shape[1], small.shape[0]))
            for k in tot[size]:
                tot[size][k] += r[k]
        done += 1
        if done >= scenes:
            return tot
    return tot


if __name__ == "__main__":
    counts = sweep(*(int(a) for a in sys.argv[1:3]))
    for size, d in counts.items():
        print(f"{size} px: found {d['tp'] / d['gt']:.3f}, precision {d['tp'] / max(1, d['tp'] + d['fp']):.3f}, "
              f"both halves right {d['identity_ok'] / max(1, d['up_full']):.3f} ({d['identity_ok']}/{d['up_full']})")
