"""The client clauses' judgments: pure functions of a saved *observation*.

An observation is what one case showed, as JSON: what the server sent (status, body pieces,
clean end or drop, quirks, the request the case needed), the truth of the case (its calls,
text and stream=false message), and the library's outcomes: the stream as served, the same
body whole (`client.byte-cuts`), and its *whole twin*, the library's own non-streaming call
for the same answer (harness protocol v3), asked only when the stream failed. A judgment is
derived from an observation and nothing else, so a saved observation is judged again by the
current rules (the peer matrix re-derives its page in CI).

How bad a failure is (`severity`) and how it is known (`evidence`) are apart:
- `self`: the library disagrees with itself: its stream against its own stream=false answer,
  or the same body cut and whole. A maintainer cannot dispute it.
- `provider`: the library agrees with its own stream=false answer and both differ from the
  provider's documented shape: a contract choice, a note.
- `wire`: only the wire's contract says so (the end signal of a cut stream).
- `unasked`: no stream=false answer to compare (a client that cannot be asked one).
A shape no real server is shown to send (a quirk without provenance: a `*-spec-edges`
profile's) yields at most a note.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Callable

from mcs_conformance.base import show
from mcs_conformance.clauses._compare import first_difference
from mcs_conformance.wires import QUIRKS

__all__ = ["BUG_SEVERITIES", "EVIDENCE", "NO_END_EVENT", "Judgment", "judge_observation",
           "stopped_at_token_limit"]

CRASH, SILENT_LOSS, FALSE_SUCCESS, STRICTNESS, FIDELITY, CONTRACT = (
    "crash", "silent-loss", "false-success", "strictness", "fidelity", "contract")
BUG_SEVERITIES = frozenset({CRASH, SILENT_LOSS, FALSE_SUCCESS})
EVIDENCE = ("self", "provider", "wire", "unasked")
SELF, PROVIDER, WIRE, UNASKED = EVIDENCE

#: Wires whose stream has no end event: a body that ends cleanly between two records cannot
#: be told from a complete one, so no client is judged on it there.
NO_END_EVENT = {"gemini": "streamGenerateContent sends no end event: its last record is the "
                          "last one, and a clean end between records looks like the end"}


@dataclass(frozen=True)
class Judgment:
    """A failed observation: what happened (`severity`), how it is known (`evidence`), the
    one-line `reason`, and the quirks of its stream that no real server is shown to send."""

    clause: str
    severity: str
    reason: str
    evidence: str
    unevidenced: tuple = ()

    @property
    def is_note(self) -> bool:
        """Reported, never a failed certification (unless `--strict`): a strictness,
        fidelity or contract severity, a library agreeing with its own stream=false answer,
        or a shape no real server is shown to send."""
        return (self.severity not in BUG_SEVERITIES or self.evidence == PROVIDER
                or bool(self.unevidenced))

    def as_dict(self) -> dict:
        return {"clause": self.clause, "severity": self.severity, "reason": self.reason,
                "evidence": self.evidence, "unevidenced": list(self.unevidenced)}


# -- comparing outcomes --------------------------------------------------------------------
def outcome_calls_difference(expected: list[dict], got: list[dict], malformed: frozenset = frozenset(),
                     ids: bool = True) -> str | None:
    """How `got` differs from `expected` (outcome calls); an id is compared only where
    `expected` carries one (and `ids`), numbers by value. The arguments at the `malformed`
    positions are client.malformed's to judge: a client that drops those calls is compared
    without them."""
    if malformed and len(got) == len(expected) - len(malformed):
        expected = [call for index, call in enumerate(expected) if index not in malformed]
        malformed = frozenset()
    if len(got) != len(expected):
        return (f"{len(got)} call(s) {show([c['name'] for c in got])}, expected {len(expected)} "
                f"{show([c['name'] for c in expected])}")
    for index, (call, want) in enumerate(zip(got, expected)):
        for key in ("name", "arguments", "id"):
            if key == "id" and (want["id"] is None or not ids) or \
                    key == "arguments" and index in malformed:
                continue
            if first_difference(want[key], call[key], json_numbers=True) is not None:
                return f"call {index} {key} is {show(call[key])}, expected {show(want[key])}"
    return None


def ids_cut_back(expected: list[dict], got: list[dict]) -> list[dict]:
    """`got` with each id that begins with the provider's id cut back to it (LiteLLM appends
    Gemini's thought signature to the id): a difference of representation, not a lost id."""
    out = []
    for call, want in zip(got, expected):
        mine, theirs = call.get("id"), want.get("id")
        if isinstance(mine, str) and isinstance(theirs, str) and mine.startswith(theirs):
            call = {**call, "id": theirs}
        out.append(call)
    return out + got[len(expected):]


