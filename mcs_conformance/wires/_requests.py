"""The request a drawn case needs: which shapes a client must ask for, and the check of it.

A real server sends some shapes only when the request asks for them: several choices only
for `n > 1`, the usage-only chunk only with `stream_options.include_usage`, a call only of
a tool the request declares, thinking blocks only with thinking enabled, programmatic tool
calls only under their beta. A client that cannot ask is never served them (it declares the
request features its library can express, `FEATURES`); one that can is told what to ask
(`case_request`) and the server checks its HTTP request (`request_mismatch`).
"""
from __future__ import annotations

from typing import Any, Iterable, Mapping

from mcs_conformance.wires._base import Case
from mcs_conformance.wires._quirks import OftenQuirks

__all__ = ["FEATURES", "PROGRAMMATIC_BETA", "QUIRK_FEATURES", "Requestable", "case_request",
           "drawable_quirks", "features_of", "request_mismatch", "shape_options",
           "tool_definition"]

_CHAT, _ANTHROPIC, _RESPONSES, _GEMINI = (
    "openai-chat", "anthropic-messages", "openai-responses", "gemini")

#: The Anthropic beta under which calls made from code execution come (their `caller`, their
#: input whole at `content_block_start`, the follow-up stream prefilled in `message_start`).
PROGRAMMATIC_BETA = "advanced-tool-use-2025-11-20"
THINKING_BUDGET = 1024  # the budget_tokens a case with thinking tells the client

#: Request feature -> (the wire it belongs to, what a client asks when it has it).
FEATURES: dict[str, tuple[str, str]] = {
    "n": (_CHAT, "`n` above 1: several choices"),
    "include_usage": (_CHAT, "`stream_options: {include_usage: true}`: the usage-only chunk"),
    "thinking": (_ANTHROPIC, "`thinking: {type: enabled, budget_tokens}`: thinking blocks"),
    "programmatic_tool_calling": (_ANTHROPIC, f"the `anthropic-beta: {PROGRAMMATIC_BETA}` "
                                  "header: calls made from code execution"),
    "include_thoughts": (_GEMINI, "`generationConfig.thinkingConfig.includeThoughts: true`: "
                         "thought summary parts"),
    "stream_function_call_arguments": (_GEMINI, "`toolConfig.functionCallingConfig."
                                       "streamFunctionCallArguments: true` (Vertex AI): call "
                                       "arguments streamed as `partialArgs`"),
}

#: Quirk -> the request feature without which no real server sends it.
QUIRK_FEATURES: dict[str, str] = {
    "n-choices": "n",
    "usage-only-chunk": "include_usage",
    "moderation-chunk": "include_usage",  # rides after the usage-only chunk
    "empty-thinking-delta": "thinking",
    "whole-input-at-start": "programmatic_tool_calling",
    "prefilled-message-start": "programmatic_tool_calling",
    "partial-args": "stream_function_call_arguments",
    "partial-args-one-chunk": "stream_function_call_arguments",
    "partial-args-no-terminator": "stream_function_call_arguments",
    "partial-args-noop-chunks": "stream_function_call_arguments",
}


class Requestable(frozenset):
    """A quirk selection for a client that declared its request features: the quirks it may
    be served, and `.features`, which the case generators read to leave out the other
    request-dependent shapes (thinking blocks without `thinking`)."""

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


def drawable_quirks(allowed: frozenset, features: Iterable[str]) -> Requestable:
    """The quirks of `allowed` a client declaring `features` can ask for: each quirk of
    `QUIRK_FEATURES` stays only when its feature is declared. A server profile's selection
    stays one (its quirks still drawn often)."""
    features = frozenset(features)
    kind = OftenRequestable if isinstance(allowed, OftenQuirks) else Requestable
    return kind((name for name in allowed
                 if name not in QUIRK_FEATURES or QUIRK_FEATURES[name] in features), features)


