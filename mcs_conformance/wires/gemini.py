"""The Gemini wire: `generateContent` bodies and the `streamGenerateContent` SSE streams.

The native message is the whole `:generateContent` body, a `GenerateContentResponse`:
`candidates[0]` (its `content` with `role: "model"` and `parts`, `finishReason`, `index`,
now and then `finishMessage`), `usageMetadata`, `modelVersion`, `responseId`. Parts come in
order: thought summaries (`thought: true`, only when the request asks `includeThoughts`),
text, calls (`functionCall {name, args, id}`, the first carrying a `thoughtSignature`), and
sometimes text after them. A stream is whole `GenerateContentResponse` records, one part
each: text cut in pieces, each call whole, `finishReason` on the last record. Every other
shape real servers send is a named quirk (wires/_quirks.py, docs/quirks.md): Vertex AI's
envelope, its no-args calls and its streamed arguments (`partialArgs`, only when the request
asks `streamFunctionCallArguments`), calls without `id`, several calls in one record, empty
text parts, the `{"text": ""}` record that ends a Gemini 3 stream, a signature arriving on
an empty text part, and a usage-only last record. How a stream folds back into the body is
the shape both sides agree on (docs/quirks.md, "Gemini"): text runs merge until a part
carries a signature, empty text parts vanish, streamed arguments build `args`. Thoughts,
streamed arguments and a stop at `MAX_TOKENS` are drawn only for a request asking them
(`features`, wires/_features.py).
"""
from __future__ import annotations

import json
import re
from typing import Any, Callable

from hypothesis import strategies as st

from mcs_reference.calls import call_from_object, ExtractedCall
from mcs_conformance.base import copy_json
from mcs_conformance.wires._base import (Case, check_options, draw_pieces, NATIVE_OPTIONS,
                                         native_wire, Tape, tapes, Wire)
from mcs_conformance.wires._content import (BASE64, draw_arguments, draw_opaque, draw_prose,
                                            draw_tool_name, positions, spell)
from mcs_conformance.wires._features import asks, quirks_asked
from mcs_conformance.wires._provider_errors import error_objects, error_tail
from mcs_conformance.wires._quirks import allowed_quirks, maybe

__all__ = ["COVERAGE", "NAME", "case_of", "cases", "chunkings", "make_wire", "messages"]

NAME = "gemini"
MODELS = ("gemini-2.0-flash", "gemini-2.5-flash", "gemini-2.5-pro", "gemini-3-pro-preview",
          "gemini-3-flash-preview")
CALLS_MESSAGE = "Model generated function call(s)."
_LOWER36 = "abcdefghijklmnopqrstuvwxyz0123456789"
_ID_SPACE = len(_LOWER36) ** 8
_RESPONSE_ID_ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")

#: What this wire draws of the installed google-genai SDK's types, and what it leaves out
#: and why (read by tests/kit/test_union_coverage.py; the SDK's snake_case field names).
COVERAGE = {
    "Part": {
        "drawn": {"text", "thought", "thought_signature", "function_call"},
        "excluded": {
            "inline_data": "image or audio output: models answering with function "
                           "declarations answer in text",
            "file_data": "a part of the request (an uploaded file), never of an answer",
            "function_response": "sent by the client with its results; a model sends one "
                                 "only for server-side MCP tools, which no harness is told",
            "executable_code": "the provider-run codeExecution tool, which the kit's "
                               "requests never declare",
            "code_execution_result": "the provider-run codeExecution tool's output, as above",
            "tool_call": "server-side built-in tools (Google Search and the like), never "
                         "declared by the kit's requests",
            "tool_response": "the output of those server-side tools, as above",
            "video_metadata": "describes a video input of the request",
            "media_resolution": "a request-side option of media inputs",
            "part_metadata": "request-side metadata of a part",
            "audio_metadata": "audio input or output only",
            "audio_transcription": "Live API audio transcription only",
            "speech_metadata": "speech output only",
            "document_metadata": "describes a document input",
            "spreadsheet_metadata": "describes a spreadsheet input",
            "media_processing": "media input processing options",
        },
    },
    "FunctionCall": {"drawn": {"name", "args", "id", "partial_args", "will_continue"},
                     "excluded": {}},
    "PartialArg": {"drawn": {"json_path", "string_value", "number_value", "bool_value",
                             "null_value", "will_continue"}, "excluded": {}},
    "Candidate": {
        "drawn": {"content", "finish_reason", "finish_message", "index"},
        "excluded": {
            "safety_ratings": "no longer sent on answers that pass the filters; a blocked "
                              "answer is drawn by its finishReason (error cases)",
            "citation_metadata": "recitation of quoted sources, not tool calls",
            "grounding_metadata": "needs the googleSearch tool, never declared",
            "url_context_metadata": "needs the urlContext tool, never declared",
            "avg_logprobs": "sent by `generateContent` only, never in a stream",
            "logprobs_result": "needs responseLogprobs, never asked",
            "token_count": "not sent by the API in any recording",
            "continuation_token": "not sent by the API in any recording",
        },
    },
    "GenerateContentResponse": {
        "drawn": {"candidates", "usage_metadata", "model_version", "response_id",
                  "create_time", "prompt_feedback"},
        "excluded": {
            "automatic_function_calling_history": "the SDK's own field, never on the wire",
            "parsed": "the SDK's own field, never on the wire",
            "sdk_http_response": "the SDK's own field, never on the wire",
            "model_status": "not sent by the API in any recording",
        },
    },
}

