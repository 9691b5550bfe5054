"""`BaseDriver`: find the tool calls in a model's response, run them, shape the history.

The driver asks its own question of the shared chain: the buffer resolved *which wire is
streaming* on the first chunk; the driver resolves *which format the call is in* on the
assembled message. They usually agree, but not always: an OpenAI Chat message with no
`tool_calls` key is read by the text strategy, which is how a call written in content is
found.
"""
from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping

from .buffer import LLMStreamBuffer, as_chain
from .calls import ExtractedCall, ToolCallRecord
from .capabilities import SupportsNativeTools, SupportsStreaming
from .chain import default_chain
from .errors import UnrecognisedStream
from .text import TextStrategy
from .text_codecs import JsonCodec

__all__ = ["BaseDriver", "DriverResponse"]

_FOREIGN_CALLS = ("fail", "ignore")
# Opening markers for codecs that do not declare `opening_markers`, by codec name.
_DEFAULT_MARKERS = {"hermes": ("<tool_call>",), "text-json": ('{"tool"', "```json")}
_FALLBACK_MARKERS = ("{",)
_scratch_keys = itertools.count()


@dataclass
class DriverResponse:
    """What one `process_llm_response` round found and did.

    `executed_calls` holds a record for every call the driver handled, run or failed (a
    failed record has `error` set). `calls` is every call found in the message, including
    calls to tools this driver does not own. Mid-stream, `call_pending` says a call may be
    forming and nothing has run yet. At the end, `pending_calls` holds the client-run calls
    of a kind no handler was registered for (a `computer` call, say): they were not run,
    the client must answer them, and `call_pending` stays true.
    """

    call_executed: bool = False
    call_failed: bool = False
    call_pending: bool = False
    messages: list[dict] = field(default_factory=list)
    executed_calls: list[ToolCallRecord] = field(default_factory=list)
    retry_prompt: str | None = None
    calls: list[ExtractedCall] = field(default_factory=list)
    pending_calls: list[ExtractedCall] = field(default_factory=list)


class _StreamState:
    """What one driver remembers about one buffer, kept in `buf.scratch` (cleared on reset)."""

    __slots__ = ("markers", "carry_len", "position", "carry", "seen", "maybe", "response",
                 "hold_at_end")

    def __init__(self, markers: tuple[str, ...]):
        self.markers = markers  # () when this stream's text needs no watching
        self.carry_len = max((len(m) for m in markers), default=1) - 1
        self.position = 0  # display deltas already scanned
        self.carry = ""  # tail of the scanned text, for a marker split across chunks
        self.seen = False  # an opening marker appeared: hold the display until the end
        self.maybe = False  # the text ends where a marker may be starting: hold this round
        self.response: DriverResponse | None = None  # the answer once the stream is done
        self.hold_at_end = False


