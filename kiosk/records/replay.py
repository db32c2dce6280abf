"""Replay: recorded frames back through the very same pipeline, verdicts compared with the record.

A recorded hand's clips (one per verdict revision, frames in order with their original
indices and timestamps) go through a fresh `TableRunner` with the game state the hand
was played under (button, dead seats, stakes, stacks, from its first verdict's showdown)
and the config in force (or another one, or another scoring profile: a changed-rule
replay). The dealer's recorded actions are applied where they happened: after the last
frame the kiosk had seen when the dealer acted. Every verdict the replay publishes is
compared, in order, with the recorded revisions: showdown, result, what needs a dealer
check, table integrity.

>>> [str(d) for d in diff({"a": 1, "b": [1, 2]}, {"a": 1, "b": [1, 3], "c": 0})]
['b[1]: 2 -> 3', 'c: (none) -> 0']
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Iterator

from pydantic import ValidationError

from kiosk.errors import KioskError
from kiosk.paigow.judge import paigow_config_of
from kiosk.paigow.runner import runner_class
from kiosk.records.chain import file_sha256
from kiosk.records.media import read_clip
from kiosk.records.recorder import JPEG_QUALITY
from kiosk.records.store import HandRecord, HandStore, VerdictRecord
from kiosk.table.config import KioskConfig
from kiosk.table.hub import Hub
from kiosk.table.sources import Frame, open_source
from kiosk.table.verdict import Verdict

_MISSING = object()


@dataclass(frozen=True, slots=True)
class Difference:
    path: str  # "result.transfers[0].amount"
    recorded: object
    replayed: object

    def __str__(self) -> str:
        def show(v):
            return "(none)" if v is _MISSING else json.dumps(v, sort_keys=True, default=str)

        return f"{self.path}: {show(self.recorded)} -> {show(self.replayed)}"

    def to_json(self) -> dict:
        return {
            "path": self.path,
            "recorded": None if self.recorded is _MISSING else self.recorded,
            "replayed": None if self.replayed is _MISSING else self.replayed,
        }


def diff(recorded, replayed, path: str = "") -> list[Difference]:
    """Every leaf where two JSON values differ, by path."""
    if isinstance(recorded, dict) and isinstance(replayed, dict):
        out = []
        for key in sorted(set(recorded) | set(replayed), key=str):
            sub = f"{path}.{key}" if path else str(key)
            out += diff(recorded.get(key, _MISSING), replayed.get(key, _MISSING), sub)
        return out
    if isinstance(recorded, list) and isinstance(replayed, list):
        out = []
        for i in range(max(len(recorded), len(replayed))):
            a = recorded[i] if i < len(recorded) else _MISSING
            b = replayed[i] if i < len(replayed) else _MISSING
            out += diff(a, b, f"{path}[{i}]")
        return out
    if recorded is _MISSING or replayed is _MISSING or recorded != replayed or type(recorded) is not type(replayed):
        if isinstance(recorded, (int, float)) and isinstance(replayed, (int, float)) and recorded == replayed \
                and not isinstance(recorded, bool) and not isinstance(replayed, bool):
            return []  # 6 and 6.0 are the same amount
        return [Difference(path, recorded, replayed)]
    return []


def comparable(verdict: Verdict) -> dict:
    """What a replay must reproduce: the read, the result, what needs a check, integrity."""
    return json.loads(json.dumps({
        "showdown": verdict.showdown,
        "result": verdict.result,
        "needs_check": [{"seat": n.seat, "card": n.card} for n in verdict.needs_check],
        "integrity": list(verdict.integrity),
    }))


@dataclass(frozen=True, slots=True)
class RevisionCheck:
    revision: int  # recorded revision (or the replay's n-th verdict when the record has fewer)
    differences: tuple[Difference, ...]
    recorded: Verdict | None
    replayed: Verdict | None

    @property
    def match(self) -> bool:
        return not self.differences and self.recorded is not None and self.replayed is not None


@dataclass(frozen=True, slots=True)
class HandReplay:
    hand_id: str
    checks: tuple[RevisionCheck, ...]
    frames: int
    notes: tuple[str, ...] = ()

    @property
    def match(self) -> bool:
        return bool(self.checks) and all(c.match for c in self.checks)

    def to_json(self) -> dict:
        return {
            "hand_id": self.hand_id,
            "match": self.match,
            "frames": self.frames,
            "notes": list(self.notes),
            "revisions": [
                {
                    "revision": c.revision,
                    "match": c.match,
                    "recorded": c.recorded is not None,
                    "replayed": c.replayed is not None,
                    "differences": [d.to_json() for d in c.differences],
                    "replayed_result": c.replayed.result if c.replayed is not None else None,
                }
                for c in self.checks
            ],
        }


def replay_config(record: VerdictRecord, cfg=None, profile: str | None = None):
    """The config to replay a hand under: as recorded (or `cfg`), with the hand's game state."""
    data = cfg.model_dump(mode="json") if cfg is not None else json.loads(json.dumps(record.config or {}))
    showdown = record.verdict.showdown
    game = dict(data.get("game") or {})
    if showdown.get("button") is not None:
        game["button"] = showdown["button"]
    if showdown.get("stake") is not None:
        game["stake"] = showdown["stake"]
    game["pair_stakes"] = [
        {"seats": list(p["seats"]), "stake": p["stake"]} for p in showdown.get("pair_stakes") or []
    ]
    seats = showdown.get("seats") or []
    game["dead"] = [s["seat"] for s in seats if s.get("dead")]
    game["stacks"] = {str(s["seat"]): s["stack"] for s in seats if s.get("stack") is not None}
    if cfg is None and showdown.get("profile"):
        game["profile"] = showdown["profile"]
    if profile:
        game["profile"] = profile
    data["game"] = game
    if showdown.get("game") == "paigow":
        game["name"] = "paigow"
        data["paigow"] = paigow_config_of(showdown, data.get("paigow") or {})
    try:
        return KioskConfig.model_validate(data)
    except ValidationError as err:
        first = err.errors()[0]
        where = ".".join(str(p) for p in first["loc"])
        raise KioskError(f"hand {record.hand_id}: cannot replay under this config: {where}: {first['msg']}") from None


