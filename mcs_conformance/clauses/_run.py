"""What every clause needs: run a property over a generator, feed a stream, say what differed.

Checks build their Hypothesis test here so that all of them run the same way: under the
profile the caller loaded, one bug reported at a time (the shrunk `ClauseFailure`), with a
database key and a derandomized seed of their own per clause and per subject.
"""
from __future__ import annotations

import json
import math
from functools import lru_cache
from typing import Any, Callable, Iterable, Iterator

from hypothesis import given, settings
from hypothesis import strategies as st

from mcs_reference.calls import ExtractedCall

from ..database import consult_database
from ..wires._base import copy_json
from ._registry import Clause, Subject

NATIVE_WIRES = ("openai-chat", "openai-responses", "anthropic-messages", "ollama-chat")
_REFERENCE = {
    "openai-chat": "OpenAIChatStrategy",
    "openai-responses": "OpenAIResponsesStrategy",
    "anthropic-messages": "AnthropicMessagesStrategy",
    "ollama-chat": "OllamaChatStrategy",
}


# -- running a property -------------------------------------------------------------------
_examples = [0]


def count_example() -> None:
    """One more example run (a report says how many examples each verdict rests on)."""
    _examples[0] += 1


def examples_run() -> int:
    """Examples run in this process so far, by every clause."""
    return _examples[0]


def digest(clause: Clause, subject: Subject) -> bytes:
    """Tells apart the Hypothesis tests of one clause run on different subjects."""
    return f"{clause.id}\0{subject.target}\0{subject.name}".encode()


def check_each(clause: Clause, subject: Subject, generator: st.SearchStrategy,
               prop: Callable[[Any], None]) -> None:
    """Run `prop` on values of `generator` under the loaded profile; the first failure,
    shrunk, propagates (a `ClauseFailure` when the property does not hold)."""

    @settings(report_multiple_bugs=False)
    @given(generator)
    def run(value: Any) -> None:
        count_example()
        try:
            prop(value)
        except Exception as exc:  # the strategy raised: keep the case, to report its quirks
            if not hasattr(exc, "mcs_case"):
                exc.mcs_case = value
            raise

    run.hypothesis.inner_test._hypothesis_internal_add_digest = digest(clause, subject)
    consult_database(run)  # --mcs-database: replay the failures saved by earlier runs first
    run()


def on_each(prop: Callable[[Any], None]) -> Callable[[tuple], None]:
    """A property over a tuple of cases: `prop` on each in turn; an exception it raises
    carries the one case it raised on (the report shows that case, not the tuple)."""

    def each(cases: tuple) -> None:
        for case in cases:
            try:
                prop(case)
            except Exception as exc:
                if not hasattr(exc, "mcs_case"):
                    exc.mcs_case = case
                raise

    return each


# -- wires and reference strategies ------------------------------------------------------
@lru_cache(maxsize=None)
def load_kit_modules() -> None:
    """Import every built-in wire and reference module before the first example.

    Hypothesis draws some values from the constants written in local modules (the kit's,
    when it runs from a checkout or an editable install) and rebuilds that pool whenever
    one more is imported. Imported as the clauses came to need them, a clause's examples
    for one seed hung on which clauses ran before it (a `--clause` rerun could draw other
    ones), and the pool was rebuilt three times a certify (about 0.1 s)."""
    from importlib import import_module

    import mcs_reference

    from .. import wires

    for module in wires.BUILT_IN.values():
        import_module(f"{wires.__name__}.{module}")
    for name in mcs_reference.__all__:
        getattr(mcs_reference, name)


@lru_cache(maxsize=None)
def wire(name: str) -> Any:
    """A built-in wire by name (wires are immutable: one instance serves every clause)."""
    from ..wires import get_wire

    return get_wire(name)


@lru_cache(maxsize=None)
def text_wire_of(codec_name: str) -> Any:
    """The text wire of a reference codec ("json" or "hermes")."""
    from ..wires import get_wire

    return get_wire("text", codec=reference_codec(codec_name))


def reference_codec(codec_name: str) -> Any:
    import mcs_reference

    return mcs_reference.JsonCodec() if codec_name == "json" else mcs_reference.HermesCodec()


def reference(wire_name: str) -> Any:
    """A fresh reference strategy of a native wire."""
    import mcs_reference

    return getattr(mcs_reference, _REFERENCE[wire_name])()


