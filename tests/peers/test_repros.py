"""The standalone repros beside the findings (peers/matrix/repros.py).

Every saved finding has its repro, exactly as the generator writes it today; a repro
imports nothing of the kit or the harnesses; each repro of the SDKs in the test extra
(openai, anthropic) still fails its clause: exit 1, printing what the clause expects and what
came. Repros of made-up findings on streams the SDK reads right exit 0, and a repro whose
expectation is wrong exits 1: the exit code is the verdict, both ways.

The repros run in this process (`runpy`, as `__main__`): an SDK is imported once per worker,
not once per repro, and each repro's server takes a free port, so the tests stay fast and
parallel-safe. That they need nothing but the library is checked on their imports.
"""
from __future__ import annotations

import ast
import json
import re
import runpy
import shutil
import sys
from importlib.metadata import version
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mcs_conformance import clients
from mcs_conformance.wires import QUIRKS, Requestable, case_request, tool_definition

PEERS = Path(__file__).resolve().parents[2] / "peers"
sys.path.insert(0, str(PEERS))
from matrix import catalog, findings, page, repros  # noqa: E402

CORPUS = PEERS.parent / "corpora"
SDK_PEERS = ("openai", "anthropic")
NOT_STANDALONE = {"mcs_conformance", "mcs_reference", "_protocol", "_langchain", "matrix"}


def run_repro(path: Path, capsys) -> tuple[int, str]:
    """Run the repro as a script; its exit code and what it printed."""
    with pytest.raises(SystemExit) as stopped:
        runpy.run_path(str(path), run_name="__main__")
    return stopped.value.code, capsys.readouterr().out


def _sdk_repros() -> list:
    return [pytest.param(name, path, id=f"{name}/{path.name}") for name in SDK_PEERS
            for path in sorted((PEERS / "findings" / name).rglob("*.repro.py"))]


def _skip_unless_pinned(name: str) -> None:
    peer = catalog.load_peer(PEERS / name)
    if version(peer.library) != peer.pinned():
        pytest.skip(f"{peer.library} {version(peer.library)} is installed; the repros speak of "
                    f"{peer.pinned()} (peers/{name}/requirements.txt)")


def test_every_finding_has_its_repro_as_the_generator_writes_it():
    kept = [meta for peer in catalog.load_peers()
            for meta in repros.saved_findings(PEERS / "findings" / peer.name)]
    assert len(kept) >= 10
    stale = []
    for meta in kept:
        target, text = repros.render(meta)
        if not target.exists() or target.read_text("utf-8") != text:
            stale.append(target.relative_to(PEERS).as_posix())
    assert stale == [], "regenerate them with `python peers/run.py --repros`"


def test_repros_import_nothing_of_the_kit_nor_of_the_harnesses():
    leaks = []
    for path in sorted((PEERS / "findings").rglob("*.repro.py")):
        for node in ast.walk(ast.parse(path.read_text("utf-8"))):
            names = ([alias.name for alias in node.names] if isinstance(node, ast.Import)
                     else [node.module or ""] if isinstance(node, ast.ImportFrom) else [])
            leaks += [f"{path.name}: {name}" for name in names
                      if name.split(".")[0] in NOT_STANDALONE]
    for path in sorted((PEERS / "findings").rglob("*.repro.mjs")):
        leaks += [f"{path.name}: {m}" for m in re.findall(r"require\('([./][^']*)'\)",
                                                          path.read_text("utf-8"))]
    assert leaks == []


@pytest.mark.parametrize(("name", "path"), _sdk_repros())
def test_each_sdk_repro_still_fails_and_says_what_was_expected(name, path, capsys):
    _skip_unless_pinned(name)
    code, out = run_repro(path, capsys)
    assert code == 1, out
    assert re.search(r"^expected: .+\n^got: +.+", out, re.M), out
    assert out.rstrip().endswith("still fails (exit 1)"), out


def test_there_are_sdk_repros_to_run():
    assert len(_sdk_repros()) >= 10


