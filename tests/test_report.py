"""The dispute report: every card of every seat, more pages when needed, a PDF whose text can be searched."""

from __future__ import annotations

import dataclasses
import time

import cv2
import numpy as np
import pytest

from display_states import DRAGON, FOUL, SET, SIX_PAIRS, scenarios
from kiosk.records.recorder import Recorder
from kiosk.records.report import PAGE, render_report, report_pdf, report_png
from kiosk.records.store import HandStore
from kiosk.table.hub import Hub
from records_support import correction, frame_image


def record(store, tmp_path, verdict, actions=()):
    hub = Hub()
    rec = Recorder(store, hub, None, tmp_path / "media", max_pending_frames=64)
    hub.publish("phase", phase="cards_down", hand_id=verdict.hand_id)
    for i in range(5):
        hub.publish("frame", frame_index=i, timestamp=i / 4, image=frame_image(i, (1280, 720)),
                    hand_id=verdict.hand_id)
    hub.publish("verdict", verdict=dataclasses.replace(verdict, frame_index=4))
    for action in actions:
        hub.publish("action", action=action, ok=True, message="")
    assert rec.flush()
    rec.close()
    return store.hand(verdict.hand_id)


def key_frame(store, hand):
    key = next(m for m in hand.latest.media if m.role == "key_frame")
    return store.media_abspath(key.path).read_bytes()


def pdf_text(data: bytes) -> list[str]:
    pdfium = pytest.importorskip("pypdfium2")
    pdf = pdfium.PdfDocument(data)
    return [pdf[i].get_textpage().get_text_range() for i in range(len(pdf))]


@pytest.fixture
def store(tmp_path):
    s = HandStore(tmp_path / "kiosk.sqlite")
    yield s
    s.close()


def test_a_verified_natural_shows_its_13_cards_and_every_card_is_in_the_pdf_text(store, tmp_path):
    """Two declared naturals (six pairs, dragon; D-9) and two seats in rows: all 52 cards on the report."""
    hand = record(store, tmp_path, scenarios()["natural_left_top"])
    pages = render_report(hand, key_frame_jpeg=key_frame(store, hand))
    assert len(pages) >= 1 and all(p.image.shape == (PAGE[1], PAGE[0], 3) for p in pages)
    text = " ".join(" ".join(pdf_text(report_pdf(pages))).split())
    assert "no cards" not in text and "page full" not in text
    assert "pile (13 cards): " + " ".join(SIX_PAIRS) in text
    assert "pile (13 cards): " + " ".join(DRAGON) in text
    assert "natural: six pairs: kings (Kc Kd), jacks (Jh Js)" in text
    for row in ("front", "middle", "back"):
        assert f"{row}: {' '.join(SET[row])}" in text and f"{row}: {' '.join(FOUL[row])}" in text
    assert f"sha256 {hand.latest.hash}" in text  # the record's hash can be copied out of the PDF


def test_a_long_report_goes_on_over_more_pages_and_loses_nothing(store, tmp_path):
    base = time.time()
    fixes = [dataclasses.replace(correction("H-natural-bottom", before="6d", after="6h", at=base + i), by=f"floor-{i}")
             for i in range(60)]
    hand = record(store, tmp_path, scenarios()["natural_bottom"], fixes)
    pages = render_report(hand, key_frame_jpeg=key_frame(store, hand))
    assert len(pages) >= 2
    texts = pdf_text(report_pdf(pages))
    assert len(texts) == len(pages)
    for i, page in enumerate(texts, start=1):
        assert f"page {i} of {len(pages)}" in page
    whole = " ".join(texts)
    assert all(f"by floor-{i}" in whole for i in range(60)), "a dealer action is missing from the report"
    assert "page full" not in whole
    png = cv2.imdecode(np.frombuffer(report_png(pages), np.uint8), cv2.IMREAD_COLOR)
    assert png.shape[0] == len(pages) * PAGE[1] + (len(pages) - 1) * 24 and png.shape[1] == PAGE[0]


def test_the_pdf_text_lies_where_the_words_are_drawn(store, tmp_path):
    """Selecting a word in the PDF selects the drawn word: its box covers ink on the page image."""
    pdfium = pytest.importorskip("pypdfium2")
    hand = record(store, tmp_path, scenarios()["sets"])
    pages = render_report(hand)
    pdf = pdfium.PdfDocument(report_pdf(pages))
    textpage = pdf[0].get_textpage()
    found = textpage.search("Payments (in order)")
    start, count = found.get_next()
    left, bottom, right, top = textpage.get_charbox(start)
    image = pdf[0].render(scale=PAGE[0] / 595).to_numpy()  # PDF points -> page pixels
    k = PAGE[0] / 595
    y0, y1 = int((842 - top) * k), int((842 - bottom) * k)
    x0, x1 = int(left * k), int((left + (right - left)) * k) + 1
    assert (image[y0:y1 + 1, x0:x1 + 1] < 100).any(), "the text layer is not over the drawn heading"
