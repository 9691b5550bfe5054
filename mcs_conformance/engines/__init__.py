"""Engines: adapters that drive an inference engine's tool parser the way its server does.

A *parser target* is a factory `parser(format: str) -> Parser` (`certify --parser
pkg:factory --format NAME`); `factory.formats` lists the catalogue formats it has a parser
for, and calling it with another raises `LookupError` naming them. A `Parser` has:

- `name`: the engine, its version and the parser class, for reports;
- `parse(text, tools) -> dict`: the engine's non-streamed parse of a whole model output, as
  the OpenAI Chat assistant message its server returns (`content`, `tool_calls` with
  `function.arguments` a JSON text); `tools` are the request's OpenAI tool definitions;
- `stream(deltas, tools) -> list[dict]`: feed `deltas` (each a list of token texts; joined,
  a delta's text) as the serving layer feeds the parser, its end-of-stream step included,
  and return every OpenAI Chat `delta` dict it emits, in order.

Owns the adapters for vLLM, SGLang and openai-harmony (each imports its engine only when
called: engines are optional dependencies, installed under `.peers/`, never in CI) and the
reference parser built on `mcs_reference`'s format codecs, the baseline row.

May import: `mcs_reference`, `mcs_conformance.base`, `mcs_conformance.wires`.
"""
from __future__ import annotations

__all__: list[str] = []
