"""Model outputs in a catalogue format, as an inference engine's tool parser receives them.

A `FormatCase` is one model output: the text, written by the format's reference codec from
drawn calls and prose (so its truth is known by construction), the tools the request
declared (a JSON schema per tool, typed after the drawn arguments: engines such as
Qwen3-Coder's type parameter values by it), the text cut into tokens by the local tokenizer
(each special token whole), and those tokens grouped into the deltas an engine streams.

Only what the model can write is drawn: prose between or after calls where the format's
chat template lets the model write it, arguments without the format's special tokens inside
(a model writes those as the special token, which ends the call), calls the codec says it can
carry (`can_carry`, e.g. identifier keys in pythonic calls). Beside the template's own
spelling, each case may hold the spellings real models write (wires/_spellings.py), named in
`FormatCase.spellings`.
"""
from __future__ import annotations

import dataclasses
import json
import string
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable

from hypothesis import assume, strategies as st

from mcs_reference.calls import ExtractedCall
from mcs_conformance.wires._content import draw_arguments, draw_tool_name
from mcs_conformance.wires._handmade import plain_prose, quiet_prose
from mcs_conformance.wires._malformed import BAD_TEXTS
from mcs_conformance.wires._spellings import allowed_spellings, spelled, Spelling
from mcs_conformance.wires._tokens import token_deltas, tokenize

__all__ = ["FormatCase", "format_cases", "malformed_cases", "prose_cases", "tools_for"]


@dataclass(frozen=True)
class FormatCase:
    """One model output and the truth about it."""

    format: str
    text: str
    calls: list = field(default_factory=list)  # ExtractedCall, in order
    content: str = ""  # the prose, as the user must see it
    tools: list = field(default_factory=list)  # the request's OpenAI tool definitions
    deltas: list = field(default_factory=list)  # lists of token texts, as streamed
    spellings: frozenset = frozenset()  # the real models' spellings the text holds

    def to_dict(self) -> dict:
        """JSON-ready: what a saved finding keeps (the text, the split, the tools, the
        spellings it holds)."""
        return {"format": self.format, "text": self.text, "content": self.content,
                "calls": [{"name": c.name, "arguments": c.arguments,
                           **({"error": c.error, "raw_arguments": c.raw_arguments}
                              if c.error else {})} for c in self.calls],
                "tools": self.tools, "deltas": self.deltas,
                "spellings": sorted(self.spellings)}


def _schema(value: Any) -> dict:
    if isinstance(value, bool):
        return {"type": "boolean"}
    if isinstance(value, int):
        return {"type": "integer"}
    if isinstance(value, float):
        return {"type": "number"}
    if isinstance(value, str):
        return {"type": "string"}
    if isinstance(value, list):
        return {"type": "array"}
    if isinstance(value, dict):
        return {"type": "object"}
    return {"type": "null"}


def tools_for(calls: list) -> list[dict]:
    """OpenAI tool definitions for `calls`: one per name, each parameter typed after the
    value drawn for it (a parameter drawn with two types is left untyped)."""
    properties: dict[str, dict] = {}
    for call in calls:
        own = properties.setdefault(call.name, {})
        for key, value in call.arguments.items():
            if own.get(key, _schema(value)) != _schema(value):
                own[key] = {}
            else:
                own[key] = _schema(value)
    return [{"type": "function", "function": {
        "name": name, "description": f"the tool {name}",
        "parameters": {"type": "object", "properties": props}}}
        for name, props in properties.items()]


def _carries(codec: Any, call: ExtractedCall) -> bool:
    """Can the model write `call` in this format? No special token inside its name or
    arguments, and whatever the codec itself refuses (`can_carry`)."""
    written = call.name + json.dumps(call.arguments, ensure_ascii=False)
    if any(token in written for token in codec.special_tokens):
        return False
    can_carry = getattr(codec, "can_carry", None)
    return can_carry is None or bool(can_carry(call))


def _draw_calls(draw: Callable, codec: Any, count: int) -> list[ExtractedCall]:
    calls, names = [], set()
    for _ in range(count):
        name = draw_tool_name(draw)
        if not name[:1].isalpha():  # tools are named as people name functions
            name = "t" + name
        if name in names:  # one tool per name: its schema types its parameters
            name = f"{name}_{len(names)}"
        names.add(name)
        call = ExtractedCall(name, draw_arguments(draw))
        assume(_carries(codec, call))
        calls.append(call)
    return calls


_SEPARATORS = st.sampled_from(("", " ", "\n", "\n\n"))


def _separator(draw: Callable, prose: str) -> str:
    """Blank between prose and a call; none without prose (no model opens its answer with
    a blank before a call)."""
    return draw(_SEPARATORS) if prose else ""


