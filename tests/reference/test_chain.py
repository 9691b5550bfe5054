"""ExtractionChain: first match wins, reorder-on-match is only an optimisation."""
import pytest

from mcs_reference import (
    AnthropicMessagesStrategy, ExtractionChain, OpenAIChatStrategy, TextStrategy, default_chain,
)

ANTHROPIC_EVENT = {"type": "message_start", "message": {"id": "m", "type": "message", "role": "assistant",
                                                         "model": "x", "content": [], "usage": {}}}
OPENAI_MESSAGE = {"role": "assistant", "content": None, "tool_calls": []}


def test_default_chain_order():
    names = [s.name for s in default_chain()]
    assert names == ["openai-chat", "openai-responses", "anthropic-messages", "ollama-chat", "text-json"]


def test_reorder_moves_the_match_to_the_front_and_results_do_not_change():
    moving = ExtractionChain([OpenAIChatStrategy(), AnthropicMessagesStrategy(), TextStrategy()])
    fixed = ExtractionChain(list(moving), reorder=False)
    for shape in [ANTHROPIC_EVENT, "text", OPENAI_MESSAGE, ANTHROPIC_EVENT, {"content": "x"}]:
        assert moving.resolve(shape).name == fixed.resolve(shape).name
    assert moving.strategies[0].name == "text-json"
    assert [s.name for s in fixed] == ["openai-chat", "anthropic-messages", "text-json"]


def test_no_match_is_none_and_empty_chain_is_refused():
    assert default_chain().resolve(12) is None
    with pytest.raises(ValueError, match="at least one"):
        ExtractionChain([])


def test_text_strategies_and_repr():
    chain = default_chain()
    assert [s.name for s in chain.text_strategies()] == ["text-json"]
    assert repr(chain).startswith("ExtractionChain([openai-chat") and len(chain) == 5
