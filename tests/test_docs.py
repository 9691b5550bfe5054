"""The README and docs/*.md run as written, and the generated pages are up to date.

Each page runs in a fresh temporary folder: every ```python block is executed in a fresh
namespace (its stdout kept), every ```sh / ```console command is run with this environment's
`bin` first on PATH. HTML comments right above a block mark it (docs/index.md lists them):
`file: NAME` / `append: NAME` write the block to that file in the page's folder (a module,
or data such as a recorded body), `cwd: repo`
runs it at the repository root, `output` checks a text block against the stdout of the block
before, `exit: N` expects that status, `checked-by: PATH` names the test or CI script that
already runs it, `not-run: REASON` skips it.

Install commands (`python3 -m venv`, `pip install`, activating a venv) are not run here:
tests/test_packaging.py builds the wheel and installs it into a fresh virtual environment.
Long runs are narrowed: a `pytest --mcs-strategy=...` or `mcs-conformance certify ...` command
that names no clause gets the clauses of MCS_DOCS_CLAUSES (comma-separated; default
`reassembly.round-trip`; a client's or harness's: MCS_DOCS_CLIENT_CLAUSES, default
`client.calls`; a parser's: `parser.truth`) and the dev profile appended, and one that sets no seed gets seed 0,
so the page tests are deterministic. MCS_DOCS_FULL=1 runs every command exactly as written (a
full certification takes minutes per strategy).
"""
from __future__ import annotations

import contextlib
import importlib
import importlib.util
import io
import os
import re
import shlex
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
BIN = Path(sys.executable).parent
FULL = os.environ.get("MCS_DOCS_FULL") == "1"
NARROW = [c.strip() for c in os.environ.get("MCS_DOCS_CLAUSES", "reassembly.round-trip").split(",")
          if c.strip()]
# A client certification is narrowed to a client clause (MCS_DOCS_CLIENT_CLAUSES).
NARROW_CLIENT = [c.strip() for c in os.environ.get("MCS_DOCS_CLIENT_CLAUSES", "client.calls")
                 .split(",") if c.strip()]
MARKS = {"file", "append", "cwd", "output", "exit", "checked-by", "not-run"}
SHELLS = {"sh", "console", "bash", "shell"}
SETUP = re.compile(r"^(\S*python3?(\.\d+)? -m venv\b|(\S*/)?pip3? install\b|\S*python3? -m pip install\b"
                   r"|(source|\.) \S*activate\b)")
TIMEOUT = 1800

_FENCE = re.compile(r"^( *)(`{3,})([\w+-]*)\s*$")
_MARK = re.compile(r"^<!--\s*([\w-]+)\s*(?::\s*(.*?))?\s*-->\s*$")


@dataclass
class Block:
    page: Path
    line: int  # of the opening fence, 1-based
    lang: str
    code: str
    marks: dict[str, str] = field(default_factory=dict)

    @property
    def where(self) -> str:
        return f"{self.page.relative_to(ROOT)}:{self.line}"


def parse(page: Path) -> list[Block]:
    """The fenced blocks of a page, each with the marks written just above it."""
    blocks, marks = [], {}
    lines = page.read_text("utf-8").splitlines()
    i = 0
    while i < len(lines):
        line = lines[i]
        fence = _FENCE.match(line)
        mark = _MARK.match(line.strip())
        if fence:  # also indented, inside a list item: its lines lose that indentation
            indent, ticks, lang = fence.groups()
            end = i + 1
            while end < len(lines) and lines[end].strip() != ticks:
                end += 1
            assert end < len(lines), f"{page.name}:{i + 1}: code block never closed"
            body = [line[len(indent):] if line.startswith(indent) else line.lstrip()
                    for line in lines[i + 1:end]]
            blocks.append(Block(page, i + 1, lang, "\n".join(body), marks))
            marks, i = {}, end + 1
            continue
        if mark and mark.group(1) in MARKS:
            marks = {**marks, mark.group(1): (mark.group(2) or "").strip()}
        elif mark:
            raise AssertionError(f"{page.name}:{i + 1}: unknown mark {mark.group(1)!r}; "
                                 f"known: {', '.join(sorted(MARKS))}")
        elif line.strip():
            marks = {}
        i += 1
    return blocks


# -- shell commands ------------------------------------------------------------------------
def commands(block: Block) -> list[str]:
    """The commands of a sh/console block: `$ ` lines of a console block, every line of a sh
    block, continuation lines joined; comments and blank lines dropped."""
    out, pending = [], None
    for raw in block.code.splitlines():
        if pending is not None:
            line = pending + raw.lstrip()
        elif block.lang == "console" and not raw.startswith("$ "):
            continue  # output shown after a command
        else:
            line = raw[2:] if block.lang == "console" else raw
        if line.rstrip().endswith("\\"):
            pending = line.rstrip()[:-1].rstrip() + " "
            continue
        pending = None
        if line.strip() and not line.lstrip().startswith("#"):
            out.append(line.strip())
    return out


