"""Running the cells and keeping what they observed.

A cell's file, peers/engines/observations/<engine>/<format>.json, holds what one run saw:
the parser and the versions of its environment, the kit it ran (`kit_key`), profile and
seed, which clauses ran on how many examples, the saved observations and the speed column's
figures. No verdict is kept: `judged` derives them. A cell is run again only when it is
missing, broke, or was observed with another engine, kit, profile or seed (or `--force`).
"""
from __future__ import annotations

import hashlib
import json
import os
import queue
import signal
import subprocess
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterator

ROOT = Path(__file__).resolve().parents[3]
HERE = ROOT / "peers" / "engines"
OBSERVATIONS = HERE / "observations"
WORKER = Path(__file__).resolve().parent / "worker.py"


@dataclass(frozen=True)
class Engine:
    """Where an engine runs: its environment's python, its parser factory and the
    distributions whose versions make a cell's environment (any one of them may be absent:
    SGLang comes as `sglang` or as `llm-router-utils`)."""

    python: Path
    factory: str
    packages: tuple[str, ...]


ENGINES = {
    "mcs-reference": Engine(ROOT / ".venv/bin/python", "mcs_conformance.engines.reference:parser",
                            ()),
    "vllm": Engine(ROOT / ".peers/vllm/bin/python", "mcs_conformance.engines.vllm:parser",
                   ("vllm", "openai-harmony", "transformers", "tokenizers")),
    "sglang": Engine(ROOT / ".peers/sglang/bin/python", "mcs_conformance.engines.sglang:parser",
                     ("sglang", "llm-router-utils")),
    "openai-harmony": Engine(ROOT / ".peers/harmony/bin/python",
                             "mcs_conformance.engines.harmony:parser", ("openai-harmony",)),
}

#: The sources that decide which cases are drawn and how an engine is driven: a change to
#: any of them makes every cell old. The judging rules (mcs_conformance/clauses/_parser.py's
#: judgments) are not among them: saved observations are judged again, not re-run.
KIT_SOURCES = ("mcs_reference/**/*.py", "mcs_conformance/wires/**/*.py",
               "mcs_conformance/engines/*.py", "mcs_conformance/clauses/_runner.py",
               "mcs_conformance/plugin/_profiles.py", "peers/engines/enginematrix/worker.py")


