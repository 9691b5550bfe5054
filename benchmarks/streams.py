"""Synthetic streams for the benchmarks, as JSON texts (what arrives on the wire).

Chunks carry a fixed-size piece of text, so a longer stream means a bigger message and a
per-chunk cost that stays flat is what linear time looks like. Every chunk is the JSON text a
client parses, except Bedrock's: there the JSON is an event-stream frame's payload and the
event type comes from a header, so a Bedrock stream is a list of (event type, payload text)
pairs, which a client turns into the chunk boto3 yields, `{event type: payload}`.
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


def _prose(n_chunks: int) -> list[str]:
    """n_chunks pieces of prose of PIECE characters each."""
    line = ("lorem ipsum dolor sit amet " * (PIECE // 27 + 1))[:PIECE - 1] + "\n"
    return [line] * n_chunks


def gemini(n_chunks: int) -> list[str]:
    """Text records of PIECE characters, each with the usage, model version and response id
    every live record carries; the last one brings the finish reason."""
    records = []
    for number, piece in enumerate(_prose(n_chunks)):
        candidate = {"content": {"parts": [{"text": piece}], "role": "model"}, "index": 0}
        if number == n_chunks - 1:
            candidate["finishReason"] = "STOP"
        records.append({"candidates": [candidate],
                        "usageMetadata": {"promptTokenCount": 9, "candidatesTokenCount": 20 * number,
                                          "totalTokenCount": 9 + 20 * number,
                                          "promptTokensDetails": [{"modality": "TEXT", "tokenCount": 9}]},
                        "modelVersion": "gemini-2.5-flash", "responseId": "dX6LadKVC7SZ28oPr9yJoQs"})
    return [json.dumps(r) for r in records]


def bedrock(n_chunks: int) -> list[tuple[str, str]]:
    """A toolUse block whose input arrives in n_chunks deltas: (event type, payload text)
    pairs, as the frames of converse-stream carry them (without the random padding `p` of
    live payloads, which would only make the floor heavier)."""
    events = [("messageStart", {"role": "assistant"}),
              ("contentBlockStart", {"contentBlockIndex": 0,
                                     "start": {"toolUse": {"toolUseId": "tooluse_1", "name": "write_file"}}})]
    events += [("contentBlockDelta", {"contentBlockIndex": 0, "delta": {"toolUse": {"input": p}}})
               for p in _argument_text(n_chunks)]
    events += [("contentBlockStop", {"contentBlockIndex": 0}),
               ("messageStop", {"stopReason": "tool_use"}),
               ("metadata", {"usage": {"inputTokens": 5, "outputTokens": 9, "totalTokens": 14},
                             "metrics": {"latencyMs": 100}})]
    return [(name, json.dumps(payload)) for name, payload in events]


def ollama(n_chunks: int) -> list[str]:
    """Content chunks of PIECE characters (Ollama sends calls whole, so text is its stream),
    then the done:true chunk with its counters."""
    base = {"model": "qwen3", "created_at": "2025-05-27T22:54:57.641643Z"}
    chunks = [{**base, "message": {"role": "assistant", "content": p}, "done": False}
              for p in _prose(n_chunks)]
    chunks.append({**base, "message": {"role": "assistant", "content": ""}, "done": True,
                   "done_reason": "stop", "total_duration": 1, "load_duration": 1,
                   "prompt_eval_count": 5, "eval_count": n_chunks})
    return [json.dumps(c) for c in chunks]


WIRES = {"openai-chat": openai_chat, "anthropic-messages": anthropic, "openai-responses": responses,
         "gemini": gemini, "bedrock-converse": bedrock, "ollama-chat": ollama,
         "text (JSON codec)": openai_chat_text}
FRAMED = frozenset({"bedrock-converse"})  # (event type, payload text) pairs, not JSON texts
