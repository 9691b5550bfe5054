"""`--mcs-parser=PKG:FACTORY --mcs-format=NAME`: an engine's tool parser under pytest."""
from __future__ import annotations

import pytest

import mcs_reference.errors  # noqa: F401  (imported before pytester snapshots sys.modules)

REFERENCE = "--mcs-parser=mcs_conformance.engines.reference:parser"


def test_the_parser_clauses_run_as_items_of_the_parser(pytester: pytest.Pytester):
    result = pytester.runpytest_inprocess(REFERENCE, "--mcs-format=kimi-k2",
                                          "--mcs-clause=parser.truth", "--mcs-profile=dev", "-v")
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(["*mcs[[]mcs_conformance.engines.reference:parser[]]::parser.truth PASSED*"])


def test_a_broken_parser_fails_with_its_rerun_command(pytester: pytest.Pytester):
    pytester.syspathinsert(str(pytester.path))
    pytester.makepyfile(lossy='''
        from mcs_conformance.engines.reference import ReferenceParser

        class Lossy(ReferenceParser):
            def stream(self, deltas, tools):
                return [d for d in super().stream(deltas, tools) if "tool_calls" not in d]

        def parser(format):
            return Lossy(format)
    ''')
    result = pytester.runpytest_inprocess("--mcs-parser=lossy:parser", "--mcs-format=hermes",
                                          "--mcs-clause=parser.truth", "--mcs-profile=dev",
                                          "--mcs-seed=0")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*--mcs-parser=lossy:parser --mcs-format=hermes*"])


@pytest.mark.parametrize("options, problem", [
    ([REFERENCE], "*--mcs-parser=mcs_conformance.engines.reference:parser: a parser is "
                  "certified on one format; pass --mcs-format=NAME*"),
    (["--mcs-format=hermes"], "*--mcs-format=hermes: a format is what a parser is certified on*"),
    ([REFERENCE, "--mcs-format=nope"], "*--mcs-format=nope: unknown format; known formats: json, hermes,*"),
    (["--mcs-parser=no_such_module:parser", "--mcs-format=hermes"],
     "*no_such_module:parser: cannot import module 'no_such_module'*"),
    ([REFERENCE, "--mcs-format=hermes", "--mcs-clause=reassembly.done"],
     "*--mcs-clause=reassembly.done: selects no parser clause*"),
    ([REFERENCE, "--mcs-format=hermes", "--mcs-server=vllm"],
     "*--mcs-server=vllm: a parser is fed model outputs, not a server's streams*"),
    ([REFERENCE, "--mcs-format=hermes", "--mcs-quirks=none"],
     "*--mcs-quirks=none: a parser is fed model outputs, not a server's streams*"),
])
def test_a_bad_parser_option_is_one_usage_error(pytester: pytest.Pytester, options, problem):
    result = pytester.runpytest_inprocess(*options)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([problem])
    assert "Traceback" not in result.stderr.str()