def _names_clause(words: list[str], option: str) -> bool:
    return any(w == option or w.startswith(option + "=") for w in words)


def narrowed(segment: str) -> str:
    """The command as the page tests run it: `.venv/bin/` dropped (this environment's bin is
    first on PATH), a certification or clause run that names no clause narrowed."""
    segment = re.sub(r"(^|\s)\.venv/bin/", r"\1", segment)
    if FULL:
        return segment
    words = shlex.split(segment)
    python_m = len(words) > 2 and re.fullmatch(r"python3?", words[0]) and words[1] == "-m"
    program = words[2] if python_m else words[0] if words else ""
    client = _names_clause(words, "--client") or _names_clause(words, "--harness") \
        or _names_clause(words, "--mcs-client") or _names_clause(words, "--mcs-harness")
    parser = _names_clause(words, "--parser") or _names_clause(words, "--mcs-parser")
    narrow = NARROW_CLIENT if client else ["parser.truth"] if parser else NARROW
    if program in ("mcs-conformance", "mcs_conformance.cli") and "certify" in words:
        if not _names_clause(words, "--clause"):
            segment += "".join(f" --clause {c}" for c in narrow) + " --profile dev"
        if not _names_clause(words, "--seed"):
            segment += " --seed 0"
    elif program == "pytest" and (_names_clause(words, "--mcs-strategy") or client or parser):
        if not _names_clause(words, "--mcs-clause"):
            segment += "".join(f" --mcs-clause={c}" for c in narrow) + " --mcs-profile=dev"
        if not _names_clause(words, "--mcs-seed"):
            segment += " --mcs-seed=0"
    return segment


def runnable(command: str) -> str:
    """`command` without its install steps (tests/test_packaging.py covers those), narrowed."""
    kept = [narrowed(part.strip()) for part in command.split(" && ") if not SETUP.match(part.strip())]
    return " && ".join(kept)


def shell_env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_", "PYTHONPATH"))}
    env["PATH"] = f"{BIN}{os.pathsep}{env.get('PATH', '')}"
    env["PY_COLORS"] = "0"
    return env


def run_shell(block: Block, cwd: Path) -> str:
    expected = int(block.marks.get("exit", "0"))
    stdout = []
    for command in commands(block):
        command = runnable(command)
        if not command:
            continue
        done = subprocess.run(["bash", "-c", command], cwd=cwd, env=shell_env(),
                              capture_output=True, text=True, timeout=TIMEOUT)
        assert done.returncode == expected, (
            f"{block.where}: `{command}` exited {done.returncode}, expected {expected}\n"
            f"--- stdout ---\n{done.stdout[-4000:]}\n--- stderr ---\n{done.stderr[-4000:]}")
        stdout.append(done.stdout)
    return "".join(stdout)


# -- python blocks -------------------------------------------------------------------------
def run_python(block: Block, cwd: Path, workdir: Path) -> str:
    code = compile(block.code, block.where, "exec")
    out = io.StringIO()
    before = os.getcwd()
    sys.path.insert(0, str(workdir))
    importlib.invalidate_caches()
    try:
        os.chdir(cwd)
        with contextlib.redirect_stdout(out):
            exec(code, {"__name__": "__main__"})
    finally:
        os.chdir(before)
        sys.path.remove(str(workdir))
    return out.getvalue()


def _forget_modules(workdir: Path) -> None:
    for name, module in list(sys.modules.items()):
        path = getattr(module, "__file__", None) or ""
        if path.startswith(str(workdir)):
            del sys.modules[name]


def _lines(text: str) -> list[str]:
    lines = [line.rstrip() for line in text.splitlines()]
    while lines and not lines[-1]:
        lines.pop()
    while lines and not lines[0]:
        lines.pop(0)
    return lines


