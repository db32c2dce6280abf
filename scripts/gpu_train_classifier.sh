#!/usr/bin/env bash
# Train the index classifier twice at once on a lent GPU machine, in one prepared call
# (docs/detector.md, "Training on a GPU"): a fine-tune of the shipped classifier (models/) and
# one from scratch (RUNS=ft or RUNS=scratch trains one of them), on the crops packed into
# .gpu/crops by scripts/pack_crops.py, with ultralytics carried as wheels in .gpu/whl. Each run
# gets HOURS of wall clock (ultralytics fits its epochs into it). What comes back lands in $OUT:
# each run's log, weights and results.csv.
#
#   bash scripts/gpu_train_classifier.sh HOURS SEED
#   CLS_MODEL=yolo11s-cls.yaml RUNS=scratch bash scripts/gpu_train_classifier.sh HOURS SEED   # a wider one from scratch
#
# tests/test_train_smoke.py runs it on the CPU (DEVICE=cpu, a tiny packed set, seconds per run).
set -euo pipefail
HOURS=${1:?hours per run}
SEED=${2:?seed}
DEVICE=${DEVICE:-0}
OUT=${OUT:-runs/gpu-out}
WORK=${WORK:-/tmp/gpu-train}
CROPS=${CROPS:-.gpu/crops}
RUNS=${RUNS:-ft scratch}   # which to train: ft, scratch or both
CLS_MODEL=${CLS_MODEL:-yolo11n-cls.yaml}   # the scratch run's classifier (kiosk train --cls-model)
for run in $RUNS; do
    case $run in ft|scratch) ;; *) echo "error: RUNS names $run; it may name ft and scratch" >&2; exit 2 ;; esac
done
# Loading and augmenting the crops, not the GPU, sets the pace: the cores are shared out between the runs.
share=$(( $(nproc) / $(echo $RUNS | wc -w) - 1 ))
WORKERS=${WORKERS:-$(( share > 0 ? share : 0 ))}
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
common=(--crops "$WORK/crops" --stage classifier --device "$DEVICE" --workers "$WORKERS" --cls-batch 512
        --cls-hours "$HOURS" --seed "$SEED" --runs "$WORK/runs" --no-export --no-eval)
pids=()
for run in $RUNS; do
    cp -r models "$WORK/$run"
    case $run in
        ft) start=(--resume-from "$WORK/ft" --cls-lr0 0.0005) ;;
        scratch) rm -f "$WORK/scratch/index-classifier.pt"   # no weights to start from: $CLS_MODEL
                 start=(--cls-lr0 0.002 --cls-model "$CLS_MODEL") ;;
    esac
    python3 -m kiosk train "${common[@]}" --out "$WORK/$run" "${start[@]}" --name "$run" > "$OUT/$run.log" 2>&1 &
    pids+=($!)
done
status=0
for pid in "${pids[@]}"; do
    wait "$pid" || status=1
done
for run in $RUNS; do
    tail -n 25 "$OUT/$run.log"
    cp "$WORK/$run/index-classifier.pt" "$OUT/$run.pt" 2>/dev/null || echo "$run: no weights"
    cp "$WORK/runs/$run-cls/results.csv" "$OUT/$run-results.csv" 2>/dev/null || echo "$run: no results.csv"
done
exit $status