def nulls_as_absent(expected: Any, got: Any) -> tuple[Any, Any]:
    """Both sides without the object keys one leaves out and the other sets to null (an SDK
    model dumps every optional field it declares). A null where a value is expected stays."""
    if isinstance(expected, dict) and isinstance(got, dict):
        mine = {k: v for k, v in expected.items() if not (v is None and k not in got)}
        theirs = {k: v for k, v in got.items() if not (v is None and k not in expected)}
        for key in mine.keys() & theirs.keys():
            mine[key], theirs[key] = nulls_as_absent(mine[key], theirs[key])
        return mine, theirs
    if isinstance(expected, list) and isinstance(got, list):
        pairs = [nulls_as_absent(e, g) for e, g in zip(expected, got)]
        size = len(pairs)
        return ([e for e, _ in pairs] + expected[size:], [g for _, g in pairs] + got[size:])
    return expected, got


def without_malformed(value: Any, ids: frozenset) -> Any:
    """`value` without the arguments (`input`, `arguments`) of the calls whose id is in
    `ids`: arguments that are not a JSON object are client.malformed's to judge."""
    if isinstance(value, dict):
        if value.get("id") in ids or value.get("call_id") in ids:
            value = {k: v for k, v in value.items() if k not in ("input", "arguments")}
            if isinstance(value.get("function"), dict):  # OpenAI Chat: function.arguments
                value["function"] = {k: v for k, v in value["function"].items()
                                     if k != "arguments"}
            return value
        return {k: without_malformed(v, ids) for k, v in value.items()}
    if isinstance(value, list):
        return [without_malformed(item, ids) for item in value]
    return value


def without_empties(value: Any) -> Any:
    """`value` with every key whose value is null, `[]` or `""` left out, and every list item
    left empty by that: what tells a difference of representation from one of content."""
    if isinstance(value, dict):
        cleaned = {k: without_empties(v) for k, v in value.items()}
        return {k: v for k, v in cleaned.items() if v not in (None, [], "")}
    if isinstance(value, list):
        return [kept for kept in map(without_empties, value) if kept != {}]
    return value


def only_keys_of(expected: Any, got: Any) -> Any:
    """`got` without the object keys `expected` lacks: what is left once a library's own
    additions (an SDK's `index` on a finished call, `parsed`) are set aside."""
    if isinstance(expected, dict) and isinstance(got, dict):
        return {k: only_keys_of(expected[k], v) for k, v in got.items() if k in expected}
    if isinstance(expected, list) and isinstance(got, list):
        return [only_keys_of(e, g) for e, g in zip(expected, got)] + got[len(expected):]
    return got


def without_call_ids(outcome: dict) -> dict:
    """`outcome` with its calls' ids cleared (a client that invents an id per run)."""
    return {**outcome, "calls": [{**call, "id": None} for call in outcome["calls"]]}


# -- the rules -----------------------------------------------------------------------------
def _quirks_said(observation: dict) -> str:
    names = observation.get("quirks") or []
    return f"quirks: {', '.join(names)}" if names else "quirks: none (the provider's own shape)"


