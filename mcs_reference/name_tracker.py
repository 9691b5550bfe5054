"""The incremental name tracker: which call a streaming text is writing, at any cut.

A text strategy asks after every delta for the name of the call being written (a client
shows it while the arguments stream). Re-reading the whole text each time is quadratic; the
tracker keeps its place between pieces, so each delta costs what it adds. The codec decides
what opens a call (its `_opening`); the tracker follows strings, nesting and openings.
"""
from __future__ import annotations

import re
from typing import Any

__all__ = ["MORE", "NameTracker"]

MORE = object()  # a codec's answer: the text ends before it is known
_PIECE = 4096  # the tracker reads long texts in pieces of this size
_MAX_INNER = 4  # levels of nameless objects read inside; calls deeper in prose JSON are not


class NameTracker:
    """Follows a text as it streams and knows the name of the last call written in it.

    Feed it the text in pieces of any size: the answer never depends on where the text was
    cut, and `codec.peek_name(text)` is this tracker fed the whole text at once. While it
    seeks an opening it keeps only a short carry (a marker or call head split across pieces);
    inside an object it follows braces and strings to find where the object ends (markers
    inside argument values are not openings), then decodes that object once to confirm it is
    a call. Inside an object whose head shows no name (prose JSON, or a call whose name comes
    after its arguments) an inner tracker reads on, as `decode` would if the object turns
    out to be no call. Cost per piece is proportional to the piece, not to the text so far.
    """

    __slots__ = ("_codec", "_carry", "_parts", "_depth", "_quote", "_escape", "_open",
                 "_last", "_inner", "_level")

    def __init__(self, codec: Any, last: str | None = None, level: int = 0):
        self._codec = codec
        self._carry = ""  # unread tail while seeking (a possible opening not yet decided)
        self._parts: list[str] | None = None  # the open object's text, while inside one
        self._depth = 0
        self._quote: str | None = None
        self._escape = False
        self._open: str | None = None  # name read from the open object's head, if any
        self._last = last  # name of the last call confirmed by decoding it
        self._inner: NameTracker | None = None  # reads inside an open object without a name
        self._level = level  # how deep inside other objects (bounds the inner trackers)

    @property
    def name(self) -> str | None:
        """The name of the call being written, else of the last call written, else None."""
        if self._parts is not None:
            if self._open is not None:
                return self._open
            if self._codec._definite:  # a new call opened and its name is not written yet
                return None
            if self._inner is not None:
                return self._inner.name
        elif self._carry and self._codec._definite and self._codec._started(self._carry):
            return None  # a new call opened; its head is still being written
        return self._last

    def feed(self, text: str) -> str | None:
        """Read the next piece of text; return `name`."""
        if len(text) > _PIECE:  # bounded pieces keep each step's slicing local
            for start in range(0, len(text), _PIECE):
                self._feed(text[start:start + _PIECE])
        else:
            self._feed(text)
        return self.name

    def _feed(self, text: str) -> None:
        while text:
            text = self._seek(text) if self._parts is None else self._track(text)

    def _seek(self, text: str) -> str:
        buf = self._carry + text if self._carry else text
        state, start, brace, name = self._codec._opening(buf)
        if state is None or state is MORE:  # keep only what may still open a call
            self._carry = buf[start:]
            return ""
        self._carry = ""
        self._parts = [buf[start:brace], "{"]
        self._depth, self._quote, self._escape, self._open = 1, None, False, name
        if name is None and self._level < _MAX_INNER:
            self._inner = NameTracker(self._codec, self._last, self._level + 1)
        return buf[brace + 1:]

    def _track(self, text: str) -> str:
        codec = self._codec
        outside = codec._outside.search
        quotes = codec._quotes
        depth, quote = self._depth, self._quote
        n = len(text)
        i = 0
        if self._escape:
            self._escape = False
            i = 1
        while i < n:
            if quote is not None:
                found = _IN_STRING[quote](text, i)
                if found is None:
                    break
                j = found.start()
                if text[j] == "\\":
                    if j + 1 >= n:
                        self._escape = True
                    i = j + 2
                    continue
                quote = None
                i = j + 1
                continue
            found = outside(text, i)
            if found is None:
                break
            j = found.start()
            char = text[j]
            if char == "{":
                depth += 1
            elif char == "}":
                depth -= 1
                if depth == 0:
                    return self._close(text, j + 1)
            elif char in quotes:
                quote = char
            else:  # cannot stand outside a string in a call: the object is broken here
                return self._close(text, j)
            i = j + 1
        self._depth, self._quote = depth, quote
        self._parts.append(text)  # type: ignore[union-attr]
        if self._inner is not None:
            self._inner.feed(text)
        return ""

    def _close(self, text: str, cut: int) -> str:
        """The object ends at `cut` (closed, or broken there): confirm it, read on."""
        parts = self._parts
        parts.append(text[:cut])  # type: ignore[union-attr]
        inner = self._inner
        self._parts, self._inner = None, None
        self._depth, self._quote, self._escape, self._open = 0, None, False, None
        body = "".join(parts)  # type: ignore[arg-type]
        calls = self._codec.decode(body)
        if calls:
            self._last = calls[-1].name or None
            return text[cut:]
        # No call after all (prose JSON): read inside it, as `decode` does.
        if inner is None:
            if self._level >= _MAX_INNER:  # too deep in prose JSON: skip it
                return text[cut:]
            inner = NameTracker(self._codec, self._last, self._level + 1)
            inner.feed(body[len(parts[0]) + 1:])  # type: ignore[index]
        else:
            inner.feed(text[:cut])
        for slot in _ADOPTED:
            setattr(self, slot, getattr(inner, slot))
        return text[cut:]


_ADOPTED = ("_carry", "_parts", "_depth", "_quote", "_escape", "_open", "_last", "_inner")
_IN_STRING = {
    '"': re.compile(r'["\\]').search,
    "'": re.compile(r"['\\]").search,
}
