"""The parser clauses pass the reference parser and catch each deliberately broken one."""
from __future__ import annotations

import json

import pytest

from mcs_reference import format_names
from mcs_conformance.certify import Request, run
from mcs_conformance.clauses import CLAUSES, judge_parser_observation, parser_clauses_judging

BROKEN = "tests.engines.broken_parsers"


def _certify(target: str, format: str, clauses: tuple[str, ...] = ()):
    return run(Request(target=target, kind="parser", format=format, profile="dev", seed=3,
                       clauses=clauses))


@pytest.mark.parametrize("format", format_names())
def test_the_reference_parser_passes_every_parser_clause(format):
    """On every format, in every spelling real models write (a call may open without the
    template's opening token: the reference holds the text from any token that can open
    one, or from the start)."""
    report = _certify("mcs_conformance.engines.reference:parser", format)
    assert [r.clause for r in report.results] == [c for c in CLAUSES if c.startswith("parser.")]
    assert report.certified, [(r.clause, r.reason) for r in report.results if r.bad]


@pytest.mark.parametrize("broken, clause, severity", [
    ("drops_last_fragment", "parser.stream-equals-whole", "silent-loss"),
    ("drops_last_fragment", "parser.truth", "silent-loss"),
    ("swallows_content", "parser.content", "silent-loss"),
    ("json_in_prose_is_a_call", "parser.no-phantom", "false-success"),
    ("drops_malformed", "parser.malformed", "silent-loss"),
    ("raises_while_streaming", "parser.truth", "crash"),
])
def test_a_broken_parser_fails_its_clause(broken, clause, severity):
    report = _certify(f"{BROKEN}:{broken}", "hermes", (clause,))
    [result] = report.results
    assert result.verdict == "failed", result
    assert result.severity == severity
    case = result.counterexample  # saved as JSON: the text, its split, the tools
    assert {"text", "deltas", "tools"} <= set(json.loads(json.dumps(case)))


@pytest.mark.parametrize("format, spelling", [
    ("qwen3-coder", "no-opening-tag"), ("kimi-k2", "no-end-markers"),
    ("harmony", "recipient-in-role")])
def test_a_parser_that_knows_only_the_templates_opening_loses_a_spellings_calls(format,
                                                                                 spelling):
    report = _certify(f"{BROKEN}:opens_only_as_the_template_does", format, ("parser.truth",))
    [result] = report.results
    assert result.verdict == "failed" and result.severity == "silent-loss", result
    assert spelling in result.counterexample["spellings"]


def test_a_parser_without_its_format_is_a_usage_error(capsys):
    from mcs_conformance.cli import main
    assert main(["certify", "--parser", f"{BROKEN}:drops_malformed"]) == 2
    assert "pass --format NAME" in capsys.readouterr().err
    assert main(["certify", "--parser", f"{BROKEN}:drops_malformed", "--format", "kimi-k2"]) == 2
    assert "no parser for the format kimi-k2" in capsys.readouterr().err


@pytest.mark.parametrize("broken, clause", [
    ("drops_last_fragment", "parser.truth"), ("swallows_content", "parser.content"),
    ("json_in_prose_is_a_call", "parser.no-phantom"), ("raises_while_streaming", "parser.truth"),
])
def test_a_saved_observation_is_judged_again_as_it_was_judged(broken, clause):
    """The counterexample is the observation itself (the case and what the parser did);
    judged again from its JSON, with no parser, it gives the same verdict and reason."""
    [result] = _certify(f"{BROKEN}:{broken}", "hermes", (clause,)).results
    saved = json.loads(json.dumps(result.counterexample))
    assert {"text", "deltas", "tools", "calls", "content"} <= set(saved)
    assert "whole" in saved or "parse_error" in saved
    assert judge_parser_observation(clause, saved) == (result.severity, result.reason)


def test_an_observation_is_judged_only_by_the_clauses_of_its_cases():
    observation = {"cases": "prose"}
    assert parser_clauses_judging(observation) == ["parser.no-phantom"]
    with pytest.raises(ValueError, match="parser.truth judges calls cases, not prose ones"):
        judge_parser_observation("parser.truth", observation)
