"""vLLM's tool parsers, driven the way vLLM's OpenAI server drives them.

Why: a parser can be right on a whole text and wrong on the deltas its server streams, or
right only because the server's end-of-stream step repairs it. So `parse` runs the server's
non-streamed step and `stream` replays its per-delta loop and its end step, on vLLM's own
classes (never a copy of them). vLLM is an optional dependency, imported only when a parser
is built (peers/engines/vllm/INSTALL.md).

What is driven, vLLM 0.33.0 (the serving layer talks to a unified `Parser`; a
`--tool-call-parser` `ToolParser` is wrapped in one by `ParserManager.get_parser`):
- `vllm/parser/parser_manager.py` `ParserManager.get_parser`: the parser class the server
  builds at start-up (`--enable-auto-tool-choice`, no reasoning parser), a
  `DelegatingParser` subclass over the tool parser (`vllm/parser/abstract_parser.py`);
- `vllm/renderers/online_renderer.py` (render of a chat request): a parser of that class
  gets the prompt ids, then `adjust_request`, whose request the rest of the run uses;
- non-streamed, `chat_completion/serving.py` `OpenAIServingChat.chat_completion_full_generator`:
  a fresh parser, `Parser.parse(text, request, enable_auto_tools=True)` (which calls the
  tool parser's `extract_tool_calls`), then `message_assembly.assemble_chat_message_fields`
  into a `ChatMessage`;
- streamed, `chat_completion/serving.py` `OpenAIServingChat.chat_completion_stream_generator`:
  a first delta with the role and `content: ""`, then per engine output
  `stream_processor.ChatStreamProcessor.step`, which calls `Parser.parse_delta` (the tool
  parser's `extract_tool_calls_streaming` with previous/current/delta text and token ids,
  kept in `StreamState`); a `None` delta is skipped until the output that carries the
  finish reason, whose delta is sent even when empty. That last output is the end step:
  `parse_delta(finished=True)` runs `DelegatingParser.finalize_generation` (the arguments
  left unstreamed, `ToolParser.get_remaining_unstreamed_args` from `prev_tool_call_arr` /
  `streamed_args_for_tool`, added to that delta's last tool call only if it has one) and
  `_flush_engine_parsers` (`finish_streaming` of an engine-based parser).
- gpt-oss (`harmony`): `ParserManager.get_parser(is_harmony=True)` gives `HarmonyParser`
  (`vllm/parser/harmony.py`), whose `parse` / `parse_delta` feed token ids to
  openai-harmony's `StreamableParser` (flushed on the finishing output); the same serving
  code calls it. The ids are openai-harmony's encoding of the kit's token texts.

The tokenizer is local, with no download: a byte-level vocabulary that holds the format's
markers as single tokens and, for a stream, every token text the kit cut, so that the
token ids handed to vLLM are the kit's tokens. The engine's last output is modelled as the
end-of-sequence token alone: its id, no text (vLLM's detokenizer leaves a stop token out).
"""
from __future__ import annotations

import importlib
import os
from importlib import metadata
from pathlib import Path
from types import SimpleNamespace
from typing import Any

__all__ = ["MARKERS_OF_FORMAT", "PARSER_OF_FORMAT", "VllmParser", "parser"]

INSTALL_DOC = "peers/engines/vllm/INSTALL.md"

# Catalogue format -> vLLM `--tool-call-parser` name (`vllm/tool_parsers/__init__.py`).
PARSER_OF_FORMAT: dict[str, str] = {
    "hermes": "hermes",              # Hermes2ProToolParser ("qwen3_json" is the same class)
    "qwen3-coder": "qwen3_coder",    # Qwen3EngineToolParser ("qwen3_xml" is the same class)
    "mistral": "mistral",            # MistralToolParser, pre-v11 path: no [ARGS] in vocab
    "mistral-v11": "mistral",        # MistralToolParser, engine path: [ARGS] in vocab
    "llama3-json": "llama3_json",    # Llama3JsonToolParser ("llama4_json" is the same class)
    # Not "llama3-json-python-tag": <|python_tag|> is a special token of Llama 3.1 and
    # llama3_json does not ask for special tokens, so the server strips the tag from the text
    # before its parser sees it: the parser reads the format without the tag.
    "pythonic": "pythonic",          # PythonicToolParser
    "deepseek-v3": "deepseek_v3",    # DeepSeekV3ToolParser
    "deepseek-v3.1": "deepseek_v31",  # DeepSeekV31ToolParser
    "kimi-k2": "kimi_k2",            # KimiK2ToolParser (engine), ids `functions.NAME:N`
    "glm-4.5": "glm45",              # Glm47MoeModelToolParser ("glm47" is the same class)
    "harmony": "openai",             # GptOssToolParser, a stub: HarmonyParser parses
}

