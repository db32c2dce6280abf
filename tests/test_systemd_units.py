"""The table PC's systemd units: the kiosk, and the dealer screen that opens its page once it is ready."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

from kiosk.table.config import KioskConfig

UNITS = Path(__file__).resolve().parents[1] / "systemd"
SECTION_KEYS = {"Unit": {"StartLimitIntervalSec", "StartLimitBurst", "After", "Wants", "Requires", "Conflicts"},
                "Service": {"Restart", "RestartSec", "ExecStart", "ExecStartPre", "Type", "User", "Environment"}}


def parse(name: str) -> dict[str, dict[str, list[str]]]:
    """section -> key -> every value (systemd keys repeat), continuation lines joined."""
    text = (UNITS / name).read_text().replace("\\\n", " ")
    out: dict[str, dict[str, list[str]]] = {}
    section = None
    for line in text.splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        if line.startswith("["):
            section = out.setdefault(line.strip("[]"), {})
            continue
        key, value = line.split("=", 1)
        section.setdefault(key, []).append(value)
    return out


def test_each_key_sits_in_the_section_systemd_reads_it_from():
    for name in ("kiosk.service", "kiosk-display.service"):
        unit = parse(name)
        for section, keys in SECTION_KEYS.items():
            for other, values in unit.items():
                if other != section:
                    assert not keys & values.keys(), f"{name}: {keys & values.keys()} belong in [{section}]"
    if shutil.which("systemd-analyze"):  # the real parser, where this machine has it
        done = subprocess.run(["systemd-analyze", "verify", *map(str, UNITS.glob("*.service"))],
                              capture_output=True, text=True)
        assert not re.search(r"Unknown (key|section)|Invalid|Failed to parse", done.stderr), done.stderr


def test_the_screen_opens_the_dealer_page_once_the_kiosk_is_ready_and_comes_back_when_it_dies():
    kiosk, screen = parse("kiosk.service"), parse("kiosk-display.service")
    assert kiosk["Service"]["Type"] == ["notify"]  # so After=kiosk.service waits for READY=1
    after = " ".join(screen["Unit"]["After"]).split()
    assert "kiosk.service" in after and "kiosk.service" in screen["Unit"]["Wants"]
    assert screen["Service"]["Restart"] == ["always"] and screen["Unit"]["StartLimitIntervalSec"] == ["0"]
    [url] = [v.split("=", 1)[1] for v in screen["Service"]["Environment"] if v.startswith("KIOSK_URL=")]
    web = KioskConfig().web
    assert url == f"http://{web.host}:{web.port}/"  # the page kiosk run serves by default
    [start] = screen["Service"]["ExecStart"]
    assert "/usr/bin/chromium --kiosk" in start and start.rstrip().endswith("${KIOSK_URL}")
    assert any("curl" in pre and "$KIOSK_URL" in pre for pre in screen["Service"]["ExecStartPre"])
