"""Fetch card art from the package registries and render it into deck design folders.

Each source is downloaded with its registry's own client (pip download, npm pack,
apt-get download) into `datasets/cache/downloads/`, rendered to PNG (resvg-py for SVG,
pypdfium2 for PDF) and written by `kiosk_lab.synth.art.write_deck`, which measures every
card's corner index. `committed=True` sources are CC0/public domain and are written to
`datasets/art/` (committed); the rest go to `datasets/cache/art/` (git-ignored).
"""

from __future__ import annotations

import gzip
import json
import re
import shutil
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

import cv2
import numpy as np

from kiosk_lab.synth.art import CACHED_ART, COMMITTED_ART, INK_LINE, REPO_ROOT, SCAN_INK_LINES, write_deck

DOWNLOADS = REPO_ROOT / "datasets" / "cache" / "downloads"
ART_HEIGHT = 240  # px: card art height kept on disk (an index is ~25 px tall in a 1080p frame)
RANK_WORDS = {"2": "2", "3": "3", "4": "4", "5": "5", "6": "6", "7": "7", "8": "8", "9": "9",
              "10": "T", "jack": "J", "queen": "Q", "king": "K", "1": "A", "ace": "A"}


def log(msg: str) -> None:
    print(f"[fetch] {msg}", file=sys.stderr, flush=True)


def run(cmd: list[str], cwd: Path | None = None) -> None:
    subprocess.run(cmd, cwd=cwd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)


def _png_to_bgra(data: bytes) -> np.ndarray:
    img = cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_UNCHANGED)
    if img is None:
        raise ValueError("render produced no image")
    if img.shape[2] == 3:
        img = cv2.cvtColor(img, cv2.COLOR_BGR2BGRA)
    return img


def render_svg(*, path: Path | None = None, text: str | None = None, height: int | None = None,
               width: int | None = None) -> np.ndarray:
    import resvg_py

    kwargs = {"dpi": 96}
    if height:
        kwargs["height"] = height
    if width:
        kwargs["width"] = width
    if path is not None:
        data = resvg_py.svg_to_bytes(svg_path=str(path), **kwargs)
    else:
        data = resvg_py.svg_to_bytes(svg_string=text, **kwargs)
    return _png_to_bgra(bytes(data))


def trim_alpha(img: np.ndarray, thresh: int = 8) -> np.ndarray:
    ys, xs = np.nonzero(img[:, :, 3] > thresh)
    if len(xs) == 0:
        return img
    return img[ys.min(): ys.max() + 1, xs.min(): xs.max() + 1]


# ---------------------------------------------------------------------------
# downloads


def npm_pack(package: str) -> Path:
    """Unpacked npm package folder (npm pack + tar)."""
    dest = DOWNLOADS / "npm" / package.replace("/", "__").replace("@", "")
    if (dest / "package").is_dir():
        return dest / "package"
    dest.mkdir(parents=True, exist_ok=True)
    run(["npm", "pack", package, "--silent"], cwd=dest)
    tgz = next(dest.glob("*.tgz"))
    with tarfile.open(tgz) as tar:
        tar.extractall(dest, filter="data")
    return dest / "package"


