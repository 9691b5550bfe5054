"""Repro: SGLang Glm4MoeDetector (glm45) -- a second call in the stream's last delta is lost.

The streaming parser completes one call per delta and keeps the rest in its buffer; when two calls
arrive in the delta that carries the finish reason, nothing reads the buffer again, so the second
call never streams.

Needs only SGLang's tool-call code: `pip install sglang` (module sglang.srt) or
`pip install --no-deps llm-router-utils==0.8.1` (the same files as llm_router_utils.sglang.srt).
Drives the parser the way SGLang's OpenAI server does (serving_chat.py): streamed, one
`FunctionCallParser.parse_stream_chunk` per delta, `parse_stream_end` on the delta that carries
the finish reason, then `OpenAIServingChat._check_for_unstreamed_tool_args`; not streamed,
`FunctionCallParser.parse_non_stream`. Exits 1 while the bug is there, 0 once fixed.
"""
import json
import logging
import sys

logging.disable(logging.CRITICAL)
try:
    from sglang.srt.entrypoints.openai.protocol import Tool
    from sglang.srt.entrypoints.openai.serving_chat import OpenAIServingChat
    from sglang.srt.function_call.function_call_parser import FunctionCallParser
except ImportError:
    from llm_router_utils.sglang.srt.entrypoints.openai.protocol import Tool
    from llm_router_utils.sglang.srt.entrypoints.openai.serving_chat import OpenAIServingChat
    from llm_router_utils.sglang.srt.function_call.function_call_parser import FunctionCallParser

PARSER = 'glm45'  # --tool-call-parser
TOOLS = [{'function': {'description': 'the tool get_weather',
               'name': 'get_weather',
               'parameters': {'properties': {}, 'type': 'object'}},
  'type': 'function'},
 {'function': {'description': 'the tool get_weather_1',
               'name': 'get_weather_1',
               'parameters': {'properties': {}, 'type': 'object'}},
  'type': 'function'}]
# The model's output as the server streams it: one string per SSE delta.
DELTAS = ['<tool_call>get_weather\n</tool_call>\n<tool_call>get_weather_1\n</tool_call>']
EXPECTED_CALLS = [{'arguments': {}, 'name': 'get_weather'}, {'arguments': {}, 'name': 'get_weather_1'}]
EXPECTED_CONTENT = ''
MALFORMED = False  # the model wrote arguments that are no JSON object


class _Request:  # the only request field _check_for_unstreamed_tool_args reads
    model = "m"


def streamed():
    parser = FunctionCallParser([Tool(**t) for t in TOOLS], PARSER)
    content, calls = "", {}
    for number, delta in enumerate(DELTAS):
        text, items = parser.parse_stream_chunk(delta)
        if number == len(DELTAS) - 1:  # the delta carrying the finish reason
            end_text, end_items = parser.parse_stream_end()
            text, items = (text or "") + end_text, list(items) + end_items
        content += text or ""
        for item in items:
            call = calls.setdefault(item.tool_index, {"name": None, "arguments": ""})
            call["name"] = item.name or call["name"]
            call["arguments"] += item.parameters or ""
    sse = OpenAIServingChat._check_for_unstreamed_tool_args(
        None, parser, {"meta_info": {"id": "x"}}, _Request(), 0, 0)
    if sse:
        for entry in json.loads(sse[len("data: "):])["choices"][0]["delta"]["tool_calls"]:
            calls[entry["index"]]["arguments"] += entry["function"]["arguments"] or ""
    return content, [calls[k] for k in sorted(calls)]


def whole():
    parser = FunctionCallParser([Tool(**t) for t in TOOLS], PARSER)
    text = "".join(DELTAS)
    if not parser.has_tool_call(text):
        return text, []
    content, items = parser.parse_non_stream(text)
    return content, [{"name": i.name, "arguments": i.parameters} for i in items]


def view(calls):
    out = []
    for call in calls:
        try:
            arguments = json.loads(call["arguments"] or "{}")
        except ValueError:
            arguments = call["arguments"]
        out.append({"name": call["name"], "arguments": arguments})
    return out


def wrong(content, calls):
    if MALFORMED:  # must not come out as a call with a JSON object the model never wrote
        return any(isinstance(c["arguments"], dict) for c in view(calls))
    return view(calls) != EXPECTED_CALLS or "".join(content.split()) != "".join(EXPECTED_CONTENT.split())


def main():
    print("text:      ", repr("".join(DELTAS)), "in", len(DELTAS), "deltas")
    print("expected:  ", "calls", EXPECTED_CALLS if not MALFORMED else "(none with object arguments)",
          "content", repr(EXPECTED_CONTENT))
    failed = False
    for label, (content, calls) in (("non-stream", whole()), ("streamed", streamed())):
        bad = wrong(content, calls)
        failed |= bad
        print(f"{label + ':':12}", "calls", view(calls), "content", repr(content), "<- WRONG" if bad else "")
    print("BUG PRESENT" if failed else "fixed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
