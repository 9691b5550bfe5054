"""`--mcs-wire=NAME|pkg:Obj`: the wire that generates a strategy's streams."""
from __future__ import annotations

import pytest

# Imported before pytester snapshots sys.modules: a module first imported inside an
# in-process run is dropped after it, and the next run's fresh StreamError would not be
# the one `mcs_reference.StreamError` kept (robust.bad-input would then fail).
import mcs_reference.errors  # noqa: F401

FAST = "--mcs-clause=reassembly.done"
# A third party's own native format: Ollama bodies inside an {"acme": ...} envelope, with
# its strategy (duck-typed, no subclassing) and the wire that generates its streams.
ACME = '''
from dataclasses import replace

from mcs_conformance.wires import Wire, get_wire
from mcs_reference import MalformedChunk, OllamaChatStrategy


def wrap(value):
    return {"acme": value}


def unwrap(shape):
    if not (isinstance(shape, dict) and set(shape) == {"acme"}):
        raise MalformedChunk(f"not an acme envelope: {type(shape).__name__}",
                             expected='{"acme": ...}')
    return shape["acme"]


class AcmeStrategy:
    name = "acme-chat"
    leaks_into_text = False

    def __init__(self):
        self.inner = OllamaChatStrategy()

    def recognizes(self, shape):
        return (isinstance(shape, dict) and set(shape) == {"acme"}
                and self.inner.recognizes(shape["acme"]))

    def new_accumulator(self):
        return self.inner.new_accumulator()

    def accumulate(self, acc, chunk):
        return self.inner.accumulate(acc, unwrap(chunk))

    def as_message(self, acc):
        return wrap(self.inner.as_message(acc))

    def is_done(self, chunk):
        return isinstance(chunk, dict) and self.inner.is_done(chunk.get("acme"))

    def extract(self, message):
        return self.inner.extract(unwrap(message))

    def content_text(self, message):
        return self.inner.content_text(unwrap(message))

    def forming_name(self, message):
        return self.inner.forming_name(unwrap(message))

    def result_messages(self, message, records):
        return self.inner.result_messages(unwrap(message), records)


_OLLAMA = get_wire("ollama-chat")


def _case(case):
    response = None if case.response is None else wrap(case.response)
    return replace(case, wire="acme-chat", message=wrap(case.message),
                   chunks=[wrap(chunk) for chunk in case.chunks], response=response)


WIRE = Wire(
    name="acme-chat",
    strategy_names=frozenset({"acme-chat"}),
    messages=lambda **options: _OLLAMA.messages(**options).map(wrap),
    cases=lambda **options: _OLLAMA.cases(**options).map(_case),
    chunk_schema="", message_schema="", request_schema="",
)
'''
ACME_CLAUSES = ("reassembly.round-trip", "reassembly.done", "resolve.own-wire", "resolve.foreign",
                "extract.calls", "robust.bad-input")


@pytest.fixture
def acme(pytester: pytest.Pytester) -> pytest.Pytester:
    pytester.makepyfile(acme=ACME)
    return pytester


def verdicts(result: pytest.RunResult) -> dict[str, str]:
    return {dict(r.user_properties)["mcs_clause"]: r.outcome
            for r in result.reprec.getreports("pytest_runtest_logreport")
            if r.when == "call" and "mcs_clause" in dict(r.user_properties)}


@pytest.mark.parametrize("wire", [
    "ollama-chat",  # a built-in wire by name
    "mcs_conformance.wires.ollama_chat:make_wire",  # pkg:Obj, a factory of a Wire
])
def test_wire_for_a_builtin_strategy(pytester: pytest.Pytester, wire: str):
    result = pytester.runpytest("--mcs-strategy=mcs_reference:OllamaChatStrategy",
                                f"--mcs-wire={wire}", FAST)

    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines([
        f"mcs-conformance: rerun with: pytest --mcs-strategy=mcs_reference:OllamaChatStrategy "
        f"--mcs-wire={wire} --mcs-clause=* --mcs-profile=dev --mcs-seed=*"])


def test_the_wire_decides_what_the_strategy_is_fed(pytester: pytest.Pytester):
    """The Ollama strategy fed OpenAI Chat streams: the wire really is the one named."""
    result = pytester.runpytest("--mcs-strategy=mcs_reference:OllamaChatStrategy",
                                "--mcs-wire=openai-chat", "--mcs-clause=reassembly.round-trip")

    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["errored: the strategy raised MalformedChunk: *"])


@pytest.mark.parametrize("wire, problem", [
    ("no-such-wire", "no-such-wire: unknown wire; known wires: anthropic-messages, bedrock-converse, "
                     "gemini, ollama-chat, openai-chat, openai-responses, text*"),
    ("acme:Missing", "acme:Missing: module 'acme' has no attribute 'Missing'"),
    ("no_such_module:WIRE", "no_such_module:WIRE: cannot import module 'no_such_module' *"),
    ("acme:AcmeStrategy", "acme:AcmeStrategy: not a mcs_conformance.wires.Wire nor a factory of one"),
    ("acme:wrap", "acme:wrap: calling it raised TypeError: *"),
])
def test_bad_wire_is_a_usage_error_in_one_line(acme: pytest.Pytester, wire: str, problem: str):
    result = acme.runpytest("--mcs-strategy=acme:AcmeStrategy", f"--mcs-wire={wire}")

    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([f"*error: argument --mcs-wire: {problem}"])
    assert sum("--mcs-wire" in line for line in result.stderr.lines) == 1
    assert "Traceback" not in result.stderr.str()


def test_third_party_strategy_without_a_wire_is_a_usage_error(acme: pytest.Pytester):
    result = acme.runpytest("--mcs-strategy=acme:AcmeStrategy")

    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([
        "ERROR: --mcs-strategy=acme:AcmeStrategy: no built-in wire for a strategy named "
        "'acme-chat'; pass --mcs-wire=NAME or --mcs-wire=pkg:Obj"])
    assert "Traceback" not in result.stderr.str()


def test_third_party_native_strategy_with_its_own_wire(acme: pytest.Pytester):
    clauses = [f"--mcs-clause={clause}" for clause in ACME_CLAUSES]

    result = acme.runpytest("--mcs-strategy=acme:AcmeStrategy", "--mcs-wire=acme:WIRE",
                            "--mcs-profile=ci", *clauses)

    assert verdicts(result) == {clause: "passed" for clause in ACME_CLAUSES}
    assert result.ret == pytest.ExitCode.OK
    result.stdout.fnmatch_lines(["mcs-conformance: rerun with: pytest --mcs-strategy=acme:AcmeStrategy "
                                 f"--mcs-wire=acme:WIRE {' '.join(clauses)} --mcs-profile=ci --mcs-seed=*"])


def test_third_party_wire_catches_a_bug_in_its_strategy(acme: pytest.Pytester):
    acme.makepyfile(acme_broken='''
        from acme import AcmeStrategy

        class DoneTooEarly(AcmeStrategy):
            def is_done(self, chunk):
                return isinstance(chunk, dict)  # every chunk ends the stream
    ''')

    result = acme.runpytest("--mcs-strategy=acme_broken:DoneTooEarly", "--mcs-wire=acme:WIRE", FAST)

    assert verdicts(result) == {"reassembly.done": "failed"}
    result.stdout.fnmatch_lines([
        "failed: is_done() is true on chunk 0 *",
        "reproduce: pytest --mcs-strategy=acme_broken:DoneTooEarly --mcs-wire=acme:WIRE "
        "--mcs-clause=reassembly.done --mcs-profile=dev --mcs-seed=*"])
