"""Resolution clauses: a strategy claims exactly the shapes of its own format.

The chain asks each strategy in turn whether a shape (a raw chunk or an assembled message)
is its own; one that claims too much steals another format's streams, one that claims too
little is never asked. Answers must not depend on the chain's order.
"""
from __future__ import annotations

from typing import Any, Iterator

from hypothesis import strategies as st

from mcs_reference import ExtractionChain
from mcs_reference.calls import ExtractedCall
from mcs_conformance.base import copy_json, show
from mcs_conformance.clauses._compare import calls_difference
from mcs_conformance.clauses._registry import clause, Subject
from mcs_conformance.clauses._runner import check_each, on_each
from mcs_conformance.clauses._subjects import (feed, is_native, other_natives, reference,
                                               reference_text, stream_of, text_shaped,
                                               text_wire_of, wire, wire_name)
from mcs_conformance.wires import NATIVE_WIRES, prose


def _has_wire(subject: Subject) -> bool:
    return subject.wire is not None


def _is_text(subject: Subject) -> bool:
    return subject.wire is not None and subject.is_text


@clause(
    "resolve.own-wire",
    level="MUST",
    meaning="The strategy recognizes every chunk of its wire and every message assembled from "
            "it (a text strategy: its str deltas and its messages), except an OpenAI Chat "
            "message with str content and no tool_calls key, which is text by design.",
    failure_means="The buffer cannot resolve the stream (UnrecognisedStream), or the driver "
                  "hands the strategy's own message to another strategy.",
    typical_bug="recognizes() testing a field that only some chunks carry (object, role, a "
                "first chunk's choices), so a usage-only or Azure filter chunk is refused.",
    applies=_has_wire,
)
def own_wire(subject: Subject) -> None:
    strategy = subject.strategy
    what = "delta" if subject.is_text else "chunk"

    def prop(case):
        stream = stream_of(subject, case)
        for index, chunk in enumerate(stream):
            if not strategy.recognizes(copy_json(chunk)):
                raise own_wire.fail(
                    f"recognizes() is false for {what} {index} of its own wire: {show(chunk)}",
                    case)
        if text_shaped(case.wire, case.message) and not subject.is_text:
            return  # the text wire's shape: the text strategy's by design
        if not strategy.recognizes(copy_json(case.message)):
            raise own_wire.fail(
                f"recognizes() is false for the wire's stream=false message {show(case.message)}",
                case)
        acc, _ = feed(strategy, stream)
        message = strategy.as_message(acc)
        if not strategy.recognizes(message):
            raise own_wire.fail(
                f"recognizes() is false for the message it assembled itself: {show(message)}",
                case)

    check_each(own_wire, subject, subject.wire.cases(), prop)


def _any_case(wires: list) -> st.SearchStrategy:
    """Cases of any of `wires`, the wire drawn first so that each is as likely as the others
    (each wire's generator built once: one built inside each draw costs more than the draw)."""
    return st.one_of([chosen.cases() for chosen in wires])


@clause(
    "resolve.foreign",
    level="MUST",
    meaning="A native strategy recognizes no chunk and no message of any other native wire, "
            "and no text wire message (str content, no tool_calls).",
    failure_means="The chain resolves another provider's stream or message to this strategy, "
                  "which then reassembles or extracts it wrongly.",
    typical_bug="recognizes() keyed on a field many formats share (a 'role', a 'type' or "
                "'content' key, any dict with 'model').",
    applies=is_native,
)
def foreign(subject: Subject) -> None:
    strategy = subject.strategy
    one = _any_case([*(wire(name) for name in other_natives(subject)),
                     text_wire_of("json"), text_wire_of("hermes")])
    # Two cases an example: with one, the wire drawn came out the same for most of the 40
    # examples on some seeds, and a wire could be missed altogether.
    generator = st.tuples(one, one)

    def prop(case):
        if case.wire in NATIVE_WIRES:
            for index, chunk in enumerate(case.chunks):
                if strategy.recognizes(copy_json(chunk)):
                    raise foreign.fail(
                        f"recognizes() is true for chunk {index} of the {case.wire} wire: "
                        f"{show(chunk)}", case)
            what = f"the {case.wire} message"
        else:
            what = "a text wire message (str content holding calls, no tool_calls key)"
        if strategy.recognizes(copy_json(case.message)):
            raise foreign.fail(f"recognizes() is true for {what} {show(case.message)}", case)

    check_each(foreign, subject, generator, on_each(prop))


