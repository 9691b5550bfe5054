"""A fresh clone installs as a wheel (not only editable) with everything it needs at run time.

The wheel is built from a copy of the sources (`pip wheel --no-deps`, the build backend of
pyproject.toml), inspected, and installed with `pip --python` into a fresh virtual environment
made without pip. The dependencies come from this test environment, linked into a folder the
new environment puts on its path (the project itself left out), so the check needs no network
beyond what the build backend needs and takes seconds. Every check runs from a folder outside
the repository, so nothing can be imported from the checkout by accident.
"""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("mcs_reference", "mcs_conformance")
TIMEOUT = 900
_OURS = ("mcs_reference", "mcs_conformance", "mcs-conformance", "__editable__", "__pycache__")


def _run(args: list, cwd: Path, **kw) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_", "PYTHONPATH"))}
    return subprocess.run([str(a) for a in args], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=TIMEOUT, **kw)


def _check(done: subprocess.CompletedProcess) -> subprocess.CompletedProcess:
    assert done.returncode == 0, f"{done.args}\n--- stdout ---\n{done.stdout[-4000:]}\n--- stderr ---\n{done.stderr[-4000:]}"
    return done


def _sources(into: Path) -> Path:
    """What a clone holds for the build: metadata, README and the two packages."""
    src = into / "src"
    src.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy2(ROOT / name, src / name)
    for package in PACKAGES:
        shutil.copytree(ROOT / package, src / package,
                        ignore=shutil.ignore_patterns("__pycache__", "*.pyc", "*.egg-info"))
    return src


def _dependencies(into: Path) -> Path:
    """This environment's installed distributions, minus this project, as one folder."""
    deps = into / "deps"
    deps.mkdir()
    seen = set()
    for key in ("purelib", "platlib"):
        site = Path(sysconfig.get_paths()[key])
        if site in seen or not site.is_dir():
            continue
        seen.add(site)
        for entry in site.iterdir():
            if entry.name.startswith(_OURS) or entry.suffix == ".pth" or (deps / entry.name).exists():
                continue
            (deps / entry.name).symlink_to(entry)
    return deps


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> Path:
    """The wheel, built from a copy of the sources."""
    work = tmp_path_factory.mktemp("wheel")
    _sources(work)
    wheel = [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "./src", "-w", "dist"]
    done = _run(wheel, work)
    if done.returncode != 0:  # no index for the build backend: build with the installed one
        done = _run(wheel + ["--no-build-isolation"], work)
    _check(done)
    wheels = list((work / "dist").glob("mcs_conformance-*.whl"))
    assert len(wheels) == 1, wheels
    return wheels[0]