def reference_text(codec_name: str = "json") -> Any:
    import mcs_reference

    return mcs_reference.TextStrategy(reference_codec(codec_name))


def wire_name(subject: Subject) -> str | None:
    return getattr(subject.wire, "name", None)


def is_native(subject: Subject) -> bool:
    return subject.wire is not None and not subject.is_text and subject.wire.native


def other_natives(subject: Subject) -> list[str]:
    """The built-in native wires that are not the subject's."""
    own = None if subject.is_text else wire_name(subject)
    return [name for name in NATIVE_WIRES if name != own]


def chain_with(strategy: Any, own_wire: str | None, *, texts: Iterable[Any] = ()) -> Any:
    """A default-like chain with `strategy` in place of the reference of `own_wire`.

    Native strategies come first (the subject where its reference would be), then
    `texts` (default: the JSON text strategy), as in `default_chain()`.
    """
    from mcs_reference import ExtractionChain

    natives = [strategy if name == own_wire else reference(name) for name in NATIVE_WIRES]
    foreign_native = own_wire not in NATIVE_WIRES and getattr(strategy, "codec", None) is None
    if strategy is not None and foreign_native:
        natives.append(strategy)
    texts = list(texts) or [reference_text("json")]
    return ExtractionChain([*natives, *texts], reorder=False)


def cases_with_calls(wire_: Any, min_calls: int = 1) -> st.SearchStrategy:
    """The wire's cases with at least `min_calls` calls (built-in wires take the option)."""
    if wire_.name in NATIVE_WIRES or wire_.name == "text":
        return wire_.cases(min_calls=min_calls)
    return wire_.cases().filter(lambda case: len(case.calls) >= min_calls)


def text_shaped(wire_name_: str, message: Any) -> bool:
    """Is this an OpenAI Chat message with str content and no `tool_calls` key?

    It has exactly the text wire's shape: by design the chain hands it to the text
    strategy (which is how a call written in content is found), not to OpenAI Chat's.
    """
    return (wire_name_ == "openai-chat" and isinstance(message, dict)
            and "tool_calls" not in message and isinstance(message.get("content"), str))


def stream_of(subject: Subject, case: Any) -> list:
    """What the subject is fed for a case: a text strategy its str deltas, else the chunks."""
    if subject.is_text:
        return list(case.deltas or [])
    return case.chunks


# -- feeding ------------------------------------------------------------------------------
def feed_each(strategy: Any, chunks: Iterable[Any]) -> Iterator[tuple[int, str, Any]]:
    """Fold copies of `chunks` into a fresh accumulator; yield (index, delta, acc) per chunk."""
    acc = strategy.new_accumulator()
    for index, chunk in enumerate(chunks):
        delta = strategy.accumulate(acc, copy_json(chunk))
        yield index, delta, acc


def feed(strategy: Any, chunks: Iterable[Any]) -> tuple[Any, list[str]]:
    """Fold copies of every chunk; return the accumulator and the display deltas."""
    acc = strategy.new_accumulator()
    deltas = [strategy.accumulate(acc, copy_json(chunk)) for chunk in chunks]
    return acc, deltas


def assembled(strategy: Any, chunks: Iterable[Any]) -> dict:
    """The message `strategy` assembles from `chunks`."""
    acc, _ = feed(strategy, chunks)
    return strategy.as_message(acc)


# -- comparing and describing -------------------------------------------------------------
def show(value: Any, limit: int = 160) -> str:
    """A short repr for failure reasons."""
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _kind(value: Any, json_numbers: bool = False) -> str:
    if json_numbers and isinstance(value, (int, float)) and not isinstance(value, bool):
        return "number"
    if value is None or isinstance(value, (bool, int, float, str)):
        return type(value).__name__
    if isinstance(value, dict):
        return "object"
    if isinstance(value, (list, tuple)):
        return "array"
    return type(value).__name__


def _identical(expected: Any, got: Any) -> bool:
    """Equal with the same types all the way down (stricter than `first_difference`, which
    calls a list and a tuple alike): then no difference needs looking for."""
    kind = type(expected)
    if kind is not type(got):
        return False
    if kind is dict:
        return expected.keys() == got.keys() and all(
            _identical(item, got[key]) for key, item in expected.items())
    if kind is list:
        return len(expected) == len(got) and all(map(_identical, expected, got))
    return kind in _LEAVES and expected == got


