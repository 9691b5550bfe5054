"""`GeminiStrategy`: `streamGenerateContent` records into the whole `generateContent` body."""
from __future__ import annotations

import copy

import pytest
from google.genai import types

from mcs_reference import BaseDriver, GeminiStrategy, LLMStreamBuffer, default_chain
from mcs_reference.calls import ExtractedCall, ToolCallRecord
from mcs_reference.errors import MalformedChunk, ProviderError, StreamError

USAGE = {"promptTokenCount": 29, "candidatesTokenCount": 15, "totalTokenCount": 44}
SIG = "c2lnbmF0dXJlMQ=="  # no '+' or '/': the SDK writes signatures back url-safe
SIG2 = "c2lnbmF0dXJlMg=="


def record(*parts, finish=None, index=0, usage=None, **candidate) -> dict:
    """One record of a stream, candidate 0 holding `parts`, in the Gemini API's envelope."""
    body = {"candidates": [{"content": {"parts": list(parts), "role": "model"}, **candidate}],
            "usageMetadata": usage or USAGE, "modelVersion": "gemini-2.5-flash",
            "responseId": "resp-1"}
    if finish is not None:
        body["candidates"][0]["finishReason"] = finish
    if index is not None:
        body["candidates"][0]["index"] = index
    return body


def call(name, args=None, *, id=None, **part) -> dict:
    function = {"name": name} if args is None else {"name": name, "args": args}
    if id is not None:
        function["id"] = id
    return {"functionCall": function, **part}


def streamed(*entries, name=None, more=True, **part) -> dict:
    """A Vertex `streamFunctionCallArguments` part."""
    function: dict = {} if name is None else {"name": name}
    if entries:
        function["partialArgs"] = list(entries)
    if more:
        function["willContinue"] = True
    return {"functionCall": function, **part}


def entry(path, more=False, **value) -> dict:
    return {"jsonPath": path, **value, **({"willContinue": True} if more else {})}


def sdk_reads(message: dict) -> None:
    """The google-genai SDK reads the body as it is, and writes it back unchanged."""
    response = types.GenerateContentResponse.model_validate(message)
    assert response.model_dump(mode="json", by_alias=True, exclude_none=True) == message


def run(chunks: list) -> tuple[GeminiStrategy, dict, str]:
    strategy = GeminiStrategy()
    acc = strategy.new_accumulator()
    shown = "".join(strategy.accumulate(acc, chunk) for chunk in chunks)
    message = strategy.as_message(acc)
    sdk_reads(message)
    return strategy, message, shown


def parts_of(message: dict) -> list:
    return message["candidates"][0]["content"]["parts"]


# -- identity and recognition --------------------------------------------------------------
def test_identity_and_place_in_the_default_chain():
    strategy = GeminiStrategy()
    assert strategy.name == "gemini" and strategy.leaks_into_text is True
    names = [s.name for s in default_chain()]
    assert names.index("gemini") == names.index("ollama-chat") + 1 == len(names) - 3


@pytest.mark.parametrize("shape", [
    record({"text": "hi"}), {"candidates": []}, {"usageMetadata": USAGE},
    {"promptFeedback": {"blockReason": "SAFETY"}, "usageMetadata": USAGE},
    {"candidates": [{"finishReason": "STOP"}], "createTime": "2025-12-01T21:48:45Z"},
])
def test_recognizes_records_and_bodies(shape):
    assert GeminiStrategy().recognizes(shape) is True


@pytest.mark.parametrize("shape", [
    None, "text", [record()], {"candidates": {}}, {"modelVersion": "gemini-2.5-flash"},
    {"error": {"code": 500, "message": "internal", "status": "INTERNAL"}},
    {"usageMetadata": USAGE, "type": "message_delta"},
    {"usage": USAGE, "choices": [], "object": "chat.completion.chunk"},
    {"message": {"role": "assistant", "content": ""}, "done": True, "usageMetadata": USAGE},
    {"candidates": [], "output": []},
    {"role": "assistant", "content": "hi"},
])
def test_recognizes_nothing_else(shape):
    assert GeminiStrategy().recognizes(shape) is False


def test_recognizes_never_raises():
    class Hostile(dict):
        def get(self, *args):
            raise RuntimeError("hostile")

    assert GeminiStrategy().recognizes(Hostile(candidates=[])) is False


