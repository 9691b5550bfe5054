"""Repro: SGLang MistralDetector (mistral) -- `[TOOL_CALLS][` with no space, as Mistral Nemo's
template writes it, gives neither the call nor its text, streamed or not.

SGLang 0.5.22's code as `pip install --no-deps llm-router-utils==0.8.1` ships it (`sglang.srt` in
SGLang). Calls `FunctionCallParser` as SGLang's server does: `parse_non_stream`;
`parse_stream_chunk` per delta and `parse_stream_end` at the finish. Exits 1 while the bug is
there, 0 once fixed.
"""
import json
import logging
import sys

from llm_router_utils.sglang.srt.entrypoints.openai.protocol import Tool
from llm_router_utils.sglang.srt.function_call.function_call_parser import FunctionCallParser

logging.disable(logging.CRITICAL)
TOOLS = [Tool(type="function", function={"name": "get_weather", "parameters": {
    "type": "object", "properties": {}}})]
DELTAS = ['[TOOL_CALLS][{"name": "get_weather", "arguments": {}}]']  # one SSE delta each
EXPECTED = [("get_weather", {})]


def whole():
    _, items = FunctionCallParser(TOOLS, "mistral").parse_non_stream("".join(DELTAS))
    return [(i.name, json.loads(i.parameters or "{}")) for i in items]


def streamed():
    parser, calls = FunctionCallParser(TOOLS, "mistral"), {}
    items = [i for d in DELTAS for i in parser.parse_stream_chunk(d)[1]]
    for item in items + parser.parse_stream_end()[1]:
        name, arguments = calls.get(item.tool_index, (None, ""))
        calls[item.tool_index] = (item.name or name, arguments + (item.parameters or ""))
    return [(n, json.loads(a or "{}")) for n, a in calls.values()]


def main():
    print("model wrote:", repr("".join(DELTAS)), "expected calls:", EXPECTED)
    failed = False
    for label, got in (("non-streamed", whole()), ("streamed", streamed())):
        failed |= got != EXPECTED
        print(f"{label}: calls {got}", "<- WRONG" if got != EXPECTED else "")
    print("BUG PRESENT" if failed else "fixed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
