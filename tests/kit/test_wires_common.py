"""What every wire promises, whatever its format."""
from __future__ import annotations

import copy

import pytest
from hypothesis import HealthCheck, given, settings

from mcs_reference import LLMStreamBuffer, ToolCallRecord
from mcs_conformance.base import schema
from mcs_conformance.wires import NATIVE_WIRES, get_wire, reference_strategy, wire_names

SOME = settings(max_examples=40, deadline=None, database=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


def _scramble(value):
    """Change every dict and list inside `value`, in place."""
    if isinstance(value, dict):
        for key in list(value):
            _scramble(value[key])
        value["scrambled"] = True
    elif isinstance(value, list):
        for item in value:
            _scramble(item)
        value.append("scrambled")


@pytest.mark.parametrize("name", wire_names())
def test_chunks_share_nothing_with_the_message(name):
    """A strategy may keep and change what it is fed; the truth of the case must not move."""

    @SOME
    @given(get_wire(name).cases())
    def check(case):
        before = copy.deepcopy((case.message, case.response))
        for chunk in case.chunks:
            _scramble(chunk)
        assert (case.message, case.response) == before

    check()


MANY = settings(SOME, max_examples=100)


@pytest.mark.parametrize("name", NATIVE_WIRES)
def test_the_reference_reassembles_every_case(name):
    """The reference strategy of each native wire rebuilds every case exactly: the message
    (and the whole stream=false body where the wire has one), the text shown, the calls,
    done from the terminal chunk on (a stream with none, Snowflake's, is done by its body's
    `[DONE]`, which is no chunk)."""
    strategy = reference_strategy(name)

    @MANY
    @given(get_wire(name).cases())
    def check(case):
        buffer = LLMStreamBuffer([strategy])
        shown = []
        for index, chunk in enumerate(copy.deepcopy(case.chunks)):
            shown.append(buffer.add(chunk))
            assert buffer.is_done() == (index >= case.done_at)  # past the end: [DONE] says it
        assert buffer.as_dict() == case.message
        if case.response is not None:
            assert buffer.response() == case.response
        assert "".join(shown) == case.text
        assert strategy.extract(buffer.as_dict()) == case.calls

    check()


@pytest.mark.parametrize("name", NATIVE_WIRES)
def test_the_reference_history_fits_the_request_schema(name):
    strategy, wire = reference_strategy(name), get_wire(name)

    @SOME
    @given(wire.cases(min_calls=1))
    def check(case):
        records = [ToolCallRecord(c.name, c.arguments, result={"ok": True}, tool_call_id=c.id)
                   for c in case.calls]
        for message in strategy.result_messages(case.message, records):
            assert schema.errors(message, wire.request_schema) == [], message

    check()
