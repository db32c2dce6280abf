"""`kiosk analyze` as a user runs it: an image, a folder of photos, a video; JSON and text; errors.

Readings come from saved detections (`--detections`, the JSON of `kiosk detect --json`)
made from the rendered scenes' ground truth, so these tests pin the table stages and the
command; tests/test_pipeline_e2e.py runs the same command with the real card reader.
"""

from __future__ import annotations

import json

import cv2
import pytest

from kiosk.cli import main
from kiosk.rules.api import score_json
from kiosk_lab.groundtruth import Noise, detections_from_scene, set_hands, shuffled_deck

from test_stabilizer import expected_showdown, seat, table


def saved(scenes, noise=None) -> list[dict]:
    out = []
    for i, scene in enumerate(scenes):
        d = detections_from_scene(scene, i, noise=noise)
        out.append({
            "image": f"frame {i}", "frame": i,
            "cards": [{**c.to_json(), "corners": [list(b) for b in c.corners],
                       "alternatives": [[str(a), p] for a, p in c.alternatives]} for c in d.cards],
        })
    return out


@pytest.fixture(scope="module")
def full():
    return table(*(seat(n) for n in (1, 2, 3, 4)))


def run_json(args, capsys) -> tuple[int, list]:
    code = main(["analyze", *args, "--json"])
    out = capsys.readouterr().out
    return code, json.loads(out)


def test_single_photo_is_one_hand(tmp_path, capsys, full):
    photo = tmp_path / "table.png"
    cv2.imwrite(str(photo), full.image)
    dets = tmp_path / "dets.json"
    dets.write_text(json.dumps(saved([full.scene])))
    code, hands = run_json([str(photo), "--detections", str(dets)], capsys)
    assert code == 0 and len(hands) == 1
    [hand] = hands
    assert hand["showdown"] == expected_showdown()
    assert hand["result"] == score_json(expected_showdown())  # exactly what `kiosk score` says of it
    assert hand["needs_check"] == [] and hand["confident"] is True


def test_folder_of_photos_is_one_table_over_time_until_the_deal_changes(tmp_path, capsys, full):
    other = {n: {r: " ".join(cards) for r, cards in rows.items()} for n, rows in set_hands(shuffled_deck(5)).items()}
    second = table(*(seat(n, other) for n in (1, 2, 3, 4)), seed=9)
    folder = tmp_path / "photos"
    folder.mkdir()
    scenes = [full, full, full, second, second, second]
    for i, r in enumerate(scenes):
        cv2.imwrite(str(folder / f"img_{i:02d}.jpg"), r.image)
    dets = tmp_path / "dets.json"
    dets.write_text(json.dumps(saved([r.scene for r in scenes], Noise(drop=0.1))))
    code, hands = run_json([str(folder), "--detections", str(dets)], capsys)
    assert [h["showdown"] for h in hands] == [expected_showdown(), expected_showdown(other)]
    assert code == 0


def test_video_file_and_text_report(tmp_path, capsys, full):
    video = tmp_path / "hand.mp4"
    writer = cv2.VideoWriter(str(video), cv2.VideoWriter_fourcc(*"mp4v"), 5, (1920, 1080))
    for _ in range(8):
        writer.write(full.image)
    writer.release()
    dets = tmp_path / "dets.json"
    dets.write_text(json.dumps(saved([full.scene] * 8, Noise(drop=0.1))))
    assert main(["analyze", str(video), "--detections", str(dets)]) == 0
    text = capsys.readouterr().out
    assert text.startswith("Hand 1 (")
    assert "seat 2: front Qs Qd 4h | middle 8s 8d Ac Kc 2d | back 9s 9c 9d 3h 3c  -> fouled" in text
    assert "pays seat" in text


