"""Robustness clauses: bad input raises `StreamError` only; inputs are never mutated."""
from __future__ import annotations

import traceback
from typing import Any, Callable

from hypothesis import strategies as st

from mcs_reference.calls import ToolCallRecord
from mcs_reference.errors import StreamError
from mcs_conformance.base import copy_json, show
from mcs_conformance.clauses._compare import first_difference
from mcs_conformance.clauses._registry import clause, Subject
from mcs_conformance.clauses._runner import check_each
from mcs_conformance.clauses._subjects import stream_of
from mcs_conformance.wires import one_of_these, positions


def _has_wire(subject: Subject) -> bool:
    return subject.wire is not None


_garbage = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(), st.floats(), st.text(max_size=10)),
    lambda inner: st.one_of(st.lists(inner, max_size=3),
                            st.dictionaries(st.text(max_size=6), inner, max_size=3)),
    max_leaves=8,
)
_not_containers = st.one_of(st.none(), st.booleans(), st.integers(), st.floats(),
                            st.lists(_garbage, max_size=3))
_GARBAGE_CHUNKS = st.one_of(_not_containers, _garbage)  # built once: one a draw costs more


def _paths(value: Any, prefix: tuple = ()) -> list[tuple]:
    """Every path to a field inside `value` (dict keys and list indexes), outermost first."""
    out = []
    if isinstance(value, dict):
        items = list(value.items())
    elif isinstance(value, list):
        items = list(enumerate(value))
    else:
        return out
    for key, item in items:
        out.append((*prefix, key))
        out.extend(_paths(item, (*prefix, key)))
    return out


def _parent(value: Any, path: tuple) -> Any:
    for key in path[:-1]:
        value = value[key]
    return value


def _where(exc: BaseException) -> str:
    frames = traceback.extract_tb(exc.__traceback__)
    if not frames:
        return ""
    last = frames[-1]
    return f" (raised at {last.filename.rsplit('/', 1)[-1]}:{last.lineno} in {last.name})"


_SPOILS = ("replace a chunk with garbage", "insert garbage", "truncate", "duplicate a chunk",
           "move a chunk", "delete a field of a chunk", "retype a field of a chunk",
           "spoil the message")


@st.composite
def _mutated(draw: Callable, subject: Subject) -> tuple:
    """A stream or a message of the subject's wire spoiled in one drawn way."""
    case = draw(subject.wire.cases())
    chunks = [copy_json(chunk) for chunk in stream_of(subject, case)]
    kind = draw(one_of_these(_SPOILS))
    message = copy_json(case.message)
    where = draw(positions(max(len(chunks) - 1, 0)))
    said = kind
    if kind == "replace a chunk with garbage" and chunks:
        chunks[where] = draw(_GARBAGE_CHUNKS)
        said = f"chunk {where} replaced with {show(chunks[where], 60)}"
    elif kind == "insert garbage":
        chunks.insert(where, draw(_GARBAGE_CHUNKS))
        said = f"{show(chunks[where], 60)} inserted as chunk {where}"
    elif kind == "truncate":
        chunks = chunks[:where]
        said = f"stream cut after {where} chunks"
    elif kind == "duplicate a chunk" and chunks:
        to = draw(positions(len(chunks)))
        chunks.insert(to, copy_json(chunks[where]))
        said = f"chunk {where} repeated at {to}"
    elif kind == "move a chunk" and chunks:
        moved = chunks.pop(where)
        to = draw(positions(len(chunks)))
        chunks.insert(to, moved)
        said = f"chunk {where} moved to {to}"
    elif kind in ("delete a field of a chunk", "retype a field of a chunk", "spoil the message"):
        target = message if kind == "spoil the message" else (chunks[where] if chunks else None)
        paths = _paths(target)
        if paths:
            path = paths[draw(positions(len(paths) - 1))]
            parent = _parent(target, path)
            if kind == "retype a field of a chunk" or draw(st.booleans()):
                parent[path[-1]] = draw(_garbage)
                verb = f"set to {show(parent[path[-1]], 40)}"
            else:
                del parent[path[-1]]
                verb = "deleted"
            place = "the message" if target is message else f"chunk {where}"
            said = f"field {'.'.join(map(str, path))} of {place} {verb}"
    return case.wire, said, chunks, message


