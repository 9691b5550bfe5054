"""`OpenAIChatStrategy`: OpenAI Chat Completions and the servers that copy its wire.

Chunks are `chat.completion.chunk` objects; the assembled message is `choices[0].message`
exactly as `stream=false` returns it, and `as_response` rebuilds the whole `chat.completion`
body. Merging is strictly by choice `index` and tool-call `index`; every string delta field
(content, refusal, reasoning_content, ...) is kept as a list of fragments joined only when the
message is read, so a chunk costs time proportional to itself. The quirks of real servers
(Azure's empty first chunk, Mistral's calls without `index`, Alibaba's `id: ""`
continuations, Zhipu's missing `object`, usage-only and moderation chunks, a top-level
`error` inside a chunk) are handled here; see shared QUIRKS.md.
"""
from __future__ import annotations

import json
from typing import Any

from ._json import copy_json, one_open
from .calls import ExtractedCall, ToolCallRecord, call_from_object
from .errors import MalformedChunk, ProviderError
from .strategy import ExtractionStrategy

__all__ = ["OpenAIChatStrategy"]

_CHUNK_OBJECTS = (None, "", "chat.completion.chunk")  # Zhipu omits it, Azure's first is ""
_STRING_FIELDS = frozenset({"content", "refusal", "role"})  # known delta fields: str or null
_NOT_TEXT = frozenset({"role", "tool_calls", "annotations"})  # string deltas not to be joined
_CHUNK = "an OpenAI chat.completion.chunk"


class _Call:
    """One tool call being assembled; `args` holds the arguments fragments, unjoined."""

    __slots__ = ("id", "type", "name", "args")

    def __init__(self) -> None:
        self.id: str | None = None
        self.type = "function"
        self.name = ""
        self.args: list[str] = []


class _Choice:
    """One choice being assembled: string fields as fragment lists, calls by position=index."""

    __slots__ = ("texts", "calls", "annotations", "finish_reason", "logprobs")

    def __init__(self) -> None:
        self.texts: dict[str, list[str]] = {}
        self.calls: list[_Call] = []
        self.annotations: list = []
        self.finish_reason: str | None = None
        self.logprobs: dict | None = None


class _Acc:
    """Per-stream state; `header_open` stays true until id, model and created are known."""

    __slots__ = ("choices", "header_open", "head", "usage", "extras")

    def __init__(self) -> None:
        self.choices: list[_Choice] = []
        self.header_open = True
        self.head: dict[str, Any] = {"id": None, "created": None, "model": None}
        self.usage: dict | None = None
        self.extras: dict[str, Any] = {}  # system_fingerprint, service_tier, moderation, ...


def _bad(message: str, expected: str = _CHUNK) -> MalformedChunk:
    return MalformedChunk(message, expected=expected)


def _type_name(value: Any) -> str:
    return type(value).__name__


