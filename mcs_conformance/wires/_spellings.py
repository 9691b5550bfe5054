"""The spellings real models write for a catalogue format, beside its chat template's own.

A spelling is a departure from what the reference codec's `encode` writes (the canonical
spelling, after the chat template) that a real model writes, or that an engine shows its
parser once it has decoded the tokens, with where it was seen: a model's chat template, an
engine's parser test, a recording. `format_cases` draws them and records the ones a case
holds in `FormatCase.spellings`, as wires record real-server quirks in `Case.quirks`, so that
a failure says which spelling; the reference codec reads every one back to the calls written
(truth by construction). docs/formats.md lists them.
"""
from __future__ import annotations

import itertools
import json
import re
from dataclasses import dataclass
from typing import Callable, Iterable, Iterator

from hypothesis.errors import InvalidArgument

from mcs_reference.calls import ExtractedCall

__all__ = ["SPELLINGS", "Spelling", "allowed_spellings", "spelled", "spelling_choices",
           "spellings_of"]

_LLAMA_CPP = ("llama.cpp tests/test-chat.cpp @0042e2079d34 ({}); transcribed in "
              "tests/oracles/llama-cpp/")
_VLLM_HERMES = ("vLLM tests/tool_parsers/test_hermes_tool_parser.py @0eb73d6a09be ({}); "
                "recorded in shared/corpora-real/text-formats/{}")
_VLLM_MISTRAL = ("vLLM tests/tool_parsers/test_mistral_tool_parser.py @002d5731d3ee ({}); "
                 "recorded in shared/corpora-real/text-formats/{}")


@dataclass(frozen=True)
class Spelling:
    """One spelling of `format` (the `name` of the format's codec: `text-json` for the
    catalogue's `json`): its stable `name`, what it is, where it was seen.

    `rewrite(text, calls)` turns the calls as written so far into this spelling. A `body`
    spelling writes the calls' bodies its own way, anew from `calls` or by rewriting the
    template's (DeepSeek V3's arguments fence), so a case holds one at most, applied before
    the others; an `ids` spelling writes the ids the calls are drawn with."""

    name: str
    format: str
    description: str
    source: str
    rewrite: Callable[[str, list], str]
    body: bool = False
    ids: bool = False


def _replace(*pairs: tuple[str, str]) -> Callable[[str, list], str]:
    def rewrite(text: str, calls: list) -> str:
        for old, new in pairs:
            text = text.replace(old, new)
        return text
    return rewrite


def _unchanged(text: str, calls: list) -> str:
    return text


def _blocks(write: Callable[[ExtractedCall], str]) -> Callable[[str, list], str]:
    """A Hermes body spelling: one `<tool_call>` block a call, bodies written by `write`."""
    return lambda text, calls: "\n".join(f"<tool_call>\n{write(c)}\n</tool_call>" for c in calls)


def _dumps(value: object) -> str:
    return json.dumps(value, ensure_ascii=False)


def _mistral_arguments_first(text: str, calls: list) -> str:
    items = [{"arguments": c.arguments, "name": c.name, **({"id": c.id} if c.id else {})}
             for c in calls]
    return "[TOOL_CALLS] " + _dumps(items)


def _drop_last(token: str) -> Callable[[str, list], str]:
    return lambda text, calls: text[:-len(token)] if text.endswith(token) else text


def _headless(text: str, calls: list) -> str:
    return text[len("<tool_call>\n"):] if text.startswith("<tool_call>\n<function=") else text


_DS_CALL_END = "<\uff5ctool\u2581call\u2581end\uff5c>"
_HARMONY_CALL_CHANNEL = re.compile(r"<\|channel\|>commentary( to=functions\.)")
_HARMONY_CHANNEL_RECIPIENT = re.compile(r"<\|channel\|>(\w+) (to=functions\.[^\s<]+) ")
_KIMI_MARKERS = ("<|tool_call_end|>", "<|tool_calls_section_begin|>",
                 "<|tool_calls_section_end|>")

