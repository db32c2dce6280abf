"""The table config: one YAML file, validated, with errors that name the key and the line."""

from __future__ import annotations

from pathlib import Path

import pytest

from kiosk.errors import KioskError
from kiosk.table.config import DEMO_RECORDING, KioskConfig, load_config

ROOT = Path(__file__).resolve().parent.parent


def write(tmp_path, text: str) -> Path:
    path = tmp_path / "table.yaml"
    path.write_text(text)
    return path


def error_of(path) -> str:
    with pytest.raises(KioskError) as err:
        load_config(path)
    return str(err.value)


def test_defaults_are_a_working_table():
    cfg = load_config(None)
    assert cfg.table.seats == 4 and cfg.geometry.corners is None and cfg.geometry.seats is None
    assert cfg.source == str(DEMO_RECORDING)
    assert [cfg.facing(s) for s in (1, 2, 3, 4)] == ["bottom", "left", "top", "right"]
    assert cfg.game.profile == "mandarin" and cfg.web.port == 5000 and cfg.records.enabled
    assert cfg.camera.size == (3840, 2160)  # a USB camera is asked for 4K, not left at OpenCV's 640x480


def test_example_config_is_valid_and_documented():
    cfg = load_config(ROOT / "examples" / "table.yaml")
    assert cfg.table.name == "table-7" and cfg.source == 0
    assert cfg.game.pair_stakes[0].seats == (1, 2) and cfg.game.stacks == {1: 200, 2: 500}
    assert [z.facing for z in cfg.geometry.seats] == ["bottom", "left", "top", "right"]


@pytest.mark.parametrize("text, where", [
    ("table:\n  name: t\ngame:\n  button: 7\n", "line 4: game.button: seat 7 is not a seat of this table (seats 1-4)"),
    ("game:\n  stake: -5\n", "line 2: game.stake: Input should be greater than 0"),
    ("game:\n  profile: vegas\n", "line 2: game.profile:"),
    ("stabilizer:\n  hold_secs: 1\n", "line 2: stabilizer.hold_secs: unknown key"),
    ("game:\n  dead: [1, 9]\n", "line 2: game.dead.1: seat 9 is not a seat"),
    ("geometry:\n  corners: [[0, 0], [1, 1]]\n", "line 2: geometry.corners: the felt has 4 corners (bottom-left, top-left, top-right, bottom-right), got 2"),
    ("geometry:\n  seats:\n    - seat: 1\n      zone: [[0, 0], [1, 1]]\n      facing: bottom\n",
     "line 4: geometry.seats.0.zone: a zone needs at least 3 points, got 2"),
    ("geometry:\n  seats:\n    - {seat: 1, zone: [[0, 0], [9, 0], [9, 9]], facing: north}\n",
     "line 3: geometry.seats.0.facing:"),
    ("table:\n  seats: 6\n", "geometry.seats: the default layout has 4 seats; give a zone for each of the 6 seats"),
    ("game:\n  pair_stakes:\n    - seats: [2, 2]\n      stake: 10\n", "line 3: game.pair_stakes.0.seats: a pair needs two different seats"),
    ("source: 0\ncamera:\n  size: [3840, 100]\n", "line 3: camera.size: width 320-8192 and height 240-8192 pixels, got 3840x100"),
    ("camera:\n  fourcc: MJPEG\n", "line 2: camera.fourcc: a pixel format is four characters (MJPG, YUYV, H264), got 'MJPEG'"),
])
def test_errors_name_the_key_and_the_line(tmp_path, text, where):
    path = write(tmp_path, text)
    message = error_of(path)
    assert message.startswith(str(path)) and where in message, message


def test_not_yaml_and_not_a_mapping(tmp_path):
    assert "not valid YAML" in error_of(write(tmp_path, "table:\n  name: [unclosed\n"))
    assert "must be a mapping of sections" in error_of(write(tmp_path, "- just\n- a list\n"))
    assert "cannot read config" in error_of(tmp_path / "missing.yaml")


def test_config_is_frozen_and_its_digest_is_stable(tmp_path):
    a = load_config(write(tmp_path, "game:\n  stake: 5\n"))
    b = KioskConfig.model_validate({"game": {"stake": 5}})
    assert a.digest() == b.digest() != load_config(None).digest()
    with pytest.raises(Exception):
        a.game.stake = 10  # type: ignore[misc]


def test_relative_source_is_relative_to_the_config_file(tmp_path):
    (tmp_path / "clips").mkdir()
    (tmp_path / "clips" / "hand.mp4").write_bytes(b"x")
    cfg = load_config(write(tmp_path, "source: clips/hand.mp4\n"))
    assert cfg.source == str(tmp_path / "clips" / "hand.mp4")
    assert load_config(write(tmp_path, "source: rtsp://cam.local/1\n")).source == "rtsp://cam.local/1"
