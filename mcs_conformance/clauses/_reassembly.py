"""Reassembly clauses: a stream folds into the exact `stream=false` message of its wire."""
from __future__ import annotations

from hypothesis import strategies as st

from mcs_reference.errors import ProviderError
from mcs_conformance.base import copy_json, show
from mcs_conformance.clauses._compare import first_difference
from mcs_conformance.clauses._registry import clause, Subject
from mcs_conformance.clauses._runner import check_each, on_each
from mcs_conformance.clauses._subjects import cases_with_calls, feed, is_native, stream_of
from mcs_conformance.wires import ERROR_FORMS, error_message, NATIVE_WIRES


def _has_wire(subject: Subject) -> bool:
    return subject.wire is not None


@clause(
    "reassembly.round-trip",
    level="MUST",
    meaning="After the whole stream, as_message() equals the message the provider returns for "
            "stream=false (a text strategy: its visible text is the whole text it was fed).",
    failure_means="Clients get a different message from a stream than from the same answer "
                  "unstreamed: lost, merged or invented content.",
    typical_bug="The last fragment of an arguments string lost; parallel calls merged by id "
                "instead of index; usage added instead of replaced; a thinking signature dropped.",
    applies=_has_wire,
)
def round_trip(subject: Subject) -> None:
    strategy = subject.strategy

    def prop(case):
        stream = stream_of(subject, case)
        acc, _ = feed(strategy, stream)
        if subject.is_text:
            got = strategy.content_text(strategy.as_message(acc))
            if got != case.text:
                raise round_trip.fail(
                    f"content_text(as_message()) after the {len(stream)} deltas is {show(got)}, "
                    f"expected the text fed: {show(case.text)}", case)
            return
        found = first_difference(case.message, strategy.as_message(acc))
        if found:
            raise round_trip.fail(
                f"as_message() after all {len(stream)} chunks differs from the stream=false "
                f"message: {found}", case)

    # Each example a case and one with parallel calls: drawn from all cases alone, some seeds
    # gave so few calls that a quirk of calls (Mistral's calls without index, Alibaba's
    # empty ids) never came.
    check_each(round_trip, subject, st.tuples(subject.wire.cases(), _parallel(subject.wire)),
               on_each(prop))


def _parallel(wire_) -> st.SearchStrategy:
    """Cases with two calls or more, as many as the wire's `max_calls` allows; a wire of
    the user's own: its cases as they come (a filter might never be satisfied)."""
    if wire_.name not in NATIVE_WIRES and wire_.name != "text":
        return wire_.cases()
    most = (getattr(wire_, "options", None) or {}).get("max_calls", 2)
    return cases_with_calls(wire_, min_calls=min(2, most))


@clause(
    "reassembly.prefix",
    level="MUST",
    meaning="After every chunk the visible text so far is a prefix of the final visible text, "
            "and the display deltas accumulate() returns concatenate to exactly that text.",
    failure_means="A streaming client shows text that is later taken back, shown twice, or "
                  "never shown.",
    typical_bug="A display delta returned for a chunk whose text is then dropped (or the other "
                "way round); text blocks joined with a separator the deltas never carried.",
    applies=_has_wire,
)
def prefix(subject: Subject) -> None:
    strategy = subject.strategy

    def prop(case):
        stream = stream_of(subject, case)
        acc = strategy.new_accumulator()
        deltas, visible = [], []
        for chunk in stream:
            delta = strategy.accumulate(acc, copy_json(chunk))
            if not isinstance(delta, str):
                raise prefix.fail(
                    f"accumulate() returned {show(delta)} for chunk {len(deltas)}, "
                    f"expected the display delta as a str", case)
            deltas.append(delta)
            visible.append(strategy.content_text(strategy.as_message(acc)))
        final = strategy.content_text(strategy.as_message(acc))
        if not subject.is_text and final != case.text:
            raise prefix.fail(
                f"content_text() of the assembled message is {show(final)}, expected the "
                f"message's visible text {show(case.text)}", case)
        shown = ""
        for index, delta in enumerate(deltas):
            shown += delta
            if not final.startswith(shown):
                raise prefix.fail(
                    f"after chunk {index} the display deltas so far are {show(shown)}, which is "
                    f"not a prefix of the final text {show(final)} (this chunk returned "
                    f"{show(delta)})", case)
            if not final.startswith(visible[index]):
                raise prefix.fail(
                    f"after chunk {index} content_text(as_message()) is {show(visible[index])}, "
                    f"which is not a prefix of the final text {show(final)}", case)
        if shown != final:
            raise prefix.fail(
                f"the display deltas concatenate to {show(shown)}, but the final visible text "
                f"is {show(final)}", case)

    # Half the examples have visible text for sure: drawn from all cases alone, some seeds
    # gave so few texts cut into several deltas that a snapshot returned as delta passed.
    cases = subject.wire.cases()
    check_each(prefix, subject, st.one_of(cases, cases.filter(lambda case: case.text)), prop)


