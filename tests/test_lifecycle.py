"""Hand lifecycle on rendered videos: waiting -> cards down -> opened -> verdict -> cleared -> next hand."""

from __future__ import annotations

from kiosk_lab.synth.table import SeatLayout, TableLayout, render_table
from kiosk.table.actions import DealerAction
from kiosk.table.config import KioskConfig, load_config
from kiosk_lab.groundtruth import Noise, play
from kiosk.table.hub import Hub
from kiosk.table.lifecycle import Lifecycle
from kiosk.table.runner import TableRunner
from kiosk.table.sources import Frame

from test_stabilizer import HANDS, expected_showdown, seat

DRAGON = "2c 3d 4h 5s 6c 7d 8h 9s Tc Jd Qh Ks Ad".split()  # 13 ranks: a Dragon (RULES §4)
OTHERS = {  # the other 39 cards (none of the Dragon's)
    1: {"front": "2s 3s 4s", "middle": "6s 7s 8s Ts Js", "back": "Qs As 2h 3h 5h"},
    3: {"front": "6h 7h 9h", "middle": "Th Jh Kh Ah 2d", "back": "4d 5d 6d 8d 9d"},
    4: {"front": "Td Qd Kd", "middle": "3c 4c 5c 7c 8c", "back": "9c Jc Qc Kc Ac"},
}

def render(*seats, seed=3):
    return render_table(TableLayout(tuple(seats)), "kennard-2c", seed)


def phases(events):
    return [e.data["phase"] for e in events if e.kind == "phase"]


def test_a_whole_hand_then_the_next_one():
    empty = render()
    down = render(*(seat(n, face_down=True) for n in (1, 2, 3, 4)))
    up = render(*(seat(n) for n in (1, 2, 3, 4)))
    other = {**HANDS, 1: {"front": "3d 2s 5c", "middle": "8c 8h Jd Js 4c", "back": "Ah Kh 9h 6h 2h"}}
    up2 = render(*(seat(n, other) for n in (1, 2, 3, 4)), seed=5)
    segments = [(empty, 5), (down, 10), (up, 15), (empty, 25), (down, 5), (up2, 15), (empty, 25)]
    runner, verdicts, events = play(load_config(None), segments, Noise(drop=0.1))
    assert phases(events) == [
        "cards_down", "opened", "verdict", "cleared", "waiting",
        "cards_down", "opened", "verdict", "cleared", "waiting",
    ]
    assert len(verdicts) == 2 and verdicts[0].hand_id != verdicts[1].hand_id
    assert verdicts[0].showdown == expected_showdown()
    assert verdicts[1].showdown == expected_showdown(other)
    # every phase event names its hand; the cleared one still the hand that ended
    hand_of = [(e.data["phase"], e.data["hand_id"]) for e in events if e.kind == "phase"]
    assert hand_of[3] == ("cleared", verdicts[0].hand_id)
    assert hand_of[5][1] == verdicts[1].hand_id


def test_verdict_comes_within_a_second_of_the_last_hand_opening():
    empty = render()
    down = render(*(seat(n, face_down=True) for n in (1, 2, 3, 4)))
    three_open = render(seat(1), seat(2), seat(3), seat(4, face_down=True))
    up = render(*(seat(n) for n in (1, 2, 3, 4)))
    fps = 10
    segments = [(empty, 3), (down, 5), (three_open, 10), (up, 20)]
    runner, verdicts, events = play(load_config(None), segments, Noise(drop=0.1), fps=fps)
    opened_at = (3 + 5 + 10) / fps
    decided = [e.data["verdict"] for e in events if e.kind == "verdict"][0]
    assert decided.meta["timestamp"] - opened_at <= 1.0
    assert phases(events)[:2] == ["cards_down", "opened"]  # seat 4 face down: no verdict before it opens


def test_natural_pile_is_declared_then_verified_once_spread():
    """A pile with its top card face up declares a natural (RULES §4); spread, it is verified: a Dragon."""
    others = [SeatLayout(n, **{r: tuple(OTHERS[n][r].split()) for r in ("front", "middle", "back")}) for n in (1, 3, 4)]
    down = [SeatLayout(n, face_down=True, **{r: tuple(OTHERS[n][r].split()) for r in ("front", "middle", "back")})
            for n in (1, 3, 4)]
    pile = SeatLayout(2, pile=tuple(DRAGON), face_down=True)
    spread = SeatLayout(2, pile=tuple(DRAGON))
    segments = [(render(), 3), (render(down[0], pile, *down[1:]), 10), (render(others[0], pile, *others[1:]), 10),
                (render(others[0], spread, *others[1:]), 15)]
    runner, verdicts, events = play(load_config(None), segments, Noise(drop=0.1))
    v = verdicts[-1]
    seat2 = v.showdown["seats"][1]
    assert seat2["declared_natural"] is True and sorted(seat2["cards"]) == sorted(DRAGON)
    assert v.confident
    result2 = v.result["seats"][1]
    assert result2["status"] == "natural" and result2["natural"] == "dragon"
    # before the spread there was no scored verdict: the pile is waited for
    assert all(e.data["verdict"].showdown["seats"][1].get("declared_natural") for e in events if e.kind == "verdict")


