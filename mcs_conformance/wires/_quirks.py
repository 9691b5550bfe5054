"""The quirks of real provider servers, by stable name: what each is and who sends it.

A quirk is a departure from a provider's own current stream shape that some real server
sends, or one its format allows; each carries its provenance (wires/_provenance.py): the
recording, report or server source that shows a server sending it, or the spec that allows
it (`Quirk.evidenced` tells them apart). Each wire draws the
quirks of its format and records the ones a drawn case holds in `Case.quirks`, so that a
failure report can say "fails only on vLLM-style streams"; users select them with
`--mcs-quirks` (docs/quirks.md). A plain selection draws each quirk rarely, beside the
others; an `OftenQuirks` selection (a server profile's, `--mcs-server`) draws each of its
quirks 7 times in 8, so that a short run meets every shape that server sends. Quirks of wire `body` are byte-level: the local HTTP
server applies them to the serialized body of the wires whose servers send them
(`framing.BODY_QUIRKS_OF`).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable

from hypothesis.errors import InvalidArgument

from mcs_conformance.wires._base import Tape
from mcs_conformance.wires._provenance import EVIDENCE, Evidence

__all__ = ["BODY", "OFTEN", "QUIRKS", "OftenQuirks", "Quirk", "allowed_quirks", "maybe",
           "often_pick", "parse_quirks", "quirk_names", "quirks_of", "without_quirks"]

BODY = "body"
OFTEN = 8  # under a server profile a quirk is left out one time in `OFTEN`


class OftenQuirks(frozenset):
    """A quirk selection whose every quirk is drawn often (a server profile's, see
    wires/_profiles.py): each `maybe` holds 7 times in 8, and among modes that exclude one
    another the selection's own come out 7 times in 8.

    Set operations keep the kind (`selection - {"n-choices"}` still draws often), and it
    never equals a plain frozenset of the same names: the generators cache by selection,
    and the two draw differently."""

    __slots__ = ()

    def __eq__(self, other: object) -> bool:
        return isinstance(other, OftenQuirks) and frozenset.__eq__(self, other)

    def __ne__(self, other: object) -> bool:
        return not self == other

    def __hash__(self) -> int:
        return hash((OftenQuirks, frozenset(self)))

    def __and__(self, other: Iterable) -> "OftenQuirks":
        return OftenQuirks(frozenset(self) & frozenset(other))

    __rand__ = __and__  # `QUIRKS & selection` keeps the kind too

    def __or__(self, other: Iterable) -> "OftenQuirks":
        return OftenQuirks(frozenset(self) | frozenset(other))

    __ror__ = __or__

    def __sub__(self, other: Iterable) -> "OftenQuirks":
        return OftenQuirks(frozenset(self) - frozenset(other))

    def __repr__(self) -> str:
        return f"OftenQuirks({sorted(self)!r})"


@dataclass(frozen=True, repr=False)
class Quirk:
    """One quirk: its stable `name`, its `wire` (or `body`), what it is, who sends it, and
    its `provenance`: the evidence for it, never empty."""

    name: str
    wire: str
    description: str
    servers: tuple[str, ...]
    provenance: tuple[Evidence, ...]

    def __post_init__(self) -> None:
        if not self.provenance:
            raise ValueError(f"quirk {self.name!r} has no provenance: give the recording, "
                             f"report or source that shows a server sending it, or the spec "
                             f"that allows it (wires/_provenance.py)")

    def __repr__(self) -> str:  # the evidence is long; docs/quirks.md shows it
        return (f"Quirk(name={self.name!r}, wire={self.wire!r}, "
                f"description={self.description!r}, servers={self.servers!r}, "
                f"evidenced={self.evidenced!r})")

    @property
    def evidenced(self) -> bool:
        """Whether some evidence shows a real server sending it (a spec, an intermediary or
        a report without the bytes shows none): unevidenced quirks belong to no server's
        profile, only to their wire's `*-spec-edges` one."""
        return any(evidence.profiles for evidence in self.provenance)


_CHAT, _ANTHROPIC, _RESPONSES, _OLLAMA, _GEMINI, _BEDROCK = (
    "openai-chat", "anthropic-messages", "openai-responses", "ollama-chat", "gemini",
    "bedrock-converse")