# gpt-oss: the server picks `HarmonyParser` (`vllm/parser/harmony.py`) when the model type is
# `gpt_oss`, whatever the tool parser; it reads token ids with openai-harmony, not text, and
# keeps the `analysis` channel (as `reasoning`) only with a reasoning parser, here vLLM's.
_HARMONY = "harmony"
_HARMONY_REASONING_PARSER = "openai_gptoss"
# Where peers/engines/harmony/INSTALL.md puts o200k_base.tiktoken (openai-harmony needs it).
_HARMONY_ENCODINGS = Path(__file__).resolve().parents[2] / ".peers" / "harmony" / "encodings"

# The tokens a model of the format has as single tokens (what vLLM's parser looks up in
# the vocabulary), its end-of-sequence token last. Added as non-special tokens, so that
# they reach the parser in the text as with the `skip_special_tokens=False` most of these
# parsers' `adjust_request` sets.
MARKERS_OF_FORMAT: dict[str, tuple[str, ...]] = {
    "hermes": ("<tool_call>", "</tool_call>", "<|im_start|>", "<|im_end|>"),
    "qwen3-coder": ("<tool_call>", "</tool_call>", "<think>", "</think>", "<|im_start|>",
                    "<|im_end|>"),
    "mistral": ("[TOOL_CALLS]", "</s>"),
    "mistral-v11": ("[TOOL_CALLS]", "[ARGS]", "[CALL_ID]", "</s>"),
    "llama3-json": ("<|python_tag|>", "<|eom_id|>", "<|eot_id|>"),
    "pythonic": ("<|eot_id|>",),
    # For gpt-oss only stored by the parsers: ids come from openai-harmony's encoding.
    "harmony": ("<|start|>", "<|channel|>", "<|message|>", "<|constrain|>", "<|end|>",
                "<|call|>", "<|return|>"),
    "deepseek-v3": ("<｜tool▁calls▁begin｜>", "<｜tool▁calls▁end｜>", "<｜tool▁call▁begin｜>",
                    "<｜tool▁call▁end｜>", "<｜tool▁sep｜>", "<｜end▁of▁sentence｜>"),
    "kimi-k2": ("<|tool_calls_section_begin|>", "<|tool_calls_section_end|>",
                "<|tool_call_begin|>", "<|tool_call_end|>", "<|tool_call_argument_begin|>",
                "<think>", "</think>", "<|im_end|>"),
    "glm-4.5": ("<tool_call>", "</tool_call>", "<arg_key>", "</arg_key>", "<arg_value>",
                "</arg_value>", "<think>", "</think>", "<|user|>"),
}
MARKERS_OF_FORMAT["deepseek-v3.1"] = MARKERS_OF_FORMAT["deepseek-v3"]

# `model_type` of the model config the server would have: only `get_tool_call_id_type`
# reads it (`vllm/renderers/chat_utils/tool_call.py`), for Kimi's `functions.NAME:N` ids.
_MODEL_TYPE_OF_FORMAT = {"kimi-k2": "kimi_k2"}

_MODEL = "conformance"
# Any prompt: these parsers only need one to be there (no reasoning parser is configured
# but gpt-oss's, which ignores it).
_PROMPT_TOKEN_IDS = [0]


def _missing_engine(error: ImportError) -> ModuleNotFoundError:
    return ModuleNotFoundError(f"vLLM is not installed ({error}); see {INSTALL_DOC}")


def _load_vllm() -> SimpleNamespace:
    """The vLLM modules the adapter drives, and the tokenizer libraries vLLM brings."""
    names = {
        "parser_manager": "vllm.parser.parser_manager",
        "chat_protocol": "vllm.entrypoints.openai.chat_completion.protocol",
        "base_protocol": "vllm.entrypoints.generate.base.protocol",
        "stream_processor": "vllm.entrypoints.openai.chat_completion.stream_processor",
        "message_assembly": "vllm.entrypoints.openai.chat_completion.message_assembly",
        "hf_tokenizers": "vllm.tokenizers.hf",
        "tokenizers": "tokenizers",
        "transformers": "transformers",
        "harmony_utils": "vllm.entrypoints.openai.parser.harmony_utils",
    }
    try:
        modules = {key: importlib.import_module(name)  # optional dependency
                   for key, name in names.items()}
    except ImportError as error:
        raise _missing_engine(error) from None
    return SimpleNamespace(version=f"vllm {metadata.version('vllm')}", **modules)


