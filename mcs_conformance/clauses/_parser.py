"""Parser clauses: an inference engine's tool parser, fed a model output token by token.

The deltas the parser emits are reassembled by the reference OpenAI Chat strategy, as a
client would; the result must equal the parser's own non-streamed parse of the whole text,
and both the truth the text was written from. Content is compared without its whitespace
(engines trim the prose around calls, each its own way, and a user sees no difference), call
ids not at all (engines make their own); names and arguments, in order, exactly (numbers
by value: JSON has one number type).
"""
from __future__ import annotations

import json
from typing import Any

from mcs_reference import ExtractedCall, OpenAIChatStrategy, StreamError
from mcs_conformance.base import show
from mcs_conformance.clauses._compare import first_difference
from mcs_conformance.clauses._registry import clause, ParserSubject
from mcs_conformance.clauses._runner import check_each
from mcs_conformance.wires import format_cases, FormatCase, malformed_cases, prose_cases

__all__ = ["message_calls", "reassembled"]


def _is_parser(subject: Any) -> bool:
    return True


def _writes_malformed(subject: Any) -> bool:
    """Can the format hold arguments that are no JSON object? (Qwen3-Coder's parameters
    are plain text: it cannot.)"""
    codec = subject.codec
    if not getattr(codec, "malformed_arguments", True):
        return False
    broken = ExtractedCall("f", {}, None, "malformed arguments", '{"city": ')
    found = codec.decode(codec.encode([broken]))
    return len(found) == 1 and found[0].error is not None


def _chunk(delta: dict) -> dict:
    return {"id": "chatcmpl-parser", "object": "chat.completion.chunk", "created": 0,
            "model": "parser", "choices": [{"index": 0, "delta": delta, "finish_reason": None}]}


class _Unreadable(Exception):
    """The parser's deltas are no OpenAI Chat stream a client can read."""


def reassembled(deltas: list[dict]) -> dict:
    """The assistant message a client builds from the parser's deltas."""
    strategy = OpenAIChatStrategy()
    acc = strategy.new_accumulator()
    for index, delta in enumerate(deltas):
        if not isinstance(delta, dict):
            raise _Unreadable(f"delta {index} is a {type(delta).__name__}, not a dict")
        try:
            strategy.accumulate(acc, _chunk(delta))
        except StreamError as exc:
            raise _Unreadable(f"delta {index} {show(delta, 120)}: {exc}") from None
    return strategy.as_message(acc)


