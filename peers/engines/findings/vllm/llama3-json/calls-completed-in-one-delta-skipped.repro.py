"""Llama 3 JSON: when one streamed delta completes a call and holds the next ones, the calls between are never streamed and the index jumps.

vLLM 0.33.0, `--tool-call-parser llama3_json --enable-auto-tool-choice`. The model output below
is fed the way vLLM's OpenAI server feeds it: non-streamed through `Parser.parse`, streamed
through `ChatStreamProcessor.step` one engine output per delta (each delta a list of token
texts, e.g. several tokens at once under speculative decoding or --stream-interval), then
the end-of-sequence token alone with finish_reason "stop". No model is needed: a small
byte-level tokenizer holds the format's markers as single tokens.

Run: python this_file.py   -> exits 1 while the bug is there, 0 once fixed.
"""
import json
import sys

from tokenizers import AddedToken, Tokenizer, decoders, models, pre_tokenizers
from transformers import PreTrainedTokenizerFast

from vllm.entrypoints.generate.base.protocol import DeltaMessage
from vllm.entrypoints.openai.chat_completion.protocol import ChatCompletionRequest
from vllm.entrypoints.openai.chat_completion.stream_processor import ChatStreamProcessor
from vllm.parser.parser_manager import ParserManager
from vllm.tokenizers.hf import get_cached_tokenizer

PARSER = 'llama3_json'
MARKERS = ('<|python_tag|>', '<|eom_id|>', '<|eot_id|>')  # the last one is the end-of-sequence token
TOOLS = [{'type': 'function', 'function': {'name': 'a', 'description': 'the tool a', 'parameters': {'type': 'object', 'properties': {}}}}, {'type': 'function', 'function': {'name': 'b', 'description': 'the tool b', 'parameters': {'type': 'object', 'properties': {}}}}, {'type': 'function', 'function': {'name': 'c', 'description': 'the tool c', 'parameters': {'type': 'object', 'properties': {}}}}]
TEXT = '{"name": "a", "parameters": {}}; {"name": "b", "parameters": {}}; {"name": "c", "parameters": {}}'
DELTAS = [['{"'], ['name'], ['":'], [' "'], ['a'], ['",'], [' "', 'paramete', 'rs', '":', ' {}};', ' {"', 'name', '":', ' "', 'b', '",', ' "', 'paramete', 'rs', '":', ' {}};', ' {"', 'name', '":', ' "', 'c'], ['",'], [' "'], ['paramete'], ['rs'], ['":'], [' {}}']]
EXPECTED = {'calls': [{'name': 'a', 'arguments': {}}, {'name': 'b', 'arguments': {}}, {'name': 'c', 'arguments': {}}], 'content': ''}  # calls and content the model wrote


def byte_symbols():
    printable = [*range(33, 127), *range(161, 173), *range(174, 256)]
    out, extra = [], 0
    for b in range(256):
        if b in printable:
            out.append(chr(b))
        else:
            out.append(chr(256 + extra))
            extra += 1
    return out


SYMBOLS = byte_symbols()


def key(text):
    return "".join(SYMBOLS[b] for b in text.encode("utf-8"))


def build_tokenizer():
    vocab = {s: i for i, s in enumerate(SYMBOLS)}
    for delta in DELTAS:
        for piece in delta:
            if piece not in MARKERS:
                vocab.setdefault(key(piece), len(vocab))
    backend = Tokenizer(models.BPE(vocab=vocab, merges=[]))
    backend.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False)
    backend.decoder = decoders.ByteLevel()
    fast = PreTrainedTokenizerFast(tokenizer_object=backend, eos_token=MARKERS[-1])
    fast.add_tokens([AddedToken(m, special=False, normalized=False) for m in MARKERS[:-1]])
    ids = {m: fast.convert_tokens_to_ids(m) for m in MARKERS}

    def id_of(piece):
        return ids[piece] if piece in ids else vocab[key(piece)]
    return get_cached_tokenizer(fast), id_of, ids[MARKERS[-1]]


def main():
    tokenizer, id_of, eos = build_tokenizer()
    parser_cls = ParserManager.get_parser(tool_parser_name=PARSER, enable_auto_tools=True,
                                          model_name="m")

    def request(stream):
        req = ChatCompletionRequest(model="m", messages=[{"role": "user", "content": "hi"}],
                                    tools=TOOLS, tool_choice="auto", stream=stream)
        p = parser_cls(tokenizer, req.tools)
        p.set_prompt_token_ids([0])
        return p.adjust_request(request=req)

    # non-streamed (chat_completion_full_generator)
    req = request(False)
    p = parser_cls(tokenizer, req.tools)
    p.set_prompt_token_ids([0])
    _, content, calls = p.parse(TEXT, req, enable_auto_tools=True)
    whole = {"calls": [{"name": c.name, "arguments": json.loads(c.arguments or "{}")}
                       for c in calls or []], "content": content or ""}

    # streamed (chat_completion_stream_generator)
    req = request(True)
    proc = ChatStreamProcessor(req, parser_cls(tokenizer, req.tools), enable_auto_tools=True,
                               parser_cls=parser_cls)
    outputs = [("".join(d), [id_of(t) for t in d], None) for d in DELTAS]
    outputs.append(("", [eos], "stop"))
    content, by_index = "", {}
    for text, ids, finish in outputs:
        delta = proc.step(text, ids, finish, [0]).delta or DeltaMessage()
        content += delta.content or ""
        for tc in delta.tool_calls or []:
            entry = by_index.setdefault(tc.index, {"name": "", "arguments": ""})
            if tc.function is not None:
                entry["name"] += tc.function.name or ""
                entry["arguments"] += tc.function.arguments or ""
    streamed_calls = []
    for _, entry in sorted(by_index.items()):
        try:
            args = json.loads(entry["arguments"] or "{}")
        except ValueError:
            args = entry["arguments"]
        streamed_calls.append({"name": entry["name"], "arguments": args})
    streamed = {"calls": streamed_calls, "content": content}

    squeeze = lambda s: "".join(s.split())  # noqa: E731  (whitespace aside)
    print("expected:     ", EXPECTED)
    print("non-streamed: ", whole)
    print("streamed:     ", streamed)
    # Calls only: the non-streamed path drops text around the calls by design
    # (Llama3JsonToolParser.extract_tool_calls: "ignores any surrounding plain text").
    ok = all(m["calls"] == EXPECTED["calls"] for m in (whole, streamed))
    print("fixed" if ok else "BUG: differs from what the model wrote")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