# -- made-up findings: the exit code follows the library ---------------------------------------
def saved(folder: Path, clause: str, body: bytes, *, peer: str = "openai",
          wire: str = "openai-chat", cuts: list[int] | None = None, complete: bool = True,
          status: int = 200, mode: str = "test", request: dict | None = None) -> Path:
    """A finding saved as the runner saves one (`mode`: the name's `--quirks-` part, with
    its `--2` when one is wanted); returns its body's path."""
    (folder / wire).mkdir(parents=True, exist_ok=True)
    name = f"{clause.removeprefix('client.')}--{wire}--quirks-{mode}"
    stream = folder / wire / (name + (".sse" if status == 200 else findings.RAW))
    stream.write_bytes(body)
    finding = {"peer": peer, "version": "test", "clause": clause, "wire": wire, "quirks": [],
               "quirks_mode": mode.split("--")[0], "status": status, "complete": complete,
               "cuts": cuts or [len(body)], "outcome": None, "whole_outcome": None,
               "reason": "made up by tests/peers/test_repros.py", "severity": "fidelity",
               **({"request": request} if request is not None else {})}
    if status == 200:
        stream.with_name(name + ".meta.json").write_text(json.dumps({"x-mcs-finding": finding}))
    else:
        stream.with_name(name + findings.RAW_META).write_text(json.dumps(finding))
    return stream


def made_up(folder: Path, clause: str, body: bytes, **more) -> Path:
    """A made-up finding and its repro; returns the repro."""
    return repros.write_repro(saved(folder, clause, body, **more))


