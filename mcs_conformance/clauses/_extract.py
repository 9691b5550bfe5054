"""Extraction clauses: exactly the calls a message holds, none it does not, errors kept."""
from __future__ import annotations

import json
from typing import Any

from hypothesis import strategies as st

from mcs_reference import BaseDriver
from mcs_reference.calls import ExtractedCall
from mcs_conformance.base import copy_json, show
from mcs_conformance.clauses._compare import calls_difference, first_difference
from mcs_conformance.clauses._registry import clause, Subject
from mcs_conformance.clauses._runner import check_each
from mcs_conformance.clauses._subjects import (cases_with_calls, chain_with, feed, is_native,
                                               reference_text, stream_of, text_wire_of, tools_for,
                                               wire, wire_name)
from mcs_conformance.wires import (bad_call, cut_by_max_tokens, draw_pieces, malformed_message,
                                   one_of_these, pieces, plain_prose, quiet_prose, REWRITABLE,
                                   simple_calls, with_text)


def _has_wire(subject: Subject) -> bool:
    return subject.wire is not None


def _is_text(subject: Subject) -> bool:
    return subject.wire is not None and subject.is_text


def _text_message(content: str) -> dict:
    return {"role": "assistant", "content": content, "refusal": None, "annotations": []}


@clause(
    "extract.calls",
    level="MUST",
    meaning="extract() returns exactly the message's calls (name, arguments, id), in order, "
            "from the stream=false message and from the message assembled from any chunking.",
    failure_means="A driver runs the wrong calls, with wrong arguments, or misses some.",
    typical_bug="Calls read from the first choice only, or in dict order; an empty arguments "
                "text read as an error instead of {}; ids taken from the item id instead of "
                "the call id.",
    applies=_has_wire,
)
def calls(subject: Subject) -> None:
    strategy = subject.strategy

    def prop(case):
        found = calls_difference(case.calls, strategy.extract(copy_json(case.message)))
        if found:
            raise calls.fail(f"extract() of the stream=false message: {found}", case)
        stream = stream_of(subject, case)
        acc, _ = feed(strategy, stream)
        found = calls_difference(case.calls, strategy.extract(strategy.as_message(acc)))
        if found:
            what = "deltas" if subject.is_text else "chunks"
            raise calls.fail(
                f"extract() of the message assembled from the {len(stream)} {what}: {found}",
                case)

    # Half the examples have calls for sure: drawn from all cases alone, some seeds gave a
    # wire's calls so seldom that a shape as common as `{}` arguments never came.
    check_each(calls, subject, st.one_of(subject.wire.cases(), cases_with_calls(subject.wire)),
               prop)


# -- the false-positive guard ---------------------------------------------------------------
def _guarded(subject: Subject) -> bool:
    return _is_text(subject) or wire_name(subject) == "openai-chat"


@st.composite
def _guarded_messages(draw) -> tuple:
    """An OpenAI message whose tool_calls key is null or [] and whose content holds calls."""
    codec = draw(one_of_these(("json", "hermes")))
    message = copy_json(draw(text_wire_of(codec).messages(min_calls=1)))  # OpenAI-shaped
    message["tool_calls"] = [] if draw(st.booleans()) else None
    return message, codec


@clause(
    "extract.false-positive-guard",
    level="MUST",
    meaning="An OpenAI Chat message whose tool_calls key is null or [] runs nothing, whatever "
            "its content looks like; a text strategy does not claim it.",
    failure_means="A model that only talks about a call (quotes one, shows an example) makes "
                  "the driver run it.",
    typical_bug="Falling back to the text codec when tool_calls is empty; a text strategy "
                "claiming any dict with str content.",
    applies=_guarded,
)
def false_positive_guard(subject: Subject) -> None:
    strategy = subject.strategy

    def prop(drawn):
        message, codec = drawn
        key = show(message["tool_calls"])
        written = reference_text(codec).extract(message["content"])
        evidence = {"message": message, "calls written in content": written}
        if subject.is_text:
            if strategy.recognizes(copy_json(message)):
                raise false_positive_guard.fail(
                    f"recognizes() is true for an OpenAI message with tool_calls {key} and "
                    f"{codec} calls in its content", evidence)
            return
        got = strategy.extract(copy_json(message))
        if got != []:
            raise false_positive_guard.fail(
                f"extract() of a message with tool_calls {key} returned {show(got)}, expected "
                f"[] (the content holds {len(written)} {codec} call(s))", evidence)
        tools, ran = tools_for(written)  # so that calls run, and are not only failed records
        chain = chain_with(strategy, "openai-chat",
                           texts=[reference_text("json"), reference_text("hermes")])
        answer = BaseDriver(tools, chain=chain).process_llm_response(copy_json(message))
        if ran or answer.executed_calls:
            claimed = strategy.recognizes(copy_json(message))
            raise false_positive_guard.fail(
                f"the driver ran {show(ran or answer.executed_calls)} for a message with "
                f"tool_calls {key} (recognizes() of it is {claimed}: a strategy that refuses "
                f"it hands it to the text strategies)", evidence)

    check_each(false_positive_guard, subject, _guarded_messages(), prop)


