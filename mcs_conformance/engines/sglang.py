"""SGLang's tool parsers, driven the way SGLang's OpenAI server drives them.

Why: a parser can be right on a whole text and wrong on the deltas its server streams, or
right only because the server's end-of-stream step repairs it. So `parse` runs the
server's own non-streamed step and `stream` replays the server's per-delta loop with its
end step, on SGLang's own `OpenAIServingChat` methods (never a copy of them).

SGLang is an optional dependency, imported only when a parser is built: either SGLang
itself (`sglang.srt...`) or `llm-router-utils`, which ships SGLang's `srt.function_call`
and `srt.entrypoints.openai` without torch (peers/engines/sglang/INSTALL.md).

What is mirrored, SGLang 0.5.22 (`llm-router-utils` 0.8.1 ships the same files):
- `serving_chat.py` `OpenAIServingChat._build_chat_response` -> `_process_tool_calls`
  (non-streamed: `FunctionCallParser.has_tool_call`, `parse_non_stream`, ids from
  `_process_tool_call_id`; `content` is `""`, never None);
- `serving_chat.py` `OpenAIServingChat._generate_chat_stream` (a first delta with the
  role and `content: ""`, a last one with the finish reason) and `_generate_stream_content`
  (per delta `_process_tool_call_stream`, with `flush` on the delta that carries the finish
  reason, i.e. `FunctionCallParser.parse_stream_end`, then `_check_for_unstreamed_tool_args`).
"""
from __future__ import annotations

import asyncio
import importlib
import json
from importlib import metadata
from types import SimpleNamespace
from typing import Any

__all__ = ["DETECTOR_OF_FORMAT", "SglangParser", "parser"]

INSTALL_DOC = "peers/engines/sglang/INSTALL.md"

# Catalogue format -> SGLang `--tool-call-parser` name (`FunctionCallParser.ToolCallParserEnum`).
# Not "harmony": SGLang reads gpt-oss output through its reasoning parser before the
# `gpt-oss` detector, a step this adapter does not replay; certified through
# mcs_conformance.engines.harmony instead.
DETECTOR_OF_FORMAT: dict[str, str] = {
    "hermes": "qwen25",            # Qwen25Detector ("qwen" is the same class)
    "qwen3-coder": "qwen3_coder",  # Qwen3CoderDetector
    "mistral": "mistral",          # MistralDetector: `[TOOL_CALLS] [..]`
    "mistral-v11": "mistral",      # MistralDetector: its compact `[TOOL_CALLS]NAME[ARGS]{..}`
    "llama3-json": "llama3",       # Llama32Detector
    "llama3-json-python-tag": "llama3",  # the same, which reads the tag (the server keeps it)
    "pythonic": "pythonic",        # PythonicDetector
    "deepseek-v3": "deepseekv3",   # DeepSeekV3Detector
    "deepseek-v3.1": "deepseekv31",  # DeepSeekV31Detector
    "kimi-k2": "kimi_k2",          # KimiK2Detector (ids `functions.NAME:N`)
    "glm-4.5": "glm45",            # Glm4MoeDetector
}

# The two packages that ship SGLang's serving layer, tried in this order.
_PACKAGE_ROOTS = ("sglang", "llm_router_utils.sglang")

# The request the server would have been sent; only `tools` and `tool_choice` matter here.
_MODEL = "conformance"
_STREAM_ID = "conformance-stream"


def _missing_engine(error: ImportError) -> ImportError:
    return ImportError(f"SGLang is not installed ({error}); see {INSTALL_DOC}")


def _load_sglang() -> SimpleNamespace:
    """SGLang's serving-layer module and protocol module, from whichever package has them."""
    first_error: ImportError | None = None
    for root in _PACKAGE_ROOTS:
        try:
            serving_chat = importlib.import_module(  # optional dependency
                f"{root}.srt.entrypoints.openai.serving_chat")
            protocol = importlib.import_module(  # optional dependency
                f"{root}.srt.entrypoints.openai.protocol")
        except ImportError as error:
            first_error = first_error or error
            continue
        return SimpleNamespace(root=root, serving_chat=serving_chat, protocol=protocol,
                               version=_version_of(root))
    raise _missing_engine(first_error or ImportError("no sglang package"))


def _version_of(root: str) -> str:
    if root == "sglang":
        return f"sglang {metadata.version('sglang')}"
    return f"sglang srt from llm-router-utils {metadata.version('llm-router-utils')}"