_TOOL_CALLS = {
    "null": None,
    "empty": [],
    "full": [{"id": "call_0", "type": "function",
              "function": {"name": "get_weather", "arguments": "{\"city\": \"Paris\"}"}}],
}


def _beside_tool_calls(case, codec, kind: str) -> dict | None:
    """The case's OpenAI-shaped message with str content holding a call beside tool_calls."""
    if case.wire not in ("openai-chat", "text"):
        return None
    message = copy_json(case.message)
    if not isinstance(message.get("content"), str) or not case.calls or case.wire != "text":
        message["content"] = codec.encode([ExtractedCall("get_weather", {"city": "Paris"})])
    message["tool_calls"] = message.get("tool_calls") or copy_json(_TOOL_CALLS[kind])
    if kind != "full":
        message["tool_calls"] = copy_json(_TOOL_CALLS[kind])
    return message


@clause(
    "resolve.text-never-native",
    level="MUST",
    meaning="A text strategy recognizes no chunk and no message of any native wire, including "
            "OpenAI messages with str content beside a tool_calls key (null, [] or full); only "
            "an OpenAI message with str content and no tool_calls key is text.",
    failure_means="A text strategy placed early in a chain steals native streams, and runs "
                  "calls written in the content of a message whose tool_calls say otherwise.",
    typical_bug="recognizes() claiming every dict whose content is a str, without checking "
                "for tool_calls, content blocks or an output list.",
    applies=_is_text,
)
def text_never_native(subject: Subject) -> None:
    strategy, codec = subject.strategy, subject.codec
    generator = st.tuples(
        _any_case([*(wire(name) for name in NATIVE_WIRES), subject.wire]),
        st.sampled_from(sorted(_TOOL_CALLS)),
    )

    def prop(drawn):
        case, kind = drawn
        for index, chunk in enumerate(case.chunks):
            if strategy.recognizes(copy_json(chunk)):
                raise text_never_native.fail(
                    f"recognizes() is true for chunk {index} of the {case.wire} wire (OpenAI "
                    f"Chat chunks for the text wire): {show(chunk)}", case)
        beside = _beside_tool_calls(case, codec, kind)
        if beside is not None and strategy.recognizes(copy_json(beside)):
            raise text_never_native.fail(
                f"recognizes() is true for an OpenAI message with str content beside "
                f"tool_calls {show(beside['tool_calls'])}: {show(beside)}", {"message": beside})
        if text_shaped(case.wire, case.message) or case.wire not in NATIVE_WIRES:
            return  # an OpenAI message with str content and no tool_calls is text by design
        if strategy.recognizes(copy_json(case.message)):
            raise text_never_native.fail(
                f"recognizes() is true for the {case.wire} message {show(case.message)}", case)

    check_each(text_never_native, subject, generator, prop)


# -- reorder invariance ------------------------------------------------------------------
def _members(subject: Subject) -> list:
    """Fresh strategies for one chain: the other formats' references, the subject, a text one.

    The subject sits after the other natives so that a shape it wrongly claims goes to its
    owner in the fixed chain, and to the subject once reordering has moved it to the front.
    """
    own = None if subject.is_text else wire_name(subject)
    members = [reference(name) for name in NATIVE_WIRES if name != own]
    members.append(subject.make())
    if not subject.is_text:
        members.append(reference_text("json"))
    return members


def _shape_sources(subject: Subject) -> st.SearchStrategy:
    """Streams of any wire, the wire drawn first so that each is as likely as the others."""
    wires = [wire(name) for name in NATIVE_WIRES]
    wires.append(text_wire_of("json"))
    if subject.is_text or wire_name(subject) not in NATIVE_WIRES:
        wires.append(subject.wire)
    return _any_case(wires)


