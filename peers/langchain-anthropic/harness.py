"""langchain-anthropic as its users stream: `ChatAnthropic.stream()`, the chunks summed with
`+`, the calls read from the summed `AIMessageChunk`'s `tool_calls` and
`invalid_tool_calls`; not streamed, `.invoke()` (as `bind_tools`'s docstring shows), the
same reading of the `AIMessage` it returns."""

from langchain_anthropic import ChatAnthropic

from _protocol import outcome, serve
from _langchain import PROMPT, summed_calls, summed_stream, with_tools

# ChatAnthropic's own `thinking` and `betas` parameters.
FEATURES = {"anthropic-messages": ["thinking", "programmatic_tool_calling"]}


def model_of(base_url, request):
    """`ChatAnthropic` with the told tools bound and its options, the same streamed or not."""
    options = {}
    if "thinking" in request:
        options["thinking"] = {"type": "enabled", "budget_tokens": request["thinking"]["budget_tokens"]}
    if request.get("betas"):
        options["betas"] = request["betas"]
    model = ChatAnthropic(model="claude-sonnet-4-5", api_key="sk-mcs", max_tokens=4096,
                          base_url=base_url.rstrip("/"), max_retries=0, **options)
    return with_tools(model, request)


def answer_of(message):
    """The calls and text of a summed `AIMessageChunk` or an `AIMessage`; no native message."""
    if message is None:
        return outcome()
    return outcome(summed_calls(message), message.text, None)


def run(base_url, wire, request):
    return answer_of(summed_stream(model_of(base_url, request)))


def whole(base_url, wire, request):
    return answer_of(model_of(base_url, request).invoke(PROMPT))


if __name__ == "__main__":
    serve(__file__, run, FEATURES, {"anthropic-messages": whole})
