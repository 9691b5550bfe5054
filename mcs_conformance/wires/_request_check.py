"""The check of a client's HTTP request against what its case needs (`wires.case_request`).

The local server runs it on every request of a case a client was told about: a request
lacking a tool the case calls (of the right kind), the `n`, the limit, the document... is
the harness's error, not the library's, and the reason names what is missing in one line.
"""
from __future__ import annotations

import re
from typing import Any, Callable, Mapping

from mcs_conformance.wires._features import (ANTHROPIC_SERVER_TOOL_FEATURES, FEATURES,
                                             RESPONSES_ITEM_FEATURES)

__all__ = ["request_mismatch"]

_CHAT, _ANTHROPIC, _RESPONSES, _GEMINI, _BEDROCK, _OLLAMA = (
    "openai-chat", "anthropic-messages", "openai-responses", "gemini", "bedrock-converse",
    "ollama-chat")


def _option(body: Any, *path: str) -> Any:
    """A nested option of a request, its keys in camelCase or snake_case (Gemini takes both)."""
    value: Any = body
    for key in path:
        if not isinstance(value, Mapping):
            return None
        snake = "".join("_" + c.lower() if c.isupper() else c for c in key)
        value = value.get(key, value.get(snake))
    return value


def _tools(body: Mapping) -> list[dict]:
    config = body.get("toolConfig")
    tools = [*(body.get("tools") or ()), *(body.get("functions") or ()),
             *((config.get("tools") or ()) if isinstance(config, dict) else ())]
    return [tool for tool in tools if isinstance(tool, dict)]


def _function_names(wire: str, body: Mapping) -> tuple[set, set]:
    """`(names of the function tools declared, names of tools of other kinds)`."""
    functions: set = set()
    others: set = set()
    for tool in _tools(body):
        spec = tool.get("toolSpec")
        declarations = tool.get("functionDeclarations", tool.get("function_declarations"))
        if isinstance(spec, dict):  # Bedrock Converse: toolConfig.tools[].toolSpec
            functions.add(spec.get("name"))
        elif isinstance(declarations, list):  # Gemini: a tool holds function declarations
            functions |= {d.get("name") for d in declarations if isinstance(d, dict)}
        elif isinstance(tool.get("function"), dict):  # Chat, Ollama
            functions.add(tool["function"].get("name"))
        elif tool.get("type") in (None, "function") or (
                wire == _ANTHROPIC and tool.get("type") == "custom"):
            functions.add(tool.get("name"))  # Responses, Anthropic, Chat's `functions`
        else:
            others.add(tool.get("name") or tool.get("server_label") or tool.get("type"))
    return {n for n in functions if isinstance(n, str)}, {n for n in others if isinstance(n, str)}


def _function_mismatch(wire: str, needed: Mapping, body: Mapping) -> str | None:
    functions, others = _function_names(wire, body)
    missing = sorted({tool["name"] for tool in needed.get("tools", ())} - functions)
    if not missing:
        return None
    declared = ", ".join([*sorted(functions),
                          *(f"{n} (not a function)" for n in sorted(others))]) or "none"
    return (f"the request declared no tool named {', '.join(missing)} (it declared: "
            f"{declared}); the case calls it")


# -- tools of the provider's own kinds ------------------------------------------------------
_VERSION = re.compile(r"_(\d{8}|\d{4}_\d{2}_\d{2})$")
#: Told tool type -> the types that declare the same tool (a preview, a dated version).
_ALIASES = {"computer_use_preview": {"computer_use_preview", "computer"},
            "web_search": {"web_search", "web_search_2025_08_26", "web_search_preview",
                           "web_search_preview_2025_03_11"}}
_HOSTED = ("container_auto", "container_reference")


