"""Hand-made shapes: what the wires' generators do not draw.

A native message rewritten to hold given text and no call, calls to write as text, prose that
writes none. The kit knows the built-in formats; clauses that need these do not apply to a
third party's own native wire.
"""
from __future__ import annotations

import json

from hypothesis import strategies as st

from mcs_reference.calls import ExtractedCall
from mcs_conformance.base import copy_json
from mcs_conformance.wires._registry import NATIVE_WIRES

__all__ = ["BRACES", "REWRITABLE", "TAGS", "WORDS", "plain_prose", "quiet_prose",
           "simple_arguments", "simple_calls", "with_text"]

REWRITABLE = NATIVE_WIRES  # the formats `with_text` knows

# Prose that cannot open or close anything a codec reads: no braces, brackets, quotes,
# backticks or angle brackets. Drawn as words: cheap to generate, quick to shrink.
WORDS = ("Sure", "let", "me", "check", "the", "weather", "in", "Paris.", "Here", "it is:",
         "Voil\u00e0", "\u65e5\u672c\u8a9e", "\U0001f600", "na\u00efve", "x", "42", "\n", "ok!",
         "-")
plain_prose = st.lists(st.sampled_from(WORDS), max_size=6).map(" ".join)

_names = st.sampled_from(("get_weather", "search", "run_code", "lookup_user", "x", "sendEmail",
                          "get-time", "a_rather_long_tool_name_0"))
_keys = st.sampled_from(("city", "query", "n", "path", "units", "\u00e9", "a b"))
_leaves = st.one_of(
    st.none(), st.booleans(), st.integers(-1000, 10**15),
    st.sampled_from((0.5, -1.25, 1e100, 3.0)),
    st.sampled_from(WORDS + ('a "quoted" word', "back\\slash", "new\nline", "}", "{", "")),
)
simple_arguments = st.dictionaries(
    _keys,
    st.one_of(_leaves, st.lists(_leaves, max_size=2), st.dictionaries(_keys, _leaves, max_size=2)),
    max_size=3,
)


def simple_calls(*, min_size: int = 1, max_size: int = 2) -> st.SearchStrategy[list]:
    """Calls as a model would write them as text (no ids: text formats carry none)."""
    return st.lists(st.builds(ExtractedCall, _names, simple_arguments),
                    min_size=min_size, max_size=max_size)


def with_text(wire_name: str, message: dict, text: str) -> dict:
    """`message` of a built-in wire rewritten to carry `text` as its visible text, no call.

    Thinking and reasoning stay; calls and other text go; stop reasons say "finished".
    """
    made = copy_json(message)
    if wire_name == "openai-chat":
        made["content"] = text
        made["refusal"] = None
        made.pop("tool_calls", None)
    elif wire_name == "anthropic-messages":
        kept = [b for b in made["content"] if b.get("type") in ("thinking", "redacted_thinking")]
        made["content"] = kept + [{"type": "text", "text": text}]
        made["stop_reason"], made["stop_sequence"] = "end_turn", None
    elif wire_name == "openai-responses":
        kept = [item for item in made["output"] if item.get("type") == "reasoning"]
        template = next((item for item in made["output"] if item.get("type") == "message"), None)
        item = {"type": "message", "id": "msg_" + "0" * 48, "status": "completed",
                "role": "assistant"}
        part = {"type": "output_text", "annotations": [], "text": text}
        if template is not None:
            item["id"] = template["id"]
            if "phase" in template:
                item["phase"] = template["phase"]
            if any("logprobs" in p for p in template.get("content", [])):
                part["logprobs"] = []
        item["content"] = [part]
        made["output"] = kept + [item]
        made["tools"] = []
    elif wire_name == "ollama-chat":
        made["message"]["content"] = text
        made["message"].pop("tool_calls", None)
        made["done_reason"] = "stop"
    elif wire_name == "bedrock-converse":
        content = made["output"]["message"]["content"]
        kept = [block for block in content if "reasoningContent" in block]
        made["output"]["message"]["content"] = kept + [{"text": text}]
        made["stopReason"] = "end_turn"
    elif wire_name == "gemini":
        candidate = made["candidates"][0]
        kept = [p for p in candidate["content"].get("parts", []) if p.get("thought")]
        candidate["content"]["parts"] = kept + ([{"text": text}] if text else [])
        if not candidate["content"]["parts"]:
            del candidate["content"]["parts"]
        # empty, it keeps a stop at the limit (only a request setting one gets it)
        limited = candidate.get("finishReason") == "MAX_TOKENS"
        candidate["finishReason"] = "MAX_TOKENS" if limited and not (text or kept) else "STOP"
        candidate.pop("finishMessage", None)
    else:
        raise ValueError(f"no text rewriting for the {wire_name} wire")
    return made