# -- text, thoughts and signatures ---------------------------------------------------------
def test_text_runs_merge_and_the_empty_final_part_is_dropped():
    strategy, message, shown = run([record({"text": "The capital"}), record({"text": " is Paris."}),
                                    record({"text": ""}, finish="STOP")])
    assert shown == "The capital is Paris."
    assert message == {
        "candidates": [{"content": {"parts": [{"text": "The capital is Paris."}], "role": "model"},
                        "finishReason": "STOP", "index": 0}],
        "usageMetadata": USAGE, "modelVersion": "gemini-2.5-flash", "responseId": "resp-1"}
    assert strategy.content_text(message) == shown and strategy.extract(message) == []


def test_thoughts_make_their_own_run_and_are_not_shown():
    strategy, message, shown = run([
        record({"text": "**Planning**", "thought": True}), record({"text": " more", "thought": True}),
        record({"text": "Answer"}), record({"text": "", "thought": True}),
        record({"text": " done"}, finish="STOP")])
    assert shown == "Answer done" == strategy.content_text(message)
    assert parts_of(message) == [{"text": "**Planning** more", "thought": True},
                                 {"text": "Answer done"}]


def test_a_signature_ends_a_run_and_a_signed_empty_part_joins_the_run_before_it():
    _, message, _ = run([
        record({"text": "There are 3", "thought": True}),
        record({"text": "", "thought": True, "thoughtSignature": SIG}),  # closes the thought run
        record({"text": " more thoughts", "thought": True}),
        record({"text": "Three r"}), record({"text": "s."}),
        record({"text": "", "thoughtSignature": SIG2}, finish="STOP")])
    assert parts_of(message) == [
        {"text": "There are 3", "thought": True, "thoughtSignature": SIG},
        {"text": " more thoughts", "thought": True},
        {"text": "Three rs.", "thoughtSignature": SIG2}]


def test_a_signed_empty_part_after_a_signed_one_or_a_call_is_a_part_of_its_own():
    _, message, _ = run([record({"text": "a", "thoughtSignature": SIG}),
                         record({"text": "", "thoughtSignature": SIG2}),
                         record(call("f", {}), {"text": "", "thoughtSignature": SIG}),
                         record({"text": "b"}), record({"text": "c"}, finish="STOP")])
    assert parts_of(message) == [
        {"text": "a", "thoughtSignature": SIG}, {"text": "", "thoughtSignature": SIG2},
        call("f", {}), {"text": "", "thoughtSignature": SIG}, {"text": "bc"}]


def test_merged_parts_keep_new_keys_of_later_parts():
    _, message, _ = run([record({"text": "a"}), record({"text": "b", "thought": False}),
                         record({"text": "c", "thoughtSignature": SIG}, finish="STOP")])
    assert parts_of(message) == [{"text": "abc", "thought": False, "thoughtSignature": SIG}]


# -- whole calls ---------------------------------------------------------------------------
def test_a_call_with_its_signature_then_the_empty_stop_record():
    strategy, message, shown = run([record(call("weather", {"location": "Paris"},
                                                 thoughtSignature=SIG)),
                                    record({"text": ""}, finish="STOP")])
    assert shown == "" and parts_of(message) == [call("weather", {"location": "Paris"},
                                                      thoughtSignature=SIG)]
    assert strategy.extract(message) == [ExtractedCall("weather", {"location": "Paris"})]
    assert strategy.forming_name(message) == "weather"


def test_parallel_calls_in_one_record_and_across_records_keep_their_order():
    strategy, message, _ = run([
        record(call("print", {"text": "hello"}, thoughtSignature=SIG), call("beep", {})),
        record(call("light", {"brightness": 50})), record(call("beep"), finish="STOP")])
    assert [part["functionCall"]["name"] for part in parts_of(message)] == \
        ["print", "beep", "light", "beep"]
    assert "thoughtSignature" not in parts_of(message)[1]
    assert strategy.extract(message) == [
        ExtractedCall("print", {"text": "hello"}), ExtractedCall("beep", {}),
        ExtractedCall("light", {"brightness": 50}), ExtractedCall("beep", {})]


def test_a_call_with_an_id_and_a_call_without_args():
    strategy, message, _ = run([record(call("add_person", {"age": 30}, id="whZntcQw")),
                                record(call("read_theme"), finish="STOP")])
    assert parts_of(message)[1] == {"functionCall": {"name": "read_theme"}}  # no args added
    assert strategy.extract(message) == [ExtractedCall("add_person", {"age": 30}, "whZntcQw"),
                                         ExtractedCall("read_theme", {})]