_TABLE = (
    Spelling("fenced", "text-json", "each call object inside a json code block",
             "this kit's JSON format (docs/formats.md: optionally fenced as a json code block)",
             lambda text, calls: f"```json\n{text}\n```" if text else text),
    Spelling("no-newlines", "hermes", "no newline inside the tags, blocks back to back: "
             "`<tool_call>{...}</tool_call><tool_call>`",
             _VLLM_HERMES.format("streaming tests with stream_interval",
                                 "hermes-two-sequential-calls.txt"),
             _replace(("<tool_call>\n", "<tool_call>"), ("\n</tool_call>", "</tool_call>"),
                      ("</tool_call>\n<tool_call>", "</tool_call><tool_call>"))),
    Spelling("no-newline-before-close", "hermes", "`<tool_call>\\n{...}</tool_call>`",
             _LLAMA_CPP.format("NousResearch-Hermes-2-Pro and Reka-Edge cases"),
             _replace(("\n</tool_call>", "</tool_call>"))),
    Spelling("unterminated-at-eos", "hermes", "the last block never closed: the model "
             "stopped at its end-of-sequence token",
             _VLLM_HERMES.format("test_hermes_parser_non_streaming_tool_call_until_eos",
                                 "hermes-unterminated-until-eos.txt"),
             _drop_last("</tool_call>")),
    Spelling("python-dict", "hermes", "the body a Python dict literal, single quotes, "
             "`arguments` before `name` (Hermes-2-Pro)",
             "NousResearch/Hermes-Function-Calling README.md, inference example output; "
             "recorded in shared/corpora-real/text-formats/hermes2pro-python-dict-single-quotes.txt",
             _blocks(lambda c: repr({"arguments": c.arguments, "name": c.name})), body=True),
    Spelling("arguments-as-string", "hermes", "`arguments` a JSON string holding the object "
             "(Granite 4)",
             _VLLM_HERMES.format("test_hermes_parser_non_streaming_serialized_arguments",
                                 "hermes-granite4-string-encoded-arguments.txt"),
             _blocks(lambda c: _dumps({"name": c.name, "arguments": _dumps(c.arguments)})),
             body=True),
    Spelling("no-opening-tag", "qwen3-coder", "the first call without its opening "
             "`<tool_call>`: `<function=NAME>...</function>\\n</tool_call>`",
             _LLAMA_CPP.format("Qwen3-Coder.jinja cases: 'Some models skip the opening "
                               "<tool_call>'"), _headless),
    Spelling("tekken-no-space", "mistral", "no space after the marker: `[TOOL_CALLS][{...}]` "
             "(Tekken tokenizers: Mistral Nemo)",
             _LLAMA_CPP.format("mistralai-Mistral-Nemo-Instruct-2407.jinja case"),
             _replace(("[TOOL_CALLS] [", "[TOOL_CALLS]["))),
    Spelling("call-ids", "mistral", "each call with its `\"id\"` (9 alphanumerics) after the "
             "arguments, as mistral-common writes ids in the history",
             _LLAMA_CPP.format("mistralai-Mistral-Nemo-Instruct-2407.jinja case, id "
                               "123456789"), _unchanged, ids=True),
    Spelling("arguments-first", "mistral", "`\"arguments\"` before `\"name\"` in each object",
             _VLLM_MISTRAL.format("test_extract_tool_calls_pre_v11_tokenizer, "
                                  "argument_before_name_and_name_in_argument",
                                  "mistral-pre-v11-arguments-before-name.txt"),
             _mistral_arguments_first, body=True),
    Spelling("call-id", "mistral-v11", "`[CALL_ID]ID` between the name and `[ARGS]` "
             "(tokenizer v11: Mistral Small 3.2)",
             _LLAMA_CPP.format("Mistral-Small-3.2-24B-Instruct-2506.jinja cases"), _unchanged,
             ids=True),
    Spelling("args-token-dropped", "mistral-v11", "`[TOOL_CALLS]NAME{...}`: the `[ARGS]` "
             "special token left out of the decoded text",
             _VLLM_MISTRAL.format("v11 tokenizer cases, multiple_tool_calls",
                                  "mistral-v11-name-then-args-repeated-marker.txt"),
             _replace(("[ARGS]", ""))),
    Spelling("python-start", "pythonic", "the list inside `<|python_start|>...<|python_end|>` "
             "(Llama 4)", "llama-models models/llama4/prompt_format.md (zero shot function "
             "calling)", lambda text, calls: f"<|python_start|>{text}<|python_end|>"),
    Spelling("fence-closed-inline", "deepseek-v3", "the closing fence right after the JSON: "
             "`{...}```<｜tool▁call▁end｜>`",
             _LLAMA_CPP.format("llama-cpp-deepseek-r1.jinja and "
                               "DeepSeek-R1-Distill-Qwen-32B.jinja cases"),
             _replace(("\n```" + _DS_CALL_END, "```" + _DS_CALL_END)), body=True),
    Spelling("no-fence", "deepseek-v3", "the arguments JSON without its ```json fence",
             "google/adk-python pull request 5654 (closed): DeepSeek-V3 calls seen through "
             "LiteLLM, arguments fenced or bare",
             _replace(("\n```json\n", "\n"), ("\n```" + _DS_CALL_END, _DS_CALL_END)),
             body=True),
    Spelling("no-functions-prefix", "kimi-k2", "call ids `NAME:IDX` without `functions.`",
             "ai-dynamo/dynamo lib/parsers/src/tool_calling/xml/kimi_k2_parser.rs (its id "
             "pattern `(?:functions\\.)?NAME:IDX`, after vLLM's and SGLang's Kimi parsers)",
             _replace(("<|tool_call_begin|>functions.", "<|tool_call_begin|>"))),
    Spelling("no-end-markers", "kimi-k2", "no section markers and no `<|tool_call_end|>`: "
             "each call runs to the next `<|tool_call_begin|>` or the end",
             _LLAMA_CPP.format("Kimi-K2-Thinking.jinja cases, 'Real life test - "
                               "execute_command'"), _replace(*((m, "") for m in _KIMI_MARKERS))),
    Spelling("no-newlines", "glm-4.5", "no newline after the name nor between the tags "
             "(GLM-4.7): `<tool_call>NAME<arg_key>...</arg_value></tool_call>`",
             _LLAMA_CPP.format("GLM-4.7-Flash.jinja and Spark2.5.jinja cases"),
             _replace(("\n<arg_key>", "<arg_key>"), ("</arg_value>\n", "</arg_value>"),
                      ("\n</tool_call>", "</tool_call>"),
                      ("</tool_call>\n<tool_call>", "</tool_call><tool_call>"))),
    Spelling("analysis-channel", "harmony", "calls on the analysis channel, not commentary",
             _LLAMA_CPP.format("openai-gpt-oss-120b.jinja cases"),
             lambda text, calls: _HARMONY_CALL_CHANNEL.sub(r"<|channel|>analysis\1", text)),
    Spelling("recipient-in-role", "harmony", "the recipient in the role header: ` to="
             "functions.NAME<|channel|>commentary`, after `<|start|>assistant` (the prompt's, "
             "for the first message)", _LLAMA_CPP.format("openai-gpt-oss-120b.jinja cases"),
             lambda text, calls: _HARMONY_CHANNEL_RECIPIENT.sub(r" \2<|channel|>\1 ", text)),
    Spelling("no-constrain", "harmony", "no `<|constrain|>json` before `<|message|>`",
             _LLAMA_CPP.format("openai-gpt-oss-120b.jinja cases"),
             _replace((" <|constrain|>json", ""))),
    Spelling("call-token-dropped", "harmony", "the output ends at the arguments: `<|call|>` "
             "is a stop token, which engines leave out of the text",
             _LLAMA_CPP.format("openai-gpt-oss-120b.jinja cases"), _drop_last("<|call|>")),
)

