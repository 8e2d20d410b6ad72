#!/usr/bin/env bash
# Fine-tune the tile detector on a lent GPU machine (the workplace's `device` tool), in one call.
#
# That machine is bare and offline: its python3 has torch, OpenCV and onnxruntime but no
# ultralytics, so the wheels travel in .whl/ (git-ignored; see docs/models.md "GPU run").
# polars is only used by ultralytics to re-read results.csv into the checkpoint's metadata
# (inside a try), so a one-line stand-in avoids carrying its 40 MB wheel.
#
# Env: SCENES (rendered frames), SEED, WINDOWS (detector windows per frame), BUDGET_S (the whole
# call's seconds: training gets what the build leaves, minus RESERVE_S for validation and export),
# BATCH, WORKERS, DEVICE (0 on the GPU; cpu for a dry run here), OUT (results folder).
set -euo pipefail
SCENES=${SCENES:-7000} SEED=${SEED:-2} WINDOWS=${WINDOWS:-4} BUDGET_S=${BUDGET_S:-540} RESERVE_S=${RESERVE_S:-100}
BATCH=${BATCH:-128} WORKERS=${WORKERS:-16} DEVICE=${DEVICE:-0} OUT=${OUT:-runs/device}
T_START=$(date +%s)
DATA="/tmp/synth_seed${SEED}_scenes${SCENES}_win${WINDOWS}"
PY=${PY:-python3}
SITE=/tmp/dominocast-site
if ! compgen -G ".whl/*.whl" > /dev/null; then  # a fresh checkout: fetch them here first, then carry .whl
    echo "error: no wheels in .whl/: run here first: .venv/bin/pip download --no-deps --only-binary=:all:" \
         "--python-version 3.12 -d .whl ultralytics==8.4.190 ultralytics-thop" >&2
    exit 2
fi
mkdir -p "$OUT" "$SITE/polars"
"$PY" -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target "$SITE" .whl/*.whl
echo 'def read_csv(*a, **k): raise RuntimeError("polars stand-in")' > "$SITE/polars/__init__.py"
export PYTHONPATH="$SITE" PYTHONUNBUFFERED=1 YOLO_OFFLINE=1 YOLO_CONFIG_DIR=/tmp/yolo-config
nvidia-smi --query-gpu=name,memory.total --format=csv 2>/dev/null || true
nproc
t0=$(date +%s)
"$PY" -c "from pathlib import Path; from models.common import ensure_dataset as e; \
e(Path('$DATA'), $SCENES, $SEED, 320, $WORKERS, $WINDOWS)" | tail -n 2
echo "build $(( $(date +%s) - t0 )) s"
HOURS=$("$PY" -c "print(round(max(60, $BUDGET_S - ($(date +%s) - $T_START) - $RESERVE_S) / 3600, 4))")
echo "training budget $HOURS h"
t0=$(date +%s)
rc=0
"$PY" -m models.train_detector --data "$DATA" --scenes "$SCENES" \
    --seed "$SEED" --windows "$WINDOWS" --workers "$WORKERS" --batch "$BATCH" --hours "$HOURS" \
    --device "$DEVICE" --resume > "$OUT/train.log" 2>&1 || rc=$?
tr '\r' '\n' < "$OUT/train.log" | grep -av "it/s\]$" | tail -n 80
echo "wall $(( $(date +%s) - t0 )) s, exit $rc"
# a failed run must not ship the checkpoint it started from
[ "$rc" -eq 0 ] || exit "$rc"
cp models/checkpoints/tile_detector.pt models/tile_detector.onnx models/tile_detector.dynamic.onnx \
    models/tile_detector.metrics.json "$OUT/"
cp runs/detector/tile_detector/results.csv "$OUT/" 2>/dev/null || true
cp "$DATA/recipe.json" "$OUT/" 2>/dev/null || true
ls -la "$OUT"
