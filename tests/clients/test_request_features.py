"""Only what a real server sends to that request: every shape tied to a request feature is
served only to a client declaring it, which is then told the request and checked.

Each tied shape is recognised here on its own (`TIED`), not through the kit's reader of a
case (`wires.case_request`), so that a shape the generators let through and the reader
misses still fails a test.
"""
from __future__ import annotations

import contextlib
import dataclasses
import json
import re
from pathlib import Path
from typing import Any, Callable, Iterator

import pytest
from hypothesis import HealthCheck, Phase, find, given, settings
from hypothesis.errors import NoSuchExample
from hypothesis import strategies as st

from mcs_conformance.clients import (ClientRunner, HarnessCaseError, error_streams,
                                     malformed_streams, prose_streams, reference_client, streams,
                                     truncated_streams)
from mcs_conformance.clients._harness import schema_errors
from mcs_conformance.clients.reference_client import request_body
from mcs_conformance.targets import ClientTarget
from mcs_conformance.wires import (ALWAYS_ASKED, CODE_EXECUTION_CALLER, FEATURES, NATIVE_WIRES,
                                   PROGRAMMATIC_BETA, QUIRKS, Requestable,
                                   case_features, case_request, request_mismatch)

ROOT = Path(__file__).resolve().parents[2]
QUICK = settings(max_examples=120, database=None, deadline=None,
                 suppress_health_check=list(HealthCheck))
FIRST = settings(max_examples=3000, database=None, deadline=None, phases=[Phase.generate],
                 derandomize=True, suppress_health_check=list(HealthCheck))


def _dicts(value: Any) -> Iterator[dict]:
    """Every JSON object inside `value`, itself first."""
    if isinstance(value, dict):
        yield value
        for inner in value.values():
            yield from _dicts(inner)
    elif isinstance(value, list):
        for inner in value:
            yield from _dicts(inner)


def _shown(case) -> list[dict]:
    return list(_dicts([case.chunks, case.message]))


def _typed(*types: str) -> Callable:
    return lambda case: any(d.get("type") in types for d in _shown(case))


def _keyed(key: str, *values: Any) -> Callable:
    return lambda case: any(d.get(key) in values for d in _shown(case))


def _server_tool(*names: str) -> Callable:
    return lambda case: any(d.get("type") == "server_tool_use" and d.get("name") in names
                            for d in _shown(case))


def _choices(case) -> list[dict]:
    return [c for chunk in case.chunks for c in chunk.get("choices") or ()]


