"""Shrunk failures kept as regression cases: `pytest --mcs-strategy=X --mcs-save-failures=DIR`.

When a clause fails, the stream of its shrunk counterexample becomes a corpus entry (see
corpus.py) that `pytest --mcs-corpus=DIR --mcs-strategy=X` replays against a snapshot: the
body as the provider would send it (SSE, `event:` lines where the wire names its events,
`data: [DONE]` after OpenAI Chat; NDJSON for Ollama), in `DIR/<wire>/<clause>--<target>.<ext>`,
one name per clause, strategy and wire so that a rerun replaces it, and a sidecar saying where
it comes from and what it showed. A text strategy is fed str deltas, so its stream is saved
as those deltas (`.jsonl`, one JSON string a line), with a codec in the sidecar (the codec
decides what the text means): the reference's codec when the strategy's derives from it, so
that a replay without `--mcs-strategy` reads the text as the reference does.

Saved: any chunk list of a built-in wire that reads back unchanged from its body and whose
first chunk the reference recognizes; the spoiled streams of `robust.bad-input` too (their
snapshot pins the reference's `StreamError`, which a crashing strategy does not give).
Not saved, with the reason: a counterexample with no stream (a message, a list of shapes), a
third party's wire, a stream the reference itself replays differently once re-chunked. A
saved stream whose replay through the failing strategy gives the reference's outcome is kept
but flagged: the corpus outcome does not see every bug (`is_done` per chunk, mutation,
`forming_name`).

Everything runs in the process that ran the clause (an xdist worker writes its own files,
renamed into place); what was saved travels to the terminal summary in `user_properties`.
"""
from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from mcs_reference import HermesCodec, JsonCodec
from mcs_reference.chain import default_chain, ExtractionChain
from mcs_conformance.base import import_object
from mcs_conformance.clauses import ClauseTimeout, time_limit
from mcs_conformance.corpora._corpus import Meta
from mcs_conformance.corpora._recorder import check_events, check_meta, Entry, RecordError, write
from mcs_conformance.corpora._replay import decode, replay, wire_labels
from mcs_conformance.wires import BUILT_IN, frame_body

__all__ = ["NOT_SAVED", "SAVED", "NotSaved", "Saved", "body_of", "entry_name", "fed_stream",
           "save", "save_failure", "summary_line"]

SAVED = "mcs_saved"  # user property: {"path": absolute path, "note": str | None}
NOT_SAVED = "mcs_not_saved"  # user property: "<clause> (<target>): <why>"
_UNSAFE = re.compile(r"[^A-Za-z0-9._-]")
_TARGET = re.compile(r"^[A-Za-z_]\w*(\.[A-Za-z_]\w*)*:[A-Za-z_]\w*(\.[A-Za-z_]\w*)*$", re.ASCII)


class NotSaved(Exception):
    """Why a failure's counterexample cannot become a corpus entry (one line)."""


@dataclass(frozen=True)
class Fed:
    """The stream a clause fed the strategy: its wire, the chunks, and whether they are the
    bare str deltas of a text strategy."""

    wire: str
    chunks: list
    deltas: bool = False


@dataclass(frozen=True)
class Saved:
    """An entry written, and what the reference made of it (to compare the strategy with)."""

    path: Path
    stream_id: str
    body: bytes
    wire: str | None
    fronts: tuple
    reference: dict | None  # the reference's outcome; None when the kit has no reference reader


def fed_stream(case: Any, subject: Any) -> Fed:
    """The stream inside a counterexample (a wire `Case` or a dict of evidence)."""
    own = getattr(subject.wire, "name", None)
    if hasattr(case, "chunks") and hasattr(case, "message"):
        if subject.is_text and case.wire == "text" and case.deltas is not None:
            fed = Fed("text", list(case.deltas), True)
        else:
            fed = Fed(case.wire, list(case.chunks))
    elif isinstance(case, dict) and isinstance(case.get("chunks"), list):
        wire = case.get("wire") or own
        fed = Fed(wire, list(case["chunks"]), subject.is_text and wire == "text")
    elif isinstance(case, dict) and isinstance(case.get("deltas"), list):
        fed = Fed("text", list(case["deltas"]), True)
    elif case is None:
        raise NotSaved("the failure has no counterexample")
    else:
        held = ", ".join(map(str, case)) if isinstance(case, dict) else type(case).__name__
        raise NotSaved(f"its counterexample holds no stream, only {held}")
    if fed.wire not in BUILT_IN:
        raise NotSaved(f"{fed.wire!r} is not a built-in wire (a corpus replays "
                       f"{', '.join(BUILT_IN)})")
    if not fed.chunks:
        raise NotSaved("its stream is empty")
    return fed


