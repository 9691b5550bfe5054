"""Ollama `/api/chat`: NDJSON chunks reassembled into the whole `stream=false` body.

Ollama sends each call whole, with `arguments` already an object, in one `done: false`
chunk (older servers put the calls in the final chunk); the `done: true` chunk ends the
stream and brings `done_reason` and the timing and token counters. Models served without a
tool template write their calls as text, so a message without calls may leak one.
"""
from __future__ import annotations

import json
from typing import Any

from ._json import copy_json
from .calls import ExtractedCall, ToolCallRecord, call_from_object, nameless_call
from .errors import EventOutOfOrder, MalformedChunk, ProviderError
from .strategy import ExtractionStrategy

__all__ = ["OllamaChatStrategy"]

_CHUNK = "an Ollama /api/chat chunk: {model, created_at, message: {role, content}, done}"
_BODY = "an Ollama /api/chat body with a 'message' object"
_CALL = "a call {function: {name, arguments}}"
_MESSAGE_KEYS = frozenset({"role", "content", "thinking", "tool_calls"})
_BODY_ONLY = frozenset({"model", "created_at", "message"})


class _OllamaAcc:
    __slots__ = ("role", "content", "thinking", "calls", "extra", "model", "created_at", "final")

    def __init__(self) -> None:
        self.role = "assistant"
        self.content: list[str] = []
        self.thinking: list[str] = []
        self.calls: list[dict] = []
        self.extra: dict = {}  # other message keys (older servers' `images: null`), last wins
        self.model: str | None = None
        self.created_at: str | None = None
        self.final: dict | None = None  # top-level fields of the done:true chunk


def _joined(parts: list[str]) -> str:
    if len(parts) > 1:
        parts[:] = ["".join(parts)]
    return parts[0] if parts else ""


def _bad(what: str, expected: str = _CHUNK) -> MalformedChunk:
    return MalformedChunk(what, expected=expected)


def _check_call(call: Any) -> None:
    if not isinstance(call, dict):
        raise _bad(f"a tool call is a {type(call).__name__}", _CALL)
    function = call.get("function")
    if not isinstance(function, dict) or not isinstance(function.get("name"), str):
        raise _bad("a tool call has no function with a string name", _CALL)
    call_id = call.get("id")
    if call_id is not None and not isinstance(call_id, str):
        raise _bad(f"a tool call id is a {type(call_id).__name__}", "a string id")


def _not_strings(*values: Any) -> MalformedChunk:
    labels = ("model", "created_at", "message.content", "message.role", "message.thinking")
    for label, value in zip(labels, values):
        if value is not None and type(value) is not str:
            return _bad(f"{label} is a {type(value).__name__}, not a string")
    return _bad("a field is not a string")  # unreachable: the caller saw one


def _hot_path(acc: _OllamaAcc, chunk: Any) -> str | None:
    """The commonest chunk: done:false, its message a role and content and nothing else,
    folded as the general path folds it; the content. None for any other chunk, which the
    general path then checks and folds: this one changes `acc` only once all is known good."""
    try:
        message = chunk["message"]
        content, role = message["content"], message["role"]
    except (KeyError, TypeError):
        return None
    model, created = chunk.get("model"), chunk.get("created_at")
    if not (type(chunk) is dict and chunk.get("done") is False and chunk.get("error") is None
            and acc.final is None and type(message) is dict and len(message) == 2
            and type(content) is str and type(role) is str
            and (model is None or type(model) is str)
            and (created is None or type(created) is str)):
        return None
    if model is not None:
        acc.model = model
    if created is not None:
        acc.created_at = created
    acc.role = role
    if content:
        acc.content.append(content)
    return content


def _message_of(body: Any) -> dict:
    message = body.get("message") if isinstance(body, dict) else None
    if not isinstance(message, dict):
        raise _bad(f"not an Ollama chat body: {type(body).__name__}"
                   + (" without a 'message' object" if isinstance(body, dict) else ""), _BODY)
    return message


def _result_text(record: ToolCallRecord) -> str:
    if record.error is not None:
        return f"Error: {record.error}"
    if isinstance(record.result, str):
        return record.result
    try:
        return json.dumps(record.result, ensure_ascii=False, default=str)
    except (TypeError, ValueError, RecursionError):
        return str(record.result)


