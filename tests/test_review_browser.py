"""Floor review pages in a real headless Chromium (Debian's /usr/bin/chromium via Playwright) (issue 6).

A rendered table goes through the real TableRunner with the Recorder on its hub (the reader
is the ground-truth SceneReader, so every card is known); a floor correction is recorded
as the next revision. The real Flask server then serves /review/ and the browser searches,
opens the hand, sees the key frame with a box on every card, the rulings with their rules,
the payments and the correction, puts the hand under review and downloads its report.

Screenshots go to $KIOSK_ARTIFACTS when set, else pytest's tmp dir.
"""

from __future__ import annotations

import time
from pathlib import Path

import cv2
import numpy as np
import pytest

from kiosk.records.recorder import Recorder
from kiosk.records.store import HandStore
from kiosk_lab.synth.table import render_table
from table_support import DEAL, EMPTY, free_port
from kiosk.table.actions import DealerAction
from kiosk.table.config import load_config
from kiosk_lab.groundtruth import play
from kiosk.table.hub import Hub
from kiosk.web.app import create_app
from kiosk.web.service import start_server

pytestmark = [pytest.mark.browser, pytest.mark.slow]



@pytest.fixture(scope="module")
def recorded(tmp_path_factory):
    """One hand played through the real pipeline and recorded, then corrected by the floor."""
    folder = tmp_path_factory.mktemp("records")
    cfg = load_config(None).model_copy(update={
        "game": load_config(None).game.model_copy(update={"dead": (4,), "button": 3, "stake": 5})})
    store = HandStore(folder / "kiosk.sqlite")
    hub = Hub()
    rec = Recorder(store, hub, cfg, folder / "media", max_pending_frames=200)
    empty, deal = render_table(EMPTY, "kennard-2c", 3), render_table(DEAL, "kennard-2c", 3)
    runner, verdicts, _ = play(cfg, [(empty, 5), (deal, 25), (empty, 20)], hub=hub)
    assert rec.flush()
    [hand_id] = store.hand_ids()
    live = runner.verdicts[-1]
    assert live.result["seats"][1]["status"] == "fouled"
    # The floor corrects seat 2's front queen of hearts: recorded as the runner would publish it.
    sd = {**live.showdown, "seats": [dict(s) for s in live.showdown["seats"]]}
    sd["seats"][1]["front"] = ["4d", "Qd", "3c"]
    from kiosk.rules.api import score_json

    action = DealerAction("correct_card", seat=2, row="front", index=0, before="Qh", after="4d", by="floor-4",
                          at=time.time(), hand_id=hand_id)
    hub.publish("action", action=action, ok=True, message="seat 2 front 1 corrected to 4d by floor-4")
    from dataclasses import replace

    hub.publish("verdict", verdict=replace(live, showdown=sd, result=score_json(sd), decided_at=time.time()))
    assert rec.flush()
    rec.close()
    store.append_verdict(  # an older, clean hand to search past
        replace(live, hand_id="table-1-older", showdown=sd, result=score_json(sd), decided_at=time.time() - 86400),
        created_at=time.time() - 86400)
    yield store, hand_id, live
    store.close()


@pytest.fixture(scope="module")
def server(recorded):
    store, _, _ = recorded
    app = create_app(Hub(), None, load_config(None), store)
    port = free_port()
    srv, _ = start_server(app, "127.0.0.1", port)
    yield f"http://127.0.0.1:{port}"
    srv.shutdown()


