"""An in-order parallel map over a stream, with memory bounded by a window of batches.

`ordered_map(fn, items, jobs)` yields `fn(item)` for each item, in the input's order. Items
are grouped in batches; at most `2 * jobs` batches are in flight, so a stream of any length
runs in flat memory. With `jobs <= 1`, or fewer items than one batch, nothing is forked.
Workers are forked (Linux), so `fn` and what it reads (profiles) need not be picklable
beyond the items and the results.
"""

from __future__ import annotations

import multiprocessing
import os
from collections import deque
from itertools import islice
from typing import Callable, Iterable, Iterator, TypeVar

T = TypeVar("T")
R = TypeVar("R")

_FN: Callable | None = None  # the function the forked workers run


def default_jobs() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not Linux
        return max(1, os.cpu_count() or 1)


def _run_batch(batch: list) -> list:
    assert _FN is not None
    return [_FN(item) for item in batch]


def _take(it: Iterator, n: int) -> tuple[list, Exception | None]:
    """Up to n items, and the error the input raised after them (the items before it are kept)."""
    out: list = []
    try:
        for item in islice(it, n):
            out.append(item)
    except Exception as err:  # noqa: BLE001 - re-raised once what came before it is answered
        return out, err
    return out, None


def ordered_map(fn: Callable[[T], R], items: Iterable[T], jobs: int, batch: int = 256) -> Iterator[R]:
    """fn over items, in order; an error raised by `items` comes after the results of what preceded it."""
    global _FN
    it = iter(items)
    first, error = _take(it, batch)
    if jobs <= 1 or len(first) < batch or "fork" not in multiprocessing.get_all_start_methods():
        while True:
            yield from (fn(item) for item in first)
            if error is not None:
                raise error
            first, error = _take(it, batch)
            if not first and error is None:
                return
    _FN = fn
    pool = multiprocessing.get_context("fork").Pool(jobs)
    try:
        window: deque = deque([pool.apply_async(_run_batch, (first,))])
        while error is None:
            chunk, error = _take(it, batch)
            if not chunk:
                break
            window.append(pool.apply_async(_run_batch, (chunk,)))
            if len(window) >= 2 * jobs:
                yield from window.popleft().get()
        while window:
            yield from window.popleft().get()
        if error is not None:
            raise error
    finally:
        pool.terminate()
        pool.join()
        _FN = None