class _ServingStandIn:
    """What `OpenAIServingChat`'s tool-call methods read from `self`: the configured
    `--tool-call-parser`, a tokenizer (None: only a few detectors want one), and the class's
    other methods bound to this stand-in. Building the real server needs a model."""

    def __init__(self, serving_class: type, tool_call_parser: str):
        self._serving_class = serving_class
        self.tool_call_parser = tool_call_parser
        self.reasoning_parser = None
        self.tokenizer_manager = SimpleNamespace(tokenizer=None)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._serving_class, name).__get__(self)


class SglangParser:
    """One SGLang tool-call parser behind the kit's `Parser` protocol."""

    def __init__(self, format: str):
        self.format = format
        self.tool_call_parser = DETECTOR_OF_FORMAT[format]
        self._sglang = _load_sglang()
        serving_class = self._sglang.serving_chat.OpenAIServingChat
        self._serving = _ServingStandIn(serving_class, self.tool_call_parser)
        parser_class = self._sglang.serving_chat.FunctionCallParser
        detector = parser_class.ToolCallParserEnum[self.tool_call_parser]
        self.name = f"{self._sglang.version} {detector.__name__} ({self.tool_call_parser})"

    def _request(self, tools: list[dict], stream: bool) -> Any:
        return self._sglang.protocol.ChatCompletionRequest(
            model=_MODEL, messages=[{"role": "user", "content": "conformance"}],
            tools=tools or None, tool_choice="auto", stream=stream)

    def _tool_call_parsing_active(self, request: Any) -> bool:
        """`OpenAIServingChat._tool_call_parsing_active` (not shipped by llm-router-utils):
        a request's output runs through the tool parser only when it has tools."""
        return bool(request.tool_choice != "none" and self._serving._effective_tools(request))

    def parse(self, text: str, tools: list[dict]) -> dict:
        """The assistant message `_build_chat_response` returns for `text`, not streamed."""
        request = self._request(tools, stream=False)
        tool_calls = None
        if self._tool_call_parsing_active(request):
            tool_calls, text, _ = self._serving._process_tool_calls(
                text, self._serving._effective_tools(request),
                {"type": "stop", "matched": None}, request.tool_choice,
                self._serving._get_history_tool_calls_cnt(request))
        message = self._sglang.protocol.ChatMessage(
            role="assistant", content=text if text else "", tool_calls=tool_calls)
        return message.model_dump()

    def stream(self, deltas: list[list[str]], tools: list[dict]) -> list[dict]:
        """Every `delta` SGLang's server streams for `deltas`, first and last chunk included."""
        return asyncio.run(self._stream(deltas, tools))

    async def _stream(self, deltas: list[list[str]], tools: list[dict]) -> list[dict]:
        request = self._request(tools, stream=True)
        content = {"meta_info": {"id": _STREAM_ID}}
        # `_generate_chat_stream`: the first chunk carries the role and an empty content.
        emitted = [{"reasoning_content": None, "role": "assistant", "content": ""}]
        if not self._tool_call_parsing_active(request):
            emitted += [{"reasoning_content": None, "content": "".join(delta)}
                        for delta in deltas if "".join(delta)]
        else:
            emitted += await self._replay_tool_call_stream(deltas, request, content)
        # `_generate_chat_stream`: the finish-reason chunk, whose delta is empty.
        emitted.append({"reasoning_content": None})
        return emitted

    async def _replay_tool_call_stream(self, deltas: list[list[str]], request: Any,
                                       content: dict) -> list[dict]:
        """`_generate_stream_content`'s tool-call branch, per delta; the last delta is the
        one that carries the finish reason ("stop"), so it flushes and checks for arguments
        left unstreamed."""
        parser_dict: dict[int, Any] = {}
        emitted: list[dict] = []
        for number, delta in enumerate(deltas):
            is_last = number == len(deltas) - 1
            async for sse in self._serving._process_tool_call_stream(
                    0, "".join(delta), parser_dict, content, request, {},
                    created=0, continuous_usage_stats=False, flush=is_last):
                if sse:
                    emitted.append(_delta_of(sse))
            if is_last and 0 in parser_dict:
                remaining = self._serving._check_for_unstreamed_tool_args(
                    parser_dict[0], content, request, 0, created=0)
                if remaining:
                    emitted.append(_delta_of(remaining))
        return emitted


def _delta_of(sse: str) -> dict:
    """The `delta` of one `data: {...}` server-sent event."""
    payload = json.loads(sse.removeprefix("data: ").strip())
    return payload["choices"][0]["delta"]


def parser(format: str) -> SglangParser:
    """The SGLang parser for catalogue `format` (see `DETECTOR_OF_FORMAT`)."""
    if format not in DETECTOR_OF_FORMAT:
        raise LookupError(f"SGLang has no parser for {format!r}; it has: "
                          + ", ".join(parser.formats))
    return SglangParser(format)


parser.formats = tuple(DETECTOR_OF_FORMAT)
