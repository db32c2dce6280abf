"""Floor review pages on the real Flask app with a real record database (issue 6)."""

from __future__ import annotations

import hashlib
import re
import time

import cv2
import numpy as np
import pytest

from kiosk.records.recorder import Recorder
from kiosk.records.store import HandStore
from kiosk.table.config import KioskConfig, Web
from kiosk.table.hub import Hub
from kiosk.web.app import create_app
from kiosk.web.security import hash_pin
from records_support import correction, frame_image, make_verdict

DAY = 86400.0


def record_hand(store, tmp_path, hand_id, *, corrected=True, size=(640, 360), **kw):
    hub = Hub()
    rec = Recorder(store, hub, None, tmp_path / "media", max_pending_frames=64)
    hub.publish("phase", phase="cards_down", hand_id=hand_id)
    for i in range(5):
        hub.publish("frame", frame_index=i, timestamp=i / 4, image=frame_image(i, size), hand_id=hand_id)
    hub.publish("verdict", verdict=make_verdict(hand_id, frame_index=4, **kw))
    if corrected:
        hub.publish("action", action=correction(hand_id, before="Qs", after="4s"), ok=True, message="")
        hub.publish("verdict", verdict=make_verdict(hand_id, frame_index=4, foul_seat2=False,
                                                    **{k: v for k, v in kw.items() if k != "foul_seat2"}))
    assert rec.flush()
    rec.close()


@pytest.fixture
def store(tmp_path):
    s = HandStore(tmp_path / "kiosk.sqlite")
    record_hand(s, tmp_path, "T1-0001")
    record_hand(s, tmp_path, "T1-0002", corrected=False, stake=5)
    s.append_verdict(make_verdict("T1-0003", needs_check=True, decided_at=time.time() - 3 * DAY))
    yield s
    s.close()


def client_for(store, cfg=None):
    app = create_app(Hub(), None, cfg, store)
    app.testing = True
    return app.test_client()


def csrf(client, url) -> str:
    page = client.get(url).get_data(as_text=True)
    return re.search(r'name="csrf-token" content="([^"]+)"', page).group(1)


def hand_ids(html: str) -> list[str]:
    return re.findall(r'<tr class="hand" data-hand="([^"]+)"', html)


def test_list_shows_hands_newest_first(store):
    client = client_for(store)
    r = client.get("/review/")
    assert r.status_code == 200
    assert hand_ids(r.get_data(as_text=True)) == ["T1-0002", "T1-0001", "T1-0003"]


@pytest.mark.parametrize(
    "query, expected",
    [
        ("foul=yes", ["T1-0002", "T1-0003"]),  # T1-0001 was corrected: seat 2 no longer fouled
        ("foul=no", ["T1-0001"]),
        ("seat=2&foul=yes", ["T1-0002", "T1-0003"]),
        ("seat=3&foul=yes", []),
        ("natural=yes", []),
        ("min_amount=40", ["T1-0002"]),  # stake 5: seat 3 collects 8 x 5 from seat 1
        ("status=needs_check", ["T1-0003"]),
        ("q=0001", ["T1-0001"]),
    ],
)
def test_list_search(store, query, expected):
    assert hand_ids(client_for(store).get(f"/review/?{query}").get_data(as_text=True)) == expected


def test_list_search_by_date(store):
    today = time.strftime("%Y-%m-%d")
    two_days_ago = time.strftime("%Y-%m-%d", time.localtime(time.time() - 2 * DAY))
    client = client_for(store)
    assert hand_ids(client.get(f"/review/?since={today}").get_data(as_text=True)) == ["T1-0002", "T1-0001"]
    assert hand_ids(client.get(f"/review/?until={two_days_ago}").get_data(as_text=True)) == ["T1-0003"]


def test_bad_search_values_are_named_not_a_server_error(store):
    r = client_for(store).get("/review/?since=yesterday&seat=north&min_amount=lots")
    assert r.status_code == 200
    page = r.get_data(as_text=True)
    assert "since: &#39;yesterday&#39; is not a date or time (YYYY-MM-DD or YYYY-MM-DD HH:MM)" in page
    assert "seat: &#39;north&#39; is not a seat number" in page
    assert "amount: &#39;lots&#39; is not a number" in page


def test_hand_page_shows_frame_overlays_cards_rules_payments_and_corrections(store):
    r = client_for(store).get("/review/hands/T1-0002")
    assert r.status_code == 200
    page = r.get_data(as_text=True)
    v = store.hand("T1-0002").latest.verdict
    assert page.count('<rect class="card-box') == len(v.evidence) == 39
    assert 'viewBox="0 0 640 360"' in page
    # The foul with its rules: D-8 for what the fouled seat pays, D-2 for why it is fouled.
    d8 = re.findall(r'<li data-rule="D-8"><span class="rule">D-8</span>([^<]*)', page)
    assert any(text.startswith("seat 2 fouled") and "pays 6 plus royalties" in text for text in d8), d8
    assert "D-8: a fouled seat pays the scoop (6) plus royalties" in page
    assert "D-2: back at least equal to middle, middle strictly above front" in page
    assert "fouled: middle (pair of 8s) does not beat front (pair of queens)" in page
    # Payments in D-10 order, with the stake of 5.
    payments = re.findall(r'<tr class="payment"><td>(\d+)</td><td>seat (\d)</td><td>seat (\d)</td><td class="num">([\d.]+)</td>', page)
    assert payments == [(str(i + 1), str(t["from"]), str(t["to"]), str(t["amount"]))
                        for i, t in enumerate(v.result["transfers"])]
    assert ("3", "2", "3", "40") in payments  # seat 2 fouled pays seat 3: 6 + 2 royalty = 8 points x 5


