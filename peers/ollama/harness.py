"""The ollama Python client as its docs stream a tool-calling chat: `chat(stream=True)`,
the content pieces joined and the tool calls of every chunk collected. Not streamed:
`chat(stream=False)`, its one `ChatResponse` read as a chunk is."""

import ollama

from _protocol import call, openai_tools, outcome, serve

# Both are documented parameters of `Client.chat()`: think: `think=True` ("Enable thinking
# mode (for thinking models)", ChatRequest.think); max_tokens: `options={"num_predict": N}`
# (the `Options` fields, sent as `options.num_predict`). None is left out.
FEATURES = {"ollama-chat": ["think", "max_tokens"]}


def chat(base_url, request, stream):
    """`Client(host=...).chat(...)` with the told tools and what `request` asks: a
    `ChatResponse` generator when `stream`, else one `ChatResponse`."""
    client = ollama.Client(host=base_url.rstrip("/"))
    return client.chat(model="llama3.2", stream=stream, messages=[
        {"role": "user", "content": "What is the weather in Paris?"}],
        tools=openai_tools(request) or None, think=True if request.get("think") else None,
        options={"num_predict": request["max_tokens"]} if "max_tokens" in request else None)


def outcome_of(responses):
    """The outcome of `ChatResponse`s in order: the stream's chunks, or the one whole answer."""
    content, tool_calls = "", []
    for response in responses:
        if response.message.content:
            content += response.message.content
        if response.message.tool_calls:
            tool_calls.extend(response.message.tool_calls)
    calls = [call(tc.function.name, tc.function.arguments, getattr(tc, "id", None))
             for tc in tool_calls]
    return outcome(calls, content, None)


def run(base_url, wire, request):
    return outcome_of(chat(base_url, request, stream=True))


def whole(base_url, wire, request):
    """The non-streamed answer: `chat()` with `stream=False`, the README's "Usage" call
    (`response.message`), the client's default."""
    return outcome_of([chat(base_url, request, stream=False)])


if __name__ == "__main__":
    serve(__file__, run, FEATURES, {"ollama-chat": whole})
