"""langchain-openai as its users stream: `ChatOpenAI.stream()`, the chunks summed with `+`,
the calls read from the summed `AIMessageChunk`'s `tool_calls` and `invalid_tool_calls`;
and as they call it without streaming (WHOLE): `.invoke()`, its `AIMessage` read the same way."""
from types import SimpleNamespace

from langchain_openai import ChatOpenAI

from _protocol import outcome, serve
from _langchain import PROMPT, summed_calls, summed_stream, with_tools

# `stream_usage=True` asks for the usage chunk; ChatOpenAI refuses `n` above 1 when streaming.
FEATURES = {"openai-chat": ["include_usage"]}


def model_of(base_url, request):
    return ChatOpenAI(model="gpt-4o", api_key="sk-mcs", base_url=base_url.rstrip("/") + "/v1",
                      max_retries=0, stream_usage=bool(request.get("include_usage")))


def message_outcome(message):
    """The summed chunk or invoke's `AIMessage` as an outcome, by one mapping: the calls in
    the order their chunks came (an `AIMessage` has no chunks: its `tool_calls`, then its
    `invalid_tool_calls`, as it lists them), and `.text`."""
    if not hasattr(message, "tool_call_chunks"):
        message = SimpleNamespace(tool_calls=message.tool_calls, text=message.text,
                                  invalid_tool_calls=message.invalid_tool_calls,
                                  tool_call_chunks=[])
    return outcome(summed_calls(message), message.text, None)


def run(base_url, wire, request):
    total = summed_stream(with_tools(model_of(base_url, request), request))
    if total is None:
        return outcome()
    return message_outcome(total)


def run_whole(base_url, wire, request):
    return message_outcome(with_tools(model_of(base_url, request), request).invoke(PROMPT))


# ChatOpenAI's docstring, "Invoke" and "Tool calling": `model_with_tools.invoke(...)`, then
# `ai_msg.tool_calls`.
WHOLE = {"openai-chat": run_whole}

if __name__ == "__main__":
    serve(__file__, run, FEATURES, WHOLE)
