"""The one-page dispute report of a recorded hand: PNG (OpenCV drawing) or PDF (that page, embedded).

The page holds what a floor supervisor files: the hand, the key frame with each card's
box, the cards as read, each seat's verdict with the rule behind it, the pairs, the
payments in order, the dealer's corrections and the record's hash.

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

from kiosk.records.media import decode_jpeg

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
        from kiosk.paigow.rulings import paigow_rulings

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


class _Page:
    def __init__(self):
        self.img = np.full((PAGE[1], PAGE[0], 3), 255, np.uint8)
        self.y = MARGIN
        self.full = False

    def text(self, text, scale=0.55, color=INK, bold=False, indent=0, gap=8) -> None:
        width = PAGE[0] - 2 * MARGIN - indent
        thickness = 2 if bold else 1
        for line in _wrap(ascii_text(text), scale, thickness, width):
            (_, h), base = cv2.getTextSize(line or " ", FONT, scale, thickness)
            if self.y + h + base > PAGE[1] - MARGIN - 30:
                self.full = True
                return
            self.y += h
            cv2.putText(self.img, line, (MARGIN + indent, self.y), FONT, scale, color, thickness, cv2.LINE_AA)
            self.y += base + gap // 2
        self.y += gap // 2

    def heading(self, text) -> None:
        self.y += 8
        self.text(text, 0.75, INK, bold=True, gap=6)
        cv2.line(self.img, (MARGIN, self.y - 4), (PAGE[0] - MARGIN, self.y - 4), (180, 180, 180), 1)
        self.y += 6


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


def render_report(hand, revision: int | None = None, key_frame_jpeg: bytes | None = None) -> np.ndarray:
    """The report page of one hand (a `HandRecord`) as a BGR image."""
    rev = hand.revisions[-1] if revision is None else next(r for r in hand.revisions if r.revision == revision)
    v = rev.verdict
    result = v.result if isinstance(v.result, dict) else {}
    page = _Page()
    page.text(f"Hand {hand.hand_id} - dispute report", 1.0, bold=True, gap=10)
    page.text(
        f"Table {v.table}   started {_fmt_time(rev.started_at)}   decided {_fmt_time(hand.first.verdict.decided_at)}   "
        f"verdict revision {rev.revision} of {len(hand.revisions) - 1}   status {rev.status.replace('_', ' ')}",
        0.5, MUTED)
    page.text(f"Config {v.config_digest or '-'}   model {v.model_version or '-'}   profile {result.get('profile', '-')}   "
              f"stake {result.get('stake', '-')}   button seat {result.get('button', '-')}", 0.5, MUTED)
    if hand.flag:
        page.text(f"UNDER REVIEW since {_fmt_time(hand.flag.flagged_at)} by {hand.flag.by}: {hand.flag.note}", 0.55, FOUL,
                  bold=True)

    if key_frame_jpeg:
        frame = draw_overlays(decode_jpeg(key_frame_jpeg), v.evidence, v.needs_check)
        max_w, max_h = PAGE[0] - 2 * MARGIN, 520
        s = min(max_w / frame.shape[1], max_h / frame.shape[0])
        frame = cv2.resize(frame, (max(1, int(frame.shape[1] * s)), max(1, int(frame.shape[0] * s))),
                           interpolation=cv2.INTER_AREA)
        page.y += 6
        h, w = frame.shape[:2]
        page.img[page.y: page.y + h, MARGIN: MARGIN + w] = frame
        cv2.rectangle(page.img, (MARGIN, page.y), (MARGIN + w - 1, page.y + h - 1), (150, 150, 150), 1)
        page.y += h + 6
        page.text(f"Key frame {v.frame_index}: green = read with confidence, orange = below 0.80 or needs a check",
                  0.45, MUTED)

    if "error" in result:
        page.heading("Not scored")
        page.text(result["error"], color=FOUL)
    page.heading("Cards as read")
    for s in result.get("seats") or v.showdown.get("seats", []):
        seat = s.get("seat")
        status = s.get("status", "")
        color = {"fouled": FOUL, "natural": (0, 120, 160), "dead": MUTED}.get(status, INK)
        rows = s.get("rows") or {}
        if rows:
            parts = [f"{name}: {' '.join(rows[name]['cards'])} ({rows[name]['hand']})"
                     for name in ("front", "middle", "back") if name in rows]
        elif isinstance(s.get("cards"), dict):  # Pai Gow: the high and low hands as laid out
            parts = [f"{name}: {' '.join(s['cards'][name])}" for name in ("high", "low")]
        else:
            parts = [" ".join(s.get("cards") or []) or "no cards"]
        page.text(f"Seat {seat} {status}: " + "  |  ".join(parts), 0.5, color)
    for n in v.needs_check:
        page.text(f"NEEDS DEALER CHECK seat {n.seat}: {n.reason}", 0.5, CHECK, bold=True)
    for problem in v.integrity:
        page.text(f"TABLE INTEGRITY: {problem}", 0.5, FOUL, bold=True)

    page.heading("Verdicts and the rules behind them")
    for line in rule_lines(result):
        label = f"{line.rule}: " if line.rule else ""
        page.text(f"{label}{line.text}", 0.5, indent=0)
        if line.title:
            page.text(f"({line.rule} {line.title})", 0.42, MUTED, indent=30, gap=4)

    page.heading("Payments (in order)")
    transfers = result.get("transfers") or []
    if result.get("game") == "paigow" and "error" not in result:
        from kiosk.paigow.rulings import payment_lines

        for p in payment_lines(result):
            page.text(p["text"], 0.55)
    elif not transfers:
        page.text("no payments", 0.5, MUTED)
    for t in transfers:
        page.text(f"seat {t['from']} pays seat {t['to']}: {t['amount']}", 0.55)
    for t in result.get("shortfalls") or []:
        page.text(f"shortfall: seat {t['from']} owed seat {t['to']} {t['amount']} more (all-in cap)", 0.5, CHECK)

    page.heading("Dealer actions and corrections")
    if not hand.actions:
        page.text("none", 0.5, MUTED)
    for a in hand.actions:
        act = a.action
        what = act.kind.replace("_", " ")
        if act.kind == "correct_card":
            what = f"corrected seat {act.seat} {act.row} {(act.index or 0) + 1}: {act.before} -> {act.after}"
        elif act.seat is not None:
            what += f" seat {act.seat}"
        by = f" by {act.by}" if act.by else ""
        state = "" if a.ok else f" (refused: {a.message})"
        page.text(f"{_fmt_time(act.at)}  {what}{by}{state}", 0.5)

    if page.full:
        cv2.putText(page.img, "(continued in the review page: page full)", (MARGIN, PAGE[1] - MARGIN - 40), FONT,
                    0.5, FOUL, 1, cv2.LINE_AA)
    footer = f"Record {rev.seq} sha256 {rev.hash}   check with: kiosk audit verify"
    cv2.putText(page.img, ascii_text(footer), (MARGIN, PAGE[1] - MARGIN), FONT, 0.42, MUTED, 1, cv2.LINE_AA)
    return page.img


def report_png(page: np.ndarray) -> bytes:
    ok, buf = cv2.imencode(".png", page)
    if not ok:
        raise ValueError("could not encode the report as PNG")
    return buf.tobytes()


def report_pdf(page: np.ndarray) -> bytes:
    """A one-page A4 PDF showing the report image (JPEG inside, no PDF library needed)."""
    ok, buf = cv2.imencode(".jpg", page, [cv2.IMWRITE_JPEG_QUALITY, 92])
    if not ok:
        raise ValueError("could not encode the report page")
    jpeg = buf.tobytes()
    h, w = page.shape[:2]
    content = b"q 595 0 0 842 0 0 cm /Im0 Do Q"
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Resources << /XObject << /Im0 4 0 R >> >> "
        b"/Contents 5 0 R >>",
        b"<< /Type /XObject /Subtype /Image /Width %d /Height %d /ColorSpace /DeviceRGB /BitsPerComponent 8 "
        b"/Filter /DCTDecode /Length %d >>\nstream\n" % (w, h, len(jpeg)) + jpeg + b"\nendstream",
        b"<< /Length %d >>\nstream\n" % len(content) + content + b"\nendstream",
    ]
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