def kit_key(root: Path = ROOT) -> str:
    """A short hash of `KIT_SOURCES`' contents."""
    digest = hashlib.sha256()
    for pattern in KIT_SOURCES:
        for path in sorted(root.glob(pattern)):
            digest.update(str(path.relative_to(root)).encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()[:12]


def _env() -> dict:
    """The engine's environment runs this checkout's kit, whatever is installed in it."""
    path = os.environ.get("PYTHONPATH")
    return {**os.environ, "PYTHONPATH": str(ROOT) + (os.pathsep + path if path else "")}


def python_json(python: Path, *args: str, timeout: float = 300) -> object:
    """Run `python ARGS` in this checkout (`-c CODE`, or a script); its last printed line,
    as JSON."""
    out = subprocess.run([str(python), *args], capture_output=True, text=True, cwd=ROOT,
                         env=_env(), timeout=timeout)
    if out.returncode:
        raise RuntimeError(out.stderr.strip().splitlines()[-1] if out.stderr.strip() else "?")
    return json.loads(out.stdout.strip().splitlines()[-1])


_VERSIONS = """
import json
from importlib import metadata
def version(name):
    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return None
print(json.dumps({name: version(name) for name in %r}))
"""


def environment(engine: str) -> dict:
    """The versions a cell of `engine` depends on, Hypothesis' included."""
    packages = (*ENGINES[engine].packages, "hypothesis")
    return python_json(ENGINES[engine].python, "-c", _VERSIONS % (packages,))


def formats(engine: str) -> list[str]:
    """The catalogue formats `engine` has a parser for."""
    module, _, name = ENGINES[engine].factory.partition(":")
    return python_json(ENGINES[engine].python, "-c", f"import json, {module} as m\n"
                                                f"print(json.dumps(list(m.{name}.formats)))")


def cell_path(engine: str, format: str) -> Path:
    return OBSERVATIONS / engine / f"{format}.json"


def load_cells() -> list[dict]:
    """Every saved cell, engines in `ENGINES` order."""
    cells = []
    for engine in ENGINES:
        for path in sorted((OBSERVATIONS / engine).glob("*.json")):
            cells.append(json.loads(path.read_text("utf-8")))
    return cells


def write_json(path: Path, value: object) -> None:
    """Readable JSON; a lone surrogate drawn into a case is kept as its `\\udXXX` escape."""
    path.parent.mkdir(parents=True, exist_ok=True)
    text = json.dumps(value, indent=1, ensure_ascii=False) + "\n"
    path.write_bytes(text.encode("utf-8", "backslashreplace"))


def is_current(cell: dict | None, identity: dict) -> bool:
    """Was `cell` observed whole, by the run `identity` describes?"""
    return (cell is not None and cell.get("problem") is None
            and all(cell.get(key) == value for key, value in identity.items()))


def command(engine: str, format: str, profile: str, seed: int) -> str:
    """The certification a cell runs, as a user would type it."""
    return (f"mcs-conformance certify --parser {ENGINES[engine].factory} --format {format} "
            f"--profile {profile} --seed {seed}")


def observe(engine: str, formats: list[str], identity: dict,
            timeout: float) -> Iterator[dict]:
    """Run the cells of `engine` on `formats` in one worker (the engine is imported once),
    yielding each cell as it ends. A cell that breaks, hangs past `timeout` seconds or takes
    its worker down comes back with its `problem`; a new worker runs the cells after it."""
    spec = ENGINES[engine]
    pending = list(formats)
    with tempfile.TemporaryDirectory(prefix="mcs-engine-cells-") as scratch:
        while pending:
            argv = [str(spec.python), str(WORKER), spec.factory, identity["profile"],
                    str(identity["seed"]), scratch, *pending]
            worker = subprocess.Popen(argv, cwd=ROOT, env=_env(), stdout=subprocess.PIPE,
                                      stderr=subprocess.PIPE, text=True,
                                      start_new_session=True)
            lines: queue.Queue = queue.Queue()
            errors: list[str] = []
            threading.Thread(target=_pump, args=(worker.stdout, lines.put), daemon=True).start()
            reading_errors = threading.Thread(target=_pump, args=(worker.stderr, errors.append),
                                              daemon=True)
            reading_errors.start()
            clock = time.perf_counter()
            while pending:
                format = pending[0]
                try:
                    line = lines.get(timeout=timeout)
                except queue.Empty:
                    os.killpg(worker.pid, signal.SIGKILL)  # this worker's own processes only
                    worker.wait()
                    yield _cell(engine, format, identity, clock, None,
                                f"hung: stopped after {timeout:.0f} s")
                    pending.pop(0)
                    break
                if line is None:  # the worker died inside the cell
                    worker.wait()
                    reading_errors.join(timeout=10)
                    said = [e.strip() for e in _after_last_mark(errors) if e and e.strip()]
                    yield _cell(engine, format, identity, clock, None,
                                said[-1] if said else f"exit status {worker.returncode}")
                    pending.pop(0)
                    break
                if line.startswith("start "):
                    clock = time.perf_counter()
                elif line.startswith("done "):
                    out = Path(scratch, f"{format}.json")
                    saved = json.loads(out.read_text("ascii"))
                    yield _cell(engine, format, identity, clock, saved, saved["problem"])
                    pending.pop(0)
            else:
                worker.wait()


def _after_last_mark(errors: list[str | None]) -> list[str | None]:
    """The worker's error lines since it started its last cell (it marks each start with
    worker.py's `CELL_MARK`)."""
    marks = [i for i, line in enumerate(errors) if line and line.startswith("== cell")]
    return errors[marks[-1] + 1:] if marks else errors


def _pump(stream: Iterator[str], put: Callable[[str | None], object]) -> None:
    """Hand on each line of a worker's output, then None at its end."""
    for line in stream:
        put(line)
    put(None)


def _cell(engine: str, format: str, identity: dict, started: float, saved: dict | None,
          problem: str | None) -> dict:
    saved = saved or {}
    return {"engine": engine, "format": format, "parser": saved.get("parser"),
            "command": command(engine, format, identity["profile"], identity["seed"]),
            **identity, "seconds": round(time.perf_counter() - started, 1), "problem": problem,
            "clauses": saved.get("clauses", {}), "observations": saved.get("observations", [])}