def hand_frames(store: HandStore, hand: HandRecord) -> Iterator:
    """Every recorded frame of a hand, clip after clip, in order."""
    for rev in hand.revisions:
        for m in rev.media:
            if m.role == "clip":
                yield from read_clip(store.media_abspath(m.path), (m.meta or {}).get("frames", []))


def _clip_gaps(hand: HandRecord) -> list[str]:
    """Why the clip may not hold every frame the table read (then a replay may differ)."""
    clips = [m.meta or {} for r in hand.revisions for m in r.media if m.role == "clip"]
    notes = []
    dropped = sum(int(c.get("dropped") or 0) for c in clips)
    if dropped:
        notes.append(f"the clip lacks {dropped} frame{'s' if dropped != 1 else ''} the kiosk read live "
                     "(clip budget or a slow disk): the replay may differ")
    rates = sorted({c["fps"] for c in clips if c.get("fps")})
    if rates:
        notes.append(f"the clip keeps {', '.join(f'{r:g}' for r in rates)} frames a second, not every frame "
                     "the kiosk read: the replay may differ")
    return notes


def replay_hand(store: HandStore, hand_id: str, reader, cfg=None, profile: str | None = None) -> HandReplay:
    """Re-run a recorded hand through a fresh TableRunner (the pipeline of its game) and compare
    verdict by verdict."""
    hand = store.hand(hand_id)
    if hand is None:
        raise KioskError(f"no recorded hand {hand_id!r} in {store.path}", exit_code=1)
    _check_clips(store, hand)
    first = hand.first
    notes = _replay_notes(hand, reader, cfg, profile)
    published, frames, replay_hand_id, runner = _rerun(store, hand, replay_config(first, cfg, profile), reader)
    if not published and first.verdict.meta.get("final"):
        runner.finish()  # the live source ended before the hand was held long enough
    ours = [v for v in published if v.hand_id == (replay_hand_id or v.hand_id)]
    if len({v.hand_id for v in published}) > 1:
        notes.append(f"the replay saw {len({v.hand_id for v in published})} hands in these frames")
    checks = []
    for i in range(max(len(hand.revisions), len(ours))):
        rec = hand.revisions[i].verdict if i < len(hand.revisions) else None
        rep = ours[i] if i < len(ours) else None
        if rec is None:
            diffs = (Difference(f"revision {i}", _MISSING, "published by the replay only"),)
        elif rep is None:
            diffs = (Difference(f"revision {i}", "recorded", "not published by the replay"),)
        else:
            diffs = tuple(diff(comparable(rec), comparable(rep)))
        checks.append(RevisionCheck(hand.revisions[i].revision if rec is not None else i, diffs, rec, rep))
    return HandReplay(hand_id, tuple(checks), frames, tuple(notes))


def _check_clips(store: HandStore, hand: HandRecord) -> None:
    """Replay only the frames the record vouches for: each clip present and unaltered."""
    if not any(m.role == "clip" for r in hand.revisions for m in r.media):
        raise KioskError(f"hand {hand.hand_id} has no recorded frames: it cannot be replayed", exit_code=1)
    for rev in hand.revisions:
        for m in rev.media:
            if m.role == "clip":
                path = store.media_abspath(m.path)
                if not path.exists():
                    raise KioskError(f"hand {hand.hand_id}: the clip of record {rev.seq} is missing ({m.path})",
                                     exit_code=1)
                if file_sha256(path) != m.sha256:
                    raise KioskError(f"hand {hand.hand_id}: the clip of record {rev.seq} was altered ({m.path}); "
                                     "run 'kiosk audit verify'", exit_code=1)


