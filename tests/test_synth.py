"""Synthetic data generator: labels match pixels, splits keep designs apart, no mirror images."""

from __future__ import annotations

import json

import cv2
import numpy as np
import pytest

from kiosk.cards import CLASS_NAMES
from kiosk_lab.synth.art import COMMITTED_ART, deck_info, list_decks, load_deck, measure_index
from kiosk_lab.synth.camera import CameraParams
from kiosk_lab.synth.dataset import _tile_scene, build, split_decks
from kiosk_lab.synth.scenes import render_random
from kiosk_lab.synth.table import Placement, SeatLayout, TableLayout, render_placements, render_table

FELT = (40, 110, 30)
DECK = "kennard-2c"


def showdown_layout() -> TableLayout:
    cards = list(CLASS_NAMES[:52])
    seats = []
    for s in range(4):
        hand = tuple(cards[13 * s: 13 * s + 13])
        seats.append(SeatLayout(s + 1, front=hand[:3], middle=hand[3:8], back=hand[8:]))
    return TableLayout(tuple(seats))


@pytest.fixture(scope="module")
def clean_scene():
    return render_table(showdown_layout(), DECK, seed=11, camera={"felt_colour": FELT})


def test_committed_decks_are_cc0_or_public_domain():
    committed = list_decks(committed_only=True)
    assert {"kennard-2c", "kenney"} <= set(committed)
    for deck_id in committed:
        info = deck_info(deck_id)
        assert info["licence"] in ("CC0-1.0", "public-domain"), deck_id
        assert len(info["cards"]) >= 52, deck_id
    size = sum(p.stat().st_size for p in COMMITTED_ART.rglob("*") if p.is_file())
    assert size < 6_000_000


def test_scene_has_the_contract_fields(clean_scene):
    scene = clean_scene.scene
    assert set(scene) >= {"image", "size", "deck", "kind", "cards", "seats"}
    assert scene["size"] == [1920, 1080] and clean_scene.image.shape == (1080, 1920, 3)
    assert scene["kind"] == "showdown" and scene["deck"] == DECK
    assert [s["seat"] for s in scene["seats"]] == [1, 2, 3, 4]
    assert len(scene["cards"]) == 52
    for card in scene["cards"]:
        assert set(card) >= {"card", "polygon", "corners", "face_up", "seat", "row", "position"}
        assert card["row"] in ("front", "middle", "back") and len(card["polygon"]) == 4
    # every card of an open fanned row shows at least one index
    assert all(card["corners"] for card in scene["cards"])


def _ink_share(crop: np.ndarray) -> tuple[float, float]:
    """(paper share, ink share) of a crop of a clean overhead frame."""
    px = crop.reshape(-1, 3).astype(int)
    felt = np.abs(px - FELT).max(axis=1) < 45
    paper = (px.min(axis=1) > 200) & ~felt
    ink = ~felt & ~paper & ((px.min(axis=1) < 120) | (px.max(axis=1) - px.min(axis=1) > 90))
    return paper.mean(), ink.mean()


def test_every_index_box_lies_on_printed_card_corners(clean_scene):
    img = clean_scene.image
    for card in clean_scene.scene["cards"]:
        for x1, y1, x2, y2 in card["corners"]:
            crop = img[int(y1):int(np.ceil(y2)), int(x1):int(np.ceil(x2))]
            paper, ink = _ink_share(crop)
            assert paper > 0.2 and ink > 0.08, (card["card"], paper, ink)
            # a box is about 20-30 px tall (contract), in either orientation
            assert 18 <= max(x2 - x1, y2 - y1) <= 40, card["card"]


def test_felt_is_not_labelled(clean_scene):
    """The same check fails on plain felt, so it can fail."""
    paper, ink = _ink_share(clean_scene.image[500:530, 900:915])
    assert paper < 0.05 and ink < 0.05


