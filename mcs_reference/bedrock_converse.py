"""Amazon Bedrock's Converse API: `converse-stream` events folded into the `Converse` response.

A chunk is one decoded event as boto3's `converse_stream()["stream"]` yields it,
`{event type: payload}` (`sse.iter_chunks(body, format="eventstream")` reads the binary
body into the same dicts). Blocks are addressed by `contentBlockIndex`: tool blocks open
with a `contentBlockStart`, text and reasoning blocks open with their first delta. Tool input
streams as JSON text, kept in pieces and parsed once the block is read; text is joined
lazily, so a chunk costs time proportional to itself. `messageStop` brings the stop reason,
the terminal `metadata` the usage and metrics. Live payloads carry a random padding key `p`,
ignored everywhere. An exception event (`throttlingException`, ...) is a `ProviderError`.

Citations: a block's `delta.citation` objects are collected in order; the block is then
`{"citationsContent": {"citations": [...]}}`, with `"content": [{"text": ...}]` when text
deltas came in the same block (the shape `Converse` returns).
"""
from __future__ import annotations

import base64
import json
from typing import Any

from ._json import copy_json
from .calls import ExtractedCall, ToolCallRecord, call_from_object, nameless_call
from .errors import EventOutOfOrder, MalformedChunk, ProviderError
from .strategy import ExtractionStrategy

__all__ = ["BedrockConverseStrategy"]

_EVENTS = frozenset({"messageStart", "contentBlockStart", "contentBlockDelta",
                    "contentBlockStop", "messageStop", "metadata"})
_CHUNK = "a Converse stream event {event type: payload}, as boto3's converse_stream() yields it"
_BODY = "a Converse response {output: {message: {role, content: [blocks]}}, stopReason, ...}"
_DELTA = ("a delta with one of text, toolUse {input}, reasoningContent {text | signature | "
          "redactedContent}, toolResult [...], citation {...}, image {...}")
_DELTAS = ("text", "toolUse", "reasoningContent", "toolResult", "citation", "image")
_START = "a start with one of toolUse {toolUseId, name}, toolResult {toolUseId}, image {format}"
# Block kinds. A block opened by a delta takes the delta's kind; CITED is a block of
# citations only (TEXT with citations keeps TEXT).
_TEXT, _CITED, _TOOL, _THINK, _REDACTED, _RESULT, _IMAGE = (
    "text", "citations", "toolUse", "reasoning", "redacted", "toolResult", "image")
# Which delta kinds each block kind takes (None: a block opened with an empty start).
_TAKES = {
    "text": (None, _TEXT, _CITED), "citation": (None, _TEXT, _CITED),
    "reasoningText": (None, _THINK), "signature": (None, _THINK),
    "redactedContent": (None, _REDACTED),
    "toolUse": (_TOOL,), "toolResult": (_RESULT,), "image": (_IMAGE,),
}


def _bad(what: str, expected: str = _CHUNK) -> MalformedChunk:
    return MalformedChunk(what, expected=expected)


def _only(value: Any, where: str, names: tuple, expected: str) -> tuple[str, Any]:
    """The one key of a union object (padding `p` ignored), and its value."""
    if type(value) is not dict:
        raise _bad(f"{where} is a {type(value).__name__}, not an object", expected)
    keys = [key for key in value if key != "p"]
    if len(keys) != 1 or keys[0] not in names:
        raise _bad(f"{where} has keys {keys}", expected)
    return keys[0], value[keys[0]]


def _head(value: Any, where: str, required: tuple, optional: tuple, expected: str) -> dict:
    """A start object checked (its named fields strings), copied without `p`."""
    if type(value) is not dict:
        raise _bad(f"{where} is a {type(value).__name__}, not an object", expected)
    for key in required + optional:
        if (key in required or value.get(key) is not None) and type(value.get(key)) is not str:
            raise _bad(f"{where}.{key} is {type(value.get(key)).__name__}, not a string", expected)
    return {key: copy_json(item) for key, item in value.items() if key != "p"}


