"""What the two LangChain harnesses share: the stream summed with `+` as LangChain's docs
show, and the summed chunk's calls in the order their chunks came."""
from _protocol import call, openai_tools

PROMPT = "What is the weather in Paris?"


def with_tools(model, request, native=()):
    """`model.bind_tools(...)` with the told tools (OpenAI's format, which every LangChain
    chat model takes), as LangChain's docs show, and `native`, provider tools as the
    provider writes them; the model itself when there are none."""
    tools = [*openai_tools(request), *native]
    return model.bind_tools(tools) if tools else model


def summed_stream(model, prompt=PROMPT):
    """`model.stream(prompt)` summed with `+`; None when it yields nothing."""
    total = None
    for chunk in model.stream(prompt):
        total = chunk if total is None else total + chunk
    return total


def _position(message, tool_call):
    chunks = getattr(message, "tool_call_chunks", ())  # an invoked AIMessage has none
    for position, chunk in enumerate(chunks):
        if chunk.get("id") == tool_call.get("id") and chunk.get("name") == tool_call.get("name"):
            return position
    return len(chunks)


def summed_calls(message):
    """`tool_calls` (parsed) and `invalid_tool_calls` (raw text), in chunk order; of an
    `AIMessage` from `.invoke()` (no chunks), in the message's own order."""
    found = [(_position(message, tc), call(tc["name"], tc["args"], tc["id"]))
             for tc in [*message.tool_calls, *message.invalid_tool_calls]]
    return [c for _, c in sorted(found, key=lambda pair: pair[0])]
