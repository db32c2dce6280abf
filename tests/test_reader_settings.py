"""reader.json, typed (kiosk/vision/settings.py): clear errors, stages off in one way, the version's one rule."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from kiosk.errors import KioskError
from kiosk.vision.model_folder import model_version
from kiosk.vision.pipeline import FRAME_STAGES, PICTURE_STAGES
from kiosk.vision.settings import ReaderSettings, Stages, parse_settings, read_settings
from kiosk_lab.evaluation.stages import STAGES_OFF
from reader_support import shipped_reader_with

MODELS = Path(__file__).resolve().parents[1] / "models"


def test_the_shipped_reader_json_is_read_whole_and_written_back_the_same():
    raw = json.loads((MODELS / "reader.json").read_text())
    settings = read_settings(MODELS)
    assert json.loads(settings.to_json()) == raw
    assert list(raw["stages"]) == list(Stages.model_fields)  # every stage named, those off as null


@pytest.mark.parametrize("edit, named", [
    (lambda m: m.update(det_conf=0.2), "'det_conf': unknown key"),
    (lambda m: m["stages"]["nested"].update(share="half"), "'stages.nested.share'"),
    (lambda m: m["stages"].update(rank_look={"below": 0.9}), "'stages.rank_look': unknown key"),
    (lambda m: m["stages"]["context_check"].pop("drop"), "'stages.context_check.drop': missing"),
])
def test_a_bad_key_is_an_error_naming_the_key_and_the_file(tmp_path, edit, named):
    from kiosk.vision.reader import load_reader

    folder = shipped_reader_with(tmp_path / "models", edit)
    with pytest.raises(KioskError) as err:
        load_reader(folder)
    assert named in str(err.value) and str(folder / "reader.json") in str(err.value)


def test_every_stage_of_the_two_lists_is_a_setting_and_a_row_of_the_stage_table():
    listed = [s.setting for s in FRAME_STAGES + PICTURE_STAGES if s.setting]
    assert len(listed) == len(set(listed)) and set(listed) <= set(Stages.model_fields)
    # off is None, one way for each: the table turns every stage off so
    assert {name: off["stages"] for name, off in STAGES_OFF.items()} == {
        name.replace("_", " "): {name: None} for name in Stages.model_fields}
    settings = read_settings(MODELS)
    for off in STAGES_OFF.values():
        (name,) = off["stages"]
        assert getattr(settings.changed(off).stages, name) is None


def test_the_version_hashes_the_weights_and_the_reading_settings_not_the_notes(tmp_path):
    settings = read_settings(MODELS)
    shipped = model_version(MODELS, settings)
    assert shipped == model_version(MODELS, settings.changed({"notes": {"trained": "another day"},
                                                              "default_backend": "openvino"}))
    assert shipped != model_version(MODELS, settings.changed({"stages": {"faint_partners": {"sure": 0.8}}}))
    folder = tmp_path / "models"
    shutil.copytree(MODELS, folder, ignore=shutil.ignore_patterns("figures", "*openvino*"))
    assert model_version(folder, settings) == shipped  # where the folder lies is no part of it
    with open(folder / "context-check.pt", "ab") as f:
        f.write(b"\0")  # a stage's network's weights are
    assert model_version(folder, settings) != shipped


def test_a_stage_off_is_null_and_absent_alike():
    raw = json.loads((MODELS / "reader.json").read_text())
    absent = {**raw, "stages": {k: v for k, v in raw["stages"].items() if k != "turned_look"}}
    null = {**raw, "stages": {**raw["stages"], "turned_look": None}}
    assert parse_settings(absent, "a") == parse_settings(null, "b") == ReaderSettings.model_validate(null)
    assert parse_settings(null, "b").stages.turned_look is None
