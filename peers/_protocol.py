"""The harness side of protocol v3, stdlib only, shared by the Python peers' harnesses.

A harness is `serve(__file__, run, features, whole)`: `run(base_url, wire, request)` streams
with the peer library the way its users do, asking what `request` says (the tools to declare, and `n`,
`include_usage`, `thinking`, `betas` when the case needs them), and maps what the library
returns into an outcome with `outcome()` and `call()`. `features` (wire -> feature names)
declares what the library's documented API can express; the kit serves no case needing
another. `whole` (wire -> a function like `run`) makes the library's documented
non-streaming call for the same request: the kit asks it the case's non-streamed answer
when the stream fails, to tell a stream bug from the library's contract. This loop answers `start` with the peer's `peer.json`, the exact installed
version of its library and the features, turns any exception of `run` into `outcome.error` ("TypeName:
message"), and keeps the protocol's stdout clean of what libraries print (their stdout
goes to stderr). It runs inside the peer's own venv, so it cannot import the kit.
"""
from __future__ import annotations

import json
import os
import sys
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import Any, Callable

PROTOCOL_VERSION = 3
ERROR_LIMIT = 2000  # characters of an exception message kept in outcome.error

__all__ = ["arguments_of", "call", "chat_options", "error_of", "openai_tools", "outcome", "serve",
           "tools_of"]


def arguments_of(value: Any) -> Any:
    """A call's arguments as the outcome carries them: a JSON object parsed, any other text
    kept raw; an already-parsed value (a dict) as the library gave it."""
    if not isinstance(value, str):
        return value
    try:
        parsed = json.loads(value)
    except ValueError:
        return value
    return parsed if isinstance(parsed, dict) else value


def call(name: Any, arguments: Any, call_id: Any = None) -> dict:
    """One outcome call; `arguments` goes through `arguments_of`."""
    return {"name": name, "arguments": arguments_of(arguments),
            "id": call_id if isinstance(call_id, str) or call_id is None else str(call_id)}


def outcome(calls: list | None = None, text: str | None = "", message: Any = None,
            error: str | None = None) -> dict:
    """An outcome dict (schema outcome.json of the kit)."""
    return {"calls": list(calls or []), "text": text if isinstance(text, str) else "",
            "message": message, "error": error}


def tools_of(request: dict) -> list:
    """The told tools as `(name, description, parameters)` triples."""
    return [(tool["name"], tool["description"], tool["parameters"])
            for tool in request.get("tools", ())]


def openai_tools(request: dict) -> list:
    """The told tools in OpenAI Chat's format (which LangChain and litellm take too)."""
    return [{"type": "function", "function": {"name": name, "description": description,
                                              "parameters": parameters}}
            for name, description, parameters in tools_of(request)]


def chat_options(request: dict) -> dict:
    """The told tools, `n` and include_usage as OpenAI Chat request keywords."""
    options: dict = {}
    tools = openai_tools(request)
    if tools:
        options["tools"] = tools
    if "n" in request:
        options["n"] = request["n"]
    if request.get("include_usage"):
        options["stream_options"] = {"include_usage": True}
    return options


def error_of(exc: BaseException) -> str:
    """`TypeName: message`, one string, cut to ERROR_LIMIT characters."""
    text = f"{type(exc).__name__}: {exc}"
    return text if len(text) <= ERROR_LIMIT else text[:ERROR_LIMIT] + "..."


def _implementation(harness_file: str) -> dict:
    peer_path = Path(harness_file).resolve().parent / "peer.json"
    peer = json.loads(peer_path.read_text(encoding="utf-8"))
    try:
        installed = version(peer["library"])
    except PackageNotFoundError:
        installed = "not installed"
    return {"name": peer["name"], "language": peer.get("language", "python"),
            "version": installed, "homepage": peer.get("homepage", ""),
            "wires": list(peer["wires"])}


def _protocol_stdout() -> Any:
    """A private handle on fd 1 for protocol lines; fd 1 itself then points at stderr, so
    a library that prints cannot corrupt the protocol."""
    sys.stdout.flush()
    handle = os.fdopen(os.dup(1), "w", encoding="utf-8", buffering=1)
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    return handle


def _answer(out: Any, payload: dict) -> None:
    out.write(json.dumps(payload, ensure_ascii=False, default=str) + "\n")
    out.flush()


def _run_one(run: Callable[[str, str, dict], dict], line: dict, whole: dict) -> dict:
    if line.get("stream", True) is False:
        if line["wire"] not in whole:
            return outcome(error=f"harness: no non-streaming call on {line['wire']}")
        run = whole[line["wire"]]
    try:
        result = run(line["base_url"], line["wire"], line.get("request") or {"tools": []})
    except Exception as exc:  # the protocol: a library exception is an outcome, not a crash
        return outcome(error=error_of(exc))
    try:
        json.dumps(result, allow_nan=False)
    except (TypeError, ValueError) as exc:
        return outcome(error=f"harness: outcome is not JSON ({exc})")
    return result


def serve(harness_file: str, run: Callable[[str, str, dict], dict],
          features: dict | None = None, whole: dict | None = None) -> None:
    """Answer protocol v3 on stdin/stdout until `stop` or the end of stdin; `features` maps
    a wire to the request features the library can express there (none when absent),
    `whole` a wire to the function making its non-streaming call (none when absent)."""
    whole = whole or {}
    out = _protocol_stdout()
    for line in sys.stdin:
        if not line.strip():
            continue
        request = json.loads(line)
        command = request.get("cmd")
        if command == "start":
            implementation = _implementation(harness_file)
            declared = {wire: sorted((features or {}).get(wire, ()))
                        for wire in implementation["wires"]}
            _answer(out, {"ready": True, "version": PROTOCOL_VERSION,
                          "implementation": implementation, "features": declared,
                          "non_streaming": [w for w in implementation["wires"] if w in whole]})
        elif command == "run":
            _answer(out, {"seq": request["seq"], "outcome": _run_one(run, request, whole)})
        elif command == "stop":
            break
        else:
            print(f"harness: unknown command {command!r}; expected start, run or stop",
                  file=sys.stderr)
    out.close()