class OpenAIChatStrategy(ExtractionStrategy):
    """Chat Completions: `tool_calls` is authoritative, so a message never falls through."""

    name = "openai-chat"
    leaks_into_text = False

    # ------------------------------------------------------------------ recognition
    def recognizes(self, shape: Any) -> bool:
        """A chunk, a `chat.completion` body, an assistant message with a `tool_calls` key or
        a refusal (no content, a `refusal` string), or an OpenAI-compatible error chunk (a
        top-level `error` object and no `type`). A message with string content and no
        `tool_calls` key is left to the text strategies: its calls, if any, are text."""
        try:
            if not isinstance(shape, dict):
                return False
            choices = shape.get("choices")
            if choices is not None:
                if not isinstance(choices, list):
                    return False
                kind = shape.get("object")
                if kind == "chat.completion":
                    return True
                if not choices:
                    return kind in _CHUNK_OBJECTS
                first = choices[0]
                if not isinstance(first, dict):
                    return False
                if "delta" in first:
                    return kind in _CHUNK_OBJECTS
                return "message" in first and kind is None
            if "tool_calls" in shape:
                return not isinstance(shape.get("content"), list)
            if isinstance(shape.get("refusal"), str) and shape.get("content") is None:
                return shape.get("role") == "assistant" and "type" not in shape
            return isinstance(shape.get("error"), dict) and "type" not in shape
        except Exception:  # a hostile mapping must not break resolution
            return False

    # ------------------------------------------------------------------ streaming
    def new_accumulator(self) -> _Acc:
        return _Acc()

    def accumulate(self, acc: _Acc, chunk: Any) -> str:
        """Fold one chunk in, checked whole first (a bad one leaves no trace); return the
        content text it added to choice 0."""
        shown = _hot_path(acc, chunk)  # nearly every chunk is more content or arguments
        if shown is not None:
            return shown
        if not isinstance(chunk, dict):
            if chunk == "[DONE]":
                return ""
            raise _bad(f"a chunk must be a JSON object, got {_type_name(chunk)}")
        error = chunk.get("error")
        if error is not None:
            raise ProviderError(error)
        choices = chunk.get("choices")
        if type(choices) is not list:
            raise _bad(
                "chunk has no 'choices' list" if choices is None
                else f"'choices' must be a list, got {_type_name(choices)}"
            )
        head, usage = _header(acc, chunk) if acc.header_open else None, chunk.get("usage")
        if usage is not None and type(usage) is not dict:
            raise _bad(f"'usage' must be an object or null, got {_type_name(usage)}")
        _check_choices(acc.choices, choices)
        # Commit: nothing below can fail.
        if head is not None:
            acc.head = head
            acc.header_open = not (head["id"] and head["created"] and head["model"])
        if usage is not None:
            acc.usage = usage
        _fold_extras(acc.extras, chunk)
        if not choices:
            for key in ("moderation", "prompt_filter_results"):
                if chunk.get(key) is not None:
                    acc.extras[key] = chunk[key]
            return ""
        return _fold_choices(acc.choices, choices)

    def is_done(self, chunk: Any) -> bool:
        """True on a chunk where any choice carries a `finish_reason`, or on `[DONE]`."""
        if one_open(chunk, "choices", "finish_reason"):  # the commonest chunk, answered first
            return False
        if not isinstance(chunk, dict):
            return chunk == "[DONE]" if isinstance(chunk, str) else False
        choices = chunk.get("choices")
        if type(choices) is not list:
            return False
        for choice in choices:
            if type(choice) is dict and choice.get("finish_reason") is not None:
                return True
        return False

    # ------------------------------------------------------------------ assembled shapes
    def as_message(self, acc: _Acc) -> dict:
        """`choices[0].message` as `stream=false` returns it (fresh objects every call)."""
        if not acc.choices:
            return _message_of_choice(_Choice())
        return _message_of_choice(acc.choices[0])

    def as_response(self, acc: _Acc) -> dict:
        """The whole `chat.completion` body: header, every choice, usage when sent."""
        body: dict[str, Any] = {
            "id": acc.head["id"],
            "object": "chat.completion",
            "created": acc.head["created"],
            "model": acc.head["model"],
        }
        for key, value in acc.extras.items():
            body[key] = copy_json(value)
        body["choices"] = [
            {
                "index": index,
                "message": _message_of_choice(slot),
                "logprobs": copy_json(slot.logprobs),
                "finish_reason": slot.finish_reason,
            }
            for index, slot in enumerate(acc.choices)
        ]
        if acc.usage is not None:
            body["usage"] = copy_json(acc.usage)
        return body

    def extract(self, message: Any) -> list[ExtractedCall]:
        """The message's tool calls in order; `""` arguments mean `{}`."""
        return [_call_of(entry) for entry in _tool_calls_of(_message_of(message))]

    def content_text(self, message: Any) -> str:
        content = _message_of(message).get("content")
        if content is None:
            return ""
        if isinstance(content, str):
            return content
        if isinstance(content, list):  # request-style text parts
            return "".join(
                part["text"] for part in content
                if isinstance(part, dict) and isinstance(part.get("text"), str)
            )
        raise _bad(f"'content' must be a string or null, got {_type_name(content)}",
                   "an OpenAI assistant message")

    def forming_name(self, message: Any) -> str | None:
        calls = _tool_calls_of(_message_of(message))
        if not calls:
            return None
        last = calls[-1]
        key = "custom" if isinstance(last, dict) and last.get("type") == "custom" else "function"
        function = last.get(key) if isinstance(last, dict) else None
        name = function.get("name") if isinstance(function, dict) else None
        return name if isinstance(name, str) and name else None

    def forming_name_of(self, acc: _Acc) -> str | None:
        """The name of choice 0's last call, read from the accumulator in O(1)."""
        if not acc.choices or not acc.choices[0].calls:
            return None
        return acc.choices[0].calls[-1].name or None

    def result_messages(self, message: Any, records: list[ToolCallRecord]) -> list[dict]:
        """The assistant turn in request shape, then one `tool` message per record."""
        msg = _message_of(message)
        turn: dict[str, Any] = {"role": "assistant", "content": msg.get("content")}
        if msg.get("refusal") is not None:
            turn["refusal"] = msg["refusal"]
        calls = _tool_calls_of(msg)
        if calls:
            turn["tool_calls"] = [_request_call(entry) for entry in calls]
        history = [turn]
        for record in records:
            if record.error is not None:
                text = f"Error: {record.error}"
            elif isinstance(record.result, str):
                text = record.result
            else:
                text = json.dumps(record.result, ensure_ascii=False, default=str)
            history.append({"role": "tool", "tool_call_id": record.tool_call_id, "content": text})
        return history


