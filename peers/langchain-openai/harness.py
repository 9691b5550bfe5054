"""langchain-openai as its users stream: `ChatOpenAI.stream()`, the chunks summed with `+`,
the calls read from the summed `AIMessageChunk`'s `tool_calls` and `invalid_tool_calls`."""

from langchain_openai import ChatOpenAI

from _protocol import outcome, serve
from _langchain import summed_calls, summed_stream, with_tools

# `stream_usage=True` asks for the usage chunk; ChatOpenAI refuses `n` above 1 when streaming.
FEATURES = {"openai-chat": ["include_usage"]}


def run(base_url, wire, request):
    model = ChatOpenAI(model="gpt-4o", api_key="sk-mcs", base_url=base_url.rstrip("/") + "/v1",
                       max_retries=0, stream_usage=bool(request.get("include_usage")))
    total = summed_stream(with_tools(model, request))
    if total is None:
        return outcome()
    return outcome(summed_calls(total), total.text, None)


if __name__ == "__main__":
    serve(__file__, run, FEATURES)
