"""`kiosk bench rules`: 4-seat showdowns scored per second on one core, and the
worst-case time to verify or reject a declared natural.

The showdowns are random but realistic: four 13-card hands dealt from one deck, each
set by a simple setter (best back, then best middle, rest in front), about one seat in
ten fouled (rows out of order or a short row), about one showdown in ten with a declared
natural (real or false), random buttons, stakes and stacks. They are built as the JSON
objects the table pipeline sends, so the figure covers parsing, scoring and settlement.
"""

from __future__ import annotations

import json
import os
import random
import resource
import subprocess
import sys
import tempfile
import time
from itertools import combinations

from kiosk.cards import Card, deck
from kiosk.parallel import default_jobs
from kiosk.rules.api import score_json
from kiosk.rules.naturals import bench_naturals
from kiosk.rules.ranking import rank_hand
from kiosk.rules.scoring import score_showdown
from kiosk.rules.showdown import parse_showdown
from kiosk_lab.bench.paigow import run as run_paigow

TARGET_PER_SECOND = 20_000  # in-process, one core
TARGET_COMMAND_PER_SECOND = 5_000  # through `kiosk score` on a 10,000-showdown file, start-up subtracted
TARGET_NATURAL_MS = 5.0


def add_arguments(parser) -> None:
    parser.add_argument("--pool", type=int, default=300, help="distinct showdowns generated (default 300)")
    parser.add_argument("--seconds", type=float, default=3.0, help="time spent scoring (default 3)")
    parser.add_argument("--repeats", type=int, default=200, help="natural checks per hand and call (default 200)")
    parser.add_argument("--seed", type=int, default=2024, help="random seed (default 2024)")
    parser.add_argument("--command-showdowns", type=int, default=10_000, metavar="N",
                        help="showdowns in the file timed through `kiosk score` (default 10000; 0: skip)")
    parser.add_argument(
        "--game", choices=("chinese-poker", "paigow"), default="chinese-poker",
        help="which game's rules to time (default chinese-poker)",
    )


def set_hand(cards: list[Card]) -> tuple[list[Card], list[Card], list[Card]]:
    """A simple, always legal setting: the best 5 for the back, the best 5 of the rest
    for the middle, the last 3 in front (the best of a superset never ranks lower)."""
    back = max(combinations(cards, 5), key=rank_hand)
    rest = [c for c in cards if c not in back]
    middle = max(combinations(rest, 5), key=rank_hand)
    front = [c for c in rest if c not in middle]
    return front, list(middle), list(back)


def _six_pairs_deal(rng: random.Random) -> list[Card]:
    """A deck order whose first 13 cards hold six pairs."""
    ranks = rng.sample(range(2, 15), 7)
    hand = [Card(r, s) for r in ranks[:6] for s in rng.sample("shdc", 2)]
    hand.append(Card(ranks[6], rng.choice("shdc")))
    rest = [c for c in deck() if c not in hand]
    rng.shuffle(rest)
    return hand + rest


def random_showdown(rng: random.Random) -> dict:
    natural = rng.random() < 0.1
    cards = _six_pairs_deal(rng) if natural and rng.random() < 0.7 else rng.sample(deck(), 52)
    seats = []
    for i in range(4):
        hand = cards[13 * i : 13 * (i + 1)]
        seat: dict = {"seat": i + 1, "stack": rng.choice([50, 100, 200, 500, 1000])}
        if natural and i == 0:
            seat["declared_natural"] = True  # real six pairs, or a false declaration
            seat["cards"] = [str(c) for c in hand]
            seats.append(seat)
            continue
        front, middle, back = set_hand(hand)
        roll = rng.random()
        if roll < 0.06:
            middle, back = back, middle  # out of order, unless the two tie
        elif roll < 0.1:
            front, middle = front + middle[:1], middle[1:]  # wrong counts
        seat.update(front=[str(c) for c in front], middle=[str(c) for c in middle], back=[str(c) for c in back])
        seats.append(seat)
    return {
        "profile": "mandarin",
        "button": rng.randint(1, 4),
        "stake": rng.choice([1, 5, 10]),
        "pair_stakes": [{"seats": [1, 2], "stake": 25}] if rng.random() < 0.2 else [],
        "seats": seats,
    }


