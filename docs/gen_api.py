"""Generate docs/api.md from the docstrings of the public names, so the reference cannot drift.

    python docs/gen_api.py > docs/api.md

Documents the contract's names (`mcs_reference.__all__`) and the public surface of every
subsystem of the kit (each `__all__` in MODULES). tests/test_docs.py fails when docs/api.md
differs from what this prints; tests/test_architecture.py, when a public module is missing.
"""
from __future__ import annotations

import dataclasses
import importlib
import inspect
import re
import sys
import typing
from typing import Any

MODULES = (
    "mcs_reference",
    "mcs_conformance.hypothesis",
    "mcs_conformance.base", "mcs_conformance.base.schema",
    "mcs_conformance.wires",
    "mcs_conformance.targets",
    "mcs_conformance.clients", "mcs_conformance.clients.reference_client",
    "mcs_conformance.clauses",
    "mcs_conformance.corpora",
    "mcs_conformance.plugin",
    "mcs_conformance.certify",
)
_ADDRESS = re.compile(r" at 0x[0-9a-fA-F]+")
_FORWARD = re.compile(r"ForwardRef\('([^']*)'\)")


def _annotation(value: Any) -> str:
    text = value if isinstance(value, str) else inspect.formatannotation(value)
    return _FORWARD.sub(r"\1", text).replace("hypothesis.strategies.", "st.")


def _default(value: Any) -> str:
    return _ADDRESS.sub("", _stable_repr(value))


def _stable_repr(value: Any) -> str:
    """`repr`, with sets sorted: a set's order changes from one interpreter to the next."""
    if isinstance(value, (set, frozenset)):
        items = ", ".join(sorted(map(_stable_repr, value)))
        return f"{type(value).__name__}({{{items}}})" if items else f"{type(value).__name__}()"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{_stable_repr(k)}: {_stable_repr(v)}" for k, v in value.items()) + "}"
    if isinstance(value, (list, tuple)):
        inner = ", ".join(map(_stable_repr, value))
        return f"[{inner}]" if isinstance(value, list) else f"({inner}{',' if len(value) == 1 else ''})"
    return repr(value)


def signature(obj: Any, *, drop_self: bool = False) -> str:
    """`(a: int, *, b=1) -> str`, with annotations as written in the source."""
    try:
        sig = inspect.signature(obj)
    except (TypeError, ValueError):
        return "(...)"
    parts, star_done = [], False
    params = list(sig.parameters.values())
    if drop_self and params and params[0].name in ("self", "cls"):
        params = params[1:]
    previous = None
    for param in params:
        kind = param.kind
        if previous == param.POSITIONAL_ONLY and kind != param.POSITIONAL_ONLY:
            parts.append("/")
        if kind == param.KEYWORD_ONLY and not star_done:
            parts.append("*")
            star_done = True
        text = param.name
        if kind == param.VAR_POSITIONAL:
            text, star_done = "*" + text, True
        elif kind == param.VAR_KEYWORD:
            text = "**" + text
        if param.annotation is not param.empty:
            text += f": {_annotation(param.annotation)}"
        if param.default is not param.empty:
            text += (" = " if param.annotation is not param.empty else "=") + _default(param.default)
        parts.append(text)
        previous = kind
    if previous == inspect.Parameter.POSITIONAL_ONLY:
        parts.append("/")
    out = f"({', '.join(parts)})"
    if sig.return_annotation is not sig.empty:
        out += f" -> {_annotation(sig.return_annotation)}"
    return out


def _doc(obj: Any) -> str:
    return inspect.getdoc(obj) or "(no docstring)"


def _said(obj: Any) -> str:
    """`: docstring` for a member list item, or nothing when it has none."""
    doc = inspect.getdoc(obj)
    return f": {doc}" if doc else ""


