"""The client against the real `ptc` (env PTC_BIN, default target/release/ptc of this checkout):
every bundled recording through every strategy the binary loads, prefix by prefix, and the
errors a caller can make."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest

from ptc_client import BadRequestValue, Ptc, PtcError, RenderError, ServerExited

REPO = Path(__file__).resolve().parents[3]
RECORDINGS = sorted((REPO / "examples" / "recordings").glob("*.json"))


def binary() -> Path:
    path = Path(os.environ.get("PTC_BIN", REPO / "target" / "release" / "ptc"))
    if not path.is_file():
        pytest.fail(f"no ptc binary at {path}: build it (cargo build --release) or set PTC_BIN")
    return path


@pytest.fixture(scope="session")
def ptc(tmp_path_factory):
    # A working directory of its own: no ./ptc.toml or ./templates but the compiled-in ones.
    with Ptc(binary(), cwd=tmp_path_factory.mktemp("cwd")) as client:
        yield client


def bundled() -> set[str]:
    """The bundled strategies: the folders of plugins/ whose crate is a cdylib."""
    return {
        d.name
        for d in (REPO / "plugins").iterdir()
        if (d / "Cargo.toml").is_file() and '"cdylib"' in (d / "Cargo.toml").read_text()
    }


@pytest.fixture(scope="session")
def strategies(ptc):
    # Only the bundled ones: `cargo test` also builds test plugins next to the binary, with
    # prompts of their own.
    names = [s["name"] for s in ptc.strategies() if s["name"] in bundled()]
    assert sorted(names) == sorted(bundled()), names
    return names


def load(path: Path) -> dict:
    with path.open(encoding="utf-8") as f:
        return json.load(f)


def prompt_text(response: dict) -> str:
    """The text of every message after the system prompt."""
    return "\n".join(m["content"] for m in response["messages"][1:])


def test_the_bundled_corpus_is_there():
    assert len(RECORDINGS) >= 30, RECORDINGS


@pytest.mark.parametrize("path", RECORDINGS, ids=lambda p: p.name)
def test_every_strategy_renders_every_prefix_of_every_recording(ptc, strategies, path):
    recording = load(path)
    recorded = len(recording["turns"])
    max_turns = recording["max_turns"]
    # The mission as written up to its first placeholder (the prompt shows it filled in).
    mission = recording["mission"].split("{{")[0].strip()[:80]
    for strategy in strategies:
        for turns in range(recorded + 1):
            response = ptc.render(recording, strategy=strategy, turns=turns)
            what = f"{path.name} {strategy} turns={turns}"
            assert response["strategy"] == strategy, what
            assert response["turns"] == turns, what
            assert response["stats"]["turns_compressed"] <= turns, what
            roles = [m["role"] for m in response["messages"]]
            assert roles[0] == "system" and "user" in roles, (what, roles)
            assert set(roles) <= {"system", "user", "assistant"}, (what, roles)
            text = prompt_text(response)
            assert mission in text, (what, mission)
            # The turns left, as each strategy words it, at the end of the prompt; the last
            # one may be a final-turn warning instead.
            last = response["messages"][-1]["content"]
            shown = [f"Turns left: {max_turns - turns}", f"Turn {turns + 1} of {max_turns}"]
            if max_turns - turns <= 1:
                shown.append("FINAL TURN - you must call (return result) or (fail reason) now.")
            assert any(s in last for s in shown), (what, shown, last[-300:])


def test_a_recording_is_given_as_a_dict_a_path_or_a_string(ptc):
    path = REPO / "examples" / "recordings" / "tool-actions.json"
    by_dict = ptc.render(load(path), turns=2)
    assert ptc.render(path, turns=2)["messages"] == by_dict["messages"]
    assert ptc.render(str(path), turns=2)["messages"] == by_dict["messages"]
    # The default strategy, and all the turns when none is given.
    assert by_dict["strategy"] == "single-user-coalesced"
    assert ptc.render(path)["turns"] == len(load(path)["turns"])


def test_options_reach_the_strategy(ptc):
    recording = load(REPO / "examples" / "recordings" / "failure-recovery.json")
    coalesced = ptc.render(recording, turns=2)
    # A window of 0 turns coalesces all of them, as single-user-coalesced does.
    window0 = ptc.render(recording, turns=2, strategy="rolling-window", options={"window": 0})
    assert window0["messages"] == coalesced["messages"]
    window2 = ptc.render(recording, turns=2, strategy="rolling-window", options={"window": 2})
    assert len(window2["messages"]) > len(window0["messages"])


def test_request_bodies(ptc):
    recording = load(REPO / "examples" / "recordings" / "failure-recovery.json")
    anthropic = ptc.render(recording, turns=1, strategy="delta-log", format="anthropic", cache_ttl="1h")
    body = anthropic["request"]
    assert body["model"] == "claude-sonnet-4-5" and body["max_tokens"] == 4096
    marks = [b["cache_control"] for m in body["messages"] for b in m["content"] if "cache_control" in b]
    assert marks and all(m == {"type": "ephemeral", "ttl": "1h"} for m in marks), marks
    openai = ptc.render(recording, turns=1, format="openai", model="gpt-x", max_tokens=100)
    assert openai["request"]["model"] == "gpt-x"
    assert openai["request"]["max_completion_tokens"] == 100
    messages = ptc.render(recording, turns=1)["messages"]
    assert [m["content"] for m in openai["request"]["messages"]] == [m["content"] for m in messages]


def test_an_unknown_strategy_raises_with_a_suggestion(ptc):
    recording = load(REPO / "examples" / "recordings" / "single-shot.json")
    with pytest.raises(RenderError) as raised:
        ptc.render(recording, strategy="delta-lgo")
    assert raised.value.code == "unknown_strategy"
    assert "did you mean `delta-log`?" in raised.value.message
    assert str(raised.value).startswith("unknown_strategy: unknown strategy `delta-lgo`")


def test_bad_requests_raise_and_the_server_goes_on(ptc):
    recording = load(REPO / "examples" / "recordings" / "single-shot.json")
    with pytest.raises(RenderError) as raised:
        ptc.render({"max_turns": 3, "turns": []})
    assert raised.value.code == "bad_recording"
    assert "missing field `mission`" in raised.value.message
    with pytest.raises(RenderError) as raised:
        ptc.render(recording, turns=99)
    assert raised.value.code == "bad_request"
    assert re.search(r"more than the 1 turn\(s\) recorded", raised.value.message)
    with pytest.raises(RenderError) as raised:
        ptc.render(recording, format="yaml")
    assert raised.value.code == "bad_request" and '"format"' in raised.value.message
    with pytest.raises(RenderError) as raised:
        ptc.render(recording, cache_ttl="1h", format="openai")
    assert raised.value.code == "bad_request"
    # Still answering.
    assert ptc.render(recording)["turns"] == 1


def test_a_recording_file_that_cannot_be_read_raises_before_sending(ptc, tmp_path):
    with pytest.raises(PtcError, match="cannot read recording .*missing.json"):
        ptc.render(tmp_path / "missing.json")
    broken = tmp_path / "broken.json"
    broken.write_text("{", encoding="utf-8")
    with pytest.raises(PtcError, match="broken.json is not JSON"):
        ptc.render(broken)


def test_a_server_that_cannot_start_raises_with_its_error(tmp_path):
    with Ptc(binary(), config=tmp_path / "nope.toml", cwd=tmp_path) as client:
        with pytest.raises(ServerExited) as raised:
            client.render({"mission": "m", "turns": []})
    assert raised.value.returncode == 2
    assert "cannot read configuration" in str(raised.value) and "nope.toml" in str(raised.value)
    with pytest.raises(ServerExited, match="cannot start"):
        Ptc(tmp_path / "no-such-ptc")


def test_closing_ends_the_server(tmp_path):
    client = Ptc(binary(), cwd=tmp_path)
    assert client.render({"mission": "Count", "turns": []})["turns"] == 0
    assert client.close() == 0
    with pytest.raises(ServerExited, match="closed"):
        client.render({"mission": "Count", "turns": []})
    with Ptc(binary(), cwd=tmp_path) as inside:
        inside.render({"mission": "Count", "turns": []})
    assert inside._process.poll() == 0


def test_a_value_json_or_utf8_cannot_carry_raises_naming_its_field(ptc):
    recording = load(REPO / "examples" / "recordings" / "single-shot.json")
    nan = json.loads(json.dumps(recording))
    nan["turns"][0]["result"] = float("nan")
    cases = [
        (lambda: ptc.render(nan), "recording.turns[0].result", "nan is not a number"),
        (
            lambda: ptc.render(recording, strategy="rolling-window", options={"window": float("inf")}),
            "options.window",
            "inf is not a number",
        ),
        (
            lambda: ptc.render({**recording, "mission": "a\ud800b"}),
            "recording.mission",
            "lone surrogate (U+D800 at character 1)",
        ),
        (
            lambda: ptc.render(recording, options={"x\udfff": 1}),
            "options.x\udfff (the key)",
            "lone surrogate (U+DFFF",
        ),
    ]
    for send, field, reason in cases:
        with pytest.raises(BadRequestValue) as raised:
            send()
        assert raised.value.field == field
        assert reason in raised.value.reason
        assert isinstance(raised.value, PtcError) and isinstance(raised.value, ValueError)
        assert str(raised.value).startswith(f"cannot send the request: {field}: ")
    # Nothing was sent: the server answers the next request.
    assert ptc.render(recording)["turns"] == 1


def test_deep_or_circular_input_raises_the_clients_error_naming_where():
    from ptc_client import _encode

    deep: list = []
    inner = deep
    for _ in range(100_000):
        inner.append([])
        inner = inner[0]
    circular: dict = {"turns": []}
    circular["turns"].append({"result": circular})
    cases = [
        ({"recording": {"data": deep}}, "recording.data[0]", "nested deeper than the 137 levels"),
        ({"recording": circular}, "recording.turns[0].result", "it holds itself"),
    ]
    for request, field, reason in cases:
        with pytest.raises(BadRequestValue) as raised:
            _encode(request)
        assert raised.value.field.startswith(field)
        assert reason in raised.value.reason
    # As deep as ptc reads is sent.
    ok: list = []
    inner = ok
    for _ in range(130):
        inner.append([])
        inner = inner[0]
    assert _encode({"recording": {"data": ok}}).endswith(b"\n")
