"""langchain-openai as its users stream: `ChatOpenAI.stream()`, the chunks summed with `+`,
the calls read from the summed `AIMessageChunk`'s `tool_calls` and `invalid_tool_calls`."""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from langchain_openai import ChatOpenAI  # noqa: E402

from _protocol import call, outcome, serve  # noqa: E402


def summed_calls(message):
    """Valid and invalid calls, in the order of the tool-call chunks they came from."""
    found = [(_index_of(message, tc), call(tc["name"], tc["args"], tc["id"]))
             for tc in [*message.tool_calls, *message.invalid_tool_calls]]
    return [c for _, c in sorted(found, key=lambda pair: pair[0])]


def _index_of(message, tool_call):
    for position, chunk in enumerate(message.tool_call_chunks):
        if chunk.get("id") == tool_call.get("id") and chunk.get("name") == tool_call.get("name"):
            return position
    return len(message.tool_call_chunks)


def text_of(message):
    return message.content if isinstance(message.content, str) else message.text


def run(base_url, wire):
    model = ChatOpenAI(model="gpt-4o", api_key="sk-mcs", base_url=base_url.rstrip("/") + "/v1",
                       max_retries=0)
    total = None
    for chunk in model.stream("What is the weather in Paris?"):
        total = chunk if total is None else total + chunk
    if total is None:
        return outcome()
    return outcome(summed_calls(total), text_of(total), None)


if __name__ == "__main__":
    serve(__file__, run)
