"""The request a drawn case needs: which features a client declares, and what it is told.

A real server sends some shapes only when the request asks for them (wires/_features.py
ties each to its feature). A client that cannot ask is never served them: it declares the
request features its library can express, the selection carries them (`Requestable`), and
the generators leave out what it cannot ask for (`shape_options`). One that can is told what
each case needs (`case_request`, read back from the case's own shapes) and the server checks
its HTTP request (`request_mismatch`, wires/_request_check.py).
"""
from __future__ import annotations

from typing import Any, Callable, Iterable

from mcs_conformance.wires._base import Case
from mcs_conformance.wires._features import (ALWAYS_ASKED, ANTHROPIC_CITATION_FEATURES,
                                             ANTHROPIC_SERVER_TOOL_FEATURES, granted,
                                             item_feature, MAX_TOKENS, QUIRK_FEATURES,
                                             RESPONSES_ANNOTATION_FEATURES)
from mcs_conformance.wires._quirks import OftenQuirks, QUIRKS
from mcs_conformance.wires._registry import NATIVE_WIRES

__all__ = ["CODE_EXECUTION_CALLER", "PROGRAMMATIC_BETA", "Requestable", "case_features",
           "case_request", "drawable_quirks", "features_of", "shape_options", "tool_definition"]

_CHAT, _ANTHROPIC, _RESPONSES, _GEMINI, _BEDROCK, _OLLAMA = (
    "openai-chat", "anthropic-messages", "openai-responses", "gemini", "bedrock-converse",
    "ollama-chat")

#: The Anthropic beta under which calls made from code execution come (their `caller`, their
#: input whole at `content_block_start`, the follow-up stream prefilled in `message_start`).
PROGRAMMATIC_BETA = "advanced-tool-use-2025-11-20"
#: The code execution tool a programmatic call comes from: its tool type, the `caller` its
#: calls carry, and what a function tool's `allowed_callers` must hold for code to call it.
CODE_EXECUTION_CALLER = "code_execution_20250825"
THINKING_BUDGET = 1024  # the budget_tokens a case with thinking tells the client
#: Programmatic tool calling's follow-up, as a client sends it: Claude's code ran in this
#: container and called a tool (`FOLLOWED_CALL`); the client sends its result back, and the
#: answer may come whole in `message_start` (the recorded second stream).
FOLLOWED_CONTAINER = "container_011CWHmcsConformanceCase1"
FOLLOWED_CODE = "srvtoolu_01McsConformanceCode00001"
FOLLOWED_CALL = "toolu_01McsConformanceCall000001"


class Requestable(frozenset):
    """A quirk selection for a client that declared its request features: the quirks it may
    be served, and `.features`, which the case generators read to leave out the other
    request-dependent shapes (`shape_options`)."""

    features: frozenset

    def __new__(cls, names: Iterable[str], features: Iterable[str]) -> "Requestable":
        selection = super().__new__(cls, names)
        selection.features = frozenset(features)
        return selection

    def __repr__(self) -> str:
        return f"Requestable({sorted(self)}, features={sorted(self.features)})"


class OftenRequestable(OftenQuirks, Requestable):
    """A server profile's selection (each quirk drawn often) for a client that declared its
    request features."""

    def __repr__(self) -> str:
        return f"OftenRequestable({sorted(self)}, features={sorted(self.features)})"


def features_of(quirks: Any) -> frozenset | None:
    """The request features a selection carries; None (every one) for a plain selection."""
    return getattr(quirks, "features", None)


def _asked(quirk: str, features: frozenset) -> bool:
    """Whether a request declaring `features` (on the quirk's wire) may get `quirk`."""
    feature = QUIRK_FEATURES.get(quirk)
    return feature is None or feature in features or \
        feature in ALWAYS_ASKED.get(QUIRKS[quirk].wire, frozenset())


def drawable_quirks(allowed: frozenset, features: Iterable[str]) -> Requestable:
    """The quirks of `allowed` a client declaring `features` can ask for: each quirk of
    `QUIRK_FEATURES` stays only when its feature is declared (or every request of its wire
    asks it). A server profile's selection stays one (its quirks still drawn often)."""
    features = frozenset(features)
    kind = OftenRequestable if isinstance(allowed, OftenQuirks) else Requestable
    return kind((name for name in allowed if _asked(name, features)), features)


