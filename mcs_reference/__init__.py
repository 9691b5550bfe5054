"""mcs_reference: the reference implementation of streaming tool-call extraction.

Every stream is reassembled into the native shape its provider returns for `stream=false`;
one extraction strategy per format, one shared chain of them for the buffer and the driver.
"""
from __future__ import annotations

from importlib import import_module
from typing import Any

_HOMES = {
    "ExtractedCall": "calls",
    "ToolCallRecord": "calls",
    "StreamError": "errors",
    "ProviderError": "errors",
    "UnrecognisedStream": "errors",
    "EventOutOfOrder": "errors",
    "MalformedChunk": "errors",
    "ExtractionStrategy": "strategy",
    "OpenAIChatStrategy": "openai_chat",
    "OpenAIResponsesStrategy": "openai_responses",
    "AnthropicMessagesStrategy": "anthropic_messages",
    "OllamaChatStrategy": "ollama_chat",
    "GeminiStrategy": "gemini",
    "BedrockConverseStrategy": "bedrock_converse",
    "TextStrategy": "text",
    "JsonCodec": "text_codecs",
    "HermesCodec": "text_codecs",
    "FORMATS": "formats",
    "format_codec": "formats",
    "format_names": "formats",
    "ExtractionChain": "chain",
    "default_chain": "chain",
    "LLMStreamBuffer": "buffer",
    "decode_body": "sse",
    "iter_chunks": "sse",
    "END_OF_STREAM": "sse",
    "encode_event_frame": "eventstream",
    "encode_exception_frame": "eventstream",
    "encode_chunk_frame": "eventstream",
    "BaseDriver": "driver",
    "DriverResponse": "driver",
    "SupportsNativeTools": "capabilities",
    "SupportsStreaming": "capabilities",
    "DriverMeta": "capabilities",
}

__all__ = sorted(_HOMES)


def __getattr__(name: str) -> Any:
    """Import each public name from its module on first use (keeps `import` cheap)."""
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module 'mcs_reference' has no attribute {name!r}")
    value = getattr(import_module(f".{home}", __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return __all__
