"""Parser clauses: an inference engine's tool parser, fed a model output token by token.

The deltas the parser emits are reassembled by the reference OpenAI Chat strategy, as a
client would; the result must equal the parser's own non-streamed parse of the whole text,
and both the truth the text was written from. Content is compared without its whitespace
(engines trim the prose around calls, each its own way, and a user sees no difference), call
ids not at all (engines make their own); names and arguments, in order, exactly (numbers
by value: JSON has one number type).

Observing and judging are apart, so that a saved run can be judged again by the current
rules with no engine installed: `parser_observation` records what the parser did with one
model output (a JSON-ready dict), and each clause's judgment is a pure function of such an
observation (`judge_parser_observation`). A certification observes each drawn case, then
judges it by that same function: there is one way to judge.
"""
from __future__ import annotations

import json
from contextlib import contextmanager
from typing import Any, Callable, Iterator, NamedTuple

from mcs_reference import ExtractedCall, OpenAIChatStrategy, StreamError
from mcs_conformance.base import show
from mcs_conformance.clauses._compare import first_difference
from mcs_conformance.clauses._registry import clause, ParserSubject
from mcs_conformance.clauses._runner import check_each
from mcs_conformance.wires import format_cases, FormatCase, malformed_cases, prose_cases

__all__ = ["PARSER_CASES", "ParserFailure", "judge_parser_observation", "message_calls",
           "parser_clauses_judging", "parser_observation", "reassembled",
           "recording_parser_observations"]

#: The cases each parser clause is judged on: model outputs with calls in prose ("calls"),
#: prose that holds no call ("prose"), or one call whose arguments are no JSON object
#: ("malformed"). An observation says which it is; every clause of that kind judges it.
PARSER_CASES = {"parser.stream-equals-whole": "calls", "parser.truth": "calls",
                "parser.content": "calls", "parser.no-phantom": "prose",
                "parser.malformed": "malformed"}
_GENERATORS = {"calls": format_cases, "prose": prose_cases, "malformed": malformed_cases}


class ParserFailure(NamedTuple):
    """A clause's judgment of an observation that does not hold: how bad, and why."""

    severity: str
    reason: str


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


# -- observing ---------------------------------------------------------------------------------
def _json_ready(value: Any) -> Any:
    """`value` as it reads back from JSON (what is no JSON becomes its repr): a saved
    observation judges exactly as the one just made."""
    return json.loads(json.dumps(value, default=repr))


def parser_observation(parser: Any, case: FormatCase, cases: str) -> dict:
    """What `parser` did with `case` (a model output of the kind `cases`, a key of
    `_GENERATORS`), JSON-ready: the case (format, text, the calls and content it was
    written from, tools, deltas), the parser's non-streamed message (`whole`) and the deltas
    it streamed (`emitted`), or what either raised (`parse_error`, `stream_error`)."""
    observation: dict[str, Any] = {"cases": cases, **case.to_dict()}
    try:
        observation["whole"] = parser.parse(case.text, case.tools)
    except Exception as exc:
        observation["parse_error"] = f"{type(exc).__name__}: {exc}"
    try:
        observation["emitted"] = parser.stream(case.deltas, case.tools)
    except Exception as exc:
        observation["stream_error"] = f"{type(exc).__name__}: {exc}"
    return _json_ready(observation)


_recording: list[list[tuple[str, dict]]] = []


@contextmanager
def recording_parser_observations() -> Iterator[list[tuple[str, dict]]]:
    """Collect `(clause id, observation)` for every case a parser clause judges while the
    block runs, in order (the engines matrix saves them)."""
    seen: list[tuple[str, dict]] = []
    _recording.append(seen)
    try:
        yield seen
    finally:
        _recording.remove(seen)


# -- judging -----------------------------------------------------------------------------------
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


def _truth(observation: dict) -> list[dict]:
    return [{"name": c["name"], "arguments": _number_values(c["arguments"])}
            for c in observation["calls"]]


def _squeezed(content: Any) -> str:
    return "".join(content.split()) if isinstance(content, str) else ""


def _where(observation: dict) -> str:
    return f"text {show(observation['text'], 160)} in {len(observation['deltas'])} deltas"


def _crash(observation: dict, what: str) -> ParserFailure:
    return ParserFailure("crash", f"{what} ({_where(observation)})")


def _messages(observation: dict) -> tuple[dict, dict] | ParserFailure:
    """(whole, streamed): the parser's non-streamed message and its reassembled stream, or
    the crash when the parser raised, or streamed what no client can read."""
    if "parse_error" in observation:
        return _crash(observation, f"parse() raised {observation['parse_error']}")
    if "stream_error" in observation:
        return _crash(observation, f"the streaming parser raised {observation['stream_error']}")
    whole = observation["whole"]
    if not isinstance(whole, dict):
        return _crash(observation, f"parse() returned a {type(whole).__name__}, not a message")
    try:
        return whole, reassembled(observation["emitted"])
    except _Unreadable as exc:
        return _crash(observation, f"its deltas are no OpenAI stream a client reads: {exc}")


