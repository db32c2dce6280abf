"""Figures `kiosk train` leaves in models/figures/: what an ultralytics user expects to see.

- classifier_confusion.png: the 53 cards (+ background) on the validation crops;
- classifier_pr.png: per-card precision and recall on the validation crops;
- detector_PR_curve.png, detector_results.png, classifier_results.png: ultralytics' own plots;
- val_scenes_confusion.png + val_scenes.json: the whole reader on validation scenes.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import cv2
import numpy as np

from kiosk.cards import CLASS_NAMES
from kiosk.vision.reader import load_reader
from kiosk_lab.evaluation.evaluate import evaluate_scenes, plot_confusion

LABELS = list(CLASS_NAMES) + ["bg"]


def classifier_confusion(reader, crops_val: Path, limit_per_class: int = 200) -> tuple[np.ndarray, float]:
    """Card-level confusion (54 x 54, last = background) and orientation accuracy on val crops."""
    names = list(reader.settings.classifier.names)
    m = np.zeros((len(LABELS), len(LABELS)), dtype=np.int64)
    orient_ok = orient_n = 0
    for folder in sorted(p for p in crops_val.iterdir() if p.is_dir()):
        card, _, k = folder.name.rpartition(".")
        true = LABELS.index(card) if card in CLASS_NAMES else len(LABELS) - 1
        files = sorted(folder.glob("*.jpg"))[:limit_per_class]
        if not files:
            continue
        batch = []
        for f in files:
            im = cv2.imread(str(f))
            im = cv2.resize(im, (reader.cls_size, reader.cls_size))
            batch.append(im)
        probs = np.concatenate([reader._cls(np.stack(batch[i : i + 64])) for i in range(0, len(batch), 64)])
        for p in probs:
            top = names[int(np.argmax(p))]
            pc, _, pk = top.rpartition(".")
            pred = LABELS.index(pc) if pc in CLASS_NAMES else len(LABELS) - 1
            m[true, pred] += 1
            if card in CLASS_NAMES and pc == card:
                orient_n += 1
                orient_ok += pk == k
    return m, (orient_ok / orient_n if orient_n else float("nan"))


def plot_matrix(m: np.ndarray, labels: list[str], title: str, path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = m.sum(axis=1, keepdims=True)
    norm = np.divide(m, rows, out=np.zeros(m.shape, dtype=float), where=rows > 0)
    fig, ax = plt.subplots(figsize=(14, 12))
    im = ax.imshow(norm, cmap="Blues", vmin=0, vmax=1)
    ax.set_xticks(range(m.shape[1]), labels[: m.shape[1]], rotation=90, fontsize=7)
    ax.set_yticks(range(m.shape[0]), labels[: m.shape[0]], fontsize=7)
    ax.set_xlabel("predicted")
    ax.set_ylabel("true")
    ax.set_title(title, fontsize=10)
    fig.colorbar(im, ax=ax, fraction=0.046)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def plot_precision_recall(m: np.ndarray, labels: list[str], title: str, path: Path) -> tuple[float, float]:
    """Per-class precision/recall bars from a square confusion matrix; returns the macro means."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    tp = np.diag(m).astype(float)
    precision = np.divide(tp, m.sum(axis=0), out=np.ones_like(tp), where=m.sum(axis=0) > 0)
    recall = np.divide(tp, m.sum(axis=1), out=np.ones_like(tp), where=m.sum(axis=1) > 0)
    fig, ax = plt.subplots(figsize=(16, 4.5))
    x = np.arange(len(labels))
    ax.bar(x - 0.2, precision, 0.4, label=f"precision (mean {precision.mean():.4f})")
    ax.bar(x + 0.2, recall, 0.4, label=f"recall (mean {recall.mean():.4f})")
    ax.set_xticks(x, labels, rotation=90, fontsize=7)
    ax.set_ylim(max(0.0, min(precision.min(), recall.min()) - 0.05), 1.001)
    ax.legend(loc="lower left")
    ax.set_title(title, fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return float(precision.mean()), float(recall.mean())


def training_figures(cfg, out: Path, prep_root: Path) -> dict:
    figs = out / "figures"
    figs.mkdir(parents=True, exist_ok=True)
    for run, src, dst in (
        ("det", "BoxPR_curve.png", "detector_PR_curve.png"),
        ("det", "results.png", "detector_results.png"),
        ("cls", "results.png", "classifier_results.png"),
    ):
        f = cfg.runs / f"{cfg.name}-{run}" / src
        if f.is_file():
            shutil.copy2(f, figs / dst)
    reader = load_reader(out, backend="auto")
    summary: dict = {"model": reader.model_version}
    crops_val = prep_root / "cls" / "val"
    if crops_val.is_dir():
        m, orient_acc = classifier_confusion(reader, crops_val)
        plot_matrix(m, LABELS, "index classifier, validation crops (unseen decks), cards folded over orientation", figs / "classifier_confusion.png")
        p, r = plot_precision_recall(m, LABELS, "index classifier per card, validation crops", figs / "classifier_pr.png")
        summary["classifier_val"] = {
            "crops": int(m.sum()),
            "accuracy": round(float(np.trace(m) / max(1, m.sum())), 5),
            "macro_precision": round(p, 5),
            "macro_recall": round(r, 5),
            "orientation_accuracy": round(orient_acc, 5),
        }
        print(f"[train] classifier on validation crops: {summary['classifier_val']}", flush=True)
    result = evaluate_scenes(reader, cfg.data, split="val", limit=150)
    plot_confusion(result, figs / "val_scenes_confusion.png")
    summary["val_scenes"] = result.to_json()
    (figs / "train_summary.json").write_text(json.dumps(summary, indent=2) + "\n")
    print(
        f"[train] reader on {result.images} validation scenes: precision {result.precision:.4f} "
        f"recall {result.recall:.4f} clean scenes {result.clean_share:.3f}",
        flush=True,
    )
    return summary