def _same_kind(told: Mapping, tool: Mapping) -> bool:
    """Whether the declared `tool` is the told one: its type (any version of it), its name
    or MCP server label, and for a shell where it runs."""
    kind, declared = told["type"], tool.get("type")
    if not isinstance(declared, str):
        return False
    same = declared in _ALIASES.get(kind, ()) or \
        _VERSION.sub("", declared) == _VERSION.sub("", kind)
    if not same or any(tool.get(key) != told[key] for key in ("name", "server_label")
                       if key in told):
        return False
    if kind == "shell":
        where = (tool.get("environment") or {}).get("type", "local")
        return (where in _HOSTED) == (told["environment"]["type"] in _HOSTED)
    return True


def _serves(wire: str, told: Mapping) -> str:
    """What the case holds that the told tool elicits (the feature's shapes)."""
    if wire == _ANTHROPIC:
        feature = ANTHROPIC_SERVER_TOOL_FEATURES[told["name"]]
    elif told["type"] == "shell":
        hosted = told["environment"]["type"] in _HOSTED
        feature = "hosted_shell" if hosted else "shell"
    else:
        kinds = {"custom": "custom_tool_call", "computer_use_preview": "computer_call"}
        feature = RESPONSES_ITEM_FEATURES.get(kinds.get(told["type"], told["type"] + "_call"),
                                              told["type"])
    return FEATURES[wire][feature].serves


def _native_tools(wire: str, told: list, body: Mapping, headers: Mapping) -> str | None:
    tools = _tools(body)
    for one in told:
        if not any(_same_kind(one, tool) for tool in tools):
            shown = ", ".join(f"{key}: {value}" for key, value in one.items()
                              if key in ("type", "name", "server_label"))
            return (f"the request declared no tool {{{shown}}}; the case holds "
                    f"{_serves(wire, one)}")
    return None


# -- the other keys ------------------------------------------------------------------------
_LIMIT_FIELDS = {_CHAT: (("max_completion_tokens",), ("max_tokens",)),
                 _RESPONSES: (("max_output_tokens",),), _ANTHROPIC: (("max_tokens",),),
                 _GEMINI: (("generationConfig", "maxOutputTokens"),),
                 _BEDROCK: (("inferenceConfig", "maxTokens"),),
                 _OLLAMA: (("options", "num_predict"),)}


def _max_tokens(wire: str, value: Any, body: Mapping, headers: Mapping) -> str | None:
    paths = _LIMIT_FIELDS[wire]
    if any(isinstance(_option(body, *path), int) and _option(body, *path) > 0 for path in paths):
        return None
    fields = " or ".join(".".join(path) for path in paths)
    return (f"the request set no token limit ({fields}); the case holds "
            f"{FEATURES[wire]['max_tokens'].serves}")


def _blocks(value: Any) -> list[dict]:
    """Every content block in a request's messages, inside tool results too."""
    if isinstance(value, list):
        return [block for item in value for block in _blocks(item)]
    if not isinstance(value, dict):
        return []
    return [value, *_blocks(value.get("content"))]


def _sources(key: str) -> Callable:
    """The check of Anthropic `documents` or `search_results`: a block of the told type and
    source type, its citations enabled."""
    def check(wire: str, told: list, body: Mapping, headers: Mapping) -> str | None:
        blocks = [block for block in _blocks(body.get("messages"))
                  if (block.get("citations") or {}).get("enabled") is True]
        for one in told:
            source = one["source"]["type"] if isinstance(one["source"], dict) else None
            if not any(block.get("type") == one["type"] and (
                    source is None or (block.get("source") or {}).get("type") == source)
                    for block in blocks):
                what = f"{one['type']} block" + (f" whose source is {source}" if source else "")
                feature = "search_results" if key == "search_results" else "citations"
                return (f"the request carried no {what} with citations enabled; the case "
                        f"holds {FEATURES[wire][feature].serves}")
        return None
    return check