def test_text_then_call_then_text():
    strategy, message, shown = run([record({"text": "Let me check. "}), record(call("f", {"a": 1})),
                                    record({"text": "Done."}, finish="STOP")])
    assert shown == "Let me check. Done." == strategy.content_text(message)
    assert [list(part) for part in parts_of(message)] == [["text"], ["functionCall"], ["text"]]


# -- Vertex streamed arguments (partialArgs) -----------------------------------------------
def test_strings_split_with_will_continue_and_closed_by_an_empty_string():
    strategy, message, _ = run([
        record(streamed(name="getWeather", thoughtSignature=SIG)),
        record(streamed(entry("$.location", True, stringValue="Bos"))),
        record(streamed(entry("$.location", True, stringValue="ton"))),
        record(streamed(entry("$.location", stringValue=""))),
        record(streamed(more=False)),  # the bare {} terminator: absorbed
        record(streamed(name="getWeather")),
        record(streamed(entry("$.location", True, stringValue="San Francisco"))),
        record(streamed(entry("$.location", stringValue=""))),
        record(streamed(more=False), finish="STOP")])
    assert parts_of(message) == [
        {"functionCall": {"name": "getWeather", "args": {"location": "Boston"}},
         "thoughtSignature": SIG},
        {"functionCall": {"name": "getWeather", "args": {"location": "San Francisco"}}}]
    assert strategy.extract(message) == [ExtractedCall("getWeather", {"location": "Boston"}),
                                         ExtractedCall("getWeather", {"location": "San Francisco"})]


def test_numbers_bools_null_and_a_string_set_twice():
    _, message, _ = run([
        record(streamed(name="f")),
        record(streamed(entry("$.n", numberValue=2), entry("$.x", numberValue=0.5),
                        entry("$.b", boolValue=False), entry("$.z", nullValue="NULL_VALUE"))),
        record(streamed(entry("$.s", stringValue="first"))),
        record(streamed(entry("$.s", stringValue="second"))),  # no willContinue before: set
        record(streamed(entry("$.t", True, stringValue="a"), entry("$.t", stringValue=""))),
        record(streamed(entry("$.t", stringValue="new"))),  # "a" was closed: set again
        record(streamed(more=False), finish="STOP")])
    assert parts_of(message)[0]["functionCall"]["args"] == {
        "n": 2, "x": 0.5, "b": False, "z": None, "s": "second", "t": "new"}


@pytest.mark.parametrize("end", [record(streamed(more=False)), record(finish="STOP"),
                                 record({"text": "x"}), record(call("g", {}))])
def test_after_its_end_a_streamed_call_takes_no_more_arguments(end):
    with pytest.raises(MalformedChunk, match="no call is open"):
        run([record(streamed(name="f")), end, record(streamed(entry("$.x", numberValue=1)))])


def test_nested_paths_create_objects_and_arrays_and_quoted_keys():
    _, message, _ = run([
        record(streamed(name="cook")),
        record(streamed(entry("$.a.b[0].c", True, stringValue="16 "))),
        record(streamed(more=True)),  # a no-op continuation between entries
        record(streamed(entry("$.a.b[0].c", True, stringValue="oz"),
                        entry("$.a.b[0].c", stringValue=""))),
        record(streamed(entry("$.a.b[1].c", stringValue="1 lb"))),
        record(streamed(entry("$.a.b[1].d[0]", boolValue=True))),
        record(streamed(entry('$["x y"]["a.b"]', numberValue=1),
                        entry('$["x y"]["\\"q\\""]', stringValue="quoted"))),
        record(streamed(entry("$.steps[0]", stringValue="Preheat."))),
        record(streamed(entry("$.steps[1]", True, stringValue="Cook"))),
        record(streamed(entry("$.steps[1]", True, stringValue="."))),
        record(streamed(entry("$.steps[1]", stringValue=""))),
        record(streamed(more=False)), record({"text": ""}, finish="STOP")])
    assert parts_of(message) == [{"functionCall": {"name": "cook", "args": {
        "a": {"b": [{"c": "16 oz"}, {"c": "1 lb", "d": [True]}]},
        "x y": {"a.b": 1, '"q"': "quoted"},
        "steps": ["Preheat.", "Cook."]}}}]


def test_the_single_chunk_form_and_a_call_streamed_with_no_arguments():
    strategy, message, _ = run([
        record(streamed(entry("$.denominator", numberValue=2), entry("$.numerator", numberValue=100),
                        name="customDivide", more=False, thoughtSignature=SIG)),
        record(streamed(name="read_screen")), record(streamed(more=False), finish="STOP")])
    assert parts_of(message) == [
        {"functionCall": {"name": "customDivide", "args": {"denominator": 2, "numerator": 100}},
         "thoughtSignature": SIG},
        {"functionCall": {"name": "read_screen", "args": {}}}]  # args always present here
    assert strategy.extract(message)[1] == ExtractedCall("read_screen", {})


