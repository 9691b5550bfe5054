"""Client clauses: what any client (an SDK's stream helper, a framework, a harness) must get
out of a real HTTP stream served by the kit's local provider server.

Each example is one local round trip (two for `client.byte-cuts`). Every failure names the
quirks of its counterexample, so "fails only on vLLM-style streams" reads as such, and
carries a severity (docs/clauses.md, "Severities"): `crash`, `silent-loss` and
`false-success` are bugs; `strictness` and `fidelity` are notes. A note never stops the
search: a clause looks through every example for a bug first and reports a note only when
it found none.
"""
from __future__ import annotations

import re
from dataclasses import replace
from typing import Any

from mcs_conformance.base import show
from mcs_conformance.clauses._compare import first_difference
from mcs_conformance.clauses._registry import (clause, Clause, ClauseFailure, ClauseNotApplicable,
                                               ClientSubject)
from mcs_conformance.clauses._runner import check_each
from mcs_conformance.clients import (error_streams, http_errors, malformed_streams, prose_streams,
                                     Served, streams, truncated_streams, truth_calls)
from mcs_conformance.wires import NATIVE_WIRES, case_request

CLIENT = "client"
NO_MESSAGE = ("n/a: the client exposes no native message (message is null on every case that "
              "did not end in an error)")


def _served_wire(subject: ClientSubject) -> bool:
    return subject.client.wire in NATIVE_WIRES


def _quirks(served: Served) -> str:
    names = sorted(served.quirks)
    return f"quirks: {', '.join(names)}" if names else "quirks: none (the provider's own shape)"


def _evidence(served: Served, outcome: dict | None = None, **more: Any) -> dict:
    record = served.record()
    record["quirks"] = sorted(served.quirks)
    if served.case is not None:  # what a v2 client was told to ask for: a replay asks the same
        record["request"] = case_request(served.case)
    if outcome is not None:
        record["outcome"] = outcome
    record.update(more)
    return record


MAX_SEARCHES = 3  # per client clause: the first, then up to two without the quirks found
CRASH, SILENT_LOSS, FALSE_SUCCESS, STRICTNESS, FIDELITY = (
    "crash", "silent-loss", "false-success", "strictness", "fidelity")


def _fail(which: Clause, severity: str, reason: str, served: Served, outcome: dict | None = None,
          **more: Any) -> ClauseFailure:
    return which.fail(f"{reason} ({_quirks(served)})", _evidence(served, outcome, **more),
                      severity)


def _body_size(failure: ClauseFailure) -> int:
    pieces = failure.case.get("pieces", ()) if isinstance(failure.case, dict) else ()
    return sum(len(piece) for piece in pieces)


def _search(which: Clause, subject: ClientSubject, generator: Any, prop: Any,
            noted: list[ClauseFailure]) -> None:
    """`check_each`, where a note (strictness, fidelity) does not end the search: it is
    kept in `noted` (the one with the smallest body; notes are not shrunk) and the search
    goes on for a bug."""

    def judged(value: Any) -> None:
        try:
            prop(value)
        except ClauseFailure as failure:
            if not failure.is_note:
                raise
            if not noted or _body_size(failure) < _body_size(noted[0]):
                noted[:] = [failure]

    check_each(which, subject, generator, judged)


def _held_quirks(failure: ClauseFailure) -> frozenset:
    return frozenset(failure.case.get("quirks", ())) if isinstance(failure.case, dict) else frozenset()


def _check(which: Clause, subject: ClientSubject, generator_for: Any, prop: Any) -> None:
    """Search `generator_for(quirks)` for a failure; after one, search again without the
    quirks its counterexample holds (up to `MAX_SEARCHES` in all), so that a client failing
    on two servers' shapes shows both: the first failure is raised, the others ride on it
    (`ClauseFailure.others`). With no bug found, the smallest note is raised."""
    runner = subject.client
    quirks, left_out = runner.quirks, frozenset()
    found: list[ClauseFailure] = []
    noted: list[ClauseFailure] = []
    for _ in range(MAX_SEARCHES):
        try:
            _search(which, subject, generator_for(quirks), prop, noted)
            break
        except ClauseFailure as failure:
            found.append(failure)
            held = _held_quirks(failure)
            if not held:  # the provider's own shape fails: nothing left to leave out
                break
            left_out |= held
            quirks = runner.quirks_without(left_out)  # a server profile still draws often
    if found:
        found[0].others = tuple(found[1:])
        raise found[0]
    if noted:
        raise noted[0]