def shape_options(wire: str, quirks: Any) -> dict:
    """Options of `wire`'s generators that leave out the shapes the selection's client cannot
    ask for (quirks aside): no thinking blocks without `thinking`."""
    features = features_of(quirks)
    if wire == _ANTHROPIC and features is not None and "thinking" not in features:
        return {"thinking": False}
    if wire == _GEMINI and features is not None and "include_thoughts" not in features:
        return {"thoughts": False}
    return {}


def tool_definition(name: str) -> dict:
    """A tool the request declares: permissive parameters that any arguments object meets."""
    return {"name": name, "description": f"The conformance case's tool {name}.",
            "parameters": {"type": "object", "properties": {}, "additionalProperties": True}}


def _chat_choices(case: Case) -> list[dict]:
    """Every choice of every chunk of an OpenAI Chat case (a stream cut by an error too)."""
    return [choice for chunk in case.chunks if isinstance(chunk, dict)
            for choice in chunk.get("choices") or ()]


def _call_names(case: Case) -> list[str]:
    """The names of the client-run calls in what the case serves, every choice included."""
    message = case.message
    if case.wire == _CHAT:
        deltas = [choice.get("delta") or {} for choice in _chat_choices(case)]
        return sorted({c["function"]["name"] for delta in deltas for c in delta.get("tool_calls") or ()
                       if (c.get("function") or {}).get("name")} | {call.name for call in case.calls})
    if case.wire == _RESPONSES:
        return sorted({item["name"] for item in message.get("output") or ()
                       if item.get("type") in ("function_call", "custom_tool_call")}
                      | {call.name for call in case.calls if not message.get("output")})
    if case.wire == _ANTHROPIC:
        return sorted({block["name"] for block in message.get("content") or ()
                       if block.get("type") == "tool_use"} | {call.name for call in case.calls})
    if case.wire == "bedrock-converse":
        starts = [(event.get("contentBlockStart") or {}).get("start") or {}
                  for event in case.chunks if isinstance(event, dict)]
        return sorted({(start.get("toolUse") or {}).get("name") for start in starts
                       if (start.get("toolUse") or {}).get("name")}
                      | {call.name for call in case.calls})
    if case.wire == _GEMINI:
        calls = [part["functionCall"] for part in _gemini_parts(case.chunks)
                 if isinstance(part.get("functionCall"), dict)]
        return sorted({call["name"] for call in calls if isinstance(call.get("name"), str)
                       and call["name"]} | {call.name for call in case.calls})
    tool_calls = message.get("tool_calls") or []
    return sorted({c["function"]["name"] for c in tool_calls} | {call.name for call in case.calls})


def _gemini_parts(chunks: list) -> list[dict]:
    """The parts of every record of a Gemini stream."""
    return [part for chunk in chunks if isinstance(chunk, dict)
            for candidate in chunk.get("candidates") or ()
            for part in (candidate.get("content") or {}).get("parts") or ()
            if isinstance(part, dict)]


def case_request(case: Case | None) -> dict:
    """What the client must ask for `case` to be served: the tools (one per call name) and
    the options its shapes need; `{"tools": []}` when nothing is needed."""
    if case is None:
        return {"tools": []}
    # a call cut by an error before its name came has none: nothing to declare for it
    request: dict[str, Any] = {"tools": [tool_definition(name) for name in _call_names(case)
                                         if name]}
    if case.wire == _CHAT:
        choices = 1 + max((choice.get("index", 0) for choice in _chat_choices(case)), default=0)
        if choices > 1:
            request["n"] = choices
        if "usage-only-chunk" in case.quirks:
            request["include_usage"] = True
    if case.wire == _ANTHROPIC:
        content = case.message.get("content") or [] if isinstance(case.message, dict) else []
        if any(block.get("type") in ("thinking", "redacted_thinking") for block in content) \
                or "empty-thinking-delta" in case.quirks:
            request["thinking"] = {"budget_tokens": THINKING_BUDGET}
        if case.quirks & {"whole-input-at-start", "prefilled-message-start"} or any(
                "tool_id" in block.get("caller", {}) for block in content):
            request["betas"] = [PROGRAMMATIC_BETA]
    if case.wire == _GEMINI:
        if any(part.get("thought") for part in _gemini_parts(case.chunks)):
            request["include_thoughts"] = True
        if "partial-args" in case.quirks:
            request["stream_function_call_arguments"] = True
    return request


