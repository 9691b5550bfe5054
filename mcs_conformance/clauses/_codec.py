"""Codec clauses: what a text codec writes, it reads back, however the text is cut."""
from __future__ import annotations

from hypothesis import strategies as st

from mcs_conformance.base import show
from mcs_conformance.clauses._compare import calls_difference
from mcs_conformance.clauses._registry import clause, Subject
from mcs_conformance.clauses._runner import check_each
from mcs_conformance.clauses._subjects import feed
from mcs_conformance.wires import pieces, plain_prose, simple_calls


def _is_text(subject: Subject) -> bool:
    return subject.wire is not None and subject.is_text


def _content(case) -> str:
    content = case.message.get("content") if isinstance(case.message, dict) else case.message
    return content if isinstance(content, str) else "".join(case.deltas or [])


@clause(
    "codec.round-trip",
    level="MUST",
    meaning="decode(encode(calls)) equals the calls, alone and inside arbitrary prose, and so "
            "does extract() after the text is fed to the strategy in arbitrary deltas.",
    failure_means="Calls the model wrote correctly are lost or altered: tricky arguments "
                  "(quotes, escapes, unicode, markers inside strings) break the decoder.",
    typical_bug="A regex that stops at the first closing brace or tag inside a string value; "
                "escapes decoded twice; only the first of several calls read.",
    applies=_is_text,
)
def round_trip(subject: Subject) -> None:
    strategy, codec = subject.strategy, subject.codec
    generator = subject.wire.cases().flatmap(
        lambda case: st.tuples(st.just(case), pieces(_content(case), max_cuts=16)))

    def prop(drawn):
        case, cut = drawn
        written = codec.encode(case.calls) if case.calls else ""
        if case.calls:
            found = calls_difference(case.calls, codec.decode(written))
            if found:
                raise round_trip.fail(f"decode(encode(calls)) with no prose around: {found} "
                                      f"(encode wrote {show(written)})", case)
        content = _content(case)
        found = calls_difference(case.calls, codec.decode(content))
        if found:
            raise round_trip.fail(f"decode() of the calls inside prose {show(content)}: {found}",
                                  case)
        acc, _ = feed(strategy, cut)
        found = calls_difference(case.calls, strategy.extract(strategy.as_message(acc)))
        if found:
            raise round_trip.fail(
                f"extract() after the text fed as the {len(cut)} deltas {show(cut)}: {found}",
                case)

    check_each(round_trip, subject, generator, prop)


_SPACES = st.sampled_from(("", " ", "\n"))


@st.composite
def _one_call_in_prose(draw) -> tuple:
    call = draw(simple_calls(max_size=1))[0]
    before, after = draw(plain_prose), draw(plain_prose)
    lead, tail = draw(_SPACES), draw(_SPACES)
    return call, before + lead, tail + after


@clause(
    "codec.split-markers",
    level="MUST",
    meaning="A text holding one encoded call, cut into two deltas at every offset (opening "
            "and closing markers included), still yields that call.",
    failure_means="A call is missed whenever the server's chunking splits its marker, which "
                  "real servers do at random.",
    typical_bug="Markers searched in each delta instead of in the text so far; a partial "
                "marker at the end of a delta discarded.",
    applies=_is_text,
)
def split_markers(subject: Subject) -> None:
    strategy, codec = subject.strategy, subject.codec

    def prop(drawn):
        call, before, after = drawn
        text = before + codec.encode([call]) + after
        expected = [call]
        for offset in range(len(text) + 1):
            cut = [text[:offset], text[offset:]]
            acc, _ = feed(strategy, cut)
            found = calls_difference(expected, strategy.extract(strategy.as_message(acc)))
            if found:
                raise split_markers.fail(
                    f"text cut at offset {offset} into {show(cut[0], 80)} + {show(cut[1], 80)}: "
                    f"{found}", {"text": text, "deltas": cut})

    check_each(split_markers, subject, _one_call_in_prose(), prop)