def body_of(fed: Fed) -> bytes:
    """The HTTP body that carries `fed`; `NotSaved` unless it decodes back to the same chunks."""
    try:
        body = frame_body(fed.wire, fed.chunks, deltas=fed.deltas)
    except ValueError as exc:
        raise NotSaved(str(exc)) from None
    chunks, error = decode(body)
    if error is not None:
        raise NotSaved(f"its body does not read back: {error}")
    if chunks != fed.chunks:
        index = next((i for i, (a, b) in enumerate(zip(chunks, fed.chunks)) if a != b),
                     min(len(chunks), len(fed.chunks)))
        raise NotSaved(f"chunk {index} does not read back unchanged from the body "
                       f"({len(fed.chunks)} chunks written, {len(chunks)} read)")
    return body


def entry_name(clause_id: str, target: str) -> str:
    """`<clause>--<target>`, `:` as `-`: stable, so a rerun of the same failure replaces it."""
    name = f"{clause_id}--{target.replace(':', '-')}"
    if _UNSAFE.search(name):  # a target no file name can spell: keep it apart by its hash
        digest = hashlib.sha256(name.encode()).hexdigest()[:8]
        name = f"{_UNSAFE.sub('_', name)}-{digest}"
    return name


def codec_spec(subject: Any) -> tuple[str | None, bool]:
    """The codec a sidecar names for the subject's text, and whether it is the reference's.

    A codec derived from one of the reference's is named as that reference codec: its format
    is the reference's, whose reading is the one to pin. Another is named by its own class
    when the corpus can build it from that name; else none is named. Without a codec the
    default chain reads the text, and it is the reference.
    """
    codec = subject.codec
    if codec is None:
        return None, True

    for reference, spec in ((HermesCodec, "mcs_reference:HermesCodec"),
                            (JsonCodec, "mcs_reference:JsonCodec")):
        if isinstance(codec, reference):
            return spec, True
    cls = type(codec)
    spec = f"{cls.__module__}:{cls.__qualname__}"
    if not _TARGET.match(spec):
        return None, False
    try:
        if import_object(spec) is not cls:
            return None, False
        Meta(path=Path("sidecar"), codec=spec).front()
    except Exception:  # not importable or not constructible: the sidecar cannot name it
        return None, False
    return spec, False


def _chain(fronts: tuple | list) -> Callable[[], Any]:
    return lambda: ExtractionChain([make() for make in fronts] + list(default_chain()))


