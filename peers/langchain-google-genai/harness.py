"""langchain-google-genai as its users stream: `ChatGoogleGenerativeAI(...).bind_tools(...)`
then `.stream()`, the chunks summed with `+`, the calls read from the summed
`AIMessageChunk`'s `tool_calls` and `invalid_tool_calls`, a failed answer (a blocked prompt, a
finish reason such as SAFETY) from its `response_metadata`. Not streamed: `.invoke()` on the
same bound model, its `AIMessage` read the same way."""

from langchain_google_genai import ChatGoogleGenerativeAI

from _protocol import openai_tools, outcome, serve
from _langchain import PROMPT, summed_calls, summed_stream

# What ChatGoogleGenerativeAI's documented fields ask: include_thoughts: `include_thoughts=
# True` on the model; stream_function_call_arguments: `bind_tools(..., tool_config=...)` with
# `stream_function_call_arguments`, which Gemini takes on Vertex AI only: there the model is
# `vertexai=True` with an API key (express mode), as langchain-google-genai's own test of
# the option streams it; max_tokens: `max_tokens=N` (the alias of `max_output_tokens`, sent
# as `generationConfig.maxOutputTokens`). None is left out.
FEATURES = {"gemini": ["include_thoughts", "stream_function_call_arguments", "max_tokens"]}

# Finish reasons of an answer that ended normally; any other one (SAFETY, RECITATION,
# MALFORMED_FUNCTION_CALL, ...) is how the model tells its user the answer failed.
NORMAL_FINISH = {"STOP", "MAX_TOKENS", "FINISH_REASON_UNSPECIFIED"}


def stopped_by(message):
    """The answer's failure as the summed message's `response_metadata` tells it (a blocked
    prompt's `prompt_feedback`, a failed answer's `finish_reason`), or None."""
    blocked = (message.response_metadata.get("prompt_feedback") or {}).get("block_reason")
    if blocked:
        return f"promptFeedback.blockReason: {getattr(blocked, 'value', blocked)}"
    finish = message.response_metadata.get("finish_reason")
    return f"finishReason: {finish}" if finish and finish not in NORMAL_FINISH else None


def bound_model(base_url, request):
    """The model at `base_url` with the told tools bound, asking what `request` says."""
    streamed_arguments = bool(request.get("stream_function_call_arguments"))
    # `max_retries=1` is one attempt (its docs: 0 would mean the SDK's default retries).
    model = ChatGoogleGenerativeAI(
        model="gemini-2.5-flash", api_key="mcs-key", base_url=base_url,
        vertexai=streamed_arguments, max_retries=1, max_tokens=request.get("max_tokens"),
        include_thoughts=True if request.get("include_thoughts") else None)
    options = {}
    if streamed_arguments:
        options["tool_config"] = {
            "function_calling_config": {"stream_function_call_arguments": True}}
    tools = openai_tools(request)
    # `tool_config` goes through `bind_tools`, even with no tool to declare.
    return model.bind_tools(tools, **options) if tools or options else model


def outcome_of(message):
    """The outcome of the summed `AIMessageChunk` or the invoked `AIMessage`."""
    return outcome(summed_calls(message), message.text, None, stopped_by(message))


def run(base_url, wire, request):
    total = summed_stream(bound_model(base_url, request))
    return outcome() if total is None else outcome_of(total)


def whole(base_url, wire, request):
    """The non-streamed answer: `.invoke()`, as the class docstring's "Tool calling"
    example reads `llm_with_tools.invoke(...).tool_calls`."""
    return outcome_of(bound_model(base_url, request).invoke(PROMPT))


if __name__ == "__main__":
    serve(__file__, run, FEATURES, {"gemini": whole})