def shape_options(wire: str, quirks: Any) -> dict:
    """Options of a built-in `wire`'s generators that leave out the shapes the selection's
    client cannot ask for (`features`, wires/_features.py); none for a plain selection."""
    features = features_of(quirks)
    if wire not in NATIVE_WIRES or features is None:  # a built-in wire takes `features`
        return {}
    return {"features": granted(wire, features)}


def tool_definition(name: str) -> dict:
    """A tool the request declares: permissive parameters that any arguments object meets."""
    return {"name": name, "description": f"The conformance case's tool {name}.",
            "parameters": {"type": "object", "properties": {}, "additionalProperties": True}}


# -- reading a case ------------------------------------------------------------------------
# Each reader gives, for each feature a case needs, the request keys that ask it, and the
# names of the function tools it calls. Values under `native_tools` (tool declarations
# written as the provider writes them) add up; the others are one value each.
Needs = dict[str, dict[str, Any]]


def _dicts(value: Any) -> list[dict]:
    return [item for item in value if isinstance(item, dict)] if isinstance(value, list) else []


def _chat_choices(case: Case) -> list[dict]:
    """Every choice of every chunk of an OpenAI Chat case (a stream cut by an error too)."""
    return [choice for chunk in case.chunks if isinstance(chunk, dict)
            for choice in _dicts(chunk.get("choices"))]


def _limit() -> dict:
    return {"max_tokens": MAX_TOKENS}


def _chat(case: Case) -> tuple[set, Needs]:
    choices = _chat_choices(case)
    deltas = [choice.get("delta") or {} for choice in choices]
    names = {c["function"]["name"] for delta in deltas for c in _dicts(delta.get("tool_calls"))
             if (c.get("function") or {}).get("name")}
    needs: Needs = {}
    count = 1 + max((choice.get("index", 0) for choice in choices), default=0)
    if count > 1:
        needs["n"] = {"n": count}
    if "usage-only-chunk" in case.quirks:
        needs["include_usage"] = {"include_usage": True}
    if any(choice.get("finish_reason") == "length" for choice in choices):
        needs["max_tokens"] = _limit()
    if any(choice.get("logprobs") is not None for choice in choices):
        needs["logprobs"] = {"logprobs": True}
    if any(delta.get("annotations") for delta in deltas):
        needs["web_search"] = {"web_search": True}
    return names, needs


_MCP_URL = "https://mcp.deepwiki.com/mcp"
#: A feature's tool as the OpenAI Responses request declares it (custom and MCP tools are
#: named after the case's items, in `_responses`).
RESPONSES_TOOLS: dict[str, dict] = {
    "computer_use": {"type": "computer_use_preview", "display_width": 1024,
                     "display_height": 768, "environment": "browser"},
    "local_shell": {"type": "local_shell"},
    "shell": {"type": "shell", "environment": {"type": "local"}},
    "hosted_shell": {"type": "shell", "environment": {"type": "container_auto"}},
    "apply_patch": {"type": "apply_patch"},
    "web_search": {"type": "web_search"},
    "file_search": {"type": "file_search", "vector_store_ids": ["vs_mcs"]},
    "code_interpreter": {"type": "code_interpreter", "container": {"type": "auto"}},
    "image_generation": {"type": "image_generation"},
    "tool_search": {"type": "tool_search"},
}


def _responses_items(case: Case) -> list[dict]:
    """Every output item a Responses case shows: in its events and its response(s)."""
    responses = [chunk.get("response") for chunk in case.chunks if isinstance(chunk, dict)]
    return [*(chunk["item"] for chunk in case.chunks
              if isinstance(chunk, dict) and isinstance(chunk.get("item"), dict)),
            *(item for response in [case.message, *responses] if isinstance(response, dict)
              for item in _dicts(response.get("output")))]


