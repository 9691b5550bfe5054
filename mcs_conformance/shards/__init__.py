"""Sharding a certification across machines: `split` picks a shard's clauses, `merge` joins
the shards' reports into the report of a run in one piece."""
from .merge import MergeRefused, merge, read_shard
from .split import Shard, parse_shard

__all__ = ["MergeRefused", "Shard", "merge", "parse_shard", "read_shard"]
