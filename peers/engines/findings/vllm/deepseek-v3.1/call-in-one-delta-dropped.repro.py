"""Repro: vLLM deepseek_v31 (DeepSeek V3.1) -- a whole tool call arriving in one streamed delta is
dropped (streaming only).

vLLM 0.33.0, `--tool-call-parser deepseek_v31 --enable-auto-tool-choice`, driven as its OpenAI
server drives it (chat_completion/serving.py): one engine output per DELTAS list of token texts
(several under --stream-interval), then end-of-sequence alone. Exits 1 while the bug is there.
"""
import json

from tokenizers import Tokenizer, models
from transformers import PreTrainedTokenizerFast
from vllm.entrypoints.openai.chat_completion.protocol import ChatCompletionRequest
from vllm.entrypoints.openai.chat_completion.stream_processor import ChatStreamProcessor
from vllm.parser.parser_manager import ParserManager

PARSER = "deepseek_v31"  # --tool-call-parser
MARKERS = ["<｜tool▁calls▁begin｜>", "<｜tool▁calls▁end｜>", "<｜tool▁call▁begin｜>", "<｜tool▁call▁end｜>",
           "<｜tool▁sep｜>", "<｜end▁of▁sentence｜>"]  # end-of-sequence last
TOOLS = [{"type": "function", "function": {"name": "get_weather", "parameters": {
    "type": "object", "properties": {}}}}]
DELTAS = [["<｜tool▁calls▁begin｜>", "<｜tool▁call▁begin｜>", "get", "_", "weather", "<｜tool▁sep｜>",
          "{}", "<｜tool▁call▁end｜>", "<｜tool▁calls▁end｜>"]]
EXPECTED = {"calls": [{"name": "get_weather", "arguments": {}}], "content": ""}


def main():
    def read(name, arguments):  # a call as a client reads it: arguments as JSON, else as sent
        try:
            return {"name": name, "arguments": json.loads(arguments or "{}")}
        except ValueError:
            return {"name": name, "arguments": arguments}
    vocab = {t: i for i, t in enumerate(dict.fromkeys(MARKERS + [t for d in DELTAS for t in d]))}
    tokenizer = PreTrainedTokenizerFast(tokenizer_object=Tokenizer(models.WordLevel(vocab, "?")))
    cls = ParserManager.get_parser(tool_parser_name=PARSER, enable_auto_tools=True, model_name="m")
    requests = [ChatCompletionRequest(model="m", messages=[{"role": "user", "content": "hi"}],
                tools=TOOLS, tool_choice="auto", stream=s) for s in (False, True)]
    requests = [cls(tokenizer, r.tools).adjust_request(request=r) for r in requests]  # rendered
    text = "".join("".join(d) for d in DELTAS)
    _, content, calls = cls(tokenizer, requests[0].tools).parse(text, requests[0],
                                                                enable_auto_tools=True)
    whole = content or "", [read(c.name, c.arguments) for c in calls or []]
    stream = ChatStreamProcessor(requests[1], cls(tokenizer, requests[1].tools),
                                 enable_auto_tools=True, parser_cls=cls)
    content, calls = "", {}
    outputs = [("".join(d), [vocab[t] for t in d], None) for d in DELTAS]
    for output in outputs + [("", [vocab[MARKERS[-1]]], "stop")]:  # end-of-sequence: no text
        delta = stream.step(*output, [0]).delta
        content += delta and delta.content or ""
        for tc in delta and delta.tool_calls or []:
            call, f = calls.setdefault(tc.index, ["", ""]), tc.function
            call[:] = call[0] + (f and f.name or ""), call[1] + (f and f.arguments or "")
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
