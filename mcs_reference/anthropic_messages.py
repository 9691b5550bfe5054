"""`AnthropicMessagesStrategy`: the Anthropic Messages API, streamed or whole.

A stream is folded into the `Message` that `stream=false` returns: `message_start` gives the
skeleton (its content may already hold whole blocks), each `content_block_*` event builds one
block, `message_delta` sets the stop reason and replaces the usage counters (they are
cumulative). Events only append fragments; fragments are joined, and tool input parsed, when
the message is asked for, so a chunk costs time proportional to itself.
"""
from __future__ import annotations

import json
from typing import Any

from ._json import copy_json
from .calls import ExtractedCall, ToolCallRecord, call_from_object
from .errors import EventOutOfOrder, MalformedChunk, ProviderError
from .strategy import ExtractionStrategy

__all__ = ["AnthropicMessagesStrategy"]

_EVENTS = frozenset({
    "message_start", "content_block_start", "content_block_delta", "content_block_stop",
    "message_delta", "message_stop", "ping",
})
# Part types of OpenAI's formats: a block list holding one of them is not an Anthropic message.
_FOREIGN_PARTS = frozenset({
    "output_text", "input_text", "refusal", "image_url", "input_audio", "input_image",
    "input_file", "summary_text", "reasoning_text",
})
# Which deltas each block category takes; a category is the block's role in the stream.
_DELTAS = {
    "text_delta": "text", "citations_delta": "text",
    "thinking_delta": "thinking", "signature_delta": "thinking",
    "input_json_delta": "input",
    "compaction_delta": "compaction",  # beta: a compaction block's summary, whole
}
_EXPECTED = {
    "text": "text_delta or citations_delta",
    "thinking": "thinking_delta or signature_delta",
    "input": "input_json_delta",
    "compaction": "compaction_delta",
    "other": "no delta (this block type arrives whole)",
}
_EMPTY_MESSAGE = {"type": "message", "role": "assistant", "content": []}


def _parse_input(text: str) -> Any:
    """Tool input from its joined JSON text; text that is not a JSON object stays text.

    Keeping the raw text (a `max_tokens` stop cuts the JSON) lets `extract` report the call
    with an error instead of dropping it.
    """
    try:
        value = json.loads(text)
    except (ValueError, RecursionError):
        return text
    return value if isinstance(value, dict) else text


def _category(block: Any, where: str) -> str:
    """Check a content block's required fields; return how it streams (see `_EXPECTED`)."""
    if not isinstance(block, dict):
        raise MalformedChunk(f"{where} is {type(block).__name__}", expected="a content block object")
    kind = block.get("type")
    if not isinstance(kind, str):
        raise MalformedChunk(f"{where} has no string 'type'", expected="a typed content block")
    if kind == "text":
        field, category = "text", "text"
    elif kind == "thinking":
        field, category = "thinking", "thinking"
        if not isinstance(block.get("signature", ""), str):
            raise MalformedChunk(f"{where}: thinking 'signature' must be a string")
    elif kind == "redacted_thinking":
        field, category = "data", "other"
    elif kind == "compaction":
        return "compaction"
    elif kind.endswith("tool_use"):  # tool_use, server_tool_use, mcp_tool_use stream their input
        field, category = "name", "input"
        if "input" in block and not isinstance(block["input"], dict):
            raise MalformedChunk(f"{where}: {kind} 'input' must be an object")
        if "id" in block and not isinstance(block["id"], str):
            raise MalformedChunk(f"{where}: {kind} 'id' must be a string")
    else:
        return "other"
    if not isinstance(block.get(field), str):
        raise MalformedChunk(f"{where}: {kind} block needs a string {field!r}")
    return category