# -- the fall-through of leaking formats ------------------------------------------------------
_LEAKING = ("openai-responses", "anthropic-messages", "ollama-chat", "gemini")


def _leaks(subject: Subject) -> bool:
    """Text strategies, and strategies of the formats that leak (whatever they declare)."""
    return _is_text(subject) or (is_native(subject) and wire_name(subject) in _LEAKING)


def _not_text_history(history: list) -> str | None:
    """Why `history` is not text-shaped (str contents, no native structure), or None."""
    if not isinstance(history, list) or not history:
        return f"the history is {show(history)}, expected a non-empty list of messages"
    for index, message in enumerate(history):
        if not isinstance(message, dict) or not isinstance(message.get("content"), str):
            return f"history message {index} {show(message)} has no str content"
        for key in ("tool_calls", "type"):
            if key in message:
                return f"history message {index} {show(message)} carries native key {key!r}"
    return None


@clause(
    "extract.leak-fallthrough",
    level="MUST",
    meaning="A native message of a leaking format (Anthropic, Responses, Ollama, Gemini) with a call "
            "written in its text and no native call extracts nothing natively, shows the call "
            "in content_text(), and the driver runs it through its backup text strategy with a "
            "text-shaped history; a text strategy used as that backup finds the call.",
    failure_means="Calls that models write as text inside a native answer are silently lost, "
                  "or answered with a native history the provider rejects.",
    typical_bug="content_text() skipping text blocks (or output_text parts) after the first; "
                "leaks_into_text left False; the history shaped by the native strategy.",
    applies=_leaks,
)
def leak_fallthrough(subject: Subject) -> None:
    strategy = subject.strategy
    if subject.is_text:
        own, codec, template = None, subject.codec, wire("anthropic-messages")
    else:
        own, codec, template = wire_name(subject), reference_text("json").codec, subject.wire
    generator = st.tuples(template.messages(), simple_calls(), plain_prose, plain_prose)

    def prop(drawn):
        native, written, before, after = drawn
        call_text = codec.encode(written)
        message = with_text(template.name, native, f"{before}\n{call_text}\n{after}")
        evidence = {"message": message, "calls written in text": written}
        tools, ran = tools_for(written)
        if subject.is_text:
            chain = chain_with(None, None, texts=[strategy])
            driver = BaseDriver(tools, chain=chain)
            driver.backup_text_strategy = strategy
        else:
            got = strategy.extract(copy_json(message))
            if got != []:
                raise leak_fallthrough.fail(
                    f"extract() of a message with no native call returned {show(got)}, "
                    f"expected []", evidence)
            text = strategy.content_text(copy_json(message))
            if not isinstance(text, str) or call_text not in text:
                raise leak_fallthrough.fail(
                    f"content_text() is {show(text)}, which does not contain the call written "
                    f"in the text {show(call_text)}", evidence)
            driver = BaseDriver(tools, chain=chain_with(strategy, own))
        answer = driver.process_llm_response(copy_json(message))
        expected = [(call.name, call.arguments) for call in written]
        found = first_difference(expected, ran, "calls run")
        if found:
            raise leak_fallthrough.fail(
                f"through the driver's fall-through, {found}", evidence)
        why = _not_text_history(answer.messages)
        if why:
            raise leak_fallthrough.fail(f"the history after a call found in text: {why}",
                                        evidence)

    check_each(leak_fallthrough, subject, generator, prop)


