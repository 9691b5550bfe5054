"""BaseDriver: find the calls in every wire, run them once, report failures, guard the display.

Streams are built by hand, small, and driven as a client drives them: `buf.add(chunk)`, then
`process_llm_response(buf)`, then `buf.pop_display()`, after every chunk.
"""
from __future__ import annotations

import json

import pytest

from mcs_reference import (
    BaseDriver,
    DriverResponse,
    ExtractedCall,
    LLMStreamBuffer,
    ToolCallRecord,
)
from mcs_reference.errors import UnrecognisedStream

CALL_TEXT = '{"tool": "get_weather", "arguments": {"city": "Paris"}}'


# ---------------------------------------------------------------------------- tools
class Tools:
    """Tools that remember how they were called."""

    def __init__(self):
        self.log: list[tuple[str, dict]] = []

    def get_weather(self, **kwargs):
        self.log.append(("get_weather", kwargs))
        return {"city": kwargs.get("city"), "temp": 21}

    def get_time(self, **kwargs):
        self.log.append(("get_time", kwargs))
        return "12:00"

    def boom(self, **kwargs):
        self.log.append(("boom", kwargs))
        raise RuntimeError("sensor offline")

    def mapping(self):
        return {"get_weather": self.get_weather, "get_time": self.get_time, "boom": self.boom}


@pytest.fixture
def tools():
    return Tools()


@pytest.fixture
def driver(tools):
    return BaseDriver(tools.mapping())


# ---------------------------------------------------------------------------- wires
def oc(delta, finish=None):
    return {"id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 1700000000,
            "model": "gpt-4o", "choices": [{"index": 0, "delta": delta, "logprobs": None,
                                            "finish_reason": finish}]}


def openai_chat_stream(calls=(), text=()):
    """calls: (id, name, [argument fragments]) each."""
    chunks = [oc({"role": "assistant", "content": "" if text else None})]
    chunks += [oc({"content": piece}) for piece in text]
    for index, (call_id, name, fragments) in enumerate(calls):
        chunks.append(oc({"tool_calls": [{"index": index, "id": call_id, "type": "function",
                                          "function": {"name": name, "arguments": ""}}]}))
        chunks += [oc({"tool_calls": [{"index": index, "function": {"arguments": f}}]})
                   for f in fragments]
    chunks.append(oc({}, "tool_calls" if calls else "stop"))
    return chunks


def anthropic_stream(blocks):
    """blocks: ("text", [pieces]) or ("tool_use", id, name, [partial_json pieces])."""
    chunks = [{"type": "message_start", "message": {
        "id": "msg_1", "type": "message", "role": "assistant", "model": "claude-sonnet-4",
        "content": [], "stop_reason": None, "stop_sequence": None,
        "usage": {"input_tokens": 10, "output_tokens": 1}}}]
    for index, block in enumerate(blocks):
        if block[0] == "text":
            chunks.append({"type": "content_block_start", "index": index,
                           "content_block": {"type": "text", "text": ""}})
            chunks += [{"type": "content_block_delta", "index": index,
                        "delta": {"type": "text_delta", "text": piece}} for piece in block[1]]
        else:
            _, call_id, name, pieces = block
            chunks.append({"type": "content_block_start", "index": index, "content_block": {
                "type": "tool_use", "id": call_id, "name": name, "input": {}}})
            chunks += [{"type": "content_block_delta", "index": index,
                        "delta": {"type": "input_json_delta", "partial_json": piece}}
                       for piece in pieces]
        chunks.append({"type": "content_block_stop", "index": index})
    stop = "tool_use" if any(b[0] == "tool_use" for b in blocks) else "end_turn"
    chunks.append({"type": "message_delta", "delta": {"stop_reason": stop, "stop_sequence": None},
                   "usage": {"output_tokens": 20}})
    chunks.append({"type": "message_stop"})
    return chunks


