"""What the local provider server answers for one case: status, headers and body pieces.

A `Served` is plain data, built from a wire `Case` by the generators in `clients.cases`, so
the server knows nothing of Hypothesis and a counterexample can say exactly what was sent.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from mcs_conformance.wires import Case, content_type, frame_body, json_text

__all__ = ["Served", "served_error", "served_stream", "split_at"]


@dataclass(frozen=True)
class Served:
    """One case as the server sends it.

    `pieces`: the body, written one piece at a time, each flushed on its own;
    `complete`: False closes the connection without ending the HTTP body (a network drop);
    `whole`: the JSON a `"stream": false` request gets (the stream=false body);
    `quirks`: every real-server quirk the answer holds, wire and byte level (docs/quirks.md).
    """

    wire: str
    status: int
    content_type: str
    pieces: tuple[bytes, ...]
    whole: Any = None
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


def stream_false_body(case: Case) -> Any:
    """What `stream=false` returns for the case: the whole response where the wire has one."""
    return case.response if case.response is not None else case.message


def served_stream(case: Case, *, body_quirks: frozenset = frozenset(), cuts: list[int] = (),
                  keep: int | None = None) -> Served:
    """`case` streamed with HTTP 200, its body cut at `cuts`; `keep` bytes only (then the
    connection drops) when given."""
    body = frame_body(case.wire, case.chunks, quirks=body_quirks)
    complete = keep is None
    if keep is not None:
        body = body[:keep]
    return Served(wire=case.wire, status=200, content_type=content_type(case.wire),
                  pieces=split_at(body, list(cuts)), whole=stream_false_body(case),
                  complete=complete, quirks=case.quirks | body_quirks, case=case)


def served_error(wire: str, status: int, body: dict) -> Served:
    """An HTTP error answer with the provider's JSON error body."""
    return Served(wire=wire, status=status, content_type="application/json",
                  pieces=(json_text(body).encode("utf-8"),), whole=body)
