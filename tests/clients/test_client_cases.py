"""The client case generators share the malformed calls of `extract.malformed` through a
public module, borrow no private name from another module, and cut bodies where the byte
definitions below say."""
from __future__ import annotations

import ast
from pathlib import Path

from types import SimpleNamespace

from hypothesis import given, settings
from hypothesis import strategies as st

import mcs_conformance.clients as clients_package
from mcs_conformance.wires import BAD_TEXTS
from mcs_conformance.clients import malformed_streams
from mcs_conformance.clients._cases import _boundaries, _character_splits, _interesting

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


# -- where bodies are cut, against a plain reading of each byte ----------------------------
BODIES = st.lists(st.one_of(st.sampled_from([b"data:", b"\r", b"\n", b"\r\n", b"\n\r\n",
                                             "é€".encode(), b"\x80", b"\xc0", b"ta:"]),
                            st.binary(max_size=4))).map(b"".join)


def interesting_byte_by_byte(body: bytes) -> list[list[int]]:
    crlf, utf8, data, line_end = [], [], [], []
    for index in range(1, len(body)):
        if body[index - 1] == 0x0D:
            crlf.append(index)
        elif 0x80 <= body[index] <= 0xBF:
            utf8.append(index)
        elif body[index] == 0x0A:
            line_end.append(index)
        elif b"data:" in (body[index - 2:index + 3], body[index - 4:index + 1]):
            data.append(index)
    return [kind for kind in (crlf, utf8, data, line_end) if kind]


@settings(max_examples=300, database=None)
@given(BODIES)
def test_the_interesting_offsets_are_those_a_byte_by_byte_reading_finds(body):
    assert _interesting(body) == interesting_byte_by_byte(body)
    assert _character_splits(body) == [index for index in range(1, len(body))
                                       if 0x80 <= body[index] <= 0xBF and body[index - 1] >= 0xC0]


@settings(max_examples=300, database=None)
@given(BODIES, st.data())
def test_event_boundaries_are_after_each_blank_line_or_each_ndjson_line(body, data):
    end = data.draw(st.integers(0, len(body)))
    lines = [index + 1 for index in range(end) if body[index] == 0x0A]
    blank = [index + 1 for index in range(1, end) if body[index] == 0x0A
             and (body[index - 1] == 0x0A or body[max(index - 2, 0):index] == b"\n\r")]
    assert _boundaries(SimpleNamespace(wire="ollama-chat"), frozenset(), body, end) == [0] + lines
    assert _boundaries(SimpleNamespace(wire="openai-chat"), frozenset(), body, end) == [0] + blank
