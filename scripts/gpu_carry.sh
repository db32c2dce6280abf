#!/usr/bin/env bash
# Make the working tree small enough to travel to a lent GPU machine, and put it back after
# (docs/detector.md, "Training on a GPU"). A call carries the tracked files and the untracked
# files git does not ignore, 64 MiB in all; the classifier's training there reads the package,
# the scripts, models/index-classifier.pt with reader.json, and the packed crops in .gpu/. So
# `out` takes the tracked files the run does not read out of git's index (the files stay on
# disk) and lists them in .git/info/exclude, and says what would travel with .gpu/ (git-ignored:
# the call names it in `carry`); `back` puts the index and the exclude file back as they were.
#
#   bash scripts/gpu_carry.sh out     # then the `run` call: bash scripts/gpu_train_classifier.sh HOURS SEED
#   bash scripts/gpu_carry.sh back
set -euo pipefail
LIMIT=$((64 * 1024 * 1024))
# What the run does not read: the demo recording, the exports, the other networks, figures, fixtures.
NOT_READ=(kiosk/data/demo models/index-classifier_openvino_model models/index-classifier_int8_openvino_model
          models/index-detector_openvino_model models/context-check_openvino_model models/context-check.pt
          models/index-detector.pt models/phase14 models/figures tests/fixtures)
top=$(git rev-parse --show-toplevel)
cd "$top"
exclude=.git/info/exclude
saved=.git/info/exclude.before-gpu-carry

travelling() {  # bytes of what a call carries: tracked files, untracked ones git does not ignore, and .gpu/
    local tree gpu=0
    tree=$(git ls-files -z --cached --others --exclude-standard | xargs -0 -r stat -c %s -- 2>/dev/null \
        | awk '{ s += $1 } END { print s + 0 }')
    [ -d .gpu ] && gpu=$(du -sb .gpu | cut -f1)
    echo $((tree + gpu))
}

case "${1:-}" in
    out)
        if [ -e "$saved" ]; then
            echo "gpu_carry: already out ($saved exists); run 'bash scripts/gpu_carry.sh back' first" >&2
            exit 2
        fi
        mkdir -p .git/info
        touch "$exclude"
        cp "$exclude" "$saved"
        {
            for path in "${NOT_READ[@]}"; do
                [ -n "$(git ls-files -- "$path")" ] || continue   # not tracked here: nothing to take out
                git rm -r -q --cached -- "$path"
                echo "/$path"
            done
        } >> "$exclude"
        size=$(travelling)
        echo "gpu_carry: out; $((size / 1024 / 1024)) MiB would travel (limit 64 MiB); 'bash scripts/gpu_carry.sh back' puts it back"
        if [ "$size" -gt "$LIMIT" ]; then
            echo "gpu_carry: over the limit: 'bash scripts/gpu_carry.sh back', then pack fewer crops (scripts/pack_crops.py --train-max)" >&2
            exit 1
        fi
        ;;
    back)
        if [ ! -e "$saved" ]; then
            echo "gpu_carry: not out (no $saved): nothing to put back" >&2
            exit 2
        fi
        paths=()
        for path in "${NOT_READ[@]}"; do
            if git cat-file -e "HEAD:$path" 2>/dev/null; then paths+=("$path"); fi
        done
        [ ${#paths[@]} -eq 0 ] || git reset -q -- "${paths[@]}"
        mv "$saved" "$exclude"
        echo "gpu_carry: back"
        ;;
    *)
        echo "usage: bash scripts/gpu_carry.sh out|back" >&2
        exit 2
        ;;
esac