@clause(
    "resolve.reorder-invariant",
    level="MUST",
    meaning="Over any sequence of messages and chunks of mixed formats, a reordering chain "
            "resolves each shape to the same strategy, with the same extract() results, as a "
            "chain that never reorders.",
    failure_means="What a driver finds depends on which formats it saw before: the same "
                  "message runs a call in one session and not in another.",
    typical_bug="Two strategies that both claim a shape (a native strategy claiming plain "
                "text messages, a text strategy claiming dicts), hidden while the owner "
                "happens to come first.",
    applies=_has_wire,
)
def reorder_invariant(subject: Subject) -> None:
    # Two streams an example (the subject's own, then any) and two texts, then up to 12
    # steps over their shapes in any order: drawing a stream is costly, resolving is not.
    generator = st.tuples(subject.wire.cases(), _shape_sources(subject), prose(), prose(), _PROGRAM)

    def prop(drawn):
        *streams, first_text, second_text, program = drawn
        moving = ExtractionChain(_members(subject), reorder=True)
        fixed = ExtractionChain(_members(subject), reorder=False)
        place_moving = {id(s): i for i, s in enumerate(moving.strategies)}
        place_fixed = {id(s): i for i, s in enumerate(fixed.strategies)}
        names = [getattr(s, "name", type(s).__name__) for s in fixed.strategies]
        seen: list = []

        def name(place):
            return "no strategy" if place is None else names[place]

        for shape, is_message, what in _steps(program, streams, (first_text, second_text)):
            seen.append(shape)
            got_moving, got_fixed = moving.resolve(shape), fixed.resolve(shape)
            place_m = None if got_moving is None else place_moving[id(got_moving)]
            place_f = None if got_fixed is None else place_fixed[id(got_fixed)]
            evidence = {"shapes": list(seen)}
            if place_m != place_f:
                order = [getattr(s, "name", "?") for s in moving.strategies]
                raise reorder_invariant.fail(
                    f"after {len(seen) - 1} earlier shapes, {what} {show(shape)} resolves to "
                    f"{name(place_m)} in the reordering chain (now {order}) but to "
                    f"{name(place_f)} in the fixed one", evidence)
            if got_moving is not None and is_message:
                found = calls_difference(got_fixed.extract(copy_json(shape)),
                                         got_moving.extract(copy_json(shape)))
                if found:
                    raise reorder_invariant.fail(
                        f"{what} {show(shape)} resolves to {name(place_m)} in both chains, "
                        f"but extract() differs between the reordering and the fixed chain's "
                        f"instance: {found}", evidence)

    check_each(reorder_invariant, subject, generator, prop)


# Four bytes a step: what, modulo 4 (0 none, 1 a str delta, 2 a plain text message, 3 a
# shape of a stream), which text or stream and which kind of its shapes, and a position in
# two bytes. A zero step is no step, so a shrunk program keeps only the steps that matter.
_STEPS = 12
_PROGRAM = st.binary(min_size=4 * _STEPS, max_size=4 * _STEPS)


def _steps(program: bytes, streams: list, texts: tuple) -> Iterator[tuple[Any, bool, str]]:
    """The shapes a program resolves in turn: (shape, is it a message, what to call it)."""
    for at in range(0, len(program) - 3, 4):
        what, which, high, low = program[at:at + 4]
        text = texts[which & 1]
        if what % 4 == 1:  # only text strategies claim a str delta
            yield text, True, "a str delta"
        elif what % 4 == 2:  # str content and no tool_calls: text by design
            message = {"role": "assistant", "content": text, "refusal": None, "annotations": []}
            yield message, True, "a plain text message"
        elif what % 4 == 3:
            case = streams[which & 1]
            chunks, deltas = list(case.chunks), list(case.deltas or [])
            kinds = ["message"] + ["chunk"] * bool(chunks) + ["delta"] * bool(deltas)
            kind = kinds[(which >> 1) % len(kinds)]
            if kind == "message":
                yield case.message, True, f"the {case.wire} message"
                continue
            shapes, label = (chunks, "chunk") if kind == "chunk" else (deltas, "str delta")
            index = ((high << 8) | low) * len(shapes) >> 16
            yield shapes[index], kind != "chunk", f"{case.wire} {label} {index}"