def responses_stream(items):
    """items: ("text", [pieces]) or ("call", call_id, name, [argument fragments])."""
    head = {"id": "resp_1", "object": "response", "created_at": 1700000000, "model": "gpt-4.1",
            "status": "in_progress", "output": []}
    chunks = [{"type": "response.created", "sequence_number": 0, "response": dict(head)}]
    finished = []
    for index, item in enumerate(items):
        if item[0] == "text":
            item_id = f"msg_{index}"
            text = "".join(item[1])
            chunks.append({"type": "response.output_item.added", "output_index": index, "item": {
                "id": item_id, "type": "message", "status": "in_progress", "role": "assistant",
                "content": []}})
            chunks.append({"type": "response.content_part.added", "item_id": item_id,
                           "output_index": index, "content_index": 0,
                           "part": {"type": "output_text", "text": "", "annotations": []}})
            chunks += [{"type": "response.output_text.delta", "item_id": item_id,
                        "output_index": index, "content_index": 0, "delta": piece}
                       for piece in item[1]]
            part = {"type": "output_text", "text": text, "annotations": []}
            chunks.append({"type": "response.content_part.done", "item_id": item_id,
                           "output_index": index, "content_index": 0, "part": part})
            done = {"id": item_id, "type": "message", "status": "completed", "role": "assistant",
                    "content": [part]}
        else:
            _, call_id, name, fragments = item
            item_id = f"fc_{index}"
            chunks.append({"type": "response.output_item.added", "output_index": index, "item": {
                "id": item_id, "type": "function_call", "status": "in_progress",
                "call_id": call_id, "name": name, "arguments": ""}})
            chunks += [{"type": "response.function_call_arguments.delta", "item_id": item_id,
                        "output_index": index, "delta": f} for f in fragments]
            done = {"id": item_id, "type": "function_call", "status": "completed",
                    "call_id": call_id, "name": name, "arguments": "".join(fragments)}
        chunks.append({"type": "response.output_item.done", "output_index": index, "item": done})
        finished.append(done)
    chunks.append({"type": "response.completed", "sequence_number": len(chunks),
                   "response": dict(head, status="completed", output=finished)})
    return chunks


def ollama_stream(calls=(), text=()):
    """calls: (name, arguments object) each, all in one chunk as Ollama sends them."""
    base = {"model": "llama3.2", "created_at": "2025-01-01T00:00:00Z"}
    chunks = [dict(base, message={"role": "assistant", "content": piece}, done=False)
              for piece in text]
    if calls:
        chunks.append(dict(base, message={"role": "assistant", "content": "", "tool_calls": [
            {"function": {"name": name, "arguments": arguments}} for name, arguments in calls]},
            done=False))
    chunks.append(dict(base, message={"role": "assistant", "content": ""}, done=True,
                       done_reason="stop", total_duration=10, eval_count=3))
    return chunks


def split(text, size):
    return [text[i:i + size] for i in range(0, len(text), size)]


# ---------------------------------------------------------------------------- client loop
class Run:
    """What a client saw while streaming: every response, the text it displayed."""

    def __init__(self):
        self.responses: list[DriverResponse] = []
        self.shown = ""
        self.shown_before_done = ""


def drive(buf, drivers, chunks, tools=None, *, close=False):
    """Feed `chunks` like a client; check nothing runs before the end."""
    drivers = drivers if isinstance(drivers, (list, tuple)) else [drivers]
    runs = [Run() for _ in drivers]
    shown = ""
    for position, chunk in enumerate(chunks):
        buf.add(chunk)
        if close and position == len(chunks) - 1:
            buf.close()
        for driver, run in zip(drivers, runs):
            run.responses.append(driver.process_llm_response(buf))
        if not buf.is_done():
            assert all(not run.responses[-1].call_executed for run in runs)
            assert all(not run.responses[-1].executed_calls for run in runs)
            if tools is not None:
                assert tools.log == [], "a tool ran mid-stream"
        piece = buf.pop_display()
        shown += piece
        if not buf.is_done():
            for run in runs:
                run.shown_before_done += piece
    for run in runs:
        run.shown = shown
    return runs[0] if len(runs) == 1 else runs