def _unevidenced(observation: dict) -> tuple:
    """The quirks of the observation's stream that no real server is shown to send."""
    return tuple(name for name in observation.get("quirks") or ()
                 if name in QUIRKS and not QUIRKS[name].evidenced)


def _twin(observation: dict) -> dict | None:
    return observation.get("twin_outcome")


def _judged(observation: dict, clause: str, severity: str, reason: str, evidence: str,
            twin_said: str = "") -> Judgment:
    said = f"; {twin_said}" if twin_said else ""
    return Judgment(clause, severity, f"{reason}{said} ({_quirks_said(observation)})", evidence,
                    _unevidenced(observation))


def _evidence_by_twin(observation: dict, agrees: Callable[[dict], bool]) -> tuple[str, str]:
    """The evidence of a failed stream, by the library's own non-streamed answer: `self` when
    it says otherwise, `provider` when it agrees with the stream, `unasked` without one."""
    twin = _twin(observation)
    if twin is None:
        return UNASKED, ""
    if agrees(twin):
        return PROVIDER, ("its own stream=false answer gives the same "
                          f"({_outcome_said(twin)}): a contract choice, not a stream bug")
    return SELF, f"its own stream=false answer gives {_outcome_said(twin)}"


def _outcome_said(outcome: dict) -> str:
    if outcome["error"] is not None:
        return f"the error {show(outcome['error'])}"
    return (f"{len(outcome['calls'])} call(s) {show([c['name'] for c in outcome['calls']])}"
            f", text {show(outcome['text'])}")


#: How each wire's stream says its answer stopped at the token limit (key -> value).
_TOKEN_LIMIT = {"finish_reason": "length", "done_reason": "length", "stop_reason": "max_tokens",
                "stopReason": "max_tokens", "finishReason": "MAX_TOKENS",
                "reason": "max_output_tokens"}
#: An error that speaks of the limit (any other error on such a stream is still a crash).
_ABOUT_THE_LIMIT = re.compile(r"length|max.?tokens|token limit|terminated early|incomplete",
                              re.IGNORECASE)


def stopped_at_token_limit(value: Any) -> bool:
    """Whether a chunk (or anything in it) says the answer stopped at the token limit."""
    if isinstance(value, dict):
        return any((key in _TOKEN_LIMIT and _TOKEN_LIMIT[key] == item)
                   or stopped_at_token_limit(item) for key, item in value.items())
    return isinstance(value, list) and any(stopped_at_token_limit(item) for item in value)


def _completed(observation: dict, clause: str) -> Judgment | None:
    """A stream that ended well must not end in an error. One its provider stopped at the
    token limit did end, and says so itself: a client that raises about that limit there is
    strict (it may mean to), a note. A crash is the library's bug when it reads the same
    answer's whole twin; when it cannot read that either, a contract choice."""
    error = observation["outcome"]["error"]
    if error is None:
        return None
    truth = observation["truth"]
    if truth.get("stopped_at_token_limit") and _ABOUT_THE_LIMIT.search(error):
        evidence, said = _evidence_by_twin(observation, lambda twin: twin["error"] is not None)
        return _judged(observation, clause, STRICTNESS, "the client reported an error on a "
                       "stream that completed (stopped at the token limit, as the stream "
                       f"itself says): {show(error)}", evidence, said)
    evidence, said = _evidence_by_twin(observation, lambda twin: twin["error"] is not None)
    return _judged(observation, clause, CRASH, "the client reported an error on a stream that "
                   f"completed: {show(error)}", evidence, said)


def _malformed_positions(truth: dict) -> frozenset:
    return frozenset(index for index, call in enumerate(truth["calls"]) if call.get("malformed"))


def _outcome_calls(truth: dict) -> list[dict]:
    return [{key: call[key] for key in ("name", "arguments", "id")} for call in truth["calls"]]


