"""The Gemini wire: whole `generateContent` bodies, their SSE record streams, schemas, the
google-genai SDK's own types, the quirks each case says it holds, and what it needs asked."""
from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings

from mcs_conformance.base import schema
from mcs_conformance.wires import (case_request, drawable_quirks, frame_body, request_mismatch,
                                   shape_options)
from mcs_conformance.wires.gemini import cases, json_path, messages

types = pytest.importorskip("google.genai.types", reason="google-genai is a test oracle")

QUIET = [HealthCheck.too_slow, HealthCheck.data_too_large]
MANY = settings(max_examples=150, deadline=None, suppress_health_check=QUIET)


def _parts(chunk: dict) -> list:
    return [part for candidate in chunk.get("candidates") or ()
            for part in (candidate.get("content") or {}).get("parts") or ()]


@MANY
@given(messages())
def test_messages_are_generate_content_bodies(body):
    assert schema.errors(body, "gemini.message.json") == []
    types.GenerateContentResponse.model_validate(body)
    candidate = body["candidates"][0]
    assert candidate["content"]["role"] == "model" and candidate["finishReason"]
    for part in candidate["content"].get("parts", ()):
        assert "partialArgs" not in part.get("functionCall", {})
        assert "willContinue" not in part.get("functionCall", {})


@MANY
@given(cases())
def test_every_record_fits_the_schema_and_the_sdk(case):
    for chunk in case.chunks:
        assert schema.errors(chunk, "gemini.chunk.json") == [], chunk
        types.GenerateContentResponse.model_validate(chunk)
    json.loads(json.dumps(case.chunks))


@MANY
@given(cases(errors=True))
def test_error_endings_are_the_three_forms(case):
    last = case.chunks[-1]
    if "error" in last:
        assert set(last["error"]) == {"code", "message", "status"}
    elif "promptFeedback" in last:
        assert case.error_at == 0 and last["promptFeedback"]["blockReason"] == case.error["status"]
    else:
        assert last["candidates"][0]["finishReason"] == case.error["status"]
    assert case.error_at == len(case.chunks) - 1


@MANY
@given(cases(quirks=frozenset()))
def test_the_provider_shape_folds_simply(case):
    """Without quirks: one part a record, text in pieces, each call whole with its id."""
    assert all(len(_parts(chunk)) <= 1 for chunk in case.chunks)
    text = "".join(p["text"] for chunk in case.chunks for p in _parts(chunk)
                   if "text" in p and not p.get("thought"))
    assert text == case.text
    calls = [p["functionCall"] for chunk in case.chunks for p in _parts(chunk) if "functionCall" in p]
    assert [(c["name"], c["args"], c["id"]) for c in calls] == [
        (call.name, call.arguments, call.id) for call in case.calls]
    assert case.done_at == len(case.chunks) - 1 and not case.quirks


def _holds(name: str, case) -> bool:
    """Whether the records show quirk `name` (the tags must not lie)."""
    parts = [p for chunk in case.chunks for p in _parts(chunk)]
    calls = [p["functionCall"] for p in parts if "functionCall" in p]
    return {
        "vertex-envelope": all("createTime" in chunk for chunk in case.chunks),
        "call-without-id": any("name" in c and "id" not in c for c in calls),
        "call-without-args": any("name" in c and "args" not in c and "willContinue" not in c
                                 and "partialArgs" not in c for c in calls),
        "partial-args": any(c.get("partialArgs") or c.get("willContinue") for c in calls),
        "partial-args-one-chunk": any("name" in c and c.get("partialArgs")
                                      and "willContinue" not in c for c in calls),
        "partial-args-noop-chunks": any(c == {"willContinue": True} for c in calls),
        "partial-args-no-terminator": case.quirks >= {"partial-args"},
        "calls-in-one-record": any(sum("functionCall" in p for p in _parts(chunk)) > 1
                                   for chunk in case.chunks),
        "empty-text-parts": any(p == {"text": ""} for p in parts),
        "empty-text-finish": _parts(case.chunks[case.done_at]) == [{"text": ""}],
        "signature-on-empty-text": any(set(p) == {"text", "thoughtSignature"} and not p["text"]
                                       for p in parts),
        "usage-only-last-record": "candidates" not in case.chunks[-1],
    }[name]


@MANY
@given(cases())
def test_each_quirk_a_case_names_is_in_its_records(case):
    for name in case.quirks:
        assert _holds(name, case), name


UNASKED = drawable_quirks(frozenset({"partial-args", "partial-args-one-chunk", "call-without-id"}),
                         features=())


@MANY
@given(cases(quirks=UNASKED, **shape_options("gemini", UNASKED)))
def test_a_client_that_cannot_ask_is_served_neither_thoughts_nor_partial_args(case):
    assert "partial-args" not in case.quirks
    assert not any(p.get("thought") for chunk in case.chunks for p in _parts(chunk))
    assert set(case_request(case)) == {"tools"}


@MANY
@given(cases(quirks={"partial-args"}, min_calls=1))
def test_the_request_must_ask_what_the_case_streams(case):
    needed = case_request(case)
    names = {tool["name"] for tool in needed["tools"]}
    assert names == {call.name for call in case.calls}
    body = {"contents": [], "tools": [{"functionDeclarations": [{"name": n} for n in names]}]}
    if needed.get("include_thoughts"):
        body["generationConfig"] = {"thinkingConfig": {"includeThoughts": True}}
    if not needed.get("stream_function_call_arguments"):
        assert request_mismatch("gemini", needed, body, {}) is None
        return
    assert "streamFunctionCallArguments" in request_mismatch("gemini", needed, body, {})
    body["tool_config"] = {"function_calling_config": {"stream_function_call_arguments": True}}
    assert request_mismatch("gemini", needed, body, {}) is None


def test_json_paths_name_any_key():
    assert json_path(("recipe", "steps", 1, "name")) == "$.recipe.steps[1].name"
    assert json_path(("a b", "", "é", '"')) == '$["a b"][""]["é"]["\\""]'


def test_google_spacing_and_crlf_are_byte_quirks():
    chunk = {"candidates": [{"content": {"parts": [{"text": "hi"}], "role": "model"}}]}
    body = frame_body("gemini", [chunk], quirks=frozenset({"spaced-json", "sse-crlf"}))
    assert body == (b'data: {"candidates": [{"content": {"parts": [{"text": "hi"}],'
                    b'"role": "model"}}]}\r\n\r\n')
    assert b"[DONE]" not in frame_body("gemini", [chunk])
