"""Closure: every call a catalogue codec decodes is one its format could have written.

A call `decode` returns without an error has a name the format allows and finite JSON
arguments that the codec's `encode` writes back to the same call; anything else is an error
call that keeps the raw text. The property runs over model outputs drawn well-formed and then
mutated (`mcs_conformance.wires.mutated_outputs`). Below it, the outputs on which it first
failed, each with the wrong call it gave before the fix.
"""
from __future__ import annotations

import importlib.util
import inspect
import json
from pathlib import Path

import pytest
from hypothesis import find, given, HealthCheck, Phase, settings, strategies as st

from mcs_reference import format_codec, format_names
from mcs_conformance.wires import format_cases, MUTATIONS, mutated_outputs

BROKEN = sorted(Path(__file__).resolve().parents[1].joinpath("broken_codecs").glob("[!_]*.py"))



def _strict(value: object) -> str:
    """JSON text that tells 1, 1.0 and true apart (Python's == does not)."""
    return json.dumps(value, sort_keys=True)


def closure_problems(codec: object, text: str) -> list[str]:
    """What breaks closure in `codec.decode(text)`: an error call that does not keep the
    text it could not read, or a readable call whose name the format does not allow, whose
    arguments hold a number that is not finite, or that `encode` does not write back."""
    problems = []
    for call in codec.decode(text):
        if call.error is not None:
            if not _kept(call.raw_arguments, text):
                problems.append(f"the error call {call.name!r} ({call.error}) does not keep "
                                f"the text it could not read: {call.raw_arguments!r}")
        elif not codec.allows_name(call.name):
            problems.append(f"the call is named {call.name!r}, which {codec.name} cannot bear")
        elif not _finite(call.arguments):
            problems.append(f"the call {call.name!r} has arguments that are no JSON: "
                            f"{call.arguments!r}")
        else:
            back = codec.decode(codec.encode([call]))
            if [(c.name, _strict(c.arguments), c.error) for c in back] != \
                    [(call.name, _strict(call.arguments), None)]:
                problems.append(f"encode writes {call!r} back as {back!r}")
    return problems


def _kept(raw: object, text: str) -> bool:
    """Is `raw` text of `text`: as written, or as the content of a JSON string there (a
    double-encoded arguments string keeps its value)?"""
    return isinstance(raw, str) and any(form in text for form in (
        raw.strip(), json.dumps(raw)[1:-1], json.dumps(raw, ensure_ascii=False)[1:-1]))


def _finite(arguments: object) -> bool:
    try:
        json.dumps(arguments, allow_nan=False)
    except (TypeError, ValueError):
        return False
    return True


@pytest.mark.parametrize("name", format_names())
@settings(max_examples=120, deadline=None)
@given(data=st.data())
def test_every_call_decoded_is_one_the_format_could_have_written(name, data):
    codec = format_codec(name)
    output = data.draw(mutated_outputs(codec))
    problems = closure_problems(codec, output.text)
    assert not problems, f"mutations {output.mutations}: {problems}"