def judge_calls(observation: dict) -> Judgment | None:
    truth, outcome = observation["truth"], observation["outcome"]
    bad = _malformed_positions(truth)
    if outcome["error"] is not None and bad:
        return None  # a malformed call reported as an error: client.malformed judges it
    crashed = _completed(observation, "client.calls")
    if crashed:
        return crashed
    expected = _outcome_calls(truth)
    found = outcome_calls_difference(expected, outcome["calls"], bad)
    if found is None:
        return None
    if outcome_calls_difference(expected, ids_cut_back(expected, outcome["calls"]), bad) is None:
        return _judged(observation, "client.calls", FIDELITY, f"the client reported {found}: "
                       "the provider's id kept at its start, with more after it", SELF)
    evidence, said = _evidence_by_twin(
        observation, lambda twin: twin["error"] is None and outcome_calls_difference(
            _calls_keyed(twin["calls"], expected), outcome["calls"], bad) is None)
    return _judged(observation, "client.calls", SILENT_LOSS, f"the client reported {found}",
                   evidence, said)


def _calls_keyed(calls: list[dict], truth: list[dict]) -> list[dict]:
    """The twin's calls as the expected side of a comparison: their own ids, compared only
    where the provider gave one (a library inventing ids invents others each call)."""
    return [{**call, "id": call["id"] if index < len(truth) and truth[index]["id"] is not None
             else None} for index, call in enumerate(calls)]


def judge_text(observation: dict) -> Judgment | None:
    truth, outcome = observation["truth"], observation["outcome"]
    crashed = _completed(observation, "client.text")
    if crashed:
        return crashed
    if outcome["text"] == truth["text"]:
        return None
    evidence, said = _evidence_by_twin(
        observation, lambda twin: twin["error"] is None and twin["text"] == outcome["text"])
    return _judged(observation, "client.text", SILENT_LOSS, "the client reported the text "
                   f"{show(outcome['text'])}, expected {show(truth['text'])}", evidence, said)


def judge_message(observation: dict) -> Judgment | None:
    truth, outcome = observation["truth"], observation["outcome"]
    if outcome["error"] is not None:
        return None  # client.calls and client.text judge an error
    has = outcome["message"] is not None
    exposed = observation.get("exposed_before")
    if exposed is not None and has != exposed:
        said = ("no message here, though it exposed one for an earlier stream" if not has
                else "a message here, though it exposed none for an earlier stream")
        return _judged(observation, "client.message", SILENT_LOSS, f"the client returned "
                       f"{said}: a null message then hides the one it assembled", SELF)
    if not has:
        return None
    ids = frozenset(call["id"] for call in truth["calls"] if call.get("malformed") and call["id"])
    expected, got = (without_malformed(m, ids) for m in (truth["message"], outcome["message"]))
    found = first_difference(*nulls_as_absent(expected, got), json_numbers=True)
    if not found:
        return None
    same = first_difference(without_empties(expected), without_empties(got), json_numbers=True)
    if same and first_difference(without_empties(expected),
                                 without_empties(only_keys_of(expected, got)),
                                 json_numbers=True) is None:
        same = None  # only keys the library adds: a difference of representation

    def agrees(twin: dict) -> bool:
        mine = without_malformed(twin.get("message"), ids)
        return twin["error"] is None and mine is not None and \
            first_difference(*nulls_as_absent(mine, got), json_numbers=True) is None

    evidence, said = _evidence_by_twin(observation, agrees)
    if evidence == SELF and _twin(observation).get("message") is None:
        evidence, said = UNASKED, "its stream=false answer exposes no message to compare"
    return _judged(observation, "client.message", FIDELITY if same is None else SILENT_LOSS,
                   f"the client's message differs from stream=false: {same or found}"
                   + (" (keys it adds, or empty values: representation only)" if same is None
                      else ""), evidence, said)