def _pieces(size: int, every: int) -> list[int]:
    return [every] * (size // every) + ([size % every] if size % every else [])


def _stream(path: str) -> bytes:
    return (CORPUS / path).read_bytes()


def _early_end(body: bytes) -> bytes:
    """`body` up to the end of an event before its last: no end signal, a clean end."""
    return body[:body.rindex(b"\n\n", 0, len(body) - 20) + 2]


RATE_LIMIT = json.dumps({"error": {"message": "Rate limit reached for mcs-model",
                                   "type": "rate_limit_exceeded"}}).encode()
BEHAVES = {
    "calls": dict(clause="client.calls", body=_stream("openai-chat/parallel-calls-empty-arguments.sse")),
    "text": dict(clause="client.text", body=_stream("openai-chat/text-stop.sse")),
    "no-phantom": dict(clause="client.no-phantom", body=_stream("openai-chat/text-stop.sse")),
    "byte-cuts": dict(clause="client.byte-cuts", body=_stream("openai-chat/text-stop.sse")),
    "provider-error": dict(clause="client.provider-error",
                           body=_stream("openai-chat/error-object-midstream.sse")),
    "truncated, dropped": dict(clause="client.truncated", complete=False,
                               body=_stream("openai-chat/parallel-calls-empty-arguments.sse")[:300]),
    "early-end": dict(clause="client.early-end", wire="openai-responses", body=_early_end(
        _stream("openai-responses/function-call-argument-deltas.sse"))),
    "calls, two choices (n=2)": dict(clause="client.calls",
                                     body=_stream("openai-chat/two-choices-interleaved.sse")),
    "http-error": dict(clause="client.http-error", status=429, body=RATE_LIMIT),
    "message": dict(clause="client.message", peer="anthropic", wire="anthropic-messages",
                    body=_stream("anthropic-messages/text-then-tool-use.sse")),
}


@pytest.mark.parametrize("case", list(BEHAVES))
def test_a_repro_exits_0_when_the_library_behaves(case, tmp_path, capsys):
    spec = dict(BEHAVES[case])
    _skip_unless_pinned(spec.get("peer", "openai"))
    if spec.get("status", 200) == 200:  # cut in pieces, as the kit cuts bodies
        spec["cuts"] = _pieces(len(spec["body"]), 37)
    code, out = run_repro(made_up(tmp_path, **spec), capsys)
    assert code == 0, out
    assert "expected: " in out and out.rstrip().endswith("behaves (exit 0)"), out


def test_a_repro_exits_1_when_its_expectation_fails(tmp_path, capsys):
    _skip_unless_pinned("openai")
    calls = _stream("openai-chat/parallel-calls-empty-arguments.sse")
    code, out = run_repro(made_up(tmp_path / "a", "client.no-phantom", calls), capsys)
    assert code == 1 and "got:      the calls [{" in out, out
    repro = made_up(tmp_path / "b", "client.http-error", RATE_LIMIT, status=429)
    repro.write_text(repro.read_text().replace("Rate limit reached for mcs-model", "quota"))
    code, out = run_repro(repro, capsys)
    assert code == 1 and "RateLimitError" in out, out


# -- the generator ------------------------------------------------------------------------------
def test_saving_a_finding_writes_its_repro_beside_it():
    root = catalog.REPO / "peers" / "findings" / "_test-repros"
    body = _stream("openai-chat/parallel-calls-empty-arguments.sse")
    evidence = {"wire": "openai-chat", "status": 200, "quirks": [], "complete": True,
                "pieces": [body.decode("utf-8")],
                "outcome": {"calls": [], "text": "", "message": None, "error": None}}
    try:
        corpus, _ = findings.save(root, peer="openai", version="1.0", clause="client.calls",
                                  quirks_mode="none", evidence=evidence, reason="r")
        repro = catalog.REPO / corpus.replace(".sse", ".repro.py")
        assert "EXPECTED_CALLS = [{'name': 'get_country'" in repro.read_text("utf-8")
    finally:
        shutil.rmtree(root, ignore_errors=True)


def test_regenerating_writes_every_repro_and_drops_stale_ones(tmp_path):
    made_up(tmp_path, "client.text", _stream("openai-chat/text-stop.sse"))
    stale = tmp_path / "openai-chat" / "gone--openai-chat--quirks-test.repro.py"
    stale.write_text("# its finding is gone\n")
    written, problems = repros.write_all(tmp_path)
    assert problems == []
    assert [p.name for p in written] == ["text--openai-chat--quirks-test.repro.py"]
    assert not stale.exists()


def test_a_server_profiles_finding_and_its_further_causes_get_a_repro_each(tmp_path):
    first = saved(tmp_path, "client.text", _stream("openai-chat/text-stop.sse"), mode="vllm")
    second = saved(tmp_path, "client.text", _stream("openai-chat/whole-arguments-one-chunk.sse"),
                   mode="vllm--2")
    written, problems = repros.write_all(tmp_path)
    assert problems == [] and sorted(p.name for p in written) == [
        "text--openai-chat--quirks-vllm--2.repro.py", "text--openai-chat--quirks-vllm.repro.py"]
    for stream in (first, second):
        text = repros.repro_path(stream, "python").read_text("utf-8")
        assert f'BODY = (Path(__file__).parent / "{stream.name}").read_bytes()' in text


@pytest.mark.parametrize("name", sorted(p.parent.name for p in PEERS.glob("*/repro.py.txt")))
def test_a_python_repro_defines_each_name_once(name, tmp_path):
    """The helpers copied from _protocol.py and the harness's own functions share one
    module in a repro: a name both define (pydantic-ai's `arguments_of`) is kept apart."""
    wire = catalog.load_peer(PEERS / name).wires[0]
    body = _stream(f"{wire}/" + {"openai-chat": "text-stop.sse",
                                 "anthropic-messages": "text-then-tool-use.sse",
                                 "openai-responses": "function-call-argument-deltas.sse",
                                 "ollama-chat": "calls-in-done-chunk.jsonl",
                                 "gemini": "text-then-call.sse",
                                 "bedrock-converse": "text-then-tool-use.bin"}[wire])
    repro = made_up(tmp_path, "client.text", body, peer=name, wire=wire)
    defined = [node.name for node in ast.parse(repro.read_text("utf-8")).body
               if isinstance(node, ast.FunctionDef)]
    assert sorted(defined) == sorted(set(defined))


def _request_in(repro: Path) -> dict:
    """The REQUEST a repro asks, read from its text."""
    text = repro.read_text("utf-8")
    if repro.suffix == ".mjs":
        return json.loads(re.search(r"^const REQUEST = (.*?);$", text, re.M | re.S).group(1))
    assignment = next(node for node in ast.parse(text).body if isinstance(node, ast.Assign)
                      and [target.id for target in node.targets] == ["REQUEST"])
    return ast.literal_eval(assignment.value)


@pytest.mark.parametrize("peer", ["openai", "node-openai"])
def test_a_repro_asks_the_request_its_finding_saved(peer, tmp_path):
    told = {"tools": [tool_definition("saved_tool")], "include_usage": True}
    repro = made_up(tmp_path, "client.text", _stream("openai-chat/text-stop.sse"), peer=peer,
                    request=told)
    assert _request_in(repro) == told
    assert re.search(r"return (await )?run\(.*\bREQUEST\)", repro.read_text("utf-8"))


def test_an_older_findings_repro_asks_what_its_body_needs(tmp_path):
    repro = made_up(tmp_path, "client.calls", _stream("openai-chat/two-choices-interleaved.sse"))
    assert _request_in(repro)["n"] == 2


#: The request features and keys a finding saved before requests were kept could need: a
#: client then declared at most these (the features tied since are the reader's to learn).
SAVED_FEATURES = frozenset({"n", "include_usage", "thinking", "programmatic_tool_calling"})
SAVED_KEYS = ("tools", "n", "include_usage", "thinking", "betas")


@pytest.mark.parametrize("wire", ["openai-chat", "anthropic-messages", "openai-responses",
                                  "ollama-chat"])
def test_the_request_read_from_a_body_is_the_one_its_case_needed(wire):
    """A finding saved before requests were kept: its body tells the request, as
    `wires.case_request` tells it from the case (streams whole or ending in an error)."""
    selection = Requestable(QUIRKS, SAVED_FEATURES)

    @settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
    @given(st.one_of(clients.streams(wire, selection, cut=False),
                     clients.error_streams(wire, selection)))
    def agrees(served):
        finding = {"wire": wire, "quirks": sorted(served.quirks)}
        told = case_request(served.case)
        assert repros.derived_request(finding, served.body) == {
            key: value for key, value in told.items() if key in SAVED_KEYS}

    agrees()


def test_a_finding_without_a_readable_stream_is_named_in_the_error(tmp_path):
    stream = saved(tmp_path, "client.calls", b"data: {not json\n\n")
    with pytest.raises(repros.ReproError, match="reads no complete stream"):
        repros.render(stream.with_name("calls--openai-chat--quirks-test.meta.json"))


def test_the_page_links_each_finding_to_its_repro():
    root = catalog.REPO / "peers" / "findings" / "_test-page"
    try:
        stream = saved(root, "client.calls", _stream("openai-chat/text-stop.sse"), mode="all")
        repros.write_repro(stream)
        corpus = stream.relative_to(catalog.REPO).as_posix()
        finding = {"clause": "client.calls", "quirks": ["no-index"], "corpus": corpus,
                   "note": None}
        line = page._run_line({"quirks": "all"}, finding)
        assert line.endswith("; standalone repro [`calls--openai-chat--quirks-all.repro.py`]"
                             f"(../{corpus.replace('.sse', '.repro.py')}).")
        gone = {**finding, "corpus": corpus.replace("quirks-all", "quirks-gone")}
        assert "repro" not in page._run_line({"quirks": "all"}, gone)
    finally:
        shutil.rmtree(root, ignore_errors=True)


def _code_lines(text: str) -> set[str]:
    """The lines of Python code in `text`: no docstring of the module, no blank line, no
    comment line, no import of the harness protocol, no `serve` main, no `FEATURES` (what
    the harness declares at start; a repro asks its request directly)."""
    tree = ast.parse(text)
    skip = {*range(tree.body[0].end_lineno)} if ast.get_docstring(tree) else set()
    for node in tree.body:
        if isinstance(node, ast.Assign) and [getattr(t, "id", None) for t in node.targets] == [
                "FEATURES"]:
            skip |= {*range(node.lineno - 1, node.end_lineno)}
    kept = set()
    for number, line in enumerate(text.splitlines()):
        stripped = line.strip()
        if number in skip:
            continue
        if stripped and not stripped.startswith("#") and not re.match(
                r"from _(protocol|langchain) import|if __name__ ==|serve\(__file__", stripped):
            kept.add(stripped)
    return kept


@pytest.mark.parametrize("name", sorted(p.parent.name for p in PEERS.glob("*/repro.py.txt")))
def test_a_python_peers_repro_call_is_its_harness_run(name):
    """The template of a Python peer's repros holds the harness's code, and only that: a
    change to the harness that the template does not follow fails here."""
    peer = catalog.load_peer(PEERS / name)
    harness = (peer.folder / peer.harness).read_text("utf-8")
    template = repros._library_section(peer)
    sources = _code_lines(harness)
    if "from _langchain import" in harness:
        sources |= _code_lines((PEERS / "_langchain.py").read_text("utf-8"))
    assert _code_lines(template) == sources


def _js_code_lines(text: str) -> set[str]:
    """The lines of JavaScript code in `text`, as a repro holds them: no blank or comment
    line, no `'use strict'`, no require of the harness protocol (a repro brings its
    helpers), no `FEATURES`, no `serve(...)` loop and no `versionOf` (a repro asks its request
    and prints the version itself); the peer's folder argument dropped (`requirePeer(
    __dirname, 'x')` is `require('x')` standalone)."""
    text = text.split("\nserve(")[0]
    text = re.sub(r"requirePeer\((?:__dirname|peerDir), ", "require(", text)
    text = re.sub(r"\((?:__dirname|peerDir), ?", "(", text)
    text = re.sub(r"\nfunction versionOf\(.*?\n}\n", "\n", text, flags=re.S)
    kept = set()
    for line in text.splitlines():
        stripped = line.strip()
        if stripped and not stripped.startswith(("//", "/**", "*")) and not re.match(
                r"'use strict'|const \{[^}]*\} = require\('\.\.?/node-|const FEATURES = "
                r"|module\.exports = ", stripped):
            kept.add(stripped)
    return kept


def _loop_callback(harness: str) -> str:
    """The body of the callback a Node harness gives `serve(...)`, as a function's body."""
    loop = harness.split("\nserve(", 1)[1]
    body = re.search(r"\(wire, baseUrl, request\) => (.*?),?\s*\{features: FEATURES\}\);", loop,
                     re.S).group(1).strip()
    return body[1:-1] if body.startswith("{") else f"return {body};"


@pytest.mark.parametrize("name", sorted(p.parent.name for p in PEERS.glob("*/repro.mjs.txt")))
def test_a_node_peers_repro_call_is_its_harness_run(name):
    """The template of a Node peer's repros holds the harness's code, and only that: its
    `run` is the callback the harness gives its protocol loop, the rest the harness's other
    code; a change to the harness that the template does not follow fails here."""
    peer = catalog.load_peer(PEERS / name)
    harness = (peer.folder / peer.harness).read_text("utf-8")
    sources = _js_code_lines(harness)
    if "require('../node-ai-sdk.cjs')" in harness:
        sources |= _js_code_lines((PEERS / "node-ai-sdk.cjs").read_text("utf-8"))
    template = repros._library_section(peer)
    run = re.search(r"^async function run\(wire, baseUrl, request\) \{\n(.*?)^}$", template,
                    re.M | re.S)
    assert run, "the template defines no `async function run(wire, baseUrl, request)`"
    assert _js_code_lines(run.group(1)) == _js_code_lines(_loop_callback(harness))
    assert _js_code_lines(template.replace(run.group(0), "")) == sources