def _responses(case: Case) -> tuple[set, Needs]:
    items = _responses_items(case)
    events = [chunk for chunk in case.chunks if isinstance(chunk, dict)]
    names = {item["name"] for item in items if item.get("type") == "function_call"}
    needs: Needs = {}
    tools: dict[str, list] = {}
    for item in items:
        feature = item_feature(item)
        if feature == "custom_tools":
            tools.setdefault(feature, []).append({"type": "custom", "name": item["name"]})
        elif feature == "mcp":
            tools.setdefault(feature, []).append({"type": "mcp", "server_label":
                                                  item["server_label"], "server_url": _MCP_URL})
        elif feature == "compaction":
            needs[feature] = {"context_management": [{"type": "compaction"}]}
        elif feature is not None:
            tools[feature] = [RESPONSES_TOOLS[feature]]
    annotations = [note for item in items for part in _dicts(item.get("content"))
                   for note in _dicts(part.get("annotations"))]
    annotations += [event["annotation"] for event in events
                    if isinstance(event.get("annotation"), dict)]
    for note in annotations:
        feature = RESPONSES_ANNOTATION_FEATURES.get(note.get("type"))
        if feature is not None:
            tools.setdefault(feature, [RESPONSES_TOOLS[feature]])
    for feature, declared in sorted(tools.items()):
        unique = [tool for number, tool in enumerate(declared) if tool not in declared[:number]]
        needs[feature] = {"native_tools": unique}
    if any(item.get("type") == "reasoning" and item.get("summary") for item in items):
        needs["reasoning_summary"] = {"reasoning_summary": "auto"}
    if any(item.get("type") == "code_interpreter_call" and item.get("outputs") for item in items):
        needs["include"] = {"include": ["code_interpreter_call.outputs"]}
    if any(event.get("type") == "response.queued" for event in events):
        needs["background"] = {"background": True}
    if any(event.get("type") == "response.incomplete" for event in events):
        needs["max_tokens"] = _limit()
    return names, needs


#: An Anthropic server tool as the request declares it: the tool's type and name (code
#: execution's bash and text editor come with the code execution tool).
ANTHROPIC_TOOLS: dict[str, dict] = {
    "web_search": {"type": "web_search_20250305", "name": "web_search"},
    "web_fetch": {"type": "web_fetch_20250910", "name": "web_fetch"},
    "code_execution": {"type": "code_execution_20250825", "name": "code_execution"},
    "tool_search_tool_regex": {"type": "tool_search_tool_regex_20251119",
                               "name": "tool_search_tool_regex"},
    "tool_search_tool_bm25": {"type": "tool_search_tool_bm25_20251119",
                              "name": "tool_search_tool_bm25"},
}
_CITED = "The conformance case's source, which the answer cites."
#: Citation type -> the block the request carries for it (its citations enabled).
ANTHROPIC_SOURCES: dict[str, dict] = {
    "char_location": {"type": "document", "citations": {"enabled": True},
                      "source": {"type": "text", "media_type": "text/plain", "data": _CITED}},
    "page_location": {"type": "document", "citations": {"enabled": True},
                      "source": {"type": "base64", "media_type": "application/pdf",
                                 "data": "JVBERi0xLjQKJSVFT0YK"}},
    "content_block_location": {"type": "document", "citations": {"enabled": True},
                               "source": {"type": "content",
                                          "content": [{"type": "text", "text": _CITED}]}},
    "search_result_location": {"type": "search_result", "source": "kb", "title": "kb",
                               "content": [{"type": "text", "text": _CITED}],
                               "citations": {"enabled": True}},
}


def _anthropic_blocks(case: Case) -> list[dict]:
    """Every content block a Messages case shows (a stream cut early too)."""
    message = case.message if isinstance(case.message, dict) else {}
    starts = [(chunk.get("message") or {}) for chunk in case.chunks
              if isinstance(chunk, dict) and chunk.get("type") == "message_start"]
    return [*_dicts(message.get("content")),
            *(block for start in starts for block in _dicts(start.get("content"))),
            *(chunk["content_block"] for chunk in case.chunks if isinstance(chunk, dict)
              and isinstance(chunk.get("content_block"), dict))]