def test_corner_boxes_lie_inside_their_card(clean_scene):
    for card in clean_scene.scene["cards"]:
        poly = np.array(card["polygon"], np.float32)
        for x1, y1, x2, y2 in card["corners"]:
            assert cv2.pointPolygonTest(poly, ((x1 + x2) / 2, (y1 + y2) / 2), False) > 0, card["card"]


def test_cards_face_their_seat(clean_scene):
    """Seat 1 upright (index top-left), seat 3 upside down, seats 2/4 turned (default geometry)."""
    for card in clean_scene.scene["cards"]:
        poly = np.array(card["polygon"])
        top = poly[1] - poly[0]  # the card's top edge, as the card faces
        angle = np.degrees(np.arctan2(top[1], top[0])) % 360
        expected = {1: 0, 2: 90, 3: 180, 4: 270}[card["seat"]]
        assert min(abs(angle - expected), 360 - abs(angle - expected)) < 5, card


def test_seats_are_where_the_default_geometry_puts_them(clean_scene):
    for card in clean_scene.scene["cards"]:
        cx, cy = np.mean(card["polygon"], axis=0)
        where = {1: cy > 700, 2: cx < 450, 3: cy < 380, 4: cx > 1470}[card["seat"]]
        assert where, card


def test_rendering_is_deterministic_for_a_seed():
    layout = TableLayout((SeatLayout(1, front=("As", "Kd", "Qh"), middle=("2c", "3c", "4c", "5c", "6c")),))
    a = render_table(layout, "kenney", seed=5, camera={"preset": "random"})
    b = render_table(layout, "kenney", seed=5, camera={"preset": "random"})
    c = render_table(layout, "kenney", seed=6, camera={"preset": "random"})
    assert np.array_equal(a.image, b.image) and a.scene == b.scene
    assert not np.array_equal(a.image, c.image)


def test_random_scene_is_deterministic_and_labels_stay_on_cards():
    a = render_random("pile", "kennard-4c", seed=3)
    b = render_random("pile", "kennard-4c", seed=3)
    assert np.array_equal(a.image, b.image)
    for card in a.scene["cards"]:
        poly = np.array(card["polygon"], np.float32)
        for x1, y1, x2, y2 in card["corners"]:
            assert cv2.pointPolygonTest(poly, ((x1 + x2) / 2, (y1 + y2) / 2), False) > 0


