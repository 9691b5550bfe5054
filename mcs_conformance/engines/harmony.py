"""openai-harmony's parser of gpt-oss output, behind the kit's parser protocol.

Why: gpt-oss servers do not run a text tool parser; they feed the model's tokens to
openai-harmony's `StreamableParser` and map its messages to OpenAI deltas. So `parse` is
harmony's documented non-streamed path (`HarmonyEncoding.parse_messages_from_completion_tokens`)
and `stream` feeds each delta's tokens to `StreamableParser.process` and emits deltas the way
vLLM's chat server does (vLLM `vllm/entrypoints/openai/chat_completion/stream_harmony.py`,
`extract_harmony_streaming_delta` with its `HarmonyStreamingState`: once per delta it diffs
the parser's finished messages and `current_content` against what it already sent).

Mapping, both paths: `final` channel (and `commentary` without a recipient, which vLLM streams
as content) -> `content`; `analysis` -> `reasoning_content`; a message to `functions.NAME`
(commentary or analysis channel) -> a tool call NAME whose arguments are the message text.

openai-harmony is an optional dependency, imported only when a parser is built; it needs the
`o200k_base.tiktoken` file offline, found through `TIKTOKEN_ENCODINGS_BASE`
(peers/engines/harmony/INSTALL.md; `.peers/harmony/encodings` is used when that is unset).
"""
from __future__ import annotations

import os
import uuid
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path
from typing import Any

__all__ = ["HarmonyParser", "parser"]

INSTALL_DOC = "peers/engines/harmony/INSTALL.md"

# Where peers/engines/harmony/INSTALL.md puts o200k_base.tiktoken.
_DEFAULT_ENCODINGS = Path(__file__).resolve().parents[2] / ".peers" / "harmony" / "encodings"
_FUNCTION_PREFIX = "functions."


def _load_harmony() -> Any:
    try:
        import openai_harmony  # optional dependency
    except ImportError as error:
        raise ImportError(f"openai-harmony is not installed ({error}); see {INSTALL_DOC}") from None
    if "TIKTOKEN_ENCODINGS_BASE" not in os.environ and _DEFAULT_ENCODINGS.is_dir():
        os.environ["TIKTOKEN_ENCODINGS_BASE"] = str(_DEFAULT_ENCODINGS)
    return openai_harmony


def _tool_call_id() -> str:
    """A fresh id in vLLM's default shape (`chat_utils.random_tool_call_id`)."""
    return f"chatcmpl-tool-{uuid.uuid4().hex}"


def _function_name(channel: str | None, recipient: str | None) -> str | None:
    """The function a message calls, as vLLM's `_is_function_tool_message` tells it."""
    if channel in ("commentary", "analysis") and recipient and recipient.startswith(_FUNCTION_PREFIX):
        return recipient[len(_FUNCTION_PREFIX):]
    return None


def _text_of(message: Any) -> str:
    return "".join(getattr(part, "text", "") or "" for part in message.content or [])


@dataclass
class _SentSoFar:
    """What the stream already emitted: vLLM's `HarmonyStreamingState`."""
    finished_messages: int = 0
    next_tool_index: int = 0
    current_signature: tuple[str | None, str | None] | None = None
    current_sent_length: int = 0
    current_tool_index: int | None = None