#: Every spelling by (format, name), in the order a case applies them.
SPELLINGS: dict[tuple[str, str], Spelling] = {(s.format, s.name): s for s in _TABLE}


def spellings_of(format: str) -> tuple[Spelling, ...]:
    """The spellings of `format` (a codec's `name`), body spellings first."""
    own = [s for s in _TABLE if s.format == format]
    return tuple(sorted(own, key=lambda s: not s.body))


def spelling_choices(format: str) -> Iterator[tuple[Spelling, ...]]:
    """Every choice of spellings a case of `format` may hold (one body spelling at most,
    any of the others), in the order they are applied; the template's own first."""
    bodies = [(s,) for s in spellings_of(format) if s.body]
    others = [s for s in spellings_of(format) if not s.body]
    for body in [(), *bodies]:
        for count in range(len(others) + 1):
            for chosen in itertools.combinations(others, count):
                yield body + chosen


def allowed_spellings(format: str, names: Iterable[str] | None) -> tuple[Spelling, ...]:
    """The spellings of `format` a generator may draw: all of them for None, else those
    named. A name that is no spelling of the format raises `InvalidArgument`."""
    own = spellings_of(format)
    if names is None:
        return own
    if isinstance(names, str):
        raise InvalidArgument(f"spellings must be a set of names or None, got {names!r}")
    unknown = set(names) - {s.name for s in own}
    if unknown:
        raise InvalidArgument(f"unknown spelling(s) of {format}: {', '.join(sorted(unknown))}; "
                              f"known: {', '.join(s.name for s in own) or 'none'}")
    return tuple(s for s in own if s.name in set(names))


def spelled(codec: object, calls: list, spellings: Iterable[Spelling]) -> str:
    """`calls` as `codec` writes them, then rewritten into each of `spellings` in turn."""
    text = codec.encode(calls)
    for spelling in spellings:
        text = spelling.rewrite(text, calls)
    return text
