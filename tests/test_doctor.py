"""`kiosk doctor` on a table PC: each check says what it found and what to fix (issue 70)."""

from __future__ import annotations

from pathlib import Path

from central_support import record_hands
from kiosk.cli import main
from kiosk.records.shipper import Shipper
from kiosk.records.store import HandStore

MODELS = Path(__file__).resolve().parents[1] / "models"


def write_config(tmp_path, source, central: str = "", name: str = "kiosk.yaml") -> Path:
    path = tmp_path / name
    path.write_text(f"table:\n  name: t4\nsource: {source}\nrecords:\n  db: {tmp_path / 'kiosk.sqlite'}\n"
                    f"  media_dir: {tmp_path / 'media'}\n{central}")
    return path


def test_doctor_names_each_problem_with_its_fix(tmp_path, capsys):
    config = write_config(tmp_path, 7)
    store = HandStore(tmp_path / "kiosk.sqlite")
    record_hands(store, tmp_path / "media", "t4", 1, 2, corrected_every=0)
    store.close()
    assert main(["doctor", "--config", str(config), "--models", str(tmp_path / "no-models")]) == 1
    out = capsys.readouterr().out
    assert "FAIL  camera: camera 7: no /dev/video7\n      fix: plug the camera in" in out
    assert f"FAIL  model folder: {tmp_path / 'no-models'}" in out and "fix: restore the committed models/" in out
    assert "records database: " in out and "3 records intact" not in out and "2 records intact" in out
    assert "ok    central link: not configured" in out
    assert out.rstrip().endswith("not ready: camera, model folder")


def test_doctor_checks_the_link_to_the_floor(tmp_path, capsys, central_dsn, pg_cluster):
    floor = tmp_path / "floor-media"
    floor.mkdir()
    central = f"  central:\n    dsn: {central_dsn}\n    media_dir: {floor}\n"
    config = write_config(tmp_path, tmp_path, central)  # a folder of images as the source
    store = HandStore(tmp_path / "kiosk.sqlite")
    record_hands(store, tmp_path / "media", "t4", 1, 3, corrected_every=0)
    Shipper(store, central_dsn, floor, "t4", batch=2).ship_once(max_batches=1)
    assert main(["doctor", "--config", str(config), "--models", str(MODELS)]) == 0
    out = capsys.readouterr().out
    assert "ok    central link: table t4: the floor holds up to record 2 of 3" in out
    assert "ok    model folder: " in out and out.rstrip().endswith("ready")
    # The server gone: named, with what to do.
    down = write_config(tmp_path, tmp_path, central.replace(f"port={pg_cluster.port}", "port=1"), "down.yaml")
    assert main(["doctor", "--config", str(down), "--models", str(MODELS)]) == 1
    out = capsys.readouterr().out
    assert "FAIL  central link: cannot reach the central database" in out and "pg_isready" in out
    # Another kiosk's records under this table's name: named.
    other = HandStore(tmp_path / "other" / "kiosk.sqlite")
    record_hands(other, tmp_path / "other" / "media", "t4", 1, 3, corrected_every=0)
    other.close()
    assert main(["doctor", "--config", str(config), "--models", str(MODELS),
                 "--db", str(tmp_path / "other" / "kiosk.sqlite")]) == 1
    assert "another kiosk uses this table's name" in capsys.readouterr().out
    store.close()
