"""`kiosk eval SET`: how well the card reader reads a labelled set.

SET is a generated data set (datasets/generated/<set>, scored per card with suits) or a
folder of photos with Pascal VOC labels, whole-card boxes named by rank (nine ... ace, e.g.
datasets/real/real-photos-ranks: only the rank is scored) or by card (Ks, 10h, Jk: a few
labelled photos of the house's deck, scored with suits). Prints precision and recall, the
most confused pairs (6/9, suits of one colour, ...), and the share of pictures read with no
error at all. With --min-* thresholds it exits 1 when the reader falls short (CI uses this).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from kiosk.vision.models_dir import MODELS_HELP, default_models_dir

FAILURES_SHOWN = 10  # pictures with an error listed on screen; eval.json holds them all


def register(subparsers) -> None:
    p = subparsers.add_parser("eval", help="score the card reader on a labelled set", description=__doc__)
    p.add_argument("set", type=Path, metavar="SET", help="generated data set folder, or a folder of VOC-labelled photos")
    p.add_argument("--split", default="test", help="split of a generated set, or of a set of corner-labelled photos (test, train, unseen, all; "
                        "default: test)")
    p.add_argument("--limit", type=int, default=None, help="read at most this many pictures")
    p.add_argument("--models", "--model-dir", dest="model_dir", default=default_models_dir(), help=MODELS_HELP)
    p.add_argument("--backend", default="auto")
    p.add_argument("--many-decks", action="store_true",
                   help="the pictures may show a card more than once (by default a picture holds one deck)")
    p.add_argument("--out", type=Path, default=None, help="write the confusion matrix plot and JSON here")
    p.add_argument("--json", action="store_true", help="print the figures as JSON")
    p.add_argument("--by-stage", action="store_true",
                   help="read the set once more with each reading stage off and print what each stage moves")
    p.add_argument("--misses", action="store_true",
                   help="a generated set: put each missed card down to the stage that lost it (detector or classifier)")
    p.add_argument("--min-precision", type=float, default=None)
    p.add_argument("--min-recall", type=float, default=None)
    p.add_argument("--min-clean", type=float, default=None, help="minimum share of pictures read with no error")
    p.set_defaults(func=run)


def run(args) -> int:
    from kiosk.errors import KioskError
    from kiosk_lab.evaluation import evaluate
    from kiosk.vision.reader import load_reader

    if not args.set.is_dir():
        raise KioskError(f"{args.set}: no such folder")
    kind = evaluate.detect_set_kind(args.set)

    def progress(done, total):
        if not args.json and (done % 25 == 0 or done == total):
            print(f"\r  read {done}/{total}", end="" if done < total else "\n", file=sys.stderr, flush=True)

    def evaluated(reader):
        if kind == "scenes":
            return evaluate.evaluate_scenes(reader, args.set, args.split, args.limit, progress)
        if kind == "corners":
            return evaluate.evaluate_corners(reader, args.set, args.split, args.limit, progress)
        return evaluate.evaluate_photos(reader, args.set, args.limit, progress)

    if args.by_stage:
        return _by_stage(args, evaluated)
    if args.misses:
        return _misses(args, kind)
    reader = load_reader(args.model_dir, backend=args.backend, many_decks=args.many_decks)
    result = evaluated(reader)
    summary = result.to_json()
    summary["model"] = reader.model_version
    summary["backend"] = reader.backend
    if args.out:
        args.out.mkdir(parents=True, exist_ok=True)
        evaluate.plot_confusion(result, args.out / "confusion.png")
        (args.out / "eval.json").write_text(json.dumps(summary, indent=2) + "\n")
    if args.json:
        print(json.dumps(summary, indent=2))
    else:
        _print(result, summary)
    short = []
    if args.min_precision is not None and result.precision < args.min_precision:
        short.append(f"precision {result.precision:.4f} < {args.min_precision}")
    if args.min_recall is not None and result.recall < args.min_recall:
        short.append(f"recall {result.recall:.4f} < {args.min_recall}")
    if args.min_clean is not None and result.clean_share < args.min_clean:
        short.append(f"clean pictures {result.clean_share:.4f} < {args.min_clean}")
    for line in short:
        print(f"kiosk eval: below threshold: {line}", file=sys.stderr)
    return 1 if short else 0


def _print(result, summary) -> None:
    what = "rank" if result.kind == "real-ranks" else "card"
    print(f"set:        {result.source} ({result.images} pictures, model {summary['model']}, {summary['backend']})")
    print(f"{what} precision: {result.precision:.4f}  ({result.correct} right of {result.readings} read)")
    if result.unlabelled_right:
        print(f"  and {result.unlabelled_right} right readings of cards whose every index is under 60% visible "
              f"(not labelled, not counted; counted as wrong, precision is {result.strict_precision:.4f})")
    print(f"{what} recall:    {result.recall:.4f}  ({result.correct} right of {result.labelled} labelled)")
    if result.right_by_place:
        p, r = result.by_index_boxes
        print(f"  of them {result.right_by_place} matched by the card they lie on, not by an index box "
              f"(by index boxes only: precision {p:.4f}, recall {r:.4f})")
    print(f"read with no error: {result.clean_share:.3f} of pictures ({result.clean_images}/{result.images})")
    if result.full_showdowns:
        print(
            f"52-card showdowns with no error: {result.clean_showdown_share:.3f} "
            f"({result.clean_full_showdowns}/{result.full_showdowns})"
        )
    if result.deck_showdowns != result.full_showdowns:
        print(f"  of them without a joker (Chinese Poker's 52 cards): {result.clean_deck_showdown_share:.3f} "
              f"({result.clean_deck_showdowns}/{result.deck_showdowns})")
    if summary["median_ms"] is not None:
        print(f"median read time: {summary['median_ms']} ms per picture")
    if result.confusions:
        print("most confused pairs (true -> read):")
        for (t, r), n in result.confusions.most_common(10):
            print(f"  {t:>3} -> {r:<3} x{n}   {summary_kind(t, r)}")
        print("by kind: " + ", ".join(f"{k} {n}" for k, n in result.confusion_kinds().most_common()))
    else:
        print("most confused pairs: none")
    if len(result.by_deck) > 1:
        print("by deck design (precision / recall): " + ", ".join(
            f"{deck} {c / r if r else 1:.3f} / {c / n if n else 1:.3f} ({n} cards)"
            for deck, (n, r, c) in sorted(result.by_deck.items())))
    if result.missed:
        print("missed: " + " ".join(f"{c} x{n}" for c, n in result.missed.most_common(10)))
    if result.extra:
        print("extra readings: " + " ".join(f"{c} x{n}" for c, n in result.extra.most_common(10)))
    if result.extra_places:
        print("extra readings lie on: " + ", ".join(f"{where} {n}" for where, n in result.extra_places.most_common()))
    if result.failures:
        print(f"pictures with an error ({len(result.failures)}; all of them in eval.json with --out, or --json):")
        for image, what in result.failures[:FAILURES_SHOWN]:
            print(f"  {image}: {what}")
        if len(result.failures) > FAILURES_SHOWN:
            print(f"  ... and {len(result.failures) - FAILURES_SHOWN} more")


def _by_stage(args, evaluated) -> int:
    from kiosk.vision.reader import load_reader
    from kiosk_lab.evaluation.stages import STAGES_OFF, stage_rows

    results = {}
    if not args.json:
        print(f"{'stage off':<16} {'precision':>9} {'recall':>7} {'clean':>6} {'ms':>7}   change (P, R, clean)")
    for name, off in {"all": {}, **STAGES_OFF}.items():
        reader = load_reader(args.model_dir, backend=args.backend, many_decks=args.many_decks, settings=off)
        results[name] = evaluated(reader)
        row = stage_rows(results)[-1]
        if not args.json:  # row by row: a long run's first rows are worth reading before its end
            print(f"{name:<16} {row['precision']:>9.4f} {row['recall']:>7.4f} {row['clean']:>6.3f} "
                  f"{row['median_ms'] or 0:>7.1f}   {row['d_precision']:+.4f} {row['d_recall']:+.4f} "
                  f"{row['d_clean']:+.3f}", flush=True)
    rows = stage_rows(results)
    if args.out:
        args.out.mkdir(parents=True, exist_ok=True)
        (args.out / "stages.json").write_text(json.dumps(rows, indent=2) + "\n")
    if args.json:
        print(json.dumps(rows, indent=2))
    else:
        print(f"set: {results['all'].source}, {results['all'].images} pictures; each row one stage off")
    return 0


def _misses(args, kind: str) -> int:
    from kiosk.errors import KioskError
    from kiosk.vision.reader import load_reader
    from kiosk_lab.evaluation.misses import miss_causes, print_misses

    if kind != "scenes":
        raise KioskError(f"--misses reads a generated set's labelled scenes; {args.set} is a folder of photos")
    reader = load_reader(args.model_dir, backend=args.backend, many_decks=args.many_decks)
    result = miss_causes(reader, args.set, args.split, args.limit)
    print_misses(result, f"{args.set.name} [{args.split}], reader {reader.model_version}")
    return 0


def summary_kind(t, r):
    from kiosk_lab.evaluation.evaluate import confusion_kind

    return confusion_kind(t, r)
