"""The hash chain over hand records: each record's hash covers the previous one's.

`hash = sha256(prev_hash + canonical JSON of the record)`, where the record's JSON holds
every stored column of the record and of its rows (evidence, media with each file's
sha256), so changing any of them, or removing a record, breaks the chain.

Pruning (retention) removes whole records; it first appends a checkpoint record that
lists each removed run of records with the hash linking into it and the hash of its
last record, so the chain stays verifiable across the hole.

>>> a = link_hash(GENESIS, {"seq": 1, "x": 1})
>>> b = link_hash(a, {"seq": 2, "x": 2})
>>> entries = [ChainEntry(1, GENESIS, a, a), ChainEntry(2, a, b, b)]
>>> verify_chain(entries, runs=[], max_seq=2) is None
True
>>> verify_chain([entries[1]], runs=[], max_seq=2).message
'record 1 was removed'
>>> verify_chain([entries[0], ChainEntry(2, a, b, "f" * 64)], runs=[], max_seq=2).message
'record 2 was altered: its content no longer matches its hash'
>>> verify_chain([entries[1]], runs=[PrunedRun(1, 1, GENESIS, a)], max_seq=2) is None
True
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Sequence

GENESIS = "0" * 64


def canonical_json(obj) -> str:
    """The one JSON text of a value: sorted keys, no spaces, UTF-8, no NaN."""
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False)


def link_hash(prev_hash: str, payload: dict) -> str:
    return hashlib.sha256((prev_hash + canonical_json(payload)).encode("utf-8")).hexdigest()


def bytes_sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def file_sha256(path: str | Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


@dataclass(frozen=True, slots=True)
class ChainEntry:
    """One stored record as the verifier sees it."""

    seq: int
    prev_hash: str  # as stored
    stored_hash: str  # as stored
    computed_hash: str  # recomputed from the stored content and `prev_hash`
    label: str = ""  # "hand H-12 verdict revision 0", for messages


@dataclass(frozen=True, slots=True)
class PrunedRun:
    """Records first..last removed by retention, as a checkpoint recorded them."""

    first: int
    last: int
    prev_hash: str  # the stored prev_hash of record `first` (links to record first-1)
    last_hash: str  # the stored hash of record `last` (record last+1 links to it)


@dataclass(frozen=True, slots=True)
class ChainProblem:
    seq: int
    message: str


def _name(seq: int, labels: dict[int, str]) -> str:
    label = labels.get(seq)
    return f"record {seq} ({label})" if label else f"record {seq}"


def _link_problem(entry: ChainEntry, before: str | None, labels: dict[int, str]) -> ChainProblem | None:
    """What is wrong with one stored record given the hash the record before it has (None: intact)."""
    seq = entry.seq
    if entry.prev_hash != before:
        if entry.computed_hash != entry.stored_hash:
            return ChainProblem(seq, f"{_name(seq, labels)} was altered: its link to the previous record was changed")
        # This record is intact as stored, so what changed is the one before it
        # (content and hash rewritten together).
        return ChainProblem(seq - 1, f"{_name(seq - 1, labels)} was altered: the next record links to a different hash")
    if entry.computed_hash != entry.stored_hash:
        return ChainProblem(seq, f"{_name(seq, labels)} was altered: its content no longer matches its hash")
    return None


def verify_chain(
    entries: Sequence[ChainEntry], runs: Iterable[PrunedRun], max_seq: int
) -> ChainProblem | None:
    """The first problem in the chain, or None when every record is intact.

    `entries` are the surviving records in seq order; `runs` the pruned runs named by
    checkpoint records; `max_seq` the highest seq ever handed out (SQLite's
    AUTOINCREMENT counter), so removing the newest records is caught too.
    """
    labels = {e.seq: e.label for e in entries}
    by_seq = {e.seq: e for e in entries}
    run_by_last = {r.last: r for r in runs}
    run_by_first = {r.first: r for r in runs}
    pruned = set()
    for r in runs:
        pruned.update(range(r.first, r.last + 1))

    def hash_of(seq: int) -> str | None:
        """The hash record `seq` is known to have, from the record or a checkpoint."""
        if seq == 0:
            return GENESIS
        if seq in by_seq:
            return by_seq[seq].stored_hash
        if seq in run_by_last:
            return run_by_last[seq].last_hash
        return None

    expected_next = 1
    for entry in entries:
        seq = entry.seq
        if seq in pruned:
            return ChainProblem(seq, f"{_name(seq, labels)} is listed as pruned but is still stored")
        # Walk over the gap before this record: each missing seq must be a pruned run.
        s = expected_next
        while s < seq:
            run = run_by_first.get(s)
            if run is None:
                return ChainProblem(s, f"record {s} was removed")
            before = hash_of(s - 1)
            if before is not None and run.prev_hash != before:
                return ChainProblem(s - 1, f"{_name(s - 1, labels)} was altered: the pruning checkpoint links to a different hash")
            s = run.last + 1
        if s != seq:
            return ChainProblem(seq, f"{_name(seq, labels)} overlaps a pruned run")
        problem = _link_problem(entry, hash_of(seq - 1), labels)
        if problem is not None:
            return problem
        expected_next = seq + 1
    # Records after the last survivor: only pruned runs may account for them.
    s = expected_next
    while s <= max_seq:
        run = run_by_first.get(s)
        if run is None:
            return ChainProblem(s, f"record {s} was removed (after the newest stored record)")
        s = run.last + 1
    return None