# -- no phantom calls --------------------------------------------------------------------------
def _reads_text(subject: Subject) -> bool:
    return _is_text(subject) or (is_native(subject) and wire_name(subject) in REWRITABLE)


@clause(
    "extract.no-phantom",
    level="MUST",
    meaning="Prose with braces, JSON objects, code fences or tags that writes no call yields "
            "no call (a native strategy: a text-only message extracts nothing).",
    failure_means="The driver runs calls nobody made when a model shows JSON or code.",
    typical_bug="A codec that takes any JSON object, or any fenced block, for a call; a native "
                "strategy that scans its text for JSON.",
    applies=_reads_text,
)
def no_phantom(subject: Subject) -> None:
    strategy = subject.strategy

    if subject.is_text:
        generator = quiet_prose().flatmap(lambda text: st.tuples(st.just(text), pieces(text)))

        def prop(drawn):
            text, cut = drawn
            evidence = {"content": text, "deltas": cut}
            got = strategy.extract(_text_message(text))
            if got != []:
                raise no_phantom.fail(f"extract() of prose found {show(got)} in {show(text)}",
                                      evidence)
            acc, _ = feed(strategy, cut)
            got = strategy.extract(strategy.as_message(acc))
            if got != []:
                raise no_phantom.fail(
                    f"extract() after the prose fed as {len(cut)} deltas found {show(got)} in "
                    f"{show(text)}", evidence)
    else:
        generator = st.tuples(subject.wire.messages(), quiet_prose())

        def prop(drawn):
            native, text = drawn
            message = with_text(wire_name(subject), native, text)
            got = strategy.extract(message)
            if got != []:
                raise no_phantom.fail(
                    f"extract() of a message with no call, text {show(text)}, found {show(got)}",
                    {"message": message})

    check_each(no_phantom, subject, generator, prop)


# -- malformed arguments ---------------------------------------------------------------------
_SENTINEL = {"zq": "ZQ-SENTINEL"}


def _corruptions(codec) -> tuple[str, list]:
    """How to write a malformed call in `codec`'s syntax, found by corrupting `encode()`.

    Returns the arguments text as `encode` writes it and the replacements: arguments as a
    JSON string that is not JSON (every codec), and a broken JSON body (tag-delimited
    codecs, whose tags still say "a call is here"). Empty when the arguments cannot be found.
    """
    probe = codec.encode([ExtractedCall("zq_probe", dict(_SENTINEL))])
    for separators in ((", ", ": "), (",", ":")):
        written = json.dumps(_SENTINEL, separators=separators)
        if written in probe:
            break
    else:
        return "", []
    out = [("arguments given as a string that is not JSON", '"not json"')]
    if probe.lstrip().startswith("<"):
        out.append(("a broken JSON body between the tags", '{"zq": '))
    return written, out


def _malformed_applies(subject: Subject) -> bool:
    if _is_text(subject):
        try:
            return bool(_corruptions(subject.codec)[1])
        except Exception:
            return False
    return is_native(subject) and wire_name(subject) in REWRITABLE


@st.composite
def _malformed_text(draw, codec) -> tuple:
    written, corruptions = _corruptions(codec)
    label, replacement = draw(st.sampled_from(corruptions))
    name = draw(simple_calls(max_size=1))[0].name
    call_text = codec.encode([ExtractedCall(name, dict(_SENTINEL))]).replace(
        written, replacement, 1)
    content = f"{draw(plain_prose)}\n{call_text}\n{draw(plain_prose)}"
    return content, name, label, draw_pieces(draw, content)


