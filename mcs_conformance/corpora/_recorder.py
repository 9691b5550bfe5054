"""`mcs-conformance record BODY`: turn a captured HTTP body into a corpus entry.

The body is decoded, its wire detected through the default chain, and replayed once: a stream
that ends in a `StreamError` is a valid entry (its snapshot pins the error), but a body that is
not SSE or NDJSON, holds no event, or that no strategy recognizes is refused. Calls written as
text are tried with the reference's text codecs, so a Hermes capture lands in `text/` with a
sidecar naming its strategy. The entry is written as `<corpus>/<wire>/<name>.<ext>`, byte for
byte, never over an existing one.

Exit status: 0 written, 1 refused because the entry exists, 2 unusable input or options.
"""
from __future__ import annotations

import hashlib
import json
import os
import re
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

import mcs_reference
from mcs_reference.chain import default_chain, ExtractionChain
from mcs_reference.text import TextStrategy
from mcs_conformance.base import schema
from mcs_conformance.corpora._corpus import FORMATS, META_SCHEMA, META_SUFFIX
from mcs_conformance.corpora._replay import decode, outcome

__all__ = ["Entry", "RecordError", "check_events", "check_meta", "plan", "record_command", "write"]

# Text codecs tried, in order, when the default chain finds no call in a text message.
_TEXT_CODECS = (("mcs_reference:HermesCodec", "HermesCodec"),)
_SSE_STARTS = (b"data:", b"event:", b"id:", b"retry:", b":")
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*$")


class RecordError(Exception):
    """Raised when a body cannot become a corpus entry; `status` is the exit status."""

    def __init__(self, message: str, status: int = 2):
        super().__init__(message)
        self.status = status


@dataclass(frozen=True)
class Entry:
    """What `record` will write: the stream file, its sidecar (or None), and a summary."""

    path: Path
    body: bytes
    meta: dict | None
    summary: str

    @property
    def meta_path(self) -> Path:
        return self.path.with_name(self.path.stem + META_SUFFIX)


def _chain(front: list) -> Callable[[], Any]:
    return lambda: ExtractionChain([make() for make in front] + list(default_chain()))


def _text_strategy(codec_class: str) -> Callable[[], Any]:
    codec = getattr(mcs_reference, codec_class)
    return lambda: TextStrategy(codec())


def _summary(result: dict, chunks: int) -> str:
    parts = [f"{result['wire']}, {chunks} events"]
    if "error" in result:
        error = result["error"]
        parts.append(f"ends in {error['type']}: {error['message']}")
    else:
        calls = result.get("calls") or []
        names = ", ".join(call["name"] for call in calls)
        parts.append(f"{len(calls)} call(s): {names}" if calls else "no call")
        if not result.get("done"):
            parts.append("no end-of-stream event")
    return "; ".join(parts)


def _name(args_name: str | None, source: str, body: bytes) -> str:
    if args_name is None:
        if source == "-":
            return "stream-" + hashlib.sha256(body).hexdigest()[:8]
        args_name = Path(source).name
    stem = args_name
    for suffix in (*FORMATS, ".txt", ".json"):
        if stem.endswith(suffix) and len(stem) > len(suffix):
            stem = stem[: -len(suffix)]
            break
    if not _NAME.match(stem) or stem.endswith(".meta"):
        raise RecordError(f"--name {args_name!r}: use letters, digits, '.', '_' and '-' only "
                          "(no folders, no leading dot)")
    return stem


def check_events(chunks: list, error: Any = None) -> None:
    """Refuse a decoded body that holds no event, or whose first event no strategy claims."""
    if not chunks:
        detail = f" ({error.detail})" if error is not None else ""
        raise RecordError(f"not an SSE or NDJSON body: no event could be read{detail}")
    if default_chain().resolve(chunks[0]) is None:
        shown = json.dumps(chunks[0], ensure_ascii=False, default=repr)[:100]
        raise RecordError(f"no extraction strategy recognizes the first event {shown}; "
                          "this is not a stream of a known wire")


def check_meta(meta: dict) -> None:
    """Refuse a sidecar that does not fit the schema `schemas/corpus-meta.json`."""
    problems = schema.errors(meta, META_SCHEMA)
    if problems:
        raise RecordError(f"the metadata is not valid: {'; '.join(problems)}")


