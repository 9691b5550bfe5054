"""The client case generators share the malformed calls of `extract.malformed` through a
public module, and borrow no private name from another module."""
from __future__ import annotations

import ast
from pathlib import Path

from hypothesis import given, settings

import mcs_conformance.clients as clients_package
from mcs_conformance.wires import BAD_TEXTS
from mcs_conformance.clients import malformed_streams

CLIENTS = Path(clients_package.__file__).parent


def test_the_client_modules_import_no_private_name_of_another_module():
    borrowed = [f"{path.name}: {node.module}.{alias.name}"
                for path in sorted(CLIENTS.glob("*.py"))
                for node in ast.walk(ast.parse(path.read_text("utf-8")))
                if isinstance(node, ast.ImportFrom) and node.module
                for alias in node.names if alias.name.startswith("_")]
    assert borrowed == []


@settings(max_examples=10, database=None)
@given(malformed_streams("openai-chat", frozenset()))
def test_client_malformed_draws_the_malformed_calls_of_extract_malformed(drawn):
    served, name, raw = drawn
    assert raw in BAD_TEXTS
    assert any(call.name == name and call.error for call in served.case.calls)
