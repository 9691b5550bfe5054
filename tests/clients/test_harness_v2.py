"""Protocol v2: the harness declares the request features its library can express, the kit
draws only cases it can ask for, tells it the request, and the server checks the request."""
from __future__ import annotations

import ast
import sys
import textwrap
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings

from mcs_conformance.clients import ClientRunner, HarnessCaseError, error_streams, streams
from mcs_conformance.clients._harness import harness_client, schema_errors
from mcs_conformance.clients._runner import quirks_for
from mcs_conformance.clients.reference_client import reference_client
from mcs_conformance.targets import ClientTarget, HarnessTarget
from mcs_reference.calls import ExtractedCall
from mcs_conformance.wires import (ALWAYS_ASKED, PROGRAMMATIC_BETA, QUIRKS, Case, QUIRK_FEATURES,
                                   SERVER_PROFILES, case_request, get_wire,
                                   request_mismatch)

ROOT = Path(__file__).resolve().parents[2]
FEW = settings(max_examples=60, database=None, deadline=None,
               suppress_health_check=list(HealthCheck))
MANY = settings(FEW, max_examples=300)
GATED = frozenset({"n-choices", "usage-only-chunk", "moderation-chunk"})  # a user's selection

# A v2 harness whose request is the reference's, asking what it is told, except what its
# first argument says it forgets: "n", "tools", or nothing ("honest").
FAKE = textwrap.dedent('''
    import json, sys
    from mcs_conformance.clients.reference_client import reference_client
    forget = sys.argv[1]
    for line in sys.stdin:
        msg = json.loads(line)
        if msg["cmd"] == "start":
            print(json.dumps({"ready": True, "version": 2, "implementation": {
                "name": "fake-v2", "language": "python", "version": "1", "homepage": "",
                "wires": ["openai-chat"]}, "features": {"openai-chat": sys.argv[2:]}}), flush=True)
        elif msg["cmd"] == "run":
            request = dict(msg["request"])
            if forget == "tools":
                request["tools"] = []
            request.pop(forget, None)
            outcome = reference_client(msg["base_url"], msg["wire"], request)
            print(json.dumps({"seq": msg["seq"], "outcome": outcome}), flush=True)
        elif msg["cmd"] == "stop":
            break
''')