class _Block:
    """One content block: the object that started it, plus the fragments its deltas sent."""

    __slots__ = ("start", "category", "live", "parts", "signature", "citations", "compaction",
                 "final")

    def __init__(self, start: dict, category: str, live: bool):
        self.start = start  # our own copy of the object that opened the block
        self.category = category
        self.live = category if live else None  # None once stopped: no delta may follow
        self.parts: list[str] = []
        self.signature: str | None = None
        self.citations: list | None = None
        self.compaction: tuple | None = None  # (content, encrypted_content) of the last delta
        self.final: dict | None = None  # the assembled block, cached once it cannot change

    def joined(self) -> str:
        parts = self.parts
        if len(parts) == 1:
            return parts[0]
        text = "".join(parts)
        self.parts = [text]
        return text

    def assemble(self, frozen: bool) -> dict:
        """The block as `stream=false` returns it; a fresh object on every call."""
        if self.final is not None:
            return copy_json(self.final)
        start, category = self.start, self.category
        out = copy_json(start)
        if category == "text":
            if self.parts:
                out["text"] = start["text"] + self.joined()
            if self.citations:
                out["citations"] = (out.get("citations") or []) + copy_json(self.citations)
        elif category == "thinking":
            if self.parts:
                out["thinking"] = start["thinking"] + self.joined()
            if self.signature is not None:
                out["signature"] = self.signature
        elif category == "compaction":
            if self.compaction is not None:  # the last compaction_delta replaces both
                out["content"], out["encrypted_content"] = self.compaction
        elif category == "input":
            text = self.joined() if self.parts else ""
            if text and not text.isspace():
                out["input"] = _parse_input(text)
            elif "input" not in out:
                out["input"] = {}
        if frozen or self.live is None:
            self.final = out
            return copy_json(out)
        return out


class _Accumulator:
    """Per-stream state: the message skeleton, its blocks, and where the stream is."""

    __slots__ = ("head", "usage", "blocks", "open", "state", "tool_name")

    def __init__(self) -> None:
        self.head: dict | None = None  # top-level keys of the message, in wire order
        self.usage: dict | None = None
        self.blocks: list[_Block] = []
        self.open: Any = ()  # `blocks` while deltas may come, else (): the hot path's guard
        self.state = "new"  # new -> live (after message_start) -> done (after message_stop)
        self.tool_name: str | None = None


