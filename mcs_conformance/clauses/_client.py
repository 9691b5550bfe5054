"""Client clauses: what any client (an SDK's stream helper, a framework, a harness) must get
out of a real HTTP stream served by the kit's local provider server.

Each example is one local round trip (two for `client.byte-cuts`), saved as an
*observation* (what was sent, the truth of the case, what the client gave) and judged by the
pure rules of `_client_rules`, so a saved observation is judged again by the same code. When
the stream fails and the client can be asked its library's non-streamed answer of the same
case (its *whole twin*), the clause asks it: the library disagreeing with itself is a bug,
agreeing with itself a contract choice (a note). Every failure names the quirks of its
counterexample and carries a severity (docs/clauses.md, "Severities"). A note never stops
the search: a clause looks through every example for a bug first and reports a note only
when it found none.
"""
from __future__ import annotations

from dataclasses import replace
from typing import Any, Callable

from mcs_conformance.clauses._client_rules import (Judgment, NO_END_EVENT, judge_byte_cuts,
                                                   judge_calls, judge_early_end, judge_http_error,
                                                   judge_malformed, judge_message,
                                                   judge_no_phantom, judge_partial_event,
                                                   judge_provider_error, judge_text,
                                                   judge_truncated, stopped_at_token_limit,
                                                   UNASKED)
from mcs_conformance.clauses._registry import (clause, Clause, ClauseFailure, ClauseNotApplicable,
                                               ClientSubject)
from mcs_conformance.clauses._runner import check_each
from mcs_conformance.clients import (ClientRunner, cut_streams, error_streams, http_errors,
                                     malformed_streams, outcome_call, prose_streams, Served,
                                     streams, truncated_streams)
from mcs_conformance.wires import NATIVE_WIRES, case_request

CLIENT = "client"
NO_MESSAGE = ("n/a: the client exposes no native message (message is null on every case that "
              "did not end in an error)")


def _served_wire(subject: ClientSubject) -> bool:
    return subject.client.wire in NATIVE_WIRES


# -- observations --------------------------------------------------------------------------
def _truth(served: Served) -> dict:
    """What the case holds, as the rules read it: the calls of the complete stream (each
    marked when its arguments are malformed), the text, the stream=false message, whether it
    stopped at the token limit, the provider error it ends in."""
    case = served.case
    if case is None:
        return {"calls": [], "text": "", "message": None}
    return {"calls": [{**outcome_call(call), "malformed": call.error is not None}
                      for call in case.calls],
            "text": case.text, "message": case.message or None,
            "stopped_at_token_limit": any(stopped_at_token_limit(c) for c in case.chunks),
            "provider_error": case.error}


def observe(served: Served, outcome: dict, **more: Any) -> dict:
    """The observation of one case: what was sent (status, pieces, end, quirks, the
    request the case needed), its truth, and the client's `outcome`."""
    observation = served.record()
    observation["quirks"] = sorted(served.quirks)
    observation["size"] = len(served.body)
    if served.case is not None:  # what a v2 client was told to ask for: a replay asks the same
        observation["request"] = case_request(served.case)
    observation["truth"] = _truth(served)
    observation["outcome"] = outcome
    for key, value in more.items():
        if key == "truth":
            observation["truth"].update(value)
        else:
            observation[key] = value
    return observation


def _judged(runner: ClientRunner, served: Served, judge: Callable[[dict], Judgment | None],
            observation: dict) -> Judgment | None:
    """Judge `observation`; when the judgment needs the library's own non-streamed answer
    and the client can give it, ask it (once) and judge again."""
    judged = judge(observation)
    if judged is not None and judged.evidence == UNASKED and served.whole is not None \
            and runner.asks_whole:
        observation["twin_outcome"] = runner.run(served, stream=False)
        judged = judge(observation)
    return judged


def _raise(which: Clause, judged: Judgment | None, observation: dict) -> None:
    if judged is not None:
        observation["judgment"] = judged.as_dict()
        raise which.fail(judged.reason, observation, judged.severity, note=judged.is_note)


def _checked(which: Clause, judge: Callable[[dict], Judgment | None], runner: ClientRunner,
             served: Served, **more: Any) -> None:
    """One example of a one-request clause: run, observe, judge (asking the twin if need
    be), raise the failure."""
    observation = observe(served, runner.run(served), **more)
    _raise(which, _judged(runner, served, judge, observation), observation)


# -- the search ----------------------------------------------------------------------------
MAX_SEARCHES = 3  # per client clause: the first, then up to two without the quirks found


def _body_size(failure: ClauseFailure) -> int:
    return failure.case.get("size", 0) if isinstance(failure.case, dict) else 0


def _search(which: Clause, subject: ClientSubject, generator: Any, prop: Any,
            noted: list[ClauseFailure]) -> None:
    """`check_each`, where a note does not end the search: it is kept in `noted` (the one
    with the smallest body; notes are not shrunk) and the search goes on for a bug."""

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


def _one_request(which: Clause, judge: Callable[[dict], Judgment | None],
                 generator_for: Callable[[ClientRunner, Any], Any]) -> Callable:
    """The check of a clause whose example is one request judged by `judge`."""

    def check(subject: ClientSubject) -> None:
        runner = subject.client
        _check(which, subject, lambda quirks: generator_for(runner, quirks),
               lambda served: _checked(which, judge, runner, served))

    return check


