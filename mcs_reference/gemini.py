"""Gemini `streamGenerateContent`: whole response records folded into the `generateContent` body.

Every SSE record is a complete `GenerateContentResponse` (camelCase, as on the wire) that
holds only what is new: text cut into runs, each call usually whole in one part with the
`thoughtSignature` that must go back with it, and, on Vertex AI with
`streamFunctionCallArguments`, a call's arguments built from `partialArgs` entries addressed
by JSON paths. Parts are merged the way the non-streamed body holds them, so signatures stay
on the parts the next request must repeat. There is no `[DONE]`: a `finishReason` ends the
stream, except that a server running a tool itself (MCP) sends one mid-stream, then the
`functionResponse` and more text. A blocked prompt, a refused answer or an error record is a
`ProviderError`; a call the model failed to write (MALFORMED_FUNCTION_CALL) is a failed call.
"""
from __future__ import annotations

from typing import Any

from ._gemini_args import apply_entry, read_entry, render, undo
from ._json import copy_json, one_open
from .calls import ExtractedCall, ToolCallRecord, call_from_object, nameless_call
from .errors import MalformedChunk, ProviderError, StreamError
from .strategy import ExtractionStrategy

__all__ = ["GeminiStrategy"]

_CHUNK = "a Gemini GenerateContentResponse {candidates: [{content: {role, parts}}], ...}"
_BODY = "a Gemini generateContent body with a 'candidates' list"
_PART = "a Part object: {text}, {functionCall}, {functionResponse}, ..."
_CALL = "a functionCall {name, args, id} or a streamed {name?, partialArgs, willContinue}"
_PAYLOADS = frozenset({"functionCall", "functionResponse", "inlineData", "fileData",
                       "executableCode", "codeExecutionResult", "toolCall", "toolResponse"})
# CONTINUATION: cut at the per-request token limit, to be continued with the candidate's
# continuationToken (google-genai's FinishReason): an incomplete answer, like MAX_TOKENS.
_ENDED = frozenset({"STOP", "MAX_TOKENS", "FINISH_REASON_UNSPECIFIED", "CONTINUATION"})
_CALL_FAILED = frozenset({"MALFORMED_FUNCTION_CALL", "UNEXPECTED_TOOL_CALL", "TOO_MANY_TOOL_CALLS"})
_FOREIGN = ("choices", "type", "message", "object", "output", "done")
_CONTINUATION = frozenset({"willContinue", "partialArgs", "id"})
_TEXT, _WHOLE, _OPEN, _MORE = range(4)


class _Text:
    """A run of text parts merged into one: the first part's other keys, the text in pieces."""

    __slots__ = ("pieces", "part", "thought", "signed")

    def __init__(self, part: dict, thought: bool) -> None:
        text = part["text"]
        self.pieces = [text] if text else []
        self.part = {key: copy_json(value) for key, value in part.items() if key != "text"}
        self.thought = thought
        self.signed = part.get("thoughtSignature") is not None

    def as_part(self) -> dict:
        pieces = self.pieces
        if len(pieces) > 1:
            pieces[:] = ["".join(pieces)]
        return {"text": pieces[0] if pieces else "", **copy_json(self.part)}


class _Call:
    """A call whose arguments stream as `partialArgs`; `extra` holds its part's other keys."""

    __slots__ = ("name", "id", "args", "extra")

    def __init__(self, name: str, call_id: str | None, args: dict, extra: dict) -> None:
        self.name = name
        self.id = call_id
        self.args = args
        self.extra = extra

    def as_part(self) -> dict:
        call: dict[str, Any] = {"name": self.name, "args": render(self.args)}
        if self.id is not None:
            call["id"] = self.id
        return {"functionCall": call, **copy_json(self.extra)}


class _Candidate:
    __slots__ = ("given", "content", "role", "parts", "open", "fields", "last_call")

    def __init__(self) -> None:
        self.given = False  # some record gave `index`
        self.content: dict | None = None  # content keys but role and parts, once one came
        self.role: str | None = None
        self.parts: list = []  # dicts, _Text runs and _Call calls, in order
        self.open: _Call | None = None  # the streamed call that later records continue
        self.fields: dict = {}  # finishReason, usage of the candidate...: last non-null wins
        self.last_call: str | None = None  # the name of the last functionCall part


class _GeminiAcc:
    __slots__ = ("candidates", "listed", "top")

    def __init__(self) -> None:
        self.candidates: dict[int, _Candidate] = {}
        self.listed = False  # some record had a `candidates` list
        self.top: dict = {}  # usageMetadata, modelVersion, responseId...: last non-null wins