def _declared_tools(body: Mapping) -> set:
    config = body.get("toolConfig")
    tools = [*(body.get("tools") or ()), *(body.get("functions") or ()),
             *((config.get("tools") or ()) if isinstance(config, dict) else ())]
    names = set()
    for tool in tools:
        if not isinstance(tool, dict):
            continue
        spec = tool.get("toolSpec")
        if isinstance(spec, dict):  # Bedrock Converse: toolConfig.tools[].toolSpec
            names.add(spec.get("name"))
            continue
        declarations = tool.get("functionDeclarations", tool.get("function_declarations"))
        if isinstance(declarations, list):  # Gemini: a tool holds function declarations
            names |= {d.get("name") for d in declarations if isinstance(d, dict)}
            continue
        function = tool.get("function")
        names.add(function.get("name") if isinstance(function, dict) else tool.get("name"))
    return names


def _gemini_option(body: Mapping, *path: str) -> Any:
    """A nested option of a Gemini request, its keys in camelCase or snake_case."""
    value: Any = body
    for key in path:
        if not isinstance(value, Mapping):
            return None
        snake = "".join("_" + c.lower() if c.isupper() else c for c in key)
        value = value.get(key, value.get(snake))
    return value


def _gemini_mismatch(needed: Mapping, body: Mapping) -> str | None:
    if needed.get("include_thoughts") and _gemini_option(
            body, "generationConfig", "thinkingConfig", "includeThoughts") is not True:
        return ("the request did not set generationConfig.thinkingConfig.includeThoughts; "
                "the case streams thought parts")
    if needed.get("stream_function_call_arguments") and _gemini_option(
            body, "toolConfig", "functionCallingConfig", "streamFunctionCallArguments") is not True:
        return ("the request did not set toolConfig.functionCallingConfig."
                "streamFunctionCallArguments; the case streams call arguments as partialArgs")
    return None


def request_mismatch(wire: str, needed: Mapping, body: Any, headers: Mapping) -> str | None:
    """Why the HTTP request (its JSON `body`, its `headers`) does not ask what `needed`
    (a `case_request`) says the case needs; None when it does."""
    if not isinstance(body, dict):
        return "the request body is not a JSON object"
    missing = sorted({tool["name"] for tool in needed.get("tools", ())} - _declared_tools(body))
    if missing:
        declared = ", ".join(sorted(str(n) for n in _declared_tools(body))) or "none"
        return (f"the request declared no tool named {', '.join(missing)} (it declared: "
                f"{declared}); the case calls it")
    if wire == _GEMINI:
        return _gemini_mismatch(needed, body)
    if wire == _CHAT and (body.get("n") or 1) != needed.get("n", 1):
        asked = "n=1 (or no n)" if (body.get("n") or 1) == 1 else f"n={body.get('n')!r}"
        return f"the request asked {asked}; the case needs n={needed.get('n', 1)}"
    options = body.get("stream_options")
    if needed.get("include_usage") and not (isinstance(options, dict)
                                            and options.get("include_usage") is True):
        return ("the request did not set stream_options.include_usage; the case ends in the "
                "usage-only chunk")
    thinking = body.get("thinking")
    if needed.get("thinking") and not (isinstance(thinking, dict)
                                       and thinking.get("type") in ("enabled", "adaptive")):
        return "the request did not enable thinking; the case streams thinking blocks"
    sent = {beta.strip() for value in _header_values(headers, "anthropic-beta")
            for beta in value.split(",")}
    for beta in needed.get("betas", ()):
        if beta not in sent:
            return (f"the request did not send the header anthropic-beta: {beta}; the case "
                    "holds calls made from code execution")
    return None


def _header_values(headers: Mapping, name: str) -> list[str]:
    getter = getattr(headers, "get_all", None)
    if getter is not None:
        return list(getter(name) or ())
    return [value for key, value in headers.items() if key.lower() == name]
