"""Re-chunk a recorded stream without changing what it says, to check that the outcome does not
depend on where the provider (or the network) happened to cut it.

Two levels. Bytes: the HTTP body cut into small pieces of random size, as a slow network
delivers it. Events: adjacent *fragment events* (one piece of text, thinking or arguments and
nothing else) merged into one, and every fragment split in two. A fragment event is found by a
small locator per wire, which returns the path of the fragment string inside the chunk; two
events merge only when they are equal apart from that string and the fields that vary per event
(`obfuscation`, `sequence_number`, Ollama's `created_at`), so a merge never drops anything.
"""
from __future__ import annotations

import random
from typing import Any, Callable, Iterator

from mcs_conformance.base import copy_json

__all__ = ["byte_pieces", "fragment_path", "merged", "split"]

Path = tuple  # keys and list positions leading to the fragment string inside a chunk
_VOLATILE = ("obfuscation", "sequence_number", "created_at")


def byte_pieces(body: bytes, rng: random.Random, *, largest: int = 16) -> Iterator[bytes]:
    """`body` in pieces of 1..`largest` bytes (cuts fall anywhere, inside UTF-8 sequences too)."""
    start = 0
    while start < len(body):
        end = start + rng.randint(1, largest)
        yield body[start:end]
        start = end


# -- locators: the path of the one fragment string of a fragment event, or None ---------------
def _openai_chat(chunk: dict) -> Path | None:
    choices = chunk.get("choices")
    if type(choices) is not list or len(choices) != 1 or not isinstance(choices[0], dict):
        return None
    choice = choices[0]
    delta = choice.get("delta")
    if choice.get("finish_reason") is not None or not isinstance(delta, dict):
        return None
    present = [(key, value) for key, value in delta.items() if value is not None]
    if len(present) != 1:
        return None
    [(key, value)] = present
    if key in ("content", "refusal", "reasoning_content", "reasoning") and type(value) is str:
        return ("choices", 0, "delta", key)
    if key != "tool_calls" or type(value) is not list or len(value) != 1:
        return None
    call = value[0]
    # A continuation: an index, an arguments piece, and at most empty id / name / a type.
    if not isinstance(call, dict) or "index" not in call or not set(call) <= _CALL_KEYS:
        return None
    function = call.get("function")
    if call.get("id") or not isinstance(function, dict) or function.get("name"):
        return None
    if not set(function) <= {"arguments", "name"} or type(function.get("arguments")) is not str:
        return None
    return ("choices", 0, "delta", "tool_calls", 0, "function", "arguments")


_CALL_KEYS = frozenset({"index", "id", "type", "function"})
_ANTHROPIC_DELTAS = {"text_delta": "text", "input_json_delta": "partial_json",
                     "thinking_delta": "thinking"}


def _anthropic(chunk: dict) -> Path | None:
    delta = chunk.get("delta")
    if chunk.get("type") != "content_block_delta" or not isinstance(delta, dict):
        return None
    field = _ANTHROPIC_DELTAS.get(delta.get("type"))  # type: ignore[arg-type]
    if field is None or set(delta) != {"type", field} or type(delta[field]) is not str:
        return None
    return ("delta", field)


_RESPONSES_DELTAS = frozenset({
    "response.output_text.delta", "response.refusal.delta", "response.reasoning_text.delta",
    "response.reasoning_summary_text.delta", "response.function_call_arguments.delta",
    "response.custom_tool_call_input.delta",
})


def _responses(chunk: dict) -> Path | None:
    if chunk.get("type") in _RESPONSES_DELTAS and type(chunk.get("delta")) is str:
        return ("delta",)
    return None


def _ollama(chunk: dict) -> Path | None:
    message = chunk.get("message")
    if chunk.get("done") is not False or not isinstance(message, dict):
        return None
    if not set(message) <= {"role", "content", "thinking"}:
        return None
    texts = [key for key in ("content", "thinking") if type(message.get(key)) is str and message[key]]
    if len(texts) > 1 or any(key in message and type(message[key]) is not str
                             for key in ("content", "thinking")):
        return None
    field = texts[0] if texts else "content"
    return ("message", field) if field in message else None


_LOCATORS: tuple[Callable[[dict], Path | None], ...] = (_openai_chat, _anthropic, _responses, _ollama)


def fragment_path(chunk: Any) -> Path | None:
    """Where the fragment string of a fragment event is, or None for any other chunk."""
    if type(chunk) is str:
        return ()
    if not isinstance(chunk, dict):
        return None
    for locate in _LOCATORS:
        try:
            path = locate(chunk)
        except Exception:  # a chunk too odd to read is simply not a fragment event
            path = None
        if path is not None:
            return path
    return None


# -- editing ----------------------------------------------------------------------------------
def _get(chunk: Any, path: Path) -> str:
    for step in path:
        chunk = chunk[step]
    return chunk


def _with(chunk: Any, path: Path, text: str) -> Any:
    """A copy of `chunk` whose fragment at `path` is `text`."""
    if not path:
        return text
    copy = copy_json(chunk)
    node = copy
    for step in path[:-1]:
        node = node[step]
    node[path[-1]] = text
    return copy


def _shape(chunk: Any, path: Path) -> Any:
    """The chunk with its fragment blanked and its per-event fields dropped."""
    blank = _with(chunk, path, "")
    if isinstance(blank, dict):
        for key in _VOLATILE:
            blank.pop(key, None)
    return blank


def merged(chunks: list) -> list:
    """Each run of adjacent fragment events of one same shape merged into one event.

    The merged event keeps the last event's per-event fields (a timestamp read last-wins stays
    right) and the concatenated fragment.
    """
    out: list = []
    run_path: Path | None = None
    run_shape: Any = None
    run_texts: list[str] = []
    run_last: Any = None

    def close() -> None:
        if run_path is not None:
            out.append(_with(run_last, run_path, "".join(run_texts)))

    for chunk in chunks:
        path = fragment_path(chunk)
        if path is not None:
            shape = _shape(chunk, path)
            if path == run_path and shape == run_shape:
                run_texts.append(_get(chunk, path))
                run_last = chunk
                continue
        close()
        if path is None:
            run_path = None
            out.append(chunk)
        else:
            run_path, run_shape, run_texts, run_last = path, shape, [_get(chunk, path)], chunk
    close()
    return out


def split(chunks: list, rng: random.Random) -> list:
    """Every fragment event of two or more characters cut in two at a random point."""
    out: list = []
    for chunk in chunks:
        path = fragment_path(chunk)
        text = _get(chunk, path) if path is not None else ""
        if path is None or len(text) < 2:
            out.append(chunk)
            continue
        cut = rng.randint(1, len(text) - 1)
        out.append(_with(chunk, path, text[:cut]))
        out.append(_with(chunk, path, text[cut:]))
    return out