_TABLE = (
    # OpenAI Chat Completions and compatible servers
    (_CHAT, "split-id-then-name", "a call's `id` and `type` come first, then `name` alone, "
     "then the arguments", ("vLLM",)),
    (_CHAT, "no-index", "tool-call deltas carry no `index`; each call arrives whole in one "
     "delta",
     ("Mistral",)),
    (_CHAT, "empty-id-continuations", "continuation deltas repeat `id: \"\"` and `type`, "
     "which must not overwrite the id", ("Alibaba Qwen",)),
    (_CHAT, "empty-name-continuations", "continuation deltas carry `name: \"\"`, which must "
     "not overwrite the name", ("GLM via Mistral's API",)),
    (_CHAT, "whole-call-one-delta", "a call's index, id, name and whole arguments in one delta",
     ("Groq", "xAI", "Zhipu", "Ollama's /v1/chat/completions")),
    (_CHAT, "fragments-same-chunk", "several tool-call fragments (of one index or several) "
     "in one chunk", ("the format allows it",)),
    (_CHAT, "interleaved-calls", "the fragments of parallel calls interleave by index",
     ("the format allows it",)),
    (_CHAT, "empty-deltas", "deltas with nothing new (`{}` or `content: \"\"`) between "
     "others", ("vLLM", "Snowflake Cortex")),
    (_CHAT, "azure-empty-first-chunk", "a first chunk with `choices: []`, empty "
     "`id`/`model`/`object` and `prompt_filter_results`", ("Azure OpenAI",)),
    (_CHAT, "usage-only-chunk", "with `include_usage`, a trailing chunk with `choices: []` "
     "and the usage", ("OpenAI", "Azure OpenAI", "Alibaba Qwen", "Snowflake Cortex", "xAI",
                        "Ollama's /v1/chat/completions")),
    (_CHAT, "moderation-chunk", "a further trailing `choices: []` chunk carrying "
     "`moderation`", ("OpenAI gpt-5",)),
    (_CHAT, "usage-on-finish-chunk", "the usage rides on the finish chunk instead of a "
     "trailing chunk", ("DeepSeek", "Mistral", "Groq", "Zhipu")),
    (_CHAT, "x-groq-usage", "the usage repeated in an `x_groq` object", ("Groq",)),
    (_CHAT, "finish-reason-on-last-delta", "`finish_reason` in the same chunk as the last "
     "content or call delta", ("Mistral", "Zhipu")),
    (_CHAT, "finish-reason-first-chunk", "`finish_reason` already on the first chunk, which "
     "holds the role and the whole answer", ("Zhipu",)),
    (_CHAT, "finish-reason-twice", "a second chunk repeats `finish_reason`",
     ("Zhipu", "OpenRouter")),
    (_CHAT, "no-finish-reason", "no chunk carries a `finish_reason`; the stream just ends",
     ("Snowflake Cortex",)),
    (_CHAT, "empty-envelope", "chunks with `id: \"\"`, `created: 0` and empty "
     "`service_tier`/`system_fingerprint`", ("Snowflake Cortex",)),
    (_CHAT, "unicode-escaped-arguments", "non-ASCII characters `\\u`-escaped inside the "
     "arguments text", ("vLLM",)),
    (_CHAT, "empty-fragments", "argument fragments that are `\"\"`", ("vLLM",)),
    (_CHAT, "n-choices", "`n > 1`: the deltas of several choices interleave, each with its "
     "role chunk and `finish_reason`", ("OpenAI with n > 1",)),
    (_CHAT, "no-object-field", "chunks without the `object` field", ("Zhipu",)),
    (_CHAT, "reasoning-content", "reasoning text streamed in `delta.reasoning_content` "
     "before the answer", ("DeepSeek", "xAI")),
    # Anthropic Messages
    (_ANTHROPIC, "pings", "`ping` events between any two events", ("Anthropic",)),
    (_ANTHROPIC, "whole-input-at-start", "a `tool_use` block whose whole `input` is in "
     "`content_block_start`, with no deltas (calls made from code execution)",
     ("Anthropic programmatic tool calling",)),
    (_ANTHROPIC, "prefilled-message-start", "`message_start` with content already filled, "
     "then `message_stop`", ("Anthropic programmatic tool calling",)),
    (_ANTHROPIC, "empty-thinking-delta", "a `thinking_delta` whose text is `\"\"`",
     ("Anthropic",)),
    (_ANTHROPIC, "max-tokens-open-call", "on `max_tokens` the tool JSON is left invalid and "
     "its `content_block_stop` never comes", ("Anthropic",)),
    # OpenAI Responses
    (_RESPONSES, "no-sequence-number", "events without `sequence_number`",
     ("OpenAI (early 2025)",)),
    (_RESPONSES, "call-ids-restart", "call ids numbered anew in every response (`call_0`, "
     "`call_1`, ...), so they repeat across turns", ("Bedrock",)),
    (_RESPONSES, "whole-arguments-one-delta", "a call's whole arguments in one "
     "`function_call_arguments.delta`", ("Ollama's /v1/responses",)),
    # Ollama
    (_OLLAMA, "no-call-id", "calls without `id` (older servers)", ("Ollama before v0.12.10",)),
    (_OLLAMA, "no-call-index", "calls without `function.index` (older servers)",
     ("Ollama before v0.12.6",)),
    (_OLLAMA, "calls-in-done-chunk", "the calls ride in the `done: true` chunk itself",
     ("the format allows it",)),
    (_OLLAMA, "call-without-arguments", "a call with no arguments lacks the `arguments` key",
     ("the format allows it",)),
    (_OLLAMA, "think-tag-in-content", "thinking text, with a literal `</think>`, inside "
     "`content`", ("Ollama v0.8 to v0.12.3 with qwen3",)),
    # Gemini (`streamGenerateContent`)
    (_GEMINI, "vertex-envelope", "Vertex AI's records: `createTime`, no candidate `index`, "
     "`trafficType` in the usage (only that in the records before the last)", ("Vertex AI",)),
    (_GEMINI, "call-without-id", "a `functionCall` without `id`",
     ("Vertex AI", "Gemini API (Gemini 2.x)")),
    (_GEMINI, "call-without-args", "a call of a tool without parameters lacks `args`",
     ("Vertex AI",)),
    (_GEMINI, "partial-args", "with `streamFunctionCallArguments`, a call's arguments stream "
     "as `partialArgs` (`jsonPath` and a typed value; strings in pieces closed by `\"\"`), "
     "ended by a bare `functionCall: {}`", ("Vertex AI",)),
    (_GEMINI, "partial-args-one-chunk", "with `streamFunctionCallArguments` on, the name and "
     "every `partialArgs` entry arrive in one record, without `willContinue`", ("Vertex AI",)),
    (_GEMINI, "partial-args-no-terminator", "a call streamed as `partialArgs` ends without "
     "the bare `functionCall: {}`", ("Vertex AI",)),
    (_GEMINI, "partial-args-noop-chunks", "records of `{\"functionCall\": {\"willContinue\": "
     "true}}` with no arguments between `partialArgs` entries", ("Vertex AI",)),
    (_GEMINI, "calls-in-one-record", "several calls' parts in one record",
     ("the format allows it",)),
    (_GEMINI, "empty-text-parts", "`{\"text\": \"\"}` parts between others",
     ("the format allows it",)),
    (_GEMINI, "empty-text-finish", "the content ends, then a last record holds only "
     "`{\"text\": \"\"}` and the `finishReason`", ("Gemini API (Gemini 3)", "Vertex AI")),
    (_GEMINI, "signature-on-empty-text", "a text part's `thoughtSignature` arrives alone, on a "
     "later `{\"text\": \"\", \"thoughtSignature\": ...}` part", ("Gemini API (Gemini 3)",)),
    (_GEMINI, "usage-only-last-record", "after the `finishReason` record, a record with the "
     "same usage and no candidates", ("the format allows it",)),
    # Bedrock Converse (`converse-stream`)
    (_BEDROCK, "empty-first-input-delta", "a tool block's first `toolUse.input` delta is `\"\"`",
     ("Claude on Bedrock",)),
    (_BEDROCK, "whole-input-one-delta", "a tool block's whole input in one delta",
     ("Nova on Bedrock",)),
    (_BEDROCK, "tool-use-no-deltas", "a tool without parameters: its block starts and stops "
     "with no input delta", ("the format allows it",)),
    (_BEDROCK, "tool-use-type", "`start.toolUse` names its `type: \"tool_use\"`",
     ("Claude on Bedrock (2026)",)),
    (_BEDROCK, "padding-field", "a random `p` field in every event's payload", ("Bedrock",)),
    (_BEDROCK, "empty-text-block", "a lone block of `text: \"\"` before the answer",
     ("gpt-oss on Bedrock",)),
    (_BEDROCK, "kimi-tool-ids", "tool ids `functions.NAME:N` instead of `tooluse_...`",
     ("Kimi K2 on Bedrock",)),
    # Byte-level, applied by the local HTTP server to SSE bodies
    (BODY, "sse-comments", "`:` comment lines between events", ("OpenRouter",)),
    (BODY, "sse-crlf", "lines end in `\\r\\n` (the SSE spec allows it)",
     ("Gemini API", "the SSE spec allows it")),
    (BODY, "data-padding", "each event's JSON padded with spaces before its closing `}`",
     ("Anthropic",)),
    (BODY, "data-before-event", "the `data:` line before the `event:` line", ("Bedrock",)),
    (BODY, "sorted-keys", "JSON keys sorted alphabetically", ("Bedrock", "Snowflake Cortex")),
    (BODY, "raw-line-separators", "U+2028, U+2029 and U+0085 raw inside JSON strings (JSON "
     "allows it; Gemini's recorded raw bodies hold only ASCII, so the kit escapes them "
     "unless this quirk is drawn)", ("JSON allows it",)),
    (BODY, "spaced-json", "JSON written with `\": \"` after keys and `,` alone between "
     "items", ("Gemini API",)),
    (BODY, "no-space-after-data", "`data:{...}` with no space after the colon",
     ("the SSE spec allows it",)),
)