# ---------------------------------------------------------------------- chunk helpers
def _hot_path(acc: _Acc, chunk: Any) -> str | None:
    """The commonest chunk: one choice whose delta is only more content, or only the next
    arguments of a call that began, folded as the general path folds it; the content shown
    ("" for arguments). None for any other chunk, which the general path then checks and
    folds: this one changes `acc` only once all is known good."""
    try:  # the one choice, its slot and its delta
        choices = chunk["choices"]
        [choice] = choices
        i, delta = choice["index"], choice["delta"]
        slot = acc.choices[i]
    except (KeyError, TypeError, ValueError, IndexError):
        return None
    if not (type(chunk) is dict and type(choices) is list and type(choice) is dict
            and type(i) is int and i >= 0 and type(delta) is dict and len(delta) == 1
            and not acc.header_open and chunk.get("error") is None
            and chunk.get("usage") is None and choice.get("finish_reason") is None
            and choice.get("logprobs") is None):
        return None
    piece = delta.get("content")
    if type(piece) is str:  # more content: the general path opens the list of the first
        pieces = slot.texts.get("content")
        if pieces is None:
            return None
        shown = piece if i == 0 else ""
    else:  # the next arguments of a call: {"index": N, "function": {"arguments": "..."}}
        try:
            calls = delta["tool_calls"]
            [entry] = calls
            at, function = entry["index"], entry["function"]
            piece = function["arguments"]
            pieces = slot.calls[at].args
        except (KeyError, TypeError, ValueError, IndexError):
            return None
        if not (type(calls) is list and type(entry) is dict and len(entry) == 2
                and type(at) is int and at >= 0 and type(function) is dict
                and len(function) == 1 and type(piece) is str):
            return None
        shown = ""
    if "system_fingerprint" in chunk or "service_tier" in chunk:
        _fold_extras(acc.extras, chunk)
    if piece:
        pieces.append(piece)
    return shown


def _header(acc: _Acc, chunk: dict) -> dict:
    """The header to keep, checked: id, created and model from the first chunk that has them
    non-empty (Azure's first has `id: ""`, `model: ""`, `created: 0`; Snowflake never sends
    more, so empty values are kept until better ones come)."""
    head = dict(acc.head)
    for key, kinds in (("id", (str,)), ("created", (int, float)), ("model", (str,))):
        value = chunk.get(key)
        if value is None:
            continue
        if type(value) not in kinds:
            expected = " or ".join(kind.__name__ for kind in kinds)
            raise _bad(f"'{key}' must be {expected}, got {_type_name(value)}")
        if not head[key]:
            head[key] = value
    return head


def _fold_extras(extras: dict, chunk: dict) -> None:
    """system_fingerprint and service_tier: the last one sent wins; a null replaces nothing."""
    for key in ("system_fingerprint", "service_tier"):
        if key in chunk:
            value = chunk[key]
            if value is not None or key not in extras:
                extras[key] = value