def _byte_symbols() -> list[str]:
    """GPT-2's byte-level alphabet: the printable character that stands for each byte in a
    byte-level BPE vocabulary (the `tokenizers` ByteLevel decoder maps them back)."""
    printable = [*range(ord("!"), ord("~") + 1), *range(ord("¡"), ord("¬") + 1),
                 *range(ord("®"), ord("ÿ") + 1)]
    symbols, extra = {}, 0
    for byte in range(256):
        if byte in printable:
            symbols[byte] = chr(byte)
        else:
            symbols[byte] = chr(256 + extra)
            extra += 1
    return [symbols[byte] for byte in range(256)]


_BYTE_SYMBOLS = _byte_symbols()


def _vocab_key(text: str) -> str:
    return "".join(_BYTE_SYMBOLS[byte] for byte in text.encode("utf-8"))


class LocalTokenizer:
    """A byte-level tokenizer built here: the format's markers as single (added) tokens,
    its end-of-sequence token special, and every given token text one vocabulary entry.
    `tokenizer` is what vLLM gets (wrapped by vLLM's `get_cached_tokenizer`, as vLLM's own
    loader does); `ids(texts)` are the ids of the kit's token texts."""

    def __init__(self, vllm: SimpleNamespace, markers: tuple[str, ...], pieces: list[str]):
        vocab = {symbol: number for number, symbol in enumerate(_BYTE_SYMBOLS)}
        for piece in pieces:
            if piece and piece not in markers:
                vocab.setdefault(_vocab_key(piece), len(vocab))
        lib = vllm.tokenizers
        backend = lib.Tokenizer(lib.models.BPE(vocab=vocab, merges=[]))
        backend.pre_tokenizer = lib.pre_tokenizers.ByteLevel(add_prefix_space=False,
                                                             use_regex=False)
        backend.decoder = lib.decoders.ByteLevel()
        *added, eos = markers
        fast = vllm.transformers.PreTrainedTokenizerFast(tokenizer_object=backend,
                                                         eos_token=eos)
        fast.add_tokens([lib.AddedToken(marker, special=False, normalized=False)
                         for marker in added])
        self.tokenizer = vllm.hf_tokenizers.get_cached_tokenizer(fast)
        self._id_of_marker = {marker: fast.convert_tokens_to_ids(marker) for marker in markers}
        self._vocab = vocab
        self.eos_id = self._id_of_marker[eos]

    def ids(self, texts: list[str]) -> list[int]:
        return [self._id_of_marker[text] if text in self._id_of_marker
                else self._vocab[_vocab_key(text)] for text in texts if text]


