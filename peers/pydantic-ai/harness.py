"""Pydantic AI as its users stream one model request: `model_request_stream_sync` with its
OpenAI chat model, its Anthropic model, its Google model (`GoogleModel` with a
`GoogleProvider` given the base URL) or its Bedrock model (`BedrockConverseModel` with a
`BedrockProvider` given a boto3 client at the base URL), the events consumed, then the final
`ModelResponse` (`stream.response`). Not streamed, `model_request_sync` (its docstring, "Make a
Synchronous, non-streamed request to a model") with the same model, settings and tools, its
`ModelResponse` read the same way, on every wire."""

import boto3
from botocore.config import Config
from pydantic_ai import ModelRequest
from pydantic_ai.models import ModelRequestParameters
from pydantic_ai.tools import ToolDefinition
from pydantic_ai.direct import model_request_stream_sync, model_request_sync
from pydantic_ai.messages import TextPart, ToolCallPart
from pydantic_ai.models.anthropic import AnthropicModel
from pydantic_ai.models.bedrock import BedrockConverseModel
from pydantic_ai.models.google import GoogleModel
from pydantic_ai.models.openai import OpenAIChatModel
from pydantic_ai.providers.anthropic import AnthropicProvider
from pydantic_ai.providers.bedrock import BedrockProvider
from pydantic_ai.providers.google import GoogleProvider
from pydantic_ai.providers.openai import OpenAIProvider

from _protocol import call, outcome, serve, tools_of

# Pydantic AI's OpenAI chat model has no `n` setting and always asks for the usage chunk;
# its Anthropic model takes `anthropic_thinking`; its Google model `google_thinking_config`,
# and no setting asks `streamFunctionCallArguments` (it builds `toolConfig` itself).
# bedrock-converse has no request feature.
FEATURES = {"openai-chat": ["include_usage"], "anthropic-messages": ["thinking"],
            "gemini": ["include_thoughts"], "bedrock-converse": []}


def parameters_of(request):
    """The told tools as Pydantic AI's tool definitions."""
    tools = [ToolDefinition(name=name, description=description, parameters_json_schema=parameters)
             for name, description, parameters in tools_of(request)]
    return ModelRequestParameters(function_tools=tools)


def settings_of(wire, request):
    """The model settings, the same streamed or not. `max_retries` 0 turns the OpenAI and
    Anthropic clients' retries off (Google's client makes none; Bedrock's boto3 client is told).
    `max_tokens` set on Anthropic and Bedrock: without it Pydantic AI sends the model's maximum
    output and then streams a request it was asked not to stream ("streamed behind the
    scenes", anthropic/__init__.py `_default_max_tokens`, bedrock.py `request`)."""
    settings = {}
    if wire in ("openai-chat", "anthropic-messages"):
        settings["max_retries"] = 0
    if wire in ("anthropic-messages", "bedrock-converse"):
        settings["max_tokens"] = 4096
    if "thinking" in request:
        settings["anthropic_thinking"] = {"type": "enabled",
                                          "budget_tokens": request["thinking"]["budget_tokens"]}
    if request.get("include_thoughts"):
        settings["google_thinking_config"] = {"include_thoughts": True}
    return settings or None


def model_for(base_url, wire):
    if wire == "openai-chat":
        provider = OpenAIProvider(base_url=base_url.rstrip("/") + "/v1", api_key="sk-mcs")
        return OpenAIChatModel("gpt-4o", provider=provider)
    if wire == "gemini":  # google-genai calls `<base_url>/v1beta/models/<model>:streamGenerateContent`
        return GoogleModel("gemini-2.5-flash", provider=GoogleProvider(base_url=base_url, api_key="sk-mcs"))
    if wire == "bedrock-converse":
        # A boto3 client at the case's endpoint, its retries off (`total_max_attempts` 1: botocore
        # reads `max_attempts` as retries after the first); boto3 posts to
        # `<endpoint>/model/<id>/converse-stream`.
        client = boto3.client("bedrock-runtime", endpoint_url=base_url, region_name="us-east-1",
                              aws_access_key_id="x", aws_secret_access_key="x",
                              config=Config(retries={"total_max_attempts": 1, "mode": "standard"}))
        return BedrockConverseModel("us.anthropic.claude-sonnet-4-5-20250929-v1:0",
                                    provider=BedrockProvider(bedrock_client=client))
    provider = AnthropicProvider(base_url=base_url.rstrip("/"), api_key="sk-mcs")
    return AnthropicModel("claude-sonnet-4-5", provider=provider)


def arguments_of(part):
    """The arguments as Pydantic AI reads them (`args_as_dict`: no args is `{}`); its raw
    text when it cannot read them as an object."""
    try:
        return part.args_as_dict(raise_if_invalid=True)
    except (ValueError, AssertionError):
        return part.args


def arguments_for(base_url, wire, request):
    """The positional and keyword arguments of one model request, the same streamed or not."""
    messages = [ModelRequest.user_text_prompt("What is the weather in Paris?")]
    return (model_for(base_url, wire), messages), {
        "model_settings": settings_of(wire, request), "model_request_parameters": parameters_of(request)}


def run(base_url, wire, request):
    positional, keywords = arguments_for(base_url, wire, request)
    with model_request_stream_sync(*positional, **keywords) as stream:
        for _ in stream:
            pass
        response = stream.response
    return answer_of(response, wire)


def whole(base_url, wire, request):
    positional, keywords = arguments_for(base_url, wire, request)
    return answer_of(model_request_sync(*positional, **keywords), wire)


def answer_of(response, wire):
    """The outcome of a `ModelResponse`, the stream's final one or the non-streamed one."""
    calls = [call(part.tool_name, arguments_of(part), part.tool_call_id)
             for part in response.parts if isinstance(part, ToolCallPart)]
    text = "".join(part.content for part in response.parts if isinstance(part, TextPart))
    # On gemini and bedrock-converse, a failed answer (a refusal, a blocked prompt,
    # MALFORMED_FUNCTION_CALL; Converse's guardrail_intervened, content_filtered,
    # malformed_tool_use) is told by `response.finish_reason` 'content_filter' or 'error',
    # raising nothing: its error report (an Agent would raise ContentFilterError on an empty
    # refused answer).
    failed = (wire in ("gemini", "bedrock-converse")
              and response.finish_reason in ("content_filter", "error"))
    stopped = f"finish_reason: {response.finish_reason}" if failed else None
    return outcome(calls, text, None, stopped)  # a ModelResponse is not the provider's message


if __name__ == "__main__":
    serve(__file__, run, FEATURES, dict.fromkeys(FEATURES, whole))
