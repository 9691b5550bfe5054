"""Server profiles: one real server on one wire, with the quirks it sends.

Drawn with every quirk at once, each quirk comes out rarely, and a short run may never serve
the shape a given server sends. A profile's `selection` is an `OftenQuirks`: certifying
against it (`--mcs-server`, `certify --server`) draws each of its quirks 7 times in 8, the
byte-level ones of the HTTP body too, and the quirks of other servers never. A profile draws
only quirks its provenance shows that server sending (`ServerProfile.provenance`,
docs/quirks.md); forms only the format or the SSE spec allows, or that no server is shown
sending, belong to no server and make each wire's `*-spec-edges` profile, which is not
`evidenced`: what fails there is at most a note.
"""
from __future__ import annotations

from dataclasses import dataclass
from hypothesis import strategies as st

from mcs_conformance.wires._framing import BODY_QUIRKS_OF
from mcs_conformance.wires._provenance import Evidence
from mcs_conformance.wires._quirks import (allowed_quirks, BODY, OFTEN, OftenQuirks, QUIRKS,
                                           quirk_names)

__all__ = ["SERVER_PROFILES", "SPEC_EDGES", "ServerProfile", "body_quirk_sets",
           "misplaced_quirks", "parse_server"]

SPEC_EDGES = "-spec-edges"  # the name's ending of each wire's profile of no server


@dataclass(frozen=True, repr=False)
class ServerProfile:
    """A real server: its stable `name`, the `wire` it speaks, the `quirks` it sends (its
    wire's and the byte-level ones of its body) and what it is, in one line."""

    name: str
    wire: str
    quirks: frozenset
    description: str

    def __repr__(self) -> str:  # the quirks sorted: the same text on every run (docs/api.md)
        return (f"ServerProfile(name={self.name!r}, wire={self.wire!r}, "
                f"quirks={sorted(self.quirks)!r}, description={self.description!r})")

    @property
    def selection(self) -> OftenQuirks:
        """What the generators take as `quirks=`: these quirks, each drawn often."""
        return OftenQuirks(self.quirks)

    @property
    def provenance(self) -> dict[str, tuple[Evidence, ...]]:
        """The evidence behind each quirk drawn here, by name: what shows this server
        sending it (empty: nothing does); for a `*-spec-edges` profile, what its quirks
        cite that names no server (the specs, reports without the bytes)."""
        spec_edges = self.name.endswith(SPEC_EDGES)
        return {name: tuple(evidence for evidence in QUIRKS[name].provenance
                            if (not evidence.profiles if spec_edges
                                else self.name in evidence.profiles))
                for name in sorted(self.quirks)}

    @property
    def evidenced(self) -> bool:
        """Whether the server is shown sending every quirk drawn here. Never for a
        `*-spec-edges` profile: no server stands behind it, so what fails there can be a
        note, never a bug."""
        return not self.name.endswith(SPEC_EDGES) and all(self.provenance.values())


_CHAT, _ANTHROPIC, _RESPONSES, _OLLAMA, _GEMINI, _BEDROCK = (
    "openai-chat", "anthropic-messages", "openai-responses", "ollama-chat", "gemini",
    "bedrock-converse")
_SSE_SPEC = ("sse-crlf", "no-space-after-data")

