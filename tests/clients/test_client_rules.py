"""The client rules as pure functions of an observation: how a failure is known (its
evidence) decides whether it is a bug or a note, and a shape no real server is shown to
send makes any failure a note."""
from __future__ import annotations

from mcs_conformance.clauses import judge_observation
from mcs_conformance.clauses._client_rules import stopped_at_token_limit

CALL = {"name": "get_weather", "arguments": {"city": "Paris"}, "id": "call_1"}
TRUTH = {"calls": [{**CALL, "malformed": False}], "text": "", "message": None,
         "stopped_at_token_limit": False, "provider_error": None}
LOST = {"calls": [], "text": "", "message": None, "error": None}
RIGHT = {"calls": [CALL], "text": "", "message": None, "error": None}


def observed(outcome: dict, twin: dict | None = None, quirks=()) -> dict:
    observation = {"wire": "openai-chat", "status": 200, "complete": True, "quirks": list(quirks),
                   "size": 10, "pieces": ["x"], "truth": TRUTH, "outcome": outcome}
    if twin is not None:
        observation["twin_outcome"] = twin
    return observation


def test_a_stream_that_differs_from_its_own_stream_false_answer_is_a_bug():
    judged = judge_observation("client.calls", observed(LOST, twin=RIGHT))
    assert (judged.severity, judged.evidence, judged.is_note) == ("silent-loss", "self", False)
    assert "its own stream=false answer gives 1 call(s)" in judged.reason


def test_a_stream_that_agrees_with_its_own_stream_false_answer_is_a_note():
    judged = judge_observation("client.calls", observed(LOST, twin=LOST))
    assert (judged.severity, judged.evidence, judged.is_note) == ("silent-loss", "provider", True)
    assert "a contract choice, not a stream bug" in judged.reason


def test_without_a_stream_false_answer_the_failure_stays_one():
    judged = judge_observation("client.calls", observed(LOST))
    assert (judged.evidence, judged.is_note) == ("unasked", False)


def test_a_crash_is_a_bug_only_where_the_whole_twin_is_read():
    crashed = {**LOST, "error": "TypeError: boom"}
    assert judge_observation("client.calls", observed(crashed, twin=RIGHT)).evidence == "self"
    both = judge_observation("client.calls", observed(crashed, twin=crashed))
    assert (both.severity, both.evidence, both.is_note) == ("crash", "provider", True)


def test_a_shape_no_server_is_shown_to_send_makes_a_note():
    judged = judge_observation("client.calls", observed(LOST, twin=RIGHT,
                                                        quirks=["interleaved-calls", "no-index"]))
    assert judged.unevidenced == ("interleaved-calls",) and judged.is_note
    assert not judge_observation("client.calls", observed(LOST, twin=RIGHT,
                                                          quirks=["no-index"])).is_note


def test_a_clean_cut_accepted_is_a_contract_note_and_a_drop_is_not():
    cut = {**observed(LOST), "truth": {**TRUTH}}
    early = judge_observation("client.early-end", cut)
    assert (early.severity, early.evidence, early.is_note) == ("contract", "wire", True)
    dropped = judge_observation("client.truncated", {**cut, "complete": False})
    assert (dropped.severity, dropped.is_note) == ("false-success", False)


def test_a_lost_id_the_library_also_loses_unstreamed_agrees_with_itself():
    """The twin is compared by its own ids: a library that drops the provider's id both ways
    agrees with itself (a note); one that keeps it only unstreamed disagrees (a bug)."""
    no_id = {**RIGHT, "calls": [{**CALL, "id": None}]}
    both = judge_observation("client.calls", observed(no_id, twin=no_id))
    assert (both.evidence, both.is_note) == ("provider", True)
    only_streamed = judge_observation("client.calls", observed(no_id, twin=RIGHT))
    assert (only_streamed.evidence, only_streamed.is_note) == ("self", False)


def test_only_a_stop_at_the_limit_reads_as_one():
    from_openai = {"choices": [{"delta": {}, "finish_reason": "length"}]}
    assert stopped_at_token_limit(from_openai)
    assert stopped_at_token_limit({"stop_reason": "max_tokens"})
    # an absent or null field is no stop at the limit (it read as one: None == .get(key))
    assert not stopped_at_token_limit({"choices": [{"delta": {"content": None}, "logprobs": None}]})
    assert not stopped_at_token_limit({"finish_reason": "stop", "usage": None})


def test_a_malformed_call_is_judged_by_the_twin_only_where_a_real_whole_answer_can_hold_one():
    truth = {**TRUTH, "calls": [{**CALL, "arguments": '{"city": ', "malformed": True}],
             "malformed_call": {"name": "get_weather", "raw": '{"city": '}}
    emptied = {**RIGHT, "calls": [{**CALL, "arguments": {}}]}
    kept = {**RIGHT, "calls": [{**CALL, "arguments": '{"city": '}]}
    for wire, evidence in (("openai-chat", "self"), ("bedrock-converse", "unasked"),
                           ("ollama-chat", "unasked")):
        observation = {**observed(emptied, twin=kept), "wire": wire, "truth": truth}
        judged = judge_observation("client.malformed", observation)
        assert judged.evidence == evidence, (wire, judged)