#: wire -> feature -> whether a case holds one of the shapes only that feature's request gets.
TIED: dict[str, dict[str, Callable]] = {
    "openai-chat": {
        "n": lambda case: any(c.get("index") for c in _choices(case)),
        "include_usage": lambda case: any(chunk.get("choices") == [] and (
            chunk.get("usage") or chunk.get("moderation")) for chunk in case.chunks),
        "max_tokens": _keyed("finish_reason", "length"),
        "logprobs": lambda case: any(c.get("logprobs") is not None for c in _choices(case)),
        "web_search": lambda case: any((c.get("delta") or {}).get("annotations")
                                       for c in _choices(case)),
    },
    "openai-responses": {
        "custom_tools": _typed("custom_tool_call"),
        "computer_use": _typed("computer_call"),
        "local_shell": _typed("local_shell_call"),
        "shell": lambda case: any(d.get("type") == "shell_call" and "environment" not in d
                                  for d in _shown(case)),
        "hosted_shell": _typed("shell_call_output"),
        "apply_patch": _typed("apply_patch_call"),
        "web_search": _typed("web_search_call", "url_citation"),
        "file_search": _typed("file_search_call", "file_citation"),
        "code_interpreter": _typed("code_interpreter_call"),
        "image_generation": _typed("image_generation_call"),
        "mcp": _typed("mcp_call", "mcp_list_tools", "mcp_approval_request"),
        "tool_search": _typed("tool_search_call", "tool_search_output"),
        "compaction": _typed("compaction"),
        "reasoning_summary": _typed("summary_text"),
        "include": lambda case: any(d.get("type") == "code_interpreter_call" and d.get("outputs")
                                    for d in _shown(case)),
        "background": _typed("response.queued"),
        "max_tokens": _keyed("status", "incomplete"),
    },
    "anthropic-messages": {
        "thinking": _typed("thinking", "redacted_thinking", "thinking_delta"),
        "programmatic_tool_calling": lambda case: any(
            "tool_id" in (d.get("caller") or {}) for d in _shown(case)) or bool(
            case.quirks & {"whole-input-at-start", "prefilled-message-start"}),
        "programmatic_follow_up": lambda case: case.chunks[:1] != [] and isinstance(
            case.chunks[0], dict) and case.chunks[0].get("type") == "message_start" and bool(
            (case.chunks[0].get("message") or {}).get("content")),
        "max_tokens": _keyed("stop_reason", "max_tokens"),
        "stop_sequences": _keyed("stop_reason", "stop_sequence"),
        "web_search": _typed("web_search_tool_result", "web_search_result_location"),
        "web_fetch": _server_tool("web_fetch"),
        "code_execution": _server_tool("code_execution", "bash_code_execution",
                                       "text_editor_code_execution"),
        "tool_search": _server_tool("tool_search_tool_regex", "tool_search_tool_bm25"),
        "citations": _typed("char_location", "page_location", "content_block_location"),
        "search_results": _typed("search_result_location"),
    },
    "gemini": {
        "include_thoughts": _keyed("thought", True),
        "stream_function_call_arguments": lambda case: any(
            "partialArgs" in d or d.get("willContinue") for d in _shown(case)),
        "max_tokens": _keyed("finishReason", "MAX_TOKENS"),
    },
    "bedrock-converse": {
        "reasoning": lambda case: any("reasoningContent" in d for d in _shown(case)),
        "max_tokens": _keyed("stopReason", "max_tokens"),
    },
    "ollama-chat": {
        "think": lambda case: any("thinking" in d for d in _shown(case)),
        "max_tokens": _keyed("done_reason", "length"),
    },
}
ALL = [(wire, feature) for wire in NATIVE_WIRES for feature in FEATURES[wire]]


def test_every_feature_has_its_shapes_recognised_here():
    assert {wire: set(TIED[wire]) for wire in NATIVE_WIRES} == \
        {wire: set(FEATURES[wire]) for wire in NATIVE_WIRES}


def _every_situation(wire: str, quirks: frozenset) -> st.SearchStrategy:
    """What the server answers in every client clause's situation, as one served stream."""
    return st.one_of(streams(wire, quirks, cut=False), error_streams(wire, quirks),
                     truncated_streams(wire, quirks), prose_streams(wire, quirks),
                     malformed_streams(wire, quirks).map(lambda drawn: drawn[0]))


@pytest.mark.parametrize("wire", NATIVE_WIRES)
def test_a_client_declaring_no_feature_is_never_served_a_tied_shape(wire):
    nothing = Requestable(QUIRKS, frozenset())
    always = ALWAYS_ASKED.get(wire, frozenset())

    @QUICK
    @given(_every_situation(wire, nothing))
    def served(served):
        held = {feature for feature, holds in TIED[wire].items() if holds(served.case)}
        assert held <= always, (held, served.case.quirks)
        assert case_features(served.case) <= always
        assert set(case_request(served.case)) <= {"tools", *always}

    served()


def _whole_streams(wire: str, quirks: frozenset | None) -> st.SearchStrategy:
    """Where a tied shape is looked for: whole streams hold every one (a prefilled
    `message_start` only those), while a shape is kept from a client in every situation."""
    return streams(wire, quirks, cut=False)


def _first(wire: str, quirks: frozenset | None, holds: Callable):
    """The first served stream (unshrunk) whose case holds the shape."""
    return find(_whole_streams(wire, quirks), lambda served: holds(served.case), settings=FIRST)


def _firsts(wire: str, quirks: frozenset | None, shapes: dict[str, Callable]) -> dict:
    """feature -> the first served stream holding its shape, each found within the first
    draws `_first` would make, in one pass for every shape."""
    found = {}

    def holds_every_shape(served) -> bool:
        found.update({feature: served for feature, holds in shapes.items()
                      if feature not in found and holds(served.case)})
        return len(found) == len(shapes)

    with contextlib.suppress(NoSuchExample):
        find(_whole_streams(wire, quirks), holds_every_shape, settings=FIRST)
    return found


