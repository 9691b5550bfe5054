"""Anthropic's provider-run content: server tool calls, their results, citations, uploads.

A `server_tool_use` block is a call Anthropic runs itself (web search, web fetch, code
execution, tool search); its result follows as a `*_tool_result` block with the same
`tool_use_id`. Neither is a call for the client: a strategy that extracts them runs tools
the client never offered. Results always arrive whole at `content_block_start`.

A segment's small decisions (which tool, which result, which URL) are read from a `Tape`
with the slots `SEGMENT_SLOTS`; its ids come from one drawn number, and the one text and
the one opaque blob a segment may hold are drawn whatever the tape decides, so that
shrinking a decision shifts no later draw.
"""
from __future__ import annotations

from typing import Callable

from hypothesis import strategies as st

from mcs_conformance.wires._base import Tape, tapes
from mcs_conformance.wires._content import (BASE62, BASE64, draw_opaque, draw_prose, opaque, prose,
                                            spell, token)

__all__ = ["CITATION_SLOTS", "CITATION_TYPES", "SEGMENT_SLOTS", "SERVER_TOOLS", "citations",
           "cited", "segment", "server_ids", "server_segments"]

server_ids = token(BASE62, 24).map("srvtoolu_01".__add__)
_TEXTS = prose(max_fragments=3)  # a query, a fetched page, a viewed file
_BLOBS = opaque(BASE64, max_size=40)  # encrypted content or stdout
_URLS = ("https://example.com/", "https://en.wikipedia.org/wiki/Tokyo",
         "https://docs.python.org/3/library/json.html")
_TITLES = ("Example Domain", "Tokyo - Wikipedia", "json — JSON encoder")
_CODES = ("print(1 + 1)", "import json\nprint(json.dumps({}))", "x = '}'")
_OUTPUTS = ("", "2\n", "{}\n", "é 😀\n")
_TOOL_NAMES = ("get_weather", "search", "get_exchange_rate")

#: The tape slots a segment reads (a result's URL, title, age or tool name per result).
SEGMENT_SLOTS = ("server-tool", "server-input", "server-result", "server-results",
                 "server-error", "fetch-title", "stdout", "stderr", "return-code", "update",
                 "server-caller",
                 *(f"result-{k}-{part}" for k in range(2) for part in ("url", "title", "age",
                                                                       "tool")))


def _search_result(url: str, title: str, content: str, age: str | None) -> dict:
    return {"type": "web_search_result", "url": url, "title": title,
            "encrypted_content": content, "page_age": age}


def _web_search(tape: Tape, text: str, blob: str) -> list | dict:
    if tape.flip("server-result"):
        return {"type": "web_search_tool_result_error", "error_code": tape.pick(
            "server-error", ("max_uses_exceeded", "unavailable", "query_too_long"))}
    return [_search_result(tape.pick(f"result-{k}-url", _URLS),
                           tape.pick(f"result-{k}-title", _TITLES), blob[k:] + blob[:k],
                           tape.pick(f"result-{k}-age", (None, "2 days ago")))
            for k in range(tape.below("server-results", 3))]


def _web_fetch(tape: Tape, text: str, blob: str) -> dict:
    if tape.flip("server-result"):
        return {"type": "web_fetch_tool_result_error", "error_code": tape.pick(
            "server-error", ("url_not_accessible", "unsupported_content_type"))}
    title = tape.pick("result-0-title", _TITLES) if tape.flip("fetch-title") else None
    return {"type": "web_fetch_result", "url": tape.pick("result-0-url", _URLS),
            "retrieved_at": "2025-11-20T10:00:00Z",
            "content": {"type": "document", "title": title,  # no `citations` key: as recorded
                        "source": {"type": "text", "media_type": "text/plain", "data": text}}}


def _ran(kind: str, tape: Tape) -> dict:
    return {"type": kind, "stdout": tape.pick("stdout", _OUTPUTS),
            "stderr": tape.pick("stderr", ("", "Traceback: boom\n")),
            "return_code": tape.below("return-code", 2), "content": []}


def _code_execution(tape: Tape, text: str, blob: str) -> dict:
    kind = tape.below("server-result", 3)
    if kind == 0:
        return _ran("code_execution_result", tape)
    if kind == 1:
        return {"type": "encrypted_code_execution_result", "encrypted_stdout": blob,
                "stderr": "", "return_code": 0, "content": []}
    return {"type": "code_execution_tool_result_error", "error_code": "unavailable"}


def _bash(tape: Tape, text: str, blob: str) -> dict:
    if tape.flip("server-result"):
        return {"type": "bash_code_execution_tool_result_error",
                "error_code": "execution_time_exceeded"}
    return _ran("bash_code_execution_result", tape)


def _editor(tape: Tape, text: str, blob: str) -> dict:
    if tape.flip("server-result"):
        return {"type": "text_editor_code_execution_create_result",
                "is_file_update": tape.flip("update")}
    return {"type": "text_editor_code_execution_view_result", "content": text,
            "file_type": "text", "num_lines": None, "start_line": None, "total_lines": None}


def _tool_search(tape: Tape, text: str, blob: str) -> dict:
    names = [tape.pick(f"result-{k}-tool", _TOOL_NAMES)
             for k in range(1 + tape.below("server-results", 2))]
    return {"type": "tool_search_tool_search_result",
            "tool_references": [{"type": "tool_reference", "tool_name": name} for name in names]}


