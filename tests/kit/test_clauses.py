"""The clause catalogue: every clause catches a bug.

That every reference strategy passes every clause, at the dev profile, is shown through the
plugin, as a user runs it, by tests/kit/test_broken_strategies.py.

Each broken strategy below is a reference strategy with one realistic bug; the clause named
beside it must flag it (a `ClauseFailure` with that clause's id) at the dev profile. The
profile is derandomized here so that the verdicts do not depend on the run.
"""
from __future__ import annotations

import json
import re
from dataclasses import replace

import pytest
from hypothesis import Phase, settings

import mcs_reference as ref
from mcs_conformance.clauses import CLAUSES, ClauseFailure, Subject, applicable
from mcs_conformance.plugin import profile_settings
from mcs_conformance.wires import wire_for_strategy
from mcs_reference.calls import ExtractedCall, call_from_json_text

from broken.function_calls_only import FunctionCallsOnly
from broken.outputs_all_as_function import OutputsAllAsFunction
from broken.runs_hosted_items import RunsHostedItems
from broken.skips_error_event import SkipsErrorEvent

settings.register_profile("mcs-dev-tests", parent=profile_settings("dev"), derandomize=True,
                          database=None)
# Finding a bug is what the broken strategies prove; shrinking a counterexample can take
# minutes on big cases, so they skip it (one test below checks that failures do shrink).
settings.register_profile("mcs-dev-tests-found", parent=settings.get_profile("mcs-dev-tests"),
                          phases=[Phase.explicit, Phase.reuse, Phase.generate])

CATALOGUE = [
    "reassembly.round-trip", "reassembly.prefix", "reassembly.done", "reassembly.trailing",
    "reassembly.response", "reassembly.provider-error", "resolve.own-wire", "resolve.foreign", "resolve.text-never-native",
    "resolve.reorder-invariant", "extract.calls", "extract.false-positive-guard",
    "extract.leak-fallthrough", "extract.no-phantom", "extract.malformed", "extract.forming",
    "extract.provider-run", "extract.client-kinds",
    "history.schema", "history.lossless", "history.output-kinds", "codec.round-trip", "codec.split-markers",
    "robust.bad-input", "robust.no-mutation",
]


@pytest.fixture(autouse=True, scope="module")
def dev_profile():
    previous = settings.get_current_profile_name()
    settings.load_profile("mcs-dev-tests")
    yield
    settings.load_profile(previous)


def subject_of(factory) -> Subject:
    strategy = factory()
    return Subject(strategy=strategy, target=f"tests:{type(strategy).__name__}",
                   wire=wire_for_strategy(strategy), make=factory)


REFERENCES = {
    "openai-chat": ref.OpenAIChatStrategy,
    "openai-responses": ref.OpenAIResponsesStrategy,
    "anthropic-messages": ref.AnthropicMessagesStrategy,
    "ollama-chat": ref.OllamaChatStrategy,
    "text-json": lambda: ref.TextStrategy(ref.JsonCodec()),
    "hermes": lambda: ref.TextStrategy(ref.HermesCodec()),
}


def test_catalogue_is_registered_in_order():
    assert list(CLAUSES)[: len(CATALOGUE)] == CATALOGUE
    for item in CLAUSES.values():
        assert item.level in ("MUST", "SHOULD")
        assert item.meaning and item.failure_means and item.typical_bug
    assert CLAUSES["reassembly.response"].level == "SHOULD"


@pytest.mark.parametrize("name", sorted(REFERENCES))
def test_which_clauses_apply(name):
    subject = subject_of(REFERENCES[name])
    ids = {item.id for item in applicable(subject)}
    text = name in ("text-json", "hermes")
    assert ("codec.round-trip" in ids) is text
    assert ("resolve.text-never-native" in ids) is text
    assert ("reassembly.done" in ids) is not text
    assert ("extract.false-positive-guard" in ids) is (text or name == "openai-chat")
    assert ("extract.leak-fallthrough" in ids) is (name != "openai-chat")
    assert {"reassembly.round-trip", "extract.calls", "robust.bad-input"} <= ids


# -- one deliberately broken strategy per clause ----------------------------------------------
class DropsThinkingSignature(ref.AnthropicMessagesStrategy):
    def as_message(self, acc):
        message = super().as_message(acc)
        for block in message["content"]:
            if block.get("type") == "thinking":
                block["signature"] = ""
        return message


