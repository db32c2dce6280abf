"""Retention: remove the oldest hands by age and by disk budget, never a hand under review.

Pruning keeps the chain verifiable: the store first appends a checkpoint record naming
each removed run of records and the hashes that link across it, then deletes them (one
transaction), then their media files. It refuses to prune a chain that does not verify,
so pruning never erases the evidence of tampering.

Budget pruning spares the newest hour of hands (a hand just decided may still get a
revision or a dispute), so the budget is a target, not a hard cap.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass
from pathlib import Path

from kiosk.errors import KioskError
from kiosk.records.media import TMP_SUFFIX
from kiosk.records.store import HandStore

DAY = 86400.0
PROTECT_RECENT_SECONDS = 3600.0


@dataclass(frozen=True, slots=True)
class PruneReport:
    hands: tuple[str, ...]  # hand ids pruned (oldest first)
    records: int  # records removed
    freed_bytes: int  # media bytes removed
    checkpoint: int | None  # seq of the checkpoint record
    kept_under_review: tuple[str, ...]  # hands that were due but are flagged
    orphans_removed: int = 0


def prune(
    store: HandStore,
    max_age_days: float | None,
    disk_budget_mb: float | None,
    now: float | None = None,
    protect_recent_seconds: float = PROTECT_RECENT_SECONDS,
    keep_unshipped: bool = False,
) -> PruneReport:
    """Prune hands older than `max_age_days`, then the oldest until under `disk_budget_mb`.

    `keep_unshipped` (a table with a central store): never a record the floor has not got yet."""
    now = time.time() if now is None else now
    check = store.verify(check_media=False)
    if not check.ok:
        raise KioskError(
            f"not pruning: the record chain does not verify ({check.problem.message}); run 'kiosk audit verify'",
            exit_code=1,
        )
    groups = store.hands_oldest_first()
    flagged = store.flagged()
    total_records = sum(len(g[2]) for g in groups) or 1
    db_bytes = store.db_bytes()
    used = db_bytes + sum(g[3] for g in groups)
    budget = disk_budget_mb * 1024 * 1024 if disk_budget_mb is not None else None
    cutoff = now - max_age_days * DAY if max_age_days is not None else None

    shipped = store.meta("central_shipped_seq") if keep_unshipped else None
    chosen, seqs, kept = [], [], []
    for hand_id, at, group_seqs, media_bytes in groups:
        if keep_unshipped and max(group_seqs) > int(shipped or 0):
            break  # not on the floor yet: it stays, and so does every hand after it
        too_old = cutoff is not None and at < cutoff
        over = budget is not None and used > budget and at < now - protect_recent_seconds
        if not (too_old or over):
            break  # oldest first: every later hand is newer still
        if hand_id and hand_id in flagged:
            kept.append(hand_id)
            continue
        chosen.append(hand_id)
        seqs += group_seqs
        used -= media_bytes + db_bytes * len(group_seqs) / total_records
    checkpoint, files = None, []
    if seqs:
        reason = _reason(max_age_days, disk_budget_mb)
        checkpoint, files = store.prune_records(seqs, [h for h in chosen if h], reason, created_at=now)
    freed = 0
    for path in files:
        try:
            freed += path.stat().st_size
            path.unlink()
        except OSError:
            pass
        _remove_empty_parents(path.parent, store.media_dir)
    orphans = sweep_orphans(store, now)
    return PruneReport(tuple(h for h in chosen if h), len(seqs), freed, checkpoint, tuple(kept), orphans)


def _reason(max_age_days, disk_budget_mb) -> str:
    parts = []
    if max_age_days is not None:
        parts.append(f"older than {max_age_days:g} days")
    if disk_budget_mb is not None:
        parts.append(f"over the {disk_budget_mb:g} MB disk budget")
    return "retention: " + " or ".join(parts)


def _remove_empty_parents(folder: Path, root: Path) -> None:
    root = Path(root).resolve()
    folder = Path(folder).resolve()
    while folder != root and root in folder.parents:
        try:
            folder.rmdir()
        except OSError:
            return
        folder = folder.parent


def sweep_orphans(store: HandStore, now: float, min_age_seconds: float = 3600.0) -> int:
    """Delete media files no record references (a crash between writing and committing).

    Only files older than `min_age_seconds`, so a hand being written right now is safe.
    """
    media_dir = Path(store.media_dir)
    if not media_dir.is_dir():
        return 0
    referenced = {p.resolve() for _, p, _ in store.hand_media_files()}
    removed = 0
    for root, _dirs, names in os.walk(media_dir):
        for name in names:
            path = (Path(root) / name).resolve()
            if path in referenced:
                continue
            if not (name.endswith(".jpg") or name.endswith(".mjpeg") or name.endswith(TMP_SUFFIX)):
                continue
            try:
                if now - path.stat().st_mtime >= min_age_seconds:
                    path.unlink()
                    removed += 1
                    _remove_empty_parents(path.parent, media_dir)
            except OSError:
                pass
    return removed