def _rate(fn, items, seconds: float) -> tuple[float, float, int]:
    """(per CPU-second of this process, per wall-clock second, how many). On a machine shared
    with other jobs the wall-clock rate includes time spent waiting for the CPU."""
    done, start, cpu_start = 0, time.perf_counter(), time.process_time()
    while True:
        for item in items:
            fn(item)
        done += len(items)
        took = time.perf_counter() - start
        if took >= seconds:
            cpu = time.process_time() - cpu_start
            return done / max(cpu, 1e-9), done / took, done


def _timed_command(path: str) -> tuple[float, float, int]:
    """(wall seconds, CPU seconds of it and its workers, peak RSS in KB) of `kiosk score FILE`."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    proc = subprocess.run([sys.executable, "-m", "kiosk", "score", path], stdout=subprocess.DEVNULL,
                          stderr=subprocess.PIPE, text=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode not in (0, 1):
        raise RuntimeError(f"kiosk score failed: {proc.stderr.strip()[-300:]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, after.ru_maxrss


def command_figures(rng: random.Random, count: int, in_process: float) -> None:
    """`kiosk score` as a user runs it, on a file of `count` showdowns, start-up subtracted."""
    with tempfile.TemporaryDirectory() as tmp:
        big, one = os.path.join(tmp, "many.json"), os.path.join(tmp, "one.json")
        with open(big, "w") as out:
            json.dump([random_showdown(rng) for _ in range(count)], out)
        with open(one, "w") as out:
            json.dump([random_showdown(rng)], out)
        start_wall, start_cpu, _ = min(_timed_command(one) for _ in range(3))
        wall, cpu, rss = _timed_command(big)
    per_wall = count / max(wall - start_wall, 1e-9)
    per_cpu = count / max(cpu - start_cpu, 1e-9)
    print(
        f"kiosk score on a {count:,}-showdown file ({default_jobs()} processes): {per_wall:,.0f} per second "
        f"({wall:.2f} s, start-up {start_wall:.2f} s subtracted), {per_cpu:,.0f} per CPU-second; "
        f"peak memory {rss / 1024:.0f} MB"
    )
    print(f"  in-process (above): {in_process:,.0f} per CPU-second on one core")
    print(f"  target >= {TARGET_COMMAND_PER_SECOND:,}/s through the command: "
          f"{'MET' if per_wall >= TARGET_COMMAND_PER_SECOND else 'MISSED'}")


def run(args) -> int:
    if getattr(args, "game", "chinese-poker") == "paigow":
        return run_paigow(args)

    rng = random.Random(args.seed)
    print(f"kiosk bench rules: one thread (one core); generating {args.pool} random 4-seat showdowns (seed {args.seed}) ...")
    pool = [random_showdown(rng) for _ in range(max(1, args.pool))]
    results = [score_json(obj) for obj in pool]
    statuses = [s["status"] for r in results for s in r["seats"]]
    errors = sum("error" in r for r in results)
    print(
        f"  mix: {statuses.count('set')} set, {statuses.count('fouled')} fouled, "
        f"{statuses.count('natural')} natural seats; {errors} unscorable"
    )
    parsed = [parse_showdown(obj) for obj in pool]

    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    full, full_wall, n_full = _rate(score_json, pool, args.seconds)
    only, only_wall, n_only = _rate(score_showdown, parsed, args.seconds / 2)
    print(f"  load average {load:.2f} on {os.cpu_count()} CPUs while measuring")
    print(
        f"4-seat showdowns, parse + score + settle (score_json): {full:,.0f} per CPU-second "
        f"({full_wall:,.0f} per wall-clock second, {n_full:,} scored)"
    )
    print(
        f"4-seat showdowns, score only (score_showdown):         {only:,.0f} per CPU-second "
        f"({only_wall:,.0f} per wall-clock second, {n_only:,} scored)"
    )
    print(f"  target >= {TARGET_PER_SECOND:,}/s on one core: {'MET' if full >= TARGET_PER_SECOND else 'MISSED'}")

    if args.command_showdowns > 0:
        command_figures(rng, args.command_showdowns, full)

    nat = bench_naturals(args.repeats)
    print(
        f"declared natural, worst case to verify or reject: {nat['worst_ms']:.3f} ms mean "
        f"({nat['worst_call']} on '{nat['worst_hand']}', {nat['repeats']} repeats); "
        f"slowest single call {nat['max_single_ms']:.3f} ms"
    )
    print(
        f"  target < {TARGET_NATURAL_MS} ms (worst mean): {'MET' if nat['worst_ms'] < TARGET_NATURAL_MS else 'MISSED'}"
        " (a single call can also include time the process waited for the CPU)"
    )
    return 0