class BaseDriver(SupportsNativeTools, SupportsStreaming):
    """Run the tool calls a model made, whatever the wire and however it wrote them.

    `tools` maps a tool name to a callable: a `function` call's callable takes the call's
    arguments as keyword arguments, a `custom` (freeform) call's callable takes the raw
    input text as its one positional argument. `chain` (default `default_chain()`) resolves
    the format of each message. `foreign_calls` says what to do with a call to a tool not in
    `tools`: `"fail"` reports it as a failed record with a retry prompt; `"ignore"` leaves it
    alone, for fan-out, where one buffer goes through several drivers and each runs only its
    own tools.

    `handlers` maps any other client-run kind (`"computer"`, `"local_shell"`, `"shell"`,
    `"apply_patch"`, or a kind a third-party strategy defines) to a callable that takes the
    whole `ExtractedCall` and returns the result `result_messages` turns into that kind's
    output item (see the strategy's docs: a screenshot for `computer`, stdout or contents
    for `shell`, ...). A call of a kind with no handler is never dropped and never a crash:
    it is listed in `DriverResponse.pending_calls`. A subclass may override `handler_for`.

    Streaming: call `process_llm_response(buf)` after every `buf.add(chunk)`, then show
    `buf.pop_display()`. Mid-stream a round costs time proportional to the new chunk: it
    runs nothing, reports `call_pending`, and holds the display once text that opens a call
    (a codec's opening marker) appears, so call text never reaches the user. At the end the
    calls run once; the display stays held when the held text held a call (the client then
    appends `messages` and calls `buf.reset()`, which discards it), and is released when it
    was only prose.

    Known, accepted edge: a text leak interrupted by a native call (Anthropic text that
    starts writing `{"tool": ...` and then a `tool_use` block arrives). The native call wins:
    only it runs, and the held leak text is never shown; `buf.reset()` discards it.
    """

    #: The text strategy of the native -> text fall-through; `None` turns it off. Set in
    #: `__init__` (to `TextStrategy(JsonCodec())`) unless a subclass already defines it.
    backup_text_strategy: Any

    def __init__(
        self,
        tools: Mapping[str, Callable[..., Any]] | None = None,
        *,
        chain: Any = None,
        foreign_calls: str = "fail",
        handlers: Mapping[str, Callable[[ExtractedCall], Any]] | None = None,
    ):
        if foreign_calls not in _FOREIGN_CALLS:
            raise ValueError(
                f"foreign_calls must be 'fail' (a call to an unknown tool is a failed call) or "
                f"'ignore' (leave it to another driver), got {foreign_calls!r}"
            )
        tools = {} if tools is None else tools
        if not isinstance(tools, Mapping):
            raise TypeError(f"tools must map tool names to callables, got {type(tools).__name__}")
        for name, function in tools.items():
            if not callable(function):
                raise TypeError(f"tool {name!r} is not callable: {function!r}")
        self.tools = dict(tools)
        self.handlers = _checked_handlers(handlers)
        self.foreign_calls = foreign_calls
        if chain is None:
            chain = default_chain()
        self.chain = as_chain(chain)
        if not hasattr(self, "backup_text_strategy"):
            self.backup_text_strategy = TextStrategy(JsonCodec())
        self._scratch_key = ("mcs_reference.BaseDriver", next(_scratch_keys))

    # -- capabilities ------------------------------------------------------------------
    @property
    def extraction_strategies(self) -> Any:
        """The driver's chain, shared with the buffers it makes."""
        return self.chain

    def new_stream_buffer(self) -> LLMStreamBuffer:
        """A fresh buffer over this driver's chain."""
        return LLMStreamBuffer(self.chain)

    # -- entry point -------------------------------------------------------------------
    def process_llm_response(self, response: Any) -> DriverResponse:
        """Find the calls in `response`, run the ones this driver owns, report.

        `response` is a `str`, a native message `dict`, or an `LLMStreamBuffer` (called
        after every chunk). Raises `UnrecognisedStream` for a dict no strategy recognizes.
        """
        if isinstance(response, LLMStreamBuffer):
            return self._process_buffer(response)
        if isinstance(response, (str, dict)):
            return self._process_message(response)
        raise TypeError(
            f"process_llm_response accepts a str, a native message dict or an "
            f"LLMStreamBuffer, got {type(response).__name__}"
        )

    # -- streaming ---------------------------------------------------------------------
    def _process_buffer(self, buf: LLMStreamBuffer) -> DriverResponse:
        if buf.strategy is None:  # no chunk yet (or a body closed before any chunk)
            return DriverResponse()
        state = buf.scratch.get(self._scratch_key)
        if state is None:
            state = _StreamState(self._watched_markers(buf.strategy))
            buf.scratch[self._scratch_key] = state
        elif state.response is not None:  # done and handled: never run the tools twice
            if state.hold_at_end:
                buf.hold()
            return state.response
        if state.markers and not state.seen:
            self._scan(buf, state)
        if not buf.is_done():
            if state.seen:
                buf.hold()
                return DriverResponse(call_pending=True)
            if state.maybe:
                buf.hold()
            return DriverResponse(call_pending=buf.forming_name() is not None)
        message = buf.as_dict()
        strategy = self.chain.resolve(message) or buf.strategy
        response, from_text = self._handle(strategy, message)
        state.hold_at_end = bool(response.calls) and (state.seen or from_text)
        if state.hold_at_end:
            buf.hold()
        state.response = response
        return response

    def _scan(self, buf: LLMStreamBuffer, state: _StreamState) -> None:
        """Look for an opening marker in the display text added since the last round.

        Only the new deltas are read, plus a carry of the last `len(marker) - 1` characters
        for a marker split across chunks. A text that ends where a marker may be starting
        (`{"to` before `ol"`) is held for this round too, so no part of a marker is shown
        before the marker is complete; the next round shows it if no marker came.
        """
        deltas, state.position = buf.deltas_since(state.position)
        if not deltas:
            return
        text = state.carry + "".join(deltas)
        markers = state.markers
        for marker in markers:
            if marker in text:
                state.seen = True
                return
        state.carry = text[-state.carry_len:] if state.carry_len else ""
        state.maybe = _may_open(state.carry or text[-1:], markers)

    def _watched_markers(self, wire_strategy: Any) -> tuple[str, ...]:
        """The opening markers of the text strategy that will read this stream's text.

        A text stream is read by its own strategy; a native wire that leaks (Anthropic,
        Responses) by the backup; a wire that does not leak by itself but whose plain-text
        message the chain hands to a text strategy (OpenAI Chat without `tool_calls`) by the
        chain's first text strategy.
        """
        if getattr(wire_strategy, "codec", None) is not None:
            return _markers_of(wire_strategy)
        if getattr(wire_strategy, "leaks_into_text", False):
            backup = self.backup_text_strategy
            return _markers_of(backup) if backup is not None else ()
        text_strategies = getattr(self.chain, "text_strategies", None)
        readers = text_strategies() if text_strategies is not None else []
        return _markers_of(readers[0]) if readers else ()

    # -- one assembled message ---------------------------------------------------------
    def _process_message(self, message: str | dict) -> DriverResponse:
        strategy = self.chain.resolve(message)
        if strategy is None:
            if isinstance(message, str):  # a chain without text strategies: read by backup
                strategy = self.backup_text_strategy
                if strategy is None:
                    return DriverResponse()
            else:
                names = ", ".join(getattr(s, "name", type(s).__name__) for s in self.chain)
                keys = ", ".join(sorted(map(str, message))) or "none"
                raise UnrecognisedStream(
                    f"no extraction strategy recognizes this message (keys: {keys})",
                    expected=f"a native message of one of: {names}",
                )
        return self._handle(strategy, message)[0]

    def _handle(self, strategy: Any, message: Any) -> tuple[DriverResponse, bool]:
        """Extract (with the fall-through), run, shape the history; also say if from text."""
        calls = strategy.extract(message)
        from_text = getattr(strategy, "codec", None) is not None
        backup = self.backup_text_strategy
        if not calls and getattr(strategy, "leaks_into_text", False) and backup is not None:
            text = strategy.content_text(message)
            if text:
                calls = backup.extract(text)
                if calls:
                    strategy = backup
                    message = {"role": "assistant", "content": text}
                    from_text = True
        records, pending = self._run(calls)
        failed = [record for record in records if record.error is not None]
        return DriverResponse(
            call_executed=len(failed) < len(records),
            call_failed=bool(failed),
            call_pending=bool(pending),
            messages=strategy.result_messages(message, records) if records else [],
            executed_calls=records,
            retry_prompt=_retry_prompt(failed) if failed else None,
            calls=list(calls),
            pending_calls=pending,
        ), from_text

    def handler_for(self, call: ExtractedCall) -> Callable[[ExtractedCall], Any] | None:
        """The handler for a call of a kind other than `function`/`custom`, or None (the
        call is then pending). Override it to choose handlers another way."""
        return self.handlers.get(call.kind)

    def _run(self, calls: list[ExtractedCall]) -> tuple[list[ToolCallRecord], list[ExtractedCall]]:
        """Run each owned call in order; every failure becomes a record, never a raise.
        Calls of a kind without a handler are returned apart, as pending."""
        records, pending = [], []
        for call in calls:
            kind = getattr(call, "kind", "function")
            if kind in _TOOL_KINDS:
                record = self._run_tool(call, kind)
            else:
                handler = self.handler_for(call)
                if handler is None:
                    pending.append(call)
                    continue
                record = _record(call, kind, handler, call)
            if record is not None:
                records.append(record)
        return records, pending

    def _run_tool(self, call: ExtractedCall, kind: str) -> ToolCallRecord | None:
        """A `function` or `custom` call, run through `tools` by name (None: not ours)."""
        function = self.tools.get(call.name)
        if function is None:
            if self.foreign_calls == "ignore":
                return None
            available = ", ".join(sorted(self.tools)) or "none"
            return _failed(call, kind, f"unknown tool {call.name!r}; available: {available}")
        if call.error is not None:
            what = "input" if kind == "custom" else "arguments"
            return _failed(call, kind, f"malformed {what} for {call.name!r}, not run: {call.error}")
        if kind == "custom":
            return _record(call, kind, function, call.input)
        return _record(call, kind, function, **call.arguments)