def _bad(what: str, expected: str = _CHUNK) -> MalformedChunk:
    return MalformedChunk(what, expected=expected)


def _check(value: Any, kinds: tuple, where: str, field: str, expected: str = _CHUNK) -> None:
    """`value` (at `where` + `field`) is None or of one of `kinds`; the label is written
    only for an error, as this runs several times per record."""
    if value is not None and type(value) not in kinds:
        raise _bad(f"{where}{field} is a {type(value).__name__}", expected)


def _plan_call(part: dict, where: str, open_call: _Call | None, actions: list,
               log: list) -> _Call | None:
    """Check a functionCall part, apply its partialArgs; return the call left open."""
    call = part["functionCall"]
    name, call_id = call.get("name"), call.get("id")
    more, entries = call.get("willContinue"), call.get("partialArgs")
    _check(name, (str,), where, ".functionCall.name", _CALL)
    _check(call_id, (str,), where, ".functionCall.id", _CALL)
    _check(more, (bool,), where, ".functionCall.willContinue", _CALL)
    _check(entries, (list,), where, ".functionCall.partialArgs", _CALL)
    read = [read_entry(entry) for entry in entries or ()]
    if name is not None:
        if more is not True and entries is None:  # a whole call
            actions.append((_WHOLE, part, None))
            return None
        args = call.get("args")
        extra = {key: copy_json(value) for key, value in part.items() if key != "functionCall"}
        opened = _Call(name, call_id, copy_json(args) if type(args) is dict else {}, extra)
        for entry in read:
            apply_entry(opened.args, entry, log)
        actions.append((_OPEN, opened, more is True))
        return opened if more is True else None
    if open_call is None:
        if read:
            raise _bad(f"{where}.functionCall has partialArgs but no call is open",
                       "a functionCall with a name before its partialArgs")
        if _CONTINUATION.issuperset(call):  # a bare {} or {willContinue}: nothing to do
            return None
        actions.append((_WHOLE, part, None))  # kept, and reported by extract as nameless
        return None
    if not _CONTINUATION.issuperset(call):
        raise _bad(f"{where}.functionCall continues {open_call.name!r} but carries "
                   f"{sorted(set(call) - _CONTINUATION)}", _CALL)
    for entry in read:
        apply_entry(open_call.args, entry, log)
    actions.append((_MORE, part, open_call))
    return open_call if more is True else None


def _plan_parts(parts: list, where: str, open_call: _Call | None, actions: list,
                log: list) -> _Call | None:
    for number, part in enumerate(parts):
        at = f"{where}.parts[{number}]"
        if type(part) is not dict:
            raise _bad(f"{at} is a {type(part).__name__}", _PART)
        _check(part.get("thoughtSignature"), (str,), at, ".thoughtSignature", _PART)
        call = part.get("functionCall")
        if call is not None:
            if type(call) is not dict:
                raise _bad(f"{at}.functionCall is a {type(call).__name__}", _CALL)
            open_call = _plan_call(part, at, open_call, actions, log)
        elif "text" in part and _PAYLOADS.isdisjoint(part):
            text, thought = part["text"], part.get("thought")
            _check(thought, (bool,), at, ".thought", _PART)
            if type(text) is not str:
                raise _bad(f"{at}.text is a {type(text).__name__}", _PART)
            if text or len(part) > 1 + ("thought" in part):  # else an empty part: dropped
                actions.append((_TEXT, part, thought is True))
                open_call = None
        else:
            actions.append((_WHOLE, part, None))
            open_call = None
    return open_call


def _plan(acc: _GeminiAcc, candidate: Any, where: str, opens: dict, log: list) -> tuple:
    """Check one candidate of a record; return (index, actions) to commit."""
    if type(candidate) is not dict:
        raise _bad(f"{where} is a {type(candidate).__name__}")
    index = candidate.get("index")
    if index is None:
        index = 0
    elif type(index) is not int or index < 0:
        raise _bad(f"{where}.index is {index!r}", "a candidate index: an int from 0")
    reason, message = candidate.get("finishReason"), candidate.get("finishMessage")
    _check(reason, (str,), where, ".finishReason")
    _check(message, (str,), where, ".finishMessage")
    if reason is not None and reason not in _ENDED and reason not in _CALL_FAILED:
        raise ProviderError({"status": reason, "message": message or reason})
    content = candidate.get("content")
    actions: list = []
    if content is not None:
        if type(content) is not dict:
            raise _bad(f"{where}.content is a {type(content).__name__}")
        _check(content.get("role"), (str,), where, ".content.role")
        parts = content.get("parts")
        _check(parts, (list,), where, ".content.parts")
        if parts:
            if index in opens:
                open_call = opens[index]
            else:
                known = acc.candidates.get(index)
                open_call = known.open if known is not None else None
            opens[index] = _plan_parts(parts, f"{where}.content", open_call, actions, log)
    if reason is not None:
        opens[index] = None
    return index, actions


