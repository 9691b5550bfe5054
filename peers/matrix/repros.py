"""A standalone reproduction per finding, for the library's maintainers: `<name>.repro.py`
(Python peers) or `<name>.repro.mjs` (Node peers) beside the saved stream.

A repro needs nothing but the library: it serves the saved bytes from a stdlib HTTP server
as the kit served them (status, content type, chunked pieces at the saved cuts, a clean end
or a dropped connection), calls the library as the peer's harness does, prints what the
clause expects against what came, and exits 1 while the library fails, 0 once it behaves.
What the clause expects is computed here, from the reference (`mcs_reference`) reading the
saved body, and written into the repro as literals.

Three kinds of template, each in one place: `repro/skeleton.*.txt` (the server, the outcome
helpers, main), `repro/checks.*.txt` (one section per clause, as the kit judges it) and
`peers/<peer>/repro.*.txt` (the peer's library call: its harness's `run`, standalone).
"""
from __future__ import annotations

import ast
import functools
import json
import pprint
import re
import shlex
import sys
import textwrap
from pathlib import Path
from typing import Any, Callable

from mcs_reference.buffer import LLMStreamBuffer
from mcs_reference.errors import ProviderError, StreamError
from mcs_reference.sse import BodyDecoder
from mcs_conformance.clients.reference_client import outcome_of, provider_message
from mcs_conformance.wires import PROGRAMMATIC_BETA, QUIRK_FEATURES, content_type, tool_definition

from .catalog import PEERS, REPO, Peer, load_peer

TEMPLATES = Path(__file__).resolve().parent / "repro"
FINDINGS = PEERS / "findings"
SUFFIXES = {"python": ".repro.py", "node": ".repro.mjs"}
LANGUAGE_EXT = {"python": "py", "node": "mjs"}
META, RAW, RAW_META = ".meta.json", ".body", ".finding.json"
PROTOCOL = PEERS / "_protocol.py"  # its helpers go into each Python repro, as they are
_INCLUDE = re.compile(r"^@include (\S+)$", re.M)
#: the check sections each clause's repro holds (repro/checks.*.txt)
SECTIONS = {"client.calls": ("same", "client.calls"), "client.message": ("same", "client.message"),
            "client.truncated": ("an error",), "client.early-end": ("an error",),
            "client.provider-error": ("an error",)}


class ReproError(ValueError):
    """A finding the generator cannot write a repro for; the message says which and why."""


def finding_of(path: Path) -> tuple[Path, Path, dict]:
    """The saved body, its sidecar and the `x-mcs-finding` record, from either file."""
    name = path.name
    for suffix in (META, RAW_META):
        if name.endswith(suffix):
            stem = name[: -len(suffix)]
            found = [p for p in path.parent.glob(f"{glob_escape(stem)}.*")
                     if p.name[len(stem):] not in (META, RAW_META) and ".repro." not in p.name]
            if len(found) != 1:
                raise ReproError(f"{path}: expected one saved body beside it, found "
                                 f"{[p.name for p in found]}")
            path = found[0]
    meta = path.with_name(path.stem + (RAW_META if path.suffix == RAW else META))
    try:
        data = json.loads(meta.read_text("utf-8"))
    except (OSError, ValueError) as exc:
        raise ReproError(f"{path}: cannot read its sidecar {meta.name} ({exc})") from None
    finding = data if path.suffix == RAW else data.get("x-mcs-finding")
    if not isinstance(finding, dict):
        raise ReproError(f"{meta}: holds no x-mcs-finding; not a finding of peers/run.py")
    return path, meta, finding


def glob_escape(text: str) -> str:
    return re.sub(r"([\[\]*?])", r"[\1]", text)


def repro_path(stream: Path, language: str) -> Path:
    return stream.with_name(stream.stem + SUFFIXES[language])


def existing_repro(stream: Path) -> Path | None:
    """The repro written beside a saved body, if any (the page links it)."""
    return next((repro_path(stream, language) for language in SUFFIXES
                 if repro_path(stream, language).exists()), None)


