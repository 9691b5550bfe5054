"""Server profiles (`--mcs-server`, `certify --server`): one real server's quirks, each drawn
often, no other; the reference passes on every one; bad values are one line."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, HealthCheck, settings

from mcs_conformance.certify import Report, Request, run
from mcs_conformance.cli import main
from mcs_conformance.clients._cases import streams
from mcs_conformance.wires import (BODY, BODY_QUIRKS_OF, OftenQuirks, QUIRKS, SERVER_PROFILES,
                                   get_wire, reference_strategy, without_quirks)
from mcs_conformance.wires._profiles import misplaced_quirks

REFERENCE = {wire: f"mcs_reference:{type(reference_strategy(wire)).__name__}"
             for wire in {profile.wire for profile in SERVER_PROFILES.values()}}
DOCS = Path(__file__).resolve().parents[2] / "docs" / "quirks.md"
CLIENT = "mcs_conformance.clients.reference_client:reference_client"
# The clause that checks the whole message of every drawn case: enough to show the
# reference passes each profile's streams, quick enough to run on every profile.
DRAWING = ("reassembly.round-trip",)


def test_every_quirk_is_in_some_profile():
    covered = set().union(*(profile.quirks for profile in SERVER_PROFILES.values()))
    assert set(QUIRKS) - covered == set()


@pytest.mark.parametrize("name", SERVER_PROFILES)
def test_each_profile_holds_only_quirks_its_wire_servers_send(name):
    profile = SERVER_PROFILES[name]
    assert profile.name == name and profile.quirks and profile.description
    assert misplaced_quirks(profile) == []
    for quirk in profile.quirks:
        wire = QUIRKS[quirk].wire
        assert wire == profile.wire or (wire == BODY and quirk in BODY_QUIRKS_OF[profile.wire])


def test_the_docs_list_every_profile_with_its_wire_and_quirks():
    rows = [line for line in DOCS.read_text("utf-8").splitlines() if line.startswith("| `")]
    for profile in SERVER_PROFILES.values():
        row = next((r for r in rows if r.startswith(f"| `{profile.name}` | `{profile.wire}` |")),
                   None)
        assert row is not None, f"docs/quirks.md has no row for the profile {profile.name}"
        listed = {name.strip(" `") for name in row.split("|")[3].split(",")}
        assert listed == profile.quirks, row


def test_a_profile_on_another_wire_is_refused_by_the_check():
    wrong = SERVER_PROFILES["vllm"].__class__("odd", "anthropic-messages",
                                              frozenset({"no-index", "sse-comments"}), "")
    assert misplaced_quirks(wrong) == ["no-index", "sse-comments"]


def _seen(profile_name: str, examples: int = 60) -> dict:
    """How many of `examples` served streams hold each quirk (wire and body ones)."""
    profile, seen = SERVER_PROFILES[profile_name], {}

    @settings(max_examples=examples, derandomize=True, database=None, deadline=None,
              suppress_health_check=list(HealthCheck))
    @given(streams(profile.wire, profile.selection, cut=False))
    def draw(served):
        for quirk in served.quirks:
            seen[quirk] = seen.get(quirk, 0) + 1

    draw()
    return seen


@pytest.mark.parametrize("name", SERVER_PROFILES)
def test_each_quirk_of_a_profile_comes_out_and_no_other(name):
    seen = _seen(name)
    assert set(seen) == SERVER_PROFILES[name].quirks, seen


def test_a_profile_draws_its_quirks_far_more_often_than_all_quirks_do():
    profile, often = SERVER_PROFILES["snowflake-cortex"], _seen("snowflake-cortex")
    assert min(often.values()) >= 20  # of 60: 7 in 8 where it applies
    plain = {}

    @settings(max_examples=60, derandomize=True, database=None, deadline=None,
              suppress_health_check=list(HealthCheck))
    @given(streams(profile.wire, None, cut=False))
    def draw(served):
        for quirk in served.quirks & profile.quirks:
            plain[quirk] = plain.get(quirk, 0) + 1

    draw()
    assert sum(plain.values()) < sum(often.values()) / 2, plain


def test_without_quirks_keeps_the_often_drawing():
    selection = SERVER_PROFILES["openai"].selection
    narrowed = without_quirks(selection, {"n-choices"})
    assert isinstance(narrowed, OftenQuirks)
    assert narrowed == OftenQuirks({"usage-only-chunk", "moderation-chunk"})
    assert narrowed != frozenset(narrowed)  # it draws differently from a plain selection
    assert without_quirks(None, {"pings"}) == frozenset(QUIRKS) - {"pings"}
    assert without_quirks(frozenset({"pings", "no-index"}), ["pings"]) == frozenset({"no-index"})
    with pytest.raises(TypeError, match="the string 'pings'"):
        without_quirks(selection, "pings")


def test_a_narrowed_profile_never_draws_what_was_left_out():
    narrowed = without_quirks(SERVER_PROFILES["openai"].selection, {"n-choices"})
    seen = set()

    @settings(max_examples=30, derandomize=True, database=None, deadline=None,
              suppress_health_check=list(HealthCheck))
    @given(get_wire("openai-chat").cases(quirks=narrowed))
    def draw(case):
        seen.update(case.quirks)

    draw()
    assert seen == {"usage-only-chunk", "moderation-chunk"}


@pytest.mark.parametrize("name", SERVER_PROFILES)
def test_the_reference_strategy_passes_every_profile(name):
    profile = SERVER_PROFILES[name]
    report = run(Request(target=REFERENCE[profile.wire], profile="dev", seed=0,
                         clauses=DRAWING, server=name))
    assert report.certified, [(r.clause, r.reason) for r in report.results if r.bad]
    assert report.header.server == name
    assert report.header.quirks == ",".join(sorted(profile.quirks))
    assert all(r.examples for r in report.results if r.verdict == "passed")


@pytest.mark.parametrize("name", ["mistral", "bedrock-responses", "anthropic", "ollama-older"])
def test_the_reference_client_passes_profiles_of_each_wire(name):
    wire = SERVER_PROFILES[name].wire
    report = run(Request(target=CLIENT, kind="client", wire=wire, profile="dev", seed=0,
                         clauses=("client.calls",), server=name))
    assert report.certified, [(r.clause, r.reason) for r in report.results if r.bad]
    assert report.header.server == name


@pytest.fixture
def groq_bug(pytester: pytest.Pytester):
    """A strategy that fails on every stream holding Groq's `x_groq` object, and only there."""
    pytester.makepyfile(groq_bug="""
from mcs_reference import OpenAIChatStrategy

class FailsOnXGroq(OpenAIChatStrategy):
    def accumulate(self, acc, chunk):
        if isinstance(chunk, dict) and "x_groq" in chunk:
            raise ValueError("x_groq")
        return super().accumulate(acc, chunk)
""")
    pytester.syspathinsert()
    return pytester