def _check_choices(slots: list[_Choice], choices: list) -> None:
    """Raise for the first thing in `choices` that `_fold_choices` cannot take, in the order
    it would meet it. The choices and calls the chunk itself opens are counted as it goes."""
    count = len(slots)
    calls: dict[int, list] = {}  # choice index -> [its calls, the last one's id] so far
    for choice in choices:
        if type(choice) is not dict:
            raise _bad(f"each choice must be an object, got {_type_name(choice)}")
        i = choice.get("index")
        if type(i) is not int or not 0 <= i <= count:
            raise _bad(
                f"choice index {i!r} is not the index of a choice so far or the next one",
                f"an int from 0 to {count}",
            )
        if i == count:
            count += 1
        delta = choice.get("delta")
        if delta:
            if type(delta) is not dict:
                raise _bad(f"'delta' must be an object, got {_type_name(delta)}")
            for key, value in delta.items():
                if type(value) is str:
                    if key in _NOT_TEXT and key != "role":
                        raise _bad(f"delta '{key}' must be a list, got str")
                elif value is None:
                    continue
                elif key == "tool_calls":
                    state = calls.get(i)
                    if state is None:
                        known = slots[i].calls if i < len(slots) else []
                        state = calls[i] = [len(known), known[-1].id if known else None]
                    _check_calls(state, value)
                elif key == "annotations":
                    if type(value) is not list:
                        raise _bad(f"'annotations' must be a list, got {_type_name(value)}")
                elif key in _STRING_FIELDS:
                    raise _bad(
                        f"delta '{key}' must be a string or null, got {_type_name(value)}"
                    )
                # other non-string vendor fields (Mistral's stray `index`, OpenRouter's
                # `reasoning_details`) are not part of the assembled message
        elif delta is not None and type(delta) is not dict:
            raise _bad(f"'delta' must be an object, got {_type_name(delta)}")
        reason = choice.get("finish_reason")
        if reason is not None and type(reason) is not str:
            raise _bad(f"'finish_reason' must be a string or null, got {_type_name(reason)}")
        logprobs = choice.get("logprobs")
        if logprobs is not None:
            if type(logprobs) is not dict:
                raise _bad(f"'logprobs' must be an object or null, got {_type_name(logprobs)}")
            for key in ("content", "refusal"):
                tokens = logprobs.get(key)
                if tokens is not None and type(tokens) is not list:
                    raise _bad(
                        f"'logprobs.{key}' must be a list or null, got {_type_name(tokens)}"
                    )


def _check_calls(state: list, deltas: Any) -> None:
    """Raise for the first tool-call delta `_fold_calls` cannot take; `state` holds how many
    calls the choice has and the last one's id, kept as `_fold_calls` will leave them."""
    if type(deltas) is not list:
        raise _bad(f"'tool_calls' must be a list or null, got {_type_name(deltas)}")
    for delta in deltas:
        if type(delta) is not dict:
            raise _bad(f"each tool-call delta must be an object, got {_type_name(delta)}")
        index, call_id = delta.get("index"), delta.get("id")
        if call_id is not None and type(call_id) is not str:
            raise _bad(f"tool-call 'id' must be a string, got {_type_name(call_id)}")
        count, last_id = state
        if index is None:
            if not count or (call_id and call_id != last_id):  # a new call
                state[:] = [count + 1, call_id or None]
        elif type(index) is int and 0 <= index <= count:
            if index == count:  # a new call
                state[:] = [count + 1, call_id or None]
            elif index == count - 1 and call_id and not last_id:
                state[1] = call_id
        else:
            raise _bad(
                f"tool-call index {index!r} is not the index of a call so far or the next one",
                f"an int from 0 to {count}",
            )
        kind = delta.get("type")
        if kind is not None and type(kind) is not str:
            raise _bad(f"tool-call 'type' must be a string, got {_type_name(kind)}")
        function = delta.get("function")
        if function is None:
            continue
        if type(function) is not dict:
            raise _bad(f"tool-call 'function' must be an object, got {_type_name(function)}")
        name = function.get("name")
        if name is not None and type(name) is not str:
            raise _bad(f"function 'name' must be a string, got {_type_name(name)}")
        arguments = function.get("arguments")
        if arguments is not None and type(arguments) is not str:
            raise _bad(
                f"function 'arguments' must be a string fragment, got {_type_name(arguments)}"
            )


def _fold_choices(slots: list[_Choice], choices: list) -> str:
    """Fold checked choices in (`_check_choices`); return the content added to choice 0."""
    shown = ""
    for choice in choices:
        i = choice["index"]
        if i == len(slots):
            slots.append(_Choice())
        slot = slots[i]
        delta = choice.get("delta")
        if delta:
            texts = slot.texts
            for key, value in delta.items():
                if type(value) is str:
                    if key == "role":
                        continue
                    parts = texts.get(key)
                    if parts is None:
                        texts[key] = [value]
                    else:
                        parts.append(value)
                    if key == "content" and i == 0:
                        shown += value
                elif value is None:
                    continue
                elif key == "tool_calls":
                    _fold_calls(slot.calls, value)
                elif key == "annotations":
                    slot.annotations.extend(value)
        reason = choice.get("finish_reason")
        if reason is not None:
            slot.finish_reason = reason
        logprobs = choice.get("logprobs")
        if logprobs is not None:
            _fold_logprobs(slot, logprobs)
    return shown