def plan(body: bytes, *, corpus: Path, name: str, suffix: str = "",
         source: str | None = None, shows: str | None = None) -> Entry:
    """Check `body` and decide where it goes; raises `RecordError` when it cannot be an entry."""
    if not body.strip():
        raise RecordError("the body is empty; capture the raw HTTP response body of a streamed call")
    chunks, error = decode(body)
    check_events(chunks, error)
    kind = "eventstream" if body[:1] == b"\0" else \
        "sse" if body.lstrip().startswith(_SSE_STARTS) else "ndjson"

    def run(front: list) -> tuple[dict, set]:
        make_chain = _chain(front)
        texts = {getattr(s, "name", None) for s in make_chain().text_strategies()}
        return outcome(name, chunks, make_chain, error), texts

    result, texts = run([])
    meta: dict = {}
    if "error" not in result and not result.get("calls") and result.get("read_by") in texts:
        for target, codec_class in _TEXT_CODECS:  # a text message: try the other text codecs
            tried, tried_texts = run([_text_strategy(codec_class)])
            if "error" not in tried and tried.get("calls"):
                result, texts = tried, tried_texts
                meta = {"strategy": "mcs_reference:TextStrategy", "codec": target}
                break
    wire = result["wire"]
    if wire in texts or (result.get("calls") and result.get("read_by") in texts):
        wire = "text"  # a text stream, or calls written as text in OpenAI Chat content
    if source:
        meta["source"] = source
    if shows:
        meta["shows"] = shows
    if meta:
        meta = {"wire": wire, **meta}
        check_meta(meta)
    ext = suffix if FORMATS.get(suffix) == kind else {"sse": ".sse",
                                                      "eventstream": ".bin"}.get(kind, ".jsonl")
    return Entry(corpus / wire / f"{name}{ext}", body, meta or None, _summary(result, len(chunks)))


def write(entry: Entry, *, overwrite: bool = False) -> list[Path]:
    """Write the entry; refuses (status 1) when any stream of that name is already there.

    With `overwrite`, an entry of that name is replaced instead: its stream in another format
    and a sidecar the new entry lacks are removed (they would share its snapshot). Files are
    written under a hidden temporary name, then renamed, so a reader never sees half of one
    and concurrent writers (pytest-xdist workers) never mix their bytes. `OSError` propagates.
    """
    others = [entry.path.with_suffix(ext) for ext in FORMATS if ext != entry.path.suffix]
    taken = [path for path in [entry.path, *others] if path.exists()]
    if entry.meta is not None and entry.meta_path.exists():
        taken.append(entry.meta_path)
    if taken and not overwrite:
        raise RecordError(f"{taken[0]} already exists; choose another --name or remove it first",
                          status=1)
    entry.path.parent.mkdir(parents=True, exist_ok=True)
    _replace(entry.path, entry.body)
    written = [entry.path]
    if entry.meta is not None:
        text = json.dumps(entry.meta, indent=2, ensure_ascii=False) + "\n"
        _replace(entry.meta_path, text.encode("utf-8"))
        written.append(entry.meta_path)
    elif overwrite and entry.meta_path.exists():
        entry.meta_path.unlink()
    for path in others if overwrite else ():
        if path.exists():
            path.unlink()
    return written


def _replace(path: Path, data: bytes) -> None:
    """Write `data` to `path` through a hidden temporary file in the same folder."""
    temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        temporary.write_bytes(data)
        os.replace(temporary, path)
    finally:
        if temporary.exists():
            temporary.unlink()


def _read(source: str) -> bytes:
    if source == "-":
        return sys.stdin.buffer.read()
    path = Path(source)
    try:
        return path.read_bytes()
    except OSError as exc:
        raise RecordError(f"cannot read {source}: {exc.strerror or exc}") from None


def record_command(args: Any) -> int:
    """Run `mcs-conformance record`; print what was written and how to snapshot it."""
    try:
        body = _read(args.body)
        name = _name(args.name, args.body, body)
        suffix = "" if args.body == "-" else Path(args.body).suffix
        entry = plan(body, corpus=args.corpus, name=name, suffix=suffix,
                     source=args.source, shows=args.shows)
        written = write(entry)
    except RecordError as exc:
        print(f"mcs-conformance record: error: {exc}", file=sys.stderr)
        return exc.status
    print(f"recorded {written[0]} ({entry.summary})")
    for path in written[1:]:
        print(f"wrote {path}")
    print(f"create its snapshot: pytest --mcs-corpus={args.corpus} --snapshot-update-new-only")
    return 0
