"""A third-party extraction strategy: Mistral's `[TOOL_CALLS]` text format.

`mistral_strategy()` is the target to certify:
`mcs-conformance certify mcs_example_mistral:mistral_strategy`.
"""
from __future__ import annotations

from .codec import MARKER, MistralCodec, mistral_strategy

__all__ = ["MARKER", "MistralCodec", "mistral_strategy"]
