"""Every JSON Schema the package ships is a valid Draft 2020-12 schema, and inlining its
local references changes no verdict (mcs_conformance/schema.py checks neither at run time)."""
from __future__ import annotations

import json
from importlib import resources

import pytest
from jsonschema import Draft202012Validator
from jsonschema.exceptions import SchemaError

from mcs_conformance.base import schema

SHIPPED = sorted(
    path.name for path in resources.files("mcs_conformance").joinpath("schemas").iterdir()
    if path.name.endswith(".json")
)


def test_the_package_ships_the_wire_schemas():
    assert {"openai-chat.chunk.json", "anthropic-messages.request.json", "report.json"} <= set(SHIPPED)


@pytest.mark.parametrize("name", SHIPPED)
def test_each_shipped_schema_is_a_valid_draft_2020_12_schema(name):
    Draft202012Validator.check_schema(schema.load(name))


def test_a_broken_schema_is_refused_by_the_metaschema_check():
    with pytest.raises(SchemaError):
        Draft202012Validator.check_schema({"type": "objekt"})


def _messages(errors) -> list[str]:
    """Every error's message with those of the branches it sums up (oneOf, anyOf)."""
    out = []
    for error in errors:
        out += [error.message, *_messages(error.context)]
    return sorted(out)


def test_inlined_references_give_the_same_errors_as_the_references():
    name = "openai-chat.request.json"
    plain = Draft202012Validator(schema.load(name))
    bad = [
        {"role": "assistant", "content": None},
        {"role": "assistant", "tool_calls": [{"id": "c", "type": "function",
                                              "function": {"name": "f", "arguments": {}}}]},
        {"role": "tool", "content": "ok"},
        {"role": "user", "content": [{"type": "image"}]},
        {"role": "assistant", "content": "x", "extra": 1},
        {"role": "wizard", "content": "hi"},
    ]
    for message in bad:
        expected = _messages(plain.iter_errors(message))
        got = _messages(schema.validator(name).iter_errors(message))
        assert expected and got == expected, json.dumps(message)
    good = {"role": "assistant", "content": "hi"}
    assert not list(schema.validator(name).iter_errors(good))