# -- the property catches each mutation kind on a deliberately broken codec ---------------
def _broken(path: Path):
    spec = importlib.util.spec_from_file_location(f"broken_codecs.{path.stem}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_every_mutation_kind_has_its_broken_codec():
    assert sorted(_broken(path).CAUGHT_BY for path in BROKEN) == sorted(MUTATIONS)


@pytest.mark.parametrize("path", BROKEN, ids=[path.stem for path in BROKEN])
def test_the_property_catches_the_broken_codec_on_its_mutation(path):
    module = _broken(path)
    codec = getattr(module, module.CODEC)()
    reference = format_codec(module.FORMAT)
    assert type(reference) in inspect.getmro(type(codec))[1:], "one bug on one reference codec"
    assert len((module.__doc__ or "").strip().splitlines()) >= 3, "say what real bug it is"
    found = find(mutated_outputs(codec, kinds={module.CAUGHT_BY}),
                 lambda output: bool(closure_problems(codec, output.text)),
                 settings=settings(max_examples=4000, database=None, derandomize=True, phases=[Phase.generate],
                                   suppress_health_check=list(HealthCheck)))
    assert module.CAUGHT_BY in found.mutations
    assert not closure_problems(reference, found.text)


@pytest.mark.parametrize("path", BROKEN, ids=[path.stem for path in BROKEN])
@settings(max_examples=25, deadline=None)
@given(data=st.data())
def test_a_broken_codec_reads_the_outputs_as_drawn(path, data):
    """Its bug hides on well-formed outputs: only the mutation shows it."""
    module = _broken(path)
    codec = getattr(module, module.CODEC)()
    case = data.draw(format_cases(format_codec(module.FORMAT), spellings=frozenset()))
    assert [(c.name, c.arguments) for c in codec.decode(case.text)] == \
        [(c.name, c.arguments) for c in case.calls]
    assert not closure_problems(codec, case.text)


DS_BEGIN = "<\uff5ctool\u2581calls\u2581begin\uff5c><\uff5ctool\u2581call\u2581begin\uff5c>"
DS_SEP = "<\uff5ctool\u2581sep\uff5c>"
DS_END = "<\uff5ctool\u2581call\u2581end\uff5c><\uff5ctool\u2581calls\u2581end\uff5c>"
KIMI_BEGIN = "<|tool_calls_section_begin|><|tool_call_begin|>"
KIMI_END = "<|tool_call_end|><|tool_calls_section_end|>"

# (format, output, the call decoded before the fix): each must now be an error call keeping
# the raw text. Mutation `non-finite-literal` or `number-overflow`: Python's json reads NaN,
# Infinity and 1e400 (as inf), none of which is JSON a tool can be given.
NON_FINITE = [
    ("json", '{"tool": "f", "arguments": {"x": NaN}}', {"x": "nan"}),
    ("hermes", '<tool_call>\n{"name": "f", "arguments": {"x": -Infinity}}\n</tool_call>',
     {"x": "-inf"}),
    ("mistral", '[TOOL_CALLS] [{"name": "f", "arguments": {"x": NaN}}]', {"x": "nan"}),
    ("mistral-v11", '[TOOL_CALLS]f[ARGS]{"x": [Infinity]}', {"x": ["inf"]}),
    ("llama3-json", '{"name": "f", "parameters": {"x": -1e400}}', {"x": "-inf"}),
    ("deepseek-v3", DS_BEGIN + "function" + DS_SEP + 'f\n```json\n{"x": 1e400}\n```' + DS_END,
     {"x": "inf"}),
    ("deepseek-v3.1", DS_BEGIN + "f" + DS_SEP + '{"x": -1e400}' + DS_END, {"x": "-inf"}),
    ("kimi-k2", KIMI_BEGIN + 'functions.f:0<|tool_call_argument_begin|>{"x": -1e400}' + KIMI_END,
     {"x": "-inf"}),
    ("harmony",
     '<|channel|>commentary to=functions.f <|constrain|>json<|message|>{"x":NaN}<|call|>',
     {"x": "nan"}),
    # Python literals: 1e400 is inf to ast.literal_eval
    ("pythonic", "[f(x=1e400)]", {"x": "inf"}),
    ("hermes", "<tool_call>\n{'name': 'f', 'arguments': {'x': 1e400}}\n</tool_call>", {"x": "inf"}),
]


@pytest.mark.parametrize("format, text, before", NON_FINITE)
def test_a_number_that_is_not_finite_makes_an_error_call_keeping_the_text(format, text, before):
    [call] = format_codec(format).decode(text)
    assert call.name == "f" and call.arguments == {} and call.error
    assert call.raw_arguments and call.raw_arguments in text


@pytest.mark.parametrize("format, text", [
    ("qwen3-coder", "<tool_call>\n<function=f>\n<parameter=x>\n1e400\n</parameter>\n</function>\n"
                    "</tool_call>"),
    ("glm-4.5", "<tool_call>f\n<arg_key>x</arg_key>\n<arg_value>1e400</arg_value>\n</tool_call>"),
])
def test_a_parameter_too_large_for_a_double_is_the_string_the_model_wrote(format, text):
    """Before: {"x": inf}. These formats write a string raw, so a value that is no JSON a
    tool can be given is the raw text, as a string parameter's schema would read it."""
    codec = format_codec(format)
    [call] = codec.decode(text)
    assert call.arguments == {"x": "1e400"} and call.error is None
    assert codec.decode(codec.encode([call])) == [call]


# (format, output, the name decoded before the fix, as a readable call): a name with
# whitespace or a control character in it, an empty one, one holding a character the format
# cannot write there, one too long to be a call head. Mutations whitespace-in-head (a space,
# tab or newline inside a name), number-overflow (a number written into a Kimi id's index or
# lengthening a name).
BAD_NAMES = [
    ("json", '{"tool": "get_weath er", "arguments": {}}', "get_weath er"),
    ("hermes", '<tool_call>\n{"name": "P\\tZ", "arguments": {}}\n</tool_call>', "P\tZ"),
    ("mistral", '[TOOL_CALLS] [{"name": "lookup n", "arguments": {}}]', "lookup n"),
    ("llama3-json", '{"name": " get_weather", "parameters": {}}', " get_weather"),
    ("qwen3-coder", "<tool_call>\n<function=get\tweather>\n</function>\n</tool_call>",
     "get\tweather"),
    ("deepseek-v3", DS_BEGIN + "function" + DS_SEP + "get\tweather\n```json\n{}\n```" + DS_END,
     "get\tweather"),
    ("deepseek-v3", DS_BEGIN + "function" + DS_SEP + "t" + "1" * 300 + "\n```json\n{}\n```"
     + DS_END, "t" + "1" * 300),
    ("kimi-k2", KIMI_BEGIN + "functions.get_weather:-1e400<|tool_call_argument_begin|>{}"
     + KIMI_END, "get_weather:-1e400"),
    ("harmony", "<|channel|>commentary to=functions. get_weather <|constrain|>json<|message|>{}"
     "<|call|>", ""),
    # encode wrote `[t999...()]`, which decode reads as prose (no call head is so long)
    ("pythonic", "[tool(), t" + "9" * 300 + "()]", "t" + "9" * 300),
]


@pytest.mark.parametrize("format, text, before", BAD_NAMES)
def test_a_name_the_format_cannot_bear_makes_an_error_call_keeping_the_text(format, text,
                                                                            before):
    codec = format_codec(format)
    call = codec.decode(text)[-1]
    assert call.name == before and call.arguments == {} and "is not one" in call.error
    assert call.raw_arguments and call.raw_arguments in text
    assert not codec.allows_name(before)


def test_a_hermes_body_read_as_python_keeps_the_text_in_its_error_call():
    """Mutation delimiter-deleted in a Granite-style string of arguments (`{\\"` lost its
    quote: `\\c` is no JSON escape, so the body is read as a Python literal). Before, the
    error call kept the string as Python decoded it, which the model never wrote."""
    text = '<tool_call>\n{"name": "f", "arguments": "{\\city\\": 1}"}\n</tool_call>'
    [call] = format_codec("hermes").decode(text)
    assert call.error and call.raw_arguments == text[12:-13]