# -- what the case asked for ----------------------------------------------------------------
THINKING_BUDGET = 1024  # the budget_tokens wires.case_request tells for a case with thinking


def request_of(finding: dict, body: bytes) -> dict:
    """The request the harness made for the finding's case (protocol v2): the one the finding
    saved, else the one its body needs (`derived_request`)."""
    saved = finding.get("request")
    return saved if isinstance(saved, dict) else derived_request(finding, body)


_DECODING = {"ollama-chat": "ndjson", "bedrock-converse": "eventstream"}  # else SSE


def _chunks(body: bytes, wire: str) -> list:
    """The JSON chunks of `body`, as far as they go (a body cut early keeps what came)."""
    decoder = BodyDecoder(format=_DECODING.get(wire, "sse"))
    chunks = []
    try:
        chunks += decoder.feed(body)
        chunks += decoder.close()
    except StreamError:
        pass
    return [chunk for chunk in chunks if isinstance(chunk, dict)]


def _listed(value: Any) -> list:
    return [item for item in value if isinstance(item, dict)] if isinstance(value, list) else []


def derived_request(finding: dict, body: bytes) -> dict:
    """What a finding saved before requests were kept needed, read from its body as
    `wires.case_request` reads a case: a tool per call name the body streams, `n` for several
    Chat choices, `include_usage` for a usage-only chunk, Anthropic thinking for thinking
    blocks, the programmatic beta for calls made from code execution."""
    wire, quirks = finding["wire"], set(finding.get("quirks") or ())
    chunks, names, request = _chunks(body, wire), set(), {}
    needs = {QUIRK_FEATURES[quirk] for quirk in quirks if quirk in QUIRK_FEATURES}
    if wire == "openai-chat":
        choices = [c for chunk in chunks for c in _listed(chunk.get("choices"))]
        names = {(c.get("function") or {}).get("name") for choice in choices
                 for c in _listed((choice.get("delta") or {}).get("tool_calls"))}
        count = 1 + max((c.get("index", 0) for c in choices if isinstance(c.get("index"), int)),
                        default=0)
        if count > 1:
            request["n"] = count
        if "include_usage" in needs or any(not chunk.get("choices") and chunk.get("usage")
                                           for chunk in chunks):
            request["include_usage"] = True
    elif wire == "anthropic-messages":
        starts = [chunk.get("message") or {} for chunk in chunks
                  if chunk.get("type") == "message_start"]
        blocks = [*(b for start in starts for b in _listed(start.get("content"))),
                  *(chunk.get("content_block") or {} for chunk in chunks
                    if chunk.get("type") == "content_block_start")]
        names = {b.get("name") for b in blocks if b.get("type") == "tool_use"}
        if "thinking" in needs or any(b.get("type") in ("thinking", "redacted_thinking")
                                      for b in blocks):
            request["thinking"] = {"budget_tokens": THINKING_BUDGET}
        whole_input = any(b.get("type") == "tool_use" and b.get("input") for b in blocks)
        from_code = any("tool_id" in (b.get("caller") or {}) for b in blocks)
        prefilled = any(_listed(start.get("content")) for start in starts)
        if "programmatic_tool_calling" in needs or whole_input or from_code or prefilled:
            request["betas"] = [PROGRAMMATIC_BETA]
    elif wire == "openai-responses":
        items = [*(chunk.get("item") or {} for chunk in chunks),
                 *(item for chunk in chunks
                   for item in _listed((chunk.get("response") or {}).get("output")))]
        names = {item.get("name") for item in items
                 if item.get("type") in ("function_call", "custom_tool_call")}
    else:
        names = {(c.get("function") or {}).get("name") for chunk in chunks
                 for c in _listed((chunk.get("message") or {}).get("tool_calls"))}
    truth, malformed, _ = _reference(body, wire)
    if truth is not None and wire != "openai-responses":  # its client-run kinds are no tools
        names |= {c["name"] for c in truth["calls"]} | {c.name for c in malformed}
    tools = sorted(name for name in names if isinstance(name, str) and name)
    return {"tools": [tool_definition(name) for name in tools], **request}