def save(root: Path, *, clause_id: str, target: str, subject: Any, case: Any, reason: str,
         profile: str, seed: int, reproduce: str) -> Saved:
    """Write the failure's stream and sidecar into `root`; `NotSaved` says why it cannot."""
    fed = fed_stream(case, subject)
    body = body_of(fed)
    try:
        check_events(fed.chunks)
    except RecordError as exc:
        raise NotSaved(str(exc)) from None
    codec, judged = codec_spec(subject) if fed.wire == "text" else (None, True)
    fronts = tuple(Meta(path=Path("sidecar"), codec=codec).front()) if codec else ()
    name = entry_name(clause_id, target)
    ext = ".jsonl" if fed.deltas else {"ollama-chat": ".ndjson",
                                       "bedrock-converse": ".bin"}.get(fed.wire, ".sse")
    stream_id = f"{fed.wire}/{name}{ext}"
    reference, mismatches = replay(stream_id, body, _chain(fronts))
    if mismatches:
        raise NotSaved(f"even the reference replays it differently once re-chunked "
                       f"({mismatches[0].how})")
    wire = fed.wire if fed.wire in wire_labels(reference, _chain(fronts)) else None
    fed_as = "the str deltas fed to it" if fed.deltas else "the chunks fed to it"
    meta: dict = {
        **({"wire": wire} if wire else {}),
        "source": f"mcs-conformance: the shrunk counterexample of {clause_id} for {target} "
                  f"(profile {profile}, seed {seed}); {fed_as}",
        "shows": f"{target} fails {clause_id}: {reason}",
        **({"codec": codec} if codec else {}),
        "x-mcs-failure": {"clause": clause_id, "target": target, "strategy": subject.name,
                          "profile": profile, "seed": seed, "reason": reason,
                          "reproduce": reproduce},
    }
    try:
        check_meta(meta)
    except RecordError as exc:
        raise NotSaved(str(exc)) from None
    path = root / fed.wire / f"{name}{ext}"
    try:
        write(Entry(path, body, meta, summary=""), overwrite=True)
    except OSError as exc:
        where = exc.filename or path
        raise NotSaved(f"cannot write {where}: {exc.strerror or exc}") from None
    return Saved(path, stream_id, body, wire, fronts, reference if judged else None)


def replay_note(saved: Saved, make: Callable[[], Any]) -> str | None:
    """None when replaying the entry through the strategy (`make`) in front of the chain
    gives another outcome than the reference's (or when there is no reference to compare
    with: a codec of the user's own); else a note that the corpus cannot see the failure."""
    if saved.reference is None:
        return None
    chain = _chain((make, *saved.fronts))
    try:
        result, mismatches = replay(saved.stream_id, saved.body, chain)
        if saved.wire is not None and saved.wire not in wire_labels(result, chain):
            return None
    except Exception:  # the strategy crashes on it: the corpus test fails too
        return None
    if result == saved.reference and not mismatches:
        return "its replay gives the reference's outcome: the corpus does not see this failure"
    return None


def save_failure(item: Any, failure: Any) -> tuple[str, Any]:
    """Save a failed clause's counterexample; the user property that says what happened.

    Never raises for what saving runs into: the clause failure is what the run reports.
    """
    settings, loaded, clause = item.mcs, item.loaded, item.clause
    label = f"{clause.id} ({loaded.target})"
    try:
        saved = save(settings.save_failures, clause_id=clause.id, target=loaded.target,
                     subject=item.subject(), case=failure.case, reason=failure.reason,
                     profile=settings.profile, seed=settings.seed, reproduce=item.reproduce())
    except NotSaved as exc:
        return NOT_SAVED, f"{label}: {exc}"
    except Exception as exc:
        return NOT_SAVED, f"{label}: saving raised {type(exc).__name__}: {exc}"
    try:
        with time_limit(settings.timeout):
            note = replay_note(saved, loaded.make)
    except ClauseTimeout:
        note = f"its replay through {loaded.target} did not end within {settings.timeout:g} s"
    return SAVED, {"path": str(saved.path), "note": note}


def summary_line(reports: list, root: Path, cwd: Path | None = None) -> str:
    """One line: the entries saved (relative to `root`) and the failures not saved, why;
    `root` is shown relative to `cwd` when it is inside it."""
    saved, not_saved = [], []
    for report in reports:
        for key, value in getattr(report, "user_properties", ()):
            if key == SAVED:
                path = Path(value["path"])
                shown = path.relative_to(root).as_posix() if root in path.parents else str(path)
                saved.append(shown + (f" ({value['note']})" if value.get("note") else ""))
            elif key == NOT_SAVED:
                not_saved.append(value)
    where = root.relative_to(cwd).as_posix() if cwd is not None and cwd in root.parents else root
    if not saved and not not_saved:
        return f"mcs-conformance: nothing saved into {where} (no clause failed on a counterexample)"
    parts = []
    if saved:
        parts.append(f"saved {len(saved)} failure(s) into {where}: {', '.join(saved)}")
    if not_saved:
        parts.append(f"not saved: {'; '.join(not_saved)}")
    return "mcs-conformance: " + "; ".join(parts)