def _lost_or_added(expected: list, got: list) -> str:
    """silent-loss when a call is missing or altered, false-success when one is extra."""
    return "false-success" if len(got) > len(expected) and got[:len(expected)] == expected \
        else "silent-loss"


def _judge_stream_equals_whole(observation: dict, whole: dict,
                               streamed: dict) -> ParserFailure | None:
    expected, got = message_calls(whole), message_calls(streamed)
    found = first_difference(expected, got, "calls")
    if found:
        return ParserFailure(_lost_or_added(expected, got),
                             f"streamed {found} (non-streamed parse: {show(expected, 200)}; "
                             f"{_where(observation)})")
    if _squeezed(whole.get("content")) != _squeezed(streamed.get("content")):
        return ParserFailure("silent-loss",
                             f"streamed content {show(streamed.get('content'), 160)}, "
                             f"non-streamed {show(whole.get('content'), 160)} "
                             f"({_where(observation)})")
    return None


def _judge_truth(observation: dict, whole: dict, streamed: dict) -> ParserFailure | None:
    expected = _truth(observation)
    for label, message in (("non-streamed", whole), ("streamed", streamed)):
        got = message_calls(message)
        found = first_difference(expected, got, "calls")
        if found:
            return ParserFailure(_lost_or_added(expected, got),
                                 f"{label}: {found} ({_where(observation)})")
    return None


def _judge_content(observation: dict, whole: dict, streamed: dict) -> ParserFailure | None:
    for label, message in (("non-streamed", whole), ("streamed", streamed)):
        got = message.get("content")
        if _squeezed(got) != _squeezed(observation["content"]):
            return ParserFailure("silent-loss",
                                 f"{label} content {show(got, 160)}; the model wrote "
                                 f"{show(observation['content'], 160)} ({_where(observation)})")
    return None


def _judge_no_phantom(observation: dict, whole: dict, streamed: dict) -> ParserFailure | None:
    for label, message in (("non-streamed", whole), ("streamed", streamed)):
        got = message_calls(message)
        if got:
            return ParserFailure("false-success",
                                 f"{label}: {len(got)} call(s) {show(got, 200)} from prose "
                                 f"({_where(observation)})")
    return None


def _surfaced(message: dict, observation: dict) -> str | None:
    """How a broken call went missing, or None when the client can see it: a call whose
    arguments are no JSON object, or its text left in the content."""
    raw = observation["calls"][0].get("raw_arguments") or ""
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


def _judge_malformed(observation: dict, whole: dict, streamed: dict) -> ParserFailure | None:
    for label, message in (("non-streamed", whole), ("streamed", streamed)):
        found = _surfaced(message, observation)
        if found:
            severity = "false-success" if "never wrote" in found else "silent-loss"
            return ParserFailure(severity, f"{label}: {found} ({_where(observation)})")
    return None


_JUDGES: dict[str, Callable[[dict, dict, dict], ParserFailure | None]] = {
    "parser.stream-equals-whole": _judge_stream_equals_whole, "parser.truth": _judge_truth,
    "parser.content": _judge_content, "parser.no-phantom": _judge_no_phantom,
    "parser.malformed": _judge_malformed}


def parser_clauses_judging(observation: dict) -> list[str]:
    """The parser clauses that judge an observation: those of its kind of case."""
    return [c for c, cases in PARSER_CASES.items() if cases == observation["cases"]]


def judge_parser_observation(clause_id: str, observation: dict) -> ParserFailure | None:
    """The clause's judgment of one observation: None when it holds, else the failure (a
    parser that raised, or streamed what no client reads, fails with severity crash)."""
    if observation["cases"] != PARSER_CASES[clause_id]:
        raise ValueError(f"{clause_id} judges {PARSER_CASES[clause_id]} cases, not "
                         f"{observation['cases']} ones")
    messages = _messages(observation)
    if isinstance(messages, ParserFailure):
        return messages
    return _JUDGES[clause_id](observation, *messages)


# -- the clauses: observe each drawn case, judge it ----------------------------------------------
def _certify(the_clause: Any, subject: ParserSubject) -> None:
    cases = PARSER_CASES[the_clause.id]

    def prop(case: FormatCase) -> None:
        observation = parser_observation(subject.parser, case, cases)
        for seen in _recording:
            seen.append((the_clause.id, observation))
        failure = judge_parser_observation(the_clause.id, observation)
        if failure is not None:
            raise the_clause.fail(failure.reason, observation, failure.severity)

    check_each(the_clause, subject, _GENERATORS[cases](subject.codec), prop)


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
    _certify(stream_equals_whole, subject)


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
    _certify(truth, subject)


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
    _certify(content, subject)


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
    _certify(no_phantom, subject)


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
    _certify(malformed, subject)