_TOOL_KINDS = ("function", "custom")


def _checked_handlers(handlers: Any) -> dict:
    """`handlers` as a dict, checked: kind names to callables, never function or custom."""
    if handlers is None:
        return {}
    if not isinstance(handlers, Mapping):
        raise TypeError(f"handlers must map call kinds to callables, got "
                        f"{type(handlers).__name__}")
    for kind, handler in handlers.items():
        if kind in _TOOL_KINDS:
            raise ValueError(f"handlers[{kind!r}]: {kind} calls run through `tools`, by tool "
                             f"name; handlers are for the other kinds (computer, shell, ...)")
        if not callable(handler):
            raise TypeError(f"handler for kind {kind!r} is not callable: {handler!r}")
    return dict(handlers)


def _record(call: ExtractedCall, kind: str, function: Callable[..., Any], *args: Any,
            **kwargs: Any) -> ToolCallRecord:
    """Run `function`; its result, or the exception it raised, as a record of `call`."""
    try:
        result = function(*args, **kwargs)
    except Exception as exc:  # a tool's bug is reported to the model, not raised
        return _failed(call, kind, f"{call.name} raised {type(exc).__name__}: {exc}")
    return ToolCallRecord(call.name, dict(call.arguments), result, None, call.id, kind)


def _failed(call: ExtractedCall, kind: str, error: str) -> ToolCallRecord:
    return ToolCallRecord(call.name, dict(call.arguments), None, error, call.id, kind)


