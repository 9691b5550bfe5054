"""What the local provider server answers for one case: status, headers and body pieces.

A `Served` is plain data, built from a wire `Case` by the generators in `clients.cases`, so
the server knows nothing of Hypothesis and a counterexample can say exactly what was sent.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from mcs_conformance.wires import Case, content_type, frame_body, http_error_body, json_text

__all__ = ["Served", "served_error", "served_stream", "split_at"]


@dataclass(frozen=True)
class Served:
    """One case as the server sends it.

    `pieces`: the body, written one piece at a time, each flushed on its own;
    `complete`: False closes the connection without ending the HTTP body (a network drop);
    `whole`: the JSON a `"stream": false` request gets (the stream=false body, the case's
    *whole twin*; None when the wire has no whole answer for it), with `whole_status`: a
    stream that ends in a provider error has an HTTP error for its twin, as a non-streamed
    request meeting the same error gets;
    `quirks`: every real-server quirk the answer holds, wire and byte level (docs/quirks.md).
    """

    wire: str
    status: int
    content_type: str
    pieces: tuple[bytes, ...]
    whole: Any = None
    whole_status: int = 200
    complete: bool = True
    quirks: frozenset = frozenset()
    case: Case | None = field(default=None, compare=False, repr=False)

    def __repr__(self) -> str:  # short: failure reports print `record()` in full
        return (f"Served({self.wire}, HTTP {self.status}, {len(self.body)} bytes in "
                f"{len(self.pieces)} pieces, quirks={sorted(self.quirks)})")

    @property
    def body(self) -> bytes:
        return b"".join(self.pieces)

    def record(self) -> dict:
        """A JSON-able account of what was sent, for failure reports."""
        return {"wire": self.wire, "status": self.status, "quirks": sorted(self.quirks),
                "complete": self.complete,
                "pieces": [piece.decode("utf-8", "backslashreplace") for piece in self.pieces]}


def split_at(body: bytes, cuts: list[int]) -> tuple[bytes, ...]:
    """`body` cut at the byte offsets `cuts` (any order, duplicates and ends ignored)."""
    points = sorted({cut for cut in cuts if 0 < cut < len(body)})
    bounds = [0, *points, len(body)]
    return tuple(body[a:b] for a, b in zip(bounds, bounds[1:])) or (b"",)


def stream_false_body(case: Case) -> tuple[int, Any]:
    """The status and body `stream=false` returns for the case: the whole response where
    the wire has one, else the message. A stream that ends in a provider error gets the
    error as an HTTP answer, except a Gemini answer stopped or blocked for safety, which a
    non-streamed request gets as HTTP 200 with the stop reason. A case without a message
    (an Anthropic call cut by max_tokens: no documented whole twin) has none."""
    if case.error is None:
        whole = case.response if case.response is not None else case.message
        return 200, whole or None
    last = case.chunks[-1] if case.chunks and isinstance(case.chunks[-1], dict) else {}
    if case.wire == "gemini" and "error" not in last:  # finishReason SAFETY, blockReason
        if "promptFeedback" in last:
            return 200, last
        stopped = {**(case.message or {}), **{k: v for k, v in last.items() if k != "candidates"}}
        candidate = {**((case.message or {}).get("candidates") or [{}])[0],
                     **(last.get("candidates") or [{}])[0]}
        return 200, {**stopped, "candidates": [candidate]}
    return _error_status(case.wire, case.error), http_error_body(case.wire, case.error)


def _error_status(wire: str, error: Any) -> int:
    """The HTTP status a provider answers a non-streamed request with for `error`."""
    if isinstance(error, dict) and isinstance(error.get("code"), int) and error["code"] >= 400:
        return error["code"]  # Gemini's
    kind = str(error.get("type") or error.get("code") or "") if isinstance(error, dict) else ""
    if "overloaded" in kind:
        return 529  # Anthropic's overloaded_error
    if "rate_limit" in kind or "throttling" in kind:
        return 429
    if "unavailable" in kind.lower():
        return 503
    return 500


def served_stream(case: Case, *, body_quirks: frozenset = frozenset(), cuts: list[int] = (),
                  keep: int | None = None) -> Served:
    """`case` streamed with HTTP 200, its body cut at `cuts`; `keep` bytes only (then the
    connection drops) when given."""
    body = frame_body(case.wire, case.chunks, quirks=body_quirks)
    complete = keep is None
    if keep is not None:
        body = body[:keep]
    whole_status, whole = stream_false_body(case)
    return Served(wire=case.wire, status=200, content_type=content_type(case.wire),
                  pieces=split_at(body, list(cuts)), whole=whole, whole_status=whole_status,
                  complete=complete, quirks=case.quirks | body_quirks, case=case)


def served_error(wire: str, status: int, body: dict) -> Served:
    """An HTTP error answer with the provider's JSON error body."""
    return Served(wire=wire, status=status, content_type="application/json",
                  pieces=(json_text(body).encode("utf-8"),), whole=body, whole_status=status)