_TAPES = tapes((
    "model", "vertex-envelope", "call-without-id", "call-without-args", "signature-on-call",
    "signature-on-text", "text-after-calls", "finish-message", "finish-reason",
    "calls-in-one-record", "empty-text-parts", "empty-part-0-at", "empty-part-1-at",
    "empty-text-finish", "signature-on-empty-text", "usage-only-last-record",
    "partial-args", "partial-args-one-chunk", "partial-args-no-terminator",
    "partial-args-noop-chunks", "sorted-paths", "entries-per-chunk"))


# -- the body ----------------------------------------------------------------------------
def _signature(opaque: int, salt: int) -> str:
    """An opaque base64 blob (the SDK decodes signatures as bytes)."""
    return spell((opaque >> (8 * salt)) % (64 ** 32), BASE64, 32)


def _usage(opaque: int, thoughts: bool, vertex: bool) -> dict:
    prompt, answer = 10 + opaque % 900, 1 + (opaque >> 10) % 400
    usage: dict[str, Any] = {"promptTokenCount": prompt, "candidatesTokenCount": answer}
    thinking = (opaque >> 20) % 1000 if thoughts else 0
    if thinking:
        usage["thoughtsTokenCount"] = thinking
    usage["totalTokenCount"] = prompt + answer + thinking
    usage["promptTokensDetails"] = [{"modality": "TEXT", "tokenCount": prompt}]
    if vertex:
        usage["trafficType"] = "ON_DEMAND"
        usage["candidatesTokensDetails"] = [{"modality": "TEXT", "tokenCount": answer}]
    return usage