def test_a_streamed_call_closes_without_terminator_on_another_part_or_a_finish_reason():
    _, message, _ = run([
        record(streamed(name="a")), record(streamed(entry("$.x", numberValue=1))),
        record(streamed(name="b")), record(streamed(entry("$.y", numberValue=2))),
        record({"text": "then text"}),
        record(streamed(name="c")), record(streamed(entry("$.z", numberValue=3)), finish="STOP")])
    assert [part.get("functionCall", {}).get("args") for part in parts_of(message)] == \
        [{"x": 1}, {"y": 2}, None, {"z": 3}]


def test_a_streamed_call_keeps_its_id_and_a_later_signature():
    strategy, message, _ = run([
        record({"functionCall": {"name": "f", "id": "c1", "willContinue": True}}),
        record(streamed(entry("$.q", stringValue="x"), thoughtSignature=SIG)),
        record(streamed(more=False), finish="STOP")])
    assert parts_of(message) == [{"functionCall": {"name": "f", "args": {"q": "x"}, "id": "c1"},
                                  "thoughtSignature": SIG}]
    assert strategy.extract(message) == [ExtractedCall("f", {"q": "x"}, "c1")]


def test_the_forming_name_is_known_from_the_opening_chunk():
    buf = LLMStreamBuffer(GeminiStrategy())
    buf.add(record({"text": "Thinking", "thought": True}))
    assert buf.forming_name() is None
    buf.add(record(streamed(name="cookRecipe")))
    assert buf.forming_name() == "cookRecipe" and not buf.is_done()
    buf.add(record(streamed(entry("$.recipe", stringValue="x"))))
    buf.add(record({"text": "after"}))
    assert buf.forming_name() == "cookRecipe"  # the last call, even with text after it
    buf.add(record(streamed(more=False), finish="STOP"))
    assert buf.is_done() and buf.forming_name() == "cookRecipe"


def test_a_long_string_argument_in_many_pieces_is_joined_once():
    pieces = [record(streamed(entry("$.text", True, stringValue="ab"))) for _ in range(5000)]
    strategy = GeminiStrategy()
    acc = strategy.new_accumulator()
    strategy.accumulate(acc, record(streamed(name="write")))
    for chunk in pieces:
        strategy.accumulate(acc, chunk)
    holder = acc.candidates[0].open.args["text"]
    assert len(holder.pieces) == 5000  # kept in pieces, never re-joined per chunk
    strategy.accumulate(acc, record(streamed(entry("$.text", stringValue="")), finish="STOP"))
    assert strategy.extract(strategy.as_message(acc))[0].arguments == {"text": "ab" * 5000}


# -- other candidates, other parts, other fields -------------------------------------------
def test_max_tokens_with_a_content_but_no_parts():
    body = {"candidates": [{"content": {"role": "model"}, "finishReason": "MAX_TOKENS", "index": 0}],
            "modelVersion": "gemini-2.5-pro", "responseId": "r", "usageMetadata": USAGE}
    strategy, message, shown = run([body])
    assert message == body and shown == ""
    assert strategy.extract(message) == [] and strategy.content_text(message) == ""
    assert strategy.result_messages(message, []) == [{"role": "model", "parts": []}]


def test_vertex_records_without_index_and_fields_where_the_last_non_null_wins():
    first = record({"text": "a"}, index=None, safetyRatings=[{"category": "HARM_CATEGORY_HATE_SPEECH",
                                                              "probability": "NEGLIGIBLE"}])
    first["createTime"] = "2025-08-16T00:45:55.962384Z"
    last = record({"text": "b"}, index=None, finish="STOP", usage={"totalTokenCount": 9},
                  avgLogprobs=-0.5)
    last["modelVersion"] = None
    _, message, _ = run([first, last])
    candidate = message["candidates"][0]
    assert "index" not in candidate and candidate["finishReason"] == "STOP"
    assert candidate["safetyRatings"] == first["candidates"][0]["safetyRatings"]
    assert candidate["avgLogprobs"] == -0.5
    assert message["usageMetadata"] == {"totalTokenCount": 9}
    assert message["modelVersion"] == "gemini-2.5-flash"  # a null does not erase it
    assert message["createTime"] == "2025-08-16T00:45:55.962384Z"


