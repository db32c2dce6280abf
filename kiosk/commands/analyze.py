"""`kiosk analyze IMAGE|VIDEO|FOLDER`: read the hands on a recording, through the live pipeline.

For each hand found: the showdown read (exactly the input of `kiosk score`), its scored
result (or `{"error": ...}` when the kiosk will not rule: needs dealer check, integrity),
and what the dealer must check. `--json` prints
`[{"showdown": {...}, "result": {...}, "needs_check": [...], ...}]`.

A single image is one hand. A video, or a folder of photos (taken in name order, one
`--interval` apart), is a table over time: a hand ends when the felt is swept or the
next photo shows a different deal. Exit 0 when every hand was scored, 1 when some hand
needs a dealer check or could not be scored, 2 for unusable input.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from kiosk.cards import ROWS
from kiosk.commands import command_parser
from kiosk.errors import KioskError
from kiosk.vision.models_dir import MODELS_HELP, default_models_dir


def register(subparsers) -> None:
    parser = command_parser(
        subparsers, "analyze", "read and score the hands on an image, a video or a folder of photos", __doc__)
    parser.add_argument("input", metavar="IMAGE|VIDEO|FOLDER", help="a photo, a video file or a folder of photos")
    parser.add_argument("--config", metavar="FILE", help="table config (YAML); default: the whole frame is the table")
    parser.add_argument("--json", action="store_true", help="print JSON instead of a readable report")
    parser.add_argument("--models", metavar="DIR", default=default_models_dir(), help=MODELS_HELP)
    parser.add_argument("--backend", default="auto", help="reader backend: auto, openvino-int8, openvino, onnx, pytorch")
    parser.add_argument(
        "--detections", metavar="FILE",
        help="use saved readings (the JSON of 'kiosk detect --json', one entry per frame in order) "
        "instead of running the card reader",
    )
    parser.add_argument("--game", choices=("chinese-poker", "paigow"),
                        help="the game on the recording (default: config game.name, chinese-poker)")
    parser.add_argument(
        "--interval", type=float, default=1.0, metavar="SECONDS",
        help="time between two photos of a folder (default 1)",
    )
    parser.set_defaults(func=run)


def run(args) -> int:
    from kiosk.paigow.runner import runner_class
    from kiosk.table.config import for_game, load_config
    from kiosk.table.hub import Hub
    from kiosk.table.runner import TableRunner
    from kiosk.table.sources import open_source

    if args.interval <= 0:
        raise KioskError(f"--interval {args.interval}: must be more than 0 seconds")
    path = Path(args.input)
    cfg = for_game(load_config(args.config), getattr(args, "game", None), path)
    if not path.exists():
        raise KioskError(f"no such file or folder: {path}")
    source = open_source(path, realtime=False, loop=False, interval=args.interval)
    reader = saved_reader(args.detections) if args.detections else _load_reader(args.models, args.backend)
    hub = Hub()
    progress = Progress(source, hub)
    runner_type = runner_class(cfg)
    # frames of a still table under a confident verdict add nothing: not read (the verdicts are the same)
    still = {"sample_still": True} if runner_type is TableRunner else {}
    runner = runner_type(cfg, progress, reader, hub, **still)
    try:
        verdicts = runner.run_to_end()
    finally:
        source.close()
        progress.close()
    skipped = getattr(source, "skipped", [])
    for name in skipped:
        print(f"kiosk analyze: cannot read image {name}; skipped", file=sys.stderr)
    files = getattr(source, "files", None)
    if files and len(skipped) == len(files):
        raise KioskError(f"{path}: none of its {len(files)} images could be read (see above)", exit_code=2)
    gave_up = getattr(source, "gave_up", None)
    if gave_up:
        print(f"kiosk analyze: {path}: gave up on the rest of the video: {gave_up}", file=sys.stderr)
    hands = [hand_json(v) for v in verdicts]
    if args.json:
        print(json.dumps(hands, indent=2))
    else:
        print(text_report(hands, str(path)))
    if not hands:
        return 1
    return 0 if all(h["confident"] for h in hands) and not skipped and not gave_up else 1


class Progress:
    """The source's frames as they go by, with a progress bar on a terminal: frames, hands found, ETA."""

    live = False

    def __init__(self, source, hub):
        from kiosk.progress import ProgressBar

        total = getattr(source, "frame_count", 0) or len(getattr(source, "files", ()) or ())
        self.source, self.bar, self.done, self.hands = source, ProgressBar(total, "frames"), 0, set()
        hub.subscribe(lambda e: self.hands.add(e.data["verdict"].hand_id) if e.kind == "verdict" else None)

    def __iter__(self):
        for frame in self.source:
            yield frame
            self.done += 1
            self.bar.update(self.done, self._found())

    def _found(self) -> str:
        return f"{len(self.hands)} hand{'' if len(self.hands) == 1 else 's'} found"

    def close(self) -> None:
        self.bar.close(self.done, self._found())