@clause(
    "reassembly.done",
    level="MUST",
    meaning="is_done() is true on the wire's terminal chunk and on no chunk before it.",
    failure_means="A client stops reading (or runs the calls) before the stream has ended, or "
                  "never knows it ended.",
    typical_bug="is_done() true on a per-call or per-item .done event (content_block_stop, "
                "response.output_item.done, function_call_arguments.done).",
    applies=is_native,
)
def done(subject: Subject) -> None:
    strategy = subject.strategy

    def prop(case):
        for index, chunk in enumerate(case.chunks[: case.done_at + 1]):
            said = strategy.is_done(copy_json(chunk))
            if index < case.done_at and said:
                raise done.fail(
                    f"is_done() is true on chunk {index} {show(chunk)}, before the terminal "
                    f"chunk {case.done_at}", case)
            if index == case.done_at and not said:
                raise done.fail(
                    f"is_done() is false on the terminal chunk {index} {show(chunk)}", case)

    check_each(done, subject, subject.wire.cases(), prop)


def _extra_trailing(case) -> list:
    """Trailing chunks real servers send after the end, beyond those the case carries."""
    if case.wire == "openai-chat":
        first = case.chunks[0] if case.chunks and isinstance(case.chunks[0], dict) else {}
        usage_only = {key: first[key] for key in ("id", "object", "created", "model",
                                                   "system_fingerprint") if key in first}
        usage_only["choices"] = []
        usage_only["usage"] = {"prompt_tokens": 3, "completion_tokens": 5, "total_tokens": 8}
        return [usage_only, "[DONE]"]
    if case.wire == "anthropic-messages":
        return [{"type": "ping"}]
    return []


@clause(
    "reassembly.trailing",
    level="MUST",
    meaning="Chunks after the terminal one (a usage-only chunk, [DONE], a ping) are absorbed: "
            "they return no display text and change neither the message, its calls nor its text.",
    failure_means="A client that keeps reading to the end of the body sees its finished "
                  "message change, or gets an error for a normal trailing chunk.",
    typical_bug="A usage-only chunk (choices: []) read as a new choice or raising IndexError; "
                "a ping after message_stop rejected.",
    applies=is_native,
)
def trailing(subject: Subject) -> None:
    strategy = subject.strategy

    def prop(case):
        chunks = list(case.chunks) + _extra_trailing(case)
        acc, _ = feed(strategy, chunks[: case.done_at + 1])
        message = strategy.as_message(acc)
        before = (copy_json(message), strategy.extract(message), strategy.content_text(message))
        for index in range(case.done_at + 1, len(chunks)):
            delta = strategy.accumulate(acc, copy_json(chunks[index]))
            if delta != "":
                raise trailing.fail(
                    f"trailing chunk {index} {show(chunks[index])} (after the terminal chunk "
                    f"{case.done_at}) returned display text {show(delta)}, expected ''", case)
            found = first_difference(before[0], strategy.as_message(acc))
            if found:
                raise trailing.fail(
                    f"trailing chunk {index} {show(chunks[index])} changed the message: {found}",
                    case)
        message = strategy.as_message(acc)
        calls, text = strategy.extract(message), strategy.content_text(message)
        if calls != before[1]:
            raise trailing.fail(
                f"the trailing chunks changed the calls from {show(before[1])} to {show(calls)}",
                case)
        if text != before[2]:
            raise trailing.fail(
                f"the trailing chunks changed the visible text from {show(before[2])} to "
                f"{show(text)}", case)

    check_each(trailing, subject, subject.wire.cases(), prop)


