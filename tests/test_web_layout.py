"""The dealer display never hides a card: every layout state at 1280x720, 1920x1080 and 3840x2160.

One real headless Chromium and one page: the kiosk publishes each state (a natural's 13-card pile in
every position, the longest foul reason, set hands, a dead seat, a doubtful card) and the page is
measured at each screen size. No two card boxes overlap, every card lies inside its seat panel, no
card covers a seat's title or status, the foul reason is shown whole, and nothing scrolls. Then the
camera goes away (a full-width alarm, not "LIVE") and the seat controls answer their keys.
"""

from __future__ import annotations

import pytest

from display_states import scenarios
from kiosk.table.config import KioskConfig
from kiosk.table.hub import Hub
from kiosk.web.app import create_app
from kiosk.web.service import start_server
from table_support import free_port

pytestmark = [pytest.mark.browser, pytest.mark.slow]

SIZES = ((1280, 720), (1920, 1080), (3840, 2160))

# Everything wrong with the layout, measured in the page: [] when every card is in view.
PROBLEMS = """() => {
  const out = [];
  const r = e => e.getBoundingClientRect();
  const inside = (a, b) => a.left >= b.left - .5 && a.right <= b.right + .5 && a.top >= b.top - .5 && a.bottom <= b.bottom + .5;
  const cross = (a, b) => a.left < b.right - .5 && b.left < a.right - .5 && a.top < b.bottom - .5 && b.top < a.bottom - .5;
  const name = c => `seat ${c.closest('.seat').dataset.seat} ${c.dataset.row || 'slot'} ${c.dataset.card || ''}`;
  const cards = [...document.querySelectorAll('.seat .card')];
  if (document.documentElement.scrollWidth > innerWidth || document.documentElement.scrollHeight > innerHeight)
    out.push('the page scrolls');
  for (const [i, c] of cards.entries()) {
    const box = r(c), seat = c.closest('.seat');
    if (!inside(box, r(seat))) out.push(`${name(c)} outside its seat`);
    if (!inside(box, {left: 0, top: 0, right: innerWidth, bottom: innerHeight})) out.push(`${name(c)} off screen`);
    for (const other of cards.slice(i + 1)) if (cross(box, r(other))) out.push(`${name(c)} overlaps ${name(other)}`);
    for (const part of seat.querySelectorAll('.seat-head, .seat-status'))
      if (cross(box, r(part))) out.push(`${name(c)} covers the seat's ${part.className}`);
  }
  for (const d of document.querySelectorAll('.seat-detail, .seat-status .badge'))
    if (d.scrollWidth > d.clientWidth + 1 || !inside(r(d), r(d.closest('.seat')))) out.push(`cut off: ${d.textContent}`);
  return out;
}"""


@pytest.fixture(scope="module")
def live_page(browser):
    hub = Hub()
    app = create_app(hub, None, KioskConfig.model_validate({}), heartbeat=1.0)
    server, _ = start_server(app, "127.0.0.1", free_port())
    errors: list[str] = []
    page = browser.new_page(viewport={"width": 1280, "height": 720}, bypass_csp=True)  # see test_web_browser
    page.on("pageerror", lambda err: errors.append(str(err)))
    page.goto(f"http://127.0.0.1:{server.server_port}/")
    page.wait_for_selector("#conn[data-state=live]", timeout=15_000)
    yield hub, page
    page.close()
    server.shutdown()
    app.config["KIOSK_LIVE"].close()
    assert errors == []


def show(hub, page, verdict):
    hub.publish("phase", phase="verdict", hand_id=verdict.hand_id)
    hub.publish("verdict", verdict=verdict)
    page.wait_for_function(f"document.getElementById('hand-id').textContent === {verdict.hand_id!r}")


def layout_problems(page) -> list[str]:
    try:  # the page refits after a resize: give it a moment, then say what is still wrong
        page.wait_for_function(f"({PROBLEMS})().length === 0", timeout=3_000)
    except Exception:
        pass
    return page.evaluate(PROBLEMS)


def test_every_state_fits_every_screen_with_no_card_covered(live_page, shots):
    hub, page = live_page
    for name, verdict in scenarios().items():
        show(hub, page, verdict)
        for width, height in SIZES:
            page.set_viewport_size({"width": width, "height": height})
            problems = layout_problems(page)
            page.screenshot(path=str(shots / f"layout_{name}_{width}x{height}.png"))
            assert problems == [], f"{name} at {width}x{height}: {problems[:6]}"
            shown = page.eval_on_selector_all(".seat .card[data-card]", "els => els.length")
            dealt = sum(len(s.get("cards", [])) + sum(len(s.get(r, [])) for r in ("front", "middle", "back"))
                        for s in verdict.showdown["seats"])
            assert shown == dealt, f"{name}: {shown} of {dealt} cards on the page"
            smallest = page.evaluate("Math.min(...[...document.querySelectorAll('.seat .card')]"
                                     ".map(c => c.getBoundingClientRect().height))")
            assert smallest >= height * 0.05, f"{name} at {width}x{height}: cards only {smallest:.0f} px tall"


def test_a_foul_reason_is_shown_whole(live_page):
    """The sentence the dealer reads aloud (D-2) is on the page in full, at the smallest screen."""
    hub, page = live_page
    show(hub, page, scenarios()["natural_bottom"])
    page.set_viewport_size({"width": 1280, "height": 720})
    assert page.inner_text("#seat-2 .seat-detail") == (
        "back (full house, 4s full of aces) is below middle (full house, 6s full of queens) (D-2)")
    assert layout_problems(page) == []


def test_a_lost_camera_is_a_full_width_alarm_and_not_live(live_page, shots):
    hub, page = live_page
    show(hub, page, scenarios()["sets"])
    page.set_viewport_size({"width": 1920, "height": 1080})
    hub.publish("source", status="lost", detail="camera 0 stopped sending frames")
    page.wait_for_selector("#headline[data-kind=camera]", timeout=10_000)
    assert page.inner_text("#headline-text").startswith("CAMERA LOST: the kiosk cannot see the table")
    assert page.inner_text("#conn-text") == "NO CAMERA"
    box = page.evaluate("(() => { const r = document.getElementById('headline').getBoundingClientRect();"
                        " return [r.left, r.right]; })()")
    assert box == [0, 1920]
    page.screenshot(path=str(shots / "layout_camera_lost_1920x1080.png"))
    hub.publish("source", status="connected", detail="camera 0 1920x1080")
    page.wait_for_selector("#headline[data-kind=ok]", timeout=10_000)
    assert page.inner_text("#conn-text") == "LIVE"
    assert page.inner_text("#headline-text") == "VERDICT: pay in the order shown"


def test_every_seat_shows_its_controls_and_answers_its_key(live_page):
    hub, page = live_page
    show(hub, page, scenarios()["sets"])
    for seat in (1, 2, 3, 4):
        assert page.is_visible(f"#seat-{seat} .seat-tools"), f"seat {seat} has no visible controls"
    assert "seat actions" in page.inner_text("#keys")
    page.keyboard.press("3")
    page.wait_for_selector("#dlg-seat[open]")
    assert page.inner_text("#dlg-seat-title") == "Seat 3"
    assert "(N)" in page.inner_text("#act-declare") and "(D)" in page.inner_text("#act-dead")
    page.keyboard.press("Escape")
    page.wait_for_function("!document.getElementById('dlg-seat').open")
    page.click("#seat-2 .seat-tools")
    page.wait_for_selector("#dlg-seat[open]")
    assert page.inner_text("#dlg-seat-title") == "Seat 2"
    page.keyboard.press("Escape")
