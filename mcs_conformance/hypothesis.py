"""Public Hypothesis generators of the kit: native messages and their streams, per wire.

    from mcs_conformance.hypothesis import streams

    @given(streams("openai-chat", min_calls=1))
    def test_my_reassembler(pair):
        message, chunks = pair
        ...

`wire` is a wire name (`openai-chat`, `openai-responses`, `anthropic-messages`,
`ollama-chat`, `text`, or one a third party registered) or a `Wire`. Options are keyword
only: `min_calls`, `max_calls`, `max_cuts` for every built-in wire, `codec=` for the text
wire (default: the reference's JSON codec), `quirks=` for every built-in wire (None: every
real-server quirk may be drawn; a set of names: only those; `frozenset()`: the provider's
own shape; docs/quirks.md), and `errors=True` on the native wires for streams that end in a
provider error. An option may itself be a Hypothesis generator,
drawn anew for each example (`max_calls=st.integers(1, 5)`). A bad wire name or option
raises `hypothesis.errors.InvalidArgument` when the generator is drawn from, as Hypothesis's
own generators do.

`model_outputs(format)` draws what an inference engine's tool parser reads: a model's raw
output in a format of the catalogue (docs/formats.md), with its truth and its token deltas,
in the chat template's spelling or the spellings real models write (`spellings=`: None for
those drawn by default, a set of names for only those, `frozenset()` for the template's own):

    from mcs_conformance.hypothesis import model_outputs

    @given(model_outputs("hermes", min_calls=1))
    def test_my_tool_parser(output):
        assert my_parser(output.text) == [(c.name, c.arguments) for c in output.calls]
"""
from __future__ import annotations

from typing import Any, Callable, Iterable

from hypothesis import strategies as st
from hypothesis.errors import InvalidArgument

from mcs_reference import format_codec
from mcs_conformance.wires import Case, format_cases, FormatCase, Wire, get_wire

__all__ = ["cases", "model_outputs", "native_messages", "streams"]


def _resolve(wire: Any, options: dict) -> tuple[Wire, dict]:
    """The wire to draw from and the options left for its generator."""
    if isinstance(wire, Wire):
        return wire, options
    if not isinstance(wire, str):
        raise InvalidArgument(f"wire must be a wire name or a Wire, got {wire!r}")
    try:
        return get_wire(wire, **options), {}
    except LookupError as exc:
        raise InvalidArgument(str(exc).strip("'\"")) from None
    except TypeError as exc:
        raise InvalidArgument(f"wire {wire!r} does not take these options: {exc}") from None


@st.composite
def _from_wire(draw: Callable, wire: Any, options: dict, pick: Callable) -> Any:
    values = {
        key: draw(value) if isinstance(value, st.SearchStrategy) else value
        for key, value in options.items()
    }
    resolved, rest = _resolve(wire, values)
    return draw(pick(resolved)(**rest))


def cases(wire: str | Wire, /, **options: Any) -> st.SearchStrategy[Case]:
    """Generated streams of `wire` with the truth about each (`mcs_conformance.wires.Case`):
    the native message, the chunks, the terminal chunk's index, the calls and the text."""
    return _from_wire(wire, options, lambda w: w.cases)


def streams(wire: str | Wire, /, **options: Any) -> st.SearchStrategy[tuple[Any, list]]:
    """`(native_message, chunks)` pairs: a `stream=false` message of `wire` and one stream of
    chunks that carries it, cut at drawn points (shrinks toward few, early cuts). A stream
    with Anthropic's quirk `max-tokens-open-call` stops inside a call's JSON: its message is
    what the stream assembles, that call's `input` the unfinished JSON text."""
    return cases(wire, **options).map(lambda case: (case.message, case.chunks))


def native_messages(wire: str | Wire, /, **options: Any) -> st.SearchStrategy[Any]:
    """Native messages of `wire`, as its provider returns them for `stream=false`."""
    return _from_wire(wire, options, lambda w: w.messages)


def model_outputs(format: str, /, *, min_calls: int = 0, max_calls: int = 3,
                  spellings: Iterable[str] | None = None) -> st.SearchStrategy[FormatCase]:
    """Raw model outputs in the catalogue format `format` (`hermes`, `qwen3-coder`, ...), each
    a `FormatCase`: the text, its calls and content (the truth), the tools the request
    declared, the text as token deltas (special tokens whole) and the real models'
    spellings it holds (`spellings` selects them; docs/formats.md lists each)."""
    try:
        codec = format_codec(format)
    except LookupError as exc:
        raise InvalidArgument(str(exc).strip("'\"")) from None
    return format_cases(codec, min_calls=min_calls, max_calls=max_calls, spellings=spellings)
