"""The suit look (kiosk/vision/suit_look.py): a second opinion on clubs or spades, on an index cut turned upright."""

import shutil
from pathlib import Path

import numpy as np
import pytest

from kiosk.cards import CLASS_NAMES
from kiosk.errors import KioskError
from kiosk.vision.suit_look import black_mass, share_black_suits
from reader_support import card_probs, shares_of

MODELS = Path(__file__).resolve().parents[1] / "models"


def test_without_sharpening_the_two_suits_swap_where_the_look_outweighs_the_classifier():
    p = card_probs(Tc=0.3, Ts=0.5, Th=0.1, **{"9c": 0.05})
    swapped = share_black_suits(p, np.array([0.9]), sharpen=False)
    assert shares_of(swapped, "Tc", "Ts", "Th", "9c", "9s") == [0.5, 0.3, 0.1, 0.05, 0.0]
    # the look only leaning to clubs (0.55) does not outweigh the classifier's 0.5 against 0.3
    assert shares_of(share_black_suits(p, np.array([0.55]), sharpen=False), "Tc", "Ts") == [0.3, 0.5]
    # a look sure of spades leaves spades first
    assert shares_of(share_black_suits(p, np.array([0.01]), sharpen=False), "Tc", "Ts") == [0.3, 0.5]


def test_sharpening_moves_mass_within_the_rank_only():
    p = card_probs(Tc=0.3, Ts=0.5, Jk=0.1)
    q = share_black_suits(p, np.array([0.99]))
    assert q[0, CLASS_NAMES.index("Tc")] > 0.7
    assert shares_of(q, "Jk") == [0.1]
    assert black_mass(q) == pytest.approx(black_mass(p))


@pytest.fixture(scope="module")
def reader():
    from kiosk.vision.reader import load_reader

    return load_reader(MODELS)


def test_the_shipped_reader_has_its_suit_look(reader):
    assert reader.networks["suit_look"] is not None and not reader.settings.stages.suit_look.sharpen


def test_the_look_tells_clubs_from_spades_on_a_design_the_reader_never_trained_on(reader, showdown):
    """Each labelled club and spade index of a rendered showdown, given to the look with the classifier's two
    shares the wrong way round (0.42 for the true suit, 0.48 for the other): the look turns them right."""
    from kiosk.vision.merge import Corner
    from kiosk_lab.training.prepare import corner_orientations

    corners, truth = [], []
    for card in showdown.scene["cards"]:
        name = card["card"]
        if not card.get("face_up", True) or name[1:] not in ("c", "s"):
            continue
        other = name[0] + ("s" if name[1] == "c" else "c")
        for box, k in corner_orientations(card):
            corners.append(Corner(box, 0.9, card_probs(**{name: 0.42, other: 0.48})[0], k, 0.99))
            truth.append(name)
    assert len(corners) >= 10
    looked = reader.look_again(showdown.image, corners)
    right = sum(int(np.argmax(c.card_probs)) == CLASS_NAMES.index(t) for c, t in zip(looked, truth))
    assert right >= 0.9 * len(corners)
    # turned the wrong way, the cuts are not what the look was taught: it no longer sets them right
    wrong_way = [Corner(c.box, c.score, c.card_probs, (c.orient + 2) % 4, c.orient_conf) for c in corners]
    turned = reader.look_again(showdown.image, wrong_way)
    assert sum(int(np.argmax(c.card_probs)) == CLASS_NAMES.index(t) for c, t in zip(turned, truth)) < right


def test_a_red_reading_is_not_given_to_the_suit_look(reader, showdown):
    from kiosk.vision.merge import Corner

    red = Corner((10.0, 10.0, 40.0, 60.0), 0.9, card_probs(Th=0.9, Tc=0.01, Ts=0.03)[0], 0, 0.99)
    look, cuts = reader.networks["suit_look"], []
    # counts what the suit look is given
    reader.networks.opened["suit_look"] = lambda batch: cuts.append(len(batch)) or look(batch)
    try:
        looked = reader.look_again(showdown.image, [red])[0]
    finally:
        reader.networks.opened["suit_look"] = look
    assert cuts == [] and np.array_equal(looked.card_probs, red.card_probs)


def test_a_reader_folder_whose_look_is_missing_fails_to_load_with_a_clear_error(tmp_path):
    from kiosk.vision.reader import load_reader

    folder = tmp_path / "models"
    shutil.copytree(MODELS, folder,
                    ignore=shutil.ignore_patterns("figures", "MODEL_CARD.md", "index-suits*"))
    with pytest.raises(KioskError, match="the suit look's weights are missing"):
        load_reader(folder)


def test_how_the_look_is_used_is_part_of_the_model_version():
    from kiosk.vision.model_folder import model_version
    from kiosk.vision.settings import read_settings

    meta = read_settings(MODELS)
    sharper = meta.changed({"stages": {"suit_look": {"sharpen": not meta.stages.suit_look.sharpen}}})
    without = meta.changed({"stages": {"suit_look": None}})
    assert len({model_version(MODELS, m) for m in (meta, sharper, without)}) == 3