_LEAVES = frozenset({str, int, float, bool, type(None)})


def first_difference(expected: Any, got: Any, path: str = "message", *,
                     json_numbers: bool = False) -> str | None:
    """Where `got` first differs from `expected` (types count: `1` is not `1.0` nor `True`).

    `json_numbers` compares numbers as JSON does, by value as IEEE doubles: `1` equals `1.0`,
    and integers beyond 2**53 equal the double they round to (RFC 8259 section 6: such
    numbers are not interoperable); a bool is still never a number. Client clauses use it,
    since a client in JavaScript cannot tell `1` from `1.0`."""
    if _identical(expected, got):  # the common case, checked without building paths
        return None
    if _kind(expected, json_numbers) != _kind(got, json_numbers):
        return f"{path}: expected {show(expected)}, got {show(got)}"
    if isinstance(expected, dict):
        for key, item in expected.items():
            if key not in got:
                return f"{path}: missing key {key!r} (expected {show(item)})"
            found = first_difference(item, got[key], f"{path}.{key}", json_numbers=json_numbers)
            if found:
                return found
        for key in got:
            if key not in expected:
                return f"{path}: unexpected key {key!r} = {show(got[key])}"
        return None
    if isinstance(expected, (list, tuple)):
        for index, (item, other) in enumerate(zip(expected, got)):
            found = first_difference(item, other, f"{path}[{index}]",
                                     json_numbers=json_numbers)
            if found:
                return found
        if len(expected) != len(got):
            if len(expected) > len(got):
                return (f"{path}: expected {len(expected)} items, got {len(got)} "
                        f"(missing {show(expected[len(got)])})")
            return (f"{path}: expected {len(expected)} items, got {len(got)} "
                    f"(extra {show(got[len(expected)])})")
        return None
    if json_numbers and _kind(expected, True) == "number":
        if _as_double(expected) != _as_double(got):
            return f"{path}: expected {show(expected)}, got {show(got)}"
        return None
    if expected != got:
        return f"{path}: expected {show(expected)}, got {show(got)}"
    return None


def _as_double(number: int | float) -> float:
    """The IEEE double a JSON parser makes of `number` (infinite when too large for one)."""
    try:
        return float(number)
    except OverflowError:
        return math.inf if number > 0 else -math.inf


def call_view(call: Any) -> dict:
    """The fields of an `ExtractedCall` a clause compares."""
    return {
        "name": getattr(call, "name", None),
        "arguments": getattr(call, "arguments", None),
        "id": getattr(call, "id", None),
        "error": getattr(call, "error", None),
    }


def calls_difference(expected: list, got: Any, *, path: str = "calls") -> str | None:
    """Where the extracted calls `got` differ from `expected`, or None.

    Compared: name, arguments (types count), whether `error` is set, and the id wherever
    the expected call has one (text formats carry no ids; a strategy may make its own).
    """
    if not isinstance(got, list):
        return f"{path}: extract() must return a list, got {show(got)}"
    views_e, views_g = [], []
    for index, call in enumerate(expected):
        view = call_view(call)
        view["error"] = view["error"] is not None
        other = call_view(got[index]) if index < len(got) else None
        if other is not None:
            other["error"] = other["error"] is not None
            if view["id"] is None:
                other.pop("id")
            views_g.append(other)
        if view["id"] is None:
            view.pop("id")
        views_e.append(view)
    for call in got[len(expected):]:
        other = call_view(call)
        other["error"] = other["error"] is not None
        views_g.append(other)
    return first_difference(views_e, views_g, path)


# -- hand-made shapes ----------------------------------------------------------------------
# What the generators do not draw: a native message rewritten to hold given text and no call,
# calls to write as text, prose that writes none. The kit knows the built-in formats;
# clauses that need these do not apply to a third party's own native wire.

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
    else:
        raise ValueError(f"no text rewriting for the {wire_name} wire")
    return made


def tools_for(calls: list) -> tuple[dict, list]:
    """Tools named after `calls` that record what they were called with, and the record."""
    ran: list = []

    def tool(name: str) -> Callable[..., Any]:
        def run(**kwargs: Any) -> str:
            ran.append((name, kwargs))
            return "ok"
        return run

    return {call.name: tool(call.name) for call in calls}, ran


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