@pytest.fixture(scope="module")
def fake(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("fake") / "fake_v2.py"
    path.write_text(FAKE)
    return path


def harness(fake: Path, forget: str, *features: str) -> HarnessTarget:
    return HarnessTarget(" ".join([sys.executable, str(fake), forget, *features]))


def test_v2_lines_are_validated_both_ways():
    ready = {"ready": True, "version": 2, "features": {"openai-chat": ["n"]},
             "implementation": {"name": "x", "language": "python", "version": "1",
                                "homepage": "", "wires": ["openai-chat"]}}
    assert schema_errors(ready, "ready", 2) == []
    assert schema_errors({**ready, "features": {"openai-chat": ["n", "teleport"]}}, "ready", 2) != []
    no_features = {key: value for key, value in ready.items() if key != "features"}
    assert schema_errors(no_features, "ready", 2) == ["<root>: 'features' is a required property"]
    run = {"cmd": "run", "seq": 1, "wire": "openai-chat", "base_url": "http://127.0.0.1:9/case/1/",
           "request": {"tools": [{"name": "f", "description": "", "parameters": {}}], "n": 2}}
    assert schema_errors(run, "run", 2) == []
    assert schema_errors({**run, "request": {"tools": [], "n": 1}}, "run", 2) == [
        "request/n: 1 is less than the minimum of 2"]
    assert schema_errors({"cmd": "start", "version": 1}, "start", 2) == []  # v1's start line


def test_a_v2_harness_is_told_its_features_and_speaks_v2(fake):
    with harness_client(f"{sys.executable} {fake} honest n", timeout=10) as client:
        assert client.version == 2
        assert client.features == {"openai-chat": frozenset({"n"})}


@pytest.mark.parametrize("features", [(), ("include_usage",), ("n", "include_usage")])
def test_quirks_needing_an_undeclared_feature_are_never_drawn(features):
    assert not quirks_for(None, frozenset(features)) & {
        name for name, feature in QUIRK_FEATURES.items()
        if feature not in frozenset(features) | ALWAYS_ASKED.get(QUIRKS[name].wire, frozenset())}
    assert "max-tokens-open-call" in quirks_for(None, frozenset(features))  # every request
    quirks = quirks_for(GATED, frozenset(features))
    drawn = []

    @MANY
    @given(streams("openai-chat", quirks))
    def draw(served):
        drawn.append(served.quirks)
        assert "n-choices" not in served.quirks or "n" in features
        assert "usage-only-chunk" not in served.quirks or "include_usage" in features
        assert case_request(served.case).get("n", 1) == 1 or "n" in features

    draw()
    assert len(drawn) >= 200


def test_without_thinking_no_thinking_block_and_no_programmatic_call_is_drawn():
    quirks = quirks_for(None, frozenset())

    @FEW
    @given(streams("anthropic-messages", quirks))
    def draw(served):
        request = case_request(served.case)
        assert "thinking" not in request and "betas" not in request, (request, served.quirks)
        kinds = {block["type"] for block in served.case.message["content"]}
        assert not kinds & {"thinking", "redacted_thinking"}

    draw()


def test_a_plain_selection_still_draws_what_needs_a_feature():
    """The exclusion is what removes them: without it, the same generator draws them."""
    seen = set()

    @MANY
    @given(streams("openai-chat", GATED))
    def draw(served):
        seen.update(served.quirks)

    draw()
    assert {"n-choices", "usage-only-chunk"} <= seen


def test_the_v2_reference_passes_its_cases_with_every_feature(fake):
    runner = ClientRunner(harness(fake, "honest", "n", "include_usage"), "openai-chat")
    try:
        assert runner.features == frozenset({"n", "include_usage"})
        ran = []

        @FEW
        @given(streams("openai-chat", runner.quirks, min_calls=1))
        def run(served):
            outcome = runner.run(served)
            assert outcome["error"] is None, outcome
            ran.append(len(case_request(served.case).get("tools", [])))

        run()
        assert ran and min(ran) >= 1
    finally:
        runner.close()


@pytest.mark.parametrize("forget, message", [
    ("n", r"the request asked n=1 \(or no n\); the case needs n=[23]"),
    ("tools", r"the request declared no tool named .*\(it declared: none\); the case calls it"),
])
def test_a_request_lacking_what_the_case_needs_errors_the_case(fake, forget, message):
    # OpenAI's own server profile draws n > 1 in most cases: among every quirk, a run of
    # FEW examples could draw none and leave the n case with nothing to check
    runner = ClientRunner(harness(fake, forget, "n", "include_usage"), "openai-chat",
                          quirks=SERVER_PROFILES["openai"].selection)
    errors = []
    try:
        @FEW
        @given(streams("openai-chat", runner.quirks, min_calls=1))
        def run(served):
            needs = case_request(served.case)
            if forget == "n" and "n" not in needs:
                return
            with pytest.raises(HarnessCaseError, match=message) as caught:
                runner.run(served)
            errors.append(str(caught.value))

        run()
    finally:
        runner.close()
    assert errors and all("the server answered HTTP 400" in error for error in errors)


def test_a_stream_cut_by_an_error_needs_as_many_choices_as_it_streams():
    """An error case has no whole response: its choices are counted in its chunks."""
    @FEW
    @given(error_streams("openai-chat", frozenset({"n-choices"})))
    def draw(served):
        indexes = {choice["index"] for chunk in served.case.chunks
                   for choice in chunk.get("choices") or ()}
        request = case_request(served.case)
        assert request.get("n", 1) == max(indexes, default=0) + 1
        assert all(tool["name"] for tool in request["tools"])  # a call cut before its name

    draw()


def test_a_call_cut_before_its_name_declares_no_nameless_tool():
    """Quirk split-id-then-name: a provider error after the id, before the name."""
    chunks = [{"choices": [{"index": 0, "delta": {"tool_calls": [
        {"index": 0, "id": "call_1", "type": "function"}]}}]}]
    case = Case(wire="openai-chat", message={"role": "assistant", "content": None},
                chunks=chunks, done_at=0, calls=[ExtractedCall(name="", id="call_1")],
                text="", error={"message": "boom"}, error_at=1)
    assert case_request(case) == {"tools": []}
    named = Case(**{**vars(case), "calls": [ExtractedCall(name="f", id="call_1")]})
    assert [tool["name"] for tool in case_request(named)["tools"]] == ["f"]


def test_the_check_reads_the_body_and_the_headers():
    needed = {"tools": [{"name": "f", "description": "", "parameters": {}}], "n": 2,
              "include_usage": True}
    body = {"tools": [{"type": "function", "function": {"name": "f"}}], "n": 2,
            "stream_options": {"include_usage": True}}
    assert request_mismatch("openai-chat", needed, body, {}) is None
    assert "include_usage" in request_mismatch("openai-chat", needed, {**body, "stream_options": {}}, {})
    assert request_mismatch("openai-chat", needed, {**body, "n": 3}, {}) == \
        "the request asked n=3; the case needs n=2"
    beta = {"tools": [], "betas": [PROGRAMMATIC_BETA], "thinking": {"budget_tokens": 9}}
    thinking = {"thinking": {"type": "enabled", "budget_tokens": 9}}
    assert request_mismatch("anthropic-messages", beta, thinking,
                            {"anthropic-beta": f"x, {PROGRAMMATIC_BETA}"}) is None
    assert PROGRAMMATIC_BETA in request_mismatch("anthropic-messages", beta, thinking, {})
    assert "thinking" in request_mismatch("anthropic-messages", beta, {},
                                          {"anthropic-beta": PROGRAMMATIC_BETA})


def test_a_v1_harness_gets_v1_lines_and_no_check():
    command = f"{sys.executable} {ROOT / 'harnesses' / 'python-reference' / 'harness.py'}"
    runner = ClientRunner(HarnessTarget(command), "openai-chat")
    try:
        assert runner.features is None and runner.quirks is None  # today's behaviour

        @settings(max_examples=5, database=None, deadline=None,
                  suppress_health_check=list(HealthCheck))
        @given(streams("openai-chat", runner.quirks, min_calls=1))
        def run(served):
            assert runner.run(served)["calls"]  # no tool declared, no 400

        run()
    finally:
        runner.close()


def test_a_python_client_taking_request_is_told_and_one_without_is_not():
    assert ClientRunner(ClientTarget("ref", reference_client), "openai-chat").features is not None
    two = ClientTarget("two", lambda base_url, wire: reference_client(base_url, wire))
    assert ClientRunner(two, "openai-chat").features is None


def test_pydantic_ai_declares_no_n():
    tree = ast.parse((ROOT / "peers" / "pydantic-ai" / "harness.py").read_text())
    features = next(ast.literal_eval(node.value) for node in tree.body
                    if isinstance(node, ast.Assign) and node.targets[0].id == "FEATURES")
    assert "n" not in features["openai-chat"]
    assert "n-choices" not in quirks_for(None, frozenset(features["openai-chat"]))


def test_a_server_profile_stays_often_for_a_client_that_cannot_ask_for_n():
    """pydantic-ai against the `openai` profile: no n-choices, the rest still drawn often."""
    from mcs_conformance.wires import OftenQuirks, SERVER_PROFILES, drawable_quirks

    chosen = drawable_quirks(SERVER_PROFILES["openai"].selection, {"tools", "include_usage"})
    assert isinstance(chosen, OftenQuirks) and chosen.features == {"tools", "include_usage"}
    assert "n-choices" not in chosen and "usage-only-chunk" in chosen
