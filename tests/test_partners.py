"""Two readings at the two corners of one card (kiosk/vision/partners.py): the surer one stands."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from reader_support import shipped_reader_with, with_settings

MODELS = Path(__file__).resolve().parents[1] / "models"
NAMES = ["Kd", "Qs", "6h", "9c", "Ah", "3d", "Jc", "Ts"]


@pytest.fixture(scope="module")
def readers(tmp_path_factory):
    from kiosk.vision.reader import load_reader

    plain = shipped_reader_with(tmp_path_factory.mktemp("plain"), lambda meta: meta["stages"].pop("partners"))
    return load_reader(MODELS), load_reader(plain)


def test_the_shipped_reader_drops_a_disagreeing_partner_and_is_another_version_without(readers):
    shipped, plain = readers
    meta = json.loads((MODELS / "reader.json").read_text())["stages"]["partners"]
    rule = shipped.settings.stages.partners
    assert (rule.reach, rule.sure) == (meta["reach"], meta["sure"])
    assert 0 < rule.reach < 1.15  # under validation's nearest two right readings of two cards
    assert plain.settings.stages.partners is None and plain.model_version != shipped.model_version


def _misprint(deck, card: str, other: str):
    """`deck` with `card` printed with `other`'s second index (the one farther from the top left)."""
    from kiosk_lab.synth.art import CardArt

    face, donor = deck.cards[card], deck.cards[other]
    x1, y1, x2, y2 = (int(round(v)) for v in max(face.index, key=lambda b: b[0] + b[1]))
    image = face.image.copy()
    image[y1:y2, x1:x2] = donor.image[y1:y2, x1:x2]
    return replace(deck, cards={**deck.cards, card: CardArt(card, image, face.index)})