@clause(
    "extract.malformed",
    level="MUST",
    meaning="A call whose arguments are not a JSON object surfaces as an ExtractedCall with "
            "error set and arguments {}: never dropped, never raised, never run.",
    failure_means="A malformed call crashes the driver, vanishes without a retry prompt, or "
                  "runs with arguments nobody wrote.",
    typical_bug="json.loads without a guard; calls that fail to parse skipped; a JSON array "
                "or string accepted as arguments; a tool_use cut by max_tokens dropped.",
    applies=_malformed_applies,
)
def malformed(subject: Subject) -> None:
    strategy = subject.strategy

    def check_one(got, expected, reason, evidence):
        found = calls_difference(expected, got)
        if found:
            raise malformed.fail(f"{reason}: {found}", evidence)
        for call, want in zip(got, expected):
            if want.error is not None and call.arguments != {}:
                raise malformed.fail(
                    f"{reason}: the malformed call has arguments {show(call.arguments)}, "
                    f"expected {{}}", evidence)

    if subject.is_text:
        generator = _malformed_text(subject.codec)

        def prop(drawn):
            content, name, label, cut = drawn
            evidence = {"content": content, "deltas": cut}
            expected = [bad_call(name, None)]
            for reason, got in (
                (f"extract() of a call with {label}", lambda: strategy.extract(
                    _text_message(content))),
                (f"extract() after a call with {label} fed as {len(cut)} deltas",
                 lambda: strategy.extract(strategy.as_message(feed(strategy, cut)[0]))),
            ):
                found = got()
                if "broken" in label and isinstance(found, list) and len(found) == 1:
                    # a broken body may hide the name: any name will do, the error must be set
                    expected = [bad_call(found[0].name, None)]
                check_one(found, expected, reason, evidence)
    elif wire_name(subject) == "anthropic-messages":
        generator = cut_by_max_tokens(subject.wire)

        def prop(drawn):
            events, bad, cut = drawn
            acc, _ = feed(strategy, events)
            got = strategy.extract(strategy.as_message(acc))
            evidence = {"chunks": events}
            if not isinstance(got, list) or not got:
                raise malformed.fail(
                    f"extract() after a tool_use cut by max_tokens (input {show(cut)}) "
                    f"returned {show(got)}, expected the call with error set", evidence)
            check_one(got[-1:], [bad], f"the tool_use cut by max_tokens (input {show(cut)})",
                      evidence)
    else:
        generator = malformed_message(subject.wire)

        def prop(drawn):
            message, expected, bad = drawn
            check_one(strategy.extract(copy_json(message)), expected,
                      f"extract() of a message with a call whose arguments are {show(bad)}",
                      {"message": message})

    check_each(malformed, subject, generator, prop)


# -- the name of the call forming ---------------------------------------------------------------
@clause(
    "extract.forming",
    level="MUST",
    meaning="After every chunk, forming_name() of the message so far (and forming_name_of(acc)) "
            "is None or the name of the call forming (the last started), and a native strategy "
            "names the last call once it has started.",
    failure_means="A driver holds the display for, or announces, the wrong tool while a "
                  "call streams.",
    typical_bug="forming_name() reading the first call instead of the last; naming a call "
                "from a partial name; a forming_name_of(acc) fast path that disagrees.",
    applies=_has_wire,
)
def forming(subject: Subject) -> None:
    strategy = subject.strategy
    fast = getattr(strategy, "forming_name_of", None)

    def prop(case):
        names = [call.name for call in case.calls]
        acc = strategy.new_accumulator()
        named_last = False  # was the last call named once every call had started?
        for index, chunk in enumerate(stream_of(subject, case)):
            strategy.accumulate(acc, copy_json(chunk))
            message = strategy.as_message(acc)
            started = min(len(strategy.extract(message)), len(names))
            allowed = names[max(0, started - 1): started + 1]
            said = [("forming_name(as_message())", strategy.forming_name(message))]
            if fast is not None:
                said.append(("forming_name_of(acc)", fast(acc)))
            for how, name in said:
                if name is not None and name not in allowed:
                    raise forming.fail(
                        f"after chunk {index}, {how} is {name!r}; the call forming is "
                        f"{' or '.join(map(repr, allowed)) or 'none'} ({started} of "
                        f"{len(names)} calls started)", case)
            if names and started == len(names) and all(n == names[-1] for _, n in said):
                named_last = True
        if names and not subject.is_text and not named_last:
            raise forming.fail(
                f"forming_name() never named the last call {names[-1]!r} once it had started",
                case)

    check_each(forming, subject, subject.wire.cases(), prop)


# -- provider-run and client-run kinds -------------------------------------------------------
# Blocks and items the provider ran itself: a call of theirs is never the client's to run.
_PROVIDER_RUN = {
    "anthropic-messages": lambda message: {
        block.get("id") for block in message.get("content", ())
        if block.get("type") == "server_tool_use"},
    "openai-responses": lambda message: _hosted_ids(message.get("output", ())),
}
_CLIENT_ITEMS = ("function_call", "custom_tool_call", "computer_call", "local_shell_call",
                 "shell_call", "apply_patch_call")


