#!/usr/bin/env bash
# Train the index classifier twice at once on a lent GPU machine, in one prepared call
# (docs/detector.md, "Training on a GPU"): a fine-tune of the shipped classifier (models/) and
# one from scratch, both on the crops packed into .gpu/crops by scripts/pack_crops.py, with
# ultralytics carried as wheels in .gpu/whl. Each run gets HOURS of wall clock (ultralytics fits
# its epochs into it). What comes back lands in $OUT: each run's weights and results.csv.
#
#   bash scripts/gpu_train_classifier.sh HOURS SEED
#
# tests/test_train_smoke.py runs it on the CPU (DEVICE=cpu, a tiny packed set, seconds per run).
set -euo pipefail
HOURS=${1:?hours per run}
SEED=${2:?seed}
DEVICE=${DEVICE:-0}
OUT=${OUT:-runs/gpu-out}
WORK=${WORK:-/tmp/gpu-train}
WORKERS=${WORKERS:-7}
CROPS=${CROPS:-.gpu/crops}
mkdir -p "$OUT" "$WORK/stub/polars"
rm -rf "$WORK/crops" "$WORK/ft" "$WORK/scratch" "$WORK/runs"

if ! python3 -c "import ultralytics" 2>/dev/null; then
    python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target "$WORK/site" .gpu/whl/*.whl
    export PYTHONPATH="$WORK/site:${PYTHONPATH:-}"
fi
if ! python3 -c "import polars" 2>/dev/null; then
    # ultralytics reads its results.csv with polars only to store it in the checkpoint, inside a try.
    echo 'def read_csv(*args, **kwargs): raise RuntimeError("polars is not installed here")' > "$WORK/stub/polars/__init__.py"
    export PYTHONPATH="${PYTHONPATH:-}:$WORK/stub"
fi
export PYTHONPATH="$PWD:${PYTHONPATH:-}" YOLO_OFFLINE=1 PYTHONUNBUFFERED=1 YOLO_CONFIG_DIR="$WORK/config"
# ultralytics' plots ask for Arial.ttf and would try to download it: matplotlib's DejaVu Sans stands in.
mkdir -p "$WORK/config"
python3 -c "import matplotlib, pathlib, shutil; shutil.copy(pathlib.Path(matplotlib.get_data_path(), 'fonts/ttf/DejaVuSans.ttf'), '$WORK/config/Arial.ttf')"
nvidia-smi -L 2>/dev/null || true
python3 -c "import torch, ultralytics; print('torch', torch.__version__, 'cuda', torch.cuda.is_available(), 'ultralytics', ultralytics.__version__)"

python3 scripts/pack_crops.py unpack "$CROPS" "$WORK/crops" --workers 16
cp -r models "$WORK/ft"
cp -r models "$WORK/scratch"
rm -f "$WORK/scratch/index-classifier.pt"   # no weights to start from: yolo11n-cls.yaml

common=(--crops "$WORK/crops" --stage classifier --device "$DEVICE" --workers "$WORKERS" --cls-batch 512
        --cls-hours "$HOURS" --seed "$SEED" --runs "$WORK/runs" --no-export --no-eval)
python3 -m kiosk train "${common[@]}" --out "$WORK/ft" --resume-from "$WORK/ft" --cls-lr0 0.0005 --name ft \
    > "$OUT/ft.log" 2>&1 &
ft=$!
python3 -m kiosk train "${common[@]}" --out "$WORK/scratch" --cls-lr0 0.002 --name scratch \
    > "$OUT/scratch.log" 2>&1 &
scratch=$!
status=0
wait $ft || status=1
wait $scratch || status=1
for run in ft scratch; do
    tail -n 25 "$OUT/$run.log"
    cp "$WORK/$run/index-classifier.pt" "$OUT/$run.pt" 2>/dev/null || echo "$run: no weights"
    cp "$WORK/runs/$run-cls/results.csv" "$OUT/$run-results.csv" 2>/dev/null || echo "$run: no results.csv"
done
exit $status
