"""The floor of the kit: what every subsystem above may share, and nothing of theirs.

Owns the one deep copy of wire data and the one short form of a value (`copy_json`,
`shorten`, `show`), the package's JSON Schemas (`mcs_conformance.base.schema`) and importing
what a user names as `pkg.module:Obj` (`import_object`, `TargetError`).

May import: the standard library, `jsonschema`. Nothing of `mcs_conformance` or
`mcs_reference`.
"""
from __future__ import annotations

from mcs_conformance.base import schema
from mcs_conformance.base._json import copy_json, shorten, show
from mcs_conformance.base._loading import TargetError, import_object

__all__ = ["TargetError", "copy_json", "import_object", "schema", "shorten", "show"]