def test_a_failure_under_a_profile_reruns_with_it(groq_bug):
    report = run(Request(target="groq_bug:FailsOnXGroq", profile="dev", seed=0,
                         clauses=("reassembly.round-trip",), server="groq"))
    failed = [r for r in report.results if r.bad]
    assert failed, "a bug on Groq's x_groq must show under the groq profile"
    assert "--mcs-server=groq" in failed[0].reproduce
    assert "--mcs-quirks" not in failed[0].reproduce
    lines = report.serialized()
    assert lines[0]["server"] == "groq"
    plugin = groq_bug.runpytest("--mcs-strategy=groq_bug:FailsOnXGroq", "--mcs-server=groq",
                             "--mcs-profile=dev", "--mcs-seed=0",
                             "--mcs-clause=reassembly.round-trip")
    plugin.assert_outcomes(failed=1)
    plugin.stdout.fnmatch_lines([
        "mcs-conformance: server groq, quirks usage-on-finish-chunk,whole-call-one-delta,"
        "x-groq-usage, each drawn often (docs/quirks.md)",
        "*rerun with: pytest --mcs-strategy=groq_bug:FailsOnXGroq*--mcs-server=groq*"])


def _one_error_line(result, option: str) -> str:
    lines = [line for line in (result.stderr.lines + result.stdout.lines) if option in line]
    assert result.ret == pytest.ExitCode.USAGE_ERROR and len(lines) == 1, result.stderr.str()
    return lines[0]


def test_an_unknown_profile_fails_at_option_parsing(pytester: pytest.Pytester):
    result = pytester.runpytest("--mcs-strategy=mcs_reference:OpenAIChatStrategy",
                                "--mcs-server=vllm-nope")
    line = _one_error_line(result, "--mcs-server")
    assert "unknown server profile 'vllm-nope'; known profiles: openai, " in line


def test_a_profile_of_another_wire_is_one_line(pytester: pytest.Pytester):
    result = pytester.runpytest("--mcs-strategy=mcs_reference:OpenAIChatStrategy",
                                "--mcs-server=anthropic")
    line = _one_error_line(result, "--mcs-server")
    assert ("a server of wire anthropic-messages, but mcs_reference:OpenAIChatStrategy is "
            "served on wire openai-chat; profiles of openai-chat: openai, ") in line


def test_a_profile_beside_a_quirk_selection_is_one_line(pytester: pytest.Pytester):
    result = pytester.runpytest("--mcs-strategy=mcs_reference:OpenAIChatStrategy",
                                "--mcs-server=vllm", "--mcs-quirks=none")
    line = _one_error_line(result, "--mcs-server")
    assert "the profile chooses the quirks; drop --mcs-quirks=none" in line


@pytest.mark.parametrize("args, says", [
    (["mcs_reference:OpenAIChatStrategy", "--server", "nope"],
     "--server nope: unknown server profile 'nope'; known profiles: "),
    (["--client", CLIENT, "--wire", "ollama-chat", "--server", "vllm"],
     "--server vllm: a server of wire openai-chat, but " + CLIENT + " is served on wire "
     "ollama-chat; profiles of ollama-chat: ollama-older, ollama-chat-spec-edges"),
    (["mcs_reference:OpenAIChatStrategy", "--server", "vllm", "--quirks", "no-index"],
     "--server vllm: the profile chooses the quirks; drop --quirks no-index"),
])
def test_certify_refuses_bad_server_values_in_one_line(tmp_path, capsys, args, says):
    assert main(["certify", *args, "--out", str(tmp_path / "never")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and says in err[0], err
    assert not (tmp_path / "never").exists()


def test_the_report_header_round_trips_the_profile(tmp_path):
    report = run(Request(target=REFERENCE["ollama-chat"], profile="dev", seed=0,
                         clauses=("reassembly.done",), server="ollama-older"))
    text = "".join(json.dumps(line) + "\n" for line in report.serialized())
    assert json.loads(text.splitlines()[0])["server"] == "ollama-older"
    assert Report.from_jsonl(text).header.server == "ollama-older"
