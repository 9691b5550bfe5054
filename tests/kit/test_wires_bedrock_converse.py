"""The Bedrock Converse wire: whole Converse responses, their event streams as boto3 yields
them and as botocore reads the binary body, the schemas, the quirks each case names."""
from __future__ import annotations

import base64

import pytest
from hypothesis import HealthCheck, given, settings

from mcs_conformance.base import schema
from mcs_conformance.wires import case_request, frame_body, request_mismatch
from mcs_conformance.wires.bedrock_converse import cases, messages

botocore_session = pytest.importorskip("botocore.session", reason="botocore is a test oracle")
from botocore.eventstream import EventStreamBuffer  # noqa: E402
from botocore.validate import ParamValidator  # noqa: E402

QUIET = [HealthCheck.too_slow, HealthCheck.data_too_large]
MANY = settings(max_examples=120, deadline=None, suppress_health_check=QUIET)
MODEL = botocore_session.get_session().get_service_model("bedrock-runtime")


def _as_boto3(value):
    """A wire value as boto3 holds it: redactedContent blobs as bytes, no `p` padding."""
    if isinstance(value, dict):
        return {key: (base64.b64decode(item) if key == "redactedContent" else _as_boto3(item))
                for key, item in value.items() if key != "p"}
    if isinstance(value, list):
        return [_as_boto3(item) for item in value]
    return value


def _fits(value, shape) -> list[str]:
    """What botocore's validator says of `value` against a service-model shape."""
    report = ParamValidator().validate(_as_boto3(value), shape)
    return [] if not report.has_errors() else [report.generate_report()]


@MANY
@given(messages())
def test_messages_are_converse_responses(body):
    assert schema.errors(body, "bedrock-converse.message.json") == []
    assert _fits(body, MODEL.operation_model("Converse").output_shape) == []


@MANY
@given(cases())
def test_every_event_fits_botocore_and_its_frame_decodes_there(case):
    events = MODEL.shape_for("ConverseStreamOutput")
    for event in case.chunks:
        assert schema.errors(event, "bedrock-converse.chunk.json") == [], event
        (kind, payload), = event.items()
        assert _fits(payload, events.members[kind]) == [], event
    buffer = EventStreamBuffer()
    buffer.add_data(frame_body(case.wire, case.chunks))
    decoded = [message.headers[":event-type"] for message in buffer]
    assert decoded == [next(iter(event)) for event in case.chunks]
    assert case.chunks[case.done_at].keys() == {"metadata"}


@MANY
@given(cases(errors=True))
def test_errors_are_exception_frames_botocore_reads(case):
    buffer = EventStreamBuffer()
    buffer.add_data(frame_body(case.wire, case.chunks))
    last = list(buffer)[-1]
    assert last.headers[":message-type"] == "exception"
    assert last.headers[":exception-type"] == case.error["type"]


def _holds(name: str, case) -> bool:
    deltas = [e["contentBlockDelta"] for e in case.chunks if "contentBlockDelta" in e]
    inputs = {}
    for delta in deltas:
        if "toolUse" in delta["delta"]:
            inputs.setdefault(delta["contentBlockIndex"], []).append(delta["delta"]["toolUse"]["input"])
    starts = [e["contentBlockStart"]["start"]["toolUse"] for e in case.chunks
              if "contentBlockStart" in e]
    content = case.message["output"]["message"]["content"]
    return {
        "empty-first-input-delta": any(pieces[0] == "" and len(pieces) > 1
                                       for pieces in inputs.values()),
        "whole-input-one-delta": any(len(pieces) == 1 and pieces[0] for pieces in inputs.values()),
        "tool-use-no-deltas": len(inputs) < len(starts),
        "tool-use-type": all(start.get("type") == "tool_use" for start in starts),
        "padding-field": all("p" in next(iter(e.values())) for e in case.chunks),
        "empty-text-block": content[:1] == [{"text": ""}],
        "kimi-tool-ids": all(start["toolUseId"].startswith("functions.") for start in starts),
    }[name]


@MANY
@given(cases())
def test_each_quirk_a_case_names_is_in_its_events(case):
    for name in case.quirks:
        assert _holds(name, case), name


@MANY
@given(cases(min_calls=1, features=frozenset()))
def test_the_request_must_declare_each_tool_in_tool_config(case):
    needed = case_request(case)
    names = {tool["name"] for tool in needed["tools"]}
    assert names == {call.name for call in case.calls}
    body = {"messages": [], "toolConfig": {"tools": [{"toolSpec": {"name": n}} for n in names]}}
    assert request_mismatch("bedrock-converse", needed, body, {}) is None
    body["toolConfig"]["tools"].pop()
    assert "declared no tool" in request_mismatch("bedrock-converse", needed, body, {})