def test_floor_finds_the_hand_reads_the_rulings_flags_it_and_files_the_report(browser, server, recorded, shots):
    store, hand_id, live = recorded
    page = browser.new_page(viewport={"width": 1366, "height": 900}, bypass_csp=True)  # see test_web_browser
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(f"{server}/review/")
    assert page.locator("tr.hand").count() == 2
    # Search: hands where seat 2 fouled. The live hand was corrected (no foul now), the older one neither:
    # the list is empty; then the first revision's foul is what the dispute is about, so search by id.
    page.fill("input[name=seat]", "2")
    page.select_option("select[name=foul]", "yes")
    page.click("button[type=submit]")
    assert page.locator("#no-hands").is_visible()
    page.goto(f"{server}/review/")
    page.fill("input[name=q]", hand_id[-4:])
    page.click("button[type=submit]")
    assert page.locator("tr.hand").count() == 1
    page.screenshot(path=str(shots / "review-list.png"), full_page=True)
    page.click(f"a:text('{hand_id}')")
    page.wait_for_selector("#hand")
    assert page.locator("#hand").get_attribute("data-revision") == "1"

    # Revision 0: the foul as first read, with its rules.
    page.click("a:text-is('0')")
    page.wait_for_selector("#hand[data-revision='0']")
    frame = page.locator("#key-frame img")
    frame.wait_for()
    page.wait_for_function("document.querySelector('#key-frame img').naturalWidth > 0")
    assert page.evaluate("document.querySelector('#key-frame img').naturalWidth") == 1920
    boxes = page.locator("#key-frame rect.card-box")
    assert boxes.count() == len(live.evidence) == 39
    # Each box sits over its card: the SVG scales with the picture.
    img_box = frame.bounding_box()
    first = boxes.first.bounding_box()
    e = live.evidence[0]
    scale = img_box["width"] / 1920
    assert abs(first["x"] - (img_box["x"] + e.box[0] * scale)) < 5  # (the stroke adds a few px)
    assert abs(first["width"] - (e.box[2] - e.box[0]) * scale) < 5
    rulings = page.locator("#rulings li")
    d8 = page.locator("#rulings li[data-rule='D-8']").first.inner_text()
    assert "seat 2 fouled" in d8 and "pays 6 plus royalties" in d8
    assert "D-8: a fouled seat pays the scoop (6) plus royalties" in d8
    assert rulings.count() >= 5
    assert page.locator("#payments tr.payment").count() == len(live.result["transfers"])
    correction = page.locator("#actions tr.correct_card").inner_text()
    assert "Qh" in correction and "4d" in correction and "floor-4" in correction
    page.screenshot(path=str(shots / "review-hand.png"), full_page=True)

    # Put it under review (a real form post with the page's CSRF token).
    page.fill("#flag-form input[name=by]", "floor-4")
    page.fill("#flag-form input[name=note]", "seat 2 says the queen was a four")
    page.click("#flag")
    page.wait_for_selector("#under-review")
    assert store.flagged() == {hand_id}

    # The one-page report, as the browser downloads it.
    with page.expect_download() as dl:
        page.click("#report-pdf")
    pdf = Path(dl.value.path()).read_bytes()
    assert pdf.startswith(b"%PDF")
    response = page.request.get(server + page.locator("#report-png").get_attribute("href"), max_redirects=0)
    assert response.status == 200 and response.headers["content-type"] == "image/png"
    png = cv2.imdecode(np.frombuffer(response.body(), np.uint8), cv2.IMREAD_COLOR)
    assert png.shape == (1754, 1240, 3)
    cv2.imwrite(str(shots / "review-report.png"), png)
    assert errors == []
    page.close()


def test_review_page_fits_a_floor_tablet(browser, server, recorded):
    _, hand_id, _ = recorded
    page = browser.new_page(viewport={"width": 1024, "height": 768}, bypass_csp=True)
    page.goto(f"{server}/review/hands/{hand_id}")
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= 1024, f"the page scrolls sideways ({width}px)"
    assert page.locator("#key-frame img").is_visible()
    page.close()
    import urllib.error
    import urllib.request

    with pytest.raises(urllib.error.HTTPError) as err:
        urllib.request.urlopen(f"{server}/review/hands/nope")  # noqa: S310 - the local test server
    assert err.value.code == 404