#: server tool name -> (its input from the tape and the drawn text, its result block type,
#: its result content from the tape, the drawn text and the drawn blob)
SERVER_TOOLS: dict[str, tuple[Callable, str, Callable]] = {
    "web_search": (lambda tape, text: {"query": text}, "web_search_tool_result", _web_search),
    "web_fetch": (lambda tape, text: {"url": tape.pick("server-input", _URLS)},
                  "web_fetch_tool_result", _web_fetch),
    "code_execution": (lambda tape, text: {"code": tape.pick("server-input", _CODES)},
                       "code_execution_tool_result", _code_execution),
    "bash_code_execution": (lambda tape, text: {"command": "ls -la"},
                            "bash_code_execution_tool_result", _bash),
    "text_editor_code_execution": (
        lambda tape, text: {"command": tape.pick("server-input", ("view", "create")),
                            "path": "/tmp/main.py"},
        "text_editor_code_execution_tool_result", _editor),
    "tool_search_tool_regex": (lambda tape, text: {"pattern": "weather|rate"},
                               "tool_search_tool_result", _tool_search),
    "tool_search_tool_bm25": (lambda tape, text: {"query": text}, "tool_search_tool_result",
                              _tool_search),
}
_NAMES = tuple(sorted(SERVER_TOOLS))


def segment(draw: Callable, tape: Tape, names: tuple = _NAMES) -> list[dict]:
    """A server tool call and its result block, its
    decisions read from `tape`, its tool one of `names` (those the request declares);
    drawn: its ids (one number), a text and a blob, whatever the tool."""
    number, text, blob = draw_opaque(draw), draw(_TEXTS), draw(_BLOBS)
    name = tape.pick("server-tool", names)
    make_input, result_type, make_content = SERVER_TOOLS[name]
    call_id = "srvtoolu_01" + spell(number, BASE62, 24)
    call = {"type": "server_tool_use", "id": call_id, "name": name,
            "input": make_input(tape, text)}
    result = {"type": result_type, "tool_use_id": call_id,
              "content": make_content(tape, text, blob)}
    if tape.flip("server-caller"):
        call["caller"] = {"type": "direct"}
        if result_type in ("web_search_tool_result", "web_fetch_tool_result"):
            result["caller"] = {"type": "direct"}
    # no `container_upload` after code: the docs show it only as an input block (a file
    # the user uploads), and no recording or report shows the server sending one
    return [call, result]


_SEGMENT_TAPES = tapes(SEGMENT_SLOTS)
_SEGMENTS = st.composite(lambda draw: segment(draw, _SEGMENT_TAPES(draw)))()


def server_segments() -> st.SearchStrategy[list[dict]]:
    """A server tool's blocks, as they sit between text and client calls."""
    return _SEGMENTS


def _cite(kind: str, cited: str, number: int) -> dict:
    if kind == "web_search_result_location":
        return {"type": kind, "cited_text": cited, "url": "https://example.com/",
                "title": "Example Domain", "encrypted_index": "Eo8BCioIBxgC"}
    if kind == "char_location":
        return {"type": kind, "cited_text": cited, "document_index": 0, "document_title": None,
                "start_char_index": number, "end_char_index": number + len(cited)}
    if kind == "page_location":
        return {"type": kind, "cited_text": cited, "document_index": 0, "document_title": None,
                "start_page_number": 1, "end_page_number": 1 + number}
    if kind == "content_block_location":
        return {"type": kind, "cited_text": cited, "document_index": 0, "document_title": None,
                "start_block_index": 0, "end_block_index": 1 + number}
    return {"type": kind, "cited_text": cited, "search_result_index": 0, "source": "kb",
            "title": None, "start_block_index": 0, "end_block_index": 1 + number}


CITATION_TYPES = ("char_location", "page_location", "content_block_location",
                  "web_search_result_location", "search_result_location")
#: The tape slots `cited` reads (`+`: the low byte of a position in a text over 256 long).
CITATION_SLOTS = ("citations", *(f"cite-{k}-{part}" for k in range(2)
                                 for part in ("kind", "number", "from", "from+", "to", "to+")))


def cited(tape: Tape, text: str, kinds: tuple = CITATION_TYPES) -> list[dict]:
    """One or two citations of a text block, read from `tape`, each of one of `kinds` (the
    sources the request carries): each quotes a piece of `text` (the source it supports is
    not drawn: no reader compares the two)."""
    out = []
    for k in range(1 + tape.below("citations", 2)):
        start = tape.at(f"cite-{k}-from", len(text) + 1)
        end = start + tape.at(f"cite-{k}-to", len(text) - start + 1)
        out.append(_cite(tape.pick(f"cite-{k}-kind", kinds), text[start:end],
                         tape.below(f"cite-{k}-number", 41)))
    return out


_CITATION_TAPES = tapes(CITATION_SLOTS)
_CITATIONS = st.composite(
    lambda draw: cited(_CITATION_TAPES(draw), draw_prose(draw, max_fragments=2)))()


def citations() -> st.SearchStrategy[list[dict]]:
    """The citations of one text block (at least one), quoting a drawn text."""
    return _CITATIONS