WEATHER = ["{\"ci", "ty\": \"Pa", "ris\"}"]


def wire_streams():
    """One stream per wire that calls get_weather(city="Paris"), and its expected call id."""
    return {
        "openai-chat": (openai_chat_stream([("call_1", "get_weather", WEATHER)]), "call_1", False),
        "anthropic": (anthropic_stream([("text", ["Checking."]),
                                        ("tool_use", "toolu_1", "get_weather", WEATHER)]),
                      "toolu_1", False),
        "responses": (responses_stream([("call", "call_r", "get_weather", WEATHER)]), "call_r",
                      False),
        "ollama": (ollama_stream([("get_weather", {"city": "Paris"})], text=["Hm."]), None, False),
        "text": (split(CALL_TEXT, 7), None, True),
        "openai-chat-content": (openai_chat_stream(text=split(CALL_TEXT, 5)), None, False),
    }


WIRES = sorted(wire_streams())


# ---------------------------------------------------------------------------- each wire
@pytest.mark.parametrize("wire", WIRES)
def test_streaming_runs_the_call_once_at_the_end_with_its_arguments(wire, tools, driver):
    chunks, call_id, close = wire_streams()[wire]
    buf = LLMStreamBuffer()
    run = drive(buf, driver, chunks, tools, close=close)
    last = run.responses[-1]
    assert tools.log == [("get_weather", {"city": "Paris"})]
    assert last.call_executed and not last.call_failed and not last.call_pending
    assert last.retry_prompt is None
    assert last.executed_calls == [ToolCallRecord("get_weather", {"city": "Paris"},
                                                  {"city": "Paris", "temp": 21}, None, call_id)]
    assert last.calls == [ExtractedCall("get_weather", {"city": "Paris"}, call_id)]
    assert last.messages, "the history after the call must be returned"
    assert "get_weather" in json.dumps(last.messages)
    assert "21" in json.dumps(last.messages)  # the tool's result is in the history
    # a call was announced as pending before the end (name known, or call text held)
    assert any(r.call_pending for r in run.responses[:-1])
    assert "Paris" not in run.shown_before_done


@pytest.mark.parametrize("wire", WIRES)
def test_non_streaming_message_runs_the_call(wire, tools, driver):
    chunks, call_id, close = wire_streams()[wire]
    buf = LLMStreamBuffer()
    buf.add_all(chunks)
    message = buf.as_dict()
    response = driver.process_llm_response(message)
    assert tools.log == [("get_weather", {"city": "Paris"})]
    assert response.call_executed and not response.call_pending
    assert [r.tool_call_id for r in response.executed_calls] == [call_id]


def test_a_string_is_read_by_the_text_strategy(tools, driver):
    response = driver.process_llm_response(f"Sure.\n{CALL_TEXT}")
    assert tools.log == [("get_weather", {"city": "Paris"})]
    assert response.call_executed
    nothing = driver.process_llm_response("Just prose, with {braces} and no call.")
    assert nothing == DriverResponse() and len(tools.log) == 1


def test_a_string_is_read_by_the_backup_when_the_chain_has_no_text_strategy(tools):
    from mcs_reference import OpenAIChatStrategy

    driver = BaseDriver(tools.mapping(), chain=[OpenAIChatStrategy()])
    assert driver.process_llm_response(CALL_TEXT).call_executed
    assert tools.log == [("get_weather", {"city": "Paris"})]
    driver.backup_text_strategy = None
    assert driver.process_llm_response(CALL_TEXT) == DriverResponse()
    assert len(tools.log) == 1


