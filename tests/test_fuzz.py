"""Property/fuzz tests (issue 67): generated showdown JSON, config YAML, dealer actions and
image/video files are answered with a result or a clear error, never a traceback.

Bounded for CI (a few hundred examples each, about a minute or two in all on 2 cores); the long
run is `kiosk bench fuzz --count 1000000` (docs/benchmarks.md).
"""

from __future__ import annotations

import json
import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kiosk.commands.score import dumps_result, score_one
from kiosk.errors import KioskError
from kiosk_lab.bench.rules import random_showdown
from kiosk_lab.bench.fuzz import check_object, check_text, mutate, mutate_text
from kiosk.table.actions import ActionError, parse_action

BASES = [random_showdown(random.Random(seed)) for seed in range(20)]
FUZZ = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])

numbers = st.one_of(
    st.integers(min_value=-(10**40), max_value=10**40), st.floats(allow_nan=True, allow_infinity=True),
    st.sampled_from([10**4299, 1e-300, 0.001, 10**12, 10**12 + 1, -0.0]),
)
scalars = st.one_of(st.none(), st.booleans(), numbers, st.text(max_size=20),
                    st.sampled_from(["As", "Td", "10h", "Jk", "Xx", "mandarin", "capsa", "dragon"]))
json_values = st.recursive(scalars, lambda inner: st.one_of(
    st.lists(inner, max_size=6), st.dictionaries(st.text(max_size=8), inner, max_size=6)), max_leaves=30)
showdown_keys = st.sampled_from(["id", "profile", "button", "stake", "pair_stakes", "seats", "game", "midle"])
seat_keys = st.sampled_from(["seat", "dead", "declared_natural", "cards", "front", "middle", "back", "stack"])


@st.composite
def edited_showdowns(draw):
    """A real showdown with some of its fields replaced by generated JSON values."""
    showdown = json.loads(json.dumps(draw(st.sampled_from(BASES))))
    for _ in range(draw(st.integers(1, 4))):
        if draw(st.booleans()):
            showdown[draw(showdown_keys)] = draw(json_values)
        else:
            seat = draw(st.sampled_from(showdown["seats"])) if isinstance(showdown.get("seats"), list) and \
                showdown["seats"] and isinstance(showdown["seats"][0], dict) else None
            if isinstance(seat, dict):
                seat[draw(seat_keys)] = draw(json_values)
    return showdown


@pytest.mark.slow
@FUZZ
@given(edited_showdowns())
def test_any_edited_showdown_is_scored_or_refused_with_a_sentence(showdown):
    assert check_object(showdown) in ("scored", "refused")


@pytest.mark.slow
@FUZZ
@given(json_values)
def test_any_json_value_as_a_showdown_is_refused_or_scored(value):
    result = score_one(value)
    assert isinstance(result, dict)
    json.loads(dumps_result(result, pretty=True))


@pytest.mark.slow
@FUZZ
@given(st.integers(0, 10**9))
def test_the_fuzz_commands_mutations_never_escape(seed):
    rng = random.Random(seed)
    base = BASES[seed % len(BASES)]
    check_object(mutate(base, rng))
    check_text(mutate_text(json.dumps(base), rng))


# ---------------------------------------------------------------- config YAML

config_sections = st.fixed_dictionaries({}, optional={
    "table": st.dictionaries(st.sampled_from(["name", "seats"]), scalars, max_size=2),
    "game": st.dictionaries(st.sampled_from(["dead", "button", "stake", "profile"]), json_values, max_size=3),
    "web": st.dictionaries(st.sampled_from(["host", "port", "floor_pin_hash", "pin_attempts_per_minute"]),
                           scalars, max_size=3),
    "stabilizer": st.dictionaries(st.sampled_from(["min_confidence", "frames"]), scalars, max_size=2),
    "records": st.dictionaries(st.sampled_from(["retention_days", "disk_budget_mb", "enabled"]), scalars, max_size=2),
    "source": scalars,
    "camera": json_values,
})


@pytest.mark.slow
@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.one_of(config_sections.map(lambda d: __import__("yaml").safe_dump(d)),
                 st.text(max_size=200)))
def test_any_config_text_loads_or_names_the_problem(tmp_path, text):
    from kiosk.table.config import load_config

    path = tmp_path / "kiosk.yaml"
    path.write_text(text, encoding="utf-8", errors="surrogatepass")
    try:
        load_config(path)
    except KioskError as err:
        assert str(err) and "Traceback" not in str(err)


# ---------------------------------------------------------------- dealer actions

action_bodies = st.one_of(
    st.fixed_dictionaries({"kind": st.sampled_from(["declare_natural", "undeclare_natural", "move_button",
                                                    "set_dead", "set_stack", "set_stake", "new_hand"])},
                          optional={"seat": scalars, "value": scalars, "pair": json_values}),
    st.dictionaries(st.sampled_from(["kind", "seat", "value", "pair"]), json_values, max_size=4),
)


@pytest.mark.slow
@FUZZ
@given(action_bodies)
def test_any_action_body_is_a_typed_action_or_a_refusal(body):
    try:
        action = parse_action(body, 4)
    except ActionError as err:
        assert str(err)
        return
    record = action.record(at=1.0, hand_id="H1")
    assert record.kind == body["kind"]
    if record.seat is not None:
        assert isinstance(record.seat, int) and 1 <= record.seat <= 4


def test_actions_through_the_real_routes_never_answer_500(client, table):
    from test_web_routes import csrf_of

    token = csrf_of(client)
    rng = random.Random(67)
    hostile = [None, True, 1.9, "1.9", [1], {"a": 1}, 1e30, -1, "NaN", "1e400", 10**40, "", "x" * 1000]
    kinds = ["declare_natural", "move_button", "set_dead", "set_stack", "set_stake", "new_hand", ["new_hand"]]
    for _ in range(120):
        body = {"kind": rng.choice(kinds), "seat": rng.choice(hostile + [1, 2, 3, 4]),
                "value": rng.choice(hostile + [5, 0.5, True]), "pair": rng.choice(hostile + [[1, 2]])}
        resp = client.post("/action", json=body, headers={"X-CSRF-Token": token})
        assert resp.status_code in (200, 202, 400, 409), (body, resp.status_code, resp.get_data(as_text=True))


# ---------------------------------------------------------------- image and video files

@pytest.mark.slow
@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.binary(max_size=4000), st.sampled_from([".jpg", ".png", ".bmp", ".mp4", ".avi"]),
       st.sampled_from([b"", b"\x89PNG\r\n\x1a\n", b"\xff\xd8\xff\xe0", b"\x00\x00\x00\x18ftypisom", b"RIFF"]))
def test_any_file_is_read_or_named_as_unreadable(tmp_path, data, suffix, header):
    from kiosk.table.sources import open_source

    path = tmp_path / f"input{suffix}"
    path.write_bytes(header + data)
    try:
        for _ in open_source(path):
            pass
    except KioskError as err:
        assert err.exit_code == 2 and str(path) in str(err)


from test_web_routes import app, cfg, client, hub, rendered, table  # noqa: E402,F401  (fixtures)