def _replay_notes(hand: HandRecord, reader, cfg, profile: str | None) -> list[str]:
    """What differs from the live run before a frame is replayed: the model, the config, the profile."""
    first = hand.first
    notes = []
    model = str(getattr(reader, "model_version", "") or "")
    if first.verdict.model_version and model and model != first.verdict.model_version:
        notes.append(f"model changed: recorded {first.verdict.model_version}, replayed {model}")
    # The recorded config plus the hand's own game state is the config in force; another one is news.
    if cfg is not None and first.verdict.config_digest and cfg.digest() != first.verdict.config_digest:
        notes.append(f"config differs from the one in force (recorded {first.verdict.config_digest}, "
                     f"replayed {cfg.digest()})")
    if profile:
        notes.append(f"scoring profile {profile} instead of {first.verdict.showdown.get('profile', '?')}")
    return notes + _clip_gaps(hand)


def _rerun(store: HandStore, hand: HandRecord, run_cfg, reader):
    """The hand's frames and dealer actions through a fresh runner, each action after the frame it
    followed live; returns the verdicts published, the frames run, the replay's hand id and the runner."""
    hub = Hub()
    published: list[Verdict] = []
    hub.subscribe(lambda e: published.append(e.data["verdict"]) if e.kind == "verdict" else None)
    runner = runner_class(run_cfg)(run_cfg, None, reader, hub)
    # Actions recorded after the first verdict but carrying no frame go after every frame.
    pending = [a for a in hand.actions if a.action.kind not in ("new_hand", "wrong_pin")]
    frames = 0
    replay_hand_id = None
    while pending and pending[0].frame_index is None:  # acted on before any frame was seen
        runner.apply(pending.pop(0).action)
    for f in hand_frames(store, hand):
        runner.process(Frame(f.image, f.frame_index, f.timestamp, f"replay:{hand.hand_id}", f.jpeg))
        frames += 1
        if replay_hand_id is None:
            replay_hand_id = runner.state.hand_id
        while pending and pending[0].frame_index is not None and pending[0].frame_index <= f.frame_index:
            runner.apply(pending.pop(0).action)
    for a in pending:
        runner.apply(a.action)
    return published, frames, replay_hand_id, runner


def replay_video(path: Path, reader, cfg, store: HandStore | None = None) -> list[HandReplay]:
    """Run a video (or folder of frames) through the pipeline; match each hand to the record.

    A replayed hand matches the recorded hand of the same source whose key frame is
    nearest (within 3 seconds of frames); hands without a record are reported as such.
    """
    source = open_source(path, realtime=False, loop=False)
    hub = Hub()
    published: list[Verdict] = []
    hub.subscribe(lambda e: published.append(e.data["verdict"]) if e.kind == "verdict" else None)
    # The live kiosk read each frame as it recorded it (JPEG): so does the replay of its video.
    runner = runner_class(cfg)(cfg, source, reader, hub, jpeg_quality=JPEG_QUALITY)
    try:
        runner.run_to_end()
    finally:
        source.close()
    by_hand: dict[str, list[Verdict]] = {}
    for v in published:
        by_hand.setdefault(v.hand_id, []).append(v)
    candidates = _recorded_hands_of(store, path) if store is not None else []
    results = []
    for hand_id, verdicts in by_hand.items():
        key = verdicts[0].frame_index
        best = min(candidates, key=lambda h: abs(h.first.verdict.frame_index - key), default=None)
        fps_window = 3 * 30
        if best is None or abs(best.first.verdict.frame_index - key) > fps_window:
            results.append(HandReplay(hand_id, tuple(
                RevisionCheck(i, (Difference(f"revision {i}", _MISSING, "no recorded hand to compare"),), None, v)
                for i, v in enumerate(verdicts[-1:])
            ), 0, (f"no recorded hand of {path.name} near frame {key}",)))
            continue
        candidates.remove(best)
        # A video carries no dealer actions: compare with the verdict as first read.
        rep = verdicts[-1]
        notes = (f"replayed as {hand_id} from {path.name}, frame {key}",)
        if len(best.revisions) > 1:
            notes += ("the record has later revisions (dealer actions); compared with revision 0",)
        results.append(HandReplay(best.hand_id, (
            RevisionCheck(0, tuple(diff(comparable(best.first.verdict), comparable(rep))), best.first.verdict, rep),
        ), 0, notes))
    return results


def _recorded_hands_of(store: HandStore, path: Path) -> list[HandRecord]:
    out = []
    for hand_id in store.hand_ids():
        hand = store.hand(hand_id)
        source = str((hand.first.config or {}).get("source", ""))
        if source and Path(source).name == Path(path).name:
            out.append(hand)
    return out


def format_report(replays: Iterable[HandReplay]) -> str:
    lines = []
    for r in replays:
        verdict = "MATCH" if r.match else "DIFFERS"
        lines.append(f"hand {r.hand_id}: {verdict} ({len(r.checks)} verdict{'s' if len(r.checks) != 1 else ''}"
                     + (f", {r.frames} frames" if r.frames else "") + ")")
        for note in r.notes:
            lines.append(f"  note: {note}")
        for c in r.checks:
            if c.match:
                continue
            lines.append(f"  revision {c.revision}:")
            for d in c.differences[:40]:
                lines.append(f"    {d}")
            if len(c.differences) > 40:
                lines.append(f"    ... {len(c.differences) - 40} more differences")
    return "\n".join(lines)
