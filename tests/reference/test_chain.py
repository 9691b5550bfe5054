"""ExtractionChain: first match wins, reorder-on-match is only an optimisation."""
import pytest

from mcs_reference import (
    AnthropicMessagesStrategy, ExtractionChain, GeminiStrategy, HermesCodec, OllamaChatStrategy,
    OpenAIChatStrategy, OpenAIResponsesStrategy, TextStrategy, default_chain,
)

ANTHROPIC_EVENT = {"type": "message_start", "message": {"id": "m", "type": "message", "role": "assistant",
                                                         "model": "x", "content": [], "usage": {}}}
OPENAI_MESSAGE = {"role": "assistant", "content": None, "tool_calls": []}


def test_default_chain_order():
    names = [s.name for s in default_chain()]
    assert names == ["openai-chat", "openai-responses", "anthropic-messages", "ollama-chat", "gemini",
                     "bedrock-converse", "text-json"]


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
    assert repr(chain).startswith("ExtractionChain([openai-chat") and len(chain) == 7


# Shapes as the servers send them (trimmed): records and bodies of each wire.
USAGE = {"promptTokenCount": 29, "candidatesTokenCount": 15, "totalTokenCount": 44}
GEMINI_SHAPES = [
    {"candidates": [{"content": {"parts": [{"functionCall": {"name": "weather", "args": {
        "location": "Paris"}}, "thoughtSignature": "EqUCCqIC"}], "role": "model"}, "index": 0}],
     "usageMetadata": USAGE, "modelVersion": "gemini-3-pro-preview", "responseId": "b36L"},
    {"candidates": [{"content": {"parts": [{"text": ""}], "role": "model"}, "finishReason": "STOP",
                     "index": 0}], "usageMetadata": USAGE, "modelVersion": "gemini-3-pro-preview"},
    {"candidates": [{"content": {"role": "model", "parts": [{"functionCall": {"partialArgs": [
        {"jsonPath": "$.location", "stringValue": "Boston", "willContinue": True}],
        "willContinue": True}}]}}], "usageMetadata": {"trafficType": "ON_DEMAND"},
     "modelVersion": "gemini-3.1-pro-preview", "createTime": "2026-04-02T17:03:50.399550Z"},
    {"candidates": [{"content": {"role": "model"}, "finishReason": "MAX_TOKENS", "index": 0}],
     "modelVersion": "gemini-2.5-pro", "usageMetadata": USAGE},
    {"usageMetadata": USAGE, "modelVersion": "gemini-2.5-flash", "responseId": "r"},
    {"promptFeedback": {"blockReason": "SAFETY"}, "usageMetadata": USAGE},
]
OTHER_SHAPES = {
    "openai-chat": [
        {"id": "c", "object": "chat.completion.chunk", "created": 1, "model": "gpt-4o",
         "choices": [{"index": 0, "delta": {"content": "hi"}, "finish_reason": None}]},
        {"id": "c", "object": "chat.completion", "created": 1, "model": "gpt-4o",
         "choices": [{"index": 0, "message": {"role": "assistant", "content": "hi"},
                      "finish_reason": "stop"}], "usage": {"total_tokens": 3}},
        {"role": "assistant", "content": None, "tool_calls": []},
    ],
    "openai-responses": [
        {"type": "response.output_text.delta", "item_id": "msg_1", "output_index": 0,
         "content_index": 0, "delta": "hi", "sequence_number": 4},
        {"id": "resp_1", "object": "response", "status": "completed", "output": [],
         "usage": {"input_tokens": 3}},
    ],
    "anthropic-messages": [
        ANTHROPIC_EVENT,
        {"type": "message_delta", "delta": {"stop_reason": "tool_use"}, "usage": {"output_tokens": 9}},
        {"id": "msg_1", "type": "message", "role": "assistant", "model": "claude",
         "content": [{"type": "text", "text": "hi"}], "usage": {"input_tokens": 3}},
    ],
    "ollama-chat": [
        {"model": "llama3.2", "created_at": "t", "message": {"role": "assistant", "content": "hi"},
         "done": False},
        {"model": "llama3.2", "created_at": "t", "message": {"role": "assistant", "content": ""},
         "done": True, "done_reason": "stop", "eval_count": 7},
    ],
    "text-json": [{"role": "assistant", "content": "plain text"}, "plain text"],
}
STRATEGIES = [OpenAIChatStrategy(), OpenAIResponsesStrategy(), AnthropicMessagesStrategy(),
              OllamaChatStrategy(), TextStrategy(), TextStrategy(HermesCodec())]


@pytest.mark.parametrize("shape", GEMINI_SHAPES)
def test_a_gemini_shape_is_claimed_by_gemini_only(shape):
    assert GeminiStrategy().recognizes(shape)
    assert [s.name for s in STRATEGIES if s.recognizes(shape)] == []
    assert default_chain().resolve(shape).name == "gemini"


@pytest.mark.parametrize("wire, shape", [(wire, shape) for wire, shapes in OTHER_SHAPES.items()
                                         for shape in shapes])
def test_gemini_claims_no_other_wires_shape(wire, shape):
    assert GeminiStrategy().recognizes(shape) is False
    assert default_chain().resolve(shape).name == wire


def test_the_text_strategy_refuses_a_gemini_shape_even_with_string_content():
    for key in ("candidates", "usageMetadata", "promptFeedback"):
        shape = {"content": "text", key: [] if key == "candidates" else {}}
        assert TextStrategy().recognizes(shape) is False
        assert default_chain().resolve(shape).name == "gemini"