def test_hand_page_revisions_and_corrections(store):
    client = client_for(store)
    latest = client.get("/review/hands/T1-0001").get_data(as_text=True)
    assert 'data-revision="1"' in latest
    assert "corrected seat 3 middle 2:" in latest and ">Qs</span> &rarr; <span class=\"card\">4s</span>" in latest
    assert "floor-7" in latest
    assert '<span class="badge fouled">fouled</span>' not in latest
    first = client.get("/review/hands/T1-0001?rev=0").get_data(as_text=True)
    assert 'data-revision="0"' in first and '<span class="badge fouled">fouled</span>' in first
    assert client.get("/review/hands/T1-0001?rev=7").status_code == 404
    assert client.get("/review/hands/NOPE").status_code == 404


def test_hand_without_media_says_so(store):
    page = client_for(store).get("/review/hands/T1-0003").get_data(as_text=True)
    assert 'id="no-frame"' in page
    assert "needs dealer check</span> seat 3: card at middle 3 read as 8h or 6h" in page


def test_media_is_served_only_through_its_record(store):
    client = client_for(store)
    first = store.hand("T1-0001").first
    key = next(m for m in first.media if m.role == "key_frame")
    r = client.get(f"/review/hands/T1-0001/media/{first.seq}/key_frame")
    assert r.status_code == 200 and r.mimetype == "image/jpeg"
    assert hashlib.sha256(r.data).hexdigest() == key.sha256
    clip = client.get(f"/review/hands/T1-0001/media/{first.seq}/clip")
    assert clip.status_code == 200 and clip.data[:2] == b"\xff\xd8"
    # Another hand's record, or a made-up role, is not served.
    other = store.hand("T1-0002").first.seq
    assert client.get(f"/review/hands/T1-0001/media/{other}/key_frame").status_code == 404
    assert client.get(f"/review/hands/T1-0001/media/{first.seq}/..%2F..%2Fkiosk.sqlite").status_code == 404


def test_report_png_is_a4_pages_with_the_key_frame(store):
    r = client_for(store).get("/review/hands/T1-0002/report.png")
    assert r.status_code == 200 and r.mimetype == "image/png"
    pages = cv2.imdecode(np.frombuffer(r.data, np.uint8), cv2.IMREAD_COLOR)
    assert pages.shape[1] == 1240 and (pages.shape[0] + 24) % (1754 + 24) == 0  # A4 pages, a 24 px gutter between
    page = pages[:1754]
    # The key frame (green felt of the test frames) is on the page.
    felt = np.all(np.abs(page.astype(int) - (30, 90, 30)) < 12, axis=2)
    assert felt.sum() > 50_000
    # Text on white below the frame.
    assert (page[900:1700] < 128).any()


def test_report_pdf_is_a_valid_a4_pdf_with_a_page_per_report_page(store):
    client = client_for(store)
    r = client.get("/review/hands/T1-0002/report.pdf")
    assert r.status_code == 200 and r.mimetype == "application/pdf"
    assert r.data.startswith(b"%PDF-1.4") and r.data.rstrip().endswith(b"%%EOF")
    pdfium = pytest.importorskip("pypdfium2")
    pdf = pdfium.PdfDocument(r.data)
    png = cv2.imdecode(np.frombuffer(client.get("/review/hands/T1-0002/report.png").data, np.uint8), cv2.IMREAD_COLOR)
    assert len(pdf) == (png.shape[0] + 24) // (1754 + 24)
    width, height = pdf[0].get_size()
    assert (round(width), round(height)) == (595, 842)
    image = pdf[0].render(scale=1).to_numpy()
    assert image.shape[:2] == (842, 595) and image.std() > 20


def test_flag_needs_csrf_and_a_name_and_unflag_needs_the_floor_pin(store):
    cfg = KioskConfig(web=Web(floor_pin_hash=hash_pin("2468", iterations=1000)))
    client = client_for(store, cfg)
    url = "/review/hands/T1-0002"
    assert client.post(url + "/review", data={"action": "flag", "by": "floor-1"}).status_code == 400
    token = csrf(client, url)
    r = client.post(url + "/review", data={"action": "flag", "by": "", "csrf_token": token})
    assert r.status_code == 302 and store.flagged() == set()
    r = client.post(url + "/review", data={"action": "flag", "by": "floor-1", "note": "seat 2 disputes the foul",
                                           "csrf_token": token}, follow_redirects=True)
    assert store.flagged() == {"T1-0002"}
    assert "Under review since" in r.get_data(as_text=True) and "seat 2 disputes the foul" in r.get_data(as_text=True)
    assert hand_ids(client.get("/review/?review=yes").get_data(as_text=True)) == ["T1-0002"]
    r = client.post(url + "/review", data={"action": "unflag", "pin": "1111", "csrf_token": token},
                    follow_redirects=True)
    assert "wrong floor PIN" in r.get_data(as_text=True) and store.flagged() == {"T1-0002"}
    client.post(url + "/review", data={"action": "unflag", "pin": "2468", "csrf_token": token})
    assert store.flagged() == set()


def test_record_json_carries_hashes_and_verdicts(store):
    data = client_for(store).get("/review/hands/T1-0001/record.json").get_json()
    hand = store.hand("T1-0001")
    assert [r["hash"] for r in data["revisions"]] == [r.hash for r in hand.revisions]
    assert data["revisions"][0]["verdict"]["result"] == hand.first.verdict.result
    assert [a["after"] for a in data["actions"]] == ["4s"]


def test_no_store_no_review_pages():
    app = create_app(Hub(), None, None, None)
    assert app.test_client().get("/review/").status_code == 404
