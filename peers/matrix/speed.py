"""The speed column: end-to-end consumption of one large tool-argument stream (1 MB of
arguments in 10 000 chunks) from the local server, through the peer's harness, over the
reference's time through the same server and the same harness protocol; and the growth of
the per-chunk cost from 1 000 to 10 000 chunks (a quadratic accumulator shows about 10).

The streams are the benchmarks' (`benchmarks/streams.py`), completed where a client needs
the end event, and Ollama's is content text (Ollama sends a call whole, never in pieces).
Each time is the best of `REPEATS`, less the time of a 10-chunk stream (the request, the
client's set-up, the protocol), so that the per-chunk cost is the library's own.
"""
from __future__ import annotations

import json
import sys
import time
from typing import Callable

from mcs_conformance.clients import harness_client
from mcs_conformance.clients import Served, split_at
from mcs_conformance.clients import ProviderServer
from mcs_conformance.wires import content_type, frame_body

from .catalog import REPO, Peer

sys.path.insert(0, str(REPO))
from benchmarks import streams  # noqa: E402

LARGE, SMALL, FLOOR = 10_000, 1_000, 10
REPEATS = 2
FAST_REPEATS = 7
MEASURABLE = 0.005  # seconds above the 10-chunk floor a growth needs to mean anything
LIMIT = 120.0  # seconds one stream may take
PIECE_BYTES = 65_536


def _responses(n: int) -> list[dict]:
    events = [json.loads(text) for text in streams.responses(n)]
    arguments = "".join(e["delta"] for e in events if e["type"].endswith("arguments.delta"))
    item = {**events[1]["item"], "arguments": arguments, "status": "completed"}
    number = len(events)
    response = {**events[0]["response"], "status": "completed", "output": [item]}
    return events + [
        {"type": "response.function_call_arguments.done", "sequence_number": number,
         "item_id": item["id"], "output_index": 0, "arguments": arguments},
        {"type": "response.output_item.done", "sequence_number": number + 1,
         "output_index": 0, "item": item},
        {"type": "response.completed", "sequence_number": number + 2, "response": response}]


def _ollama(n: int) -> list[dict]:
    base = {"model": "llama3.2", "created_at": "2025-01-01T00:00:00Z"}
    piece = "x" * streams.PIECE
    chunks = [{**base, "message": {"role": "assistant", "content": piece}, "done": False}
              for _ in range(n)]
    return chunks + [{**base, "message": {"role": "assistant", "content": ""}, "done": True,
                      "done_reason": "stop", "eval_count": n}]


CHUNKS: dict[str, Callable[[int], list]] = {
    "openai-chat": lambda n: [json.loads(t) for t in streams.openai_chat(n)],
    "anthropic-messages": lambda n: [json.loads(t) for t in streams.anthropic(n)],
    "openai-responses": _responses,
    "ollama-chat": _ollama,
}


def served(wire: str, n: int) -> Served:
    body = frame_body(wire, CHUNKS[wire](n))
    cuts = list(range(PIECE_BYTES, len(body), PIECE_BYTES))
    return Served(wire=wire, status=200, content_type=content_type(wire),
                  pieces=split_at(body, cuts))


class TooSlow(Exception):
    """The large stream took longer than `LIMIT` seconds (the message says what was seen)."""


def _repeats(n: int, best: dict[int, float]) -> int:
    """How often to time the `n`-chunk stream, its first time (if any) in `best`: a fast
    stream more often (its noise is larger relative to it), a slow large one once."""
    if n not in best:
        return 1
    if n == LARGE and best.get(SMALL, 0.0) > 1.0:
        return 1
    return FAST_REPEATS if best[n] < 0.1 else REPEATS


def timings(peer: Peer, wire: str) -> dict[int, float]:
    """Best-of seconds per stream size, through one harness process; a peer that needs
    more than `LIMIT` seconds for one stream raises `TooSlow`."""
    from mcs_conformance.clients import HarnessCaseError

    client = harness_client(peer.command(), timeout=LIMIT)
    best: dict[int, float] = {}
    try:
        with ProviderServer() as server:
            for n in (FLOOR, SMALL, LARGE):
                answer, runs = served(wire, n), 0
                while runs < _repeats(n, best):
                    url = server.add(answer)
                    clock = time.perf_counter()
                    try:
                        outcome = client(url, wire)
                    except HarnessCaseError:
                        raise TooSlow(f"more than {LIMIT:g} s for {n} chunks"
                                      + (f" ({best[SMALL]:.2g} s for {SMALL})" if SMALL in best
                                         else "")) from None
                    seconds = time.perf_counter() - clock
                    server.discard(url)
                    if outcome["error"]:
                        raise RuntimeError(f"{n} chunks: {outcome['error'][:200]}")
                    best[n] = min(best.get(n, seconds), seconds)
                    runs += 1
    finally:
        client.close()
    return best


def measure(peer: Peer, wire: str, reference: dict[int, float]) -> dict:
    """The peer's speed entry on `wire` against the reference's timings there."""
    try:
        own = timings(peer, wire)
    except TooSlow as exc:
        return {"wire": wire, "ratio": None, "growth": None, "seconds": None,
                "problem": str(exc)}
    except Exception as exc:  # a library that cannot consume the stream has no speed
        return {"wire": wire, "ratio": None, "growth": None, "seconds": None,
                "problem": f"{type(exc).__name__}: {exc}"[:300]}
    return entry(wire, own, reference)


def own(wire: str, reference: dict[int, float]) -> dict:
    """The reference's entry on `wire`: its timings against themselves (ratio 1)."""
    return entry(wire, reference, reference)


def entry(wire: str, own: dict[int, float], reference: dict[int, float]) -> dict:
    """Ratio of the large stream's time over the reference's, and the per-chunk growth."""
    large = own[LARGE] - own[FLOOR]
    small = own[SMALL] - own[FLOOR]
    growth = (large / LARGE) / (small / SMALL) if small > MEASURABLE and large > 0 else None
    ratio = large / (reference[LARGE] - reference[FLOOR]) \
        if reference[LARGE] > reference[FLOOR] else None
    return {"wire": wire, "ratio": round(ratio, 2) if ratio else None,
            "growth": round(growth, 2) if growth else None,
            "seconds": round(own[LARGE], 3), "problem": None}