def quirks_of(table: tuple, evidence: dict) -> dict[str, Quirk]:
    """The quirks of `table` rows `(wire, name, description, servers)`, each with its
    provenance from `evidence`; a row without any raises `ValueError` naming it."""
    stray = set(evidence) - {row[1] for row in table}
    if stray:
        raise ValueError(f"provenance of unknown quirk(s): {', '.join(sorted(stray))}")
    return {name: Quirk(name, wire, text, servers, evidence.get(name, ()))
            for wire, name, text, servers in table}


#: Every known quirk by name.
QUIRKS: dict[str, Quirk] = quirks_of(_TABLE, EVIDENCE)


def quirk_names(wire: str | None = None) -> frozenset:
    """The names of `wire`'s quirks (every name when `wire` is None)."""
    return frozenset(name for name, quirk in QUIRKS.items() if wire in (None, quirk.wire))


def _unknown(names: Iterable[str]) -> str:
    return (f"unknown quirk(s): {', '.join(sorted(names))}; known quirks: "
            f"{', '.join(sorted(QUIRKS))}")


def allowed_quirks(wire: str, quirks: Iterable[str] | None) -> frozenset:
    """The quirks of `wire` a generator may draw: all of them for None, else those named
    (names of other wires are ignored). Unknown names raise `InvalidArgument`."""
    if quirks is None:
        return quirk_names(wire)
    if isinstance(quirks, str):
        raise InvalidArgument(f"quirks must be a set of names or None, got the string {quirks!r}")
    unknown = set(quirks) - set(QUIRKS)
    if unknown:
        raise InvalidArgument(_unknown(unknown))
    kept = frozenset(quirks) & quirk_names(wire)
    return OftenQuirks(kept) if isinstance(quirks, OftenQuirks) else kept


