"""The catalogue of model-output formats: how each model family writes tool calls as text.

An inference engine's tool parser reads one of these formats out of the model's raw output;
each has a reference codec here (`decode`, `encode`, `content`, `peek_name`,
`encode_results`, and what the kit needs to draw texts: `special_tokens`, `prose_between`,
`prose_after`, `source`). docs/formats.md documents each with its source.
"""
from __future__ import annotations

from typing import Any, Callable

from .formats_harmony import HarmonyCodec
from .formats_json_calls import Llama3JsonCodec, MistralCodec, MistralV11Codec, PythonicCodec
from .formats_markup import Glm45Codec, Qwen3CoderCodec
from .formats_special import DeepSeekV31Codec, DeepSeekV3Codec, KimiK2Codec
from .text_codecs import HermesCodec, JsonCodec

__all__ = ["FORMATS", "format_codec", "format_names"]

FORMATS: dict[str, Callable[[], Any]] = {
    "json": JsonCodec,
    "hermes": HermesCodec,
    "qwen3-coder": Qwen3CoderCodec,
    "mistral": MistralCodec,
    "mistral-v11": MistralV11Codec,
    "llama3-json": Llama3JsonCodec,
    # Llama 3.1 / 3.2 may open the JSON with <|python_tag|> (the model cards' form).
    "llama3-json-python-tag": lambda: Llama3JsonCodec(python_tag=True),
    "pythonic": PythonicCodec,
    "deepseek-v3": DeepSeekV3Codec,
    "deepseek-v3.1": DeepSeekV31Codec,
    "kimi-k2": KimiK2Codec,
    "glm-4.5": Glm45Codec,
    "harmony": HarmonyCodec,
}


def format_names() -> list[str]:
    """The catalogue's format names, in catalogue order."""
    return list(FORMATS)


def format_codec(name: str) -> Any:
    """A fresh reference codec of the format `name`; LookupError names the known ones."""
    try:
        return FORMATS[name]()
    except KeyError:
        raise LookupError(f"{name}: unknown format; known formats: "
                          f"{', '.join(FORMATS)}") from None
