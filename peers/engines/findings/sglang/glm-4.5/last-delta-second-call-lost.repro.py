"""Repro: SGLang Glm4MoeDetector (glm45) -- a second call in the stream's last delta is lost.

The streaming parser completes one call per delta and keeps the rest in its buffer; when two calls
arrive in the delta that carries the finish reason, nothing reads the buffer again, so the second
call never streams.

SGLang 0.5.22's code as `pip install --no-deps llm-router-utils==0.8.1` ships it (`sglang.srt` in
SGLang), driven as serving_chat.py drives it, one SSE delta per DELTAS item; exits 1 on the bug.
"""
import json
from types import SimpleNamespace

from llm_router_utils.sglang.srt.entrypoints.openai.protocol import Tool
from llm_router_utils.sglang.srt.entrypoints.openai.serving_chat import OpenAIServingChat
from llm_router_utils.sglang.srt.function_call.function_call_parser import FunctionCallParser

PARSER = "glm45"  # --tool-call-parser
TOOLS = [{"type": "function", "function": {"name": name, "parameters": {
    "type": "object", "properties": {}}}} for name in ("get_weather", "get_weather_1")]
DELTAS = ["<tool_call>get_weather\n</tool_call>\n<tool_call>get_weather_1\n</tool_call>"]
EXPECTED = {"calls": [{"arguments": {}, "name": "get_weather"}, {"arguments": {},
            "name": "get_weather_1"}], "content": ""}


def main():
    def read(name, arguments):  # a call as a client reads it: arguments as JSON, else as sent
        try:
            return {"name": name, "arguments": json.loads(arguments or "{}")}
        except ValueError:
            return {"name": name, "arguments": arguments}
    parser, text = FunctionCallParser([Tool(**t) for t in TOOLS], PARSER), "".join(DELTAS)
    content, items = parser.parse_non_stream(text) if parser.has_tool_call(text) else (text, [])
    whole = content, [read(i.name, i.parameters) for i in items]
    parser, content, calls = FunctionCallParser([Tool(**t) for t in TOOLS], PARSER), "", {}
    for number, delta in enumerate(DELTAS, 1):
        chunk, items = parser.parse_stream_chunk(delta)
        if number == len(DELTAS):  # the delta that carries the finish reason
            end_chunk, end_items = parser.parse_stream_end()
            chunk, items = (chunk or "") + end_chunk, [*items, *end_items]
        content += chunk or ""
        for item in items:
            call = calls.setdefault(item.tool_index, [None, ""])
            call[:] = item.name or call[0], call[1] + (item.parameters or "")
    sse = OpenAIServingChat._check_for_unstreamed_tool_args(  # "data: {...}" or None
        None, parser, {"meta_info": {"id": "x"}}, SimpleNamespace(model="m"), 0, 0)
    for entry in json.loads(sse[6:])["choices"][0]["delta"]["tool_calls"] if sse else []:
        calls[entry["index"]][1] += entry["function"]["arguments"] or ""
    streamed = content, [read(*calls[k]) for k in sorted(calls)]
    print("text:      ", repr(text), "in", len(DELTAS), "deltas")
    print("expected:  ", "calls", EXPECTED["calls"], "content", repr(EXPECTED["content"]))
    bad = {}
    for label, (content, got) in (("non-stream", whole), ("streamed", streamed)):
        bad[label] = got != EXPECTED["calls"] or content.strip() != EXPECTED["content"].strip()
        print(f"{label + ':':11}", "calls", got, "content", repr(content), "<- WRONG" * bad[label])
    print("BUG PRESENT" if any(bad.values()) else "fixed")
    return int(any(bad.values()))


if __name__ == "__main__":
    raise SystemExit(main())
