"""The reference as a client: raw HTTP with `http.client`, the body fed to `mcs_reference` as
it arrives. Certify it with `mcs-conformance certify --client
mcs_conformance.clients.reference_client:reference_client --wire openai-chat`.

It is also the model of a client target: one streaming request, the body consumed as the
library's users consume it, one outcome (schemas/outcome.json) returned, never an exception.
It takes `request`, so the kit tells it what each case needs (the tools, `n`, the token
limit, thinking, the documents cited...: docs/harness-protocol.md) and checks that it asks
for it, and `stream`, so the kit can ask it the same case's non-streamed answer
(`stream=False`: the whole body read at once and read by the same strategy).
"""
from __future__ import annotations

import http.client
import json
from typing import Any
from urllib.parse import urlsplit

from mcs_reference.buffer import LLMStreamBuffer
from mcs_reference.chain import default_chain
from mcs_reference.errors import StreamError
from mcs_reference.sse import BodyDecoder

from mcs_conformance.clients._outcome import error_outcome, outcome_call

__all__ = ["PATHS", "open_stream", "outcome_of", "provider_message", "reference_client",
           "request_body"]

#: The path each wire's client posts to, below the base URL.
PATHS = {
    "openai-chat": "v1/chat/completions",
    "openai-responses": "v1/responses",
    "anthropic-messages": "v1/messages",
    "ollama-chat": "api/chat",
    "gemini": "v1beta/models/mcs:streamGenerateContent?alt=sse",
    "bedrock-converse": "model/mcs/converse-stream",
}
#: Where a wire's non-streaming call posts instead, when the path says it streams.
WHOLE_PATHS = {"gemini": "v1beta/models/mcs:generateContent",
               "bedrock-converse": "model/mcs/converse"}
_DECODING = {"ollama-chat": "ndjson", "bedrock-converse": "eventstream"}  # else SSE
_PROMPT = "What is the weather in Paris?"


def request_body(wire: str, *, stream: bool = True, request: dict | None = None) -> dict:
    """A request of `wire` asking what `request` (a `wires.case_request`) says; a minimal
    one without it."""
    request = request or {}
    tools = request.get("tools", [])
    if wire == "gemini":
        return _gemini_body(request, stream)
    if wire == "bedrock-converse":
        return _converse_body(request)
    if wire == "openai-responses":
        body: dict[str, Any] = {"model": "mcs", "input": _PROMPT, "stream": stream}
        tools = [{"type": "function", **tool} for tool in tools]
        _ask_responses(body, request)
    else:
        body = {"model": "mcs", "stream": stream,
                "messages": [{"role": "user", "content": _PROMPT}]}
    if wire in ("openai-chat", "ollama-chat"):
        tools = [{"type": "function", "function": tool} for tool in tools]
    if wire == "openai-chat":
        _ask_chat(body, request)
    if wire == "ollama-chat":
        _ask_ollama(body, request)
    if wire == "anthropic-messages":
        callers = {"allowed_callers": request["allowed_callers"]} \
            if "allowed_callers" in request else {}
        tools = [{"name": tool["name"], "description": tool["description"],
                  "input_schema": tool["parameters"], **callers} for tool in tools]
        _ask_anthropic(body, request)
    tools = [*tools, *request.get("native_tools", ())]
    if tools:
        body["tools"] = tools
    return body


def _ask_chat(body: dict, request: dict) -> None:
    """OpenAI Chat's options; `stream_options` only on a streaming request (the API refuses
    it otherwise)."""
    for key, field, value in (("n", "n", request.get("n")),
                              ("include_usage", "stream_options", {"include_usage": True}),
                              ("max_tokens", "max_completion_tokens", request.get("max_tokens")),
                              ("logprobs", "logprobs", True),
                              ("web_search", "web_search_options", {})):
        if key in request:
            body[field] = value
    if not body["stream"]:
        body.pop("stream_options", None)


def _ask_responses(body: dict, request: dict) -> None:
    for key, field, value in (
            ("max_tokens", "max_output_tokens", request.get("max_tokens")),
            ("reasoning_summary", "reasoning", {"summary": request.get("reasoning_summary")}),
            ("include", "include", request.get("include")),
            ("background", "background", True),
            ("context_management", "context_management", request.get("context_management"))):
        if key in request:
            body[field] = value


def _ask_anthropic(body: dict, request: dict) -> None:
    body["max_tokens"] = request.get("max_tokens", 4096)
    if "thinking" in request:
        body["thinking"] = {"type": "enabled", **request["thinking"]}
    if "stop_sequences" in request:
        body["stop_sequences"] = request["stop_sequences"]
    sources = [*request.get("documents", ()), *request.get("search_results", ())]
    if sources:
        body["messages"][0]["content"] = [*sources, {"type": "text", "text": _PROMPT}]
    if "follow_up" in request:
        body["messages"] += request["follow_up"]["messages"]
        body["container"] = request["follow_up"]["container"]


def _ask_ollama(body: dict, request: dict) -> None:
    if "think" in request:
        body["think"] = True
    if "max_tokens" in request:
        body["options"] = {"num_predict": request["max_tokens"]}


def _gemini_body(request: dict, stream: bool = True) -> dict:
    """A `streamGenerateContent` request (the path says it streams: the body does not)."""
    body: dict[str, Any] = {"contents": [{"role": "user", "parts": [{"text": _PROMPT}]}]}
    if request.get("tools"):
        body["tools"] = [{"functionDeclarations": list(request["tools"])}]
    config: dict[str, Any] = {}
    if request.get("include_thoughts"):
        config["thinkingConfig"] = {"includeThoughts": True}
    if "max_tokens" in request:
        config["maxOutputTokens"] = request["max_tokens"]
    if config:
        body["generationConfig"] = config
    if request.get("stream_function_call_arguments") and stream:  # arguments stream only
        body["toolConfig"] = {"functionCallingConfig": {"streamFunctionCallArguments": True}}
    return body