_TABLE = (
    # OpenAI Chat Completions and compatible servers
    ("openai", _CHAT, "OpenAI's own Chat Completions: usage-only chunk, gpt-5's moderation "
     "chunk, n > 1", ("usage-only-chunk", "moderation-chunk", "n-choices")),
    ("azure-openai", _CHAT, "Azure OpenAI: an empty first chunk with prompt filter results",
     ("azure-empty-first-chunk", "usage-only-chunk")),
    ("vllm", _CHAT, "vLLM, older and current: id then name, escaped non-ASCII arguments, "
     "empty fragments and deltas",
     ("split-id-then-name", "unicode-escaped-arguments", "empty-fragments", "empty-deltas")),
    ("mistral", _CHAT, "Mistral's API: whole calls without index (its own models), empty-name "
     "continuations (GLM), finish and usage on the last chunk",
     ("no-index", "empty-name-continuations", "usage-on-finish-chunk",
      "finish-reason-on-last-delta")),
    ("groq", _CHAT, "Groq: whole calls, usage on the finish chunk and in `x_groq`",
     ("whole-call-one-delta", "usage-on-finish-chunk", "x-groq-usage")),
    ("deepseek", _CHAT, "DeepSeek: reasoning content before the answer, usage on the finish "
     "chunk", ("reasoning-content", "usage-on-finish-chunk")),
    ("zhipu", _CHAT, "Zhipu GLM: the whole answer and finish reason on the first chunk, the "
     "finish reason twice, no `object`",
     ("whole-call-one-delta", "usage-on-finish-chunk", "finish-reason-on-last-delta",
      "finish-reason-first-chunk", "finish-reason-twice", "no-object-field")),
    ("alibaba-qwen", _CHAT, "Alibaba DashScope (Qwen): continuations repeat `id: \"\"`, then a "
     "usage-only chunk", ("empty-id-continuations", "usage-only-chunk")),
    ("snowflake-cortex", _CHAT, "Snowflake Cortex: empty envelope, no finish reason, sorted "
     "keys", ("empty-envelope", "no-finish-reason", "empty-deltas", "usage-only-chunk",
              "sorted-keys")),
    ("xai", _CHAT, "xAI Grok: reasoning content, then whole calls and a usage-only chunk",
     ("reasoning-content", "whole-call-one-delta", "usage-only-chunk")),
    ("openrouter", _CHAT, "OpenRouter: `:` comment lines mid-stream, the finish reason repeated",
     ("sse-comments", "finish-reason-twice")),
    ("ollama-openai", _CHAT, "Ollama's OpenAI-compatible /v1/chat/completions: whole calls, "
     "a usage-only chunk (from its source, no recording)",
     ("whole-call-one-delta", "usage-only-chunk")),
    ("openai-chat-spec-edges", _CHAT, "no server: what the Chat format and the SSE spec allow "
     "(fragments together or interleaved, CRLF, `data:` without a space)",
     ("fragments-same-chunk", "interleaved-calls", *_SSE_SPEC)),
    # OpenAI Responses
    ("openai-responses", _RESPONSES, "OpenAI's own Responses API, early 2025: no "
     "`sequence_number`", ("no-sequence-number",)),
    ("bedrock-responses", _RESPONSES, "AWS Bedrock's Responses-compatible server: ids restart, "
     "`data:` before `event:`, sorted keys",
     ("call-ids-restart", "data-before-event", "sorted-keys")),
    ("ollama-responses", _RESPONSES, "Ollama's /v1/responses: each call's whole arguments in "
     "one delta (from its source, no recording)", ("whole-arguments-one-delta",)),
    ("openai-responses-spec-edges", _RESPONSES, "no server: what the SSE spec allows (CRLF, "
     "`data:` without a space)", _SSE_SPEC),
    # Anthropic Messages
    ("anthropic", _ANTHROPIC, "Anthropic's Messages API: pings, empty thinking deltas, an open "
     "call on max_tokens, padded data",
     ("pings", "empty-thinking-delta", "max-tokens-open-call", "data-padding")),
    ("anthropic-ptc", _ANTHROPIC, "Anthropic with programmatic tool calling: whole inputs at "
     "block start, prefilled follow-up streams",
     ("whole-input-at-start", "prefilled-message-start", "pings", "data-padding")),
    ("anthropic-messages-spec-edges", _ANTHROPIC, "no server: what the SSE spec allows (CRLF, "
     "`data:` without a space)", _SSE_SPEC),
    # Ollama's own chat API
    ("ollama-older", _OLLAMA, "Ollama's /api/chat before call ids (v0.4.6 to v0.12.9): no id, "
     "no index, qwen3's `</think>` in content",
     ("no-call-id", "no-call-index", "think-tag-in-content")),
    ("ollama-chat-spec-edges", _OLLAMA, "no server: what Ollama's format allows (calls in the "
     "done chunk, a call without `arguments`)", ("calls-in-done-chunk", "call-without-arguments")),
    # Gemini
    ("gemini-api", _GEMINI, "the Gemini API with Gemini 3: a last record of empty text, "
     "a text's signature on its own empty part, CRLF and Google's JSON spacing",
     ("empty-text-finish", "signature-on-empty-text", "sse-crlf", "spaced-json")),
    ("gemini-api-2", _GEMINI, "the Gemini API with Gemini 2.x: calls without id, CRLF and "
     "Google's JSON spacing", ("call-without-id", "sse-crlf", "spaced-json")),
    ("vertex-ai", _GEMINI, "Vertex AI: its envelope, calls without id",
     ("vertex-envelope", "call-without-id", "empty-text-finish")),
    ("vertex-ai-partial-args", _GEMINI, "Vertex AI with streamFunctionCallArguments: arguments "
     "as partialArgs, with and without the terminator, no-op records, all in one record, "
     "no-args calls without `args`",
     ("vertex-envelope", "call-without-id", "partial-args", "partial-args-one-chunk",
      "partial-args-no-terminator", "partial-args-noop-chunks", "call-without-args")),
    # Bedrock Converse, per model family behind it
    ("bedrock-claude", _BEDROCK, "Claude on Bedrock Converse: an empty first input delta, "
     "`type: tool_use`, padded payloads",
     ("empty-first-input-delta", "tool-use-type", "padding-field")),
    ("bedrock-nova", _BEDROCK, "Nova on Bedrock Converse: the whole input in one delta, padded "
     "payloads", ("whole-input-one-delta", "padding-field")),
    ("bedrock-gpt-oss", _BEDROCK, "gpt-oss on Bedrock Converse: a lone empty text block "
     "first, padded payloads", ("empty-text-block", "padding-field")),
    ("bedrock-kimi", _BEDROCK, "Kimi K2 on Bedrock Converse: `functions.NAME:N` tool ids",
     ("kimi-tool-ids",)),
    ("bedrock-converse-spec-edges", _BEDROCK, "no server: what the format allows (a tool block "
     "with no input delta)", ("tool-use-no-deltas",)),
    ("gemini-spec-edges", _GEMINI, "no server: what the format, JSON and the SSE spec allow "
     "(several calls in one record, empty text parts, a usage-only last record, line "
     "separators raw in JSON strings, CRLF, `data:` without a space)",
     ("calls-in-one-record", "empty-text-parts", "usage-only-last-record",
      "raw-line-separators", *_SSE_SPEC)),
)