def test_candidates_are_kept_apart_by_index_and_listed_in_order():
    two = {"candidates": [{"content": {"parts": [{"text": "B"}], "role": "model"}, "index": 1},
                          {"content": {"parts": [{"text": "A"}], "role": "model"}, "index": 0}]}
    strategy, message, shown = run([two, two, {"candidates": [{"index": 1, "finishReason": "STOP"}],
                                               "usageMetadata": USAGE}])
    assert shown == "AA"  # only candidate 0 is displayed
    assert [c["content"]["parts"][0]["text"] for c in message["candidates"]] == ["AA", "BB"]
    assert message["candidates"][1]["finishReason"] == "STOP"


def test_a_usage_only_last_record_and_other_parts_are_kept_whole():
    image = {"inlineData": {"mimeType": "image/png", "data": "iVBORw0KGgo="}}
    code = {"executableCode": {"language": "PYTHON", "code": "print(1)"}}
    _, message, _ = run([record({"text": "a"}, image, code, {"thoughtSignature": SIG}),
                         record({"text": "b"}, finish="STOP"),
                         {"usageMetadata": {"totalTokenCount": 99}}])
    assert parts_of(message) == [{"text": "a"}, image, code, {"thoughtSignature": SIG},
                                 {"text": "b"}]
    assert message["usageMetadata"] == {"totalTokenCount": 99}


def test_as_message_returns_fresh_objects_and_chunks_are_not_mutated():
    chunks = [record({"text": "a", "thought": True}), record(call("f", {"x": [1]})),
              record(streamed(name="g")), record(streamed(entry("$.y[0]", stringValue="v"))),
              record({"text": "b"}, finish="STOP")]
    snapshot = copy.deepcopy(chunks)
    strategy = GeminiStrategy()
    acc = strategy.new_accumulator()
    for chunk in chunks:
        strategy.accumulate(acc, chunk)
    body = strategy.as_message(acc)
    expected = copy.deepcopy(body)
    parts_of(body)[1]["functionCall"]["args"]["x"].append(2)
    parts_of(body)[2]["functionCall"]["args"]["y"][0] = "changed"
    parts_of(body)[0]["text"] = "changed"
    body["usageMetadata"]["totalTokenCount"] = -1
    assert strategy.as_message(acc) == expected
    strategy.result_messages(expected, [ToolCallRecord("f", {}, 1)])
    assert chunks == snapshot


# -- the model's call failed, server-side calls, history -----------------------------------
@pytest.mark.parametrize("reason", ["MALFORMED_FUNCTION_CALL", "UNEXPECTED_TOOL_CALL",
                                    "TOO_MANY_TOOL_CALLS"])
def test_a_failed_call_is_a_failed_call_record_never_an_empty_success(reason):
    said = "Malformed function call: print(default_api.f(x=))"
    strategy, message, _ = run([record({"text": "I will call f."}),
                                {"candidates": [{"content": {}, "finishReason": reason,
                                                 "finishMessage": said, "index": 0}]}])
    assert strategy.extract(message) == [ExtractedCall("", {}, None, f"{reason}: {said}", said)]
    _, bare, _ = run([{"candidates": [{"content": {"parts": [{"thoughtSignature": SIG}]},
                                       "finishReason": reason}]}])
    assert strategy.extract(bare) == [ExtractedCall("", {}, None, reason, "")]
    reply = BaseDriver({"f": lambda x: x}).process_llm_response(message)
    assert reply.call_failed and not reply.call_executed and reply.retry_prompt


def test_calls_before_a_failed_call_come_first():
    _, message, _ = run([record(call("f", {"x": 1})),
                         record(finish="MALFORMED_FUNCTION_CALL")])
    assert [c.name for c in GeminiStrategy().extract(message)] == ["f", ""]


def test_a_call_the_server_ran_itself_is_not_extracted():
    result = {"functionResponse": {"name": "weather_get", "response": {"json": "{}"}}}
    strategy, message, shown = run([
        record(call("weather_get", {"location": "SF"}), finish="STOP",
               finishMessage="Model generated function call(s)."),
        record(result), record({"text": "It is 18"}), record({"text": "°C."}, finish="STOP")])
    assert shown == "It is 18°C." and len(parts_of(message)) == 3
    assert strategy.extract(message) == []
    # a response to another call does not hide a client call; ids must match when both exist
    _, other, _ = run([record(call("mine", {}), call("weather_get", {}, id="a"),
                              call("weather_get", {}, id="b"),
                              {"functionResponse": {"name": "weather_get", "id": "a",
                                                    "response": {}}}, finish="STOP")])
    assert strategy.extract(other) == [ExtractedCall("mine", {}),
                                       ExtractedCall("weather_get", {}, "b")]