#: How each wire's stream says its answer stopped at the token limit (key -> value).
_TOKEN_LIMIT = {"finish_reason": "length", "done_reason": "length", "stop_reason": "max_tokens",
                "stopReason": "max_tokens", "finishReason": "MAX_TOKENS",
                "reason": "max_output_tokens"}


#: An error that speaks of the limit (any other error on such a stream is still a crash).
_ABOUT_THE_LIMIT = re.compile(r"length|max.?tokens|token limit|terminated early|incomplete",
                              re.IGNORECASE)


def _stopped_at_token_limit(value: Any) -> bool:
    """Whether a chunk (or anything in it) says the answer stopped at the token limit."""
    if isinstance(value, dict):
        return any(_TOKEN_LIMIT.get(key) == item or _stopped_at_token_limit(item)
                   for key, item in value.items())
    return isinstance(value, list) and any(_stopped_at_token_limit(item) for item in value)


def _completed(which: Clause, served: Served, outcome: dict) -> None:
    """A stream that ended well must not end in an error. One its provider stopped at the
    token limit did end, and says so itself: a client that raises about that limit there is
    strict (it may mean to: llama-index and the openai SDK's helpers do), a note rather than
    a crash."""
    if outcome["error"] is not None:
        cut = served.case is not None and bool(_ABOUT_THE_LIMIT.search(outcome["error"])) \
            and any(_stopped_at_token_limit(chunk) for chunk in served.case.chunks)
        raise _fail(which, STRICTNESS if cut else CRASH,
                    "the client reported an error on a stream that completed"
                    + (" (stopped at the token limit, as the stream itself says)" if cut else "")
                    + f": {show(outcome['error'])}", served, outcome)


def _as_complete(served: Served, outcome: dict) -> bool:
    """Whether a success reported on a cut or errored body holds what the complete stream
    gives: the same calls and the same text (then nothing was lost: strictness)."""
    return (_calls_difference(truth_calls(served.case.calls), outcome["calls"]) is None
            and outcome["text"] == served.case.text)


def _calls_difference(expected: list[dict], got: list[dict],
                      malformed: frozenset = frozenset()) -> str | None:
    """How the outcome's calls differ from the truth; an id is compared only where the
    stream carries one, numbers as JSON numbers (by value as IEEE doubles). The arguments
    of the calls at the `malformed` positions (not a JSON object) are client.malformed's to
    judge: one cause, one clause (a client that drops them is compared without them)."""
    if malformed and len(got) == len(expected) - len(malformed):
        expected = [call for index, call in enumerate(expected) if index not in malformed]
        malformed = frozenset()
    if len(got) != len(expected):
        return (f"{len(got)} call(s) {show([c['name'] for c in got])}, expected {len(expected)} "
                f"{show([c['name'] for c in expected])}")
    for index, (call, want) in enumerate(zip(got, expected)):
        for key in ("name", "arguments", "id"):
            if key == "id" and want["id"] is None or key == "arguments" and index in malformed:
                continue
            if first_difference(want[key], call[key], json_numbers=True) is not None:
                return f"call {index} {key} is {show(call[key])}, expected {show(want[key])}"
    return None


def _ids_cut_back(expected: list[dict], got: list[dict]) -> list[dict]:
    """`got` with each id that begins with the provider's id cut back to it: a library that
    carries more in the id (LiteLLM appends Gemini's thought signature) keeps the provider's,
    so the difference is one of representation, not a lost id."""
    out = []
    for call, want in zip(got, expected):
        mine, theirs = call.get("id"), want.get("id")
        if isinstance(mine, str) and isinstance(theirs, str) and mine.startswith(theirs):
            call = {**call, "id": theirs}
        out.append(call)
    return out + got[len(expected):]


