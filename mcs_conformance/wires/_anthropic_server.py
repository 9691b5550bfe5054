"""Anthropic's provider-run content: server tool calls, their results, citations, uploads.

A `server_tool_use` block is a call Anthropic runs itself (web search, web fetch, code
execution, tool search); its result follows as a `*_tool_result` block with the same
`tool_use_id`. Neither is a call for the client: a strategy that extracts them runs tools
the client never offered. Results always arrive whole at `content_block_start`.
"""
from __future__ import annotations

from typing import Callable

from hypothesis import strategies as st

from ._content import BASE62, BASE64, opaque, prose, token

__all__ = ["SERVER_TOOLS", "citations", "server_segments", "server_ids"]

server_ids = token(BASE62, 24).map("srvtoolu_01".__add__)
_FILE_IDS = token(BASE62, 24).map("file_011".__add__)
_URLS = st.sampled_from(("https://example.com/", "https://en.wikipedia.org/wiki/Tokyo",
                         "https://docs.python.org/3/library/json.html"))
_TITLES = st.sampled_from(("Example Domain", "Tokyo - Wikipedia", "json — JSON encoder"))
_CODES = st.sampled_from(("print(1 + 1)", "import json\nprint(json.dumps({}))", "x = '}'"))
_OUTPUTS = st.sampled_from(("", "2\n", "{}\n", "é 😀\n"))


def _search_result(url: str, title: str, content: str, age: str | None) -> dict:
    return {"type": "web_search_result", "url": url, "title": title,
            "encrypted_content": content, "page_age": age}


_WEB_SEARCH = st.one_of(
    st.lists(st.builds(_search_result, _URLS, _TITLES, opaque(BASE64, max_size=40),
                       st.sampled_from((None, "2 days ago"))), max_size=2),
    st.sampled_from(("max_uses_exceeded", "unavailable", "query_too_long")).map(
        lambda code: {"type": "web_search_tool_result_error", "error_code": code}),
)
_WEB_FETCH = st.one_of(
    st.builds(lambda url, text, title: {
        "type": "web_fetch_result", "url": url, "retrieved_at": "2025-11-20T10:00:00Z",
        "content": {"type": "document", "title": title, "citations": None,
                    "source": {"type": "text", "media_type": "text/plain", "data": text}}},
        _URLS, prose(max_fragments=3), st.one_of(st.none(), _TITLES)),
    st.sampled_from(("url_not_accessible", "unsupported_content_type")).map(
        lambda code: {"type": "web_fetch_tool_result_error", "error_code": code}),
)


def _ran(kind: str) -> st.SearchStrategy[dict]:
    return st.builds(lambda out, err, code: {"type": kind, "stdout": out, "stderr": err,
                                             "return_code": code, "content": []},
                     _OUTPUTS, st.sampled_from(("", "Traceback: boom\n")), st.sampled_from((0, 1)))


_CODE_EXECUTION = st.one_of(
    _ran("code_execution_result"),
    st.builds(lambda blob: {"type": "encrypted_code_execution_result", "encrypted_stdout": blob,
                            "stderr": "", "return_code": 0, "content": []}, opaque(max_size=40)),
    st.just({"type": "code_execution_tool_result_error", "error_code": "unavailable"}),
)
_BASH = st.one_of(_ran("bash_code_execution_result"), st.just(
    {"type": "bash_code_execution_tool_result_error", "error_code": "execution_time_exceeded"}))
_EDITOR = st.one_of(
    st.builds(lambda text: {"type": "text_editor_code_execution_view_result", "content": text,
                            "file_type": "text", "num_lines": None, "start_line": None,
                            "total_lines": None}, prose(max_fragments=3)),
    st.booleans().map(lambda update: {"type": "text_editor_code_execution_create_result",
                                      "is_file_update": update}),
)
_TOOL_SEARCH = st.lists(st.sampled_from(("get_weather", "search", "get_exchange_rate")),
                        min_size=1, max_size=2).map(lambda names: {
                            "type": "tool_search_tool_search_result",
                            "tool_references": [{"type": "tool_reference", "tool_name": name}
                                                for name in names]})

#: server tool name -> (its input generator, its result block type, its result content)
SERVER_TOOLS = {
    "web_search": (st.fixed_dictionaries({"query": prose(max_fragments=3)}),
                   "web_search_tool_result", _WEB_SEARCH),
    "web_fetch": (st.fixed_dictionaries({"url": _URLS}), "web_fetch_tool_result", _WEB_FETCH),
    "code_execution": (st.fixed_dictionaries({"code": _CODES}), "code_execution_tool_result",
                       _CODE_EXECUTION),
    "bash_code_execution": (st.fixed_dictionaries({"command": st.just("ls -la")}),
                            "bash_code_execution_tool_result", _BASH),
    "text_editor_code_execution": (
        st.fixed_dictionaries({"command": st.sampled_from(("view", "create")),
                               "path": st.just("/tmp/main.py")}),
        "text_editor_code_execution_tool_result", _EDITOR),
    "tool_search_tool_regex": (st.fixed_dictionaries({"pattern": st.just("weather|rate")}),
                               "tool_search_tool_result", _TOOL_SEARCH),
    "tool_search_tool_bm25": (st.fixed_dictionaries({"query": prose(max_fragments=2)}),
                              "tool_search_tool_result", _TOOL_SEARCH),
}
_NAMES = st.sampled_from(sorted(SERVER_TOOLS))


@st.composite
def _segment(draw: Callable) -> list[dict]:
    """A server tool call and its result block (and, after code, sometimes an upload)."""
    name = draw(_NAMES)
    inputs, result_type, contents = SERVER_TOOLS[name]
    call_id = draw(server_ids)
    call = {"type": "server_tool_use", "id": call_id, "name": name, "input": draw(inputs)}
    result = {"type": result_type, "tool_use_id": call_id, "content": draw(contents)}
    if draw(st.booleans()):
        call["caller"] = {"type": "direct"}
        if result_type in ("web_search_tool_result", "web_fetch_tool_result"):
            result["caller"] = {"type": "direct"}
    out = [call, result]
    if name in ("code_execution", "bash_code_execution") and draw(st.booleans()):
        out.append({"type": "container_upload", "file_id": draw(_FILE_IDS)})
    return out


def server_segments() -> st.SearchStrategy[list[dict]]:
    """A server tool's blocks, as they sit between text and client calls."""
    return _SEGMENTS


_SEGMENTS = _segment()


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
_CITATION = st.builds(_cite, st.sampled_from(CITATION_TYPES), prose(max_fragments=2),
                      st.integers(0, 40))
_CITATIONS = st.lists(_CITATION, min_size=1, max_size=2)


def citations() -> st.SearchStrategy[list[dict]]:
    """The citations of one text block (at least one)."""
    return _CITATIONS
