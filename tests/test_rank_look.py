"""The rank look (kiosk/vision/rank_look.py): a second opinion on an index's rank, on its cut turned upright."""

from pathlib import Path

import numpy as np
import pytest

from kiosk.cards import RANKS
from kiosk.errors import KioskError
from kiosk.vision.rank_look import swap_ranks
from reader_support import card_probs, shares_of, shipped_reader_with

MODELS = Path(__file__).resolve().parents[1] / "models"


def _look(**shares) -> np.ndarray:
    q = np.full((1, len(RANKS)), 0.001)
    for rank, v in shares.items():
        q[0, RANKS.index(rank.lstrip("r"))] = v
    return q


def test_the_first_card_swaps_with_the_rank_the_look_outweighs_it_with_in_its_suit():
    p = card_probs(**{"3h": 0.5, "Jh": 0.3, "Jd": 0.1, "8h": 0.05})
    swapped = swap_ranks(p, _look(J=0.9, r3=0.05))
    assert shares_of(swapped, "3h", "Jh", "Jd", "8h") == [0.3, 0.5, 0.1, 0.05]
    # leaning to the jack (0.5 against 0.4) does not outweigh the classifier's 0.5 against 0.3
    assert shares_of(swap_ranks(p, _look(J=0.5, r3=0.4)), "3h", "Jh") == [0.5, 0.3]
    # a rank the classifier gave this suit nothing is never taken, however sure the look
    assert shares_of(swap_ranks(p, _look(K=0.99)), "3h", "Kh") == [0.5, 0.0]


def test_no_reading_gets_surer_and_the_joker_and_the_background_stay():
    p = card_probs(**{"6s": 0.45, "8s": 0.35, "Jk": 0.1})  # 0.1 background
    q = swap_ranks(p, _look(r8=0.95))
    assert q.max() == p.max() and q.sum() == pytest.approx(p.sum()) and shares_of(q, "Jk") == [0.1]
    joker = card_probs(**{"Jk": 0.6, "3h": 0.3})
    assert np.array_equal(swap_ranks(joker, _look(J=0.99)), joker)


@pytest.fixture
def reader():
    """The shipped reader with a rank look that answers what the test tells it (the trained look is not shipped:
    model card, results, "The rank look"), and the batches it was given."""
    from kiosk.vision.reader import load_reader

    reader, given, answer = load_reader(MODELS), [], {}

    def look(batch):
        given.append(batch)
        return np.tile(answer["probs"], (len(batch), 1))

    reader.rank_look, reader.rank_below = look, 0.95
    reader.rank_order = list(range(len(RANKS)))
    return reader, given, answer


def test_a_reading_less_sure_than_the_line_takes_the_rank_the_look_outweighs_it_with(reader, showdown):
    from kiosk.vision.merge import Corner

    reader, given, answer = reader
    answer["probs"] = _look(J=0.9, r3=0.02)[0]
    box = (10.0, 10.0, 40.0, 60.0)
    corners = [Corner(box, 0.9, card_probs(**{"3h": 0.5, "Jh": 0.4})[0], 1, 0.99),
               Corner(box, 0.9, card_probs(**{"3h": 0.96, "Jh": 0.04})[0], 0, 0.99),  # surer than the line
               Corner(box, 0.9, card_probs(**{"Jk": 0.5, "3h": 0.4})[0], 0, 0.99)]  # the joker is not looked at
    looked = reader._look_again(showdown.image, corners)
    assert [len(b) for b in given] == [1] and given[0].shape[1:] == (reader.cls_size, reader.cls_size, 3)
    assert shares_of(looked[0].card_probs[None], "3h", "Jh") == [0.4, 0.5]
    assert all(np.array_equal(a.card_probs, b.card_probs) for a, b in zip(looked[1:], corners[1:]))


def test_a_reader_folder_whose_rank_look_is_missing_fails_to_load_with_a_clear_error(tmp_path):
    from kiosk.vision.reader import load_reader

    look = {"files": {"pytorch": "index-ranks.pt"}, "names": sorted(RANKS), "below": 0.95}
    folder = shipped_reader_with(tmp_path / "models", lambda meta: meta.update(rank_look=look))
    with pytest.raises(KioskError, match="the rank look's weights are missing"):
        load_reader(folder)


def test_the_rank_look_is_part_of_the_model_version():
    from kiosk.vision.model_folder import model_version, read_meta

    meta = read_meta(MODELS)
    look = {"files": {"pytorch": "index-ranks.pt"}, "names": sorted(RANKS), "below": 0.95}
    versions = {model_version(MODELS, m) for m in (meta, {**meta, "rank_look": look},
                                                   {**meta, "rank_look": {**look, "below": 0.9}})}
    assert len(versions) == 3
