"""google-genai as its users stream with tools: `client.models.generate_content_stream()`
with `GenerateContentConfig(tools=[...])`, each chunk's `function_calls` and `text` collected
in order, and a failed answer (a blocked prompt, a finish reason such as SAFETY) reported as
the chunks tell it. The SDK has no stream aggregator, so there is no assembled message.
Not streamed: `client.models.generate_content()` with the same config, its one response read
as the stream's chunks are."""

from google import genai
from google.genai import types

from _protocol import call, outcome, serve, tools_of

PROMPT = "What is the weather in Paris?"
MODEL = "gemini-2.5-flash"

# Finish reasons of an answer that ended normally; any other one (SAFETY, RECITATION,
# MALFORMED_FUNCTION_CALL, ...) is how the SDK tells its user the answer failed.
NORMAL_FINISH = {"STOP", "MAX_TOKENS", "FINISH_REASON_UNSPECIFIED"}

# Every gemini feature is a documented field of `GenerateContentConfig` (types.py):
# include_thoughts: `thinking_config=ThinkingConfig(include_thoughts=True)`;
# stream_function_call_arguments: `tool_config=ToolConfig(function_calling_config=
# FunctionCallingConfig(stream_function_call_arguments=True))`, which the SDK refuses on the
# Gemini API (a ValueError before any request) and sends on Vertex AI only: asked through a
# Vertex AI client in express mode (`vertexai=True` with an API key) at the same base URL (the
# SDK hands each chunk's `FunctionCall`, its `partial_args`, to the user as it came; no helper
# joins them); max_tokens: `max_output_tokens=N`. None is left out.
FEATURES = {"gemini": ["include_thoughts", "stream_function_call_arguments", "max_tokens"]}


def stopped_by(chunk):
    """The answer's failure as a chunk reports it (a blocked prompt or a finish reason of a
    failed answer), or None."""
    blocked = chunk.prompt_feedback.block_reason if chunk.prompt_feedback else None
    if blocked:
        return f"promptFeedback.blockReason: {getattr(blocked, 'value', blocked)}"
    finish = chunk.candidates[0].finish_reason if chunk.candidates else None
    finish = getattr(finish, "value", finish)
    return f"finishReason: {finish}" if finish and finish not in NORMAL_FINISH else None


def client_and_config(base_url, request):
    """The client at `base_url` and the `GenerateContentConfig` asking what `request` says."""
    streamed_arguments = bool(request.get("stream_function_call_arguments"))
    client = genai.Client(api_key="mcs-key", vertexai=streamed_arguments,
                          http_options=types.HttpOptions(base_url=base_url))
    # `parameters_json_schema` takes the told JSON Schema as it is: the SDK's own `parameters`
    # (its Schema) refuses `additionalProperties` on the Gemini API.
    declarations = [types.FunctionDeclaration(name=name, description=description,
                                              parameters_json_schema=parameters)
                    for name, description, parameters in tools_of(request)]
    config = types.GenerateContentConfig(
        tools=[types.Tool(function_declarations=declarations)] if declarations else None,
        thinking_config=types.ThinkingConfig(include_thoughts=True)
        if request.get("include_thoughts") else None,
        max_output_tokens=request.get("max_tokens"),
        tool_config=types.ToolConfig(function_calling_config=types.FunctionCallingConfig(
            stream_function_call_arguments=True)) if streamed_arguments else None,
        # The SDK refuses streamed arguments with automatic function calling on.
        automatic_function_calling=types.AutomaticFunctionCallingConfig(disable=True)
        if streamed_arguments else None)
    return client, config


def outcome_of(responses):
    """The outcome of `GenerateContentResponse`s in order: the stream's chunks, or the one
    whole response."""
    calls, text, stopped = [], "", None
    for response in responses:
        # A call without `args` (a tool without parameters) is one with no arguments: {}.
        calls += [call(fc.name or "", {} if fc.args is None else fc.args, fc.id)
                  for fc in response.function_calls or ()]
        text += response.text or ""
        stopped = stopped_by(response) or stopped
    return outcome(calls, text, None, stopped)


def run(base_url, wire, request):
    client, config = client_and_config(base_url, request)
    return outcome_of(client.models.generate_content_stream(
        model=MODEL, contents=PROMPT, config=config))


def whole(base_url, wire, request):
    """The non-streamed answer: `client.models.generate_content()`, as the SDK's README shows
    it with declared functions ("Manually declare and invoke a function for function
    calling": `response.function_calls`)."""
    client, config = client_and_config(base_url, request)
    return outcome_of([client.models.generate_content(model=MODEL, contents=PROMPT,
                                                      config=config)])


if __name__ == "__main__":
    serve(__file__, run, FEATURES, {"gemini": whole})