# -- calls, text, message ------------------------------------------------------------------
@clause(
    "client.calls",
    level="MUST",
    meaning="The calls a client reports (name, arguments, id, order) equal the stream=false "
            "message's, whatever the event chunking, the byte cuts and the server's quirks "
            "(arguments that are not a JSON object are client.malformed's to judge). An id "
            "that keeps the provider's id at its start and adds to it is a fidelity note.",
    failure_means="Through this library, the application runs the wrong tool, with wrong or "
                  "partial arguments, or answers a call id the provider never sent.",
    typical_bug="Fragments merged by id instead of index; the last fragment dropped; a call "
                "with empty arguments lost; calls read only from the final chunk.",
    applies=_served_wire, kind=CLIENT,
)
def calls(subject: ClientSubject) -> None:
    runner = subject.client

    def prop(served: Served) -> None:
        outcome = runner.run(served)
        truth = served.case.calls
        if outcome["error"] is not None and any(call.error for call in truth):
            return  # a malformed call reported as an error: client.malformed judges it
        _completed(calls, served, outcome)
        bad = frozenset(index for index, call in enumerate(truth) if call.error)
        expected = truth_calls(truth)
        found = _calls_difference(expected, outcome["calls"], bad)
        if found and _calls_difference(expected, _ids_cut_back(expected, outcome["calls"]),
                                       bad) is None:
            raise _fail(calls, FIDELITY, f"the client reported {found}: the provider's id "
                        "kept at its start, with more after it", served, outcome)
        if found:
            raise _fail(calls, SILENT_LOSS, f"the client reported {found}", served, outcome)

    _check(calls, subject, lambda quirks: streams(runner.wire, quirks, min_calls=1), prop)


@clause(
    "client.text",
    level="MUST",
    meaning="The visible text a client reports equals the stream=false message's "
            "(content_text() of the wire).",
    failure_means="Users see text lost, doubled or garbled (a character split across two "
                  "network reads turned into U+FFFD).",
    typical_bug="Each network read decoded as UTF-8 on its own; deltas of other choices or "
                "of reasoning shown as the answer; the first delta dropped.",
    applies=_served_wire, kind=CLIENT,
)
def text(subject: ClientSubject) -> None:
    runner = subject.client

    def prop(served: Served) -> None:
        outcome = runner.run(served)
        _completed(text, served, outcome)
        if outcome["text"] != served.case.text:
            raise _fail(text, SILENT_LOSS, f"the client reported the text "
                        f"{show(outcome['text'])}, expected {show(served.case.text)}",
                        served, outcome)

    _check(text, subject, lambda quirks: streams(runner.wire, quirks), prop)


def _nulls_as_absent(expected: Any, got: Any) -> tuple[Any, Any]:
    """`expected` and `got` without the object keys that one side leaves out and the other
    sets to null: an SDK model dumps every optional field it declares (null when unset),
    the provider leaves it out; both mean the same. A null where a value is expected stays."""
    if isinstance(expected, dict) and isinstance(got, dict):
        mine = {k: v for k, v in expected.items() if not (v is None and k not in got)}
        theirs = {k: v for k, v in got.items() if not (v is None and k not in expected)}
        for key in mine.keys() & theirs.keys():
            mine[key], theirs[key] = _nulls_as_absent(mine[key], theirs[key])
        return mine, theirs
    if isinstance(expected, list) and isinstance(got, list):
        pairs = [_nulls_as_absent(e, g) for e, g in zip(expected, got)]
        size = len(pairs)
        return ([e for e, _ in pairs] + expected[size:], [g for _, g in pairs] + got[size:])
    return expected, got


def _without_malformed(value: Any, ids: frozenset) -> Any:
    """`value` without the arguments (`input`, `arguments`) of the calls whose id is in
    `ids`: arguments that are not a JSON object are client.malformed's to judge."""
    if isinstance(value, dict):
        if value.get("id") in ids or value.get("call_id") in ids:
            value = {k: v for k, v in value.items() if k not in ("input", "arguments")}
            if isinstance(value.get("function"), dict):  # OpenAI Chat: function.arguments
                value["function"] = {k: v for k, v in value["function"].items()
                                     if k != "arguments"}
            return value
        return {k: _without_malformed(v, ids) for k, v in value.items()}
    if isinstance(value, list):
        return [_without_malformed(item, ids) for item in value]
    return value