@clause(
    "reassembly.response",
    level="SHOULD",
    meaning="Where the wire's stream=false body holds more than the message (finish reasons, "
            "usage), as_response() rebuilds that whole body from the stream.",
    failure_means="Clients lose the finish reason or token usage when they stream.",
    typical_bug="usage taken from a chunk other than the usage-only one; finish_reason of the "
                "wrong choice; no as_response() at all.",
    applies=is_native,
)
def response(subject: Subject) -> None:
    strategy = subject.strategy
    as_response = getattr(strategy, "as_response", None)

    def prop(case):
        if case.response is None:
            return
        acc, _ = feed(strategy, case.chunks)
        if as_response is None:
            if first_difference(case.response, case.message) is not None:
                raise response.fail(
                    "the strategy has no as_response(acc), but this wire's stream=false body "
                    f"holds more than the message: {show(case.response)}", case)
            return
        found = first_difference(case.response, as_response(acc), "response")
        if found:
            raise response.fail(
                f"as_response() after all {len(case.chunks)} chunks differs from the "
                f"stream=false body: {found}", case)

    check_each(response, subject, subject.wire.cases(), prop)


# -- provider errors ------------------------------------------------------------------------
def _draws_errors(subject: Subject) -> bool:
    return (subject.wire is not None and not subject.is_text and subject.wire.native
            and subject.wire.name in ERROR_FORMS)


def _provider_message(error) -> str:
    return error_message(error)


@clause(
    "reassembly.provider-error",
    level="MUST",
    meaning="When the provider reports an error mid-stream (Anthropic's error event, OpenAI "
            "Chat's error object or event: error, Responses error and response.failed, "
            "Ollama's error line), accumulate() raises mcs_reference.ProviderError at that "
            "chunk, carrying the provider's message, and the stream is never done.",
    failure_means="A stream cut short by an overload or a rate limit looks like a complete "
                  "answer: the driver runs calls with partial arguments, or shows half a reply "
                  "as the whole one.",
    typical_bug="Unknown event types skipped, error included; response.failed treated as the "
                "end of the response; the error raised as the library's own exception.",
    applies=_draws_errors,
)
def provider_error(subject: Subject) -> None:
    strategy = subject.strategy

    def prop(case):
        acc = strategy.new_accumulator()
        for index, chunk in enumerate(case.chunks):
            try:
                strategy.accumulate(acc, copy_json(chunk))
            except ProviderError as exc:
                if index != case.error_at:
                    raise provider_error.fail(
                        f"ProviderError raised at chunk {index}; the provider reported the "
                        f"error at chunk {case.error_at}", case) from exc
                wanted = _provider_message(case.error)
                if wanted not in str(exc) and wanted != getattr(exc, "message", None):
                    raise provider_error.fail(
                        f"the ProviderError at chunk {index} does not carry the provider's "
                        f"message {show(wanted)}: {show(str(exc))}", case) from exc
                return
            if strategy.is_done(chunk):
                raise provider_error.fail(
                    f"is_done() is true at chunk {index}, but the provider reported an error "
                    f"at chunk {case.error_at}: the stream looks complete", case)
        raise provider_error.fail(
            f"no ProviderError after all {len(case.chunks)} chunks; the provider reported "
            f"{show(case.error)} at chunk {case.error_at}, and as_message() returned "
            f"{show(strategy.as_message(acc))} as if the stream were complete", case)

    check_each(provider_error, subject, subject.wire.cases(errors=True), prop)
