"""langchain-aws as its users stream: `ChatBedrockConverse(...).bind_tools(...)` then
`.stream()`, the chunks summed with `+`, the calls read from the summed `AIMessageChunk`'s
`tool_calls` and `invalid_tool_calls`, a failed answer (a stop reason of a failed answer)
from its `response_metadata`. Not streamed, `.invoke()` on the same bound model (Converse's
`converse`), the `AIMessage` it returns read the same way. The model is pointed at the case
as at a custom endpoint (`base_url`, its alias of `endpoint_url`) with dummy keys; the
message is LangChain's, not a Converse response, so there is no native message."""

from langchain_aws import ChatBedrockConverse

from _protocol import outcome, serve
from _langchain import PROMPT, summed_calls, summed_stream, with_tools

MODEL = "anthropic.claude-3-5-sonnet-20240620-v1:0"

# Stop reasons of `StopReason` (botocore's bedrock-runtime model) that say the answer failed.
FAILED_STOP = {"guardrail_intervened", "content_filtered", "malformed_model_output",
               "malformed_tool_use"}

# What `ChatBedrockConverse`'s documented fields ask, the same for `.stream()` and `.invoke()`:
# max_tokens: `max_tokens=N` ("Max tokens to generate"; sent as `inferenceConfig.maxTokens`);
# reasoning: `additional_model_request_fields={"thinking": {"type": "enabled",
#   "budget_tokens": N}}`, as its docstring's "Extended thinking" example writes it.
# No feature of the wire is left out.
FEATURES = {"bedrock-converse": ["max_tokens", "reasoning"]}


def stopped_by(message):
    """The answer's failure as the message's `response_metadata` tells it (the `stopReason`
    of `messageStop`, or of the Converse response), or None."""
    stop = message.response_metadata.get("stopReason")
    return f"stopReason: {stop}" if stop in FAILED_STOP else None


def model_of(base_url, request):
    """`ChatBedrockConverse` at the case's endpoint with the told tools bound and the told
    token limit and thinking budget (`FEATURES`), the same streamed or not."""
    options = {}
    if "max_tokens" in request:
        options["max_tokens"] = request["max_tokens"]
    if "reasoning" in request:
        options["additional_model_request_fields"] = {"thinking": {
            "type": "enabled", "budget_tokens": request["reasoning"]["budget_tokens"]}}
    # `max_retries=0` is botocore's `retries.max_attempts` 0: one attempt, no retry.
    model = ChatBedrockConverse(model=MODEL, region_name="us-east-1", base_url=base_url,
                                aws_access_key_id="mcs", aws_secret_access_key="mcs",
                                max_retries=0, **options)
    return with_tools(model, request)


def answer_of(message):
    """The outcome of a summed `AIMessageChunk` or an `AIMessage`."""
    if message is None:
        return outcome()
    return outcome(summed_calls(message), message.text, None, stopped_by(message))


def run(base_url, wire, request):
    return answer_of(summed_stream(model_of(base_url, request)))


def whole(base_url, wire, request):
    """`.invoke()`, as ChatBedrockConverse's docstring shows it ("Invoke", and "Tool calling":
    `model.bind_tools([...]).invoke(...)`); its `_generate` calls boto3's `converse`."""
    return answer_of(model_of(base_url, request).invoke(PROMPT))


if __name__ == "__main__":
    serve(__file__, run, FEATURES, {"bedrock-converse": whole})