def _without_empties(value: Any) -> Any:
    """`value` with every object key whose value is null, `[]` or `""` left out, and every
    list item left empty by that (a content block of `text: ""`): what tells a difference
    of representation (`null`, `[]`, `""`, an absent key, an empty block) from one of
    content."""
    if isinstance(value, dict):
        cleaned = {k: _without_empties(v) for k, v in value.items()}
        return {k: v for k, v in cleaned.items() if v not in (None, [], "")}
    if isinstance(value, list):
        return [kept for kept in map(_without_empties, value) if kept != {}]
    return value


@clause(
    "client.message",
    level="SHOULD",
    meaning="Where a client exposes the native message it assembled, it equals the "
            "stream=false message (a field set to null counts as a field left out, as SDK "
            "models write every optional field). A client that exposes none (message null on "
            "every case it did not end in an error) gets n/a (skipped), never passed; one "
            "that exposes it for some streams only fails. A difference only of "
            "representation (`[]` or `\"\"` against null or an absent key) is a fidelity note. Errors "
            "are client.calls' and client.text's to judge.",
    failure_means="Code that stores or resends the assembled message (the history) gets "
                  "another message than the provider would have returned.",
    typical_bug="Fields the library does not model dropped (refusal, annotations, thinking "
                "signatures); usage or stop reason taken from the wrong event.",
    applies=_served_wire, kind=CLIENT,
)
def message(subject: ClientSubject) -> None:
    runner = subject.client
    exposes: list[bool] = []  # whether the first case's outcome had a message: every case must agree

    def prop(served: Served) -> None:
        outcome = runner.run(served)
        if outcome["error"] is not None:
            return  # client.calls and client.text judge an error; it leaves no message here
        has = outcome["message"] is not None
        if not exposes:
            exposes.append(has)
        if has != exposes[0]:
            said = ("no message here, though it exposed one for an earlier stream" if not has
                    else "a message here, though it exposed none for an earlier stream")
            raise _fail(message, SILENT_LOSS, f"the client returned {said}: a null message "
                        "then hides the one it assembled", served, outcome)
        if not has:
            return
        ids = frozenset(call.id for call in served.case.calls if call.error and call.id)
        expected, got = (_without_malformed(m, ids) for m in (served.case.message,
                                                                outcome["message"]))
        found = first_difference(*_nulls_as_absent(expected, got), json_numbers=True)
        if found:
            same = first_difference(_without_empties(expected), _without_empties(got),
                                    json_numbers=True)
            raise _fail(message, FIDELITY if same is None else SILENT_LOSS,  # the difference
                        f"the client's message differs from stream=false: {same or found}",
                        served, outcome)  # of content when there is one

    _check(message, subject, lambda quirks: streams(runner.wire, quirks), prop)
    if not exposes or not exposes[0]:  # no message on any stream, or only errors
        raise ClauseNotApplicable(message.id, NO_MESSAGE)


# -- byte cuts, phantom calls, malformed arguments -----------------------------------------
def _without_call_ids(outcome: dict) -> dict:
    """`outcome` with its calls' ids cleared: a client that invents an id for a call the
    stream gave none (a random one per run) is judged on the rest."""
    return {**outcome, "calls": [{**call, "id": None} for call in outcome["calls"]]}


@clause(
    "client.byte-cuts",
    level="MUST",
    meaning="A client reports the same outcome whether the body arrives whole or cut "
            "anywhere (mid-line, inside `data:`, between \\r and \\n, inside a UTF-8 "
            "character).",
    failure_means="The result depends on how the network happened to split the body: a "
                  "client that works on localhost fails behind a proxy or on a slow link.",
    typical_bug="Assuming each network read holds whole lines or whole events; decoding "
                "UTF-8 per read; a \\r at the end of one read taken as a line end.",
    applies=_served_wire, kind=CLIENT,
)
def byte_cuts(subject: ClientSubject) -> None:
    runner = subject.client

    def prop(served: Served) -> None:
        whole = replace(served, pieces=(served.body,))
        at_once = runner.run(whole)
        in_pieces = runner.run(served)
        if in_pieces != at_once:
            again = runner.run(whole)
            if again != at_once:  # the same whole body gives another outcome: ids it invents?
                at_once, again, in_pieces = map(_without_call_ids, (at_once, again, in_pieces))
                if again != at_once:
                    raise _fail(byte_cuts, SILENT_LOSS, "the same whole body gives two different outcomes "
                                "(beyond invented call ids): the cuts cannot be judged",
                                served, again, whole_outcome=at_once)
        if in_pieces != at_once:
            key = next(k for k in ("calls", "text", "error", "message")
                       if in_pieces[k] != at_once[k])
            severity = CRASH if in_pieces["error"] is not None and at_once["error"] is None \
                else SILENT_LOSS
            raise _fail(byte_cuts, severity, f"cut into {len(served.pieces)} pieces the body gives "
                        f"{key} {show(in_pieces[key])}; whole, {show(at_once[key])}",
                        served, in_pieces, whole_outcome=at_once)

    _check(byte_cuts, subject, lambda quirks: streams(runner.wire, quirks), prop)