def _body(draw: Callable, min_calls: int, max_calls: int, allowed: frozenset,
          features: frozenset | None) -> tuple[dict, set, Tape]:
    """A `generateContent` body, the quirks it holds, and the tape of its stream's small
    decisions; only what a request asking `features` gets."""
    tags: set = set()
    count = min_calls + draw(positions(max_calls - min_calls))
    tape = _TAPES(draw)
    opaque = draw_opaque(draw)
    thought = draw_prose(draw) if asks(features, "include_thoughts") else ""
    text = draw_prose(draw)
    after = draw_prose(draw, min_size=1)
    calls = [(draw_tool_name(draw), draw_arguments(draw)) for _ in range(count)]
    vertex = maybe(tape, allowed, "vertex-envelope")
    if vertex:
        tags.add("vertex-envelope")
    parts: list[dict] = []
    if thought:
        parts.append({"text": thought, "thought": True})
    if text:
        parts.append({"text": text})
    for number, (name, args) in enumerate(calls):
        call: dict[str, Any] = {"name": name}
        if args or not maybe(tape, allowed, "call-without-args"):
            call["args"] = args
        else:
            tags.add("call-without-args")
        if not maybe(tape, allowed, "call-without-id"):
            call["id"] = spell(((opaque >> (40 * (number % 4))) + number) % _ID_SPACE,
                               _LOWER36, 8)
        else:
            tags.add("call-without-id")
        part: dict[str, Any] = {"functionCall": call}
        if number == 0 and tape.flip("signature-on-call"):  # only the first call is signed
            part["thoughtSignature"] = _signature(opaque, 3)
        parts.append(part)
    limit = asks(features, "max_tokens")
    if calls and tape.below("text-after-calls", 4) == 3:
        parts.append({"text": after})
    last_text = next((p for p in reversed(parts) if "text" in p and not p.get("thought")), None)
    if last_text is not None and not calls and (tape.below("signature-on-text", 4) or maybe(
            tape, allowed, "signature-on-empty-text")):
        last_text["thoughtSignature"] = _signature(opaque, 5)
    candidate: dict[str, Any] = {"content": {"role": "model"}}
    if parts:
        candidate["content"]["parts"] = parts
    # An answer with nothing in it was cut by the request's limit (as recorded: content
    # without parts); without one, it stopped empty, as Gemini 2.5 does whatever the request
    # (BerriAI/litellm#24442, google-gemini/deprecated-generative-ai-python#744).
    if not parts:
        candidate["finishReason"] = "MAX_TOKENS" if limit else "STOP"
    else:
        candidate["finishReason"] = "STOP" if calls else tape.pick(
            "finish-reason", ("STOP", "MAX_TOKENS") if limit else ("STOP",))
    if not vertex:
        candidate["index"] = 0
    if calls and tape.flip("finish-message"):
        candidate["finishMessage"] = CALLS_MESSAGE
    body: dict[str, Any] = {"candidates": [candidate],
                            "usageMetadata": _usage(opaque, bool(thought), vertex),
                            "modelVersion": tape.pick("model", MODELS)}
    if vertex:
        body["createTime"] = "2026-%02d-%02dT%02d:%02d:%02d.%06dZ" % (
            1 + opaque % 12, 1 + (opaque >> 4) % 28, (opaque >> 9) % 24, (opaque >> 14) % 60,
            (opaque >> 20) % 60, (opaque >> 26) % 10**6)
    body["responseId"] = spell((opaque >> 64) % (64 ** 22), _RESPONSE_ID_ALPHABET, 22)
    return body, tags, tape


@st.composite
def messages(draw: Callable, *, min_calls: int = 0, max_calls: int = 3, quirks=None,
             features: frozenset | None = None) -> dict:
    """Whole `generateContent` bodies: thought summaries, text, 0..n calls, usage;
    `features` as for `cases`."""
    check_options(min_calls, max_calls)
    allowed = quirks_asked(allowed_quirks(NAME, quirks), NAME, features)
    return _body(draw, min_calls, max_calls, allowed, features)[0]


# -- the stream --------------------------------------------------------------------------
def json_path(steps: tuple) -> str:
    """`$` then `.key` (identifiers), `["key"]` (any other key) and `[N]` steps."""
    out = "$"
    for step in steps:
        if isinstance(step, int):
            out += f"[{step}]"
        elif _IDENT.match(step):
            out += "." + step
        else:
            out += "[" + json.dumps(step, ensure_ascii=False) + "]"
    return out


def _leaves(value: Any, steps: tuple, sort: bool) -> list[tuple[tuple, Any]]:
    """The leaves of an arguments object, depth first (object keys sorted when `sort`,
    as one recorded server sends them; array items always in order)."""
    if isinstance(value, dict):
        keys = sorted(value) if sort else list(value)
        return [leaf for key in keys for leaf in _leaves(value[key], steps + (key,), sort)]
    if isinstance(value, list):
        return [leaf for index, item in enumerate(value)
                for leaf in _leaves(item, steps + (index,), sort)]
    return [(steps, value)]


def _streamable(args: Any) -> bool:
    """Can `partialArgs` carry these arguments? Not an empty object or array below the
    top: no recorded stream shows how one is sent, so such calls come whole."""
    if isinstance(args, dict):
        return all((v != {} and v != []) and _streamable(v) for v in args.values())
    if isinstance(args, list):
        return all((v != {} and v != []) and _streamable(v) for v in args)
    return True


