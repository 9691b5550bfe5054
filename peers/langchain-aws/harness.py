"""langchain-aws as its users stream: `ChatBedrockConverse(...).bind_tools(...)` then
`.stream()`, the chunks summed with `+`, the calls read from the summed `AIMessageChunk`'s
`tool_calls` and `invalid_tool_calls`, a failed answer (a stop reason of a failed answer)
from its `response_metadata`. The model is pointed at the case as at a custom endpoint
(`base_url`, its alias of `endpoint_url`) with dummy keys; the summed chunk is LangChain's
message, not a Converse response, so there is no native message."""

from langchain_aws import ChatBedrockConverse

from _protocol import openai_tools, outcome, serve
from _langchain import summed_calls, summed_stream

MODEL = "anthropic.claude-3-5-sonnet-20240620-v1:0"

# Stop reasons of `StopReason` (botocore's bedrock-runtime model) that say the answer failed.
FAILED_STOP = {"guardrail_intervened", "content_filtered", "malformed_model_output",
               "malformed_tool_use"}

# Converse has no request feature the kit asks for.
FEATURES = {"bedrock-converse": []}


def stopped_by(message):
    """The answer's failure as the summed message's `response_metadata` tells it (the
    `stopReason` of `messageStop`), or None."""
    stop = message.response_metadata.get("stopReason")
    return f"stopReason: {stop}" if stop in FAILED_STOP else None


def run(base_url, wire, request):
    # `max_retries=0` is botocore's `retries.max_attempts` 0: one attempt, no retry.
    model = ChatBedrockConverse(model=MODEL, region_name="us-east-1", base_url=base_url,
                                aws_access_key_id="mcs", aws_secret_access_key="mcs",
                                max_retries=0)
    tools = openai_tools(request)
    total = summed_stream(model.bind_tools(tools) if tools else model)
    if total is None:
        return outcome()
    return outcome(summed_calls(total), total.text, None, stopped_by(total))


if __name__ == "__main__":
    serve(__file__, run, FEATURES)
