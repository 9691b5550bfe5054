"""A second oracle, written by someone else: llama.cpp's chat-format parser tests, replayed.

tests/oracles/llama-cpp/ holds the expected non-streamed results of llama.cpp's
tests/test-chat.cpp for the catalogue's formats (README there). Every case must agree with
the reference codec, compared as llama.cpp's own test compares, or carry its recorded
difference: what the codec gives instead and why the contracts differ on purpose. A
difference the codec no longer shows fails too, so the record cannot go stale.
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from mcs_reference import format_codec, format_names

CORPUS = Path(__file__).resolve().parents[1] / "oracles" / "llama-cpp"
FILES = sorted(CORPUS.glob("*.json"))
FIELDS = ("content", "reasoning", "calls")


def _load(path: Path) -> dict:
    return json.loads(path.read_text("utf-8"))


CASES = [pytest.param(data["format"], case, id=f"{data['format']}:{case['id']}")
         for data in map(_load, FILES) for case in data["cases"]]


def _ours(format: str, text: str) -> dict:
    """What the reference codec reads in `text`, in the corpus's terms."""
    codec = format_codec(format)
    calls = []
    for call in codec.decode(text):
        found = {"name": call.name, "arguments": call.arguments}
        if call.id:
            found["id"] = call.id
        if call.error:
            found.update(error=call.error, raw_arguments=call.raw_arguments)
        calls.append(found)
    reasoning = codec.reasoning(text) if hasattr(codec, "reasoning") else ""
    return {"content": codec.content(text).strip(), "reasoning": reasoning.strip(),
            "calls": calls}


def _as_llama_cpp_compares(field: str, value: object, ids: list) -> object:
    """`value` as llama.cpp's test compares it: text stripped; calls by name, arguments as
    JSON values, the id only where llama.cpp expects one (`ids`, per call), errors kept."""
    if field != "calls":
        return value.strip()
    return [{"name": call["name"], "arguments": json.dumps(call["arguments"], sort_keys=True),
             "id": call.get("id") if index < len(ids) and ids[index] else None,
             "error": call.get("error")} for index, call in enumerate(value)]


@pytest.mark.parametrize("format, case", CASES)
def test_each_case_agrees_or_carries_its_reasoned_difference(format, case):
    _check(format, case)


def _check(format: str, case: dict) -> None:
    ours = _ours(format, case["input"])
    ids = [call.get("id") for call in case["expected"]["calls"]]
    recorded = {difference["field"]: difference for difference in case.get("differences", [])}
    for field in FIELDS:
        mine = _as_llama_cpp_compares(field, ours[field], ids)
        theirs = _as_llama_cpp_compares(field, case["expected"][field], ids)
        if field not in recorded:
            assert mine == theirs, f"{field}: the codec gives {ours[field]!r}"
            continue
        assert len(recorded[field]["reason"]) > 40, "a difference says why"
        assert ours[field] == recorded[field]["ours"], (
            f"{field}: the codec now gives {ours[field]!r}, not the recorded difference")
        assert mine != theirs, f"{field}: stale difference, the codec agrees now"


def test_the_corpus_names_its_source_and_covers_the_formats_llama_cpp_tests():
    files = [_load(path) for path in FILES]
    assert {data["format"] for data in files} <= set(format_names())
    assert len({data["format"] for data in files}) == 11
    for data in files:
        assert data["source"]["commit"] == "0042e2079d3428ba7af410df553202aa7fdf8d7a"
        assert data["source"]["file"] == "tests/test-chat.cpp"
        for case in data["cases"]:
            assert case["template"].startswith("models/templates/") and case["read_at"]
    cases = [case for data in files for case in data["cases"]]
    assert len({case["id"] for case in cases}) == len(cases) >= 140


def test_a_case_the_codec_disagrees_with_or_a_stale_difference_fails():
    case = {"input": '<tool_call>\n{"name": "f", "arguments": {"a": 1}}\n</tool_call>',
            "expected": {"content": "", "reasoning": "", "calls": [{"name": "f",
                                                                  "arguments": {"a": 1}}]}}
    _check("hermes", case)
    wrong = {**case, "expected": {**case["expected"], "calls": [{"name": "f",
                                                                 "arguments": {"a": 1.5}}]}}
    with pytest.raises(AssertionError, match="calls"):
        _check("hermes", wrong)
    stale = {**case, "differences": [{"field": "calls", "ours": _ours("hermes", case["input"])[
        "calls"], "reason": "a reason long enough to pass the check of its length, but stale"}]}
    with pytest.raises(AssertionError, match="stale"):
        _check("hermes", stale)