@pytest.fixture(scope="module")
def venv(built, tmp_path_factory) -> dict:
    """A fresh virtual environment with the wheel installed; paths of its python and script."""
    work = tmp_path_factory.mktemp("venv")
    _check(_run([sys.executable, "-m", "venv", "--without-pip", work / "venv"], work))
    python = work / "venv" / "bin" / "python"
    site = Path(_check(_run([python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                            work)).stdout.strip())
    (site / "_test_dependencies.pth").write_text(str(_dependencies(work)) + "\n", "utf-8")
    _check(_run([sys.executable, "-m", "pip", "--python", python, "install", "--no-deps",
                 "--no-index", "-q", built], work))
    outside = work / "elsewhere"
    outside.mkdir()
    return {"python": python, "script": work / "venv" / "bin" / "mcs-conformance",
            "site": site, "cwd": outside}


def test_the_wheel_holds_every_module_and_schema(built):
    names = set(zipfile.ZipFile(built).namelist())
    for package in PACKAGES:
        for path in (ROOT / package).rglob("*"):
            if path.suffix in (".py", ".json") and "__pycache__" not in path.parts:
                relative = path.relative_to(ROOT).as_posix()
                assert relative in names, f"{relative} is not in the wheel"
    schemas = [p for p in (ROOT / "mcs_conformance" / "schemas").rglob("*.json")]
    assert len(schemas) >= 10 and all(p.relative_to(ROOT).as_posix() in names for p in schemas)


def test_the_wheel_metadata_declares_the_plugin_the_command_and_the_dependencies(built):
    archive = zipfile.ZipFile(built)
    info = next(n.split("/")[0] for n in archive.namelist() if n.endswith(".dist-info/METADATA"))
    entry_points = archive.read(f"{info}/entry_points.txt").decode()
    assert "[pytest11]\nmcs_conformance = mcs_conformance.plugin" in entry_points
    assert "[console_scripts]\nmcs-conformance = mcs_conformance.cli:main" in entry_points
    metadata = archive.read(f"{info}/METADATA").decode()
    for requirement in ("hypothesis", "pytest", "jsonschema", "syrupy"):
        assert f"Requires-Dist: {requirement}" in metadata, requirement
    assert "# mcs-conformance" in metadata  # the README is the long description


def test_both_packages_import_from_the_installed_wheel_outside_the_repo(venv):
    code = ("import mcs_reference, mcs_conformance, json\n"
            "from mcs_reference import BaseDriver, LLMStreamBuffer, default_chain\n"
            "print(json.dumps([mcs_reference.__file__, mcs_conformance.__file__]))")
    files = json.loads(_check(_run([venv["python"], "-c", code], venv["cwd"])).stdout)
    for file in files:
        assert Path(file).is_relative_to(venv["site"]), file


def test_every_schema_loads_from_the_installed_package(venv):
    code = ("from importlib.resources import files\n"
            "from mcs_conformance.base import schema\n"
            "names = sorted(p.name for p in files('mcs_conformance').joinpath('schemas').iterdir()"
            " if p.name.endswith('.json'))\n"
            "for name in names:\n"
            "    schema.validator(name)\n"
            "print(len(names))")
    count = int(_check(_run([venv["python"], "-c", code], venv["cwd"])).stdout)
    assert count == len(list((ROOT / "mcs_conformance" / "schemas").glob("*.json")))


def test_the_pytest11_entry_point_is_registered_once(venv):
    code = ("from importlib.metadata import entry_points\n"
            "print([ep.value for ep in entry_points(group='pytest11') if ep.name == 'mcs_conformance'])")
    assert _check(_run([venv["python"], "-c", code], venv["cwd"])).stdout.strip() == \
        "['mcs_conformance.plugin']"


def test_the_console_script_runs(venv):
    from mcs_conformance.clauses import catalogue_markdown

    done = _check(_run([venv["script"], "clauses"], venv["cwd"]))
    assert done.stdout == catalogue_markdown()


def test_the_plugin_and_certify_work_from_the_wheel(venv):
    """`pytest --mcs-strategy` in a folder with no test file, and the README's main job
    (narrowed to one clause): the report is written and valid against the packaged schema."""
    done = _check(_run([venv["python"], "-m", "pytest", "-p", "no:cacheprovider",
                        "--mcs-strategy=mcs_reference:AnthropicMessagesStrategy",
                        "--mcs-clause=reassembly.done", "--mcs-seed=0"], venv["cwd"]))
    assert "mcs-conformance: certifying mcs_reference:AnthropicMessagesStrategy" in done.stdout
    assert "1 passed" in done.stdout
    out = venv["cwd"] / "report"
    _check(_run([venv["script"], "certify", "mcs_reference:AnthropicMessagesStrategy",
                 "--clause", "reassembly.done", "--profile", "dev", "--seed", "0", "--out", out],
                venv["cwd"]))
    assert sorted(p.name for p in out.iterdir()) == ["badge.json", "junit.xml", "report.jsonl", "summary.md"]
    footer = json.loads((out / "report.jsonl").read_text("utf-8").splitlines()[-1])
    assert footer["kind"] == "footer" and footer["certified"] is True
