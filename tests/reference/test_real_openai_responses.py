"""Replay real recorded Responses streams (shared/corpora-real/openai-responses) end to end.

Each recording goes from its raw HTTP body through `decode_body` and a buffer bound to
`OpenAIResponsesStrategy`; the outcome is checked against what the recording is known to
hold (EXPECTED, keyed by file name) and against properties every stream must have. The
folder lives outside the repository; without it this module defines no tests.
"""
from __future__ import annotations

import copy
from pathlib import Path

import pytest

from mcs_reference.buffer import LLMStreamBuffer
from mcs_reference.calls import ToolCallRecord
from mcs_reference.driver import BaseDriver
from mcs_reference.errors import ProviderError
from mcs_reference.openai_responses import OpenAIResponsesStrategy
from mcs_reference.sse import decode_body

CORPUS = Path(__file__).parents[2].parent / "shared" / "corpora-real" / "openai-responses"
# The recordings are beside a clone in CI, not on a user's machine: skip, saying why.
pytestmark = pytest.mark.skipif(not CORPUS.is_dir(), reason=f"no {CORPUS} beside this clone")
FILES = sorted(p for p in CORPUS.glob("*") if p.suffix in (".sse", ".jsonl"))
STRATEGY = OpenAIResponsesStrategy()

# calls: (name, arguments, call_id); items: output item types; errors: (chunk index, code)
# of each ProviderError; fields: (output index, key) -> expected value or a predicate.
EXPECTED: dict[str, dict] = {
    "bedrock-mantle-data-before-event-args-whole.sse": dict(
        calls=[("first_tool", {}, "call_0")], items=["function_call"], text=""),
    "custom-tool-call-input-deltas.jsonl": dict(
        calls=[("write_sql", {}, "call_custom_sql_001")], items=["custom_tool_call"], text="",
        kinds=[("custom", "SELECT * FROM users WHERE age > 25")],
        fields={(0, "input"): "SELECT * FROM users WHERE age > 25", (0, "name"): "write_sql"}),
    "deepseek-reasoning-text-then-function-call.sse": dict(
        calls=[("get_temperature", {"city": "Tokyo"}, "call_00_xjY8Z2BvSlzgEmmw0DtH0464")],
        items=["reasoning", "function_call"], text="",
        fields={(0, "content"): [{"type": "reasoning_text",
                                  "text": "The user asks about temperature in Tokyo. "
                                          "I'll call the tool."}]}),
    "gpt4o-function-call-early2025.sse": dict(
        calls=[("get_capital", {"country": "France"}, "call_kL0PCQV7M2WMoVX8V8OtYSAL")],
        items=["function_call"], text="", no_sequence_number=True),
    "gpt5-reasoning-summary-then-function-call.jsonl": dict(
        calls=[("calculator", {"a": 12, "b": 7, "op": "add"}, "call_AB6AaRZ1FYZB2RwS6A5vbdqn")],
        items=["reasoning", "function_call"], text="",
        fields={(0, "summary"): lambda s: len(s) == 1 and s[0]["text"].startswith(
                    "**Calculating step-by-step using calculator**\n\n"),
                (0, "encrypted_content"): lambda v: v.startswith("gAAAAA")}),
    "gpt5nano-error-event-then-failed.jsonl": dict(
        calls=[], items=[], text="", done=False, status="failed",
        errors=[(2, "insufficient_quota"), (3, "insufficient_quota")]),
    "reasoning-encrypted-then-function-call.sse": dict(
        calls=[("final_result", {"result": 6666}, "call_CWXgs68YprAjp6t0371hiPOI")],
        items=["reasoning", "function_call"], text="",
        fields={(0, "summary"): [], (0, "encrypted_content"): lambda v: len(v) > 100}),
    "reasoning-text-then-function-call.sse": dict(
        calls=[("get_capital", {"country": "PotatoLand"}, "call_LabG58Uhrq9kZvR52BYKjToD")],
        items=["reasoning", "message", "function_call"],
        text="I\u2019ll check the capital lookup tool for \u201cPotatoLand.\u201d",
        fields={(1, "phase"): "commentary", (1, "role"): "assistant"}),
}


def replay(path: Path):
    """Feed every chunk; keep going past provider errors, as a client that logs them would."""
    chunks = decode_body(path.read_bytes())
    pristine = copy.deepcopy(chunks)
    buffer = LLMStreamBuffer(STRATEGY)
    display, errors, snapshots = [], [], []
    for chunk in chunks:
        try:
            display.append(buffer.add(chunk))
        except ProviderError as exc:
            errors.append((exc.index, exc.error.get("code")))
        snapshots.append(buffer.as_dict())
        assert buffer.forming_name() == STRATEGY.forming_name(snapshots[-1])
    assert chunks == pristine, "the strategy mutated a recorded event"
    return chunks, buffer, "".join(display), errors, snapshots


def opaque(item: dict) -> dict:
    """The item with its encrypted reasoning (an opaque, re-issued token) blanked out."""
    if "encrypted_content" not in item:
        return item
    assert item["encrypted_content"].startswith("gAAAAA")
    return dict(item, encrypted_content="<opaque>")


