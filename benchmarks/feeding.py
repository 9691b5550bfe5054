"""What a streaming client does with a benchmark stream: parse each chunk's text, add it.

Kept apart from run.py so that a process timing or counting these loops imports only the
reference (run.py also imports the kit, whose start-up varies from run to run).
"""
from __future__ import annotations

import json
from typing import Callable

from mcs_reference import BaseDriver, LLMStreamBuffer, default_chain

__all__ = ["feed", "loads_only", "reader"]


def feed(texts: list, *, driver: BaseDriver | None = None) -> LLMStreamBuffer:
    """What a streaming client does: parse each chunk, add it, optionally ask the driver.

    `texts` are JSON texts, or for Bedrock (event type, payload text) pairs: the chunk is
    then `{event type: payload}`, as boto3 and `sse.iter_chunks` yield it.
    """
    loads = json.loads
    buf = LLMStreamBuffer(default_chain())
    add = buf.add
    if driver is not None:
        read, process = reader(texts), driver.process_llm_response
        for text in texts:
            add(read(text))
            process(buf)
    elif texts and type(texts[0]) is tuple:  # loops written out: no call between the two
        for name, text in texts:
            add({name: loads(text)})
    else:
        for text in texts:
            add(loads(text))
    buf.close()
    return buf


def reader(texts: list) -> Callable[[object], object]:
    """The function that turns one of `texts` into its chunk."""
    if texts and type(texts[0]) is tuple:
        loads = json.loads
        return lambda pair: {pair[0]: loads(pair[1])}
    return json.loads


def loads_only(texts: list) -> None:
    """The floor: `json.loads` of each text (of each payload, for Bedrock)."""
    loads = json.loads
    if texts and type(texts[0]) is tuple:
        for _, text in texts:
            loads(text)
    else:
        for text in texts:
            loads(text)