# -- prose that writes no call ---------------------------------------------------------
_quiet_keys = st.sampled_from(("city", "temp", "items", "ok", "a", "b", "x y", "note", "\u00e9"))
_quiet_leaves = st.one_of(st.none(), st.booleans(), st.integers(-1000, 1000),
                          st.sampled_from(WORDS))
_quiet_values = st.one_of(_quiet_leaves, st.lists(_quiet_leaves, max_size=2),
                          st.dictionaries(_quiet_keys, _quiet_leaves, max_size=2))
# Records that carry one call-like key but are data, not a call: a person's `name` beside
# other fields, or an `arguments` list with no name (a codec that runs these is too eager).
_records = st.one_of(
    st.builds(lambda name, rest: {"name": name, **rest}, st.sampled_from(WORDS),
              st.dictionaries(_quiet_keys, _quiet_leaves, min_size=1, max_size=2)),
    st.builds(lambda items, rest: {**rest, "arguments": items},
              st.lists(st.sampled_from(WORDS), max_size=2),
              st.dictionaries(_quiet_keys, _quiet_leaves, max_size=1)),
)


def _dumped(values: st.SearchStrategy) -> st.SearchStrategy[str]:
    return st.builds(
        lambda value, spaced: json.dumps(value, separators=(", ", ": ") if spaced else (",", ":"),
                                         ensure_ascii=False),
        values, st.booleans())


_objects = _dumped(st.one_of(st.dictionaries(_quiet_keys, _quiet_values, max_size=3),
                             st.lists(_quiet_values, max_size=3), _records))
BRACES = ("{", "}", "{}", "{ }", "{{name}}", "f(x) = {a, b}", "a}b{c", "[", "]", "[]", "{[}]")
TAGS = ("<b>", "</b>", "<b>bold</b>", "<div class=\"x\">", "</div>", "<br/>", "<p>hi</p>",
        "a < b and c > d", "<>", "<!-- note -->", "<html lang=\"en\">", "<think>", "</think>")
_code = st.sampled_from(("print('hi')", "x = {'a': 1}", "if (a) { b(); }", "SELECT 1;", ""))
_fences = st.builds(
    lambda lang, body: f"```{lang}\n{body}\n```",
    st.sampled_from(("", "json", "python", "js")),
    st.one_of(_objects, _code),
)
# Records are a fragment of their own as well as one kind of object: the data a too eager
# codec runs is what this prose must hold often (at the dev profile, a record came out in
# too few examples on some seeds).
_fragments = st.one_of(plain_prose, st.sampled_from(BRACES), _objects, _dumped(_records),
                       _fences, st.sampled_from(TAGS))


def quiet_prose() -> st.SearchStrategy[str]:
    """Prose with braces, JSON, code fences and tags that writes no call in any sane codec.

    No object is a call in any codec: none has a `tool` or `function` key, a `name` comes
    only beside data fields (a record), an `arguments` list only without a name; no tag is
    a call marker (`<tool_call>` without a valid body is not prose).
    """
    return st.lists(_fragments, min_size=1, max_size=6).flatmap(
        lambda parts: st.sampled_from(("", " ", "\n")).map(lambda sep: sep.join(parts)))