def judge_byte_cuts(observation: dict) -> Judgment | None:
    in_pieces, at_once = observation["outcome"], observation["whole_outcome"]
    again = observation.get("again_outcome")
    if in_pieces != at_once and again is not None and again != at_once:
        at_once, again, in_pieces = map(without_call_ids, (at_once, again, in_pieces))
        if again != at_once:
            return _judged(observation, "client.byte-cuts", SILENT_LOSS, "the same whole body "
                           "gives two different outcomes (beyond invented call ids): the cuts "
                           "cannot be judged", SELF)
    if in_pieces == at_once:
        return None
    key = next(k for k in ("calls", "text", "error", "message") if in_pieces[k] != at_once[k])
    severity = CRASH if in_pieces["error"] is not None and at_once["error"] is None else SILENT_LOSS
    pieces = len(observation.get("pieces") or ())
    return _judged(observation, "client.byte-cuts", severity, f"cut into {pieces} pieces the "
                   f"body gives {key} {show(in_pieces[key])}; whole, {show(at_once[key])}", SELF)


def judge_no_phantom(observation: dict) -> Judgment | None:
    outcome = observation["outcome"]
    if not outcome["calls"]:
        return None
    evidence, said = _evidence_by_twin(observation, lambda twin: bool(twin["calls"]))
    return _judged(observation, "client.no-phantom", SILENT_LOSS, "the client reported "
                   f"{show(outcome['calls'])} from text {show(observation['truth']['text'])}",
                   evidence, said)


def _surfaced(outcome: dict, wire: str, name: str) -> bool:
    """Whether an outcome reports the malformed call `name`: an error, or the call with its
    raw text as arguments (on Gemini, whose malformed answer holds no call: any call so)."""
    return outcome["error"] is not None or any(
        (wire == "gemini" or call["name"] == name) and isinstance(call["arguments"], str)
        for call in outcome["calls"])


#: The wires whose non-streamed answer can say a call came out malformed: a call's arguments
#: as text (OpenAI Chat, Responses), or Gemini's MALFORMED_FUNCTION_CALL finish. Elsewhere
#: the whole answer holds arguments as an object, so the whole twin the kit serves for a
#: malformed call is no answer a real server is shown to give, and cannot carry evidence.
_TWIN_HOLDS_MALFORMED = frozenset({"openai-chat", "openai-responses", "gemini"})


def judge_malformed(observation: dict) -> Judgment | None:
    outcome, wire = observation["outcome"], observation["wire"]
    bad = observation["truth"]["malformed_call"]
    name, raw = bad["name"], bad["raw"]
    if _surfaced(outcome, wire, name):
        return None
    if wire in _TWIN_HOLDS_MALFORMED:
        evidence, said = _evidence_by_twin(observation,
                                           lambda twin: not _surfaced(twin, wire, name))
    else:
        evidence, said = UNASKED, (f"no {wire} answer with stream=false is shown to hold a "
                                   "call whose arguments are not JSON, so the library's own "
                                   "is no evidence here")
    if wire == "gemini":
        return _judged(observation, "client.malformed", FALSE_SUCCESS, "the answer stopped with "
                       f"finishReason MALFORMED_FUNCTION_CALL ({show(raw)}) and was reported as "
                       f"a success: calls {show(outcome['calls'])}, text "
                       f"{show(outcome['text'])}", evidence, said)
    # Anthropic's malformed calls are cut by max_tokens, which the stream itself reports
    severity = STRICTNESS if wire == "anthropic-messages" else SILENT_LOSS
    named = [call for call in outcome["calls"] if call["name"] == name]
    if not named:
        return _judged(observation, "client.malformed", severity, f"the call {name!r} with "
                       f"arguments {show(raw)} was dropped", evidence, said)
    shown = show([call["arguments"] for call in named])
    return _judged(observation, "client.malformed", severity, f"the call {name!r} with "
                   f"arguments {show(raw)} was reported with arguments {shown}, expected the "
                   "raw string or an error", evidence, said)


