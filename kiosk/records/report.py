"""The dispute report of a recorded hand: A4 pages drawn with OpenCV, as PNG or as PDF.

The pages hold what a floor supervisor files: the hand, the key frame with each card's
box, every card of every seat as read (a natural's 13-card pile too), each seat's verdict
with the rule behind it, the pairs, the payments in order, the dealer's corrections and the
record's hash. A report that does not fit one page goes on over more pages (never cut).
The PDF has a page per page, each the drawn image with its words as an invisible text layer
at the same place (searchable and copyable); the PNG is the pages one under the other.

`rule_lines(result)` is shared with the review page: every ruling as (rule, title, text).

>>> lines = rule_lines({"seats": [{"seat": 2, "status": "fouled", "foul_rule": "D-2",
...     "explanation": "D-8: seat 2 fouled (...), pays 6 plus royalties to each seat"}], "pairs": []})
>>> [(r.rule, r.title) for r in lines]
[('D-8', 'a fouled seat pays the scoop (6) plus royalties to every seat that set a hand'), ('D-2', 'back at least equal to middle, middle strictly above front')]
>>> ascii_text("§8: 2♠ ≥ 3")
'S8: 2s >= 3'
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass

import cv2
import numpy as np

from kiosk.cards import ROWS
from kiosk.paigow.rulings import paigow_rulings, payment_lines
from kiosk.vision.images import decode_jpeg

# What each rule says, in words a floor supervisor reads aloud (RULES.md decisions).
RULE_TITLES = {
    "§3": "each seat sets 3 / 5 / 5 cards; a wrong count is a foul",
    "§5": "rows compared pairwise: 1 point a row, 6 for a scoop",
    "§7": "table integrity: a duplicate card or a wrong count is never scored",
    "§8": "settlement with all-in caps",
    "D-1": "hands of different sizes compare by category, then ranks",
    "D-2": "back at least equal to middle, middle strictly above front",
    "D-3": "3-card straights run A-2-3 up to Q-K-A, no wrap-around",
    "D-4": "a false declaration of a natural fouls the hand",
    "D-5": "equal rows score nothing",
    "D-6": "royalties go to the row winner only",
    "D-7": "scooping every opponent (3 or more) collects the super bonus (9)",
    "D-8": "a fouled seat pays the scoop (6) plus royalties to every seat that set a hand",
    "D-9": "a verified declared natural collects its points from every seat",
    "D-10": "payments run clockwise from the button, with all-in caps",
}
_RULE_RE = re.compile(r"^(D-\d+|§\d+)\s*:?\s*")


@dataclass(frozen=True, slots=True)
class RuleLine:
    rule: str  # "D-8", "§5", "" when none is named
    title: str
    text: str
    seats: tuple[int, ...] = ()


def _rule_of(text: str, default: str = "") -> str:
    m = _RULE_RE.match(text or "")
    return m.group(1) if m else default


def rule_lines(result: dict) -> list[RuleLine]:
    """Every ruling of a scored showdown with the rule behind it, seats first, then pairs, then payment."""
    if not isinstance(result, dict) or "error" in result:
        return []
    if result.get("game") == "paigow":
        return [RuleLine(*line) for line in paigow_rulings(result)]
    out: list[RuleLine] = []
    for s in result.get("seats") or []:
        text = s.get("explanation") or ""
        status = s.get("status")
        rule = _rule_of(text)
        if not rule:
            rule = {"fouled": "D-8", "natural": "D-9"}.get(status, "§5" if status == "set" else "")
        out.append(RuleLine(rule, RULE_TITLES.get(rule, ""), _RULE_RE.sub("", text, count=1), (s.get("seat"),)))
        if status == "fouled" and s.get("foul_rule") and s.get("foul_rule") != rule:
            fr = s["foul_rule"]
            out.append(RuleLine(fr, RULE_TITLES.get(fr, ""), f"seat {s.get('seat')} fouled: {s.get('foul_reason') or ''}",
                                (s.get("seat"),)))
    for p in result.get("pairs") or []:
        rule = p.get("rule") or _rule_of(p.get("explanation", ""))
        out.append(RuleLine(rule, RULE_TITLES.get(rule, ""), p.get("explanation") or "", tuple(p.get("seats") or ())))
    if result.get("transfers") or result.get("shortfalls"):
        order = ", ".join(map(str, result.get("order") or []))
        out.append(RuleLine("D-10", RULE_TITLES["D-10"],
                            f"button seat {result.get('button')}; payment order {order}", ()))
    for note in result.get("notes") or []:
        rule = _rule_of(note)
        out.append(RuleLine(rule, RULE_TITLES.get(rule, ""), _RULE_RE.sub("", note, count=1) if rule else note, ()))
    return out


_ASCII = {"§": "S", "♠": "s", "♥": "h", "♦": "d", "♣": "c", "≥": ">=", "≤": "<=", "→": "->", "–": "-", "—": "-",
          "×": "x", "…": "...", "·": "-", "’": "'", "“": '"', "”": '"'}


def ascii_text(text) -> str:
    """OpenCV's Hershey fonts draw ASCII only."""
    text = "".join(_ASCII.get(ch, ch) for ch in str(text))
    return text.encode("ascii", "replace").decode("ascii")