class HarmonyParser:
    """openai-harmony's gpt-oss encoding as a parser of the catalogue's "harmony" format."""

    def __init__(self) -> None:
        self._harmony = _load_harmony()
        self._encoding = self._harmony.load_harmony_encoding(
            self._harmony.HarmonyEncodingName.HARMONY_GPT_OSS)
        self.name = f"openai-harmony {metadata.version('openai-harmony')} (StreamableParser)"

    def _tokens(self, text: str) -> list[int]:
        return self._encoding.encode(text, allowed_special="all")

    def parse(self, text: str, tools: list[dict]) -> dict:
        """The assistant message of `text` parsed whole, in one call."""
        messages = self._encoding.parse_messages_from_completion_tokens(
            self._tokens(text), self._harmony.Role.ASSISTANT)
        content, reasoning, tool_calls = [], [], []
        for message in messages:
            name = _function_name(message.channel, message.recipient)
            if name is not None:
                tool_calls.append({"id": _tool_call_id(), "type": "function",
                                   "function": {"name": name, "arguments": _text_of(message)}})
            elif message.channel in ("final", "commentary"):
                content.append(_text_of(message))
            elif message.channel == "analysis":
                reasoning.append(_text_of(message))
        result: dict = {"role": "assistant", "content": "".join(content) if content else None,
                        "tool_calls": tool_calls}
        if reasoning:
            result["reasoning_content"] = "".join(reasoning)
        return result

    def stream(self, deltas: list[list[str]], tools: list[dict]) -> list[dict]:
        """The deltas vLLM streams: a role delta, then one per model delta that has news."""
        harmony_parser = self._harmony.StreamableParser(self._encoding, self._harmony.Role.ASSISTANT)
        sent = _SentSoFar()
        emitted: list[dict] = [{"role": "assistant", "content": ""}]
        for delta in deltas:
            for token in self._tokens("".join(delta)):
                harmony_parser.process(token)
            news = _news(harmony_parser, sent)
            if news:
                emitted.append(news)
        return emitted


def _news(harmony_parser: Any, sent: _SentSoFar) -> dict | None:
    """One OpenAI delta with what the parser holds beyond `sent` (finished messages first,
    then the message in progress), as vLLM's `extract_harmony_streaming_delta` builds it."""
    parts = _Parts()
    carried = False  # the message in progress at the last delta, now finished
    for message in harmony_parser.messages[sent.finished_messages:]:
        signature = (message.channel, message.recipient)
        already, tool_index = 0, None
        if not carried and sent.current_signature == signature:
            already, tool_index, carried = sent.current_sent_length, sent.current_tool_index, True
        text = _text_of(message)
        tool_index = parts.add(signature, text[min(already, len(text)):], tool_index, sent)
    sent.finished_messages = len(harmony_parser.messages)

    channel = harmony_parser.current_channel
    if channel is None:
        sent.current_signature, sent.current_sent_length, sent.current_tool_index = None, 0, None
    else:
        signature = (channel, harmony_parser.current_recipient)
        text = harmony_parser.current_content or ""
        same = (not carried and sent.current_signature == signature
                and len(text) >= sent.current_sent_length)
        already = sent.current_sent_length if same else 0
        tool_index = sent.current_tool_index if same else None
        sent.current_tool_index = parts.add(signature, text[already:], tool_index, sent)
        sent.current_signature, sent.current_sent_length = signature, len(text)
    return parts.delta()


class _Parts:
    """The pieces of one delta: content, reasoning, tool-call headers and argument pieces."""

    def __init__(self) -> None:
        self.content: str | None = None
        self.reasoning = ""
        self.tool_calls: list[dict] = []

    def add(self, signature: tuple[str | None, str | None], text: str,
            tool_index: int | None, sent: _SentSoFar) -> int | None:
        """Add `text` of a message; returns the tool index it streams under, if a call."""
        channel, recipient = signature
        name = _function_name(channel, recipient)
        if name is not None:
            if tool_index is None:  # a new call: its header first, with empty arguments
                tool_index, sent.next_tool_index = sent.next_tool_index, sent.next_tool_index + 1
                self.tool_calls.append({"id": _tool_call_id(), "type": "function", "index": tool_index,
                                        "function": {"name": name, "arguments": ""}})
            if text:
                self.tool_calls.append({"index": tool_index, "function": {"arguments": text}})
            return tool_index
        if channel in ("final", "commentary") and text:
            self.content = (self.content or "") + text
        elif channel == "analysis":
            self.reasoning += text
        return None

    def delta(self) -> dict | None:
        if self.content is None and not self.reasoning and not self.tool_calls:
            return None
        delta: dict = {}
        if self.content is not None:
            delta["content"] = self.content
        if self.reasoning:
            delta["reasoning_content"] = self.reasoning
        if self.tool_calls:
            delta["tool_calls"] = self.tool_calls
        return delta


def parser(format: str) -> HarmonyParser:
    """openai-harmony's parser; it reads only the "harmony" format."""
    if format not in parser.formats:
        raise LookupError(f"openai-harmony has no parser for {format!r}; it has: harmony")
    return HarmonyParser()


parser.formats = ("harmony",)