def _equal(path: tuple, shown: str, holds: str) -> Callable:
    """The check of a key the request must send as told (a value, or each listed value)."""
    def check(wire: str, told: Any, body: Mapping, headers: Mapping) -> str | None:
        sent = _option(body, *path)
        if isinstance(told, list) and isinstance(sent, list) and all(v in sent for v in told):
            return None
        if sent == told:
            return None
        return f"the request did not set {shown}; the case {holds}"
    return check


def _present(path: tuple, shown: str, holds: str, accept: Callable[[Any], bool]) -> Callable:
    def check(wire: str, told: Any, body: Mapping, headers: Mapping) -> str | None:
        return None if accept(_option(body, *path)) else \
            f"the request did not set {shown}; the case {holds}"
    return check


def _enabled(value: Any) -> bool:
    return isinstance(value, dict) and value.get("type") in ("enabled", "adaptive")


def _bedrock_reasoning(wire: str, told: Any, body: Mapping, headers: Mapping) -> str | None:
    extra = _option(body, "additionalModelRequestFields")
    if isinstance(extra, dict) and any(_enabled(extra.get(key)) for key in (
            "thinking", "reasoning_config", "reasoningConfig")):
        return None
    return ("the request did not enable reasoning (additionalModelRequestFields.thinking); "
            "the case streams reasoningContent blocks")


def _header_values(headers: Mapping, name: str) -> list[str]:
    getter = getattr(headers, "get_all", None)
    if getter is not None:
        return list(getter(name) or ())
    return [value for key, value in headers.items() if key.lower() == name]


def _betas(wire: str, told: list, body: Mapping, headers: Mapping) -> str | None:
    sent = {beta.strip() for value in _header_values(headers, "anthropic-beta")
            for beta in value.split(",")}
    for beta in told:
        if beta not in sent:
            return (f"the request did not send the header anthropic-beta: {beta}; the case "
                    "holds calls made from code execution")
    return None


def _allowed_callers(wire: str, told: list, body: Mapping, headers: Mapping) -> str | None:
    """Every function tool the request declares lets the told callers (code execution) call
    it: the harness declares only the tools the case calls."""
    for tool in _tools(body):
        if tool.get("type") not in (None, "custom"):
            continue
        allowed = tool.get("allowed_callers")
        allowed = allowed if isinstance(allowed, list) else []
        missing = [caller for caller in told if caller not in allowed]
        if missing:
            return (f"the tool {tool.get('name')!r} does not list {', '.join(missing)} in "
                    "allowed_callers; the case holds calls made from code execution")
    return None


def _follow_up(wire: str, told: Mapping, body: Mapping, headers: Mapping) -> str | None:
    """The request continues programmatic tool calling: its messages hold the told call made
    from code execution (an assistant `tool_use`) and the client's `tool_result` for it,
    and it names the told container."""
    call = next(block["id"] for message in told["messages"] for block in message["content"]
                if block["type"] == "tool_use")
    turns = [(message.get("role"), block) for message in body.get("messages") or ()
             if isinstance(message, dict) for block in _blocks(message.get("content"))]
    called = any(role == "assistant" and block.get("type") == "tool_use"
                 and block.get("id") == call for role, block in turns)
    answered = any(role == "user" and block.get("type") == "tool_result"
                   and block.get("tool_use_id") == call for role, block in turns)
    container = body.get("container")
    container = container.get("id") if isinstance(container, dict) else container
    if called and answered and container == told["container"]:
        return None
    return (f"the request is not programmatic tool calling's follow-up (the call {call} made "
            f"from code execution, its tool_result, container {told['container']}); the case "
            f"holds {FEATURES[wire]['programmatic_follow_up'].serves}")


