"""Repro: vLLM hermes -- a `<tool_call>` body that is not JSON (Hermes 2 Pro's Python-dict
spelling) is swallowed when streamed: no call, no text; the non-streamed answer returns it.

vLLM 0.33.0, `--tool-call-parser hermes`. Calls the parser's `extract_tool_calls` and, per
delta, `extract_tool_calls_streaming`, as vLLM's server does (the hermes parser reads the
texts only; a small stand-in tokenizer satisfies its constructor). Exits 1 while the bug is
there, 0 once fixed.
"""
import logging
import sys

from tokenizers import Tokenizer, models
from transformers import PreTrainedTokenizerFast

from vllm.entrypoints.openai.chat_completion.protocol import ChatCompletionRequest
from vllm.tool_parsers import ToolParserManager

logging.disable(logging.CRITICAL)
TOOLS = [{"type": "function", "function": {"name": "get_weather", "parameters": {
    "type": "object", "properties": {}}}}]
DELTAS = ["<tool_call>\n{'arguments': {}, 'name': 'get_weather'}\n</tool_call>"]  # as saved


def parser():
    tokenizer = PreTrainedTokenizerFast(tokenizer_object=Tokenizer(models.BPE({"a": 0}, [])))
    return ToolParserManager.get_tool_parser("hermes")(tokenizer)


def main():
    request = ChatCompletionRequest(model="m", messages=[{"role": "user", "content": "hi"}],
                                    tools=TOOLS, tool_choice="auto")
    text = "".join(DELTAS)
    whole = parser().extract_tool_calls(text, request)
    streaming, previous, streamed = parser(), "", ""
    for delta in DELTAS:
        message = streaming.extract_tool_calls_streaming(
            previous, previous + delta, delta, [], [], [], request)
        previous += delta
        if message is not None:
            streamed += (message.content or "") + "".join(
                f"<call {c.function.name}>" for c in message.tool_calls if c.function)
    print("model wrote: ", repr(text))
    print("non-streamed:", "calls", [c.function.name for c in whole.tool_calls],
          "content", repr(whole.content))
    print("streamed:    ", "calls and content", repr(streamed))
    bug = whole.content == text and streamed == ""
    print("BUG PRESENT: the stream lost what the non-streamed answer returns" if bug
          else "fixed")
    return 1 if bug else 0


if __name__ == "__main__":
    sys.exit(main())