def _commit(cand: _Candidate, candidate: dict, actions: list, shown: list | None) -> None:
    """Fold a checked candidate into `cand`; nothing here can fail."""
    if candidate.get("index") is not None:
        cand.given = True
    content = candidate.get("content")
    if content is not None:
        if cand.content is None:
            cand.content = {}
        for key, value in content.items():
            if key == "role":
                cand.role = value if value is not None else cand.role
            elif key != "parts" and value is not None:
                cand.content[key] = value
    parts = cand.parts
    for kind, item, extra in actions:
        if kind == _MORE:  # a part continuing the open call `extra`
            signature, call_id = item.get("thoughtSignature"), item["functionCall"].get("id")
            if signature is not None:
                extra.extra["thoughtSignature"] = signature
            if call_id is not None and extra.id is None:
                extra.id = call_id
            if item["functionCall"].get("willContinue") is not True:
                cand.open = None
            continue
        cand.open = None
        if kind == _OPEN:  # `extra`: does the call stay open?
            parts.append(item)
            cand.open = item if extra else None
            cand.last_call = item.name
        elif kind == _WHOLE:
            parts.append(copy_json(item))
            call = item.get("functionCall")  # checked: an object, or null (then no call)
            if call is not None:
                name = call.get("name")
                cand.last_call = name if isinstance(name, str) else None
        else:  # `extra`: is it thought text?
            _add_text(parts, item, extra)
            if shown is not None and not extra and item["text"]:
                shown.append(item["text"])
    for key, value in candidate.items():
        if value is not None and key != "content" and key != "index":
            cand.fields[key] = value
    if candidate.get("finishReason") is not None:
        cand.open = None


def _hot_path(acc: _GeminiAcc, chunk: Any) -> str | None:
    """The commonest record: one candidate, 0, bringing one text part and nothing else that
    continues the candidate's last run of answer text, folded as the general path folds it;
    the text. None for any other record, which the general path then checks and folds:
    this one changes `acc` only once all is known good."""
    try:  # the one candidate, its one part's text, and the run of text it would continue
        candidates = chunk["candidates"]
        [candidate] = candidates
        content = candidate["content"]
        parts = content["parts"]
        [part] = parts
        text = part["text"]
        cand = acc.candidates[0]
        last = cand.parts[-1]
    except (KeyError, TypeError, ValueError, IndexError):
        return None
    index, role = candidate.get("index"), content.get("role")
    if not (type(chunk) is dict and "error" not in chunk and "promptFeedback" not in chunk
            and type(candidates) is list and type(candidate) is dict
            and len(candidate) == 1 + ("index" in candidate)
            and (index is None or (type(index) is int and index == 0))
            and type(content) is dict and len(content) == 1 + ("role" in content)
            and (role is None or type(role) is str) and type(parts) is list
            and type(part) is dict and len(part) == 1 and type(text) is str and text
            and type(last) is _Text and not last.signed and not last.thought):
        return None
    if index is not None:
        cand.given = True
    if role is not None:
        cand.role = role
    cand.open = None
    last.pieces.append(text)
    acc.listed = True
    _fold_top(acc, chunk)
    return text


def _fold_top(acc: _GeminiAcc, chunk: dict) -> None:
    """The record's own fields but its candidates (usage, model version...): last non-null wins."""
    top = acc.top
    for key, value in chunk.items():
        if value is not None and key != "candidates":
            top[key] = value


def _add_text(parts: list, part: dict, thought: bool) -> None:
    """Merge a text part into the run before it (same thought, not signed) or start a run."""
    last = parts[-1] if parts else None
    if type(last) is not _Text or last.signed or last.thought is not thought:
        parts.append(_Text(part, thought))
        return
    if part["text"]:
        last.pieces.append(part["text"])
    for key, value in part.items():
        if key == "thoughtSignature" and value is not None:
            last.part[key] = value
            last.signed = True
        elif key != "text" and key not in last.part:
            last.part[key] = copy_json(value)