_Check = Callable[[str, Any, Mapping, Mapping], str | None]
#: wire -> (needed key, its check), in the order they are checked.
_CHECKS: dict[str, tuple[tuple[str, _Check], ...]] = {
    _CHAT: (
        ("include_usage", _equal(("stream_options", "include_usage"), "stream_options."
                                 "include_usage", "ends in the usage-only chunk")),
        ("logprobs", _equal(("logprobs",), "logprobs: true", "streams logprobs")),
        ("web_search", _present(("web_search_options",), "web_search_options",
                                "holds url_citation annotations", lambda v: isinstance(v, dict))),
        ("max_tokens", _max_tokens)),
    _RESPONSES: (
        ("native_tools", _native_tools),
        ("context_management", _present(("context_management",), "context_management: "
                                        "[{type: compaction}]", "holds a compaction item",
                                        lambda v: isinstance(v, list) and any(
                                            isinstance(e, dict) and e.get("type") == "compaction"
                                            for e in v))),
        ("reasoning_summary", _present(("reasoning", "summary"), "reasoning.summary",
                                       "streams reasoning summaries",
                                       lambda v: v in ("auto", "concise", "detailed"))),
        ("include", _equal(("include",), "include: [code_interpreter_call.outputs]",
                           "holds a code interpreter call's outputs")),
        ("background", _equal(("background",), "background: true", "streams response.queued")),
        ("max_tokens", _max_tokens)),
    _ANTHROPIC: (
        ("thinking", _present(("thinking",), "thinking (enabled)", "streams thinking blocks",
                              _enabled)),
        ("betas", _betas),
        ("native_tools", _native_tools),
        ("allowed_callers", _allowed_callers),
        ("follow_up", _follow_up),
        ("documents", _sources("documents")),
        ("search_results", _sources("search_results")),
        ("stop_sequences", _equal(("stop_sequences",), "stop_sequences holding the case's",
                                  "stops at one")),
        ("max_tokens", _max_tokens)),
    _GEMINI: (
        ("include_thoughts", _equal(("generationConfig", "thinkingConfig", "includeThoughts"),
                                    "generationConfig.thinkingConfig.includeThoughts",
                                    "streams thought parts")),
        ("stream_function_call_arguments", _equal(
            ("toolConfig", "functionCallingConfig", "streamFunctionCallArguments"),
            "toolConfig.functionCallingConfig.streamFunctionCallArguments",
            "streams call arguments as partialArgs")),
        ("max_tokens", _max_tokens)),
    _BEDROCK: (("reasoning", _bedrock_reasoning), ("max_tokens", _max_tokens)),
    _OLLAMA: (
        ("think", _present(("think",), "think", "streams the message's thinking",
                           lambda v: v is True or v in ("low", "medium", "high"))),
        ("max_tokens", _max_tokens)),
}


#: What only a streaming request asks: a non-streamed one for the same case goes without
#: (OpenAI rejects `stream_options` unless streaming; Vertex streams arguments only when
#: streaming).
STREAM_ONLY = ("include_usage", "stream_function_call_arguments")


def request_mismatch(wire: str, needed: Mapping, body: Any, headers: Mapping, *,
                     stream: bool = True) -> str | None:
    """Why the HTTP request (its JSON `body`, its `headers`) does not ask what `needed`
    (a `case_request`) says the case needs, in one line; None when it does. A non-streamed
    request (`stream` False) is not asked the options only a stream needs."""
    if not stream:
        needed = {key: value for key, value in needed.items() if key not in STREAM_ONLY}
    if not isinstance(body, dict):
        return "the request body is not a JSON object"
    wrong = _function_mismatch(wire, needed, body)
    if wrong is not None:
        return wrong
    if wire == _CHAT and (body.get("n") or 1) != needed.get("n", 1):
        asked = "n=1 (or no n)" if (body.get("n") or 1) == 1 else f"n={body.get('n')!r}"
        return f"the request asked {asked}; the case needs n={needed.get('n', 1)}"
    for key, check in _CHECKS.get(wire, ()):
        if key in needed:
            wrong = check(wire, needed[key], body, headers)
            if wrong is not None:
                return wrong
    return None