@pytest.fixture(scope="module")
def misprint():
    """A 6h printed with a Qc's second index, beside seven well printed cards (a 5h's index would merge with the
    6h's: its reading has the 6h second)."""
    from kiosk_lab.synth.art import load_deck
    from kiosk_lab.synth.camera import CameraParams
    from kiosk_lab.synth.table import Placement, render_placements

    deck = _misprint(load_deck("kenney"), "6h", "Qc")
    places = [Placement(n, (260.0 + 280 * (i % 4), 300.0 + 420 * (i // 4)), float(np.random.default_rng(i).normal(0, 4)),
                        300.0, True) for i, n in enumerate(NAMES)]
    return render_placements(places, deck, np.random.default_rng(7), CameraParams(), (1600, 1100), kind="single")


def test_a_card_printed_with_two_indices_reads_as_one_card_not_two(readers, misprint):
    """Without the rule the misprint reads as a 6h and a Qc at the two corners of one card; with it as the surer,
    and every other card as before."""
    shipped, plain = readers
    before = {str(c.card) for c in plain.read_picture(misprint.image).cards}
    after = {str(c.card) for c in shipped.read_picture(misprint.image).cards}
    assert {"6h", "Qc"} <= before
    assert {"6h", "Qc"} & after == {"6h"}  # the surer (1.0 against 0.78)
    assert after - {"6h", "Qc"} == before - {"6h", "Qc"} == set(NAMES) - {"6h"}


def _one_picture_set(root: Path, shot) -> None:
    """A labelled set (its test split) of the one rendered picture."""
    import cv2

    (root / "images" / "test").mkdir(parents=True)
    (root / "scenes" / "test").mkdir(parents=True)
    cv2.imwrite(str(root / "images" / "test" / "m.png"), shot.image)
    (root / "scenes" / "test" / "m.json").write_text(json.dumps({**shot.scene, "image": "m.png"}))


def test_partner_lines_reads_a_set_once_and_scores_the_rule_as_eval_does(readers, misprint, tmp_path, monkeypatch,
                                                                        capsys):
    """scripts/partner_lines.py on a set of the one misprint: without the rule one wrong reading (the Qc), none
    missed; with the shipped values none wrong; a reach too short to join the two corners changes nothing; the
    printed table says so; a folder that is no set is a clear error, exit 1."""
    monkeypatch.syspath_prepend(str(Path(__file__).resolve().parents[1] / "scripts"))
    import partner_lines

    _one_picture_set(tmp_path, misprint)
    shipped, _ = readers
    pictures = partner_lines.read_set(shipped, tmp_path)
    tally = partner_lines.tally
    assert tally(partner_lines.with_rule(pictures, 0.0, 0.0))[:2] == (1, 0)
    rule = shipped.settings.stages.partners
    assert tally(partner_lines.with_rule(pictures, rule.reach, rule.sure))[:2] == (0, 0)
    assert tally(partner_lines.with_rule(pictures, 0.05, 0.0))[:2] == (1, 0)
    assert partner_lines.main([str(tmp_path), "--reach", "0.75", "0.05", "--sure", "0.95"]) == 0
    table = capsys.readouterr().out.splitlines()
    assert table[1] == f"{tmp_path.name}: 1 wrong, 0 missed, 0 clean | 0.75/0.95: -1 wrong +0 missed 0 clean; " \
                       "0.05/0.95: +0 wrong +0 missed 0 clean"
    assert table[2] == "all sets: 0.75/0.95: -1 wrong +0 missed; 0.05/0.95: +0 wrong +0 missed"
    assert partner_lines.main([str(tmp_path / "none")]) == 1
    assert "no scenes/test/" in capsys.readouterr().err


def test_the_rule_asks_the_classifier_only_of_readings_without_their_corners_turns(readers, misprint, monkeypatch):
    """The merge hands each reading its corners' orientations (CardDetection.turns), so the rule classifies no index
    again (it did, ~35 ms a picture); a reading the turned look made (no quarter turn) is classified as before."""
    shipped, _ = readers
    asked = []
    classify_turns = shipped.orientations_at
    monkeypatch.setattr(shipped, "orientations_at",
                        lambda image, boxes: asked.append(boxes) or classify_turns(image, boxes))
    cards = shipped.read_picture(misprint.image).cards
    assert len(cards) == len(NAMES) and all(len(c.turns) == len(c.corners) for c in cards)
    # every card lies upright: its top left index stands, the bottom right one is turned half round
    top_left = [min(zip(c.corners, c.turns), key=lambda bt: bt[0][0] + bt[0][1])[1][0] for c in cards]
    assert top_left == [0] * len(NAMES) and sorted(k for c in cards for k, _ in c.turns) == [0] * 8 + [2] * 7
    assert min(sure for c in cards for _, sure in c.turns) > 0.9
    assert asked == []
    turned = replace(cards[0], turns=())
    shipped_rule = (shipped.settings.stages.partners.reach, shipped.settings.stages.partners.sure)
    from kiosk.vision.partners import disagreeing_partners

    disagreeing_partners([turned, *cards[1:]], lambda boxes: asked.append(boxes) or [(0, 1.0)] * len(boxes),
                         *shipped_rule)
    assert asked == [[tuple(b) for b in turned.corners]]


def test_veto_lines_applies_the_rule_after_the_veto_as_the_reader_does(readers, misprint, tmp_path, monkeypatch):
    """scripts/veto_lines.py reads the set without the veto and without this rule, and scores each line with the rule
    after it: the misprint's Qc is gone at every line as in the reader's own reading, and there without the rule."""
    monkeypatch.syspath_prepend(str(Path(__file__).resolve().parents[1] / "scripts"))
    import veto_lines

    _one_picture_set(tmp_path, misprint)
    shipped, _ = readers
    blind = with_settings(shipped, {"stages": {"veto": None, "partners": None}})
    pictures = veto_lines.read_set(shipped, blind, tmp_path)
    partners, veto = shipped.settings.stages.partners, shipped.settings.stages.veto
    rule, spare = (partners.reach, partners.sure), frozenset(veto.spare)
    assert veto_lines.tally(pictures, None, spare)[:2] == (1, 0)
    assert veto_lines.tally(pictures, None, spare, rule)[:2] == (0, 0)
    assert veto_lines.tally(pictures, veto.bg, spare, rule)[:2] == (0, 0)