def _converse_body(request: dict) -> dict:
    """A `converse-stream` request (the path says it streams: the body does not)."""
    body: dict[str, Any] = {"messages": [{"role": "user", "content": [{"text": _PROMPT}]}]}
    if request.get("tools"):
        body["toolConfig"] = {"tools": [{"toolSpec": {
            "name": tool["name"], "description": tool["description"],
            "inputSchema": {"json": tool["parameters"]}}} for tool in request["tools"]]}
    if "max_tokens" in request:
        body["inferenceConfig"] = {"maxTokens": request["max_tokens"]}
    if "reasoning" in request:
        body["additionalModelRequestFields"] = {"thinking": {"type": "enabled",
                                                             **request["reasoning"]}}
    return body


def provider_message(raw: bytes) -> str:
    """The message inside a provider's JSON error body (the raw text when there is none)."""
    try:
        body = json.loads(raw)
    except ValueError:
        return raw.decode("utf-8", "replace")[:200]
    error = body.get("error") if isinstance(body, dict) else None
    if error is None and isinstance(body, dict) and isinstance(body.get("message"), str):
        return body["message"]  # AWS's {"__type", "message"}
    if isinstance(error, dict):
        return str(error.get("message", error))
    return str(error if error is not None else body)


def open_stream(base_url: str, wire: str, *, timeout: float = 30.0, request: dict | None = None,
                stream: bool = True) -> tuple[http.client.HTTPConnection, http.client.HTTPResponse]:
    """POST a request of `wire` below `base_url` (a streaming one, or the non-streaming
    call with `stream` False), asking what `request` says; the connection and its response
    (the caller reads the body and closes the connection)."""
    url = urlsplit(base_url)
    connection = http.client.HTTPConnection(url.hostname, url.port, timeout=timeout)
    headers = {"Content-Type": "application/json", "Authorization": "Bearer sk-mcs"}
    if request and request.get("betas"):
        headers["anthropic-beta"] = ",".join(request["betas"])
    path = PATHS[wire] if stream else WHOLE_PATHS.get(wire, PATHS[wire])
    connection.request("POST", url.path.rstrip("/") + "/" + path,
                       json.dumps(request_body(wire, stream=stream, request=request)).encode("utf-8"),
                       headers)
    return connection, connection.getresponse()


def reference_client(base_url: str, wire: str, request: dict | None = None, *,
                     stream: bool = True, timeout: float = 30.0) -> dict:
    """Stream one response from `base_url` on `wire`, asking what `request` says, and
    return its outcome (with `stream` False, the non-streamed answer's)."""
    if wire not in PATHS:
        return error_outcome(f"ValueError: the reference client knows no wire {wire!r}")
    connection = None
    try:
        connection, response = open_stream(base_url, wire, timeout=timeout, request=request,
                                           stream=stream)
        if response.status >= 400:
            return error_outcome(f"HTTP {response.status}: {provider_message(response.read())}")
        if not stream:
            return _whole(json.loads(response.read()), wire)
        return _consume(response, wire)
    except ValueError as exc:  # a non-streamed body that is not JSON
        return error_outcome(f"{type(exc).__name__}: {exc}")
    except (OSError, http.client.HTTPException) as exc:
        return error_outcome(f"{type(exc).__name__}: {exc}")
    finally:
        if connection is not None:
            connection.close()


def _whole(body: dict, wire: str) -> dict:
    """The outcome of a non-streamed body: read by the wire's strategy, as a stream's
    message is. A Gemini body is one record of its stream, so it goes through a buffer (a
    stop for safety then raises there too)."""
    if wire == "gemini":
        buffer = LLMStreamBuffer()
        try:
            buffer.add(body)
        except StreamError as exc:
            return error_outcome(f"{type(exc).__name__}: {exc}")
        return outcome_of(buffer)
    strategy = next(s for s in default_chain() if s.name == wire)
    message = body["choices"][0]["message"] if wire == "openai-chat" else body
    return {"calls": [outcome_call(call) for call in strategy.extract(message)],
            "text": strategy.content_text(message), "message": message, "error": None}


def _consume(response: http.client.HTTPResponse, wire: str) -> dict:
    """Feed the body to a buffer piece by piece, as the network delivers it."""
    decoder = BodyDecoder(format=_DECODING.get(wire, "sse"))
    buffer = LLMStreamBuffer()
    try:
        while True:
            piece = response.read1(65536)
            if not piece:
                break
            for chunk in decoder.feed(piece):
                buffer.add(chunk)
        for chunk in decoder.close():
            buffer.add(chunk)
    except StreamError as exc:
        return error_outcome(f"{type(exc).__name__}: {exc}")
    except (OSError, http.client.HTTPException) as exc:  # the connection dropped mid-body
        return error_outcome(f"{type(exc).__name__}: the body was cut ({exc!r})")
    if not (buffer.is_done() or decoder.done):
        return error_outcome("IncompleteStream: the body ended before the wire's end signal")
    return outcome_of(buffer)


def outcome_of(buffer: LLMStreamBuffer) -> dict:
    """The outcome of a buffer that read a whole stream: its calls, text and message."""
    strategy = buffer.strategy
    if strategy is None:
        return error_outcome("IncompleteStream: the body held no chunk")
    message = buffer.as_dict()
    return {"calls": [outcome_call(call) for call in strategy.extract(message)],
            "text": strategy.content_text(message), "message": message, "error": None}