def _markers_of(text_strategy: Any) -> tuple[str, ...]:
    """A text strategy's opening markers: its codec's, or a default for the codec's name."""
    codec = getattr(text_strategy, "codec", None)
    markers = getattr(codec, "opening_markers", None)
    if isinstance(markers, str):
        return (markers,) if markers else _FALLBACK_MARKERS
    if markers:
        return tuple(m for m in markers if m) or _FALLBACK_MARKERS
    kind = getattr(codec, "name", None) or getattr(text_strategy, "name", None)
    return _DEFAULT_MARKERS.get(kind, _FALLBACK_MARKERS)


def _may_open(tail: str, markers: tuple[str, ...]) -> bool:
    """Does `tail` end with the start of a marker? A JSON key marker (`"tool"`) starts at
    the brace of its object, so a tail ending in `{` (and blanks) may open one too."""
    size = len(tail)
    for marker in markers:
        first = marker[0]
        start = max(0, size - len(marker) + 1)
        at = tail.rfind(first, start)
        while at != -1:
            if marker.startswith(tail[at:]):
                return True
            at = tail.rfind(first, start, at)
        if first == '"' and tail.rstrip().endswith("{"):
            return True
    return False


def _retry_prompt(failed: list[ToolCallRecord]) -> str:
    """One short message asking the model to retry, naming each failed call and why."""
    lines = ["These tool calls failed:"]
    for record in failed:
        where = f" (id {record.tool_call_id})" if record.tool_call_id else ""
        lines.append(f"- {record.name}{where}: {record.error}")
    lines.append("Fix the calls and call the tools again.")
    return "\n".join(lines)