def test_no_mirror_flip_a_card_alone_matches_its_art_not_its_mirror():
    deck = load_deck(DECK)
    art = deck.cards["7s"].image
    h, w = art.shape[:2]
    rng = np.random.default_rng(0)
    p = Placement("7s", (400.0, 300.0), 0.0, float(h), True)
    out = render_placements([p], deck, rng, CameraParams(), (800, 600), kind="single").image
    crop = out[300 - h // 2: 300 - h // 2 + h, 400 - w // 2: 400 - w // 2 + w].astype(np.float32)
    a = art[:, :, :3].astype(np.float32)
    same = np.abs(crop - a).mean()
    mirrored = np.abs(crop - a[:, ::-1]).mean()
    assert same < 10 and mirrored > 2 * same


def _corners_under_a_cover(share: float, from_below: bool) -> list:
    """The labelled corners of an upright 7s whose top-left index a Kd on top covers: `share` of the
    index box's height, from its top edge down (the rank's end) or from its bottom edge up (the suit's)."""
    deck = load_deck(DECK)
    h = deck.cards["7s"].image.shape[0]
    x1, y1, x2, y2 = min(deck.cards["7s"].index, key=lambda b: b[1])
    top = 300 - h / 2
    cy = top + y2 - share * (y2 - y1) + h / 2 if from_below else top + y1 + share * (y2 - y1) - h / 2
    cards = [Placement("7s", (400.0, 300.0), 0.0, float(h), True), Placement("Kd", (400.0, cy), 0.0, float(h), True)]
    scene = render_placements(cards, deck, np.random.default_rng(0), CameraParams(), (800, 800), kind="single").scene
    return [c for c in scene["cards"][0]["corners"] if c[1] < 300]


def test_an_index_whose_rank_is_covered_is_not_labelled_though_most_of_it_shows():
    """A corner showing its suit but not its rank names no card (the fifty-third session's look at the test's
    misses): 65% of the box in view is not enough when the rank's half is 70% covered."""
    assert _corners_under_a_cover(0.35, from_below=False) == []
    assert len(_corners_under_a_cover(0.10, from_below=False)) == 1
    assert len(_corners_under_a_cover(0.35, from_below=True)) == 1  # the suit's half covered: the rank still reads


def test_no_mirror_flip_under_the_random_camera():
    """A mirror image turns a card's outline (clockwise from its top-left) counter-clockwise."""
    for seed, kind in enumerate(["showdown", "pile", "single", "paigow"]):
        scene = render_random(kind, "kenney", seed=100 + seed).scene
        for card in scene["cards"]:
            x, y = np.array(card["polygon"]).T
            signed = 0.5 * np.sum(x * np.roll(y, -1) - np.roll(x, -1) * y)
            assert signed > 0, (kind, card["card"])


def _synthetic_card(with_index: bool) -> np.ndarray:
    card = np.full((240, 170, 3), 255, np.uint8)
    cv2.rectangle(card, (0, 0), (169, 239), (0, 0, 0), 1)
    if with_index:
        cv2.putText(card, "K", (8, 34), cv2.FONT_HERSHEY_SIMPLEX, 1.0, (0, 0, 200), 3, cv2.LINE_AA)
        cv2.circle(card, (18, 50), 8, (0, 0, 200), -1, cv2.LINE_AA)
        card[170:, 125:] = card[:70, :45][::-1, ::-1]  # the same index, turned, bottom-right
    cv2.ellipse(card, (85, 120), (40, 50), 0, 0, 360, (0, 0, 0), 2)  # a picture in the middle
    return np.dstack([card, np.full((240, 170), 255, np.uint8)])


def test_measure_index_finds_the_corner_glyphs_and_nothing_on_a_bare_card():
    boxes = measure_index(_synthetic_card(True))
    assert len(boxes) == 2
    (x1, y1, x2, y2), (bx1, by1, bx2, by2) = boxes
    assert x1 <= 9 and y1 <= 12 and 24 <= x2 <= 40 and 56 <= y2 <= 64  # K over the pip
    assert bx1 >= 130 and by1 >= 175  # the bottom-right copy
    assert measure_index(_synthetic_card(False)) == ()


def test_an_index_whose_pip_touches_its_rank_still_counts():
    # KDE konqi-modern: in one corner the pip touches the rank (one blob, "no pip" measured), in the
    # other they stand apart; both corners are indices (the rank-only rule dropped the first)
    card = _synthetic_card(True)
    cv2.line(card, (18, 34), (18, 44), (0, 0, 200, 255), 4)  # join K and pip at the top-left only
    boxes = measure_index(card)
    assert len(boxes) == 2
    assert boxes[0][0] <= 9 and boxes[0][1] <= 12 and 56 <= boxes[0][3] <= 64
    assert boxes[1][0] >= 120 and boxes[1][1] >= 170


def test_an_index_touching_a_pip_of_the_card_counts_by_its_turned_twin():
    # the bottom-right index runs into a pip of the card's body, so it does not measure as an index
    # of its own; the top-left one turned 180 degrees over the same place looks alike: both count
    card = _synthetic_card(True)
    cv2.circle(card, (112, 218), 14, (0, 0, 200, 255), -1)
    cv2.line(card, (112, 218), (150, 218), (0, 0, 200, 255), 5)  # ... into the K
    boxes = measure_index(card)
    assert len(boxes) == 2
    (x1, y1, x2, y2), (bx1, by1, bx2, by2) = boxes
    assert (bx1, by1, bx2, by2) == (170 - x2, 240 - y2, 170 - x1, 240 - y1)
    # a corner with other ink there instead (no index) stays unlabelled
    card = _synthetic_card(True)
    card[170:, 125:] = 255
    cv2.ellipse(card, (150, 215), (14, 20), 0, 0, 360, (0, 0, 0), 3)
    assert len(measure_index(card)) == 1


def test_every_design_has_measured_index_boxes_of_a_steady_size():
    for deck_id in list_decks():
        info = deck_info(deck_id)
        heights = [b[3] - b[1] for c, e in info["cards"].items() if c != "Jk" for b in e["index"]]
        assert len(info["cards"]) >= 40, deck_id
        med = np.median(heights)
        assert all(0.7 * med <= hgt <= 1.4 * med for hgt in heights), deck_id


def test_split_keeps_designs_and_their_families_apart():
    decks = list_decks()
    for seed in range(5):
        split = split_decks(decks, seed)
        seen = [d for ids in split.values() for d in ids]
        assert sorted(seen) == sorted(decks)
        fams = {s: {deck_info(d).get("family", d) for d in ids} for s, ids in split.items()}
        assert not (fams["train"] & fams["val"]) and not (fams["train"] & fams["test"])
        assert not (fams["val"] & fams["test"])
        assert split["train"] and split["val"]


def test_tiles_drop_cut_boxes_and_keep_whole_ones():
    scene = {"cards": [{"card": "As", "polygon": [[90, 90], [660, 90], [660, 140], [90, 140]],
                        "corners": [[100, 100, 120, 130], [630, 100, 650, 130]]}]}
    sub, boxes, dropped = _tile_scene(scene, 0, 0, 640)
    assert boxes == [("As", [100, 100, 120, 130])] and dropped == 1
    sub, boxes, dropped = _tile_scene(scene, 440, 0, 640)
    assert boxes == [("As", [190, 100, 210, 130])] and dropped == 0


def test_build_writes_the_contract_layout(tmp_path):
    meta = build("t", {"train": 1, "val": 1, "test": 0}, seed=3, out_root=tmp_path, workers=1,
                 mix={"single": 1.0}, tile=640, keep_full=True, log=lambda m: None)
    root = tmp_path / "t"
    decks = json.loads((root / "decks.json").read_text())
    assert not set(decks["train"]) & set(decks["val"])
    yaml_text = (root / "data.yaml").read_text()
    assert "train: images/train" in yaml_text and "52: Jk" in yaml_text
    assert json.loads((root / "build.json").read_text())["rank_visible_min"] == 0.6  # which labelling rule built it
    for split in ("train", "val"):
        images = sorted((root / "images" / split).glob("*.jpg"))
        assert images and meta["totals"][split]["images"] == len(images)
        for img in images:
            label = root / "labels" / split / (img.stem + ".txt")
            scene = json.loads((root / "scenes" / split / (img.stem + ".json")).read_text())
            assert scene["image"] == img.name
            lines = [ln.split() for ln in label.read_text().splitlines()]
            assert len(lines) == sum(len(c["corners"]) for c in scene["cards"])
            for cls, *xywh in lines:
                assert 0 <= int(cls) < 53 and all(0 <= float(v) <= 1 for v in xywh)


def test_demo_recording_plays_and_matches_its_ground_truth():
    from kiosk_lab.synth.art import REPO_ROOT

    demo = REPO_ROOT / "kiosk" / "data" / "demo"
    truth = json.loads((demo / "table.json").read_text())
    cap = cv2.VideoCapture(str(demo / "table.mp4"))
    assert cap.isOpened()
    assert int(cap.get(cv2.CAP_PROP_FRAME_COUNT)) == truth["frames"]
    assert (demo / "table.mp4").stat().st_size < 10_000_000
    assert len(truth["hands"]) == 3
    for hand in truth["hands"]:
        cards = []
        for seat in hand["showdown"]["seats"]:
            cards += seat.get("front", []) + seat.get("middle", []) + seat.get("back", []) + seat.get("cards", [])
        assert len(cards) == len(set(cards)) and len(cards) in (39, 52)
        first, last = hand["phases"]["hold"]
        assert last - first + 1 >= 5 * truth["fps"]
        # the held frame shows exactly the cards of the showdown, face up
        shown = {c["card"] for c in hand["hold_scene"]["cards"] if c["face_up"]}
        assert shown == set(cards)
    # a held frame in the video is the rendered scene (labels line up with the video's pixels)
    hand = truth["hands"][0]
    cap.set(cv2.CAP_PROP_POS_FRAMES, hand["phases"]["hold"][0] + 2)
    ok, frame = cap.read()
    assert ok
    for card in hand["hold_scene"]["cards"][:13]:
        for x1, y1, x2, y2 in card["corners"]:
            paper, ink = _ink_share(frame[int(y1):int(np.ceil(y2)), int(x1):int(np.ceil(x2))])
            assert ink > 0.05, card["card"]


def test_forced_split_puts_whole_families_where_asked_and_the_rest_in_train():
    decks = list_decks()
    split = split_decks(decks, 0, forced={"val": ["kenney"], "test": ["jeux-v2"]})
    assert "kenney" in split["val"] and "jeux-v2" in split["test"]
    kennard = [d for d in decks if deck_info(d).get("family") == "kennard"]
    assert set(kennard) <= set(split["train"])
    assert sorted(split["train"] + split["val"] + split["test"]) == sorted(decks)


def test_cork_and_cardboard_surfaces_are_brown_grainy_and_only_drawn_when_asked():
    """The held-out real deals the issue names lie on cork and cardboard: both surfaces are kraft / cork brown
    (red over green over blue), textured, the same for a seed; `auto` (every set made before them) never draws
    them, and an unknown surface is refused by name."""
    from kiosk_lab.synth import backgrounds

    for kind in ("cork", "cardboard"):
        a = backgrounds.surface(np.random.default_rng(5), (270, 480), kind)
        assert np.array_equal(a, backgrounds.surface(np.random.default_rng(5), (270, 480), kind))
        b, g, r = a.reshape(-1, 3).mean(axis=0)
        assert r > g > b and r > 120 and a.std() > 8
    felt = backgrounds.surface(np.random.default_rng(5), (270, 480), "felt", colour=FELT)
    assert felt.reshape(-1, 3).mean(axis=0)[1] > felt.reshape(-1, 3).mean(axis=0)[2]
    cork_mean = backgrounds.cork(np.random.default_rng(1), (60, 60)).reshape(-1, 3).mean(axis=0)
    for seed in range(40):  # auto picks felt, wood, cloth or texture: none of them cork's colour and grain
        auto = backgrounds.surface(np.random.default_rng(seed), (60, 60)).astype(np.float32)
        assert not np.allclose(auto.reshape(-1, 3).mean(axis=0), cork_mean, atol=1.0)
    with pytest.raises(ValueError, match="cork, cardboard"):
        backgrounds.surface(np.random.default_rng(0), (10, 10), "marble")


def test_a_set_built_on_cork_lays_the_cards_of_the_same_seed_on_another_surface(tmp_path):
    kw = dict(seed=4, out_root=tmp_path, workers=1, mix={"showdown": 1.0}, size=(640, 360), log=lambda m: None)
    build("felt", {"train": 1, "val": 0, "test": 0}, **kw)
    meta = build("cork", {"train": 1, "val": 0, "test": 0}, camera={"background": "cork"}, **kw)
    assert meta["camera"] == {"background": "cork"}
    scenes = [json.loads(next((tmp_path / n / "scenes" / "train").glob("*.json")).read_text())
              for n in ("felt", "cork")]
    assert [c["card"] for c in scenes[0]["cards"]] == [c["card"] for c in scenes[1]["cards"]]
    assert [c["polygon"] for c in scenes[0]["cards"]] == [c["polygon"] for c in scenes[1]["cards"]]
    images = [cv2.imread(str(next((tmp_path / n / "images" / "train").glob("*.jpg")))) for n in ("felt", "cork")]
    corner = [im[:20, :20].reshape(-1, 3).mean(axis=0) for im in images]  # felt or cork, if no card lies there
    assert not np.allclose(corner[0], corner[1], atol=10)