@pytest.mark.parametrize("wire", NATIVE_WIRES)
def test_a_plain_selection_still_draws_every_tied_shape(wire):
    """No features (a strategy under certification, a v1 harness): every shape, as before."""
    found = _firsts(wire, None, {feature: TIED[wire][feature] for feature in FEATURES[wire]})
    assert [feature for feature in FEATURES[wire] if feature not in found] == []


#: What the reason of a request lacking the feature names (the field, the tool, the block).
NAMED = {
    "n": "n=", "include_usage": "include_usage", "max_tokens": "token limit",
    "logprobs": "logprobs", "web_search": r"web_search",
    "custom_tools": "type: custom", "computer_use": "computer_use_preview",
    "local_shell": "local_shell", "shell": "type: shell", "hosted_shell": "type: shell",
    "apply_patch": "apply_patch", "file_search": "file_search",
    "code_interpreter": "code_interpreter", "image_generation": "image_generation",
    "mcp": "server_label", "tool_search": "tool_search", "compaction": "context_management",
    "reasoning_summary": "reasoning.summary", "include": "include",
    "background": "background", "thinking": "thinking",
    "programmatic_tool_calling": "anthropic-beta", "stop_sequences": "stop_sequences",
    "programmatic_follow_up": "follow-up",
    "web_fetch": "web_fetch", "code_execution": "code_execution",
    "citations": "document block", "search_results": "search_result block",
    "include_thoughts": "includeThoughts",
    "stream_function_call_arguments": "streamFunctionCallArguments",
    "reasoning": "additionalModelRequestFields.thinking", "think": "think",
}


def _headers(request: dict) -> dict:
    return {"anthropic-beta": ",".join(request.get("betas", ()))}


#: The features a feature's shapes come with (and their keys): a code interpreter call's
#: outputs need the tool.
WITH = {"include": {"code_interpreter"}, "programmatic_follow_up": {"programmatic_tool_calling"}}
WITH_KEYS = {"include": ("native_tools",),
             "programmatic_follow_up": ("betas", "native_tools", "allowed_callers")}


@pytest.mark.parametrize("wire, feature", ALL)
def test_a_client_declaring_a_feature_is_served_its_shapes_and_told_the_request(wire, feature):
    declared = {feature, *WITH.get(feature, ())}
    served = _first(wire, Requestable(QUIRKS, declared), TIED[wire][feature])
    told = case_request(served.case)
    assert feature in case_features(served.case)
    run = {"cmd": "run", "seq": 1, "wire": wire, "base_url": "http://127.0.0.1:9/case/1/",
           "request": told}
    assert schema_errors(run, "run", 2) == []
    # the check accepts the request that asks what it was told
    assert request_mismatch(wire, told, request_body(wire, request=told), _headers(told)) is None
    # and names, in one line, what a request declaring the feature but not asking it lacks
    asked = {key: value for key, value in told.items()
             if key == "tools" or key in WITH_KEYS.get(feature, ())}
    body = request_body(wire, request=asked)
    body.pop("max_tokens", None)  # the reference always sets Anthropic's required limit
    wrong = request_mismatch(wire, told, body, _headers(asked))
    assert wrong is not None and "\n" not in wrong, wrong
    assert re.search(NAMED[feature], wrong), wrong


def _dropping(key: str, features: set) -> Callable:
    """A client declaring `features` whose request forgets the `key` it is told."""
    def client(base_url: str, wire: str, request: dict | None = None) -> dict:
        kept = {name: value for name, value in (request or {}).items() if name != key}
        return reference_client(base_url, wire, kept)

    client.request_features = features
    return client