def test_doubtful_card_is_reported_and_exit_code_is_1(tmp_path, capsys):
    from kiosk_lab.synth.table import SeatLayout

    dead4 = table(seat(1), seat(2), seat(3), SeatLayout(4, dead=True))
    photo = tmp_path / "table.png"
    cv2.imwrite(str(photo), dead4.image)
    dets = tmp_path / "dets.json"
    dets.write_text(json.dumps(saved([dead4.scene], Noise(swaps={"Kh": ("Qh", 0.5)}))))
    cfg = tmp_path / "table.yaml"
    cfg.write_text("game:\n  dead: [4]\n")
    code, [hand] = run_json([str(photo), "--detections", str(dets), "--config", str(cfg)], capsys)
    assert code == 1
    assert hand["confident"] is False and hand["result"]["error"].startswith("not scored: seat 1: card at back 2")
    assert hand["needs_check"] == [{"seat": 1, "card": "Qh",
                                    "reason": "card at back 2 read as Qh or Kh (confidence 0.50, 1 of 1 frames)"}]
    assert hand["showdown"]["seats"][3] == {"seat": 4, "dead": True}


def test_user_mistakes_are_one_line_errors(tmp_path, capsys):
    assert main(["analyze", str(tmp_path / "missing.mp4")]) == 2
    assert "no such file or folder" in capsys.readouterr().err
    bad = tmp_path / "broken.png"
    bad.write_bytes(b"nope")
    assert main(["analyze", str(bad), "--detections", str(bad)]) == 2
    assert "cannot read image" in capsys.readouterr().err
    cfg = tmp_path / "t.yaml"
    cfg.write_text("game:\n  button: 0\n")
    good = tmp_path / "ok.png"
    cv2.imwrite(str(good), full_image_small())
    assert main(["analyze", str(good), "--config", str(cfg)]) == 2
    err = capsys.readouterr().err
    assert "line 2: game.button" in err and "Traceback" not in err


def full_image_small():
    import numpy as np

    return np.zeros((10, 10, 3), np.uint8)


def test_a_still_table_under_its_verdict_is_not_read_again_and_the_verdicts_stay_the_same(tmp_path, full):
    """Two hands, each held still long after its verdict: `kiosk analyze` skips those frames (no reader call),
    and every verdict, frame and reason is what reading every frame gives."""
    from kiosk.commands.analyze import SavedReader, hand_json
    from kiosk.table.config import load_config
    from kiosk.table.runner import TableRunner
    from kiosk.table.sources import open_source

    from test_stabilizer import empty_felt

    other = {n: {r: " ".join(cards) for r, cards in rows.items()} for n, rows in set_hands(shuffled_deck(5)).items()}
    second = table(*(seat(n, other) for n in (1, 2, 3, 4)), seed=9)
    plan = [empty_felt()] * 3 + [full] * 12 + [empty_felt()] * 6 + [second] * 12 + [empty_felt()] * 4
    video = tmp_path / "two_hands.mp4"
    writer = cv2.VideoWriter(str(video), cv2.VideoWriter_fourcc(*"mp4v"), 5, (1920, 1080))
    for r in plan:
        writer.write(r.image)
    writer.release()
    entries = saved([r.scene for r in plan], Noise(drop=0.1))

    class Counting(SavedReader):
        calls = 0

        def read(self, image, *args, **kw):
            Counting.calls += 1
            return super().read(image, *args, **kw)

    got = {}
    for sample in (False, True):
        Counting.calls = 0
        source = open_source(video, realtime=False, loop=False)
        runner = TableRunner(load_config(None), source, Counting(entries, "dets"), sample_still=sample)
        hands = [hand_json(v) for v in runner.run_to_end()]
        got[sample] = ([{k: v for k, v in h.items() if k != "hand_id"} for h in hands], Counting.calls)
    (every, read_every), (sampled, read_sampled) = got[False], got[True]
    assert [h["showdown"] for h in every] == [expected_showdown(), expected_showdown(other)]
    assert sampled == every
    assert read_every == len(plan) and read_sampled <= len(plan) - 8, (read_every, read_sampled)