# -- drawing ----------------------------------------------------------------------------------

PAGE = (1240, 1754)  # A4 at 150 dpi
MARGIN = 50
FONT = cv2.FONT_HERSHEY_SIMPLEX
INK = (20, 20, 20)
MUTED = (90, 90, 90)
FOUL = (40, 40, 200)
CHECK = (0, 140, 230)
OK = (40, 140, 40)
BOX_OK = (60, 255, 60)
BOX_CHECK = (0, 170, 255)


@dataclass(frozen=True, slots=True)
class PlacedText:
    """One line as drawn on a page image: the PDF puts the same words at the same place as a text layer."""

    text: str
    x: int  # left, pixels
    y: int  # baseline, pixels
    width: int  # pixels
    height: int  # pixels above the baseline


@dataclass(frozen=True, slots=True)
class ReportPage:
    image: np.ndarray  # BGR, PAGE sized
    texts: tuple[PlacedText, ...]


class _Doc:
    """Pages written top to bottom: a line that does not fit starts the next page (nothing is dropped)."""

    BOTTOM = PAGE[1] - MARGIN - 40  # the footer lies below

    def __init__(self, title: str):
        self.title = title
        self.pages: list[tuple[np.ndarray, list[PlacedText]]] = []
        self._new_page()

    def _new_page(self) -> None:
        self.img = np.full((PAGE[1], PAGE[0], 3), 255, np.uint8)
        self.texts: list[PlacedText] = []
        self.pages.append((self.img, self.texts))
        self.y = MARGIN
        if len(self.pages) > 1:
            self.text(f"{self.title} (continued)", 0.55, MUTED, gap=10)

    def put(self, line: str, x: int, y: int, scale: float, color, thickness: int = 1) -> None:
        line = ascii_text(line)
        (w, h), _ = cv2.getTextSize(line or " ", FONT, scale, thickness)
        cv2.putText(self.img, line, (x, y), FONT, scale, color, thickness, cv2.LINE_AA)
        if line.strip():
            self.texts.append(PlacedText(line, x, y, w, h))

    def text(self, text, scale=0.55, color=INK, bold=False, indent=0, gap=8) -> None:
        width = PAGE[0] - 2 * MARGIN - indent
        thickness = 2 if bold else 1
        for line in _wrap(ascii_text(text), scale, thickness, width):
            (_, h), base = cv2.getTextSize(line or " ", FONT, scale, thickness)
            if self.y + h + base > self.BOTTOM:
                self._new_page()
            self.y += h
            self.put(line, MARGIN + indent, self.y, scale, color, thickness)
            self.y += base + gap // 2
        self.y += gap // 2

    def heading(self, text) -> None:
        if self.y + 90 > self.BOTTOM:  # a heading never ends a page
            self._new_page()
        self.y += 8
        self.text(text, 0.75, INK, bold=True, gap=6)
        cv2.line(self.img, (MARGIN, self.y - 4), (PAGE[0] - MARGIN, self.y - 4), (180, 180, 180), 1)
        self.y += 6

    def picture(self, image: np.ndarray) -> None:
        h, w = image.shape[:2]
        if self.y + h + 12 > self.BOTTOM:
            self._new_page()
        self.y += 6
        self.img[self.y: self.y + h, MARGIN: MARGIN + w] = image
        cv2.rectangle(self.img, (MARGIN, self.y), (MARGIN + w - 1, self.y + h - 1), (150, 150, 150), 1)
        self.y += h + 6

    def finish(self, footer: str) -> list[ReportPage]:
        out = []
        for i, (img, texts) in enumerate(self.pages, start=1):
            self.img, self.texts = img, texts
            self.put(f"page {i} of {len(self.pages)}   {footer}", MARGIN, PAGE[1] - MARGIN, 0.42, MUTED)
            out.append(ReportPage(img, tuple(texts)))
        return out