def _anthropic_stops(case: Case) -> list[dict]:
    """Where a Messages case says why it stopped: its message, its `message_delta`s."""
    message = case.message if isinstance(case.message, dict) else {}
    return [message, *(chunk.get("delta") or {} for chunk in case.chunks
                       if isinstance(chunk, dict) and chunk.get("type") == "message_delta")]


def _follow_up(names: list[str]) -> dict:
    """The history and container of programmatic tool calling's follow-up: the code's call of
    the case's first tool, and its result (`follow_up` in docs/harness-protocol.md)."""
    caller = {"type": CODE_EXECUTION_CALLER, "tool_id": FOLLOWED_CODE}
    return {"container": FOLLOWED_CONTAINER, "messages": [
        {"role": "assistant", "content": [
            {"type": "server_tool_use", "id": FOLLOWED_CODE, "name": "code_execution",
             "input": {"code": f"print(await {names[0]}({{}}))"}},
            {"type": "tool_use", "id": FOLLOWED_CALL, "name": names[0], "input": {},
             "caller": caller}]},
        {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": FOLLOWED_CALL, "content": "4"}]}]}


def _anthropic(case: Case) -> tuple[set, Needs]:
    blocks = _anthropic_blocks(case)
    deltas = [(chunk.get("delta") or {}) for chunk in case.chunks if isinstance(chunk, dict)]
    names = {block["name"] for block in blocks if block.get("type") == "tool_use"}
    needs: Needs = {}
    if any(block.get("type") in ("thinking", "redacted_thinking") for block in blocks) \
            or "empty-thinking-delta" in case.quirks:
        needs["thinking"] = {"thinking": {"budget_tokens": THINKING_BUDGET}}
    # a follow-up answered whole in message_start, read from the events (a stream cut or
    # ended in an error keeps the shape, not always the quirk's name)
    prefilled = "prefilled-message-start" in case.quirks or any(
        (chunk.get("message") or {}).get("content") for chunk in case.chunks
        if isinstance(chunk, dict) and chunk.get("type") == "message_start")
    if prefilled or "whole-input-at-start" in case.quirks or any(
            "tool_id" in (block.get("caller") or {}) for block in blocks):
        # the request of Anthropic's recorded programmatic stream: the beta, the code
        # execution tool, and function tools its code may call
        needs["programmatic_tool_calling"] = {
            "betas": [PROGRAMMATIC_BETA], "native_tools": [ANTHROPIC_TOOLS["code_execution"]],
            "allowed_callers": [CODE_EXECUTION_CALLER]}
    if prefilled:
        followed = _follow_up(sorted(names) or ["get_weather"])
        needs["programmatic_follow_up"] = {"follow_up": followed}
    servers = sorted({block["name"] for block in blocks if block.get("type") == "server_tool_use"})
    for name in servers:
        feature = ANTHROPIC_SERVER_TOOL_FEATURES[name]
        tool = ANTHROPIC_TOOLS.get(name, ANTHROPIC_TOOLS["code_execution"])
        told = needs.setdefault(feature, {"native_tools": []})["native_tools"]
        if tool not in told:
            told.append(tool)
    citations = [c for block in blocks for c in _dicts(block.get("citations"))]
    citations += [d["citation"] for d in deltas if isinstance(d.get("citation"), dict)]
    kinds = {c.get("type") for c in citations}
    for kind in sorted(kinds & set(ANTHROPIC_CITATION_FEATURES)):
        feature = ANTHROPIC_CITATION_FEATURES[kind]
        if kind in ANTHROPIC_SOURCES:
            key = "search_results" if feature == "search_results" else "documents"
            needs.setdefault(feature, {key: []})[key].append(ANTHROPIC_SOURCES[kind])
        else:  # a web search's results: the tool
            needs.setdefault(feature, {"native_tools": [ANTHROPIC_TOOLS["web_search"]]})
    stops = _anthropic_stops(case)
    if any(stop.get("stop_reason") == "max_tokens" for stop in stops):
        needs["max_tokens"] = _limit()
    sequences = sorted({stop["stop_sequence"] for stop in stops
                        if stop.get("stop_reason") == "stop_sequence" and stop.get("stop_sequence")})
    if sequences:
        needs["stop_sequences"] = {"stop_sequences": sequences}
    return names, needs


def _gemini_parts(chunks: list) -> list[dict]:
    """The parts of every record of a Gemini stream."""
    return [part for chunk in chunks if isinstance(chunk, dict)
            for candidate in _dicts(chunk.get("candidates"))
            for part in _dicts((candidate.get("content") or {}).get("parts"))]


def _gemini(case: Case) -> tuple[set, Needs]:
    parts = _gemini_parts(case.chunks)
    calls = [part["functionCall"] for part in parts if isinstance(part.get("functionCall"), dict)]
    names = {call["name"] for call in calls if isinstance(call.get("name"), str) and call["name"]}
    needs: Needs = {}
    if any(part.get("thought") for part in parts):
        needs["include_thoughts"] = {"include_thoughts": True}
    if "partial-args" in case.quirks:
        needs["stream_function_call_arguments"] = {"stream_function_call_arguments": True}
    if any(candidate.get("finishReason") == "MAX_TOKENS" for chunk in case.chunks
           if isinstance(chunk, dict) for candidate in _dicts(chunk.get("candidates"))):
        needs["max_tokens"] = _limit()
    return names, needs


def _bedrock(case: Case) -> tuple[set, Needs]:
    events = [event for event in case.chunks if isinstance(event, dict)]
    starts = [(event.get("contentBlockStart") or {}).get("start") or {} for event in events]
    names = {(start.get("toolUse") or {}).get("name") for start in starts} - {None, ""}
    deltas = [(event.get("contentBlockDelta") or {}).get("delta") or {} for event in events]
    needs: Needs = {}
    if any("reasoningContent" in delta for delta in deltas):
        needs["reasoning"] = {"reasoning": {"budget_tokens": THINKING_BUDGET}}
    if any((event.get("messageStop") or {}).get("stopReason") == "max_tokens" for event in events):
        needs["max_tokens"] = _limit()
    return names, needs


def _ollama(case: Case) -> tuple[set, Needs]:
    lines = [line for line in case.chunks if isinstance(line, dict)]
    messages = [line.get("message") or {} for line in lines]
    if isinstance(case.message, dict):
        messages.append(case.message.get("message") or {})
    names = {call["function"]["name"] for message in messages
             for call in _dicts(message.get("tool_calls"))
             if (call.get("function") or {}).get("name")}
    needs: Needs = {}
    if any("thinking" in message for message in messages):
        needs["think"] = {"think": True}
    if any(line.get("done_reason") == "length" for line in lines):
        needs["max_tokens"] = _limit()
    return names, needs


_READERS: dict[str, Callable[[Case], tuple[set, Needs]]] = {
    _CHAT: _chat, _RESPONSES: _responses, _ANTHROPIC: _anthropic, _GEMINI: _gemini,
    _BEDROCK: _bedrock, _OLLAMA: _ollama}


def _read(case: Case) -> tuple[list[str], Needs]:
    """The function tools `case` calls (its truth's calls too) and what else it needs."""
    reader = _READERS.get(case.wire)
    names, needs = reader(case) if reader else (set(), {})
    if case.wire != _RESPONSES or not case.message.get("output"):
        names |= {call.name for call in case.calls
                  if call.kind == "function" or case.wire != _RESPONSES}
    # a call cut by an error before its name came has none: nothing to declare for it
    return sorted(name for name in names if isinstance(name, str) and name), needs


def case_features(case: Case) -> frozenset:
    """The request features `case` needs (wires/_features.py), read from its shapes."""
    return frozenset(_read(case)[1])


def case_request(case: Case | None) -> dict:
    """What the client must ask for `case` to be served: the function tools (one per call
    name) and, for each feature the case needs, its keys (docs/harness-protocol.md);
    `{"tools": []}` when nothing is needed."""
    if case is None:
        return {"tools": []}
    names, needs = _read(case)
    request: dict[str, Any] = {"tools": [tool_definition(name) for name in names]}
    for _, keys in sorted(needs.items()):
        for key, value in keys.items():
            if key in ("native_tools", "documents", "search_results"):
                request.setdefault(key, []).extend(v for v in value if v not in request.get(key, []))
            else:
                request[key] = value
    return request