def _entries(draw: Callable, args: dict, sort: bool, split: bool) -> list[dict]:
    """The `partialArgs` entries that build `args`: a string in pieces (each
    `willContinue`), closed by `stringValue: ""`, when `split`; other leaves whole."""
    out = []
    for steps, value in _leaves(args, (), sort):
        path = json_path(steps)
        if isinstance(value, str) and split and value:
            out += [{"jsonPath": path, "stringValue": piece, "willContinue": True}
                    for piece in draw_pieces(draw, value, allow_empty=False)]
            out.append({"jsonPath": path, "stringValue": ""})  # as recorded: "" closes it
        elif isinstance(value, str):
            out.append({"jsonPath": path, "stringValue": value})
        elif isinstance(value, bool):
            out.append({"jsonPath": path, "boolValue": value})
        elif value is None:
            out.append({"jsonPath": path, "nullValue": "NULL_VALUE"})
        else:
            out.append({"jsonPath": path, "numberValue": value})
    return out


def _streamed_call(draw: Callable, tape: Tape, part: dict, allowed: frozenset, tags: set,
                   first: bool) -> list[list[dict]]:
    """The records' parts (one list a record) of one call sent as `partialArgs` (the
    `first` such call of the answer may come in one record)."""
    call = part["functionCall"]
    sort = tape.flip("sorted-paths")
    head: dict[str, Any] = {"name": call["name"]}
    if "id" in call:
        head["id"] = call["id"]
    signed = {"thoughtSignature": part["thoughtSignature"]} if "thoughtSignature" in part else {}
    if first and call["args"] and maybe(tape, allowed, "partial-args-one-chunk", 4):
        tags.add("partial-args-one-chunk")
        entries = _entries(draw, call["args"], sort, split=False)
        return [[{"functionCall": {**head, "partialArgs": entries}, **signed}]]
    records = [[{"functionCall": {**head, "willContinue": True}, **signed}]]
    entries = _entries(draw, call["args"], sort, split=True)
    group = 1 + tape.below("entries-per-chunk", 3)
    noop = maybe(tape, allowed, "partial-args-noop-chunks", 3)
    for start in range(0, len(entries), group):
        if noop and (start or tape.flip("partial-args-noop-chunks")):
            tags.add("partial-args-noop-chunks")
            records.append([{"functionCall": {"willContinue": True}}])
        records.append([{"functionCall": {"partialArgs": entries[start:start + group],
                                          "willContinue": True}}])
    if maybe(tape, allowed, "partial-args-no-terminator", 4):
        tags.add("partial-args-no-terminator")
    else:
        records.append([{"functionCall": {}}])
    return records


def _part_records(draw: Callable, tape: Tape, parts: list[dict], max_cuts: int,
                  allowed: frozenset, tags: set) -> list[list[dict]]:
    """The parts of each record, in order: text in pieces, calls whole (together in one
    record under `calls-in-one-record`) or as streamed arguments."""
    records: list[list[dict]] = []
    partial = maybe(tape, allowed, "partial-args")
    together = not partial and maybe(tape, allowed, "calls-in-one-record", 3) and \
        sum("functionCall" in p for p in parts) > 1
    for part in parts:
        if "text" in part:
            pieces = draw_pieces(draw, part["text"], max_cuts=max_cuts, allow_empty=False)
            extra = {"thought": True} if part.get("thought") else {}
            records += [[{"text": piece, **extra}] for piece in pieces]
            if "thoughtSignature" in part:
                if maybe(tape, allowed, "signature-on-empty-text"):
                    tags.add("signature-on-empty-text")
                    records.append([{"text": "", "thoughtSignature": part["thoughtSignature"]}])
                else:
                    records[-1][0]["thoughtSignature"] = part["thoughtSignature"]
            continue
        call = part["functionCall"]
        if partial and "args" in call and _streamable(call["args"]):
            records += _streamed_call(draw, tape, part, allowed, tags,
                                      first="partial-args" not in tags)
            tags.add("partial-args")
        elif together and records and "functionCall" in records[-1][-1]:
            tags.add("calls-in-one-record")
            records[-1].append(copy_json(part))
        else:
            records.append([copy_json(part)])
    if maybe(tape, allowed, "empty-text-parts", 3):  # never inside a call's streamed arguments
        for number in range(1 + tape.below("empty-text-parts", 2)):
            places = _whole_after(records)
            at = places[tape.below(f"empty-part-{number}-at", min(len(places), 256))]
            records.insert(at, [{"text": ""}])
            tags.add("empty-text-parts")
    return records