def _candidate_zero(message: Any) -> dict | None:
    """The candidate of index 0 of a body (an absent index is 0), or None."""
    if not isinstance(message, dict):
        raise _bad(f"not a Gemini body: {type(message).__name__}", _BODY)
    candidates = message.get("candidates")
    if candidates is None:
        return None
    if not isinstance(candidates, list):
        raise _bad(f"candidates is a {type(candidates).__name__}, not a list", _BODY)
    for position, candidate in enumerate(candidates):
        if not isinstance(candidate, dict):
            raise _bad(f"candidates[{position}] is a {type(candidate).__name__}", _BODY)
        if candidate.get("index", 0) == 0:
            return candidate
    return None


def _parts_of(candidate: dict | None) -> list[dict]:
    """Candidate 0's parts, checked to be objects ([] without content or parts)."""
    content = candidate.get("content") if candidate is not None else None
    if content is None:
        return []
    parts = content.get("parts") if isinstance(content, dict) else ()
    if parts is None:
        return []
    if not isinstance(parts, list):
        raise _bad("candidate 0's content is not an object with a 'parts' list", _BODY)
    for position, part in enumerate(parts):
        if not isinstance(part, dict):
            raise _bad(f"candidates[0].content.parts[{position}] is a {type(part).__name__}", _BODY)
    return parts


def _run_by_provider(parts: list[dict]) -> set[int]:
    """Positions of the calls the provider ran itself: a functionResponse of the same name
    (and the same id when both have one) follows them in the same content (server-side MCP)."""
    later: dict[Any, tuple[int, set]] = {}  # name -> (responses without id, ids) after here
    served = set()
    for position in range(len(parts) - 1, -1, -1):
        part = parts[position]
        response, call = part.get("functionResponse"), part.get("functionCall")
        if isinstance(response, dict) and isinstance(response.get("name"), str):
            anonymous, ids = later.get(response["name"], (0, set()))
            answered = response.get("id")
            if answered is None:
                anonymous += 1
            else:
                ids = ids | {answered}
            later[response["name"]] = (anonymous, ids)
        elif isinstance(call, dict) and isinstance(call.get("name"), str) and call["name"] in later:
            anonymous, ids = later[call["name"]]
            call_id = call.get("id")
            if anonymous or (ids if call_id is None else call_id in ids):
                served.add(position)
    return served


def _is_text_part(part: dict) -> bool:
    return isinstance(part.get("text"), str) and _PAYLOADS.isdisjoint(part)


