"""Repro: vLLM hermes -- `arguments` written as a JSON string (Granite 4's spelling) reach the
client double-encoded: a JSON string, not the object the model meant.

vLLM 0.33.0, `--tool-call-parser hermes`. Calls the parser's `extract_tool_calls` and, per
delta, `extract_tool_calls_streaming`, as vLLM's server does (the hermes parser reads the
texts only; a small stand-in tokenizer satisfies its constructor). Exits 1 while the bug is
there, 0 once fixed.
"""
import json
import logging
import sys

from tokenizers import Tokenizer, models
from transformers import PreTrainedTokenizerFast

from vllm.entrypoints.openai.chat_completion.protocol import ChatCompletionRequest
from vllm.tool_parsers import ToolParserManager

logging.disable(logging.CRITICAL)
TOOLS = [{"type": "function", "function": {"name": "get_weather", "parameters": {
    "type": "object", "properties": {"city": {"type": "string"}}}}}]
DELTAS = ['<tool_call>\n{"name": "get_weather", "arguments": "{\\"city\\": \\"Paris\\"}"}\n',
          "</tool_call>"]
EXPECTED = {"city": "Paris"}


def parser():
    tokenizer = PreTrainedTokenizerFast(tokenizer_object=Tokenizer(models.BPE({"a": 0}, [])))
    return ToolParserManager.get_tool_parser("hermes")(tokenizer)


def main():
    request = ChatCompletionRequest(model="m", messages=[{"role": "user", "content": "hi"}],
                                    tools=TOOLS, tool_choice="auto")
    whole = [json.loads(c.function.arguments)
             for c in parser().extract_tool_calls("".join(DELTAS), request).tool_calls]
    streaming, previous, arguments = parser(), "", ""
    for delta in DELTAS:
        message = streaming.extract_tool_calls_streaming(
            previous, previous + delta, delta, [], [], [], request)
        previous += delta
        for call in (message.tool_calls if message else []):
            arguments += (call.function.arguments if call.function else None) or ""
    streamed = [json.loads(arguments)]
    print("model wrote: ", repr("".join(DELTAS)), "expected arguments", EXPECTED)
    print("non-streamed:", "arguments decode to", whole)
    print("streamed:    ", "arguments decode to", streamed)
    bug = whole != [EXPECTED] or streamed != [EXPECTED]
    print("BUG PRESENT: a string, not the object" if bug else "fixed")
    return 1 if bug else 0


if __name__ == "__main__":
    sys.exit(main())