def without_quirks(selection: frozenset | None, names: Iterable[str]) -> frozenset:
    """`selection` (None: every quirk) less `names`, drawn as before: a server profile's
    selection stays an `OftenQuirks`. For leaving out what a request cannot elicit."""
    if isinstance(names, str):
        raise TypeError(f"names must be a set of quirk names, got the string {names!r}")
    return (quirk_names() if selection is None else selection) - frozenset(names)


def parse_quirks(spec: str) -> frozenset | None:
    """`none` -> no quirk, `all` -> None (all), `a,b` -> those; a bad name raises
    `ValueError` with one line naming the known quirks."""
    spec = spec.strip()
    if spec == "all":
        return None
    if spec == "none":
        return frozenset()
    names = frozenset(part.strip() for part in spec.split(",") if part.strip())
    unknown = names - set(QUIRKS)
    if unknown or not names:
        raise ValueError(_unknown(unknown) if unknown
                         else "--mcs-quirks needs none, all or quirk names separated by commas")
    return names


def maybe(tape: Tape, allowed: frozenset, name: str, odds: int = 2, slot: str | None = None) -> bool:
    """Whether a case holds quirk `name`: never when not allowed, else one in `odds` (7 in 8
    for an `OftenQuirks` selection), read from the tape's `slot` (default: named after the
    quirk). Shrinks toward the absence."""
    if name not in allowed:
        return False
    if isinstance(allowed, OftenQuirks):
        return tape.below(slot or name, OFTEN) != 0
    return tape.below(slot or name, odds) == odds - 1


def often_pick(tape: Tape, slot: str, plain: str, held: tuple) -> str:
    """Under a server profile, one of modes that exclude one another: `plain` (the
    provider's own) one time in 8, else one of `held`, the profile's modes. Shrinks to `plain`."""
    if not held:
        return plain
    spare = 256 // OFTEN
    code = tape.below(slot, 256)
    return plain if code < spare else held[(code - spare) * len(held) // (256 - spare)]