def test_dealer_declares_a_natural_that_is_not_one_false_declaration_fouls():
    """D-4: a declaration by the dealer that the cards do not support fouls the hand."""
    up = render(*(seat(n) for n in (1, 2, 3, 4)))
    hub = Hub()
    timeline = [up] * 12
    from kiosk_lab.groundtruth import SceneReader

    runner = TableRunner(load_config(None), None, SceneReader(lambda i: timeline[i].scene), hub)
    actions = []
    hub.subscribe(lambda e: actions.append(e.data) if e.kind == "action" else None)
    runner.apply(DealerAction("declare_natural", seat=1))
    for i, r in enumerate(timeline):
        runner.process(Frame(r.image, i, i / 10, "t"))
    v = runner.state.verdict
    assert v.showdown["seats"][0]["declared_natural"] is True
    assert v.result["seats"][0]["status"] == "fouled" and v.result["seats"][0]["foul"] == "false_natural"
    # withdrawn: the hand plays as set again, republished for the same hand
    runner.apply(DealerAction("undeclare_natural", seat=1))
    v2 = runner.state.verdict
    assert v2.hand_id == v.hand_id and v2.result["seats"][0]["status"] == "set"
    runner.apply(DealerAction("move_button", seat=9))
    assert actions[-1]["ok"] is False and "seat 9" in actions[-1]["message"]


def test_pile_seen_but_no_natural_is_a_dealer_check_not_a_foul():
    """Only the dealer's word can foul a false declaration; a pile the camera saw asks the dealer."""
    plain = HANDS[2]["front"].split() + HANDS[2]["middle"].split() + HANDS[2]["back"].split()
    segments = [(render(), 3), (render(seat(1), SeatLayout(2, pile=tuple(plain), face_down=True), seat(3), seat(4)), 10),
                (render(seat(1), SeatLayout(2, pile=tuple(plain)), seat(3), seat(4)), 15)]
    _, verdicts, _ = play(load_config(None), segments, Noise(drop=0.05))
    v = verdicts[-1]
    assert "error" in v.result and "fouled" not in str(v.result)
    assert any(c.seat == 2 and "no natural" in c.reason for c in v.needs_check)


def test_dealer_actions_change_stakes_button_and_dead_seats():
    up = render(*(seat(n) for n in (1, 2, 3, 4)))
    cfg = KioskConfig.model_validate({"game": {"button": 4, "stake": 5}})
    runner, verdicts, _ = play(cfg, [(up, 12)], Noise())
    assert verdicts[-1].showdown["stake"] == 5
    runner.apply(DealerAction("set_stake", value=10))
    runner.apply(DealerAction("set_stake", value=100, extra={"pair": [1, 2]}))
    runner.apply(DealerAction("move_button", seat=2))
    runner.apply(DealerAction("set_stack", seat=2, value=30))
    v = runner.state.verdict
    assert v.showdown["stake"] == 10 and v.showdown["button"] == 2
    assert v.showdown["pair_stakes"] == [{"seats": [1, 2], "stake": 100}]
    assert v.showdown["seats"][1]["stack"] == 30
    assert v.result["order"] == [3, 4, 1, 2]
    runner.apply(DealerAction("set_dead", seat=3, value=True))
    assert runner.state.verdict.showdown["seats"][2] == {"seat": 3, "dead": True}
    runner.apply(DealerAction("new_hand"))
    assert runner.state.verdict is None and runner.state.phase == "waiting"


def test_lifecycle_cards_down_swept_before_opening_starts_a_new_hand():
    lc = Lifecycle(clear_seconds=1.0)
    assert lc.step(0.0, busy=True, all_open=False, cards_gone=True) == ["cards_down"]
    assert lc.step(0.5, busy=False, all_open=False, cards_gone=True) == []
    assert lc.step(1.6, busy=False, all_open=False, cards_gone=True) == ["cleared", "waiting"]
    assert lc.hand_number == 2


def test_a_squared_face_down_pile_while_the_others_open_is_a_dead_seat():
    """RULES §5: a hand dealt to an empty seat lies there unplayed; no config needed to see it."""
    from test_stabilizer import seat as set_seat

    down = render(*(set_seat(n, face_down=True) for n in (1, 2, 3)), SeatLayout(4, dead=True))
    up = render(set_seat(1), set_seat(2), set_seat(3), SeatLayout(4, dead=True))
    runner, verdicts, events = play(load_config(None), [(render(), 3), (down, 8), (up, 15)], Noise(drop=0.1))
    v = verdicts[-1]
    assert v.showdown == expected_showdown(dead=(4,)) and v.confident
    assert v.meta["dead_seen"] == [4]
    # the dealer says seat 4 plays after all: no verdict until it opens (RULES §7: wait)
    runner.apply(DealerAction("set_dead", seat=4, value=False))
    assert runner.state.dead == ()


def test_a_player_whose_set_hand_is_still_face_down_is_waited_for_not_taken_as_dead():
    down = render(*(seat(n, face_down=True) for n in (1, 2, 3, 4)))
    three = render(seat(1), seat(2), seat(3), seat(4, face_down=True))
    _, verdicts, events = play(load_config(None), [(render(), 3), (down, 5), (three, 20)], Noise(drop=0.1))
    # while the video runs: no verdict (wait); at its end, what was seen, asking about seat 4
    assert [v.meta["final"] for v in verdicts] == [True] and not verdicts[0].confident
    assert [c.reason for c in verdicts[0].needs_check] == [
        "not open: 0 cards read (face down or unreadable; or mark the seat dead)"]