# -- what the clause expects -----------------------------------------------------------------
def _reference(body: bytes, wire: str) -> tuple[dict | None, list, StreamError | None]:
    """What the reference reads in `body`: its outcome, its malformed calls, or its error."""
    decoder = BodyDecoder(format=_DECODING.get(wire, "sse"))
    buffer = LLMStreamBuffer()
    try:
        for chunk in [*decoder.feed(body), *decoder.close()]:
            buffer.add(chunk)
    except StreamError as exc:
        return None, [], exc
    if buffer.strategy is None:
        return None, [], None
    malformed = [c for c in buffer.strategy.extract(buffer.as_dict()) if c.error is not None]
    return outcome_of(buffer), malformed, None


def expected(finding: dict, body: bytes) -> tuple[str, dict]:
    """Where the expected values come from (a comment) and the values, by constant name."""
    clause, wire = finding["clause"], finding["wire"]
    if clause == "client.byte-cuts":
        return "the outcome of the body sent whole", {}
    if clause == "client.http-error":
        return "the message in the error body", {"PROVIDER_MESSAGE": provider_message(body)}
    truth, malformed, error = _reference(body, wire)
    if clause in ("client.truncated", "client.early-end"):
        how = "closes cleanly" if finding["complete"] else "drops"
        return "the body stops early", {"EXPECTED_BECAUSE": (
            f"the body stops after {len(body)} bytes, before the wire's end signal, and the "
            f"connection {how}")}
    if clause == "client.provider-error":
        shown = json.dumps(error.error if isinstance(error, ProviderError) else None)
        return "the body ends in a provider error", {
            "EXPECTED_BECAUSE": f"the stream ends in the provider error {shown}"}
    source = "what the reference, mcs_reference, reads in the saved body"
    if truth is None:
        raise ReproError(f"the reference reads no complete stream in the body "
                         f"({error or 'no chunk'}): {clause} cannot be stated")
    if clause == "client.calls":
        return source, {"EXPECTED_CALLS": truth["calls"], "ERROR_IS_RIGHT": bool(malformed)}
    if clause in ("client.text", "client.no-phantom"):
        return source, {"EXPECTED_TEXT": truth["text"]}
    if clause == "client.message":
        return source, {"EXPECTED_MESSAGE": truth["message"]}
    if clause == "client.malformed" and malformed:
        return source, {"EXPECTED_NAME": malformed[0].name,
                        "EXPECTED_RAW": malformed[0].raw_arguments or ""}
    raise ReproError(f"no expected values for {clause} on this body")


def _literal(value: object, language: str) -> str:
    if language == "python" and isinstance(value, str):
        return repr(value)
    if language == "python":
        return pprint.pformat(value, width=92, sort_dicts=False)
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= 80 else json.dumps(value, ensure_ascii=False, indent=2)


def _constants(values: dict, language: str) -> str:
    lines = []
    for name, value in values.items():
        if name == "ERROR_IS_RIGHT":
            lines.append(("# True: the stream holds a malformed call; an error for it is "
                          "client.malformed's to judge" if language == "python" else
                          "// true: the stream holds a malformed call; an error for it is "
                          "client.malformed's to judge"))
        literal = _literal(value, language)
        lines.append(f"{name} = {literal}" if language == "python" else f"const {name} = {literal};")
    return "\n".join(lines) or ("# (none beyond the body)" if language == "python" else
                                "// (none beyond the body)")


# -- templates -------------------------------------------------------------------------------
def _without_header(text: str) -> str:
    """A template without its first paragraph when that is a comment (it is about the file)."""
    head, _, rest = text.partition("\n\n")
    return rest if head.lstrip().startswith(("#", "//")) else text