def _number_values(value: Any) -> Any:
    """`value` with each whole float written as an int: JSON has one number type (`1.0` and
    `1` are the same value, and engines that coerce by schema rewrite one as the other)."""
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, dict):
        return {key: _number_values(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_number_values(item) for item in value]
    return value


def message_calls(message: dict) -> list[dict]:
    """Names and arguments of a message's calls, as the parser clauses compare them:
    `""` is `{}`, numbers by value, arguments that are no JSON object stay text."""
    views = []
    for entry in message.get("tool_calls") or []:
        function = entry.get("function") or {}
        text = function.get("arguments")
        if isinstance(text, str) and not text.strip():
            text = "{}"  # "" is how servers send a call without arguments, as OpenAI's does
        try:
            arguments = json.loads(text) if isinstance(text, str) else text
        except ValueError:
            arguments = text
        views.append({"name": function.get("name"), "arguments": _number_values(arguments)})
    return views


def _truth(calls: list[ExtractedCall]) -> list[dict]:
    return [{"name": c.name, "arguments": _number_values(c.arguments)} for c in calls]


def _squeezed(content: Any) -> str:
    return "".join(content.split()) if isinstance(content, str) else ""


def _run(subject: ParserSubject, case: FormatCase) -> tuple[dict, dict]:
    """(whole, streamed): the parser's non-streamed message and its reassembled stream. A
    parser that raises, or streams what no client can read, fails with severity crash."""
    parser = subject.parser
    try:
        whole = parser.parse(case.text, case.tools)
    except Exception as exc:
        raise _Crash(f"parse() raised {type(exc).__name__}: {exc}") from exc
    try:
        deltas = parser.stream(case.deltas, case.tools)
    except Exception as exc:
        raise _Crash(f"the streaming parser raised {type(exc).__name__}: {exc}") from exc
    try:
        return whole, reassembled(deltas)
    except _Unreadable as exc:
        raise _Crash(f"its deltas are no OpenAI stream a client reads: {exc}") from None


class _Crash(Exception):
    """The parser raised, or its deltas cannot be read: reported as a crash."""


def _where(case: FormatCase) -> str:
    return f"text {show(case.text, 160)} in {len(case.deltas)} deltas"


def _checked(the_clause: Any, subject: ParserSubject, generator: Any, prop: Any) -> None:
    """`check_each` with a crash of the parser reported as this clause's failure."""

    def guarded(case: FormatCase) -> None:
        try:
            prop(case)
        except _Crash as exc:
            raise the_clause.fail(f"{exc} ({_where(case)})", case.to_dict(), "crash") from None

    check_each(the_clause, subject, generator, guarded)


def _lost_or_added(expected: list, got: list) -> str:
    """silent-loss when a call is missing or altered, false-success when one is extra."""
    return "false-success" if len(got) > len(expected) and got[:len(expected)] == expected \
        else "silent-loss"


@clause(
    "parser.stream-equals-whole",
    level="MUST",
    meaning="The deltas the parser streams for a model output, reassembled, hold the same "
            "calls (names, arguments, order) and the same content as its own non-streamed "
            "parse of the whole text.",
    failure_means="The same model output gives a client other calls or other text when it "
                  "streams: the bug reports 'works without stream, breaks with stream=true'.",
    typical_bug="Several tokens in one delta (speculative decoding, stream_interval) skip a "
                "state; the last argument fragment never sent; a marker split over deltas "
                "read as prose.",
    applies=_is_parser, kind="parser",
)
def stream_equals_whole(subject: ParserSubject) -> None:
    def prop(case: FormatCase) -> None:
        whole, streamed = _run(subject, case)
        expected, got = message_calls(whole), message_calls(streamed)
        found = first_difference(expected, got, "calls")
        if found:
            raise stream_equals_whole.fail(
                f"streamed {found} (non-streamed parse: {show(expected, 200)}; {_where(case)})",
                case.to_dict(), _lost_or_added(expected, got))
        if _squeezed(whole.get("content")) != _squeezed(streamed.get("content")):
            raise stream_equals_whole.fail(
                f"streamed content {show(streamed.get('content'), 160)}, non-streamed "
                f"{show(whole.get('content'), 160)} ({_where(case)})", case.to_dict(),
                "silent-loss")

    _checked(stream_equals_whole, subject, format_cases(subject.codec), prop)


@clause(
    "parser.truth",
    level="MUST",
    meaning="Both the non-streamed parse and the reassembled stream hold exactly the calls "
            "the model wrote: names, arguments with their types (numbers by value: JSON has "
            "one number type), in order.",
    failure_means="A call is lost, split, merged or changed: the tool runs with other "
                  "arguments than the model wrote, or not at all.",
    typical_bug="A regex that stops at the first closing brace or tag inside a string; "
                "unicode or escapes decoded twice; only the first of several calls read.",
    applies=_is_parser, kind="parser",
)
def truth(subject: ParserSubject) -> None:
    def prop(case: FormatCase) -> None:
        whole, streamed = _run(subject, case)
        expected = _truth(case.calls)
        for label, message in (("non-streamed", whole), ("streamed", streamed)):
            got = message_calls(message)
            found = first_difference(expected, got, "calls")
            if found:
                raise truth.fail(f"{label}: {found} ({_where(case)})", case.to_dict(),
                                 _lost_or_added(expected, got))

    _checked(truth, subject, format_cases(subject.codec), prop)


@clause(
    "parser.content",
    level="MUST",
    meaning="The prose around the calls reaches the client once: neither swallowed nor "
            "duplicated, streamed or not (whitespace aside).",
    failure_means="Text the model wrote to the user vanishes, or shows twice.",
    typical_bug="Text held while a marker may be forming, never released; the buffered "
                "prefix sent again with the call.",
    applies=_is_parser, kind="parser",
)
def content(subject: ParserSubject) -> None:
    def prop(case: FormatCase) -> None:
        whole, streamed = _run(subject, case)
        for label, message in (("non-streamed", whole), ("streamed", streamed)):
            got = message.get("content")
            if _squeezed(got) != _squeezed(case.content):
                raise content.fail(
                    f"{label} content {show(got, 160)}; the model wrote "
                    f"{show(case.content, 160)} ({_where(case)})", case.to_dict(),
                    "silent-loss")

    _checked(content, subject, format_cases(subject.codec), prop)


@clause(
    "parser.no-phantom",
    level="MUST",
    meaning="Prose with braces, JSON, code fences and tags, in which the format writes no "
            "call, gives no call, streamed or not.",
    failure_means="JSON the model showed the user is executed as a tool call.",
    typical_bug="Any object with a `name` key taken for a call; a bare `[` or `{` at the "
                "start of the output read as the start of calls.",
    applies=_is_parser, kind="parser",
)
def no_phantom(subject: ParserSubject) -> None:
    def prop(case: FormatCase) -> None:
        whole, streamed = _run(subject, case)
        for label, message in (("non-streamed", whole), ("streamed", streamed)):
            got = message_calls(message)
            if got:
                raise no_phantom.fail(f"{label}: {len(got)} call(s) {show(got, 200)} from "
                                      f"prose ({_where(case)})", case.to_dict(),
                                      "false-success")

    _checked(no_phantom, subject, prose_cases(subject.codec), prop)


def _surfaced(message: dict, case: FormatCase) -> str | None:
    """How a broken call went missing, or None when the client can see it: a call whose
    arguments are no JSON object, or its text left in the content."""
    raw = case.calls[0].raw_arguments or ""
    written = (_squeezed(raw), _squeezed(json.dumps(raw)[1:-1]))  # as is, or inside a string
    for call in message_calls(message):
        if isinstance(call["arguments"], dict):
            return (f"the call {call['name']!r} came out with the arguments "
                    f"{show(call['arguments'], 120)}, which the model never wrote")
        return None
    content = _squeezed(message.get("content"))
    if written[0] and any(form in content for form in written):
        return None
    return "neither a call nor its text reached the client"


@clause(
    "parser.malformed",
    level="MUST",
    meaning="A call whose arguments are not a JSON object is surfaced, streamed or not: as "
            "a call whose arguments the client refuses, or as text; never dropped, never "
            "given arguments the model did not write.",
    failure_means="The model's failed call vanishes (the user waits for an action that never "
                  "comes), or runs with made-up arguments.",
    typical_bug="A JSON error swallowed (logged) and the call discarded; `{}` sent in place "
                "of unreadable arguments.",
    applies=_writes_malformed, kind="parser",
)
def malformed(subject: ParserSubject) -> None:
    def prop(case: FormatCase) -> None:
        whole, streamed = _run(subject, case)
        for label, message in (("non-streamed", whole), ("streamed", streamed)):
            found = _surfaced(message, case)
            if found:
                severity = "false-success" if "never wrote" in found else "silent-loss"
                raise malformed.fail(f"{label}: {found} ({_where(case)})", case.to_dict(),
                                     severity)

    _checked(malformed, subject, malformed_cases(subject.codec), prop)