class AnthropicMessagesStrategy(ExtractionStrategy):
    """Format expert for Anthropic Messages: stream events and assembled `Message`s."""

    name = "anthropic-messages"
    leaks_into_text = True

    # -- recognition -------------------------------------------------------------------
    def recognizes(self, shape: Any) -> bool:
        """A stream event, a `Message`, or an assistant message in request shape."""
        try:
            return _recognizes(shape)
        except Exception:  # a hostile mapping must never break resolution
            return False

    # -- streaming ---------------------------------------------------------------------
    def new_accumulator(self) -> _Accumulator:
        return _Accumulator()

    def accumulate(self, acc: _Accumulator, chunk: Any) -> str:
        """Fold one event in; return the text it made visible (text deltas only)."""
        if not isinstance(chunk, dict):
            raise MalformedChunk(
                f"chunk is {type(chunk).__name__}, not an event object",
                expected="a JSON object with a 'type'",
            )
        kind = chunk.get("type")
        if kind == "content_block_delta":  # the hot path: nearly every event is a delta
            index = chunk.get("index")
            delta = chunk.get("delta")
            blocks = acc.open
            if type(index) is int and 0 <= index < len(blocks) and isinstance(delta, dict):
                block = blocks[index]
                dkind = delta.get("type")
                if dkind == "text_delta":
                    text = delta.get("text")
                    if block.live == "text" and type(text) is str:
                        block.parts.append(text)
                        return text
                elif dkind == "input_json_delta":
                    piece = delta.get("partial_json")
                    if block.live == "input" and type(piece) is str:
                        block.parts.append(piece)
                        return ""
                elif dkind == "thinking_delta":
                    piece = delta.get("thinking")
                    if block.live == "thinking" and type(piece) is str:
                        block.parts.append(piece)
                        return ""
            return self._slow_delta(acc, chunk)
        if kind == "ping":
            return ""
        if kind == "content_block_start":
            return self._start_block(acc, chunk)
        if kind == "content_block_stop":
            self._stop_block(acc, chunk)
            return ""
        if kind == "message_delta":
            self._message_delta(acc, chunk)
            return ""
        if kind == "message_start":
            return self._start_message(acc, chunk)
        if kind == "message_stop":
            self._require_live(acc, kind)
            acc.state = "done"
            acc.open = ()
            return ""
        if kind == "error":
            error = chunk.get("error")
            raise ProviderError(error if isinstance(error, dict) else dict(chunk))
        if not isinstance(kind, str):
            raise MalformedChunk("event has no string 'type'", expected="an Anthropic stream event")
        if acc.state == "new":  # unknown types are tolerated only inside a message
            raise EventOutOfOrder(f"{kind!r} event before message_start", expected="message_start first")
        return ""  # Anthropic documents that new event types may appear: ignore them

    def _require_live(self, acc: _Accumulator, kind: str) -> None:
        if acc.state == "new":
            raise EventOutOfOrder(f"{kind} before message_start", expected="message_start first")
        if acc.state == "done":
            raise EventOutOfOrder(f"{kind} after message_stop", expected="nothing but ping")

    def _block_at(self, acc: _Accumulator, chunk: dict, kind: str) -> _Block:
        self._require_live(acc, kind)
        index = chunk.get("index")
        if type(index) is not int:
            raise MalformedChunk(f"{kind} 'index' is {index!r}", expected="an integer block index")
        if not 0 <= index < len(acc.blocks):
            raise EventOutOfOrder(
                f"{kind} for block {index}, which was not started ({len(acc.blocks)} blocks so far)",
                expected="content_block_start for that index first",
            )
        return acc.blocks[index]

    def _slow_delta(self, acc: _Accumulator, chunk: dict) -> str:
        """Every delta the hot path did not take: the rarer kinds, unknown kinds, and errors."""
        block = self._block_at(acc, chunk, "content_block_delta")
        delta = chunk.get("delta")
        if not isinstance(delta, dict) or not isinstance(delta.get("type"), str):
            raise MalformedChunk("content_block_delta 'delta' is not a typed object",
                                 expected="a delta object with a string 'type'")
        dkind = delta["type"]
        where = f"block {chunk['index']}"
        if block.live is None:
            raise EventOutOfOrder(f"{dkind} for {where} after its content_block_stop")
        wanted = _DELTAS.get(dkind)
        if wanted is None:
            return ""  # a delta type newer than this code: nothing here can use it
        if wanted != block.category:
            raise EventOutOfOrder(
                f"{dkind} for {where}, a {block.start['type']} block",
                expected=_EXPECTED[block.category],
            )
        if dkind == "signature_delta":
            value = delta.get("signature")
            if not isinstance(value, str):
                raise MalformedChunk(f"signature_delta for {where} has no string 'signature'")
            block.signature = value
            return ""
        if dkind == "compaction_delta":
            content, encrypted = delta.get("content"), delta.get("encrypted_content")
            if not all(value is None or isinstance(value, str) for value in (content, encrypted)):
                raise MalformedChunk(f"compaction_delta for {where}: content and "
                                     f"encrypted_content must be strings or null")
            block.compaction = (content, encrypted)
            return ""
        if dkind == "citations_delta":
            value = delta.get("citation")
            if not isinstance(value, dict):
                raise MalformedChunk(f"citations_delta for {where} has no 'citation' object")
            if block.citations is None:
                block.citations = []
            block.citations.append(copy_json(value))
            return ""
        field = {"text_delta": "text", "input_json_delta": "partial_json"}.get(dkind, "thinking")
        raise MalformedChunk(f"{dkind} for {where} has no string {field!r}",
                             expected=f"{field!r} as a string")

    def _start_message(self, acc: _Accumulator, chunk: dict) -> str:
        if acc.state != "new":
            raise EventOutOfOrder("a second message_start", expected="one message per stream")
        message = chunk.get("message")
        if not isinstance(message, dict):
            raise MalformedChunk("message_start has no 'message' object", expected="a Message object")
        content = message.get("content")
        if not isinstance(content, list):
            raise MalformedChunk("message_start message has no 'content' list", expected="'content': []")
        usage = message.get("usage")
        if usage is not None and not isinstance(usage, dict):
            raise MalformedChunk("message_start 'usage' is not an object")
        categories = [_category(block, f"message content[{i}]") for i, block in enumerate(content)]
        message = copy_json(message)  # own copies: the caller may reuse its objects
        content, usage = message["content"], message.get("usage")
        blocks = [_Block(block, category, False) for block, category in zip(content, categories)]
        acc.head = message
        acc.usage = usage
        acc.blocks = acc.open = blocks
        acc.state = "live"
        last = content[-1] if content else None
        acc.tool_name = last["name"] if last is not None and last["type"] == "tool_use" else None
        return "".join(b["text"] for b in content if b["type"] == "text")

    def _start_block(self, acc: _Accumulator, chunk: dict) -> str:
        self._require_live(acc, "content_block_start")
        index = chunk.get("index")
        if type(index) is not int:
            raise MalformedChunk(f"content_block_start 'index' is {index!r}",
                                 expected="an integer block index")
        if index != len(acc.blocks):
            raise EventOutOfOrder(f"content_block_start for index {index}",
                                  expected=f"index {len(acc.blocks)}: blocks start in order")
        block = chunk.get("content_block")
        category = _category(block, f"content_block_start {index}")
        block = copy_json(block)
        acc.blocks.append(_Block(block, category, True))
        kind = block["type"]
        acc.tool_name = block["name"] if kind == "tool_use" else None
        return block["text"] if kind == "text" else ""

    def _stop_block(self, acc: _Accumulator, chunk: dict) -> None:
        block = self._block_at(acc, chunk, "content_block_stop")
        if block.live is None:
            raise EventOutOfOrder(f"a second content_block_stop for block {chunk['index']}")
        block.live = None

    def _message_delta(self, acc: _Accumulator, chunk: dict) -> None:
        self._require_live(acc, "message_delta")
        delta = chunk.get("delta")
        usage = chunk.get("usage")
        if not isinstance(delta, dict):
            raise MalformedChunk("message_delta has no 'delta' object",
                                 expected="'delta': {'stop_reason': ...}")
        if usage is not None and not isinstance(usage, dict):
            raise MalformedChunk("message_delta 'usage' is not an object")
        if "content" in delta or "usage" in delta:
            raise MalformedChunk("message_delta 'delta' may not replace content or usage")
        head = acc.head
        head.update(copy_json(delta))
        if usage:
            held = acc.usage
            if held is None:
                held = acc.usage = {}
                head.setdefault("usage", None)
            for key, value in usage.items():  # cumulative totals: replace, never add
                if value is not None or key not in held:
                    held[key] = copy_json(value)

    def is_done(self, chunk: Any) -> bool:
        return isinstance(chunk, dict) and chunk.get("type") == "message_stop"

    # -- the assembled message ---------------------------------------------------------
    def as_message(self, acc: _Accumulator) -> dict:
        head = acc.head
        if head is None:
            return copy_json(_EMPTY_MESSAGE)
        frozen = acc.state == "done"
        out = {}
        for key, value in head.items():
            if key == "content":
                out[key] = [block.assemble(frozen) for block in acc.blocks]
            elif key == "usage":
                out[key] = copy_json(acc.usage)
            else:
                out[key] = copy_json(value)
        return out

    def forming_name_of(self, acc: _Accumulator) -> str | None:
        return acc.tool_name

    def extract(self, message: Any) -> list[ExtractedCall]:
        """Client tool calls (`tool_use`) in order; server tools ran on Anthropic's side."""
        calls = []
        for block in _blocks(message):
            if block.get("type") == "tool_use":
                name = block.get("name")
                if not isinstance(name, str):
                    raise MalformedChunk("tool_use block has no string 'name'")
                call_id = block.get("id")
                calls.append(call_from_object(name, block.get("input"),
                                              call_id if isinstance(call_id, str) else None))
        return calls

    def content_text(self, message: Any) -> str:
        return "".join(block["text"] for block in _blocks(message)
                       if block.get("type") == "text" and isinstance(block.get("text"), str))

    def forming_name(self, message: Any) -> str | None:
        blocks = _blocks(message)
        last = blocks[-1] if blocks else None
        if last is not None and last.get("type") == "tool_use" and isinstance(last.get("name"), str):
            return last["name"]
        return None

    def result_messages(self, message: Any, records: list[ToolCallRecord]) -> list[dict]:
        """The assistant turn in request shape, then every result in ONE user message.

        Anthropic rejects empty text blocks in a request, so they are left out; a tool input
        that was not valid JSON is sent as `{}` (a request needs an object there).
        """
        blocks = _blocks(message)
        turn = [_request_block(block) for block in blocks
                if not (block.get("type") == "text" and not block.get("text"))]
        history = [{"role": "assistant", "content": turn}]
        if records:
            ids = _result_ids(blocks, records)
            results = []
            for record, tool_use_id in zip(records, ids):
                result = {"type": "tool_result", "tool_use_id": tool_use_id,
                          "content": _result_text(record)}
                if record.error is not None:
                    result["is_error"] = True
                results.append(result)
            history.append({"role": "user", "content": results})
        return history


