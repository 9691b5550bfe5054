"""The Harmony format codec: what gpt-oss writes after `<|start|>assistant`.

Harmony splits a turn into messages, each with a header (channel, recipient, content type)
and a body: reasoning on `analysis`, calls and preambles on `commentary`, the answer on
`final`. A call is a message to `functions.NAME`, ended by `<|call|>`. The codec reads the
raw text an engine such as vLLM returns (special tokens as text), and also gives the answer
(`content`) and the reasoning (`reasoning`) apart, since a client shows the one, not the other.
"""
from __future__ import annotations

import json
import re
from typing import Any, Iterable, NamedTuple

from ._format_base import FormatCodec, decode_at, is_plain, result_value, vetted
from .calls import ExtractedCall, ToolCallRecord

__all__ = ["HarmonyCodec"]

_TOKEN = re.compile(r"<\|(start|end|message|channel|constrain|call|return)\|>")
_BODY_END = re.compile(r"<\|(?:end|call|return|start)\|>")
_CLOSERS = ("<|end|>", "<|call|>", "<|return|>")
_CHANNEL = re.compile(r"<\|channel\|>\s*([^\s<]+)")
# The first message's role header is the generation prompt `<|start|>assistant`, so an output
# whose first message has its recipient in the role header starts ` to=functions.NAME`.
_ROLE_RECIPIENT = re.compile(r"[ \t]*to=[^\s<]+\s*(?=<\|(?:channel|constrain|message)\|>)")
_RECIPIENT = re.compile(r"to=([^\s<]+)")
_FUNCTIONS = "functions."
_WS = " \t\r\n"


class _Message(NamedTuple):
    """One message of the turn: where it stands, its channel and recipient, its body."""

    start: int
    end: int
    channel: str | None
    recipient: str | None
    body: str
    call: ExtractedCall | None


class _Parsed(NamedTuple):
    prose: list[tuple[int, str]]  # (where, text) outside messages: before, between them
    messages: list[_Message]
    last_name: str | None


class HarmonyCodec(FormatCodec):
    """Harmony as gpt-oss writes it: `<|channel|>commentary to=functions.NAME
    <|constrain|>json<|message|>{ARGS}<|call|>`, later messages after `<|start|>assistant`.

    A call is a message (on commentary, or analysis) whose recipient is `functions.NAME`,
    in the channel header or the role header (for the first message, whose
    `<|start|>assistant` is the prompt's, the output then starts ` to=functions.NAME`). Its body is decoded as JSON from
    `<|message|>` on (so markers inside argument strings are no end), then `<|call|>` (or
    `<|end|>`, or the end of the text) must follow; otherwise it is an error call keeping
    the body. Messages to other recipients (built-in tools: `browser.*`, `python`) are not
    client calls and not content. `content` is the text a client shows: the final channel,
    commentary preambles without recipient (OpenAI's guide: meant to be shown to the end
    user), messages without channel and text outside messages; `reasoning` is the
    analysis channel. Harmony has no call ids.
    """

    name = "harmony"
    special_tokens = ("<|start|>", "<|end|>", "<|message|>", "<|channel|>", "<|constrain|>",
                      "<|call|>", "<|return|>")
    # A call ends the model's turn (`<|call|>` is a stop token); what follows is the next
    # turn, after the tool's result, so no prose between calls nor after the last one.
    prose_between = False
    prose_after = False

    def frame_prose(self, prose: str, calls_follow: bool) -> str:
        """Prose as the model writes it in Harmony: a commentary preamble before calls, the
        final answer otherwise, even an empty one (bare text outside a message, or no
        message at all, is no Harmony output)."""
        if calls_follow:
            if not prose:
                return ""
            return f"<|channel|>commentary<|message|>{prose}<|end|><|start|>assistant"
        return f"<|channel|>final<|message|>{prose}<|return|>"
    source = ("OpenAI harmony response format guide (cookbook.openai.com/articles/"
              "openai-harmony) and the openai-harmony package")

    _name_forbidden = "<"  # the header ends the recipient at whitespace or a token

    def can_carry(self, call: ExtractedCall) -> bool:
        """A name without whitespace or `<` (the header ends it there); no id."""
        return is_plain(call) and call.id is None and self.allows_name(call.name)

    def decode(self, text: str) -> list[ExtractedCall]:
        """The calls written in `text`, in order (a name the format cannot bear makes an
        error call)."""
        if not isinstance(text, str):
            return []
        return [vetted(self, m.call, text[m.start:m.end]) for m in _parse(text).messages
                if m.call is not None]

    def content(self, text: str) -> str:
        """What a client shows: final, preambles, channel-less messages and loose text."""
        parsed = _parse(text)
        pieces = parsed.prose + [(m.start, m.body) for m in parsed.messages if _shown(m)]
        return "".join(piece for _, piece in sorted(pieces, key=lambda piece: piece[0]))

    def reasoning(self, text: str) -> str:
        """The analysis channel's text (a call's arguments excluded)."""
        return "".join(m.body for m in _parse(text).messages
                       if m.channel == "analysis" and m.recipient is None)

    def peek_name(self, text: str) -> str | None:
        """The function named by the last header whose recipient is complete."""
        return _parse(text).last_name

    def encode(self, calls: Iterable[ExtractedCall]) -> str:
        """Each call as a commentary message to `functions.NAME`, JSON constrained; the
        second and later start with `<|start|>assistant`."""
        parts = []
        for index, call in enumerate(calls):
            if call.error is not None and call.raw_arguments is not None:
                arguments = call.raw_arguments
            else:
                arguments = json.dumps(call.arguments, ensure_ascii=False, separators=(",", ":"))
            lead = "<|start|>assistant" if index else ""
            parts.append(f"{lead}<|channel|>commentary to={_FUNCTIONS}{call.name} "
                         f"<|constrain|>json<|message|>{arguments}<|call|>")
        return "".join(parts)

    def encode_results(self, records: Iterable[ToolCallRecord]) -> str:
        """Each result as the tool's message to the assistant, on commentary."""
        blocks = []
        for record in records:
            value: Any = ({"error": record.error} if record.error is not None
                          else result_value(record))
            body = json.dumps(value, ensure_ascii=False)
            blocks.append(f"<|start|>{_FUNCTIONS}{record.name} to=assistant<|channel|>commentary"
                          f"<|message|>{body}<|end|>")
        return "".join(blocks)


