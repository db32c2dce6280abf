"""`kiosk replay HAND_ID|all|VIDEO`: recorded frames through the same pipeline, verdicts compared.

    kiosk replay HAND_ID [HAND_ID ...] [--db PATH] [--config FILE] [--profile NAME] [--json]
    kiosk replay all --db PATH              every recorded hand
    kiosk replay VIDEO --db PATH            a video through the pipeline, hands matched to the record

A hand is replayed from its recorded clips under the config and game state it was played
with; `--config` or `--profile` replays it under other rules and shows what changes.
Exit 0 when every verdict matches the record, 1 when any differs, 2 for unusable input.
"""

from __future__ import annotations

import json
from pathlib import Path

from kiosk.commands import command_parser
from kiosk.errors import KioskError
from kiosk.vision.models_dir import MODELS_HELP, default_models_dir


def register(subparsers) -> None:
    parser = command_parser(
        subparsers, "replay", "re-run recorded hands through the pipeline and compare with the record", __doc__)
    parser.add_argument("targets", nargs="+", metavar="HAND_ID|all|VIDEO",
                        help="recorded hand id(s), 'all', or a video file / folder of frames")
    parser.add_argument("--db", help="record database (default: the config's records.db, "
                            "else kiosk.sqlite in the state directory, docs/records.md)")
    parser.add_argument("--config", metavar="FILE", help="replay under this config instead of the recorded one")
    parser.add_argument("--profile", metavar="NAME", help="replay under this scoring profile (a changed-rule replay)")
    parser.add_argument("--json", action="store_true", help="print JSON")
    parser.add_argument("--models", metavar="DIR", default=default_models_dir(), help=MODELS_HELP)
    parser.add_argument("--backend", default="auto", help="reader backend: auto, openvino-int8, openvino, onnx, pytorch")
    parser.set_defaults(func=run)


def run(args) -> int:
    from kiosk.records.replay import format_report, replay_hand, replay_video
    from kiosk.records.store import HandStore
    from kiosk.table.config import load_config

    cfg = load_config(args.config) if args.config else None
    if args.profile:
        from kiosk.rules.profiles import get_profile

        get_profile(args.profile)  # an unknown profile is a clear error before any work
    base = cfg or load_config(None)
    db = Path(args.db) if args.db else base.records.db_path()
    videos = [t for t in args.targets if Path(t).exists() and t != "all"]
    hand_ids = [t for t in args.targets if t not in videos]
    if not db.exists() and hand_ids:
        raise KioskError(f"no record database at {db}", exit_code=2)
    store = HandStore(db, create=False) if db.exists() else None
    try:
        if "all" in hand_ids:
            hand_ids = [h for h in hand_ids if h != "all"] + store.hand_ids()
        for hand_id in hand_ids:
            if store.hand(hand_id) is None:
                raise KioskError(f"no recorded hand {hand_id!r} in {db} (and no such video file)", exit_code=2)
        from kiosk.commands.analyze import _load_reader

        reader = _load_reader(args.models, args.backend)
        replays = [replay_hand(store, h, reader, cfg, args.profile) for h in hand_ids]
        for video in videos:
            video_cfg = cfg or load_config(None)
            if args.profile:
                game = video_cfg.game.model_copy(update={"profile": args.profile})
                video_cfg = video_cfg.model_copy(update={"game": game})
            replays += replay_video(Path(video), reader, video_cfg, store)
    finally:
        if store is not None:
            store.close()
    if args.json:
        print(json.dumps([r.to_json() for r in replays], indent=2, default=str))
    else:
        print(format_report(replays) or "nothing to replay")
        matched = sum(r.match for r in replays)
        print(f"{matched} of {len(replays)} hands match the record")
    return 0 if replays and all(r.match for r in replays) else 1