def test_result_messages_send_the_model_turn_back_and_one_function_response_a_record():
    strategy, message, _ = run([record({"text": "t", "thought": True, "thoughtSignature": SIG},
                                       call("f", {"a": 1}, id="c1", thoughtSignature=SIG2),
                                       call("g", {}), finish="STOP")])
    records = [ToolCallRecord("f", {"a": 1}, {"ok": True}, tool_call_id="c1"),
               ToolCallRecord("g", {}, error="boom")]
    assert strategy.result_messages(message, records) == [
        {"role": "model", "parts": parts_of(message)},
        {"role": "user", "parts": [
            {"functionResponse": {"name": "f", "response": {"result": {"ok": True}}, "id": "c1"}},
            {"functionResponse": {"name": "g", "response": {"error": "boom"}}}]}]
    history = strategy.result_messages(message, records)
    for turn in history:
        types.Content.model_validate(turn)


def test_the_driver_runs_a_streamed_call_once_the_stream_ends():
    driver = BaseDriver({"getWeather": lambda location: f"18 C in {location}"})
    buf = driver.new_stream_buffer()
    for chunk in [record(streamed(name="getWeather")),
                  record(streamed(entry("$.location", stringValue="Paris"))),
                  record(streamed(more=False)), record({"text": ""}, finish="STOP")]:
        buf.add(chunk)
        reply = driver.process_llm_response(buf)
    assert buf.strategy.name == "gemini" and reply.call_executed
    assert reply.messages[1]["parts"] == [
        {"functionResponse": {"name": "getWeather", "response": {"result": "18 C in Paris"}}}]


# -- provider errors -----------------------------------------------------------------------
def test_an_error_record_raises_provider_error_and_keeps_what_came_before():
    buf = LLMStreamBuffer(GeminiStrategy())
    buf.add(record({"text": "Hello"}))
    error = {"code": 503, "message": "The model is overloaded.", "status": "UNAVAILABLE"}
    with pytest.raises(ProviderError) as info:
        buf.add({"error": error})
    assert info.value.error == error and info.value.message == "The model is overloaded."
    assert info.value.index == 1 and not buf.is_done()
    assert GeminiStrategy().content_text(buf.as_dict()) == "Hello"


def test_a_blocked_prompt_is_a_provider_error():
    with pytest.raises(ProviderError) as info:
        run([{"promptFeedback": {"blockReason": "PROHIBITED_CONTENT"}, "usageMetadata": USAGE}])
    assert info.value.error == {"status": "PROHIBITED_CONTENT", "message": "PROHIBITED_CONTENT"}
    with pytest.raises(ProviderError) as info:
        run([{"promptFeedback": {"blockReason": "OTHER", "blockReasonMessage": "Blocked."}}])
    assert info.value.message == "Blocked."


@pytest.mark.parametrize("reason", ["SAFETY", "RECITATION", "OTHER", "PROHIBITED_CONTENT",
                                    "MISSING_THOUGHT_SIGNATURE", "SOMETHING_NEW"])
def test_a_refused_answer_is_a_provider_error_and_its_record_leaves_no_trace(reason):
    strategy = GeminiStrategy()
    acc = strategy.new_accumulator()
    strategy.accumulate(acc, record({"text": "Once upon"}))
    before = strategy.as_message(acc)
    with pytest.raises(ProviderError) as info:
        strategy.accumulate(acc, record({"text": " a time"}, finish=reason))
    assert info.value.error == {"status": reason, "message": reason}
    assert strategy.as_message(acc) == before
    with pytest.raises(ProviderError) as info:
        strategy.accumulate(acc, record(finish=reason, finishMessage="Stopped."))
    assert info.value.message == "Stopped."


@pytest.mark.parametrize("reason", ["STOP", "MAX_TOKENS", "FINISH_REASON_UNSPECIFIED",
                                    "CONTINUATION"])
def test_normal_ends_are_done(reason):
    strategy, message, _ = run([record({"text": "x"}, finish=reason)])
    assert strategy.is_done(record(finish=reason)) and strategy.extract(message) == []
    assert not strategy.is_done(record({"text": "x"})) and not strategy.is_done("x")