class ShowsThinking(ref.OllamaChatStrategy):
    """Returns the thinking pieces as display text, which content_text() rightly omits."""

    def accumulate(self, acc, chunk):
        delta = super().accumulate(acc, chunk)
        thinking = chunk.get("message", {}).get("thinking") if isinstance(chunk, dict) else None
        return delta + thinking if isinstance(thinking, str) else delta


class DoneOnItemDone(ref.OpenAIResponsesStrategy):
    def is_done(self, chunk):
        return super().is_done(chunk) or (
            isinstance(chunk, dict) and chunk.get("type") == "response.output_item.done")


class NewlineOnDone(ref.OpenAIChatStrategy):
    """Ends the display line when [DONE] arrives."""

    def accumulate(self, acc, chunk):
        delta = super().accumulate(acc, chunk)
        return "\n" if chunk == "[DONE]" else delta


class NoUsageInResponse(ref.OpenAIChatStrategy):
    def as_response(self, acc):
        body = super().as_response(acc)
        body.pop("usage", None)
        return body


class RefusesMessageStop(ref.AnthropicMessagesStrategy):
    def recognizes(self, shape):
        return super().recognizes(shape) and not (
            isinstance(shape, dict) and shape.get("type") == "message_stop")


class ClaimsAnyModel(ref.OllamaChatStrategy):
    """Takes any dict with a 'model' key for an Ollama body."""

    def recognizes(self, shape):
        return super().recognizes(shape) or (isinstance(shape, dict) and "model" in shape)


class ClaimsStrContent(ref.TextStrategy):
    """Claims every dict whose content is a str, tool_calls or not."""

    def recognizes(self, shape):
        return isinstance(shape, str) or (
            isinstance(shape, dict) and isinstance(shape.get("content"), str))


class ClaimsPlainText(ref.OpenAIChatStrategy):
    """Also claims assistant messages with str content and no tool_calls key."""

    def recognizes(self, shape):
        return super().recognizes(shape) or (
            isinstance(shape, dict) and shape.get("role") == "assistant"
            and isinstance(shape.get("content"), str))


class LosesEmptyArguments(ref.OpenAIChatStrategy):
    def extract(self, message):
        return [call for call in super().extract(message) if call.arguments]


class ReadsContentWhenNoCalls(ref.OpenAIChatStrategy):
    """Falls back to the JSON codec when tool_calls is null or empty."""

    def extract(self, message):
        calls = super().extract(message)
        content = message.get("content") if isinstance(message, dict) else None
        if not calls and isinstance(content, str):
            return ref.JsonCodec().decode(content)
        return calls


class DoesNotLeak(ref.AnthropicMessagesStrategy):
    leaks_into_text = False


class AnyJsonIsACall(ref.JsonCodec):
    """Takes any JSON object in the text for a call, named by its first key."""

    def decode(self, text):
        calls = list(super().decode(text))
        if calls:
            return calls
        decoder = json.JSONDecoder()
        for found in re.finditer(r"\{", text):
            try:
                value, _ = decoder.raw_decode(text, found.start())
            except ValueError:
                continue
            if isinstance(value, dict) and value:
                calls.append(ExtractedCall(next(iter(value)), value))
        return calls


class SkipsBadCalls(ref.OpenAIChatStrategy):
    def extract(self, message):
        return [call for call in super().extract(message) if call.error is None]


class NamesFirstCall(ref.OpenAIChatStrategy):
    def forming_name(self, message):
        calls = super().extract(message)
        return calls[0].name if calls else None

    def forming_name_of(self, acc):
        return self.forming_name(self.as_message(acc))


class ResultsWithoutIds(ref.OpenAIChatStrategy):
    def result_messages(self, message, records):
        history = super().result_messages(message, records)
        for item in history[1:]:
            item.pop("tool_call_id", None)
        return history


class ForgetsSignatureInHistory(ref.AnthropicMessagesStrategy):
    def result_messages(self, message, records):
        history = super().result_messages(message, records)
        for block in history[0]["content"]:
            if block.get("type") == "thinking":
                block.pop("signature", None)
        return history


class FlatRegexJson(ref.JsonCodec):
    """A hand-rolled decoder whose arguments pattern allows no nested braces."""

    _CALL = re.compile(r'\{"tool":\s*("(?:[^"\\]|\\.)*"),\s*"arguments":\s*(\{[^{}]*\})\}')

    def decode(self, text):
        return [call_from_json_text(json.loads(name), arguments)
                for name, arguments in self._CALL.findall(text)]