def pip_wheel(package: str) -> Path:
    dest = DOWNLOADS / "pypi" / package
    wheels = list(dest.glob("*.whl"))
    if not wheels:
        dest.mkdir(parents=True, exist_ok=True)
        run([sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary=:all:", package, "-d", str(dest)])
        wheels = list(dest.glob("*.whl"))
    return wheels[0]


def apt_package(package: str) -> Path:
    """Debian package unpacked (apt-get download + dpkg -x); returns the root folder."""
    dest = DOWNLOADS / "apt" / package
    root = dest / "root"
    if root.is_dir():
        return root
    dest.mkdir(parents=True, exist_ok=True)
    try:
        run(["apt-get", "download", package], cwd=dest)
    except subprocess.CalledProcessError:
        run(["apt-get", "update", "-qq"])
        run(["apt-get", "download", package], cwd=dest)
    deb = next(dest.glob("*.deb"))
    root.mkdir()
    run(["dpkg", "-x", str(deb), str(root)])
    return root


# ---------------------------------------------------------------------------
# committed CC0 decks


KENNARD_VARIANTS = {
    "kennard-2c": ("2color", "Adrian Kennard's cards, 2 colours, small index"),
    "kennard-4c": ("4color", "Adrian Kennard's cards, 4 colours, small index"),
    "kennard-2c-big": ("2color-bf", "Adrian Kennard's cards, 2 colours, big index"),
    "kennard-4c-big": ("4color-bf", "Adrian Kennard's cards, 4 colours, big index"),
}


def kennard(out_root: Path) -> list[str]:
    pkg = npm_pack("@heruka_urgyen/react-playing-cards")
    back = trim_alpha(render_svg(path=pkg / "src/images/back.svg", height=ART_HEIGHT))
    made = []
    for deck_id, (folder, name) in KENNARD_VARIANTS.items():
        images = {}
        for svg in sorted((pkg / "src/images" / folder).glob("*.svg")):
            stem = svg.stem.upper()
            card = "Jk" if stem.endswith("J") and stem[0].isdigit() else stem[0] + stem[1].lower()
            images[card] = render_svg(path=svg, height=ART_HEIGHT)
        write_deck(out_root / deck_id, deck_id, images, back, name=name, family="kennard",
                   licence="CC0-1.0",
                   source="npm @heruka_urgyen/react-playing-cards src/images/" + folder + " (art by Adrian Kennard, CC0)",
                   height=ART_HEIGHT)
        made.append(deck_id)
    return made


def kenney(out_root: Path) -> list[str]:
    wheel = pip_wheel("arcade")
    prefix = "arcade/resources/assets/images/cards/"
    suit_of = {"Spades": "s", "Hearts": "h", "Diamonds": "d", "Clubs": "c"}
    images = {}
    back = None
    with zipfile.ZipFile(wheel) as zf:
        for member in zf.namelist():
            if not member.startswith(prefix) or not member.endswith(".png"):
                continue
            stem = Path(member).stem
            img = _png_to_bgra(zf.read(member))
            if stem == "cardJoker":
                images["Jk"] = img
            elif stem == "cardBack_blue2":
                back = img
            else:
                m = re.fullmatch(r"card(Spades|Hearts|Diamonds|Clubs)(10|[2-9AJQK])", stem)
                if m:
                    rank = "T" if m.group(2) == "10" else m.group(2)
                    images[rank + suit_of[m.group(1)]] = img
    # Kept at the wheel's own size (140x190): upscaling would only blur it.
    write_deck(out_root / "kenney", "kenney", images, back, name="Kenney playing cards (flat)",
               family="kenney", licence="CC0-1.0",
               source="PyPI arcade wheel, arcade/resources/assets/images/cards/ (Kenney, CC0)")
    return ["kenney"]


COMMITTED_SOURCES = {"kennard": kennard, "kenney": kenney}


def make_committed() -> list[str]:
    made = []
    for name, fn in COMMITTED_SOURCES.items():
        log(f"rendering {name} into {COMMITTED_ART}")
        made += fn(COMMITTED_ART)
    return made


# ---------------------------------------------------------------------------
# fetched decks (rendered into the git-ignored cache unless public domain)

JEUX = "usr/share/texlive/texmf-dist/tex/latex/jeuxcartes"
JEUX_RANKS = {"V": "J", "D": "Q", "R": "K", "A": "A", "10": "T"}
JEUX_SUITS = {"C": "h", "K": "d", "P": "s", "T": "c"}
JEUX_VERSIONS = {
    # id: (version, family, licence, back file, committed)
    "jeux-v1": ("v1", "bellot", "LGPL-2.1", "Dos", False),
    "jeux-v2": ("v2", "tekeye", "public-domain", "DosBleu", True),
    "jeux-v3": ("v3", "kennard", "public-domain", "DosRouge", False),
}


def render_pdf(path: Path, height: int) -> np.ndarray:
    import pypdfium2 as pdfium

    pdf = pdfium.PdfDocument(str(path))
    page = pdf[0]
    _, h = page.get_size()
    bitmap = page.render(scale=height / h, fill_color=(0, 0, 0, 0))
    img = bitmap.to_numpy().copy()  # BGRA
    pdf.close()
    return trim_alpha(img)


def jeuxcartes(only: list[str] | None = None) -> list[str]:
    root = apt_package("texlive-games") / JEUX
    made = []
    for deck_id, (version, family, licence, back_name, committed) in JEUX_VERSIONS.items():
        if only and deck_id not in only:
            continue
        images = {}
        for pdf in sorted(root.glob(f"CaJ-PokeR{version}-*.pdf")):
            code = pdf.stem.split("-")[-1]
            rank, suit = code[:-1], code[-1:]
            if suit in JEUX_SUITS and (rank in JEUX_RANKS or rank in "23456789"):
                images[JEUX_RANKS.get(rank, rank) + JEUX_SUITS[suit]] = render_pdf(pdf, ART_HEIGHT)
        joker = root / f"CaJ-PokeR{version}-JR.pdf"
        if joker.exists():
            images["Jk"] = render_pdf(joker, ART_HEIGHT)
        back = render_pdf(root / f"CaJ-PokeR{version}-{back_name}.pdf", ART_HEIGHT)
        out = (COMMITTED_ART if committed else CACHED_ART) / deck_id
        write_deck(out, deck_id, images, back, name=f"JeuxCartes poker {version}", family=family,
                   licence=licence, source=f"Debian texlive-games {JEUX}/CaJ-PokeR{version}-*.pdf",
                   height=ART_HEIGHT)
        made.append(deck_id)
    return made


AISLERIOT = "usr/share/aisleriot/cards"
AISLERIOT_SKIP = {  # court letters other than J/Q/K, or not French suits, or a duplicate file,
    # or no corner index as the detector reads it (tango_nuevo: rank top-left, suit top-right)
    "ancient_french", "atlasnye_skat", "berlin", "lattmann", "rheinland", "tarocco", "slavic_costumes",
    "swiss-xvii", "Атласные", "tango_nuevo",
}
AISLERIOT_FAMILY = {  # near-duplicates share a family (kept on one side of a split)
    "anglo_bitmap": "anglo", "gnomangelo_bitmap": "gnomangelo", "neoclassical_4_color": "neoclassical",
    "anglo_modern_4_color": "anglo_modern", "tango_nuevo": "tango", "paris": "paris", "bellot": "bellot",
    "ornamental": "ornamental", "dondorf": "dondorf", "tigullio": "tigullio",
}
SHEET_ROWS = "cdhs"  # aisleriot sheet rows: clubs, diamonds, hearts, spades, then jokers + back
SHEET_COLS = "A23456789TJQK"


def aisleriot(only: list[str] | None = None) -> list[str]:
    root = apt_package("gnome-cards-data") / AISLERIOT
    made = []
    for svgz in sorted(root.glob("*.svgz")):
        name = svgz.stem
        if name in AISLERIOT_SKIP or (only and f"aisleriot-{name}" not in only):
            continue
        deck_id = f"aisleriot-{name.replace('_', '-')}"
        try:
            sheet = render_svg(path=svgz, height=5 * (ART_HEIGHT + 8))
        except Exception as err:  # noqa: BLE001 - one broken sheet must not stop the fetch
            log(f"skip {name}: {err}")
            continue
        h, w = sheet.shape[:2]
        ch, cw = h / 5, w / 13
        cells = {}
        for r in range(5):
            for c in range(13):
                cell = sheet[round(r * ch): round((r + 1) * ch), round(c * cw): round((c + 1) * cw)]
                cells[(r, c)] = trim_alpha(cell)
        images = {SHEET_COLS[c] + SHEET_ROWS[r]: cells[(r, c)] for r in range(4) for c in range(13)}
        if cells[(4, 1)][:, :, 3].mean() > 100:
            images["Jk"] = cells[(4, 1)]
        write_deck(CACHED_ART / deck_id, deck_id, images, cells[(4, 2)], name=f"aisleriot {name}",
                   family=AISLERIOT_FAMILY.get(name, name).replace("_", "-"),
                   licence="GPL-3+/LGPL (gnome-cards-data)", source=f"Debian gnome-cards-data {AISLERIOT}/{name}.svgz",
                   height=ART_HEIGHT)
        made.append(deck_id)
    return made


KDE = "usr/share/carddecks"
KDE_SKIP = {
    "svg-xskat-german",  # German suits
    # rank in one corner and suit in another: no corner where both sit together, so a
    # corner box could not name the card (same reason as aisleriot tango_nuevo)
    "svg-oxygen", "svg-oxygen-air", "svg-oxygen-white",
}
KDE_FAMILY = {"svg-gm-paris": "paris", "svg-nicu-ornamental": "ornamental", "svg-dondorf": "dondorf",
              "svg-tigullio-international": "tigullio", "svg-oxygen": "oxygen", "svg-oxygen-air": "oxygen",
              "svg-oxygen-white": "oxygen"}
# konqi-modern's pip touches the rank: at the ink line of 25 six faces measure nothing (3h, Th, 5c, 7c, 8c, Tc), so
# its showdowns held 46 cards and none counted among the test's 52-card showdowns; measured as add-deck measures
# scans (the best of several lines) all 52 measure, at 60. Other fetched designs keep the one line (their boxes,
# and so every training recipe's crops, as they were made).
KDE_INK_LINES = {"svg-konqi-modern": SCAN_INK_LINES}
KDE_RANKS = {"1": "A", "10": "T", "jack": "J", "queen": "Q", "king": "K"}
KDE_SUITS = {"club": "c", "diamond": "d", "heart": "h", "spade": "s"}
SVG_NS = "{http://www.w3.org/2000/svg}"
NON_RENDERED = {"defs", "style", "metadata", "title", "desc", "namedview", "linearGradient", "radialGradient",
                "pattern", "clipPath", "mask", "filter", "symbol", "marker", "script"}


class IsolatedSvg:
    """Render single elements of one parsed SVG document (hiding the rest in place)."""

    def __init__(self, root):
        self.root = root
        self.parent = {c: p for p in root.iter() for c in p}
        self.by_id = {e.get("id"): e for e in root.iter() if e.get("id")}
        self.attrs = {k: root.get(k) for k in ("viewBox", "width", "height", "preserveAspectRatio")}

    def text(self, target_id: str, view_box, width: int, height: int) -> str | None:
        import xml.etree.ElementTree as ET

        target = self.by_id.get(target_id)
        if target is None:
            return None
        chain, node = [], target
        while node is not self.root:
            chain.append(node)
            node = self.parent[node]
        in_defs = any(n.tag.split("}")[-1] in ("defs", "symbol") for n in chain[1:])
        hidden, added = [], None
        if in_defs:
            for child in list(self.root):
                if child.tag.split("}")[-1] not in NON_RENDERED:
                    hidden.append((child, child.get("style")))
            added = ET.SubElement(self.root, SVG_NS + "use")
            added.set("href", "#" + target_id)
            added.set("{http://www.w3.org/1999/xlink}href", "#" + target_id)
        else:
            keep = set(chain)
            for node in chain:
                for sib in self.parent[node]:
                    if sib not in keep and sib.tag.split("}")[-1] not in NON_RENDERED:
                        hidden.append((sib, sib.get("style")))
        for el, old in hidden:  # a style property beats a display attribute (Inkscape layers say display:inline)
            el.set("style", (old + ";" if old else "") + "display:none")
        self.root.set("viewBox", " ".join(f"{v:.3f}" for v in view_box))
        self.root.set("width", str(width))
        self.root.set("height", str(height))
        self.root.set("preserveAspectRatio", "none")
        try:
            return ET.tostring(self.root, encoding="unicode")
        finally:
            for el, old in hidden:
                if old is None:
                    el.attrib.pop("style", None)
                else:
                    el.set("style", old)
            if added is not None:
                self.root.remove(added)
            for k, v in self.attrs.items():
                if v is None:
                    self.root.attrib.pop(k, None)
                else:
                    self.root.set(k, v)

    def render(self, target_id: str, height: int) -> np.ndarray | None:
        """One element at `height` px, cropped to its pixels: a coarse pass over a large area
        finds it, a fine pass frames it."""
        big = (-6000.0, -6000.0, 14000.0, 14000.0)
        px = 1200
        text = self.text(target_id, big, px, px)
        if text is None:
            return None
        coarse = render_svg(text=text)
        ys, xs = np.nonzero(coarse[:, :, 3] > 8)
        if len(xs) == 0:
            return None
        unit = big[2] / px
        x1, y1 = big[0] + (xs.min() - 1.5) * unit, big[1] + (ys.min() - 1.5) * unit
        x2, y2 = big[0] + (xs.max() + 2.5) * unit, big[1] + (ys.max() + 2.5) * unit
        scale = (height * 1.1) / (y2 - y1)
        w_px, h_px = max(8, round((x2 - x1) * scale)), max(8, round((y2 - y1) * scale))
        fine = render_svg(text=self.text(target_id, (x1, y1, x2 - x1, y2 - y1), w_px, h_px))
        return trim_alpha(fine, thresh=20)


def inkscape_export(svgz: Path, element_ids: list[str], height: int) -> dict[str, np.ndarray] | None:
    """Export elements of an SVG by id with Inkscape (one call per document); None when it fails."""
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        src = Path(tmp) / "deck.svg"
        src.write_bytes(gzip.open(svgz).read())
        try:
            subprocess.run(["inkscape", str(src), "--export-type=png", "--export-id=" + ";".join(element_ids),
                            "--export-id-only", f"--export-height={height}"], check=True, timeout=900,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        except (subprocess.CalledProcessError, subprocess.TimeoutExpired, OSError):
            return None
        out = {}
        for el in element_ids:
            png = Path(tmp) / f"deck_{el}.png"
            img = cv2.imread(str(png), cv2.IMREAD_UNCHANGED) if png.exists() else None
            if img is not None and img.ndim == 3 and img.shape[2] == 4:
                out[el] = trim_alpha(img, thresh=20)
        return out


def _kde_cached(deck_id: str, folder_name: str) -> bool:
    """Whether a KDE design is in the cache as this code writes it (one measured at a single ink line before its
    design was given several is written again)."""
    deck_json = CACHED_ART / deck_id / "deck.json"
    if not deck_json.exists():
        return False
    return folder_name not in KDE_INK_LINES or "ink_line" in json.loads(deck_json.read_text())


def kde(only: list[str] | None = None, force: bool = False) -> list[str]:
    """KDE decks (already rendered ones are kept unless `force`)."""
    import xml.etree.ElementTree as ET

    root_dir = apt_package("kdegames-card-data-kf5") / KDE
    made = []
    for folder in sorted(root_dir.glob("svg-*")):
        if folder.name in KDE_SKIP:
            continue
        deck_id = "kde-" + folder.name[4:]
        if (only and deck_id not in only) or (not force and _kde_cached(deck_id, folder.name)):
            continue
        svgz = next(folder.glob("*.svgz"))
        try:
            root = ET.fromstring(gzip.open(svgz).read())
        except Exception as err:  # noqa: BLE001
            log(f"skip {folder.name}: {err}")
            continue
        ids = {e.get("id") for e in root.iter() if e.get("id")}
        wanted = {f"{r}_{sid}": KDE_RANKS.get(r, r) + suit
                  for r in [str(n) for n in range(1, 11)] + ["jack", "queen", "king"] for sid, suit in KDE_SUITS.items()}
        joker = next((j for j in ("red_joker", "joker", "black_joker") if j in ids), None)
        if joker:
            wanted[joker] = "Jk"
        wanted["back"] = "back"
        rendered = inkscape_export(svgz, list(wanted), ART_HEIGHT) if shutil.which("inkscape") else None
        if rendered is None:  # resvg fallback: works for decks whose cards are plain groups
            doc = IsolatedSvg(root)
            rendered = {el: doc.render(el, ART_HEIGHT) for el in wanted}
        images = {wanted[el]: img for el, img in rendered.items()
                  if img is not None and el != "back" and min(img.shape[:2]) >= 16}
        back = rendered.get("back")
        # an element that drew more (or less) than one card shows as a size outlier
        if images:
            hs = np.median([im.shape[0] for im in images.values()])
            ws = np.median([im.shape[1] for im in images.values()])
            bad = [c for c, im in images.items()
                   if abs(im.shape[0] / hs - 1) > 0.06 or abs(im.shape[1] / ws - 1) > 0.06]
            for c in bad:
                del images[c]
            if back is not None and (abs(back.shape[0] / hs - 1) > 0.06 or abs(back.shape[1] / ws - 1) > 0.06):
                back = None
            if not 0.55 <= ws / hs <= 0.85:
                images = {}
        if back is None or len(images) < 45:
            log(f"skip {folder.name}: {len(images)} cards rendered at a consistent size, back: {back is not None}")
            continue
        # some decks draw every card at its own size; the write step resizes to the first card's size
        write_deck(CACHED_ART / deck_id, deck_id, images, back, name=f"KDE {folder.name}",
                   family=KDE_FAMILY.get(folder.name, deck_id), licence="GPL-2+/LGPL (kdegames-card-data-kf5)",
                   source=f"Debian kdegames-card-data-kf5 {KDE}/{folder.name}/{svgz.name}", height=ART_HEIGHT,
                   ink_lines=KDE_INK_LINES.get(folder.name, (INK_LINE,)))
        made.append(deck_id)
    return made


def cardsjs(only: list[str] | None = None) -> list[str]:
    pkg = npm_pack("cardsJS")
    images = {}
    for svg in sorted((pkg / "cards").glob("*.svg")):
        stem = svg.stem
        if stem.endswith("_Back") or stem.startswith("10"):
            continue
        images[stem[0] + stem[1].lower()] = trim_alpha(render_svg(path=svg, height=ART_HEIGHT + 4))
    back = trim_alpha(render_svg(path=pkg / "cards" / "Blue_Back.svg", height=ART_HEIGHT + 4))
    write_deck(CACHED_ART / "cardsjs", "cardsjs", images, back, name="cardsJS (Vectorized Playing Cards 1.3)",
               family="vectorized", licence="LGPL-3+ (art by Chris Aguilar)", source="npm cardsJS cards/*.svg",
               height=ART_HEIGHT)
    return ["cardsjs"]


PROCEDURAL_DESIGNS = 240
# A playing-card index typeface (NKD04, free for any use) in texlive-games, for the third procedural generation.
INDEX_FONT = "usr/share/texlive/texmf-dist/fonts/truetype/public/hmtrump/nkd04_playing_cards_index.ttf"


def index_fonts() -> tuple[str, ...]:
    """The playing-card index typefaces fetched here (none if texlive-games cannot be fetched)."""
    try:
        path = apt_package("texlive-games") / INDEX_FONT
    except (subprocess.CalledProcessError, OSError, StopIteration) as err:
        log(f"procedural: no index typeface ({err}); designs from seed 80 draw other faces")
        return ()
    return (str(path),) if path.is_file() else ()


# Text faces of Debian's font packages (free licences that allow rendering) for the fifth procedural generation:
# package -> font files inside it. The order is part of the designs: a design draws the n-th face found.
FACE_PACKAGES = {
    "fonts-urw-base35": [f"usr/share/fonts/opentype/urw-base35/{n}.otf" for n in (
        "C059-Bold", "C059-Roman", "NimbusRoman-Bold", "NimbusSans-Bold", "NimbusSans-Regular",
        "NimbusSansNarrow-Bold", "NimbusMonoPS-Bold", "P052-Bold", "P052-Roman", "URWBookman-Demi",
        "URWGothic-Demi", "URWGothic-Book")],
    "fonts-texgyre": [f"usr/share/texmf/fonts/opentype/public/tex-gyre/texgyre{n}.otf" for n in (
        "adventor-bold", "bonum-bold", "bonum-regular", "cursor-bold", "heroscn-bold", "pagella-bold",
        "schola-bold", "schola-regular", "termes-bold")],
    "fonts-freefont-ttf": [f"usr/share/fonts/truetype/freefont/{n}.ttf" for n in (
        "FreeSansBold", "FreeSerifBold", "FreeMonoBold", "FreeSerif")],
    "fonts-open-sans": [f"usr/share/fonts/truetype/open-sans/OpenSans-{n}.ttf" for n in ("Bold", "CondBold", "ExtraBold")],
    "fonts-lato": [f"usr/share/fonts/truetype/lato/Lato-{n}.ttf" for n in ("Bold", "Regular")],
    "fonts-crosextra-carlito": ["usr/share/fonts/truetype/crosextra/Carlito-Bold.ttf"],
    "fonts-crosextra-caladea": ["usr/share/fonts/truetype/crosextra/Caladea-Bold.ttf"],
    "fonts-linuxlibertine": [f"usr/share/fonts/opentype/linux-libertine/{n}.otf" for n in (
        "LinLibertine_RB", "LinLibertine_R", "LinBiolinum_RB")],
    "fonts-ebgaramond": [f"usr/share/fonts/opentype/ebgaramond/EBGaramond12-{n}.otf" for n in ("Bold", "Regular")],
    "fonts-cantarell": [f"usr/share/fonts/opentype/cantarell/Cantarell-{n}.otf" for n in ("Bold", "ExtraBold")],
    "fonts-league-spartan": ["usr/share/fonts/opentype/league-spartan/LeagueSpartan-Bold.otf"],
    "fonts-bebas-neue": ["usr/share/fonts/opentype/bebas-neue/BebasNeue-Bold.otf"],
    "fonts-comic-neue": ["usr/share/fonts/opentype/comic-neue/ComicNeue-Bold.otf"],
    "fonts-cabin": ["usr/share/fonts/opentype/cabin/Cabin-Bold.otf"],
    "fonts-inter": [f"usr/share/fonts/opentype/inter/{n}.otf" for n in ("Inter-Bold", "InterDisplay-ExtraBold")],
    "fonts-adf-gillius": [f"usr/share/fonts/truetype/adf/GilliusADF-{n}.otf" for n in ("BoldCond", "Bold")],
    "fonts-adf-universalis": ["usr/share/fonts/truetype/adf/UniversalisADFStd-BoldCond.otf"],
    "fonts-adf-accanthis": ["usr/share/fonts/truetype/adf/AccanthisADFStd-Bold.otf"],
    "fonts-adf-berenis": ["usr/share/fonts/truetype/adf/BerenisADFPro-Bold.otf"],
    "fonts-oldstandard": ["usr/share/fonts/truetype/fonts-oldstandard/OldStandard-Bold.ttf"],
    "fonts-vollkorn": [f"usr/share/fonts/truetype/vollkorn/Vollkorn-{n}.ttf" for n in ("Bold", "ExtraBold")],
    "fonts-play": ["usr/share/fonts/truetype/play/Play-Bold.ttf"],
    "fonts-go": [f"usr/share/fonts/fonts-go/{n}.ttf" for n in ("Go-Bold", "Go-Mono-Bold")],
    "fonts-yanone-kaffeesatz": ["usr/share/fonts/opentype/yanone-kaffeesatz/YanoneKaffeesatz-Bold.otf"],
    "fonts-sil-gentium": ["usr/share/fonts/truetype/gentium/Gentium-R.ttf"],
    "fonts-roboto-unhinted": [f"usr/share/fonts/truetype/roboto/unhinted/{n}.ttf" for n in (
        "RobotoCondensed-Bold", "RobotoTTF/Roboto-Bold")],
    "fonts-cmu": [f"usr/share/fonts/truetype/cmu/{n}.ttf" for n in ("cmunbx", "cmunsx")],
    "fonts-paratype": [f"usr/share/fonts/truetype/paratype/{n}.ttf" for n in ("PTS75F", "PTN77F", "PTF75F", "PTC75F")],
    "fonts-century-catalogue": ["usr/share/fonts/truetype/fonts-century-catalogue/Century-Catalogue.ttf"],
    "fonts-beteckna": ["usr/share/fonts/truetype/beteckna/BetecknaGS-Bold.ttf"],
    "fonts-quattrocento": ["usr/share/fonts/opentype/quattrocento/Quattrocento-Regular.otf"],
}


def text_faces() -> tuple[str, ...]:
    """The fifth generation's text faces: FACE_PACKAGES fetched and unpacked here (not installed, so the machine's
    own fonts, which the first generations draw from, stay as they were)."""
    found, lost = [], []
    for package, files in FACE_PACKAGES.items():
        try:
            root = apt_package(package)
        except (subprocess.CalledProcessError, OSError, StopIteration):
            lost.append(package)
            continue
        found += [str(root / f) for f in files if (root / f).is_file()]
    if lost:
        log(f"procedural: {len(lost)} font packages could not be fetched ({', '.join(lost)}); "
            "designs from seed 160 are then not the committed figures' designs")
    return tuple(found)


def procedural(only: list[str] | None = None, count: int = PROCEDURAL_DESIGNS) -> list[str]:
    """Designs drawn by kiosk_lab/synth/procedural.py from this machine's fonts (training variety; all one family)."""
    from kiosk_lab.synth.art import CACHED_ART, PROCEDURAL_FAMILY, write_deck
    from kiosk_lab.synth.procedural import make_design

    made, fonts, faces = [], index_fonts(), text_faces()
    for seed in range(count):
        if only and f"procedural-{seed:03d}" not in only:  # the id make_design gives: skip drawing it
            continue
        design = make_design(seed, index_fonts=fonts, faces=faces)
        font = Path(design.font).name
        write_deck(CACHED_ART / design.id, design.id, design.images, design.back,
                   name=f"procedural design {seed} ({font})", family=PROCEDURAL_FAMILY,
                   licence=f"generated (kiosk_lab/synth/procedural.py); text in {font}",
                   source=f"kiosk_lab.synth.procedural.make_design({seed})", index=design.index)
        made.append(design.id)
    return made


FETCHED_SOURCES = {"jeuxcartes": jeuxcartes, "aisleriot": aisleriot, "kde": kde, "cardsjs": cardsjs,
                   "procedural": procedural}


def fetch_all(only: list[str] | None = None) -> dict[str, list[str]]:
    """Every fetched source, or those named in `only` (jeuxcartes, aisleriot, kde, cardsjs, procedural; kennard and
    kenney re-render the committed CC0 art)."""
    made = {}
    for name, fn in {**COMMITTED_SOURCES, **FETCHED_SOURCES}.items():
        if (only and name not in only) or (not only and name in COMMITTED_SOURCES):
            continue
        log(f"{name} ...")
        try:
            made[name] = fn(COMMITTED_ART) if name in COMMITTED_SOURCES else fn()
        except (subprocess.CalledProcessError, OSError, StopIteration) as err:
            log(f"{name} failed: {err}")
            made[name] = []
        log(f"{name}: {made[name]}")
    return made