class OllamaChatStrategy(ExtractionStrategy):
    """Ollama's native chat format (`/api/chat`, streamed as NDJSON)."""

    name = "ollama-chat"
    leaks_into_text = True

    def recognizes(self, shape: Any) -> bool:
        """A chunk or a whole body: a `message` object and a boolean `done`, no `choices`."""
        try:
            return (
                isinstance(shape, dict)
                and isinstance(shape.get("message"), dict)
                and isinstance(shape.get("done"), bool)
                and "choices" not in shape
            )
        except Exception:  # a hostile mapping must not break resolution
            return False

    # -- streaming ---------------------------------------------------------------------
    def new_accumulator(self) -> _OllamaAcc:
        return _OllamaAcc()

    def accumulate(self, acc: _OllamaAcc, chunk: Any) -> str:
        shown = _hot_path(acc, chunk)  # nearly every chunk is more content
        if shown is not None:
            return shown
        if not isinstance(chunk, dict):
            raise _bad(f"chunk is a {type(chunk).__name__}, not a JSON object")
        error = chunk.get("error")
        if error is not None:
            raise ProviderError(error)
        if acc.final is not None:
            raise EventOutOfOrder("a chunk came after the done:true chunk",
                                  expected="nothing after the done:true chunk")
        message = chunk.get("message")
        done = chunk.get("done")
        if not isinstance(message, dict) or not isinstance(done, bool):
            raise _bad("chunk lacks a 'message' object or a boolean 'done'")
        model = chunk.get("model")
        created = chunk.get("created_at")
        content = message.get("content")
        role = message.get("role")
        thinking = message.get("thinking")
        calls = message.get("tool_calls")
        # Check everything before changing `acc`: a bad chunk leaves no trace in it.
        if ((model is not None and type(model) is not str)
                or (created is not None and type(created) is not str)
                or (content is not None and type(content) is not str)
                or (role is not None and type(role) is not str)
                or (thinking is not None and type(thinking) is not str)):
            raise _not_strings(model, created, content, role, thinking)
        if calls is not None:
            if type(calls) is not list:
                raise _bad(f"message.tool_calls is a {type(calls).__name__}, not a list")
            for call in calls:
                _check_call(call)
            acc.calls.extend(calls)

        if model is not None:
            acc.model = model
        if created is not None:
            acc.created_at = created
        if role is not None:
            acc.role = role
        if thinking:
            acc.thinking.append(thinking)
        known = ("role" in message) + ("content" in message) + ("thinking" in message) + (
            "tool_calls" in message)
        if len(message) > known:
            for key, value in message.items():
                if key not in _MESSAGE_KEYS:
                    acc.extra[key] = value
        if done:
            acc.final = {k: v for k, v in chunk.items() if k not in _BODY_ONLY}
        if content:
            acc.content.append(content)
            return content
        return ""

    def as_message(self, acc: _OllamaAcc) -> dict:
        """The whole `stream=false` body so far (`done: false` until the final chunk)."""
        message: dict[str, Any] = {"role": acc.role, "content": _joined(acc.content)}
        if acc.thinking:
            message["thinking"] = _joined(acc.thinking)
        if acc.calls:
            message["tool_calls"] = copy_json(acc.calls)
        if acc.extra:
            message.update(copy_json(acc.extra))
        body: dict[str, Any] = {}
        if acc.model is not None:
            body["model"] = acc.model
        if acc.created_at is not None:
            body["created_at"] = acc.created_at
        body["message"] = message
        if acc.final is None:
            body["done"] = False
        else:
            body.update(copy_json(acc.final))
        return body

    def is_done(self, chunk: Any) -> bool:
        return isinstance(chunk, dict) and chunk.get("done") is True

    # -- reading -----------------------------------------------------------------------
    def extract(self, message: Any) -> list[ExtractedCall]:
        calls = _message_of(message).get("tool_calls")
        if calls is None:
            return []
        if not isinstance(calls, list):
            raise _bad(f"message.tool_calls is a {type(calls).__name__}, not a list", _BODY)
        found = []
        for call in calls:
            function = call.get("function") if isinstance(call, dict) else None
            call_id = call.get("id") if isinstance(call, dict) else None
            call_id = call_id if isinstance(call_id, str) and call_id else None
            name = function.get("name") if isinstance(function, dict) else None
            if not isinstance(name, str):
                found.append(nameless_call(call, call_id, "tool call has no function name"))
                continue
            # A call without `arguments` (a tool with no parameters) means {}.
            found.append(call_from_object(name, function.get("arguments"), call_id))
        return found

    def content_text(self, message: Any) -> str:
        content = _message_of(message).get("content")
        return content if isinstance(content, str) else ""

    def forming_name(self, message: Any) -> str | None:
        calls = _message_of(message).get("tool_calls")
        if isinstance(calls, list) and calls:
            function = calls[-1].get("function") if isinstance(calls[-1], dict) else None
            name = function.get("name") if isinstance(function, dict) else None
            return name if isinstance(name, str) else None
        return None

    def forming_name_of(self, acc: _OllamaAcc) -> str | None:
        """O(1): calls arrive whole, so the last one's name is known as soon as it exists."""
        return acc.calls[-1]["function"]["name"] if acc.calls else None

    def result_messages(self, message: Any, records: list[ToolCallRecord]) -> list[dict]:
        """The assistant turn as sent back to `/api/chat`, then one `tool` message per
        result, named by `tool_name`."""
        source = _message_of(message)
        content = source.get("content")
        assistant: dict[str, Any] = {
            "role": "assistant",
            "content": content if isinstance(content, str) else "",
        }
        if source.get("thinking"):
            assistant["thinking"] = source["thinking"]
        if source.get("tool_calls"):
            assistant["tool_calls"] = copy_json(source["tool_calls"])
        results = [
            {"role": "tool", "content": _result_text(record), "tool_name": record.name}
            for record in records
        ]
        return [assistant, *results]
