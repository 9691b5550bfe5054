"""Every wire builds its calls with the same builders, so a bad argument text is an error call
the same way everywhere: NaN, Infinity and a number that overflows a double are no JSON a tool
can be given, whether the text or an already-parsed chunk carries them."""
from __future__ import annotations

import json

import pytest

from mcs_reference import OpenAIChatStrategy
from mcs_reference.calls import call_from_json_text, call_from_object


@pytest.mark.parametrize("text", ['{"x": NaN}', '{"x": -Infinity}', '{"x": 1e400}',
                                  '{"a": [1, {"b": Infinity}]}'])
def test_a_non_finite_number_in_the_arguments_text_is_an_error_call(text):
    call = call_from_json_text("f", text, "call_1")
    assert call.error and call.arguments == {} and call.raw_arguments == text


def test_a_non_finite_number_in_parsed_arguments_is_an_error_call():
    call = call_from_object("f", {"a": [1.5, {"b": float("nan")}]}, "toolu_1")
    assert call.error and call.arguments == {} and "NaN" in call.raw_arguments
    assert call_from_object("f", {"a": [1.5, {"b": 1e300}]}).error is None


def test_openai_chat_reports_nan_arguments_as_an_error_call():
    message = {"role": "assistant", "content": None, "tool_calls": [
        {"id": "call_1", "type": "function",
         "function": {"name": "f", "arguments": '{"x": NaN}'}}]}
    [call] = OpenAIChatStrategy().extract(json.loads(json.dumps(message)))
    assert call.error and call.raw_arguments == '{"x": NaN}'
