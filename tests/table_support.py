"""The deal and the browser settings shared by the display and floor-review tests."""

from __future__ import annotations

import socket

from kiosk_lab.synth.table import SeatLayout, TableLayout

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]

# Seat 2 fouls (middle pair of 8s under front pair of queens, D-2) and pays D-8; seat 4 is dead.
DEAL = TableLayout(seats=(
    SeatLayout(1, front=("As", "Ad", "Kc"), middle=("7s", "7h", "7d", "2c", "2d"), back=("9s", "Ts", "Js", "Qs", "Ks")),
    SeatLayout(2, front=("Qh", "Qd", "3c"), middle=("8s", "8c", "4h", "5d", "6c"), back=("Ah", "Kh", "9h", "6h", "2h")),
    SeatLayout(3, front=("2s", "3s", "4s"), middle=("5s", "6s", "7c", "8d", "9c"), back=("Tc", "Jc", "Qc", "Kd", "Ac")),
    SeatLayout(4, dead=True),
))
EMPTY = TableLayout(seats=tuple(SeatLayout(n) for n in (1, 2, 3, 4)))


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]
