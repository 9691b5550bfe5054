"""Import what the user names as `pkg.module:Obj`; every way it can go wrong is one line."""
from __future__ import annotations

import importlib
import os
import sys
from typing import Any

__all__ = ["TargetError", "import_object"]


class TargetError(ValueError):
    """Raised when a `pkg:Obj` target cannot be imported or is not what was asked for."""


def import_object(spec: str) -> Any:
    """Import `pkg.module:attr.path`; errors name the target and the fix."""
    module_name, sep, attr_path = spec.partition(":")
    if not sep or not module_name or not attr_path:
        raise TargetError(f"{spec}: expected 'package.module:Object'")
    try:
        module = _import(module_name)
    except ModuleNotFoundError as exc:
        raise TargetError(
            f"{spec}: cannot import module {exc.name!r} (is it installed or on sys.path?)"
        ) from None
    except Exception as exc:  # the user's module failed while importing
        raise TargetError(
            f"{spec}: importing {module_name!r} raised {type(exc).__name__}: {exc}"
        ) from None
    obj: Any = module
    for part in attr_path.split("."):
        if not hasattr(obj, part):
            raise TargetError(f"{spec}: module {module_name!r} has no attribute {attr_path!r}")
        obj = getattr(obj, part)
    return obj


def _import(module_name: str) -> Any:
    try:
        return importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        # A user's own package in the current directory, run with plain `pytest`.
        cwd = os.getcwd()
        if exc.name != module_name.split(".")[0] or cwd in sys.path:
            raise
        sys.path.insert(0, cwd)
        return importlib.import_module(module_name)