def _envelope(body: dict, usage: dict) -> dict:
    """A record's top-level fields beside its candidates, as the body has them."""
    record: dict[str, Any] = {"usageMetadata": usage, "modelVersion": body["modelVersion"]}
    if "createTime" in body:
        record["createTime"] = body["createTime"]
    record["responseId"] = body["responseId"]
    return record


def _running_usage(body: dict, number: int) -> dict:
    """The usage a record before the last carries: Vertex's traffic type alone, or the
    prompt's count and a running total (only the last record's usage counts)."""
    final = body["usageMetadata"]
    if "trafficType" in final:
        return {"trafficType": final["trafficType"]}
    prompt = final.get("promptTokenCount", 0)
    return {"promptTokenCount": prompt, "totalTokenCount": prompt + number,
            "promptTokensDetails": copy_json(final.get("promptTokensDetails", []))}


def _chunks(draw: Callable, tape: Tape, body: dict, max_cuts: int, allowed: frozenset,
            tags: set) -> tuple[list[dict], list[int]]:
    """The records of one stream carrying `body`, and the positions after which every part
    sent so far is whole (where an error case may cut it)."""
    candidate = body["candidates"][0]
    parts = candidate["content"].get("parts", [])
    records = _part_records(draw, tape, parts, max_cuts, allowed, tags)
    if not records or maybe(tape, allowed, "empty-text-finish"):
        if records:
            tags.add("empty-text-finish")
        records.append([{"text": ""}] if records else [])
    chunks = []
    for number, record_parts in enumerate(records):
        final = number == len(records) - 1
        content: dict[str, Any] = {"role": "model"}
        if record_parts:
            content["parts"] = record_parts
        entry: dict[str, Any] = {"content": content}
        if final:
            entry.update({k: copy_json(v) for k, v in candidate.items() if k != "content"})
        elif "index" in candidate:
            entry["index"] = candidate["index"]
        usage = copy_json(body["usageMetadata"]) if final else _running_usage(body, number)
        chunks.append({"candidates": [entry], **_envelope(body, usage)})
    if maybe(tape, allowed, "usage-only-last-record", 4):  # the finished usage, repeated
        tags.add("usage-only-last-record")
        chunks.append(_envelope(body, copy_json(body["usageMetadata"])))
    return chunks, _whole_after(records)


def _whole_after(records: list[list[dict]]) -> list[int]:
    """Record counts after which no call is half sent (no streamed arguments open)."""
    whole, open_call = [0], False
    for number, record_parts in enumerate(records):
        for part in record_parts:
            call = part.get("functionCall")
            if call is not None:
                open_call = bool(call.get("willContinue")) or (open_call and "name" not in call
                                                                and bool(call))
        if not open_call:
            whole.append(number + 1)
    return whole


@st.composite
def chunkings(draw: Callable, body: dict, *, max_cuts: int = 8, quirks=None,
              features: frozenset | None = None) -> list[dict]:
    """The records of one stream that carries `body`, cut at drawn points; a quirk
    tied to a feature `features` lacks is left out (the body holds the other tied shapes)."""
    tape = _TAPES(draw)
    allowed = quirks_asked(allowed_quirks(NAME, quirks), NAME, features)
    return _chunks(draw, tape, body, max_cuts, allowed, set())[0]


# -- the truth ---------------------------------------------------------------------------
def calls_of(body: dict) -> list[ExtractedCall]:
    """The calls of a body as `extract` must return them."""
    candidates = body.get("candidates") or [{}]
    parts = (candidates[0].get("content") or {}).get("parts") or []
    return [call_from_object(p["functionCall"]["name"], p["functionCall"].get("args"),
                             p["functionCall"].get("id"))
            for p in parts if "functionCall" in p]


def text_of(body: dict) -> str:
    candidates = body.get("candidates") or [{}]
    parts = (candidates[0].get("content") or {}).get("parts") or []
    return "".join(p["text"] for p in parts if "text" in p and not p.get("thought"))


def case_of(body: dict, chunks: list, *, quirks: frozenset = frozenset()) -> Case:
    """The `Case` for `body` carried by `chunks`."""
    done_at = next((i for i, chunk in enumerate(chunks)
                    if any(c.get("finishReason") for c in chunk.get("candidates") or ())),
                   len(chunks))
    return Case(wire=NAME, message=body, chunks=chunks, done_at=done_at, calls=calls_of(body),
                text=text_of(body), response=copy_json(body), quirks=frozenset(quirks))


