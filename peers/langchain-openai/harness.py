"""langchain-openai as its users stream: `ChatOpenAI.stream()`, the chunks summed with `+`,
the calls read from the summed `AIMessageChunk`'s `tool_calls` and `invalid_tool_calls`;
and as they call it without streaming (WHOLE): `.invoke()`, its `AIMessage` read the same way."""
from types import SimpleNamespace

from langchain_openai import ChatOpenAI

from _protocol import outcome, serve
from _langchain import PROMPT, summed_calls, summed_stream, with_tools

# What ChatOpenAI's documented fields ask (its docstring's "Key init args", "Token usage",
# "Logprobs" and "`model_kwargs` vs `extra_body`"): include_usage: `stream_usage=True`
# (streamed only); max_tokens: `max_tokens=N` (sent as `max_completion_tokens`); logprobs:
# `logprobs=True`; web_search: `model_kwargs={"web_search_options": {}}` (model_kwargs is
# documented for "standard OpenAI API parameters not explicitly defined as class parameters").
# Left out: n (its validator refuses "n must be 1 when streaming", and the stream reads choice
# 0 only).
FEATURES = {"openai-chat": ["include_usage", "max_tokens", "logprobs", "web_search"]}


def model_of(base_url, request):
    return ChatOpenAI(model="gpt-4o", api_key="sk-mcs", base_url=base_url.rstrip("/") + "/v1",
                      max_retries=0, stream_usage=bool(request.get("include_usage")),
                      max_tokens=request.get("max_tokens"),
                      logprobs=True if request.get("logprobs") else None,
                      model_kwargs={"web_search_options": {}} if request.get("web_search") else {})


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