def _hosted_ids(output: list) -> set:
    """Ids and call ids of Responses items that are not client-run calls, or that the
    provider ran itself (a shell in a hosted container, a call answered in the output)."""
    answered = {item.get("call_id") for item in output if item["type"].endswith("_output")}
    ids = set()
    for item in output:
        hosted = (item["type"] not in _CLIENT_ITEMS or "environment" in item
                  or item.get("call_id") in answered)
        if hosted and not item["type"].endswith("_output") and item["type"] not in (
                "message", "reasoning"):
            ids |= {item.get("id"), item.get("call_id")}
    return ids - {None}


def _runs_provider_tools(subject: Subject) -> bool:
    return wire_name(subject) in _PROVIDER_RUN and not subject.is_text


def _provider_run_calls(subject: Subject, case, got: Any) -> str | None:
    ids = _PROVIDER_RUN[wire_name(subject)](case.message)
    ran = [call for call in got if getattr(call, "id", None) in ids] if isinstance(got, list) else []
    if ran:
        return (f"{len(ran)} provider-run call(s) extracted: "
                + ", ".join(f"{call.name!r} ({call.id})" for call in ran))
    if isinstance(got, list) and len(got) > len(case.calls):
        return f"{len(got)} calls extracted, the message holds {len(case.calls)} client-run call(s)"
    return None


@clause(
    "extract.provider-run",
    level="MUST",
    meaning="Blocks and items the provider ran itself (Anthropic server_tool_use and its "
            "results; Responses hosted tools, MCP calls and lists, tool search, a shell in a "
            "hosted container) are never extracted, from the stream=false message or the "
            "assembled one.",
    failure_means="The driver runs a web search, a fetch or an MCP tool the provider already "
                  "ran, or fails on a tool the client never offered.",
    typical_bug="Every block whose type ends in 'tool_use' read as a call; every output item "
                "with a name and arguments (mcp_call) read as a function call.",
    applies=_runs_provider_tools,
)
def provider_run(subject: Subject) -> None:
    strategy = subject.strategy

    def prop(case):
        found = _provider_run_calls(subject, case, strategy.extract(copy_json(case.message)))
        if found:
            raise provider_run.fail(f"extract() of the stream=false message: {found}", case)
        acc, _ = feed(strategy, case.chunks)
        found = _provider_run_calls(subject, case, strategy.extract(strategy.as_message(acc)))
        if found:
            raise provider_run.fail(f"extract() of the assembled message: {found}", case)

    cases = subject.wire.cases().filter(
        lambda case: _PROVIDER_RUN[case.wire](case.message))
    check_each(provider_run, subject, cases, prop)


def _kinds_view(call: Any) -> dict:
    return {"kind": getattr(call, "kind", "function"), "id": getattr(call, "id", None),
            "name": getattr(call, "name", None), "input": getattr(call, "input", None)}


@clause(
    "extract.client-kinds",
    level="MUST",
    meaning="Every client-run call kind is extracted, in order, with its kind, id and input: "
            "function calls, custom tools (their free-form input kept as text), and the "
            "built-in computer, local_shell, shell and apply_patch calls.",
    failure_means="A custom tool or a built-in tool call is silently dropped: the model waits "
                  "for a result that never comes, or its input reaches the tool as {}.",
    typical_bug="Only function_call items read; a custom tool's input parsed as JSON (and "
                "lost when it is not); every call given kind 'function'.",
    applies=lambda subject: subject.wire is not None and not subject.is_text,
)
def client_kinds(subject: Subject) -> None:
    strategy = subject.strategy

    def prop(case):
        want = [_kinds_view(call) for call in case.calls]
        for where, message in (("the stream=false message", copy_json(case.message)),
                               ("the assembled message",
                                strategy.as_message(feed(strategy, case.chunks)[0]))):
            got = strategy.extract(message)
            if not isinstance(got, list):
                raise client_kinds.fail(f"extract() of {where} returned {show(got)}", case)
            found = first_difference(want, [_kinds_view(call) for call in got], "calls")
            if found:
                raise client_kinds.fail(f"extract() of {where}: {found}", case)

    check_each(client_kinds, subject, cases_with_calls(subject.wire), prop)
