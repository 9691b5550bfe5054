"""The house rules, measured on the source: layers point down, no import circle, no import
inside a function, no reach into another subsystem's private modules, small modules, a
documented public surface, and the picture in docs/architecture.md as measured."""
from __future__ import annotations

import ast
import importlib
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "docs"))
import gen_api  # noqa: E402
import gen_house  # noqa: E402

MAX_LINES = 600


@pytest.fixture(scope="module")
def modules() -> dict:
    """The import graph: parsing every source costs half a second, paid by the worker that
    runs these tests, not by every worker at collection."""
    return gen_house.import_graph()


def _rank(module: str) -> int:
    return gen_house.LAYERS.index(gen_house.subsystem(module))


def _is_private(module: str) -> bool:
    return any(part.startswith("_") and part != "__init__" for part in module.split("."))


def test_no_import_circles(modules):
    assert gen_house.cycles(modules) == []


def test_layers_point_down(modules):
    upward = [f"{m.name}:{line} imports {target}"
              for m in modules.values() if m.name != "mcs_conformance"
              for target, line, *_ in m.imports
              if gen_house.subsystem(target) != "kit" and _rank(target) > _rank(m.name)]
    assert upward == []


def test_no_import_inside_a_function_but_for_optional_dependencies(modules):
    inner = []
    for m in modules.values():
        lines = m.path.read_text("utf-8").splitlines()
        for target, line, in_function, _ in m.imports:
            said = " ".join(lines[line - 1:line + 1])
            if in_function and "optional dependency" not in said:
                inner.append(f"{m.name}:{line} imports {target} inside a function")
    assert inner == []


def test_other_subsystems_are_reached_through_their_public_surface(modules):
    """Across subsystems a module imports a public module, and only names in its `__all__`."""
    reaches = []
    for m in modules.values():
        own = gen_house.subsystem(m.name)
        for target, line, _, names in m.imports:
            if gen_house.subsystem(target) in (own, "kit"):
                continue
            if _is_private(target):
                reaches.append(f"{m.name}:{line} imports private {target}")
                continue
            public = getattr(importlib.import_module(target), "__all__", None)
            if public is None:
                reaches.append(f"{m.name}:{line} imports {target}, which has no __all__")
                continue
            reaches += [f"{m.name}:{line} imports {target}.{name}, not in its __all__"
                        for name in names if name not in public]
    assert reaches == []


def test_no_module_over_600_lines(modules):
    assert {m.name: m.lines for m in modules.values() if m.lines > MAX_LINES} == {}


def test_every_subsystem_says_what_it_owns_and_what_it_may_import(modules):
    packages = [m for m in modules.values() if m.is_package and m.name.count(".") == 1]
    assert {m.name for m in packages} == {f"mcs_conformance.{layer}" for layer in gen_house.LAYERS
                                          if layer not in ("mcs_reference", "cli")}
    for m in packages:
        doc = ast.get_docstring(ast.parse(m.path.read_text("utf-8"))) or ""
        assert "May import:" in doc, m.name
        allowed = doc.split("May import:")[1]
        for other in gen_house.layer_edges(modules).get(gen_house.subsystem(m.name), ()):
            assert other in allowed, f"{m.name} imports {other} but its docstring does not say so"


def test_public_modules_list_their_names_and_the_api_page_documents_them():
    for name in gen_api.MODULES:
        module = importlib.import_module(name)
        assert isinstance(module.__all__, list), name
        assert all(hasattr(module, item) for item in module.__all__), name
    page = (ROOT / "docs" / "api.md").read_text("utf-8")
    for name in gen_api.MODULES:
        assert f"## `{name}`" in page
        for item in importlib.import_module(name).__all__:
            assert f"### `{item}`" in page, f"{name}.{item} is not in docs/api.md"


@pytest.mark.parametrize("name", sorted(n for n in gen_house.find_modules()
                                        if not _is_private(n) and n not in ("mcs_conformance",)))
def test_a_public_module_has_all(name):
    if name in ("mcs_conformance.cli",):  # the command line: `main` is its entry point
        return
    assert hasattr(importlib.import_module(name), "__all__"), f"{name} has no __all__"


def test_the_picture_of_the_house_is_the_measured_one(modules):
    assert gen_house.committed_block() == gen_house.house_markdown(modules), (
        "docs/architecture.md's house differs: python docs/gen_house.py, and paste its block")