def _recognizes(shape: Any) -> bool:
    if not isinstance(shape, dict):
        return False
    kind = shape.get("type")
    if isinstance(kind, str):
        if kind in _EVENTS:
            return True
        if kind == "error":  # Responses' error event has code/message at top level instead
            return isinstance(shape.get("error"), dict)
    content = shape.get("content")
    if not isinstance(content, list):
        return False
    if kind == "message":
        return not any(isinstance(b, dict) and b.get("type") in _FOREIGN_PARTS for b in content)
    if kind is None and shape.get("role") == "assistant" and "tool_calls" not in shape:
        return all(isinstance(b, dict) and isinstance(b.get("type"), str)
                   and b["type"] not in _FOREIGN_PARTS for b in content)
    return False


def _blocks(message: Any) -> list[dict]:
    """The content blocks of a message, checked to be objects."""
    if not isinstance(message, dict):
        raise MalformedChunk(f"message is {type(message).__name__}", expected="a Message object")
    content = message.get("content")
    if not isinstance(content, list):
        raise MalformedChunk("message has no 'content' list", expected="a list of content blocks")
    for i, block in enumerate(content):
        if not isinstance(block, dict):
            raise MalformedChunk(f"content[{i}] is {type(block).__name__}", expected="a block object")
    return content