class GeminiStrategy(ExtractionStrategy):
    """Google's Gemini API and Vertex AI (`streamGenerateContent`, SSE records)."""

    name = "gemini"
    leaks_into_text = True  # models served without function calling (Gemma) write calls as text

    def recognizes(self, shape: Any) -> bool:
        """A record or a body: a `candidates` list, or a `promptFeedback` or `usageMetadata`,
        and none of the other wires' marker keys."""
        try:
            return (
                isinstance(shape, dict)
                and (isinstance(shape.get("candidates"), list)
                     or "promptFeedback" in shape or "usageMetadata" in shape)
                and not any(key in shape for key in _FOREIGN)
            )
        except Exception:  # a hostile mapping must not break resolution
            return False

    # -- streaming ---------------------------------------------------------------------
    def new_accumulator(self) -> _GeminiAcc:
        return _GeminiAcc()

    def accumulate(self, acc: _GeminiAcc, chunk: Any) -> str:
        if type(chunk) is not dict:
            raise _bad(f"chunk is a {type(chunk).__name__}, not a JSON object")
        shown = _hot_path(acc, chunk)  # most records only bring more text
        if shown is not None:
            return shown
        error = chunk.get("error")
        if error is not None:
            raise ProviderError(error)
        feedback = chunk.get("promptFeedback")
        _check(feedback, (dict,), "", "promptFeedback")
        if feedback and feedback.get("blockReason") is not None:
            said = feedback.get("blockReasonMessage")
            raise ProviderError({"status": feedback["blockReason"],
                                 "message": said or str(feedback["blockReason"])})
        candidates = chunk.get("candidates")
        _check(candidates, (list,), "", "candidates")
        # Check the whole record before changing `acc`: a bad record leaves no trace in it.
        # Only streamed arguments are applied while checking, and taken back on an error.
        plans, log, opens = [], [], {}
        try:
            for position, candidate in enumerate(candidates or ()):
                plans.append(_plan(acc, candidate, f"candidates[{position}]", opens, log))
        except StreamError:
            undo(log)
            raise
        shown: list[str] = []
        for (index, actions), candidate in zip(plans, candidates or ()):
            cand = acc.candidates.get(index)
            if cand is None:
                cand = acc.candidates[index] = _Candidate()
            _commit(cand, candidate, actions, shown if index == 0 else None)
        if candidates is not None:
            acc.listed = True
        _fold_top(acc, chunk)
        return "".join(shown)

    def as_message(self, acc: _GeminiAcc) -> dict:
        """The whole `generateContent` body so far (also `as_response`)."""
        body: dict[str, Any] = {}
        if acc.listed:
            body["candidates"] = [self._candidate(index, acc.candidates[index])
                                  for index in sorted(acc.candidates)]
        body.update(copy_json(acc.top))
        return body

    @staticmethod
    def _candidate(index: int, cand: _Candidate) -> dict:
        out: dict[str, Any] = {}
        if cand.content is not None:
            content: dict[str, Any] = {}
            if cand.parts:
                content["parts"] = [copy_json(part) if type(part) is dict else part.as_part()
                                    for part in cand.parts]
            if cand.role is not None:
                content["role"] = cand.role
            content.update(copy_json(cand.content))
            out["content"] = content
        out.update(copy_json(cand.fields))
        if cand.given:
            out["index"] = index
        return out

    def is_done(self, chunk: Any) -> bool:
        """Some candidate of the record has a `finishReason`."""
        if one_open(chunk, "candidates", "finishReason"):  # the commonest chunk, answered first
            return False
        candidates = chunk.get("candidates") if type(chunk) is dict else None
        if type(candidates) is list:
            for candidate in candidates:
                if type(candidate) is dict and candidate.get("finishReason") is not None:
                    return True
        return False

    # -- reading -----------------------------------------------------------------------
    def extract(self, message: Any) -> list[ExtractedCall]:
        """Candidate 0's functionCall parts in order, but those the provider ran itself;
        then one failed call when the model's call failed (MALFORMED_FUNCTION_CALL...)."""
        candidate = _candidate_zero(message)
        parts = _parts_of(candidate)
        served = _run_by_provider(parts)
        found = []
        for position, part in enumerate(parts):
            call = part.get("functionCall")
            if call is None or position in served:
                continue
            call_id = call.get("id") if isinstance(call, dict) else None
            call_id = call_id if isinstance(call_id, str) else None
            name = call.get("name") if isinstance(call, dict) else None
            if not isinstance(name, str):
                found.append(nameless_call(call, call_id))
                continue
            found.append(call_from_object(name, call.get("args"), call_id))
        reason = candidate.get("finishReason") if candidate is not None else None
        if reason in _CALL_FAILED:
            said = candidate.get("finishMessage")
            said = said if isinstance(said, str) and said else None
            found.append(ExtractedCall("", {}, None, f"{reason}: {said}" if said else reason,
                                       said or ""))
        return found

    def content_text(self, message: Any) -> str:
        """Candidate 0's text parts that are not thoughts, joined."""
        return "".join(part["text"] for part in _parts_of(_candidate_zero(message))
                       if _is_text_part(part) and not part.get("thought"))

    def forming_name(self, message: Any) -> str | None:
        for part in reversed(_parts_of(_candidate_zero(message))):
            call = part.get("functionCall")
            if call is not None:
                name = call.get("name") if isinstance(call, dict) else None
                return name if isinstance(name, str) else None
        return None

    def forming_name_of(self, acc: _GeminiAcc) -> str | None:
        """O(1): the name of candidate 0's last call part, kept as the parts arrive."""
        cand = acc.candidates.get(0)
        return cand.last_call if cand is not None else None

    def result_messages(self, message: Any, records: list[ToolCallRecord]) -> list[dict]:
        """The model turn as it came (signatures kept), then one user turn holding a
        `functionResponse` per record, with the call's `id` when it had one."""
        history = [{"role": "model", "parts": copy_json(_parts_of(_candidate_zero(message)))}]
        if records:
            answers = []
            for record in records:
                answer: dict[str, Any] = {
                    "name": record.name,
                    "response": ({"error": record.error} if record.error is not None
                                 else {"result": record.result}),
                }
                if record.tool_call_id is not None:
                    answer["id"] = record.tool_call_id
                answers.append({"functionResponse": answer})
            history.append({"role": "user", "parts": answers})
        return history