def _error_case(draw: Callable, case: Case, whole: list[int]) -> Case:
    """`case` cut after a drawn prefix of its records (where every part sent is whole),
    then an error: an error record, or an answer stopped for safety."""
    form, error = draw(error_objects(NAME))
    cuts = [cut for cut in whole if cut <= case.done_at] or [0]
    cut = 0 if form == "blocked" else cuts[draw(positions(len(cuts) - 1))]
    prefix = copy_json(case.chunks[:cut])
    last = prefix[-1] if prefix else {"modelVersion": case.message["modelVersion"],
                                      "responseId": case.message["responseId"],
                                      "usageMetadata": {}}
    tail, error = error_tail(NAME, form, error, last=last)
    body = _prefix_body(case.message, prefix)
    return Case(wire=NAME, message=body, chunks=prefix + tail, done_at=cut,
                calls=calls_of(body), text=text_of(body), response=None,
                quirks=case.quirks, error=error, error_at=cut)


def _prefix_body(message: dict, prefix: list[dict]) -> dict:
    """What a stream cut after `prefix` (whole parts only) folds into."""
    if not prefix:
        return {}
    parts: list[dict] = []
    for chunk in prefix:
        for part in (chunk["candidates"][0].get("content") or {}).get("parts", []):
            parts.append(part)
    whole = message["candidates"][0]["content"].get("parts", [])
    kept = _fold_whole(parts, whole)
    candidate: dict[str, Any] = {"content": {"role": "model"}}
    if kept:
        candidate["content"]["parts"] = kept
    if "index" in message["candidates"][0]:
        candidate["index"] = message["candidates"][0]["index"]
    last = prefix[-1]
    body: dict[str, Any] = {"candidates": [candidate]}
    body.update({k: copy_json(v) for k, v in last.items() if k != "candidates"})
    return body


def _fold_whole(sent: list[dict], whole: list[dict]) -> list[dict]:
    """The body's parts a prefix sent: text runs by the characters sent, calls by their
    opening part (the prefix ends where no call is half sent)."""
    kept: list[dict] = []
    texts = [p for p in sent if "text" in p and (p["text"] or "thoughtSignature" in p)]
    calls = sum(1 for p in sent if "name" in p.get("functionCall", {}))
    sent_chars = {True: sum(len(p["text"]) for p in texts if p.get("thought")),
                  False: sum(len(p["text"]) for p in texts if not p.get("thought"))}
    signatures = {p["thoughtSignature"] for p in sent if "thoughtSignature" in p}
    for part in whole:
        if "functionCall" in part:
            if calls:
                kept.append(copy_json(part))
                calls -= 1
            continue
        thought = bool(part.get("thought"))
        share = part["text"][:sent_chars[thought]]
        sent_chars[thought] -= len(share)
        if not share:
            continue
        piece = {"text": share, **({"thought": True} if thought else {})}
        if part.get("thoughtSignature") in signatures:
            piece["thoughtSignature"] = part["thoughtSignature"]
        kept.append(piece)
    return kept


@st.composite
def cases(draw: Callable, *, min_calls: int = 0, max_calls: int = 3, max_cuts: int = 8,
          quirks=None, errors: bool = False, features: frozenset | None = None) -> Case:
    """Generated streams with the truth about them. `quirks`: None allows every Gemini
    quirk, a set only those named (`frozenset()`: the Gemini API's own stream); `features`:
    what the request can ask (wires/_features.py; None: every shape: no thought part without
    `include_thoughts`); `errors=True` ends every stream in an error after a drawn prefix."""
    check_options(min_calls, max_calls, max_cuts)
    allowed = quirks_asked(allowed_quirks(NAME, quirks), NAME, features)
    body, tags, tape = _body(draw, min_calls, max_calls, allowed, features)
    chunks, whole = _chunks(draw, tape, body, max_cuts, allowed, tags)
    case = case_of(body, chunks, quirks=tags)
    return _error_case(draw, case, whole) if errors else case


def make_wire(**options: Any) -> Wire:
    """The Gemini wire; `options` become defaults of `messages` and `cases`."""
    return native_wire(NAME, messages, cases, options,
                       allowed=NATIVE_OPTIONS | {"quirks", "errors", "features"})