def _request_block(block: dict) -> dict:
    """One response block as a request accepts it back (response-only fields dropped)."""
    kind = block.get("type")
    if kind == "text":
        out = {"type": "text", "text": block.get("text", "")}
        if block.get("citations"):
            out["citations"] = copy_json(block["citations"])
        return out
    if kind == "thinking":
        return {"type": "thinking", "thinking": block.get("thinking", ""),
                "signature": block.get("signature", "")}
    if kind == "redacted_thinking":
        return {"type": "redacted_thinking", "data": block.get("data", "")}
    if kind == "tool_use":
        value = block.get("input")
        out = {"type": "tool_use", "id": block.get("id"), "name": block.get("name"),
               "input": copy_json(value) if isinstance(value, dict) else {}}
        for key in ("caller", "toolset_name"):  # a programmatic call keeps who called it
            if block.get(key) is not None:
                out[key] = copy_json(block[key])
        return out
    return copy_json(block)  # server tool use and results go back as given


def _result_ids(blocks: list[dict], records: list[ToolCallRecord]) -> list[str | None]:
    """Each record's `tool_use_id`: its own, else the next unclaimed call of that name."""
    claimed = {r.tool_call_id for r in records if isinstance(r.tool_call_id, str)}
    free: dict[str, list[str]] = {}
    for block in blocks:
        call_id, name = block.get("id"), block.get("name")
        if block.get("type") == "tool_use" and isinstance(call_id, str) and isinstance(name, str):
            if call_id not in claimed:
                free.setdefault(name, []).append(call_id)
    ids = []
    for record in records:
        if record.tool_call_id is not None:
            ids.append(record.tool_call_id)
        else:
            queue = free.get(record.name) if isinstance(record.name, str) else None
            ids.append(queue.pop(0) if queue else None)
    return ids


def _result_text(record: ToolCallRecord) -> str:
    """A tool_result's content: the error, or the result as text (JSON unless a string)."""
    if record.error is not None:
        return str(record.error)
    result = record.result
    if result is None:
        return ""
    if isinstance(result, str):
        return result
    try:
        return json.dumps(result, ensure_ascii=False, default=str)
    except (ValueError, TypeError):
        return str(result)
