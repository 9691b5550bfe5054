"""`ExtractionChain`: the one ordered list of strategies shared by the buffer and the driver.

`default_chain()` builds the chain of the built-in strategies; the chain sits above them
(it imports every strategy) and below the buffer and the driver (they import it).
"""
from __future__ import annotations

from typing import Any, Iterable

from .anthropic_messages import AnthropicMessagesStrategy
from .bedrock_converse import BedrockConverseStrategy
from .gemini import GeminiStrategy
from .ollama_chat import OllamaChatStrategy
from .openai_chat import OpenAIChatStrategy
from .openai_responses import OpenAIResponsesStrategy
from .text import JsonCodec, TextStrategy

__all__ = ["ExtractionChain", "default_chain"]


class ExtractionChain:
    """Resolve a shape to the first strategy that recognizes it.

    With `reorder=True` the strategy that matched moves to the front, so a session that keeps
    seeing one format resolves it in one test. It is only an optimisation: native strategies
    recognize disjoint shapes and text strategies refuse native ones, so the answer for a
    shape never depends on the order (the kit's `resolve.reorder-invariant` clause checks it).
    """

    def __init__(self, strategies: Iterable[Any], *, reorder: bool = True):
        self._strategies = list(strategies)
        if not self._strategies:
            raise ValueError("ExtractionChain needs at least one extraction strategy")
        self.reorder = reorder

    @property
    def strategies(self) -> tuple:
        """The strategies in their current order."""
        return tuple(self._strategies)

    def resolve(self, shape: Any) -> Any | None:
        """The first strategy that recognizes `shape`, or None."""
        for position, strategy in enumerate(self._strategies):
            if strategy.recognizes(shape):
                if self.reorder and position:
                    del self._strategies[position]
                    self._strategies.insert(0, strategy)
                return strategy
        return None

    def text_strategies(self) -> list:
        """Strategies that read calls written as text (they carry a `codec`)."""
        return [s for s in self._strategies if getattr(s, "codec", None) is not None]

    def __iter__(self):
        return iter(list(self._strategies))

    def __len__(self) -> int:
        return len(self._strategies)

    def __repr__(self) -> str:
        names = ", ".join(getattr(s, "name", type(s).__name__) for s in self._strategies)
        return f"ExtractionChain([{names}], reorder={self.reorder})"


def default_chain() -> ExtractionChain:
    """OpenAI Chat, Responses, Anthropic, Ollama, Gemini, Bedrock Converse, then the JSON text
    strategy."""
    return ExtractionChain([
        OpenAIChatStrategy(),
        OpenAIResponsesStrategy(),
        AnthropicMessagesStrategy(),
        OllamaChatStrategy(),
        GeminiStrategy(),
        BedrockConverseStrategy(),
        TextStrategy(JsonCodec()),
    ])
