"""`kiosk bench fuzz`: generated hostile showdown input, checked for no traceback.

Each input starts as a realistic showdown (`kiosk_lab.bench.rules.random_showdown`) and is then
mutated: a value replaced by one from a pool of hostile values (huge and tiny numbers, NaN,
4,300-digit integers, deep nesting, wrong types, long text), a key dropped or misspelt, a card
duplicated, a seat repeated; every tenth input is instead mutated as JSON *text* (truncated,
bytes flipped, nested past the decoder's limit) and read through the command's own reader.

The property: `score_one` answers every object with a result or `{"error": ...}` (never an
exception), the answer serializes as `kiosk score` writes it, a scored answer has the contract's
keys and zero-sum points; text that is not JSON is refused with `JsonInputError`, nothing else.
A failing input is written to `--failures DIR` to replay with `kiosk score`.
"""

from __future__ import annotations

import copy
import io
import json
import os
import random
import time
import traceback
from pathlib import Path

from kiosk.cards import ROWS
from kiosk.commands.score import dumps_result, score_one
from kiosk.jsonstream import JsonInputError, read_items
from kiosk.parallel import ordered_map
from kiosk_lab.bench.rules import random_showdown

HOSTILE = [
    0, -1, 1, 2, 99, 100, 10**12, 10**12 + 1, 10**30, int("9" * 4300), -10**30, 1e26, 1e308, -1e308, 1e-300,
    5e-324, 0.001, 0.0009, 0.5, -0.0, float("nan"), float("inf"), float("-inf"), True, False, None, "", "As",
    "Xx", "Jk", "10d", "a" * 10_000, "\u0000", "\ud800", "💥", [], {}, [[]], [None], {"seat": 1}, ["As"] * 60,
    "mandarin", "capsa", "six_pairs", 1.9, "1", [1, 1], [1, 2], {"seats": [1, 2], "stake": 1e27},
]


def _deep(depth: int) -> object:
    value: object = []
    for _ in range(depth):
        value = [value]
    return value


def _paths(obj, depth: int = 0):
    """Every (container, key) pair inside obj down to 6 levels, to mutate in place."""
    if depth > 6:
        return
    if isinstance(obj, dict):
        for k in list(obj):
            yield obj, k
            yield from _paths(obj[k], depth + 1)
    elif isinstance(obj, list):
        for i in range(len(obj)):
            yield obj, i
            yield from _paths(obj[i], depth + 1)


def _hostile(rng: random.Random) -> object:
    return copy.deepcopy(rng.choice(HOSTILE))  # a fresh copy: the pool itself is never mutated


def plausible(obj: dict, rng: random.Random) -> dict:
    """A variant a real table could send: other stakes, stacks, button, declarations, cards moved."""
    obj = copy.deepcopy(obj)
    obj["stake"] = rng.choice((1, 5, 0.25, round(rng.uniform(0.001, 1000), 3), 10**12, 0.001))
    obj["button"] = rng.randint(1, 4)
    for seat in obj["seats"]:
        roll = rng.random()
        if roll < 0.3:
            seat["stack"] = rng.choice((0, 1, 0.5, 10**12, round(rng.uniform(0, 5000), 2)))
        elif roll < 0.4:
            seat.pop("stack", None)
        elif roll < 0.5 and "front" in seat:
            row_a, row_b = rng.sample(ROWS, 2)
            if seat[row_a] and seat[row_b]:  # one card moved: a foul or a short row
                seat[row_b].append(seat[row_a].pop())
        elif roll < 0.55:
            seat["declared_natural"] = rng.choice((True, "dragon", "six_pairs", "three_flushes", "three_straights"))
        elif roll < 0.6:
            seat.clear()
            seat.update(seat=obj["seats"].index(seat) + 1, dead=True)
    return obj


def mutate(obj: dict, rng: random.Random) -> object:
    """A hostile variant of a valid showdown object (or, one time in three, a plausible one)."""
    if rng.random() < 1 / 3:
        return plausible(obj, rng)
    obj = copy.deepcopy(obj)
    for _ in range(rng.choice((1, 1, 1, 2, 3))):
        places = list(_paths(obj))
        if not places or rng.random() < 0.03:
            return _hostile(rng) if rng.random() < 0.9 else _deep(rng.choice((5, 900)))  # not copied again
        container, key = rng.choice(places)
        roll = rng.random()
        if roll < 0.55:
            container[key] = _hostile(rng) if rng.random() < 0.95 else _deep(rng.choice((3, 200)))
        elif roll < 0.7 and isinstance(container, dict):
            del container[key]
        elif roll < 0.8 and isinstance(container, dict):
            container[rng.choice(("midle", "stak", "seat ", "game", "profile", "button"))] = _hostile(rng)
        elif roll < 0.9 and isinstance(container, list) and container:
            container.append(copy.deepcopy(rng.choice(container)))  # a card or seat twice
        else:
            container[key] = copy.deepcopy(rng.choice(places)[0])  # a piece of the showdown elsewhere
    return obj


