"""The package's JSON Schemas (wire chunks and messages, history, corpus and report formats).

Data formats are schemas first; code validates against them with cached validators.
"""
from __future__ import annotations

import json
from functools import lru_cache
from importlib import resources
from typing import Any

from jsonschema import Draft202012Validator
from jsonschema.exceptions import ValidationError

__all__ = ["ValidationError", "errors", "load", "validate", "validator"]


@lru_cache(maxsize=None)
def load(name: str) -> dict:
    """The schema file `name` (e.g. "openai-chat.chunk.json") shipped in the package."""
    text = resources.files("mcs_conformance").joinpath("schemas", name).read_text("utf-8")
    return json.loads(text)


@lru_cache(maxsize=None)
def validator(name: str) -> Draft202012Validator:
    """A validator of schema `name`. The shipped schemas are checked against the metaschema
    by tests/kit/test_schemas.py, not on every run (about 0.03 s a run)."""
    schema = load(name)
    return Draft202012Validator(_inlined(schema, schema.get("$defs", {})))


def _inlined(node: Any, defs: dict, seen: tuple = ()) -> Any:
    """`node` with each local `#/$defs/...` reference replaced by what it names (a cycle
    keeps its reference): the same verdicts and messages, without a reference resolved
    for every instance validated, which was about a quarter of a history check's time."""
    if isinstance(node, list):
        return [_inlined(item, defs, seen) for item in node]
    if not isinstance(node, dict):
        return node
    out = {key: _inlined(value, defs, seen) for key, value in node.items() if key != "$ref"}
    ref = node.get("$ref")
    if isinstance(ref, str) and ref.startswith("#/$defs/") and ref[8:] in defs and ref not in seen:
        target = _inlined(defs[ref[8:]], defs, (*seen, ref))
        if not out:
            return target
        out["allOf"] = [target, *out.get("allOf", [])]
    elif ref is not None:
        out["$ref"] = ref
    return out


def validate(instance: Any, name: str) -> None:
    """Raise `ValidationError` (naming the failing path) unless `instance` fits schema `name`."""
    validator(name).validate(instance)


def errors(instance: Any, name: str) -> list[str]:
    """Readable validation errors, `path: message`, empty when valid."""
    return [
        f"{'/'.join(str(p) for p in err.absolute_path) or '<root>'}: {err.message}"
        for err in validator(name).iter_errors(instance)
    ]