def _shown(message: _Message) -> bool:
    return message.recipient is None and message.channel in (None, "final", "commentary")


def _parse(text: str) -> _Parsed:
    """Read the messages of `text` in one pass (each token found once)."""
    prose: list[tuple[int, str]] = []
    messages: list[_Message] = []
    last_name: str | None = None
    n = len(text)
    pos = 0
    while pos < n:
        token = _TOKEN.search(text, pos)
        role_header = pos == 0 and _ROLE_RECIPIENT.match(text) is not None
        if not role_header and (token is None or token.start() > pos):  # loose text
            stop = n if token is None else token.start()
            prose.append((pos, text[pos:stop]))
            pos = stop
            continue
        if not role_header and token.group(1) not in ("start", "channel", "constrain"):
            pos = token.end()  # a stray closer
            continue
        header_start = pos
        cursor = pos if role_header else token.end()
        while True:  # the header runs to <|message|>
            following = _TOKEN.search(text, cursor)
            if following is None or following.group(1) not in ("channel", "constrain"):
                break
            cursor = following.end()
        header_end = n if following is None else following.start()
        header = text[header_start:header_end]
        recipient = _RECIPIENT.search(header)
        if recipient is not None and header_start + recipient.end() < n:
            name = recipient.group(1)
            if name.startswith(_FUNCTIONS):
                last_name = name[len(_FUNCTIONS):] or last_name
        if following is None:  # cut inside the header
            break
        if following.group(1) != "message":  # a header with no body: skip it
            pos = following.start() if following.group(1) == "start" else following.end()
            continue
        # A header may hold a stray `<|channel|>commentary to=assistant` before its own
        # channel: the last channel counts, and a message to the assistant has no recipient.
        channels = _CHANNEL.findall(header)
        to = recipient.group(1) if recipient and recipient.group(1) != "assistant" else None
        message = _read_body(text, header_start, following.end(),
                             channels[-1] if channels else None, to)
        messages.append(message)
        pos = message.end
    return _Parsed(prose, messages, last_name)


def _read_body(text: str, start: int, body: int, channel: str | None,
               recipient: str | None) -> _Message:
    """The message whose body starts at `body`: a call's JSON, or text to its closer."""
    if recipient is not None and recipient.startswith(_FUNCTIONS):
        name = recipient[len(_FUNCTIONS):]
        call, end = _read_call(text, body, name)
        return _Message(start, end, channel, recipient, "", call)
    closer = _BODY_END.search(text, body)
    stop = len(text) if closer is None else closer.start()
    end = stop if closer is None or closer.group() == "<|start|>" else closer.end()
    return _Message(start, end, channel, recipient, text[body:stop], None)


def _read_call(text: str, body: int, name: str) -> tuple[ExtractedCall, int]:
    """The call whose arguments start at `body`, and where its message ends."""
    n = len(text)
    i = body
    while i < n and text[i] in _WS:
        i += 1
    closed = _closer_at(text, i)
    if closed:  # no arguments at all
        return ExtractedCall(name, {}), i + closed
    if i >= n:
        return ExtractedCall(name, {}, None, "tool call is unterminated", text[body:]), n
    value, end, why = decode_at(text, i)
    if why is None:
        after = end
        while after < n and text[after] in _WS:
            after += 1
        closed = _closer_at(text, after)
        if (closed or after >= n) and isinstance(value, dict):
            return ExtractedCall(name, value), after + closed
        if closed or after >= n:
            kind = "null" if value is None else type(value).__name__
            return ExtractedCall(name, {}, None, f"arguments must be a JSON object, got {kind}",
                                 text[i:end]), after + closed
        why = "followed by text before <|call|>"
    closer = _BODY_END.search(text, i)
    stop = n if closer is None else closer.start()
    end = stop if closer is None or closer.group() == "<|start|>" else closer.end()
    return ExtractedCall(name, {}, None, f"tool call arguments are {why}", text[body:stop]), end


def _closer_at(text: str, i: int) -> int:
    """The length of the closing token at `i`, 0 if none stands there."""
    for closer in _CLOSERS:
        if text.startswith(closer, i):
            return len(closer)
    return 0