# -- bad input -----------------------------------------------------------------------------
def text_then(*parts, **candidate) -> dict:
    """A record of one candidate 0 holding `parts`, in the shape of the hot path's text
    records (its envelope and keys), to spoil one thing of it at a time."""
    return {"candidates": [{"content": {"parts": list(parts), "role": "model"}, **candidate}],
            "modelVersion": "gemini-2.5-flash"}


MALFORMED = [
    ([1], "chunk is a list"),
    ({"candidates": {}}, "candidates is a dict"),
    ({"candidates": ["x"]}, "candidates[0] is a str"),
    ({"candidates": [{"index": "0"}]}, "candidates[0].index is '0'"),
    ({"candidates": [{"content": []}]}, "candidates[0].content is a list"),
    ({"candidates": [{"content": {"parts": {}}}]}, "content.parts is a dict"),
    (record("text"), "parts[0] is a str"),
    (record({"text": 5}), "parts[0].text is a int"),
    (record({"text": "a", "thought": "yes"}), "parts[0].thought is a str"),
    (record({"text": "a", "thoughtSignature": 1}), "thoughtSignature is a int"),
    (record({"functionCall": "f"}), "parts[0].functionCall is a str"),
    (record(call(7, {})), "functionCall.name is a int"),
    (record(call("f", {}, id=3)), "functionCall.id is a int"),
    (record({"functionCall": {"name": "f", "partialArgs": 1}}), "functionCall.partialArgs is a int"),
    (record(streamed(entry("$.x", stringValue="a"))), "no call is open"),
    (record({"text": "a"}, finish=3), "finishReason is a int"),
    ({"promptFeedback": "blocked"}, "promptFeedback is a str"),
    (text_then({"text": "a"}, index=True), "candidates[0].index is True"),
    (text_then({"text": "a"}, index=-1), "candidates[0].index is -1"),
    (text_then({"text": 5}), "parts[0].text is a int"),
    (text_then({"text": "a"}, 5), "parts[1] is a int"),
    (text_then({"text": "a"}, finishReason=3), "finishReason is a int"),
    ({"candidates": [{"content": {"parts": [{"text": "a"}], "role": 3}}]}, "content.role is a int"),
    ({"candidates": [{"content": {"parts": ({"text": "a"},)}}]}, "content.parts is a tuple"),
    ({"candidates": [{"content": {"parts": [{"text": "a"}]}}, "x"]}, "candidates[1] is a str"),
    ({"candidates": [{"content": {"parts": [{"text": "a"}]}}], "promptFeedback": 1},
     "promptFeedback is a int"),
]


@pytest.mark.parametrize("bad, says", MALFORMED)
def test_a_malformed_record_says_where_and_what(bad, says):
    with pytest.raises(MalformedChunk) as info:
        run([bad])
    assert says in str(info.value) and "expected" in str(info.value)


@pytest.mark.parametrize("bad, says", MALFORMED)
def test_a_malformed_record_after_text_leaves_no_trace(bad, says):
    strategy = GeminiStrategy()
    acc = strategy.new_accumulator()
    strategy.accumulate(acc, text_then({"text": "Once"}))
    before = strategy.as_message(acc)
    with pytest.raises(MalformedChunk) as info:
        strategy.accumulate(acc, bad)
    assert says in str(info.value)
    assert strategy.as_message(acc) == before
    assert strategy.accumulate(acc, text_then({"text": " upon"})) == " upon"
    assert strategy.content_text(strategy.as_message(acc)) == "Once upon"