class DropsPartialTag(ref.TextStrategy):
    """Holds back a delta's trailing partial '<tool_call>' marker, and never restores it."""

    def accumulate(self, acc, chunk):
        if isinstance(chunk, str):
            marker = "<tool_call>"
            for size in range(len(marker) - 1, 0, -1):
                if chunk.endswith(marker[:size]):
                    chunk = chunk[:-size]
                    break
        return super().accumulate(acc, chunk)


class IndexesBlindly(ref.OllamaChatStrategy):
    def accumulate(self, acc, chunk):
        chunk["message"]  # noqa: B018 - the bug: no type check before indexing
        return super().accumulate(acc, chunk)


class StripsLogprobs(ref.OpenAIChatStrategy):
    """Removes null logprobs from the caller's chunk, in place."""

    def accumulate(self, acc, chunk):
        delta = super().accumulate(acc, chunk)
        if isinstance(chunk, dict):
            for choice in chunk.get("choices") or []:
                if isinstance(choice, dict) and choice.get("logprobs") is None:
                    choice.pop("logprobs", None)
        return delta


BROKEN = {
    "reassembly.round-trip": DropsThinkingSignature,
    "reassembly.prefix": ShowsThinking,
    "reassembly.done": DoneOnItemDone,
    "reassembly.trailing": NewlineOnDone,
    "reassembly.response": NoUsageInResponse,
    "reassembly.provider-error": SkipsErrorEvent,
    "resolve.own-wire": RefusesMessageStop,
    "resolve.foreign": ClaimsAnyModel,
    "resolve.text-never-native": lambda: ClaimsStrContent(ref.JsonCodec()),
    "resolve.reorder-invariant": ClaimsPlainText,
    "extract.calls": LosesEmptyArguments,
    "extract.false-positive-guard": ReadsContentWhenNoCalls,
    "extract.leak-fallthrough": DoesNotLeak,
    "extract.no-phantom": lambda: ref.TextStrategy(AnyJsonIsACall()),
    "extract.malformed": SkipsBadCalls,
    "extract.forming": NamesFirstCall,
    "extract.provider-run": RunsHostedItems,
    "extract.client-kinds": FunctionCallsOnly,
    "history.schema": ResultsWithoutIds,
    "history.lossless": ForgetsSignatureInHistory,
    "history.output-kinds": OutputsAllAsFunction,
    "codec.round-trip": lambda: ref.TextStrategy(FlatRegexJson()),
    "codec.split-markers": lambda: DropsPartialTag(ref.HermesCodec()),
    "robust.bad-input": IndexesBlindly,
    "robust.no-mutation": StripsLogprobs,
}


def test_every_clause_has_a_broken_strategy():
    assert sorted(BROKEN) == sorted(CATALOGUE)


@pytest.fixture
def unshrunk():
    settings.load_profile("mcs-dev-tests-found")
    yield
    settings.load_profile("mcs-dev-tests")


@pytest.mark.parametrize("clause_id", CATALOGUE)
def test_clause_catches_its_broken_strategy(clause_id, unshrunk):
    subject = subject_of(BROKEN[clause_id])
    item = CLAUSES[clause_id]
    assert item.applies(subject)
    with pytest.raises(ClauseFailure) as caught:
        item.check(subject)
    assert caught.value.clause_id == clause_id
    assert caught.value.case is not None
    assert str(caught.value).startswith(f"[{clause_id}] ")


def test_failure_reason_says_what_differed():
    subject = subject_of(LosesEmptyArguments)
    with pytest.raises(ClauseFailure) as caught:
        CLAUSES["extract.calls"].check(subject)
    reason = caught.value.reason
    assert "extract()" in reason and "expected" in reason
    case = caught.value.case
    assert any(call.arguments == {} for call in case.calls)  # shrunk to the bug's trigger


def test_a_strategy_that_raises_is_not_a_clause_failure(unshrunk):
    class Crashes(ref.OpenAIChatStrategy):
        def as_message(self, acc):
            raise RuntimeError("boom")

    with pytest.raises(RuntimeError, match="boom"):
        CLAUSES["reassembly.round-trip"].check(subject_of(Crashes))


def test_clauses_needing_format_knowledge_skip_a_foreign_wire():
    """A third party's native wire: the clauses built on the built-in formats do not apply."""
    base = subject_of(ref.OpenAIChatStrategy)
    foreign = Subject(strategy=base.strategy, target="x",
                      wire=replace(base.wire, name="acme-chat"), make=base.make)
    ids = {item.id for item in applicable(foreign)}
    assert "extract.malformed" not in ids and "history.lossless" not in ids
    assert "extract.no-phantom" not in ids
    assert {"reassembly.round-trip", "resolve.foreign", "robust.no-mutation"} <= ids
