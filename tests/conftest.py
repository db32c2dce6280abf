"""Fixtures shared by several test files: the browser (display and floor review) and a rendered showdown."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from table_support import CHROMIUM, CHROMIUM_ARGS


@pytest.fixture(scope="module")
def shots(tmp_path_factory) -> Path:
    """Where screenshots go: $KIOSK_ARTIFACTS to keep them, else a temporary folder."""
    folder = Path(os.environ["KIOSK_ARTIFACTS"]) if os.environ.get("KIOSK_ARTIFACTS") else \
        tmp_path_factory.mktemp("screenshots")
    folder.mkdir(parents=True, exist_ok=True)
    return folder


@pytest.fixture(scope="module")
def browser():
    """Debian's headless Chromium driven by Playwright (never a downloaded browser build)."""
    assert Path(CHROMIUM).exists(), "the browser tests need Debian's chromium: bash scripts/setup --test"
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        yield b
        b.close()


@pytest.fixture(scope="module")
def showdown():
    """A rendered 1080p showdown of a design the reader never trained on, that this machine has."""
    from kiosk_lab.synth.scenes import render_random
    from kiosk_lab.synth.art import unseen_decks

    models = Path(__file__).resolve().parents[1] / "models"
    return render_random("showdown", unseen_decks(str(models))[0], seed=4242, size=(1920, 1080))


@pytest.fixture
def procedural_art(tmp_path, monkeypatch):
    """Writes procedural designs to a temporary art folder the renderer reads (KIOSK_ART_DIRS); returns the writer,
    which gives each design's folder. The art cache is cleared before and after, so no other test sees them."""
    from kiosk_lab.synth import art

    root = tmp_path / "art"
    monkeypatch.setenv("KIOSK_ART_DIRS", str(root))

    def write(design) -> Path:
        folder = root / design.id
        art.write_deck(folder, design.id, design.images, design.back, name="test", family="procedural",
                       licence="generated", source="test", index=design.index)
        art.load_deck.cache_clear()
        return folder

    art.load_deck.cache_clear()
    yield write
    art.load_deck.cache_clear()


@pytest.fixture(scope="session")
def pg_cluster():
    """One real PostgreSQL server (Debian's package) for the whole session, on 127.0.0.1 only.

    As root (CI) it runs as the `postgres` system user in a temporary folder that user owns."""
    from kiosk.records.pg_cluster import TempCluster

    cluster = TempCluster().start()
    yield cluster
    cluster.close()


@pytest.fixture
def central_dsn(pg_cluster, request):
    """A fresh database on the session's server with the floor's schema, for one test."""
    import re

    import psycopg

    from kiosk.records.central_schema import install

    name = "t_" + re.sub(r"[^a-z0-9]+", "_", request.node.name.lower())[:50]
    dsn = pg_cluster.create_database(name)
    with psycopg.connect(dsn, autocommit=True) as conn:
        install(conn)
    return dsn
