"""Synthetic streams for the benchmarks, as JSON texts (what arrives on the wire).

Chunks carry a fixed-size piece of text, so a longer stream means a bigger message and a
per-chunk cost that stays flat is what linear time looks like.
"""
from __future__ import annotations

import json

PIECE = 100  # characters of argument or text per chunk: 10 000 chunks carry 1 MB


def _argument_text(n_chunks: int) -> list[str]:
    """Pieces of one JSON arguments text `{"content": "xxx..."}` cut into n_chunks pieces."""
    body = json.dumps({"content": "x" * (PIECE * n_chunks - 16)})
    return [body[i:i + PIECE] for i in range(0, len(body), PIECE)]


def openai_chat(n_chunks: int) -> list[str]:
    """A tool call whose arguments arrive in n_chunks deltas, then the finish chunk."""
    base = {"id": "chatcmpl-b", "object": "chat.completion.chunk", "created": 1, "model": "gpt-4o"}
    first = {"index": 0, "id": "call_1", "type": "function", "function": {"name": "write_file", "arguments": ""}}
    chunks = [{**base, "choices": [{"index": 0, "delta": {"role": "assistant", "content": None,
                                                          "tool_calls": [first]}, "finish_reason": None}]}]
    for piece in _argument_text(n_chunks):
        call = {"index": 0, "function": {"arguments": piece}}
        chunks.append({**base, "choices": [{"index": 0, "delta": {"tool_calls": [call]}, "finish_reason": None}]})
    chunks.append({**base, "choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]})
    return [json.dumps(c) for c in chunks]


def openai_chat_text(n_chunks: int) -> list[str]:
    """Content deltas of prose carrying one JSON-codec call at the end (a text leak)."""
    call = json.dumps({"tool": "write_file", "arguments": {"path": "a.txt"}})
    base = {"id": "chatcmpl-t", "object": "chat.completion.chunk", "created": 1, "model": "local"}
    pieces = ["lorem ipsum " * (PIECE // 12) + "\n" for _ in range(n_chunks - 1)] + [call]
    chunks = [{**base, "choices": [{"index": 0, "delta": {"role": "assistant", "content": ""}, "finish_reason": None}]}]
    chunks += [{**base, "choices": [{"index": 0, "delta": {"content": p}, "finish_reason": None}]} for p in pieces]
    chunks.append({**base, "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]})
    return [json.dumps(c) for c in chunks]


def anthropic(n_chunks: int) -> list[str]:
    """A tool_use block whose input arrives in n_chunks input_json_delta events."""
    events = [
        {"type": "message_start", "message": {"id": "msg_b", "type": "message", "role": "assistant",
                                               "model": "claude", "content": [], "stop_reason": None,
                                               "stop_sequence": None, "usage": {"input_tokens": 5, "output_tokens": 1}}},
        {"type": "content_block_start", "index": 0,
         "content_block": {"type": "tool_use", "id": "toolu_1", "name": "write_file", "input": {}}},
    ]
    events += [{"type": "content_block_delta", "index": 0, "delta": {"type": "input_json_delta", "partial_json": p}}
               for p in _argument_text(n_chunks)]
    events += [{"type": "content_block_stop", "index": 0},
               {"type": "message_delta", "delta": {"stop_reason": "tool_use", "stop_sequence": None},
                "usage": {"output_tokens": 9}},
               {"type": "message_stop"}]
    return [json.dumps(e) for e in events]


def responses(n_chunks: int) -> list[str]:
    """A function_call item whose arguments arrive in n_chunks deltas (no response.completed:
    the buffer builds the Response from the deltas)."""
    item = {"type": "function_call", "id": "fc_1", "call_id": "call_1", "name": "write_file",
            "arguments": "", "status": "in_progress"}
    response = {"id": "resp_b", "object": "response", "created_at": 1, "status": "in_progress",
                "model": "gpt-4o", "output": []}
    events = [{"type": "response.created", "sequence_number": 0, "response": response},
              {"type": "response.output_item.added", "sequence_number": 1, "output_index": 0, "item": item}]
    events += [{"type": "response.function_call_arguments.delta", "sequence_number": 2 + i,
                "item_id": "fc_1", "output_index": 0, "delta": p}
               for i, p in enumerate(_argument_text(n_chunks))]
    return [json.dumps(e) for e in events]


WIRES = {"openai-chat": openai_chat, "anthropic-messages": anthropic, "openai-responses": responses,
         "text (JSON codec)": openai_chat_text}