@clause(
    "robust.bad-input",
    level="MUST",
    meaning="Garbage, spoiled, truncated, duplicated or reordered input makes every method "
            "either succeed or raise a StreamError; a chunk that is neither a dict nor a str "
            "always raises StreamError; recognizes() never raises.",
    failure_means="One bad chunk from a server crashes the client with a KeyError or "
                  "TypeError that names nothing, instead of a StreamError it can handle.",
    typical_bug="chunk['choices'][0] without checking; a None where a dict was expected "
                "reaching .get(); an assert used to validate wire data.",
    applies=_has_wire,
)
def bad_input(subject: Subject) -> None:
    strategy = subject.strategy

    def guarded(what: str, evidence: dict, call: Callable[[], Any]) -> tuple[bool, Any]:
        try:
            return True, call()
        except StreamError:
            return False, None
        except Exception as exc:
            raise bad_input.fail(
                f"{evidence['spoiled']}: {what} raised {type(exc).__name__}: {exc}{_where(exc)}; "
                f"only a StreamError may escape", evidence) from exc

    def prop(drawn):
        wire_name, said, chunks, message = drawn
        evidence = {"wire": wire_name, "spoiled": said, "chunks": chunks}
        for index, chunk in enumerate(chunks):
            try:
                claimed = strategy.recognizes(chunk)
            except Exception as exc:
                raise bad_input.fail(
                    f"{said}: recognizes(chunk {index}) raised {type(exc).__name__}: {exc}"
                    f"{_where(exc)}; it must return False", evidence) from exc
            if claimed not in (True, False):
                raise bad_input.fail(f"{said}: recognizes(chunk {index}) returned "
                                     f"{show(claimed)}, expected a bool", evidence)
        acc = strategy.new_accumulator()
        fed = True
        for index, chunk in enumerate(chunks):
            ok, _ = guarded(f"accumulate(chunk {index})", evidence,
                            lambda: strategy.accumulate(acc, chunk))
            if ok and not isinstance(chunk, (dict, str)):
                raise bad_input.fail(
                    f"{said}: accumulate() accepted chunk {index} = {show(chunk)}; a chunk that "
                    f"is neither a dict nor a str must raise StreamError", evidence)
            if not ok:
                fed = False
                break
        if fed:
            ok, assembled = guarded("as_message()", evidence, lambda: strategy.as_message(acc))
            if ok:
                _read_all("the assembled message", assembled, guarded, evidence)
            fast = getattr(strategy, "forming_name_of", None)
            if fast is not None:
                guarded("forming_name_of(acc)", evidence, lambda: fast(acc))
        evidence = {**evidence, "message": message}
        try:
            strategy.recognizes(message)
        except Exception as exc:
            raise bad_input.fail(f"{said}: recognizes(message) raised {type(exc).__name__}: "
                                 f"{exc}{_where(exc)}", evidence) from exc
        _read_all("the message", message, guarded, evidence)

    def _read_all(what: str, message: Any, guarded: Callable, evidence: dict) -> None:
        ok, found = guarded(f"extract({what})", evidence, lambda: strategy.extract(message))
        guarded(f"content_text({what})", evidence, lambda: strategy.content_text(message))
        guarded(f"forming_name({what})", evidence, lambda: strategy.forming_name(message))
        records = []
        if ok and isinstance(found, list):
            records = [ToolCallRecord(getattr(c, "name", "?"), {}, "ok", None,
                                      getattr(c, "id", None)) for c in found]
        guarded(f"result_messages({what})", evidence,
                lambda: strategy.result_messages(message, records))

    check_each(bad_input, subject, _mutated(subject), prop)


# -- no mutation ---------------------------------------------------------------------------
_MARK = "\u2620"


def _vandalize(value: Any) -> None:
    """Overwrite everything inside a returned message, as a careless caller might."""
    if isinstance(value, dict):
        for key in list(value):
            item = value[key]
            if isinstance(item, (dict, list)):
                _vandalize(item)
            else:
                value[key] = _MARK
        value[_MARK] = _MARK
    elif isinstance(value, list):
        for index, item in enumerate(value):
            if isinstance(item, (dict, list)):
                _vandalize(item)
            else:
                value[index] = _MARK
        value.append(_MARK)


@clause(
    "robust.no-mutation",
    level="MUST",
    meaning="The strategy never mutates what it is given (chunks, messages, records), and "
            "as_message() returns fresh objects: mutating one never changes the next.",
    failure_means="A client's recorded chunks or stored history change behind its back, or a "
                  "client editing the message it got corrupts the stream being assembled.",
    typical_bug="A chunk's content block stored in the accumulator and later extended in "
                "place; as_message() returning the accumulator's own lists.",
    applies=_has_wire,
)
def no_mutation(subject: Subject) -> None:
    strategy = subject.strategy

    def same(before: Any, after: Any, what: str, case: Any) -> None:
        found = first_difference(before, after, what)
        if found:
            raise no_mutation.fail(found, case)

    def prop(case):
        given = [copy_json(chunk) for chunk in stream_of(subject, case)]
        kept = [copy_json(chunk) for chunk in given]
        acc = strategy.new_accumulator()
        for index, chunk in enumerate(given):
            strategy.recognizes(chunk)
            same(kept[index], chunk, f"recognizes() mutated chunk {index}", case)
            strategy.accumulate(acc, chunk)
            same(kept[index], chunk, f"accumulate() mutated chunk {index}", case)
        same(kept, given, "a chunk given earlier changed later; chunks", case)
        final = copy_json(strategy.as_message(acc))

        message, original = copy_json(case.message), case.message
        records = [ToolCallRecord(c.name, copy_json(c.arguments), {"ok": [1]}, None, c.id)
                   for c in case.calls]
        kept_records = [(r.name, copy_json(r.arguments), copy_json(r.result), r.tool_call_id)
                        for r in records]
        for name, call in (("recognizes", lambda: strategy.recognizes(message)),
                           ("extract", lambda: strategy.extract(message)),
                           ("content_text", lambda: strategy.content_text(message)),
                           ("forming_name", lambda: strategy.forming_name(message)),
                           ("result_messages", lambda: strategy.result_messages(message, records))):
            call()
            same(original, message, f"{name}() mutated the message it was given; message", case)
        same(kept_records, [(r.name, r.arguments, r.result, r.tool_call_id) for r in records],
             "result_messages() mutated the records it was given; records", case)

        acc = strategy.new_accumulator()
        for index, chunk in enumerate(given):
            strategy.accumulate(acc, copy_json(chunk))
            got = strategy.as_message(acc)
            before = copy_json(got)
            _vandalize(got)
            again = strategy.as_message(acc)
            same(before, again, f"after chunk {index}, mutating what as_message() returned "
                                f"changed the next as_message(): message", case)
        same(final, strategy.as_message(acc),
             "mutating what as_message() returned mid-stream changed the final message; message",
             case)

    check_each(no_mutation, subject, subject.wire.cases(), prop)