@pytest.mark.parametrize("wire, feature, key, reason", [
    ("openai-responses", "computer_use", "native_tools",
     r"declared no tool \{type: computer_use_preview\}; the case holds `computer_call` items"),
    ("openai-chat", "max_tokens", "max_tokens",
     r"set no token limit \(max_completion_tokens or max_tokens\)"),
    ("anthropic-messages", "citations", "documents",
     r"carried no document block whose source is \w+ with citations enabled"),
])
def test_a_client_that_declares_a_feature_but_does_not_ask_it_gets_the_case_errored(
        wire, feature, key, reason):
    broken = ClientTarget("forgets", _dropping(key, {feature}))
    runner = ClientRunner(broken, wire, timeout=30)
    honest = ClientRunner(ClientTarget("honest", _dropping("", {feature})), wire, timeout=30)
    try:
        assert runner.features == {feature}
        served = _first(wire, runner.quirks, TIED[wire][feature])
        with pytest.raises(HarnessCaseError, match=reason) as caught:
            runner.run(served)
        assert "the server answered HTTP 400" in str(caught.value)
        assert "\n" not in str(caught.value)
        honest.run(served)  # the same case, asked for: no HarnessCaseError
    finally:
        runner.close()
        honest.close()


@pytest.mark.parametrize("wire", NATIVE_WIRES)
def test_the_reference_declaring_every_feature_passes_the_check(wire):
    """The reference client asks every key it is told: no case is errored by the check."""
    runner = ClientRunner(ClientTarget("reference", reference_client), wire, timeout=30)
    try:
        assert runner.features == frozenset(FEATURES[wire])

        @settings(QUICK, max_examples=25)
        @given(streams(wire, runner.quirks))
        def run(served):
            runner.run(served)  # a HarnessCaseError would fail the test

        run()
    finally:
        runner.close()


def test_the_schemas_know_every_feature_and_every_key():
    ready = json.loads((ROOT / "mcs_conformance/schemas/harness/v2/ready.json").read_text())
    declared = ready["properties"]["features"]["properties"]
    assert {wire: declared[wire]["items"]["enum"] for wire in NATIVE_WIRES} == \
        {wire: list(FEATURES[wire]) for wire in NATIVE_WIRES}


def test_the_protocol_page_lists_every_feature():
    page = (ROOT / "docs" / "harness-protocol.md").read_text("utf-8")
    missing = [(wire, feature) for wire, feature in ALL
               if f"| `{feature}` | `{wire}` |" not in page]
    assert missing == []


def test_a_programmatic_case_needs_the_whole_request_anthropic_recorded_it_for():
    """Anthropic sends calls made from code execution only to a request with the beta, the
    code execution tool and function tools that code may call (vercel/ai's recorded
    programmatic stream was answered to that request): each one missing is named."""
    served = _first("anthropic-messages", Requestable(QUIRKS, {"programmatic_tool_calling"}),
                    TIED["anthropic-messages"]["programmatic_tool_calling"])
    told = case_request(served.case)
    assert told["betas"] == [PROGRAMMATIC_BETA]
    assert told["allowed_callers"] == [CODE_EXECUTION_CALLER]
    assert {"type": CODE_EXECUTION_CALLER, "name": "code_execution"} in told["native_tools"]
    body = request_body("anthropic-messages", request=told)
    assert all(tool.get("allowed_callers") == [CODE_EXECUTION_CALLER] for tool in body["tools"]
               if "input_schema" in tool) and told["tools"]
    assert request_mismatch("anthropic-messages", told, body, _headers(told)) is None
    without_tool = {**body, "tools": [tool for tool in body["tools"] if "input_schema" in tool]}
    assert "code_execution" in request_mismatch("anthropic-messages", told, without_tool,
                                                _headers(told))
    direct_only = {**body, "tools": [{**tool, "allowed_callers": ["direct"]}
                                     if "input_schema" in tool else tool
                                     for tool in body["tools"]]}
    assert re.search(r"does not list code_execution_20250825 in allowed_callers",
                     request_mismatch("anthropic-messages", told, direct_only, _headers(told)))


def test_a_prefilled_message_start_is_read_from_the_events_not_the_quirk_name():
    """An error or truncated stream keeps a `message_start` prefilled with calls but not
    always the quirk's name: the case still needs the follow-up request."""
    declared = Requestable(QUIRKS, {"programmatic_tool_calling", "programmatic_follow_up"})
    served = find(streams("anthropic-messages", declared, min_calls=1, cut=False),
                  lambda served: TIED["anthropic-messages"]["programmatic_follow_up"](served.case),
                  settings=FIRST)  # the shape: a stream whose message is all calls
    unnamed = dataclasses.replace(served.case, quirks=frozenset())
    assert "programmatic_follow_up" in case_features(unnamed)
    assert case_request(unnamed)["follow_up"]["container"]