def _library_section(peer: Peer) -> str:
    template = peer.folder / f"repro.{LANGUAGE_EXT[peer.language]}.txt"
    if not template.is_file():
        raise ReproError(f"{peer.name}: no {template.relative_to(PEERS.parent)} (the library "
                         "call of its repros: its harness's run, standalone)")
    text = _without_header(template.read_text("utf-8"))
    return _INCLUDE.sub(lambda m: _without_header(
        (template.parent / m.group(1)).read_text("utf-8")).strip(), text).strip()


def _check_section(clause: str, language: str) -> str:
    text = (TEMPLATES / f"checks.{LANGUAGE_EXT[language]}.txt").read_text("utf-8")
    marker = "# == " if language == "python" else "// == "
    sections = {}
    for part in text.split("\n" + marker)[1:]:
        title, _, body = part.partition("\n")
        sections[title.strip()] = body.strip()
    wanted = SECTIONS.get(clause, (clause,))
    missing = [name for name in wanted if name not in sections]
    if missing:
        raise ReproError(f"{clause}: no check section {missing[0]!r} in checks.*.txt")
    return "\n\n\n".join(sections[name] for name in wanted)


def _protocol_helpers(uses: str, run: str) -> str:
    """The helpers of peers/_protocol.py that `uses` (the rest of a Python repro) calls,
    with those they call, copied as they are: the repro runs the harness's own code. One
    whose name the library section `run` defines for itself (the harness's own module kept
    them apart) is copied as `protocol_<name>`."""
    source = PROTOCOL.read_text("utf-8")
    helpers = {node.name: ast.get_source_segment(source, node)
               for node in ast.parse(source).body
               if isinstance(node, ast.FunctionDef) and node.name != "serve"}
    own = {node.name for node in ast.parse(run).body if isinstance(node, ast.FunctionDef)}
    wanted: list[str] = []
    while True:
        copied = "\n".join(helpers[name] for name in wanted)
        more = [name for name in helpers if name not in wanted and (
            re.search(rf"\b{name}\(", copied)
            or name not in own and re.search(rf"\b{name}\(", uses))]
        if not more:
            break
        wanted += more
    code = "\n\n\n".join(text for name, text in helpers.items() if name in wanted)
    for name in own & set(wanted):
        code = re.sub(rf"\b{name}(?=\()|(?<=`){name}(?=`)", f"protocol_{name}", code)
    return code


def _install(peer: Peer) -> str:
    """The command that installs what the peer's environment pins."""
    if peer.language == "node":
        manifest = json.loads((peer.folder / "package.json").read_text("utf-8"))
        return "npm install " + " ".join(f"{name}@{version}" for name, version in
                                         manifest.get("dependencies", {}).items())
    pins = [line.strip() for line in (peer.folder / "requirements.txt").read_text(
        "utf-8").splitlines() if line.strip() and not line.startswith("#")]
    return "pip install " + " ".join(shlex.quote(pin) for pin in pins)


def _about(peer: Peer, body_file: str, clause: str) -> str:
    runs = "(or run it from a folder where those packages are installed). " \
        if peer.language == "node" else ""
    return (f"{runs}It serves the saved body ({body_file}, next to this file) from a local HTTP "
            f"server as the kit served it, calls the library as peers/{peer.name}/{peer.harness} "
            f"does, and prints what {clause} expects against what the library gave. Exit 1: the "
            "bug is there (the last line says it still fails); exit 0: the library behaves.")


def _comment(text: str, language: str) -> str:
    wrapped = "\n".join(textwrap.wrap(text, 88, break_long_words=False, break_on_hyphens=False))
    if language == "python":
        return wrapped.replace("\\", "\\\\").replace('"""', '\\"\\"\\"')
    return wrapped.replace("\n", "\n// ")