def _framed(codec: Any, prose: str, calls_follow: bool) -> str | None:
    """Prose in its own message, for formats that have one (Harmony); None for the others."""
    frame = getattr(codec, "frame_prose", None)
    return None if frame is None else frame(prose, calls_follow)


_IDS = st.text(string.ascii_letters + string.digits, min_size=9, max_size=9)


def _spellings(draw: Callable, own: tuple[Spelling, ...]) -> tuple[Spelling, ...]:
    """Some of a format's spellings: one body spelling at most, each other one or not
    (shrinks toward none: the template's own spelling)."""
    bodies = [s for s in own if s.body]
    chosen = [draw(st.sampled_from([None, *bodies]))] if bodies else []
    chosen += [s for s in own if not s.body and draw(st.booleans())]
    return tuple(s for s in chosen if s is not None)


def _written(draw: Callable, codec: Any, calls: list, prose: st.SearchStrategy,
             spellings: tuple[Spelling, ...] = ()) -> tuple[str, str]:
    """(text, content): prose before the calls, and between and after them where the
    format allows it, around the calls as the codec writes them in `spellings`."""
    before = draw(prose) if getattr(codec, "prose_before", True) or not calls else ""
    framed = _framed(codec, before, bool(calls))
    if framed is not None:
        return framed + spelled(codec, calls, spellings), before
    if not calls:
        return before, before
    parts, content = [before, _separator(draw, before)], [before]
    if codec.prose_between:
        for index, call in enumerate(calls):
            if index:
                between = draw(prose)
                parts.append(between)
                content.append(between)
            parts.append(spelled(codec, [call], spellings))
    else:
        parts.append(spelled(codec, calls, spellings))
    if codec.prose_after:
        after = draw(prose)
        parts += [_separator(draw, after), after]
        content.append(after)
    return "".join(parts), "".join(content)


def _case(draw: Callable, codec: Any, text: str, calls: list, content: str,
          spellings: Iterable[Spelling] = ()) -> FormatCase:
    deltas = draw(token_deltas(tokenize(text, codec.special_tokens)))
    return FormatCase(codec.name, text, calls, content, tools_for(calls), deltas,
                      frozenset(s.name for s in spellings))


@st.composite
def format_cases(draw: Callable, codec: Any, *, min_calls: int = 0, max_calls: int = 3,
                 spellings: Iterable[str] | None = None) -> FormatCase:
    """Model outputs of `codec`'s format: 0..n calls (names distinct, arguments with
    unicode, nesting, escapes and `{}`) in plain prose, as streamed token deltas, each in
    the template's spelling or in some of the spellings real models write (`spellings`:
    None for those drawn by default, a set of names for only those, `frozenset()` for the
    template's own; `FormatCase.spellings` names those a case holds)."""
    own = allowed_spellings(codec.name, spellings)
    count = draw(st.integers(min_calls, max_calls))
    calls = _draw_calls(draw, codec, count)
    chosen = _spellings(draw, own) if calls else ()
    if any(s.ids for s in chosen):  # the format writes the ids the calls are drawn with
        calls = [dataclasses.replace(call, id=draw(_IDS)) for call in calls]
    text, content = _written(draw, codec, calls, plain_prose, chosen)
    found = codec.decode(text)  # the reference must read what it wrote, or no truth is known
    assume([(c.name, c.arguments, c.error) for c in found]
           == [(c.name, c.arguments, None) for c in calls])
    return _case(draw, codec, text, calls, content, chosen)


@st.composite
def prose_cases(draw: Callable, codec: Any) -> FormatCase:
    """Model outputs with no call: prose holding braces, JSON, code fences and tags that
    the format's reference reads no call in."""
    prose = draw(quiet_prose())
    assume(not any(token in prose for token in codec.special_tokens))
    text = _framed(codec, prose, False)
    text = prose if text is None else text
    assume(not codec.decode(text))
    return _case(draw, codec, text, [], prose)


@st.composite
def malformed_cases(draw: Callable, codec: Any) -> FormatCase:
    """A model output with one call whose arguments are not a JSON object, after prose.
    Formats whose values are no JSON text (Qwen3-Coder's parameters) have none: drawing
    from them is refused by `assume`."""
    name = "get_weather"
    bad = draw(st.sampled_from(BAD_TEXTS))
    broken = ExtractedCall(name, {}, None, "malformed arguments", bad)
    before = draw(plain_prose) if getattr(codec, "prose_before", True) else ""
    framed = _framed(codec, before, True)
    text = (before + _separator(draw, before) if framed is None else framed) \
        + codec.encode([broken])
    found = codec.decode(text)
    assume(len(found) == 1 and found[0].error is not None)
    return _case(draw, codec, text, [broken], before)