# ---------------------------------------------------------------------------- arguments
def test_empty_arguments_are_run_as_no_arguments(tools, driver):
    buf = LLMStreamBuffer()
    drive(buf, driver, openai_chat_stream([("call_1", "get_time", [])]), tools)
    assert tools.log == [("get_time", {})]
    tools.log.clear()
    buf = LLMStreamBuffer()
    last = drive(buf, driver, anthropic_stream([("tool_use", "toolu_1", "get_time", [])]),
                 tools).responses[-1]
    assert tools.log == [("get_time", {})]
    assert last.executed_calls[0].result == "12:00"
    assert last.executed_calls[0].arguments == {}


def test_malformed_arguments_fail_without_running_the_tool(tools, driver):
    buf = LLMStreamBuffer()
    chunks = openai_chat_stream([("call_1", "get_weather", ['{"city": "Par'])])
    last = drive(buf, driver, chunks, tools).responses[-1]
    assert tools.log == []
    assert not last.call_executed and last.call_failed
    [record] = last.executed_calls
    assert record.name == "get_weather" and record.tool_call_id == "call_1"
    assert record.result is None and "malformed" in record.error
    assert "get_weather" in last.retry_prompt and "malformed" in last.retry_prompt
    assert last.calls[0].error is not None
    # the failure goes into the history, answering the call's id
    assert last.messages[-1]["tool_call_id"] == "call_1"
    assert "malformed" in last.messages[-1]["content"]


def test_a_tool_that_raises_becomes_a_failed_record(tools, driver):
    response = driver.process_llm_response(
        {"role": "assistant", "content": None, "tool_calls": [
            {"id": "call_1", "type": "function", "function": {"name": "boom", "arguments": "{}"}},
            {"id": "call_2", "type": "function",
             "function": {"name": "get_time", "arguments": ""}}]})
    assert tools.log == [("boom", {}), ("get_time", {})]  # a failure does not stop the others
    assert response.call_executed and response.call_failed
    failed, ok = response.executed_calls
    assert failed.error == "boom raised RuntimeError: sensor offline"
    assert ok.error is None and ok.result == "12:00"
    assert "boom" in response.retry_prompt and "sensor offline" in response.retry_prompt
    assert "get_time" not in response.retry_prompt


def test_a_tool_given_arguments_it_does_not_take_fails_cleanly():
    driver = BaseDriver({"get_time": lambda: "noon"})
    response = driver.process_llm_response(f'{{"tool": "get_time", "arguments": {{"tz": "UTC"}}}}')
    [record] = response.executed_calls
    assert record.error.startswith("get_time raised TypeError")
    assert response.call_failed and not response.call_executed


# ---------------------------------------------------------------------------- foreign calls
def test_unknown_tool_fails_with_the_available_names(tools, driver):
    buf = LLMStreamBuffer()
    last = drive(buf, driver, openai_chat_stream([("call_9", "send_email", ['{"to": "x"}'])]),
                 tools).responses[-1]
    assert tools.log == []
    [record] = last.executed_calls
    assert record.error == "unknown tool 'send_email'; available: boom, get_time, get_weather"
    assert record.tool_call_id == "call_9"
    assert last.call_failed and not last.call_executed
    assert "send_email" in last.retry_prompt


def test_unknown_tool_is_left_alone_when_foreign_calls_are_ignored(tools):
    driver = BaseDriver(tools.mapping(), foreign_calls="ignore")
    buf = LLMStreamBuffer()
    last = drive(buf, driver, openai_chat_stream([("call_9", "send_email", ['{"to": "x"}'])]),
                 tools).responses[-1]
    assert tools.log == []
    assert last.executed_calls == [] and last.messages == []
    assert not last.call_failed and not last.call_executed and last.retry_prompt is None
    assert [c.name for c in last.calls] == ["send_email"]  # found, just not ours