# -- calls, text, message ------------------------------------------------------------------
@clause(
    "client.calls",
    level="MUST",
    meaning="The calls a client reports (name, arguments, id, order) equal the stream=false "
            "message's, whatever the event chunking, the byte cuts and the server's quirks "
            "(arguments that are not a JSON object are client.malformed's to judge). An id "
            "that keeps the provider's id at its start and adds to it is a fidelity note; a "
            "client whose own non-streamed answer of the same case gives the same calls gets "
            "a note: its choice, not a stream bug.",
    failure_means="Through this library, the application runs the wrong tool, with wrong or "
                  "partial arguments, or answers a call id the provider never sent.",
    typical_bug="Fragments merged by id instead of index; the last fragment dropped; a call "
                "with empty arguments lost; calls read only from the final chunk.",
    applies=_served_wire, kind=CLIENT,
)
def calls(subject: ClientSubject) -> None:
    _one_request(calls, judge_calls,
                 lambda runner, quirks: streams(runner.wire, quirks, min_calls=1))(subject)


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
    _one_request(text, judge_text, lambda runner, quirks: streams(runner.wire, quirks))(subject)


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
        if outcome["error"] is None and not exposes:
            exposes.append(outcome["message"] is not None)
        observation = observe(served, outcome, exposed_before=exposes[0] if exposes else None)
        _raise(message, _judged(runner, served, judge_message, observation), observation)

    _check(message, subject, lambda quirks: streams(runner.wire, quirks), prop)
    if not exposes or not exposes[0]:  # no message on any stream, or only errors
        raise ClauseNotApplicable(message.id, NO_MESSAGE)


# -- byte cuts, phantom calls, malformed arguments -----------------------------------------
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
        again = runner.run(whole) if in_pieces != at_once else None
        observation = observe(served, in_pieces, whole_outcome=at_once, again_outcome=again)
        _raise(byte_cuts, judge_byte_cuts(observation), observation)

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
    _one_request(no_phantom, judge_no_phantom,
                 lambda runner, quirks: prose_streams(runner.wire, quirks))(subject)


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

    def prop(drawn: tuple) -> None:
        served, name, raw = drawn
        _checked(malformed, judge_malformed, runner, served,
                 truth={"malformed_call": {"name": name, "raw": raw}})

    _check(malformed, subject, lambda quirks: malformed_streams(runner.wire, quirks), prop)


# -- errors and cut bodies -----------------------------------------------------------------
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
    _one_request(provider_error, judge_provider_error,
                 lambda runner, quirks: error_streams(runner.wire, quirks))(subject)


_CUT_BUG = ("The end of the body taken as the end of the stream without checking `[DONE]`, "
            "`message_stop`, `response.completed`, `done: true` or `messageStop`.")


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
    _one_request(truncated, judge_truncated,
                 lambda runner, quirks: truncated_streams(runner.wire, quirks))(subject)


def _has_end_event(which: Clause, subject: ClientSubject) -> None:
    """A wire without an end event says so: a clean end there cannot be told from the end."""
    if subject.client.wire in NO_END_EVENT:
        raise ClauseNotApplicable(which.id, f"n/a: {NO_END_EVENT[subject.client.wire]}")


@clause(
    "client.early-end",
    level="SHOULD",
    meaning="A body that ends cleanly at the HTTP level between two events, before the wire's "
            "end signal (as when a server's stream dies behind a proxy that closes the "
            "response), is best reported as an error. Whether a client checks the end signal "
            "is its contract: a success is a contract note (\"accepts a cleanly cut stream\"), "
            "which a library's own promise to detect an incomplete answer makes a bug. A wire "
            "without an end event (Gemini) is n/a.",
    failure_means="A server that stopped mid-answer looks like a finished answer: partial "
                  "arguments are run, half a reply is shown as the whole one.",
    typical_bug=_CUT_BUG,
    applies=_served_wire, kind=CLIENT,
)
def early_end(subject: ClientSubject) -> None:
    _has_end_event(early_end, subject)
    _one_request(early_end, judge_early_end,
                 lambda runner, quirks: cut_streams(runner.wire, quirks, inside=False))(subject)


@clause(
    "client.partial-event",
    level="SHOULD",
    meaning="A body that ends cleanly inside an event (a torn SSE event or NDJSON line, a "
            "partial event-stream frame) is best reported as an error: a framing error, "
            "judged apart from a clean cut between events. A success is a contract note. A "
            "wire without an end event (Gemini) is n/a.",
    failure_means="A stream torn mid-event looks like a finished answer.",
    typical_bug="A torn last event or frame dropped silently at the end of the body.",
    applies=_served_wire, kind=CLIENT,
)
def partial_event(subject: ClientSubject) -> None:
    _has_end_event(partial_event, subject)
    _one_request(partial_event, judge_partial_event,
                 lambda runner, quirks: cut_streams(runner.wire, quirks, inside=True))(subject)


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
        _checked(http_error, judge_http_error, runner, served,
                 truth={"provider_message": provider_message})

    _check(http_error, subject, lambda quirks: http_errors(runner.wire), prop)
