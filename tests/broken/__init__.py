"""Deliberately broken extraction strategies: the kit must flag every one of them.

Each module holds one strategy, a subclass of a reference strategy with ONE realistic bug
(its docstring says which real-world failure it mimics), and `CAUGHT_BY`, the id of the
clause that names the bug. `tests/kit/test_broken_strategies.py` certifies each one as a
user would (`pytest --mcs-strategy=broken.<module>:<Obj>`) and checks that this clause fails.
A conformance kit that passes everything is worthless; these keep it honest.
"""
from __future__ import annotations

import importlib
import pkgutil

__all__ = ["MODULES", "target_of"]

MODULES = tuple(sorted(info.name for info in pkgutil.iter_modules(__path__)
                       if not info.name.startswith("_")))


def target_of(module_name: str) -> tuple[str, str]:
    """(`broken.<module>:<Obj>`, clause id) for one module: the one public strategy in it."""
    module = importlib.import_module(f"{__name__}.{module_name}")
    return f"{__name__}.{module_name}:{module.STRATEGY}", module.CAUGHT_BY
