"""`--mcs-quirks=none|all|NAME,NAME`: which real-server quirks the streams may hold."""
from __future__ import annotations

import json

import pytest

import mcs_reference.errors  # noqa: F401  (see test_plugin_option_mcs_seed.py)

# Fails on any stream holding OpenAI Chat's usage-only chunk; passes on every other.
BROKEN = """
from mcs_reference import OpenAIChatStrategy

class UsageChunkIndexError(OpenAIChatStrategy):
    def accumulate(self, acc, chunk):
        if isinstance(chunk, dict) and isinstance(chunk.get("choices"), list):
            chunk["choices"][0]
        return super().accumulate(acc, chunk)
"""
CHOICELESS = {"usage-only-chunk", "moderation-chunk", "azure-empty-first-chunk"}
RUN = ("--mcs-strategy=usage_index_bug:UsageChunkIndexError", "--mcs-profile=dev", "--mcs-seed=3",
       "--mcs-clause=reassembly.round-trip")


def test_the_header_shows_the_selection(pytester: pytest.Pytester):
    result = pytester.runpytest("--mcs-strategy=mcs_reference:OllamaChatStrategy",
                                "--mcs-quirks=no-call-id, pings", "--collect-only")
    result.stdout.fnmatch_lines(["mcs-conformance: quirks no-call-id,pings (docs/quirks.md)"])
    default = pytester.runpytest("--mcs-strategy=mcs_reference:OllamaChatStrategy",
                                 "--collect-only")
    default.stdout.fnmatch_lines(["mcs-conformance: quirks all (docs/quirks.md)"])


@pytest.mark.parametrize("value", ["no-such-quirk", "pings,nope", ","])
def test_a_bad_value_fails_at_option_parsing_with_one_line(pytester: pytest.Pytester, value):
    result = pytester.runpytest("--mcs-strategy=mcs_reference:OllamaChatStrategy",
                                f"--mcs-quirks={value}")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    errors = [line for line in result.stderr.lines if "--mcs-quirks" in line]
    assert len(errors) == 1, result.stderr.str()
    assert "known quirks: " in errors[0] or "quirk names" in errors[0]


def test_a_failure_names_the_quirks_of_its_counterexample(pytester: pytest.Pytester):
    pytester.makepyfile(usage_index_bug=BROKEN)
    result = pytester.runpytest(*RUN)
    result.assert_outcomes(failed=1)
    out = result.stdout.str()
    quirks = next(line for line in out.splitlines() if line.strip().startswith("quirks:"))
    # the bug reads choices[0]: only the quirks that send a chunk with no choice trip it
    named = set(json.loads(quirks.split("quirks:", 1)[1]))
    assert named & CHOICELESS, quirks
    assert "--mcs-quirks" not in out.split("rerun with:")[1].splitlines()[0]


def test_none_draws_no_quirk_so_a_quirk_only_bug_passes(pytester: pytest.Pytester):
    pytester.makepyfile(usage_index_bug=BROKEN)
    result = pytester.runpytest(*RUN, "--mcs-quirks=none")
    result.assert_outcomes(passed=1)
    named = pytester.runpytest(*RUN, "--mcs-quirks=usage-only-chunk")
    named.assert_outcomes(failed=1)
    named.stdout.fnmatch_lines(["*--mcs-quirks=usage-only-chunk*"])


def test_certify_records_the_quirks_in_the_report(pytester: pytest.Pytester):
    from mcs_conformance.certify import Request, UsageProblem, run, write

    pytester.makepyfile(usage_index_bug=BROKEN)
    pytester.syspathinsert()
    request = Request(target="usage_index_bug:UsageChunkIndexError", profile="dev", seed=3,
                      clauses=("reassembly.round-trip",), quirks="usage-only-chunk")
    report = run(request)
    paths = write(report, pytester.path / "out")
    lines = [json.loads(line) for line in paths["report.jsonl"].read_text().splitlines()]
    assert lines[0]["quirks"] == "usage-only-chunk"
    failed = [line for line in lines if line.get("verdict") in ("failed", "errored")]
    assert failed and "usage-only-chunk" in failed[0]["counterexample"]["quirks"]
    summary = paths["summary.md"].read_text()
    assert "quirks `usage-only-chunk`" in summary
    assert "Quirks in the counterexample: " in summary and "`usage-only-chunk`" in summary
    with pytest.raises(UsageProblem, match="known quirks"):
        run(Request(target="usage_index_bug:UsageChunkIndexError", quirks="nope"))