def _wrap(text: str, scale: float, thickness: int, width: int) -> list[str]:
    words, lines, line = text.split(" "), [], ""
    for word in words:
        candidate = f"{line} {word}" if line else word
        if cv2.getTextSize(candidate, FONT, scale, thickness)[0][0] <= width or not line:
            line = candidate
        else:
            lines.append(line)
            line = word
    lines.append(line)
    return lines


def draw_overlays(image: np.ndarray, evidence, needs_check=()) -> np.ndarray:
    """The key frame with each card's box and reading (a copy; the input is not modified)."""
    out = image.copy()
    doubtful = {(n.seat, n.card) for n in needs_check}
    scale = max(0.5, out.shape[1] / 1200)
    thick = max(2, round(2 * scale))
    for e in evidence:
        x1, y1, x2, y2 = (int(round(v)) for v in e.box)
        color = BOX_CHECK if (e.seat, e.card) in doubtful or e.confidence < 0.8 else BOX_OK
        cv2.rectangle(out, (x1, y1), (x2, y2), (0, 0, 0), thick + 2)
        cv2.rectangle(out, (x1, y1), (x2, y2), color, thick)
        org = (x1, max(12, y1 - 4))
        cv2.putText(out, ascii_text(e.card), org, FONT, 0.6 * scale, (0, 0, 0), thick + 2, cv2.LINE_AA)
        cv2.putText(out, ascii_text(e.card), org, FONT, 0.6 * scale, color, thick, cv2.LINE_AA)
    return out


def _fmt_time(t) -> str:
    return time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(t)) if t else "-"


def render_report(hand, revision: int | None = None, key_frame_jpeg: bytes | None = None) -> list[ReportPage]:
    """The report of one hand (a `HandRecord`): A4 pages, as many as it takes, each with its text placed."""
    rev = hand.revisions[-1] if revision is None else next(r for r in hand.revisions if r.revision == revision)
    v = rev.verdict
    result = v.result if isinstance(v.result, dict) else {}
    doc = _Doc(f"Hand {hand.hand_id} - dispute report")
    doc.text(doc.title, 1.0, bold=True, gap=10)
    doc.text(
        f"Table {v.table}   started {_fmt_time(rev.started_at)}   decided {_fmt_time(hand.first.verdict.decided_at)}   "
        f"verdict revision {rev.revision} of {len(hand.revisions) - 1}   status {rev.status.replace('_', ' ')}",
        0.5, MUTED)
    doc.text(f"Config {v.config_digest or '-'}   model {v.model_version or '-'}   profile {result.get('profile', '-')}   "
             f"stake {result.get('stake', '-')}   button seat {result.get('button', '-')}", 0.5, MUTED)
    if hand.flag:
        doc.text(f"UNDER REVIEW since {_fmt_time(hand.flag.flagged_at)} by {hand.flag.by}: {hand.flag.note}", 0.55, FOUL,
                 bold=True)
    if key_frame_jpeg:
        frame = draw_overlays(decode_jpeg(key_frame_jpeg), v.evidence, v.needs_check)
        max_w, max_h = PAGE[0] - 2 * MARGIN, 520
        k = min(max_w / frame.shape[1], max_h / frame.shape[0])
        doc.picture(cv2.resize(frame, (max(1, int(frame.shape[1] * k)), max(1, int(frame.shape[0] * k))),
                               interpolation=cv2.INTER_AREA))
        doc.text(f"Key frame {v.frame_index}: green = read with confidence, orange = below 0.80 or needs a check",
                 0.45, MUTED)
    if "error" in result:
        doc.heading("Not scored")
        doc.text(result["error"], color=FOUL)
    _cards_section(doc, v, result)
    _rules_section(doc, result)
    _payments_section(doc, result)
    _actions_section(doc, hand.actions)
    return doc.finish(f"Record {rev.seq} sha256 {rev.hash}   check with: kiosk audit verify")