def run_page(page: Path, workdir: Path) -> list[str]:
    """Run every block of `page`; returns what was run, one line per block."""
    ran, last, modules = [], None, []
    _forget_modules(workdir)
    try:
        for block in parse(page):
            marks = block.marks
            if "not-run" in marks:
                assert marks["not-run"], f"{block.where}: not-run needs a reason"
                last = None
                continue
            if "checked-by" in marks:
                assert (ROOT / marks["checked-by"]).exists(), \
                    f"{block.where}: checked-by {marks['checked-by']}, which does not exist"
                last = None
                continue
            cwd = ROOT if marks.get("cwd") == "repo" else workdir
            if "file" in marks or "append" in marks:
                name = marks.get("file") or marks["append"]
                target = workdir / name
                if "append" in marks:
                    assert target.exists(), f"{block.where}: append to {name} before it is written"
                    target.write_text(target.read_text("utf-8") + block.code + "\n", "utf-8")
                else:
                    target.write_text(block.code + "\n", "utf-8")
                    if target.suffix == ".py":
                        modules.append(target.stem)
                _forget_modules(workdir)
                last = None
                ran.append(f"{block.where}: wrote {name}")
            elif block.lang == "python":
                last = run_python(block, cwd, workdir)
                ran.append(f"{block.where}: python")
            elif block.lang in SHELLS:
                last = run_shell(block, cwd)
                ran.append(f"{block.where}: {block.lang}")
            elif "output" in marks:
                assert last is not None, f"{block.where}: an output block must follow a block that ran"
                assert _lines(block.code) == _lines(last), (
                    f"{block.where}: the output shown differs from the output of the block above\n"
                    f"--- shown ---\n{block.code}\n--- got ---\n{last}")
                last = None
        for stem in modules:  # every module a page writes must import cleanly
            if stem not in sys.modules:
                run_python(Block(page, 0, "python", f"import {stem}"), workdir, workdir)
    finally:
        _forget_modules(workdir)
    return ran


@pytest.mark.parametrize("page", PAGES, ids=[str(p.relative_to(ROOT)) for p in PAGES])
def test_every_block_of_the_page_runs(page: Path, tmp_path: Path, share_caches) -> None:
    share_caches(tmp_path)
    run_page(page, tmp_path)


# -- the runner itself ---------------------------------------------------------------------
def test_marks_commands_and_narrowing(tmp_path: Path) -> None:
    page = tmp_path / "page.md"
    page.write_text(
        "<!-- file: m.py -->\n```python\nX = 1\n```\n\ntext\n<!-- exit: 3 -->\n\n"
        "```console\n$ echo a \\\n  b\nignored output\n```\n", "utf-8")
    blocks = parse(page)
    assert [b.marks for b in blocks] == [{"file": "m.py"}, {"exit": "3"}]
    assert commands(blocks[1]) == ["echo a b"]
    assert runnable("python3 -m venv .venv && .venv/bin/pip install . && .venv/bin/x --y") == "x --y"
    if not FULL:
        assert runnable("mcs-conformance certify a:B --out r").endswith(" --profile dev --seed 0")
        assert "--mcs-clause=" in runnable("pytest --mcs-strategy=a:B -n auto")
        assert runnable("pytest --mcs-strategy=a:B --mcs-clause=x.y") == \
            "pytest --mcs-strategy=a:B --mcs-clause=x.y --mcs-seed=0"
        assert runnable("pytest --mcs-strategy=a:B --mcs-clause=x.y --mcs-seed=5").endswith("=5")
    page.write_text("<!-- typo: x -->\n```sh\ntrue\n```\n", "utf-8")
    with pytest.raises(AssertionError, match="unknown mark 'typo'"):
        parse(page)


# -- the README's contract with CI ---------------------------------------------------------
MAIN_JOB = ("python3 -m venv .venv && .venv/bin/pip install . && "
            ".venv/bin/mcs-conformance certify mcs_reference:AnthropicMessagesStrategy --out report")
TESTS = ("python3 -m venv .venv && .venv/bin/pip install -q -e '.[test]' && "
         ".venv/bin/python -m pytest -n 2")


def test_the_readme_shows_the_two_commands_exactly_and_ci_runs_the_second() -> None:
    shown = [command for block in parse(ROOT / "README.md") if block.lang in SHELLS
             for command in commands(block)]
    assert shown[:2] == [MAIN_JOB, TESTS]
    ci = (ROOT / ".ci" / "run").read_text("utf-8").splitlines()
    assert TESTS in ci


# -- generated pages -----------------------------------------------------------------------
def test_the_clause_catalogue_page_is_up_to_date(capsys) -> None:
    from mcs_conformance.clauses import catalogue_markdown
    from mcs_conformance.cli import main

    assert main(["clauses"]) == 0
    printed = capsys.readouterr().out
    assert printed == catalogue_markdown()
    assert (ROOT / "docs" / "clauses.md").read_text("utf-8") == printed, \
        "docs/clauses.md is stale: run `mcs-conformance clauses > docs/clauses.md`"


def test_every_clause_explains_itself() -> None:
    from mcs_conformance.clauses import CLAUSES

    assert CLAUSES
    for clause in CLAUSES.values():
        assert clause.level in ("MUST", "SHOULD"), clause.id
        for text in (clause.meaning, clause.failure_means, clause.typical_bug):
            assert isinstance(text, str) and text.strip(), clause.id
        assert f"## `{clause.id}` ({clause.level})" in (ROOT / "docs" / "clauses.md").read_text("utf-8")