def mutate_text(text: str, rng: random.Random) -> str:
    roll = rng.random()
    if roll < 0.3:
        return text[: rng.randrange(len(text) + 1)]
    if roll < 0.6:
        chars = list(text)
        for _ in range(rng.randint(1, 5)):
            chars[rng.randrange(len(chars))] = rng.choice('{}[],:"\\0e-+.x \ufeff\u2028')
        return "".join(chars)
    if roll < 0.75:
        return "[" * rng.choice((10, 5000, 100_000)) + text
    if roll < 0.85:
        return "\ufeff" + text
    return f"[{text},{text[: len(text) // 2]}"


def check_object(obj: object) -> str:
    """"scored" or "refused"; AssertionError (or whatever escapes) unless `obj` is answered as the contract says."""
    result = score_one(obj)
    assert isinstance(result, dict), type(result)
    json.loads(dumps_result(result, pretty=False))  # what the command writes is JSON
    if "error" in result:
        assert set(result) == {"error"} and isinstance(result["error"], str) and result["error"]
        return "refused"
    assert {"seats", "pairs", "transfers", "shortfalls"} <= set(result)
    assert sum(s["points"] for s in result["seats"]) == 0
    return "scored"


def check_text(text: str) -> str:
    """"scored", "refused" (some showdown) or "not JSON"."""
    answers = set()
    try:
        many, items = read_items(io.StringIO(text), "fuzz")
        for item in items:
            answers.add(check_object(item))
    except JsonInputError:
        return "not JSON"
    return "refused" if "refused" in answers else "scored"


def add_arguments(parser) -> None:
    parser.add_argument("--count", type=int, default=100_000, help="generated inputs (default 100000)")
    parser.add_argument("--seed", type=int, default=67, help="random seed (default 67)")
    parser.add_argument("--jobs", type=int, default=1, help="processes (default 1)")
    parser.add_argument("--failures", metavar="DIR", default="fuzz-failures",
                        help="where a failing input is written (default ./fuzz-failures)")


def fuzz_block(seed: int, count: int, failures_dir: str) -> tuple[dict[str, int], int, float]:
    """`count` inputs from `seed`: (answers by kind, failing inputs, CPU seconds)."""
    rng = random.Random(seed)
    bases = [random_showdown(rng) for _ in range(200)]
    answers: dict[str, int] = {}
    failures = 0
    cpu_start = time.process_time()
    for i in range(count):
        base = bases[i % len(bases)]
        value: object = None
        try:
            if i % 10 == 9:
                value = mutate_text(json.dumps(base), rng)
                answer = check_text(value)
            else:
                value = mutate(base, rng)
                answer = check_object(value)
            answers[answer] = answers.get(answer, 0) + 1
        except Exception:  # noqa: BLE001 - the finding itself: kept with its input
            failures += 1
            _keep(Path(failures_dir), f"{seed}-{i}", value, traceback.format_exc())
    return answers, failures, time.process_time() - cpu_start


def _block(args_tuple):
    return fuzz_block(*args_tuple)


def run(args) -> int:
    block = 50_000
    blocks = [(args.seed * 1_000_003 + b, min(block, args.count - b * block), args.failures)
              for b in range((args.count + block - 1) // block)]
    print(f"kiosk bench fuzz: {args.count:,} generated showdown inputs (seed {args.seed}, {args.jobs} "
          f"process{'es' if args.jobs > 1 else ''}) ...", flush=True)
    start = time.perf_counter()
    answers: dict[str, int] = {}
    failures, cpu, done = 0, 0.0, 0
    for (found, failed, seconds), (_, n, _) in zip(ordered_map(_block, blocks, args.jobs, batch=1), blocks):
        for kind, k in found.items():
            answers[kind] = answers.get(kind, 0) + k
        failures, cpu, done = failures + failed, cpu + seconds, done + n
        print(f"  {done:,} inputs, {failures} failing, {time.perf_counter() - start:,.0f} s", flush=True)
    wall = time.perf_counter() - start
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"{args.count:,} inputs in {wall:,.0f} s ({cpu:,.0f} CPU-s, {args.count / max(cpu, 1e-9):,.0f} per "
          f"CPU-second, load average {load:.1f}): {failures} failing (a traceback or a broken answer)")
    print("  answers: " + ", ".join(f"{n:,} {k}" for k, n in sorted(answers.items())))
    return 1 if failures else 0


def _keep(folder: Path, i: str, value: object, trace: str) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    text = value if isinstance(value, str) else json.dumps(value, default=repr, allow_nan=True)
    (folder / f"input-{i}.json").write_text(text, encoding="utf-8", errors="surrogatepass")
    (folder / f"input-{i}.txt").write_text(trace)