if FILES:
    @pytest.mark.parametrize("path", FILES, ids=[p.name for p in FILES])
    def test_recorded_stream(path: Path):
        expected = EXPECTED.get(path.name)
        assert expected is not None, f"add an expectation for {path.name} to EXPECTED"
        chunks, buffer, display, errors, _ = replay(path)
        message = buffer.as_dict()
        calls = STRATEGY.extract(message)
        assert [(c.name, c.arguments, c.id) for c in calls] == expected["calls"]
        assert all(c.error is None for c in calls)
        kinds = expected.get("kinds", [("function", None)] * len(calls))
        assert [(c.kind, c.input) for c in calls] == kinds
        assert [item["type"] for item in message["output"]] == expected["items"]
        assert STRATEGY.content_text(message) == display == expected["text"]
        assert errors == expected.get("errors", [])
        assert buffer.is_done() is expected.get("done", True)
        assert message["status"] == expected.get("status", "completed")
        for (index, key), want in expected.get("fields", {}).items():
            got = message["output"][index][key]
            assert want(got) if callable(want) else got == want, (index, key, got)
        if expected.get("no_sequence_number"):
            assert all("sequence_number" not in chunk for chunk in chunks)
        assert STRATEGY.recognizes(message)
        history = STRATEGY.result_messages(
            message, [ToolCallRecord(c.name, c.arguments, "ok", tool_call_id=c.id) for c in calls])
        assert history[: len(message["output"])] == message["output"]
        assert [h["call_id"] for h in history[len(message["output"]):]] == [c.id for c in calls]

    def test_the_recorded_custom_tool_call_runs_with_its_sql_text():
        """The silent drop of issue 14: a freeform custom tool call streamed through
        `response.custom_tool_call_input.delta` reaches the driver, which runs it with the
        raw text and answers with a `custom_tool_call_output` for the same call_id."""
        ran = []
        driver = BaseDriver({"write_sql": lambda sql: ran.append(sql) or "3 rows"},
                            chain=[STRATEGY])
        buffer = driver.new_stream_buffer()
        for chunk in decode_body((CORPUS / "custom-tool-call-input-deltas.jsonl").read_bytes()):
            buffer.add(chunk)
            reply = driver.process_llm_response(buffer)
        assert ran == ["SELECT * FROM users WHERE age > 25"]
        assert reply.call_executed and not reply.call_failed and not reply.pending_calls
        [record] = reply.executed_calls
        assert (record.kind, record.tool_call_id) == ("custom", "call_custom_sql_001")
        [item] = buffer.as_dict()["output"]
        assert reply.messages == [item, {"type": "custom_tool_call_output",
                                         "call_id": "call_custom_sql_001", "output": "3 rows"}]

    @pytest.mark.parametrize("path", FILES, ids=[p.name for p in FILES])
    def test_built_from_deltas_equals_the_recorded_completed_response(path: Path):
        chunks, buffer, _, _, snapshots = replay(path)
        if not buffer.is_done():
            assert path.name == "gpt5nano-error-event-then-failed.jsonl"
            return
        end = next(i for i, c in enumerate(chunks) if STRATEGY.is_done(c))
        assert end == len(chunks) - 1
        built, carried = snapshots[end - 1]["output"], chunks[end]["response"]["output"]
        # OpenAI re-issues a reasoning item's encrypted_content (a fresh opaque token) in
        # response.completed; everything else is what the deltas and .done events built.
        assert [opaque(item) for item in built] == [opaque(item) for item in carried]
        assert snapshots[end] == chunks[end]["response"]


    @pytest.mark.parametrize("path", FILES, ids=[p.name for p in FILES])
    def test_streamed_strings_only_grow(path: Path):
        """Mid-stream, arguments and text are prefixes of their final values."""
        *_, snapshots = replay(path)
        final = snapshots[-1]["output"]
        for snapshot in snapshots:
            for index, item in enumerate(snapshot["output"]):
                last = final[index]
                for key in ("arguments", "input"):
                    if isinstance(item.get(key), str):
                        assert last[key].startswith(item[key])
                for part, last_part in zip(item.get("content") or (), last.get("content") or ()):
                    assert last_part.get("text", "").startswith(part.get("text", ""))

    def test_every_expectation_names_a_recorded_file():
        assert sorted(EXPECTED) == sorted(p.name for p in FILES)

    @pytest.mark.parametrize("path", FILES, ids=[p.name for p in FILES])
    def test_a_stream_joined_after_its_lifecycle_events_gives_the_same_response(path: Path):
        """Without response.created / in_progress (a resumed stream) the result is the same."""
        chunks, full, *_ = replay(path)
        assert [c["type"] for c in chunks[:2]] == ["response.created", "response.in_progress"]
        buffer = LLMStreamBuffer(STRATEGY)
        for chunk in chunks[2:]:
            try:
                buffer.add(chunk)
            except ProviderError:
                pass
        assert buffer.is_done() is full.is_done()
        if full.is_done():
            assert buffer.as_dict() == full.as_dict()
        else:
            assert buffer.as_dict()["output"] == full.as_dict()["output"]