def _fold_calls(calls: list[_Call], deltas: list) -> None:
    """Merge checked tool-call deltas by `index`; without one (Mistral) continue the last
    call unless the delta brings a new non-empty id. Empty id/name/type never overwrite."""
    for delta in deltas:
        index, call_id = delta.get("index"), delta.get("id")
        if index is None:
            if calls and not (call_id and call_id != calls[-1].id):
                call = calls[-1]
            else:
                call = _Call()
                calls.append(call)
        elif index == len(calls):
            call = _Call()
            calls.append(call)
        else:
            call = calls[index]
        if call_id and not call.id:
            call.id = call_id
        kind = delta.get("type")
        if kind:
            call.type = kind
        function = delta.get("function")
        if function is None:
            continue
        name, arguments = function.get("name"), function.get("arguments")
        if name is not None:
            call.name += name
        if arguments:
            call.args.append(arguments)


def _fold_logprobs(slot: _Choice, logprobs: dict) -> None:
    """Concatenate the token lists of `logprobs.content` / `.refusal`, as the SDK does."""
    if slot.logprobs is None:
        slot.logprobs = {"content": None, "refusal": None}
    for key in ("content", "refusal"):
        tokens = logprobs.get(key)
        if tokens is None:
            continue
        if slot.logprobs[key] is None:
            slot.logprobs[key] = []
        slot.logprobs[key].extend(tokens)


def _message_of_choice(slot: _Choice) -> dict:
    message: dict[str, Any] = {
        "role": "assistant",
        "content": None,
        "refusal": None,
        "annotations": copy_json(slot.annotations),
    }
    for key, parts in slot.texts.items():
        message[key] = "".join(parts)
    if slot.calls:
        message["tool_calls"] = [
            {
                "id": call.id,
                "type": call.type,
                "function": {"name": call.name, "arguments": "".join(call.args)},
            }
            for call in slot.calls
        ]
    return message


# ---------------------------------------------------------------------- message helpers
_MESSAGE = "an OpenAI assistant message or chat.completion body"


def _message_of(shape: Any) -> dict:
    """The assistant message itself, or `choices[0].message` of a whole body."""
    if not isinstance(shape, dict):
        raise _bad(f"expected a message object, got {_type_name(shape)}", _MESSAGE)
    if "choices" not in shape:
        return shape
    choices = shape["choices"]
    if not isinstance(choices, list):
        raise _bad(f"'choices' must be a list, got {_type_name(choices)}", _MESSAGE)
    if not choices:
        return {}
    choice = choices[0]
    message = choice.get("message") if isinstance(choice, dict) else None
    if not isinstance(message, dict):
        raise _bad("choices[0] has no 'message' object", _MESSAGE)
    return message


def _tool_calls_of(message: dict) -> list:
    calls = message.get("tool_calls")
    if calls is None:
        return []
    if not isinstance(calls, list):
        raise _bad(f"'tool_calls' must be a list or null, got {_type_name(calls)}", _MESSAGE)
    return calls


def _call_of(entry: Any) -> ExtractedCall:
    if not isinstance(entry, dict):
        raise _bad(f"each tool call must be an object, got {_type_name(entry)}", _MESSAGE)
    call_id = entry.get("id")
    call_id = call_id if isinstance(call_id, str) else None
    if entry.get("type") == "custom" and isinstance(entry.get("custom"), dict):
        custom = entry["custom"]
        name = custom.get("name")
        if not isinstance(name, str):
            raise _bad(f"custom tool call 'name' must be a string, got {_type_name(name)}",
                       _MESSAGE)
        raw = custom.get("input")
        if isinstance(raw, str):  # freeform text: kept as it is, never parsed as JSON
            return ExtractedCall(name, {}, call_id, kind="custom", input=raw)
        return ExtractedCall(name, {}, call_id,
                             f"custom tool input must be a string, got {_type_name(raw)}",
                             kind="custom")
    function = entry.get("function")
    if not isinstance(function, dict):
        raise _bad("a tool call has no 'function' object", _MESSAGE)
    name = function.get("name")
    if not isinstance(name, str):
        raise _bad(f"function 'name' must be a string, got {_type_name(name)}", _MESSAGE)
    return call_from_object(name, function.get("arguments"), call_id)


def _request_call(entry: Any) -> dict:
    """A tool call as a request message carries it: id, type, function (no `index`)."""
    call = _call_of(entry)  # validates the entry
    if call.kind == "custom":  # goes back as it came: id, type, custom {name, input}
        return {key: copy_json(value) for key, value in entry.items() if key != "index"}
    function = entry.get("function") or {}
    arguments = function.get("arguments")
    if not isinstance(arguments, str):
        arguments = json.dumps(arguments if arguments is not None else {}, ensure_ascii=False)
    return {
        "id": call.id,
        "type": entry.get("type") or "function",
        "function": {"name": call.name, "arguments": arguments},
    }
