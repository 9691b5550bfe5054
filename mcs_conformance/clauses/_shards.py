"""Which clauses shard I of N runs: round robin over the sorted clause ids.

Sorting makes the split independent of the catalogue's order and of the order clauses were
named in, so every machine of a CI matrix computes the same shares; round robin spreads each
family of clauses (and its slow members) over the shards.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Iterable

__all__ = ["Shard", "parse_shard"]

_FORM = re.compile(r"^\s*(\d+)\s*/\s*(\d+)\s*$")


@dataclass(frozen=True)
class Shard:
    """Shard `index` (1-based) of `count`."""

    index: int
    count: int

    def __str__(self) -> str:
        return f"{self.index}/{self.count}"

    def select(self, clause_ids: Iterable[str]) -> tuple[str, ...]:
        """This shard's share of `clause_ids`, sorted; the shares of 1..N partition them."""
        ordered = sorted(set(clause_ids))
        return tuple(c for position, c in enumerate(ordered) if position % self.count == self.index - 1)


def parse_shard(text: str) -> Shard:
    """`"2/4"` -> `Shard(2, 4)`; anything else raises ValueError saying what is expected."""
    match = _FORM.match(text)
    if not match:
        raise ValueError("expected I/N, shard I of N, e.g. 2/4")
    index, count = int(match.group(1)), int(match.group(2))
    if count < 1 or not 1 <= index <= count:
        raise ValueError(f"expected I/N with 1 <= I <= N (shards are numbered from 1), e.g. 1/{max(count, 2)}")
    return Shard(index, count)