def render(path: Path) -> tuple[Path, str]:
    """The repro of the finding saved at `path` (its body or its sidecar): where it goes and
    its text."""
    stream, meta, finding = finding_of(path)
    peer = load_peer(PEERS / finding["peer"])
    language, body = peer.language, stream.read_bytes()
    status = finding["status"]
    source, values = expected(finding, body)
    target = repro_path(stream, language)
    request = request_of(finding, body)
    title = (f"{peer.name} {finding['version']} fails {finding['clause']} on {finding['wire']} "
             f"(quirks: {', '.join(finding['quirks']) or 'none'})")
    fields = {
        "TITLE": title, "TITLE_LITERAL": json.dumps(title), "PEER": peer.name,
        "REASON": _comment(f"The kit's reason: {finding['reason']}", language),
        "ABOUT": _comment(_about(peer, stream.name, finding["clause"]), language),
        "INSTALL": _install(peer), "SELF": target.name, "BODY_FILE": stream.name,
        "META_FILE": meta.name, "CLAUSE": finding["clause"], "LIBRARY": peer.library,
        "WIRE": finding["wire"], "STATUS": str(status),
        "CONTENT_TYPE": content_type(finding["wire"]) if status == 200 else "application/json",
        "CUTS": json.dumps(finding["cuts"]),
        "COMPLETE": (str(finding["complete"]) if language == "python"
                     else json.dumps(finding["complete"])),
        "EXPECTED_SOURCE": source, "EXPECTED": _constants(values, language),
        "REQUEST": _literal(request, language),
        "RUN": _library_section(peer), "CHECK": _check_section(finding["clause"], language),
    }
    skeleton = (TEMPLATES / f"skeleton.{LANGUAGE_EXT[language]}.txt").read_text("utf-8")
    if language == "python":
        fields["PROTOCOL"] = _protocol_helpers(skeleton + fields["RUN"] + fields["CHECK"],
                                               fields["RUN"])
    if sum(finding["cuts"]) != len(body):
        raise ReproError(f"{stream}: its cuts add up to {sum(finding['cuts'])} bytes, the body "
                         f"has {len(body)}")
    return target, re.sub(r"\{\{(\w+)\}\}", lambda m: fields[m.group(1)], skeleton)


def write_repro(path: Path) -> Path | None:
    """Write the repro of the finding saved at `path`; returns it. A finding of a peer the
    catalogue does not know (a test's made-up peer) gets none: None."""
    _, _, finding = finding_of(path)
    if not (PEERS / str(finding.get("peer")) / "peer.json").is_file():
        return None
    target, text = render(path)
    target.write_text(text, "utf-8")
    return target


def also_writes_repro(save: Callable[..., tuple[str, str | None]]) -> Callable:
    """`findings.save`, then the repro of what it kept; a repro that cannot be written is
    said on stderr and leaves the finding as it is."""
    @functools.wraps(save)
    def saving(*args: Any, **kwargs: Any) -> tuple[str, str | None]:
        kept, note = save(*args, **kwargs)
        try:
            write_repro(REPO / kept)
        except ReproError as exc:
            print(f"peers/matrix/repros.py: no repro for {kept}: {exc}", file=sys.stderr)
        return kept, note

    return saving


def saved_findings(root: Path = FINDINGS) -> list[Path]:
    """The sidecar of every finding saved under `root`."""
    return sorted(path for path in root.rglob("*") if "__snapshots__" not in path.parts
                  and (path.name.endswith(META) or path.name.endswith(RAW_META)))


def write_all(root: Path = FINDINGS) -> tuple[list[Path], list[str]]:
    """Write the repro of every finding under `root` and remove repros left without one;
    returns what it wrote and what it could not write (one line each)."""
    written, problems = [], []
    for meta in saved_findings(root):
        try:
            repro = write_repro(meta)
        except ReproError as exc:
            problems.append(f"{meta.relative_to(PEERS.parent)}: {exc}")
        else:
            written += [repro] if repro else []
    for stale in set(root.rglob("*.repro.*")) - set(written):
        stale.unlink()
    return written, problems