@clause(
    "client.no-phantom",
    level="MUST",
    meaning="A text-only stream (braces, JSON, code fences, tags in prose) yields no call.",
    failure_means="The application runs a tool nobody called when the model shows JSON.",
    typical_bug="Scanning the visible text for JSON objects and taking them for calls.",
    applies=_served_wire, kind=CLIENT,
)
def no_phantom(subject: ClientSubject) -> None:
    runner = subject.client

    def prop(served: Served) -> None:
        outcome = runner.run(served)
        if outcome["calls"]:
            raise _fail(no_phantom, SILENT_LOSS, f"the client reported {show(outcome['calls'])} from text "
                        f"{show(served.case.text)}", served, outcome)

    _check(no_phantom, subject, lambda quirks: prose_streams(runner.wire, quirks), prop)


@clause(
    "client.malformed",
    level="MUST",
    meaning="A call whose arguments are not a JSON object is surfaced: its raw string as "
            "arguments, or an error; never dropped, never turned into {}. On Anthropic the "
            "malformed call is a tool_use cut by `max_tokens`: the stream's own stop reason "
            "says the answer was cut, so a client that drops or empties that call gets a "
            "strictness note, not a failure. On Gemini the answer stops with `finishReason: "
            "MALFORMED_FUNCTION_CALL` and no call: a client must report it (an error or a "
            "call with the raw text), never an empty success.",
    failure_means="A malformed call runs with arguments nobody wrote, or vanishes so the "
                  "model is never told to retry.",
    typical_bug="`json.loads` failures swallowed and replaced by {}; calls that fail to parse "
                "skipped; a tool_use cut by max_tokens dropped.",
    applies=_served_wire, kind=CLIENT,
)
def malformed(subject: ClientSubject) -> None:
    runner = subject.client
    # Anthropic's malformed calls are cut by max_tokens, which the stream itself reports
    severity = STRICTNESS if runner.wire == "anthropic-messages" else SILENT_LOSS

    def prop(drawn: tuple) -> None:
        served, name, raw = drawn
        outcome = runner.run(served)
        if outcome["error"] is not None:
            return
        if runner.wire == "gemini":
            if not any(isinstance(call["arguments"], str) for call in outcome["calls"]):
                raise _fail(malformed, FALSE_SUCCESS, "the answer stopped with finishReason "
                            f"MALFORMED_FUNCTION_CALL ({show(raw)}) and was reported as a "
                            f"success: calls {show(outcome['calls'])}, text "
                            f"{show(outcome['text'])}", served, outcome)
            return
        named = [call for call in outcome["calls"] if call["name"] == name]
        if not named:
            raise _fail(malformed, severity, f"the call {name!r} with arguments {show(raw)} "
                        "was dropped", served, outcome)
        if not any(isinstance(call["arguments"], str) for call in named):
            shown = show([call["arguments"] for call in named])
            raise _fail(malformed, severity, f"the call {name!r} with arguments {show(raw)} "
                        f"was reported with arguments {shown}, expected the raw string or an "
                        "error", served, outcome)

    _check(malformed, subject, lambda quirks: malformed_streams(runner.wire, quirks), prop)