class VllmParser:
    """One vLLM tool parser behind the kit's `Parser` protocol."""

    def __init__(self, format: str):
        self.format = format
        self.tool_call_parser = PARSER_OF_FORMAT[format]
        self._vllm = _load_vllm()
        self._harmony = _harmony_encoding(self._vllm) if format == _HARMONY else None
        self._parser_class = self._vllm.parser_manager.ParserManager.get_parser(
            tool_parser_name=self.tool_call_parser, enable_auto_tools=True, model_name=_MODEL,
            reasoning_parser_name=_HARMONY_REASONING_PARSER if self._harmony else None,
            is_harmony=self._harmony is not None)
        parser_class = (self._parser_class if self._harmony else
                        self._parser_class.tool_parser_cls)
        self.name = f"{self._vllm.version} {parser_class.__name__} ({self.tool_call_parser})"
        self._model_config = SimpleNamespace(hf_config=SimpleNamespace(
            model_type=_MODEL_TYPE_OF_FORMAT.get(format, _MODEL)))
        self.finish_reason: str | None = None  # of the last `stream`, for reports

    def _new_parser(self, tokenizer: Any, request: Any) -> Any:
        """`OpenAIServingChat._make_parser`: one parser per request (and per choice)."""
        return self._parser_class(tokenizer, request.tools, chat_template_kwargs={},
                                  model_config=self._model_config)

    def _request(self, tokenizer: Any, tools: list[dict], stream: bool) -> Any:
        """The chat request with `tools` and `tool_choice="auto"`, as the render step leaves
        it: after the parser's `adjust_request` (`online_renderer.py`). With no tools a
        client sends no `tool_choice` (vLLM refuses "auto" without tools)."""
        choice = {"tool_choice": "auto"} if tools else {}
        request = self._vllm.chat_protocol.ChatCompletionRequest(
            model=_MODEL, messages=[{"role": "user", "content": "conformance"}],
            tools=tools or None, stream=stream, **choice)
        render_parser = self._new_parser(tokenizer, request)
        render_parser.set_prompt_token_ids(_PROMPT_TOKEN_IDS)
        return render_parser.adjust_request(request=request)

    def parse(self, text: str, tools: list[dict]) -> dict:
        """The assistant message `chat_completion_full_generator` returns for `text`."""
        vllm = self._vllm
        local = LocalTokenizer(vllm, MARKERS_OF_FORMAT[self.format], [])
        request = self._request(local.tokenizer, tools, stream=False)
        parser = self._new_parser(local.tokenizer, request)
        parser.set_prompt_token_ids(_PROMPT_TOKEN_IDS)
        reasoning, content, tool_calls = parser.parse(
            text, request, enable_auto_tools=True,
            model_output_token_ids=self._harmony_ids([text]) if self._harmony else ())
        fields = vllm.message_assembly.assemble_chat_message_fields(
            request, reasoning, content, tool_calls, enable_auto_tools=True,
            parser_cls=self._parser_class)
        message = vllm.chat_protocol.ChatMessage(
            role="assistant", reasoning=fields.reasoning, content=fields.content,
            tool_calls=fields.tool_calls)
        return message.model_dump(exclude_none=True)

    def stream(self, deltas: list[list[str]], tools: list[dict]) -> list[dict]:
        """Every `delta` vLLM's server streams for `deltas`, first and last chunk included."""
        vllm = self._vllm
        local = LocalTokenizer(vllm, MARKERS_OF_FORMAT[self.format],
                               [token for delta in deltas for token in delta])
        request = self._request(local.tokenizer, tools, stream=True)
        processor = vllm.stream_processor.ChatStreamProcessor(
            request, self._new_parser(local.tokenizer, request), enable_auto_tools=True,
            parser_cls=self._parser_class)
        message = vllm.base_protocol.DeltaMessage
        emitted = [message(role="assistant", content="").model_dump(exclude_none=True)]
        for text, ids, finish_reason in self._engine_outputs(deltas, local):
            if not text and not ids and not processor.num_output_tokens and not finish_reason:
                continue  # the server skips an empty output before any token
            step = processor.step(text, ids, finish_reason, _PROMPT_TOKEN_IDS)
            if finish_reason:  # the last chunk is sent even with nothing in it
                emitted.append((step.delta or message()).model_dump(exclude_none=True))
                self.finish_reason = step.finish_reason
            elif step.delta is not None:
                emitted.append(step.delta.model_dump(exclude_none=True))
        return emitted

    def _engine_outputs(self, deltas: list[list[str]],
                        local: LocalTokenizer) -> list[tuple[str, list[int], str | None]]:
        """(text, token ids, finish reason) of each engine output. A text format's model
        stops on its end-of-sequence token, alone in the last output, with no text. gpt-oss
        stops on its `<|call|>` or `<|return|>`, the text's last token: its id is in the
        last output, its text is not (vLLM's detokenizer leaves a stop token out)."""
        if not self._harmony:
            outputs = [("".join(delta), local.ids(delta), None) for delta in deltas]
            return outputs + [("", [local.eos_id], "stop")]
        outputs = [("".join(delta), self._harmony_ids(delta), None) for delta in deltas]
        if not outputs:
            return [("", [], "stop")]
        text, ids, _ = outputs[-1]
        last_token = deltas[-1][-1] if deltas[-1] else ""
        if last_token in self._harmony.stop_texts:
            text = text[:len(text) - len(last_token)]
        outputs[-1] = (text, ids, "stop")
        return outputs

    def _harmony_ids(self, texts: list[str]) -> list[int]:
        return [number for text in texts
                for number in self._harmony.encoding.encode(text, allowed_special="all")]


def _harmony_encoding(vllm: SimpleNamespace) -> SimpleNamespace:
    """vLLM's openai-harmony encoding of gpt-oss, with the texts of its stop tokens."""
    if "TIKTOKEN_ENCODINGS_BASE" not in os.environ and _HARMONY_ENCODINGS.is_dir():
        os.environ["TIKTOKEN_ENCODINGS_BASE"] = str(_HARMONY_ENCODINGS)
    encoding = vllm.harmony_utils.get_encoding()
    stops = encoding.stop_tokens_for_assistant_actions()
    return SimpleNamespace(encoding=encoding,
                           stop_texts={encoding.decode([number]) for number in stops})


def parser(format: str) -> VllmParser:
    """The vLLM parser for catalogue `format` (see `PARSER_OF_FORMAT`)."""
    if format not in PARSER_OF_FORMAT:
        raise LookupError(f"vLLM has no parser for {format!r}; it has: "
                          + ", ".join(parser.formats))
    return VllmParser(format)


parser.formats = tuple(PARSER_OF_FORMAT)