def seat_card_lines(shown: dict, scored: dict | None) -> list[str]:
    """Every card a seat laid, as read (`shown`: the seat in the showdown), with its hands when scored.

    >>> seat_card_lines({"seat": 3, "declared_natural": True, "cards": ["2c", "2d", "3h"]},
    ...                 {"status": "natural", "natural_text": "six pairs: ..."})
    ['pile (3 cards): 2c 2d 3h', 'natural: six pairs: ...']
    >>> seat_card_lines({"seat": 4, "dead": True}, None)
    ['dead seat: no cards']
    """
    rows = (scored or {}).get("rows") or {}
    lines = []
    for name in ROWS:
        if name in shown:
            cards = " ".join(map(str, shown.get(name) or [])) or "no cards"
            hand = rows.get(name, {}).get("hand") if isinstance(rows.get(name), dict) else None
            lines.append(f"{name}: {cards}" + (f" ({hand})" if hand else ""))
    for name in ("high", "low"):  # a Pai Gow spot's two hands
        if name in shown:
            lines.append(f"{name}: " + (" ".join(map(str, shown.get(name) or [])) or "no cards"))
    if shown.get("cards"):
        lines.append(f"pile ({len(shown['cards'])} cards): " + " ".join(map(str, shown["cards"])))
    if (scored or {}).get("natural_text"):
        lines.append(f"natural: {scored['natural_text']}")
    if not lines:
        lines.append("dead seat: no cards" if shown.get("dead") else "no cards")
    return lines


def _cards_section(doc: _Doc, v, result: dict) -> None:
    doc.heading("Cards as read")
    scored = {s.get("seat"): s for s in result.get("seats") or []}
    banker = v.showdown.get("banker")  # a Pai Gow table's
    if banker:
        doc.text(f"Banker (seat {banker.get('seat', 0)})", 0.55, INK, bold=True, gap=2)
        doc.text("   |   ".join(seat_card_lines(banker, None)), 0.5, INK, indent=30, gap=6)
    for shown in v.showdown.get("seats", []):
        seat = shown.get("seat")
        s = scored.get(seat) or {}
        status = s.get("status") or ("dead" if shown.get("dead") else "")
        color = {"fouled": FOUL, "natural": (0, 120, 160), "dead": MUTED}.get(status, INK)
        points = f", {s['points']:+d} points" if isinstance(s.get("points"), int) else ""
        doc.text(f"Seat {seat} {status}{points}", 0.55, color, bold=True, gap=2)
        doc.text("   |   ".join(seat_card_lines(shown, s)), 0.5, color, indent=30, gap=6)
    for n in v.needs_check:
        doc.text(f"NEEDS DEALER CHECK seat {n.seat}: {n.reason}", 0.5, CHECK, bold=True)
    for problem in v.integrity:
        doc.text(f"TABLE INTEGRITY: {problem}", 0.5, FOUL, bold=True)


def _rules_section(doc: _Doc, result: dict) -> None:
    doc.heading("Verdicts and the rules behind them")
    for line in rule_lines(result):
        label = f"{line.rule}: " if line.rule else ""
        doc.text(f"{label}{line.text}", 0.5)
        if line.title:
            doc.text(f"({line.rule} {line.title})", 0.42, MUTED, indent=30, gap=4)


def _payments_section(doc: _Doc, result: dict) -> None:
    doc.heading("Payments (in order)")
    transfers = result.get("transfers") or []
    if result.get("game") == "paigow" and "error" not in result:
        for line in payment_lines(result):
            doc.text(line["text"], 0.55)
    elif not transfers:
        doc.text("no payments", 0.5, MUTED)
    for t in transfers:
        doc.text(f"seat {t['from']} pays seat {t['to']}: {t['amount']}", 0.55)
    for t in result.get("shortfalls") or []:
        doc.text(f"shortfall: seat {t['from']} owed seat {t['to']} {t['amount']} more (all-in cap)", 0.5, CHECK)