def judge_provider_error(observation: dict) -> Judgment | None:
    if observation["outcome"]["error"] is not None:
        return None
    evidence, said = _evidence_by_twin(observation, lambda twin: twin["error"] is None)
    return _judged(observation, "client.provider-error", FALSE_SUCCESS, "the stream ended in "
                   f"the provider error {show(observation['truth']['provider_error'])} but the "
                   "client reported success", evidence, said)


def _as_complete(observation: dict) -> bool:
    """Whether a success on a cut body holds what the complete stream gives."""
    truth, outcome = observation["truth"], observation["outcome"]
    return outcome_calls_difference(_outcome_calls(truth), outcome["calls"]) is None and \
        outcome["text"] == truth["text"]


def _cut_reason(observation: dict, how: str) -> str:
    outcome = observation["outcome"]
    return (f"the body stopped after {observation['size']} bytes, before the end signal ({how}), and "
            f"the client reported success with {len(outcome['calls'])} call(s)"
            + (", the same as the complete stream gives" if _as_complete(observation)
               else ", where the complete stream gives " + _outcome_said(
                   {"error": None, "calls": _outcome_calls(observation["truth"]),
                    "text": observation["truth"]["text"]})))


def judge_truncated(observation: dict) -> Judgment | None:
    """A dropped connection: the transport itself knows the body is unfinished."""
    if observation["outcome"]["error"] is not None:
        return None
    severity = STRICTNESS if _as_complete(observation) else FALSE_SUCCESS
    return _judged(observation, "client.truncated", severity,
                   _cut_reason(observation, "the connection dropped"), WIRE)


def judge_early_end(observation: dict) -> Judgment | None:
    """A body that ends cleanly between two events: whether to check the wire's end signal
    is the client's contract (a note), unless it promises to (a cause note then says so)."""
    if observation["outcome"]["error"] is not None:
        return None
    return _judged(observation, "client.early-end", CONTRACT, "accepts a cleanly cut stream: "
                   + _cut_reason(observation, "the HTTP body ended cleanly between two events"),
                   WIRE)


def judge_partial_event(observation: dict) -> Judgment | None:
    """A body that ends cleanly inside an event (a torn SSE event or line, a partial frame):
    a framing error the client could see, judged apart from a clean cut between events."""
    if observation["outcome"]["error"] is not None:
        return None
    return _judged(observation, "client.partial-event", CONTRACT, "accepts a body that ends "
                   "inside an event: " + _cut_reason(
                       observation, "the HTTP body ended cleanly inside an event"), WIRE)


def judge_http_error(observation: dict) -> Judgment | None:
    outcome = observation["outcome"]
    message = observation["truth"]["provider_message"]
    if outcome["error"] is not None and message in outcome["error"]:
        return None
    if outcome["error"] is not None:
        return _judged(observation, "client.http-error", FIDELITY, f"HTTP "
                       f"{observation['status']} with the message {message!r} gave the error "
                       f"{show(outcome['error'])}", SELF)
    evidence, said = _evidence_by_twin(observation, lambda twin: twin["error"] is None)
    return _judged(observation, "client.http-error", FALSE_SUCCESS, f"HTTP "
                   f"{observation['status']} with the message {message!r} gave success",
                   evidence, said)


JUDGES: dict[str, Callable[[dict], Judgment | None]] = {
    "client.calls": judge_calls, "client.text": judge_text, "client.message": judge_message,
    "client.byte-cuts": judge_byte_cuts, "client.no-phantom": judge_no_phantom,
    "client.malformed": judge_malformed, "client.provider-error": judge_provider_error,
    "client.truncated": judge_truncated, "client.early-end": judge_early_end,
    "client.partial-event": judge_partial_event, "client.http-error": judge_http_error,
}


def judge_observation(clause: str, observation: dict) -> Judgment | None:
    """The judgment of `observation` by client clause `clause`; None when it holds."""
    return JUDGES[clause](observation)