# -- errors --------------------------------------------------------------------------------
@clause(
    "client.provider-error",
    level="MUST",
    meaning="A provider error mid-stream (an OpenAI error object or `event: error`, "
            "Anthropic's error event, Responses `error`/`response.failed`, Ollama's error "
            "line) ends in an error, never in a success that looks complete.",
    failure_means="A stream cut short by an overload or a rate limit looks like a complete "
                  "answer: the application runs calls with partial arguments.",
    typical_bug="Unknown events skipped, the error event included; `response.failed` read "
                "as the end of the response; an `error` key on a chunk ignored.",
    applies=_served_wire, kind=CLIENT,
)
def provider_error(subject: ClientSubject) -> None:
    runner = subject.client

    def prop(served: Served) -> None:
        outcome = runner.run(served)
        if outcome["error"] is None:
            raise _fail(provider_error, FALSE_SUCCESS, f"the stream ended in the provider "
                        f"error {show(served.case.error)} but the client reported success",
                        served, outcome)

    _check(provider_error, subject, lambda quirks: error_streams(runner.wire, quirks), prop)


def _cut_short(which: Clause, subject: ClientSubject, clean: bool) -> None:
    """A body stopped before the wire's end signal must end in an error; a success is
    false-success when it differs from the complete stream's outcome, else strictness."""
    runner = subject.client
    how = "the HTTP body ended cleanly" if clean else "the connection dropped"

    def prop(served: Served) -> None:
        outcome = runner.run(served)
        if outcome["error"] is None:
            same = _as_complete(served, outcome)
            raise _fail(which, STRICTNESS if same else FALSE_SUCCESS,
                        f"the body stopped after {len(served.body)} bytes, before the end "
                        f"signal ({how}), and the client reported success with "
                        f"{len(outcome['calls'])} call(s)"
                        + (", the same as the complete stream gives" if same else ""),
                        served, outcome)

    _check(which, subject,
           lambda quirks: truncated_streams(runner.wire, quirks, clean=clean), prop)


_CUT_BUG = ("The end of the body taken as the end of the stream without checking `[DONE]`, "
            "`message_stop`, `response.completed` or `done: true`.")


@clause(
    "client.truncated",
    level="SHOULD",
    meaning="A body whose connection drops before the wire's end signal (an unfinished "
            "chunked body) is an error, never a completed run of calls with partial "
            "arguments. A success with exactly what the complete stream gives is a "
            "strictness note.",
    failure_means="A dropped connection looks like a finished answer: partial arguments are "
                  "run, half a reply is shown as the whole one.",
    typical_bug=_CUT_BUG + " The transport's incomplete-body error swallowed.",
    applies=_served_wire, kind=CLIENT,
)
def truncated(subject: ClientSubject) -> None:
    _cut_short(truncated, subject, clean=False)


@clause(
    "client.early-end",
    level="SHOULD",
    meaning="A body that ends cleanly at the HTTP level but before the wire's end signal "
            "(as when a server's stream dies behind a proxy that closes the response) is an "
            "error, never a completed run of calls with partial arguments. A success with "
            "exactly what the complete stream gives is a strictness note.",
    failure_means="A server that stopped mid-answer looks like a finished answer: partial "
                  "arguments are run, half a reply is shown as the whole one.",
    typical_bug=_CUT_BUG,
    applies=_served_wire, kind=CLIENT,
)
def early_end(subject: ClientSubject) -> None:
    _cut_short(early_end, subject, clean=True)


@clause(
    "client.http-error",
    level="SHOULD",
    meaning="An HTTP 4xx/5xx answer is an error that names the provider's message. An error "
            "that does not name it is a fidelity note.",
    failure_means="A rate limit or an outage shows up as an empty answer, or as an error "
                  "that hides why.",
    typical_bug="The status not checked before reading the body as a stream; the error body "
                "discarded.",
    applies=_served_wire, kind=CLIENT,
)
def http_error(subject: ClientSubject) -> None:
    runner = subject.client

    def prop(drawn: tuple) -> None:
        served, provider_message = drawn
        outcome = runner.run(served)
        if outcome["error"] is None or provider_message not in outcome["error"]:
            success = outcome["error"] is None
            got = "success" if success else f"the error {show(outcome['error'])}"
            raise _fail(http_error, FALSE_SUCCESS if success else FIDELITY,
                        f"HTTP {served.status} with the message {provider_message!r} gave "
                        f"{got}", served, outcome)

    _check(http_error, subject, lambda quirks: http_errors(runner.wire), prop)