def _member_lines(cls: type) -> list[str]:
    """The public members a class defines itself, in source order."""
    lines = []
    fields = {f.name: f for f in dataclasses.fields(cls)} if dataclasses.is_dataclass(cls) else {}
    for name, value in vars(cls).items():
        if name.startswith("_") or name in fields:
            continue
        if isinstance(value, property):
            lines += [f"- `{name}` (property){_said(value)}"]
        elif isinstance(value, (staticmethod, classmethod)):
            function = value.__func__
            drop = isinstance(value, classmethod)
            lines += [f"- `{name}{signature(function, drop_self=drop)}`{_said(getattr(cls, name))}"]
        elif inspect.isfunction(value):
            lines += [f"- `{name}{signature(value, drop_self=True)}`{_said(getattr(cls, name))}"]
        elif not callable(value):
            lines += [f"- `{name} = {_default(value)}`"]
    return [_indent_continuations(line) for line in lines]


def _indent_continuations(line: str) -> str:
    """A multi-paragraph docstring inside a list item stays inside the item."""
    first, *rest = line.split("\n")
    return "\n".join([first] + [("  " + part) if part else "" for part in rest])


def _field_lines(cls: type) -> list[str]:
    lines = []
    for field in dataclasses.fields(cls):
        text = f"- `{field.name}: {_annotation(field.type)}`"
        if field.default is not dataclasses.MISSING:
            text += f" = `{_default(field.default)}`"
        elif field.default_factory is not dataclasses.MISSING:
            text += f" = `{field.default_factory.__name__}()`"
        lines.append(text)
    return lines


def document(module_name: str, name: str, obj: Any) -> list[str]:
    """The Markdown section of one public name."""
    home = getattr(obj, "__module__", module_name)
    if typing.get_origin(obj) is typing.Union:
        members = " | ".join(member.__name__ for member in typing.get_args(obj))
        return [f"### `{name}`", "", "```text", f"{name} = {members}", "```", "",
                f"Defined in `{module_name}`: a type, one of {members.replace(' | ', ', ')}.", ""]
    if inspect.ismodule(obj):
        summary = _doc(obj).split("\n\n")[0]
        return [f"### `{name}`", "", f"The module `{obj.__name__}`, documented below: {summary}", ""]
    if inspect.isclass(obj):
        bases = ", ".join(f"`{b.__name__}`" for b in obj.__bases__ if b is not object)
        made = signature(obj).removesuffix(" -> None")
        lines = [f"### `{name}`", "", "```text", f"class {name}{made}", "```", "",
                 f"Defined in `{home}`" + (f"; bases: {bases}." if bases else "."), "",
                 _doc(obj), ""]
        if dataclasses.is_dataclass(obj):
            lines += ["Fields:", "", *_field_lines(obj), ""]
        members = _member_lines(obj)
        if members:
            lines += ["Members:", "", *members, ""]
        return lines
    if callable(obj):
        return [f"### `{name}`", "", "```text", f"def {name}{signature(obj)}", "```", "",
                f"Defined in `{home}`.", "", _doc(obj), ""]
    lines = [f"### `{name}`", "", "```text", f"{name} = {_default(obj)}", "```", ""]
    kind = type(obj)
    if kind.__module__.split(".")[0] in ("mcs_reference", "mcs_conformance") and kind.__doc__:
        lines += [inspect.getdoc(kind), ""]  # a sentinel of a type of its own says what it is
    return lines


def render() -> str:
    """The whole of docs/api.md."""
    lines = [
        "# API reference", "",
        "Generated from the docstrings by `python docs/gen_api.py > docs/api.md`; do not edit "
        "by hand (tests/test_docs.py fails when this file is stale).", "",
        "The contract's names are importable from `mcs_reference`; the kit's generators from "
        "`mcs_conformance.hypothesis`; wires (for a format of your own) from "
        "`mcs_conformance.wires`. Then each subsystem of the kit, lowest layer first, with the "
        "names it offers the layers above it (and you): anything not listed here is private. "
        "See [architecture.md](architecture.md) for how they fit together and "
        "[writing-a-strategy.md](writing-a-strategy.md) for a worked example.", "",
    ]
    for module_name in MODULES:
        module = importlib.import_module(module_name)
        names = list(module.__all__)
        lines += [f"## `{module_name}`", "", _doc(module), "",
                  "Public names: " + ", ".join(f"[`{n}`](#{n.lower()})" for n in names) + ".", ""]
        for name in names:
            lines += document(module_name, name, getattr(module, name))
    return "\n".join(lines).rstrip("\n") + "\n"


def main() -> int:
    sys.stdout.write(render())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