def _wire(value: Any) -> Any:
    """A copy of JSON-like data with boto3's blobs (bytes) back in the wire's base64 text."""
    if isinstance(value, dict):
        return {key: _wire(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_wire(item) for item in value]
    if isinstance(value, (bytes, bytearray)):
        return base64.b64encode(value).decode("ascii")
    return value


def _parse_input(text: str) -> Any:
    """A tool block's input from its joined JSON text: "" is {}; text that is not a JSON
    object (a cut stream, `null`, `[1, 2]`) stays text, which `extract` reports as a failed
    call: parsed, `null` would read as "no arguments" and the call would run."""
    if text == "":
        return {}
    try:
        value = json.loads(text)
    except (ValueError, RecursionError):
        return text
    return value if isinstance(value, dict) else text


class _Block:
    """One content block: its kind, its start's fields, the pieces its deltas sent."""

    __slots__ = ("kind", "head", "pieces", "signature", "items", "live", "final")

    def __init__(self, kind: str | None, head: dict | None) -> None:
        self.kind = kind
        self.head = head  # toolUse / toolResult / image start fields, without `p`
        self.pieces: list[str] = []  # text, tool input JSON, reasoning text, redacted base64
        self.signature: str | None = None
        self.items: Any = None  # citations, toolResult content (lists), image fields (dict)
        self.live = True  # until contentBlockStop
        self.final: dict | None = None  # the assembled block, once it cannot change

    def joined(self) -> str:
        pieces = self.pieces
        if len(pieces) > 1:
            pieces[:] = ["".join(pieces)]
        return pieces[0] if pieces else ""

    def assemble(self, frozen: bool) -> dict:
        """The block as `Converse` returns it; a fresh object on every call. Once the block
        or the message has stopped, it is built (its input parsed) once and kept."""
        if self.final is not None:
            return copy_json(self.final)
        kind, head = self.kind, self.head
        if kind == _TOOL:
            use = {"toolUseId": head["toolUseId"], "name": head["name"],
                   "input": _parse_input(self.joined())}
            use.update((key, value) for key, value in head.items() if key not in use)
            out: dict = {"toolUse": use}
        elif kind == _THINK:
            text: dict = {"text": self.joined()}
            if self.signature is not None:
                text["signature"] = self.signature
            out = {"reasoningContent": {"reasoningText": text}}
        elif kind == _REDACTED:
            out = {"reasoningContent": {"redactedContent": self.joined()}}
        elif kind == _RESULT:
            result = {"toolUseId": head["toolUseId"], "content": self.items or []}
            result.update((key, value) for key, value in head.items() if key not in result)
            out = {"toolResult": result}
        elif kind == _IMAGE:
            out = {"image": {**head, **(self.items or {})}}
        elif self.items is not None:  # citations, with the block's text when it had some
            cited: dict = {"content": [{"text": self.joined()}]} if kind == _TEXT else {}
            cited["citations"] = self.items
            out = {"citationsContent": cited}
        else:  # text, or a block opened by an empty start that got no delta
            out = {"text": self.joined()}
        if self.live and not frozen:
            return copy_json(out)
        self.final = copy_json(out)
        return out


class _ConverseAcc:
    __slots__ = ("role", "blocks", "by_index", "last", "stop", "fields", "stopped", "ended",
                 "tool_name")

    def __init__(self) -> None:
        self.role: str | None = None  # from messageStart
        self.blocks: list[_Block] = []  # in contentBlockIndex order (indexes only grow)
        self.by_index: dict[int, _Block] = {}
        self.last = -1  # the highest contentBlockIndex so far
        self.stop: str | None = None  # messageStop's stopReason
        self.fields: dict = {}  # messageStop's and metadata's other fields, last wins
        self.stopped = False  # messageStop came
        self.ended = False  # metadata came
        self.tool_name: str | None = None  # the name of the last toolUse block started


def _index(payload: dict, event: str) -> int:
    index = payload.get("contentBlockIndex")
    if type(index) is not int or index < 0:
        raise _bad(f"{event}.contentBlockIndex is {index!r}", "an int from 0")
    return index


def _payload(kind: str, payload: Any) -> dict:
    if type(payload) is not dict:
        raise _bad(f"the {kind} payload is a {type(payload).__name__}, not an object")
    return payload


def _open_to_blocks(acc: _ConverseAcc, event: str) -> None:
    if acc.stopped or acc.ended:
        raise EventOutOfOrder(f"{event} after {'messageStop' if acc.stopped else 'metadata'}",
                              expected="block events before messageStop and metadata")


def _new_index(acc: _ConverseAcc, index: int, event: str) -> None:
    if index <= acc.last:
        raise EventOutOfOrder(f"{event} opens block {index} after block {acc.last}",
                              expected=f"a block index above {acc.last}: blocks open in order")


def _add_block(acc: _ConverseAcc, index: int, block: _Block) -> _Block:
    acc.blocks.append(block)
    acc.by_index[index] = block
    acc.last = index
    return block


def _start(acc: _ConverseAcc, payload: dict) -> None:
    _open_to_blocks(acc, "contentBlockStart")
    index = _index(payload, "contentBlockStart")
    if index in acc.by_index:
        raise EventOutOfOrder(f"a second start for block {index}",
                              expected="one contentBlockStart per block, before its deltas")
    _new_index(acc, index, "contentBlockStart")
    start = payload.get("start")
    where = f"contentBlockStart {index}.start"
    if type(start) is dict and all(key == "p" for key in start):  # `start: {}`: no kind yet
        _add_block(acc, index, _Block(None, None))
        return
    kind, value = _only(start, where, (_TOOL, _RESULT, _IMAGE), _START)
    if kind == _TOOL:
        head = _head(value, f"{where}.toolUse", ("toolUseId", "name"), ("type",), _START)
    elif kind == _RESULT:
        head = _head(value, f"{where}.toolResult", ("toolUseId",), ("status", "type"), _START)
    else:
        head = _head(value, f"{where}.image", ("format",), (), _START)
    _add_block(acc, index, _Block(kind, head))
    if kind == _TOOL:
        acc.tool_name = head["name"]


def _delta(acc: _ConverseAcc, payload: dict) -> str:
    _open_to_blocks(acc, "contentBlockDelta")
    index = _index(payload, "contentBlockDelta")
    where = f"contentBlockDelta {index}.delta"
    kind, value = _only(payload.get("delta"), where, _DELTAS, _DELTA)
    # Check the delta whole before anything changes.
    if kind == "text":
        if type(value) is not str:
            raise _bad(f"{where}.text is a {type(value).__name__}", _DELTA)
    elif kind == "toolUse":
        piece = value.get("input") if type(value) is dict else None
        if type(piece) is not str:
            raise _bad(f"{where}.toolUse has no string 'input'", _DELTA)
        value = piece
    elif kind == "reasoningContent":
        kind, value = _only(value, f"{where}.reasoningContent",
                            ("text", "signature", "redactedContent"), _DELTA)
        if kind == "redactedContent":
            value = _wire(value)  # boto3 gives bytes
        if type(value) is not str:
            raise _bad(f"{where}.reasoningContent.{kind} is a {type(value).__name__}", _DELTA)
        kind = "reasoningText" if kind == "text" else kind
    elif kind == "toolResult":
        if type(value) is not list or not all(type(item) is dict for item in value):
            raise _bad(f"{where}.toolResult is not a list of objects", _DELTA)
    elif type(value) is not dict:  # citation, image
        raise _bad(f"{where}.{kind} is a {type(value).__name__}, not an object", _DELTA)
    block = acc.by_index.get(index)
    if block is None:
        if kind not in ("text", "citation", "reasoningText", "signature", "redactedContent"):
            raise EventOutOfOrder(f"a {kind} delta for block {index}, which no start opened",
                                  expected=f"contentBlockStart with {kind} first")
        _new_index(acc, index, "contentBlockDelta")
    elif not block.live:
        raise EventOutOfOrder(f"a {kind} delta for block {index} after its contentBlockStop")
    elif block.kind not in _TAKES[kind]:
        raise EventOutOfOrder(f"a {kind} delta for block {index}, a {block.kind} block",
                              expected=f"deltas of the block's own kind ({block.kind})")
    # Commit: nothing below can fail.
    if block is None:
        block = _add_block(acc, index, _Block(None, None))
    if kind == "text":
        block.kind = _TEXT
        if value:
            block.pieces.append(value)
        return value
    if kind == "citation":
        block.kind = block.kind or _CITED
        if block.items is None:
            block.items = []
        block.items.append(copy_json(value))
    elif kind == "signature":
        block.kind = _THINK
        block.signature = value
    elif kind == "toolResult":
        if block.items is None:
            block.items = []
        block.items.extend(copy_json(value))
    elif kind == "image":
        if block.items is None:
            block.items = {}
        block.items.update((key, _wire(item)) for key, item in value.items() if key != "p")
    else:  # toolUse input, reasoning text, redacted content: pieces of one string
        block.kind = _THINK if kind == "reasoningText" else (
            _REDACTED if kind == "redactedContent" else block.kind)
        if value:
            block.pieces.append(value)
    return ""


def _hot_path(acc: _ConverseAcc, chunk: Any) -> str | None:
    """The commonest event: a text or toolUse delta for a live block of its kind, folded as
    `_delta` folds it; the text shown. None for any other event, which the general path
    then checks and folds: this one changes the block only once all is known good."""
    try:
        payload = chunk["contentBlockDelta"]
        index, delta = payload["contentBlockIndex"], payload["delta"]
        block = acc.by_index[index]
    except (KeyError, TypeError):  # another event, or not a block that began
        return None
    if not (type(chunk) is dict and len(chunk) == 1 and type(index) is int
            and type(delta) is dict and len(delta) == 1 and block.live
            and not acc.stopped and not acc.ended):
        return None
    use = delta.get("toolUse")
    if use is not None:
        piece = use.get("input") if type(use) is dict else None
        if type(piece) is not str or block.kind != _TOOL:
            return None
        if piece:
            block.pieces.append(piece)
        return ""
    text = delta.get("text")
    if type(text) is not str or block.kind not in _TAKES["text"]:
        return None
    block.kind = _TEXT
    if text:
        block.pieces.append(text)
    return text


def _stop(acc: _ConverseAcc, payload: dict) -> None:
    _open_to_blocks(acc, "contentBlockStop")
    index = _index(payload, "contentBlockStop")
    block = acc.by_index.get(index)
    if block is None or not block.live:
        raise EventOutOfOrder(
            f"contentBlockStop for block {index}, which "
            + ("never began" if block is None else "was already stopped"),
            expected="one contentBlockStop per block, after its deltas")
    block.live = False


def _fields(acc: _ConverseAcc, payload: dict, event: str, skip: str) -> None:
    """Copy an event's other fields (without `p`), last wins; objects checked first."""
    if "output" in payload:
        raise _bad(f"{event} carries 'output'", f"{event} fields beside the message")
    for key in ("usage", "metrics", "trace", "performanceConfig", "serviceTier",
                "additionalModelResponseFields"):
        value = payload.get(key)
        if value is not None and type(value) is not dict:
            raise _bad(f"{event}.{key} is a {type(value).__name__}, not an object")
    for key, value in payload.items():
        if key != "p" and key != skip:
            acc.fields[key] = copy_json(value)


def _blocks(message: Any) -> list[dict]:
    """The content blocks of a Converse response, checked to be objects."""
    output = message.get("output") if isinstance(message, dict) else None
    inner = output.get("message") if isinstance(output, dict) else None
    if inner is None and isinstance(output, dict):
        return []  # a response without a message (output + stopReason)
    content = inner.get("content") if isinstance(inner, dict) else None
    if not isinstance(content, list):
        raise _bad(f"not a Converse response: {type(message).__name__} without "
                   "output.message.content", _BODY)
    for position, block in enumerate(content):
        if not isinstance(block, dict):
            raise _bad(f"output.message.content[{position}] is a {type(block).__name__}", _BODY)
    return content


def _result_content(record: ToolCallRecord) -> list[dict]:
    if record.error is not None:
        return [{"text": str(record.error)}]
    result = record.result
    if isinstance(result, (dict, list)):
        try:
            return [{"json": json.loads(json.dumps(result, allow_nan=False))}]
        except (TypeError, ValueError, RecursionError):
            pass  # not JSON-able: sent as its text
    return [{"text": str(result)}]


class BedrockConverseStrategy(ExtractionStrategy):
    """Amazon Bedrock's Converse API (`converse` and `converse-stream`)."""

    name = "bedrock-converse"
    leaks_into_text = True  # Nova writes <thinking> in text; models without tool use may too

    def recognizes(self, shape: Any) -> bool:
        """A stream event (one key, an event name or an `...Exception`, whose value is an
        object) or a whole Converse response (`output.message`, or `output` + `stopReason`)."""
        try:
            if not isinstance(shape, dict):
                return False
            if len(shape) == 1:
                [(key, value)] = shape.items()
                return (isinstance(value, dict) and isinstance(key, str)
                        and (key in _EVENTS or key.endswith("Exception")))
            output = shape.get("output")
            return isinstance(output, dict) and (isinstance(output.get("message"), dict)
                                                 or "stopReason" in shape)
        except Exception:  # a hostile mapping must not break resolution
            return False

    # -- streaming ---------------------------------------------------------------------
    def new_accumulator(self) -> _ConverseAcc:
        return _ConverseAcc()

    def accumulate(self, acc: _ConverseAcc, chunk: Any) -> str:
        shown = _hot_path(acc, chunk)  # nearly every event is a text or toolUse delta
        if shown is not None:
            return shown
        if type(chunk) is not dict or len(chunk) != 1:
            raise _bad(f"chunk is a {type(chunk).__name__}"
                       + (f" with keys {list(chunk)[:4]}" if type(chunk) is dict else ""))
        [(kind, payload)] = chunk.items()
        if kind == "contentBlockDelta":
            return _delta(acc, _payload(kind, payload))
        if isinstance(kind, str) and kind.endswith("Exception"):
            error = {key: value for key, value in payload.items() if key != "p"} if type(
                payload) is dict else {"message": payload if isinstance(payload, str) else None}
            raise ProviderError({"type": kind, "message": error.get("message"), **error})
        if kind not in _EVENTS:
            raise _bad(f"unknown event {kind!r}", f"one of {sorted(_EVENTS)} or an ...Exception")
        payload = _payload(kind, payload)
        if kind == "contentBlockStart":
            _start(acc, payload)
        elif kind == "contentBlockStop":
            _stop(acc, payload)
        elif kind == "messageStart":
            role = payload.get("role")
            if type(role) is not str:
                raise _bad(f"messageStart.role is {role!r}", "a role string: assistant")
            if acc.role is not None or acc.blocks or acc.stopped or acc.ended:
                raise EventOutOfOrder("messageStart after the message began",
                                      expected="messageStart first, once")
            acc.role = role
        elif kind == "messageStop":
            reason = payload.get("stopReason")
            if type(reason) is not str:
                raise _bad(f"messageStop.stopReason is {reason!r}", "a stopReason string")
            _fields(acc, payload, kind, "stopReason")
            acc.stop, acc.stopped = reason, True
        else:  # metadata
            _fields(acc, payload, kind, "")
            acc.ended = True
        return ""

    def as_message(self, acc: _ConverseAcc) -> dict:
        """The whole `Converse` response so far (also `as_response`): `stopReason` once
        messageStop came, usage and metrics once metadata came."""
        frozen = acc.stopped or acc.ended
        message = {"role": acc.role or "assistant",
                   "content": [block.assemble(frozen) for block in acc.blocks]}
        body: dict[str, Any] = {"output": {"message": message}}
        if acc.stop is not None:
            body["stopReason"] = acc.stop
        body.update(copy_json(acc.fields))
        return body

    def is_done(self, chunk: Any) -> bool:
        """`metadata` is the terminal event: the response is whole once the usage came."""
        return type(chunk) is dict and "metadata" in chunk

    # -- reading -----------------------------------------------------------------------
    def extract(self, message: Any) -> list[ExtractedCall]:
        """The toolUse blocks in order, but those the provider ran itself: `type:
        server_tool_use`, or answered by a toolResult block of the same message."""
        blocks = _blocks(message)
        answered = {block["toolResult"].get("toolUseId") for block in blocks
                    if isinstance(block.get("toolResult"), dict)}
        found = []
        for block in blocks:
            use = block.get("toolUse")
            if use is None:
                continue
            if not isinstance(use, dict):
                found.append(nameless_call(use, None, "toolUse is not an object"))
                continue
            call_id = use.get("toolUseId")
            call_id = call_id if isinstance(call_id, str) else None
            if use.get("type") == "server_tool_use" or (call_id is not None
                                                        and call_id in answered):
                continue
            name = use.get("name")
            if not isinstance(name, str):
                found.append(nameless_call(use, call_id))
                continue
            found.append(call_from_object(name, use.get("input"), call_id))
        return found

    def content_text(self, message: Any) -> str:
        """The text blocks joined (and the text of citationsContent blocks)."""
        texts = []
        for block in _blocks(message):
            text, cited = block.get("text"), block.get("citationsContent")
            if isinstance(text, str):
                texts.append(text)
            elif isinstance(cited, dict) and isinstance(cited.get("content"), list):
                texts.extend(part["text"] for part in cited["content"]
                             if isinstance(part, dict) and isinstance(part.get("text"), str))
        return "".join(texts)

    def forming_name(self, message: Any) -> str | None:
        for block in reversed(_blocks(message)):
            use = block.get("toolUse")
            if use is not None:
                name = use.get("name") if isinstance(use, dict) else None
                return name if isinstance(name, str) else None
        return None

    def forming_name_of(self, acc: _ConverseAcc) -> str | None:
        """O(1): the name of the last toolUse block started, kept as blocks start."""
        return acc.tool_name

    def result_messages(self, message: Any, records: list[ToolCallRecord]) -> list[dict]:
        """The assistant turn with its blocks as they came, then one user turn holding a
        `toolResult` per record (JSON results as `json`, others and errors as `text`)."""
        history = [{"role": "assistant", "content": copy_json(_blocks(message))}]
        if records:
            history.append({"role": "user", "content": [
                {"toolResult": {"toolUseId": record.tool_call_id,
                                "content": _result_content(record),
                                "status": "error" if record.error is not None else "success"}}
                for record in records]})
        return history
