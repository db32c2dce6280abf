"""Where the records go: one default (the service's state directory); the demo never writes there."""

from __future__ import annotations

from pathlib import Path

from kiosk.commands.run import records_location
from kiosk.table.config import DEMO_RECORDING, KioskConfig, state_dir


def test_the_default_store_is_in_the_services_state_directory_not_the_current_folder(monkeypatch, tmp_path):
    monkeypatch.setenv("STATE_DIRECTORY", "/var/lib/kiosk")  # what systemd's StateDirectory=kiosk passes
    records = KioskConfig().records
    assert records_location(None, records, demo=False) == (Path("/var/lib/kiosk/kiosk.sqlite"),
                                                           Path("/var/lib/kiosk/media"))
    monkeypatch.delenv("STATE_DIRECTORY")
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    assert state_dir() == tmp_path / "state" / "kiosk"
    db, media = records_location(None, records, demo=False)
    assert db == tmp_path / "state" / "kiosk" / "kiosk.sqlite" and media == db.parent / "media"
    assert not db.is_relative_to(Path.cwd())


def test_the_demo_records_into_a_temporary_demo_store_unless_a_database_is_named(monkeypatch, tmp_path):
    monkeypatch.setenv("STATE_DIRECTORY", "/var/lib/kiosk")
    cfg = KioskConfig()
    assert cfg.source == str(DEMO_RECORDING)
    assert records_location(None, cfg.records, demo=True) == (None, None)  # run.py makes a temporary store
    named = tmp_path / "demo.sqlite"
    assert records_location(str(named), cfg.records, demo=True) == (named, tmp_path / "media")
    chosen = KioskConfig.model_validate({"records": {"db": str(tmp_path / "t7.sqlite"),
                                                     "media_dir": str(tmp_path / "frames")}}).records
    assert records_location(None, chosen, demo=True) == (tmp_path / "t7.sqlite", tmp_path / "frames")