def test_fan_out_each_driver_runs_only_its_own_tools(tools):
    weather = BaseDriver({"get_weather": tools.get_weather}, foreign_calls="ignore")
    clock = BaseDriver({"get_time": tools.get_time}, foreign_calls="ignore")
    chunks = openai_chat_stream([("call_1", "get_weather", WEATHER), ("call_2", "get_time", [])])
    buf = LLMStreamBuffer()
    run_w, run_c = drive(buf, [weather, clock], chunks, tools)
    assert sorted(tools.log) == [("get_time", {}), ("get_weather", {"city": "Paris"})]
    assert [r.tool_call_id for r in run_w.responses[-1].executed_calls] == ["call_1"]
    assert [r.tool_call_id for r in run_c.responses[-1].executed_calls] == ["call_2"]
    assert not run_w.responses[-1].call_failed and not run_c.responses[-1].call_failed
    # each driver answers only its own call in its history
    assert [m.get("tool_call_id") for m in run_w.responses[-1].messages[1:]] == ["call_1"]
    assert [m.get("tool_call_id") for m in run_c.responses[-1].messages[1:]] == ["call_2"]


def test_foreign_calls_must_be_fail_or_ignore():
    with pytest.raises(ValueError, match="foreign_calls"):
        BaseDriver({}, foreign_calls="skip")


def test_tools_must_be_callables():
    with pytest.raises(TypeError, match="get_weather"):
        BaseDriver({"get_weather": "not a function"})


# ---------------------------------------------------------------------------- guard / leak
@pytest.mark.parametrize("tool_calls", [None, []])
def test_false_positive_guard_openai_tool_calls_key_is_authoritative(tool_calls, tools, driver):
    message = {"role": "assistant", "content": CALL_TEXT, "refusal": None, "annotations": [],
               "tool_calls": tool_calls}
    response = driver.process_llm_response(message)
    assert tools.log == []
    assert response.calls == [] and response.executed_calls == []
    assert not response.call_executed and not response.call_failed
    # the same content without the key is a call written as text, and runs
    del message["tool_calls"]
    assert driver.process_llm_response(message).call_executed
    assert tools.log == [("get_weather", {"city": "Paris"})]


def anthropic_message(text):
    return {"id": "msg_1", "type": "message", "role": "assistant", "model": "claude-sonnet-4",
            "content": [{"type": "text", "text": text}], "stop_reason": "end_turn",
            "stop_sequence": None, "usage": {"input_tokens": 1, "output_tokens": 1}}


def responses_message(text):
    return {"id": "resp_1", "object": "response", "status": "completed", "model": "gpt-4.1",
            "output": [{"id": "msg_1", "type": "message", "status": "completed",
                        "role": "assistant", "content": [
                            {"type": "output_text", "text": text, "annotations": []}]}]}


@pytest.mark.parametrize("make", [anthropic_message, responses_message])
def test_leak_fall_through_finds_a_call_written_in_native_text(make, tools, driver):
    text = f"I'll look it up.\n{CALL_TEXT}"
    response = driver.process_llm_response(make(text))
    assert tools.log == [("get_weather", {"city": "Paris"})]
    assert response.call_executed
    # the history is text-shaped: the assistant turn is the text, not native blocks/items
    assert response.messages == driver.backup_text_strategy.result_messages(
        {"role": "assistant", "content": text}, response.executed_calls)
    turn = response.messages[0]
    assert turn["role"] == "assistant" and isinstance(turn["content"], str)
    assert "Paris" in turn["content"]


@pytest.mark.parametrize("make", [anthropic_message, responses_message])
def test_backup_none_turns_the_fall_through_off(make, tools):
    class Strict(BaseDriver):
        backup_text_strategy = None

    response = Strict(tools.mapping()).process_llm_response(make(f"Hi.\n{CALL_TEXT}"))
    assert tools.log == [] and response == DriverResponse()
    driver = BaseDriver(tools.mapping())
    driver.backup_text_strategy = None
    buf = LLMStreamBuffer()
    run = drive(buf, driver, anthropic_stream([("text", ["Hi. ", *split(CALL_TEXT, 9)])]), tools)
    assert tools.log == [] and not run.responses[-1].call_executed
    assert run.shown == f"Hi. {CALL_TEXT}"  # with no fall-through, nothing is held back


