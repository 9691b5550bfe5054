"""The quirk registry, and every wire drawing only the quirks it is allowed, tagged."""
from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis.errors import InvalidArgument

from mcs_conformance.wires import get_wire
from mcs_conformance.wires import BODY, QUIRKS, allowed_quirks, parse_quirks, quirk_names

DOCS = Path(__file__).resolve().parents[2] / "docs" / "quirks.md"
SOME = settings(max_examples=60, deadline=None, database=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
MINE = ("openai-chat", "ollama-chat")


def test_every_quirk_has_a_wire_a_description_and_servers():
    wires = {"openai-chat", "anthropic-messages", "openai-responses", "ollama-chat", "gemini", "bedrock-converse", BODY}
    for name, quirk in QUIRKS.items():
        assert quirk.name == name and quirk.wire in wires, quirk
        assert quirk.description and quirk.servers, quirk


def test_docs_name_every_quirk_with_its_wire_and_servers():
    text = DOCS.read_text("utf-8")
    for quirk in QUIRKS.values():
        row = next((line for line in text.splitlines() if line.startswith(f"| `{quirk.name}` |")),
                   None)
        assert row is not None, f"docs/quirks.md has no row for {quirk.name}"
        assert f"`{quirk.wire}`" in row and all(server in row for server in quirk.servers), row


def test_selection_parses_and_refuses_unknown_names():
    assert parse_quirks("all") is None and parse_quirks("none") == frozenset()
    assert parse_quirks("pings, no-index") == {"pings", "no-index"}
    with pytest.raises(ValueError, match="known quirks: .*no-index"):
        parse_quirks("no-index,nope")
    assert allowed_quirks("openai-chat", None) == quirk_names("openai-chat")
    assert allowed_quirks("openai-chat", {"pings", "no-index"}) == {"no-index"}
    with pytest.raises(InvalidArgument, match="unknown quirk.*nope.*known quirks"):
        allowed_quirks("openai-chat", {"nope"})


@pytest.mark.parametrize("name", MINE)
def test_an_unknown_quirk_fails_the_generator(name):
    with pytest.raises(InvalidArgument, match="nope"):
        get_wire(name).cases(quirks={"nope"}).example()


@pytest.mark.parametrize("name", MINE)
def test_none_draws_no_quirk(name):
    @SOME
    @given(get_wire(name).cases(quirks=frozenset()))
    def check(case):
        assert case.quirks == frozenset()

    check()


@pytest.mark.parametrize("name", MINE)
def test_a_named_set_draws_only_those(name):
    chosen = sorted(quirk_names(name))[::2]
    seen = set()

    @SOME
    @given(get_wire(name).cases(quirks=frozenset(chosen)))
    def check(case):
        assert case.quirks <= set(chosen)
        seen.update(case.quirks)

    check()
    assert seen  # the chosen ones are drawn, not just allowed


@pytest.mark.parametrize("name", MINE)
def test_every_quirk_of_the_wire_is_drawn_by_default(name, drawn_over_seeds):
    expected = set(quirk_names(name))
    seen = drawn_over_seeds(get_wire(name).cases(), lambda case: case.quirks, expected,
                            examples=500)
    assert expected - seen == set()


@pytest.mark.parametrize("name", MINE)
def test_error_cases_end_in_the_providers_error(name):
    @SOME
    @given(get_wire(name).cases(errors=True))
    def check(case):
        assert case.error is not None and case.error_at == len(case.chunks) - 1 or (
            name == "openai-chat" and case.error_at is not None)
        assert "error" in case.chunks[case.error_at]
        assert all("error" not in chunk for chunk in case.chunks[: case.error_at])

    check()