def _load_reader(models: str, backend: str):
    try:
        from kiosk.vision.reader import load_reader
    except ImportError as err:  # pragma: no cover - only before the reader exists
        raise KioskError(f"the card reader is not available ({err})", exit_code=1) from None
    return load_reader(models, backend)


def hand_json(verdict) -> dict:
    return {
        "showdown": verdict.showdown,
        "result": verdict.result,
        "needs_check": [
            {"seat": c.seat, "reason": c.reason, **({"card": c.card} if c.card else {})} for c in verdict.needs_check
        ],
        "integrity": list(verdict.integrity),
        "confident": verdict.confident,
        "hand_id": verdict.hand_id,
        "frame_index": verdict.frame_index,
    }


def text_report(hands: list[dict], name: str) -> str:
    if not hands:
        return f"{name}: no hand found (no seat showed its cards)"
    out = []
    for n, hand in enumerate(hands, 1):
        out.append(f"Hand {n} ({name}, frame {hand['frame_index']}):")
        if hand["showdown"].get("game") == "paigow":
            out.extend(_paigow_lines(hand))
            continue
        results = {s["seat"]: s for s in hand["result"].get("seats", [])}
        for seat in hand["showdown"]["seats"]:
            k = seat["seat"]
            if seat.get("dead"):
                out.append(f"  seat {k}: dead")
                continue
            if seat.get("declared_natural"):
                cards = "natural declared: " + " ".join(seat.get("cards", []))
            else:
                cards = " | ".join(f"{r} {' '.join(seat.get(r, []))}" for r in ROWS)
            r = results.get(k)
            status = ""
            if r:
                status = f"  -> {r['status']}, {r['points']:+d} points" + (f" ({r['explanation']})" if r.get("explanation") else "")
            out.append(f"  seat {k}: {cards}{status}")
        for problem in hand["integrity"]:
            out.append(f"  INTEGRITY: {problem}")
        for check in hand["needs_check"]:
            out.append(f"  NEEDS DEALER CHECK: seat {check['seat']}: {check['reason']}")
        if "error" in hand["result"]:
            out.append(f"  not scored: {hand['result']['error'].removeprefix('not scored: ')}")
        else:
            for t in hand["result"].get("transfers", []):
                out.append(f"  seat {t['from']} pays seat {t['to']} {t['amount']}")
    return "\n".join(out)


def _paigow_lines(hand: dict) -> list[str]:
    """A Pai Gow hand: the table read (or why it is not scored) as `kiosk score --text` prints it."""
    from kiosk.paigow.report import table_report

    if "error" not in hand["result"]:
        return [("  " + line).rstrip() for line in table_report(hand["result"], "Pai Gow").splitlines()[2:]]
    out = [f"  banker: {' '.join(hand['showdown']['banker']['high'])} | {' '.join(hand['showdown']['banker']['low'])}"]
    out += [f"  seat {s['seat']}: {' '.join(s['high'])} | {' '.join(s['low'])}" for s in hand["showdown"]["seats"]]
    out += [f"  INTEGRITY: {p}" for p in hand["integrity"]]
    out += [f"  NEEDS DEALER CHECK: {c['reason']}" for c in hand["needs_check"]]
    return out + [f"  not scored: {hand['result']['error'].removeprefix('not scored: ')}"]


class SavedReader:
    """Readings saved by `kiosk detect --json` (entry i is frame i, or an entry's "frame")."""

    model_version = "saved-detections"

    def __init__(self, entries: list[dict], name: str):
        self.by_frame = {}
        for i, entry in enumerate(entries):
            if not isinstance(entry, dict) or not isinstance(entry.get("cards"), list):
                raise KioskError(f"{name}: entry {i + 1} is not {{\"image\": ..., \"cards\": [...]}}")
            self.by_frame[int(entry.get("frame", i))] = entry
        self.name = name

    def read(self, image, rois=None, frame_index=0, timestamp=0.0, source=""):
        from kiosk.cards import CardError, parse_card
        from kiosk.vision.detections import CardDetection, Detections

        h, w = image.shape[:2]
        entry = self.by_frame.get(frame_index, {"cards": []})
        cards = []
        for j, c in enumerate(entry["cards"]):
            try:
                box = tuple(float(v) for v in c["box"])
                corners = tuple(tuple(float(v) for v in b) for b in c.get("corners", ()))
                alternatives = tuple((parse_card(a), float(p)) for a, p in c.get("alternatives", ()))
                cards.append(CardDetection(parse_card(c["card"]), float(c["confidence"]), box, corners, alternatives))
            except (KeyError, TypeError, ValueError, CardError) as err:
                raise KioskError(f"{self.name}: frame {frame_index}, card {j + 1}: {err}") from None
        return Detections(tuple(cards), (w, h), frame_index, timestamp, source)


def saved_reader(path: str) -> SavedReader:
    from kiosk.commands.score import read_json

    data = read_json(path, what="detections")
    if isinstance(data, dict):
        data = [data]
    if not isinstance(data, list):
        raise KioskError(f"{path}: expected the JSON list of 'kiosk detect --json'")
    return SavedReader(data, path)