# ---------------------------------------------------------------------------- display
LEAK_STREAMS = {
    "anthropic": lambda pieces: (anthropic_stream([("text", pieces)]), False),
    "responses": lambda pieces: (responses_stream([("text", pieces)]), False),
    "text": lambda pieces: (list(pieces), True),
    "openai-chat": lambda pieces: (openai_chat_stream(text=pieces), False),
}


@pytest.mark.parametrize("wire", sorted(LEAK_STREAMS))
def test_display_shows_the_prose_and_never_the_call_text(wire, tools, driver):
    pieces = ["Let me ", "check. ", *split(CALL_TEXT, 4)]  # markers split across chunks
    chunks, close = LEAK_STREAMS[wire](pieces)
    buf = LLMStreamBuffer()
    run = drive(buf, driver, chunks, tools, close=close)
    assert run.shown == "Let me check. "
    assert tools.log == [("get_weather", {"city": "Paris"})]
    assert run.responses[-1].call_executed
    assert buf.pop_display() == ""  # still held after the end: the call text is never shown
    buf.reset()
    assert buf.pop_display() == ""


@pytest.mark.parametrize("wire", sorted(LEAK_STREAMS))
def test_prose_that_looks_like_a_call_opening_is_displayed_in_the_end(wire, tools, driver):
    prose = 'In the config, write {"tool" as the key and ```json fences around it.'
    chunks, close = LEAK_STREAMS[wire](split(prose, 6))
    buf = LLMStreamBuffer()
    run = drive(buf, driver, chunks, tools, close=close)
    assert tools.log == [] and not run.responses[-1].call_executed
    assert any(r.call_pending for r in run.responses[:-1])  # held while it might be a call
    assert run.shown_before_done != prose
    assert run.shown == prose  # released when the stream ended with no call


def test_prose_with_plain_braces_is_never_held(tools, driver):
    prose = "Sets look like {1, 2} and dicts like {'a': 1}."
    buf = LLMStreamBuffer()
    run = drive(buf, driver, anthropic_stream([("text", split(prose, 5))]), tools)
    assert run.shown_before_done == prose
    assert not any(r.call_pending for r in run.responses)


def test_text_before_a_native_call_is_displayed_as_it_streams(tools, driver):
    chunks = anthropic_stream([("text", ["Let me ", "check."]),
                               ("tool_use", "toolu_1", "get_weather", WEATHER)])
    buf = LLMStreamBuffer()
    run = drive(buf, driver, chunks, tools)
    assert run.shown_before_done == "Let me check."
    assert tools.log == [("get_weather", {"city": "Paris"})]


def test_known_edge_a_text_leak_interrupted_by_a_native_call(tools, driver):
    """The native call wins; the leak never runs and its held text is discarded on reset."""
    chunks = anthropic_stream([("text", ["Sure. ", *split(CALL_TEXT, 6)]),
                               ("tool_use", "toolu_7", "get_time", [])])
    buf = LLMStreamBuffer()
    run = drive(buf, driver, chunks, tools)
    last = run.responses[-1]
    assert tools.log == [("get_time", {})]
    assert [c.name for c in last.calls] == ["get_time"]
    assert [r.tool_call_id for r in last.executed_calls] == ["toolu_7"]
    assert "tool_use" in json.dumps(last.messages)  # history is native, not text-shaped
    assert run.shown == "Sure. "
    assert buf.pop_display() == ""
    buf.reset()
    assert buf.pop_display() == ""


# ---------------------------------------------------------------------------- once / cost
def test_a_done_buffer_processed_twice_runs_its_tools_once(tools, driver):
    buf = LLMStreamBuffer()
    buf.add_all(openai_chat_stream([("call_1", "get_weather", WEATHER)]))
    first = driver.process_llm_response(buf)
    second = driver.process_llm_response(buf)
    assert tools.log == [("get_weather", {"city": "Paris"})]
    assert second is first and second.call_executed
    # after reset the buffer is a new stream: its call runs
    buf.reset()
    buf.add_all(openai_chat_stream([("call_2", "get_time", [])]))
    assert driver.process_llm_response(buf).call_executed
    assert tools.log[-1] == ("get_time", {})