def _gen_api():
    spec = importlib.util.spec_from_file_location("gen_api", ROOT / "docs" / "gen_api.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_api_page_is_up_to_date_and_covers_every_public_name() -> None:
    import mcs_conformance.hypothesis
    import mcs_reference

    text = (ROOT / "docs" / "api.md").read_text("utf-8")
    assert text == _gen_api().render(), "docs/api.md is stale: run `python docs/gen_api.py > docs/api.md`"
    for module in (mcs_reference, mcs_conformance.hypothesis):
        for name in module.__all__:
            assert f"### `{name}`" in text, name
            assert (getattr(getattr(module, name), "__doc__", None) or "").strip(), \
                f"{module.__name__}.{name} has no docstring"


def test_the_contract_names_are_all_public() -> None:
    import mcs_reference

    contract = ("ExtractedCall ToolCallRecord StreamError ProviderError ExtractionStrategy "
                "OpenAIChatStrategy OpenAIResponsesStrategy AnthropicMessagesStrategy "
                "OllamaChatStrategy TextStrategy JsonCodec HermesCodec ExtractionChain "
                "default_chain LLMStreamBuffer BaseDriver DriverResponse SupportsNativeTools "
                "SupportsStreaming DriverMeta").split()
    assert set(contract) <= set(mcs_reference.__all__)


# -- links ---------------------------------------------------------------------------------
_LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")


def _slug(heading: str) -> str:
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def _anchors(page: Path) -> set[str]:
    inside, found = False, set()
    for line in page.read_text("utf-8").splitlines():
        if _FENCE.match(line):
            inside = not inside
        elif not inside and line.startswith("#"):
            found.add(_slug(line.lstrip("#")))
        elif not inside:  # an explicit anchor: <a id="name"></a>
            found.update(re.findall(r'<a id="([^"]+)"', line))
    return found


@pytest.mark.parametrize("page", PAGES, ids=[str(p.relative_to(ROOT)) for p in PAGES])
def test_every_relative_link_resolves(page: Path) -> None:
    text = re.sub(r"```.*?```", "", page.read_text("utf-8"), flags=re.S)
    for target in _LINK.findall(text):
        if re.match(r"[a-z]+:", target):
            continue  # http(s), mailto
        path, _, anchor = target.partition("#")
        resolved = (page.parent / path).resolve() if path else page
        assert resolved.exists(), f"{page.relative_to(ROOT)}: link to {target}: no such file"
        if anchor and resolved.suffix == ".md":
            assert anchor in _anchors(resolved), f"{page.relative_to(ROOT)}: no heading #{anchor} in {path}"


# -- the guide's entry-point path ----------------------------------------------------------
def test_the_guide_wire_registered_by_entry_point_is_known_by_name(tmp_path: Path) -> None:
    """writing-a-strategy.md: a wire in the `mcs_conformance.wires` entry-point group is found
    by name, by the plugin and by the generators. The installed package is stood in for by its
    metadata folder on PYTHONPATH, as `pip install` would leave it."""
    for block in parse(ROOT / "docs" / "writing-a-strategy.md"):
        name = block.marks.get("file") or block.marks.get("append")
        if name in ("acme_stream.py", "acme_wire.py"):
            target = tmp_path / name
            old = target.read_text("utf-8") if "append" in block.marks else ""
            target.write_text(old + block.code + "\n", "utf-8")
    info = tmp_path / "acme_wire_plugin-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: acme-wire-plugin\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text("[mcs_conformance.wires]\nacme = acme_wire:acme_wire\n")
    env = {**shell_env(), "PYTHONPATH": str(tmp_path)}
    check = ("from mcs_conformance.wires import wire_names, get_wire\n"
             "from mcs_conformance.hypothesis import streams\n"
             "from hypothesis import Phase, find, settings\n"
             "assert 'acme' in wire_names() and get_wire('acme').name == 'acme'\n"
             "message, chunks = find(streams('acme'), lambda pair: True,\n"
             "                       settings=settings(phases=[Phase.generate]))\n"
             "assert message['object'] == 'acme.reply' and chunks[0]['event'] == 'start'\n")
    done = subprocess.run([sys.executable, "-c", check], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=TIMEOUT)
    assert done.returncode == 0, done.stderr
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "--mcs-strategy=acme_stream:AcmeStrategy",
         "--mcs-wire=acme", f"--mcs-clause={NARROW[0]}", "--mcs-seed=0"],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=TIMEOUT)
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
    assert "1 passed" in done.stdout
