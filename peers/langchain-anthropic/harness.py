"""langchain-anthropic as its users stream: `ChatAnthropic.stream()`, the chunks summed with
`+`, the calls read from the summed `AIMessageChunk`'s `tool_calls` and
`invalid_tool_calls`."""

from langchain_anthropic import ChatAnthropic

from _protocol import outcome, serve
from _langchain import summed_calls, summed_stream, with_tools

# ChatAnthropic's own `thinking` and `betas` parameters.
FEATURES = {"anthropic-messages": ["thinking", "programmatic_tool_calling"]}


def run(base_url, wire, request):
    options = {}
    if "thinking" in request:
        options["thinking"] = {"type": "enabled", "budget_tokens": request["thinking"]["budget_tokens"]}
    if request.get("betas"):
        options["betas"] = request["betas"]
    model = ChatAnthropic(model="claude-sonnet-4-5", api_key="sk-mcs", max_tokens=4096,
                          base_url=base_url.rstrip("/"), max_retries=0, **options)
    total = summed_stream(with_tools(model, request))
    if total is None:
        return outcome()
    return outcome(summed_calls(total), total.text, None)


if __name__ == "__main__":
    serve(__file__, run, FEATURES)