def test_a_text_leak_stays_held_when_processed_twice(tools, driver):
    buf = LLMStreamBuffer()
    buf.add_all(["Ok. ", CALL_TEXT])
    buf.close()
    driver.process_llm_response(buf)
    driver.process_llm_response(buf)
    assert buf.pop_display() == "" and len(tools.log) == 1


def test_mid_stream_rounds_never_assemble_the_message(tools, driver, monkeypatch):
    buf = LLMStreamBuffer()
    chunks = anthropic_stream([("text", ["Hi. ", *split(CALL_TEXT, 3)]),
                               ("tool_use", "toolu_1", "get_weather", WEATHER)])
    assembled = []
    real = buf.as_dict
    monkeypatch.setattr(buf, "as_dict", lambda: assembled.append(buf.is_done()) or real())
    drive(buf, driver, chunks, tools)
    assert assembled == [True]  # once, at the end
    assert tools.log == [("get_weather", {"city": "Paris"})]


def test_mid_stream_scan_reads_each_delta_once(tools, driver, monkeypatch):
    buf = LLMStreamBuffer()
    seen = []
    real = buf.deltas_since

    def spy(position):
        deltas, new = real(position)
        seen.extend(deltas)
        return deltas, new

    monkeypatch.setattr(buf, "deltas_since", spy)
    pieces = split("Plain prose without any call in it at all. " * 5, 8)
    drive(buf, driver, anthropic_stream([("text", pieces)]), tools)
    assert seen == pieces  # every delta scanned exactly once, never the whole text again


def test_empty_buffer_reports_nothing(driver):
    buf = LLMStreamBuffer()
    assert driver.process_llm_response(buf) == DriverResponse()
    buf.close()
    assert driver.process_llm_response(buf) == DriverResponse()


# ---------------------------------------------------------------------------- bad input
@pytest.mark.parametrize("bad", [None, 3, b"bytes", ["a list"], object()])
def test_other_types_are_a_type_error_naming_the_accepted_ones(bad, driver):
    with pytest.raises(TypeError, match="str.*dict.*LLMStreamBuffer"):
        driver.process_llm_response(bad)


def test_an_unrecognised_dict_is_reported(driver):
    with pytest.raises(UnrecognisedStream, match="no extraction strategy recognizes"):
        driver.process_llm_response({"foo": 1, "bar": [2]})


def test_a_lone_opening_brace_is_held_until_it_proves_to_be_prose_or_a_call(tools, driver):
    buf = LLMStreamBuffer()
    run = drive(buf, driver, ["Ok. ", "{", "\n  ", '"tool": "get_time", "arguments": {}}'],
                tools, close=True)
    assert run.shown == "Ok. " and tools.log == [("get_time", {})]
    tools.log.clear()
    buf = LLMStreamBuffer()
    run = drive(buf, driver, ["Ok. ", "{", "1, 2} done.", " More."], tools, close=True)
    assert run.shown_before_done == "Ok. {1, 2} done."  # released the next round


def test_hermes_text_stream_holds_its_tag_split_across_chunks(tools):
    from mcs_reference import ExtractionChain, HermesCodec, TextStrategy

    hermes = TextStrategy(HermesCodec())
    driver = BaseDriver(tools.mapping(), chain=ExtractionChain([hermes]))
    body = '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call>'
    buf = driver.new_stream_buffer()
    run = drive(buf, driver, ["Looking. ", *split(body, 3)], tools, close=True)
    assert run.shown == "Looking. "
    assert tools.log == [("get_weather", {"city": "Paris"})]
    # Hermes results go back in the codec's own text format
    assert "<tool_response>" in run.responses[-1].messages[-1]["content"]