@pytest.mark.parametrize("bad_entry, says", [
    ({"stringValue": "a"}, "no string jsonPath"),
    ({"jsonPath": "$.a"}, "has 0 values"),
    ({"jsonPath": "$.a", "stringValue": "a", "numberValue": 1}, "has 2 values"),
    ({"jsonPath": "$.a", "numberValue": "1"}, "bad numberValue"),
    ({"jsonPath": "$.a", "numberValue": True}, "bad numberValue"),
    ({"jsonPath": "$.a", "boolValue": 1}, "bad boolValue"),
    ({"jsonPath": "$.a", "nullValue": 0}, "bad nullValue"),
    ({"jsonPath": "$.a", "stringValue": "a", "willContinue": "yes"}, "bad willContinue"),
    ({"jsonPath": "a", "stringValue": "a"}, "does not start with '$'"),
    ({"jsonPath": "$", "stringValue": "a"}, "names the arguments object itself"),
    ({"jsonPath": "$.", "stringValue": "a"}, "no name after"),
    ({"jsonPath": "$.1a", "stringValue": "a"}, "no name after"),
    ({"jsonPath": "$[x]", "stringValue": "a"}, "unexpected '['"),
    ({"jsonPath": "$[01]", "stringValue": "a"}, "unexpected '['"),
    ({"jsonPath": '$["a"', "stringValue": "a"}, "no ']'"),
    ({"jsonPath": '$["a]', "stringValue": "a"}, "bad quoted key"),
    ({"jsonPath": "$.a b", "stringValue": "a"}, "unexpected ' '"),
    ({"jsonPath": "$[0]", "stringValue": "a"}, "names index 0 in an object"),
    ({"jsonPath": "$.s.t", "stringValue": "a"}, "goes through a string where it needs an object"),
    ({"jsonPath": "$.n[0]", "stringValue": "a"}, "goes through a number where it needs an array"),
    ({"jsonPath": "$.list.k", "stringValue": "a"}, "goes through an array where it needs an obj"),
    ({"jsonPath": "$.list[3]", "stringValue": "a"}, "sets index 3 of an array of 2 items"),
    ({"jsonPath": "$.list[0].k", "stringValue": "a"}, "goes through a boolean where it needs an"),
])
def test_a_bad_partial_args_entry_says_what_and_leaves_no_trace(bad_entry, says):
    strategy = GeminiStrategy()
    acc = strategy.new_accumulator()
    for chunk in [record(streamed(name="f")),
                  record(streamed(entry("$.s", True, stringValue="open"), entry("$.n", numberValue=1),
                                  entry("$.list[0]", boolValue=True)))]:
        strategy.accumulate(acc, chunk)
    before = strategy.as_message(acc)
    # good entries before the bad one, in the same record, are taken back with it
    with pytest.raises(MalformedChunk) as info:
        strategy.accumulate(acc, record(streamed(
            entry("$.s", True, stringValue=" more"), entry("$.list[1]", numberValue=2),
            entry("$.new.deep[0]", stringValue="x"), bad_entry)))
    assert says in str(info.value), str(info.value)
    assert strategy.as_message(acc) == before
    assert acc.candidates[0].open.args["s"].open  # the string stays open for what comes next
    strategy.accumulate(acc, record(streamed(entry("$.s", stringValue="!")), finish="STOP"))
    assert strategy.extract(strategy.as_message(acc))[0].arguments == {
        "s": "open!", "n": 1, "list": [True]}


def test_a_part_with_a_null_function_call_is_kept_whole_and_is_no_call():
    """It once raised AttributeError while folding, with the part already kept."""
    strategy = GeminiStrategy()
    acc = strategy.new_accumulator()
    shown = [strategy.accumulate(acc, chunk) for chunk in
             (record({"text": "Hi"}), record({"text": " there", "functionCall": None}))]
    message = strategy.as_message(acc)
    assert parts_of(message) == [{"text": "Hi"}, {"text": " there", "functionCall": None}]
    assert shown == ["Hi", ""] and strategy.extract(message) == []
    assert strategy.forming_name(message) is None is strategy.forming_name_of(acc)


def test_a_bad_record_in_a_buffer_names_its_position():
    buf = LLMStreamBuffer(GeminiStrategy())
    buf.add(record({"text": "a"}))
    with pytest.raises(StreamError) as info:
        buf.add(record({"functionCall": {"name": "f", "partialArgs": [{"jsonPath": "$..x"}]}}))
    assert str(info.value).startswith("chunk 1: ")


def test_a_continuation_that_carries_args_is_refused_and_a_nameless_call_is_reported():
    with pytest.raises(MalformedChunk, match="continues 'f' but carries"):
        run([record(streamed(name="f")), record({"functionCall": {"args": {"x": 1}}})])
    strategy, message, _ = run([record({"functionCall": {"args": {"x": 1}}}, finish="STOP")])
    [nameless] = strategy.extract(message)
    assert nameless.name == "" and nameless.error == "tool call has no name"
    assert nameless.raw_arguments == '{"args": {"x": 1}}'


def test_reading_a_bad_body_raises_a_stream_error():
    strategy = GeminiStrategy()
    for bad in ["text", {"candidates": {}}, {"candidates": [3]},
                {"candidates": [{"content": {"parts": "x"}}]},
                {"candidates": [{"content": {"parts": [3]}}]}]:
        with pytest.raises(MalformedChunk):
            strategy.extract(bad)
    assert strategy.extract({"usageMetadata": USAGE}) == []
    assert strategy.content_text({"candidates": [{"index": 1}]}) == ""
    assert strategy.forming_name({"candidates": [{"content": {}}]}) is None