#: Every server profile by name.
SERVER_PROFILES: dict[str, ServerProfile] = {
    name: ServerProfile(name, wire, frozenset(quirks), description)
    for name, wire, description, quirks in _TABLE}


def misplaced_quirks(profile: ServerProfile) -> list[str]:
    """The quirks of `profile` its wire's servers cannot send (none, for a sound profile):
    another wire's, or a body quirk that its wire's bodies never get."""
    return sorted(name for name in profile.quirks if name not in quirk_names(profile.wire)
                  and not (QUIRKS[name].wire == BODY and name in BODY_QUIRKS_OF[profile.wire]))


def parse_server(name: str) -> ServerProfile:
    """The profile `name`; an unknown name raises `ValueError`, one line naming the known."""
    try:
        return SERVER_PROFILES[name.strip()]
    except KeyError:
        raise ValueError(f"unknown server profile {name!r}; known profiles: "
                         f"{', '.join(SERVER_PROFILES)}") from None


def _chosen(names: tuple, drawn: tuple) -> frozenset:
    return frozenset(name for name, left_out in zip(names, drawn) if not left_out)


def body_quirk_sets(wire: str, quirks: frozenset | None) -> st.SearchStrategy[frozenset]:
    """The byte-level quirks of one `wire` body, among those the selection allows and
    `wire`'s servers send: any few of them, or for a server profile each 7 times in 8.
    Shrinks toward none."""
    allowed = allowed_quirks(BODY, quirks) & BODY_QUIRKS_OF[wire]
    names = tuple(sorted(allowed))
    if not names:
        return st.just(frozenset())
    if isinstance(allowed, OftenQuirks):
        left_out = st.integers(0, OFTEN - 1).map(lambda code: code == 0)
        return st.tuples(*(left_out for _ in names)).map(lambda drawn: _chosen(names, drawn))
    return st.lists(st.sampled_from(names), unique=True).map(frozenset)