def _actions_section(doc: _Doc, actions) -> None:
    doc.heading("Dealer actions and corrections")
    if not actions:
        doc.text("none", 0.5, MUTED)
    for a in actions:
        act = a.action
        what = act.kind.replace("_", " ")
        if act.kind == "correct_card":
            what = f"corrected seat {act.seat} {act.row} {(act.index or 0) + 1}: {act.before} -> {act.after}"
        elif act.seat is not None:
            what += f" seat {act.seat}"
        by = f" by {act.by}" if act.by else ""
        state = "" if a.ok else f" (refused: {a.message})"
        doc.text(f"{_fmt_time(act.at)}  {what}{by}{state}", 0.5)


def report_png(pages: list[ReportPage]) -> bytes:
    """The pages one under the other (a grey gutter between them) as one PNG."""
    gutter = np.full((24, PAGE[0], 3), 160, np.uint8)
    parts = [p for page in pages for p in (gutter, page.image)][1:]
    ok, buf = cv2.imencode(".png", np.vstack(parts))
    if not ok:
        raise ValueError("could not encode the report as PNG")
    return buf.tobytes()


PDF_SIZE = (595, 842)  # A4 in points
_COURIER_ADVANCE = 0.6  # every Courier glyph is 0.6 em wide: the text layer is stretched to the drawn width


def _pdf_string(text: str) -> bytes:
    return b"(" + text.encode("ascii", "replace").replace(b"\\", b"\\\\").replace(b"(", b"\\(").replace(
        b")", b"\\)") + b")"


def _text_layer(texts) -> bytes:
    """Invisible text (render mode 3) over the drawn words: searchable, copyable, in reading order."""
    kx, ky = PDF_SIZE[0] / PAGE[0], PDF_SIZE[1] / PAGE[1]
    out = [b"BT 3 Tr"]
    for t in texts:
        size = max(1.0, t.height * ky / 0.62)
        stretch = 100 * t.width * kx / (_COURIER_ADVANCE * size * max(1, len(t.text)))
        out.append(b"/F1 %.2f Tf %.1f Tz 1 0 0 1 %.2f %.2f Tm %s Tj" % (
            size, stretch, t.x * kx, PDF_SIZE[1] - t.y * ky, _pdf_string(t.text)))
    out.append(b"ET")
    return b"\n".join(out)


def report_pdf(pages: list[ReportPage]) -> bytes:
    """An A4 PDF, one page per report page: the page image (JPEG) with its words as a text layer."""
    objects = [b"<< /Type /Catalog /Pages 2 0 R >>", b"",
               b"<< /Type /Font /Subtype /Type1 /BaseFont /Courier /Encoding /WinAnsiEncoding >>"]
    kids = []
    for page in pages:
        ok, buf = cv2.imencode(".jpg", page.image, [cv2.IMWRITE_JPEG_QUALITY, 92])
        if not ok:
            raise ValueError("could not encode the report page")
        jpeg, (h, w) = buf.tobytes(), page.image.shape[:2]
        n = len(objects) + 1  # this page's object; its image and content follow
        content = b"q %d 0 0 %d 0 0 cm /Im0 Do Q\n" % PDF_SIZE + _text_layer(page.texts)
        objects += [
            b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 %d %d] /Resources << /XObject << /Im0 %d 0 R >> "
            b"/Font << /F1 3 0 R >> >> /Contents %d 0 R >>" % (*PDF_SIZE, n + 1, n + 2),
            b"<< /Type /XObject /Subtype /Image /Width %d /Height %d /ColorSpace /DeviceRGB /BitsPerComponent 8 "
            b"/Filter /DCTDecode /Length %d >>\nstream\n" % (w, h, len(jpeg)) + jpeg + b"\nendstream",
            b"<< /Length %d >>\nstream\n" % len(content) + content + b"\nendstream",
        ]
        kids.append(n)
    objects[1] = b"<< /Type /Pages /Kids [%s] /Count %d >>" % (b" ".join(b"%d 0 R" % k for k in kids), len(kids))
    out = bytearray(b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
    offsets = []
    for i, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % i + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    for off in offsets:
        out += b"%010d 00000 n \n" % off
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objects) + 1, xref)
    return bytes(out)
