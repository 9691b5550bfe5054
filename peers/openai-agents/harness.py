"""The OpenAI Agents SDK's `OpenAIChatCompletionsModel.stream_response()`: the Chat
Completions stream as the SDK turns it into Responses events, read up to the final
`response.completed` event's `Response`; and (WHOLE) the same model's non-streaming
`get_response()`, whose `ModelResponse.output` is read by the same mapping."""
import asyncio

from agents import (FunctionTool, ModelSettings, ModelTracing, OpenAIChatCompletionsModel,
                    set_tracing_disabled)
from openai import AsyncOpenAI

from _protocol import call, outcome, serve, tools_of

# What `ModelSettings` (agents/model_settings.py, its documented fields) asks of
# OpenAIChatCompletionsModel:
# include_usage: `include_usage=True` (streamed only: get_stream_options_param drops it
#   unstreamed); max_tokens: `max_tokens=N`; logprobs: `top_logprobs=0`, which the model
#   sends with `logprobs: true` (the Chat API requires it beside top_logprobs); web_search:
#   `extra_args={"web_search_options": {}}` ("Arbitrary keyword arguments to pass to the model
#   API call ... passed directly to the underlying model provider's API"; the model turns
#   the answer's url_citation annotations into output text annotations).
# Left out: n (no setting; its stream handler processes choice 0 only and warns that
#   multiple choices are "not fully supported").
FEATURES = {"openai-chat": ["include_usage", "max_tokens", "logprobs", "web_search"]}
PROMPT = "What is the weather in Paris?"


async def never_invoked(context, arguments):  # the harness reads calls, it runs none
    return ""


def function_tools(request):
    return [FunctionTool(name=name, description=description, params_json_schema=parameters,
                         on_invoke_tool=never_invoked, strict_json_schema=False)
            for name, description, parameters in tools_of(request)]

set_tracing_disabled(True)  # no trace export: the machine has no network


def model_of(client):
    return OpenAIChatCompletionsModel(model="gpt-4o", openai_client=client)


def model_arguments(request):
    """The keywords of one model request, streamed or not."""
    return {"system_instructions": None, "input": PROMPT,
            "model_settings": ModelSettings(
                include_usage=True if request.get("include_usage") else None,
                max_tokens=request.get("max_tokens"),
                top_logprobs=0 if request.get("logprobs") else None,
                extra_args={"web_search_options": {}} if request.get("web_search") else None),
            "tools": function_tools(request), "output_schema": None, "handoffs": [],
            "tracing": ModelTracing.DISABLED}


async def final_response(base_url, request):
    client = AsyncOpenAI(api_key="sk-mcs", base_url=base_url.rstrip("/") + "/v1", max_retries=0)
    final = None
    async for event in model_of(client).stream_response(**model_arguments(request)):
        if event.type == "response.completed":
            final = event.response
    await client.close()
    return final


async def whole_response(base_url, request):
    client = AsyncOpenAI(api_key="sk-mcs", base_url=base_url.rstrip("/") + "/v1", max_retries=0)
    response = await model_of(client).get_response(
        **model_arguments(request), previous_response_id=None, conversation_id=None, prompt=None)
    await client.close()
    return response


def output_outcome(output):
    """The output items (the streamed `Response`'s or the `ModelResponse`'s) as an outcome:
    the function calls, and the text as `Response.output_text` joins it."""
    calls = [call(item.name, item.arguments, item.call_id)
             for item in output if item.type == "function_call"]
    text = "".join(part.text for item in output if item.type == "message"
                   for part in item.content if part.type == "output_text" and part.text is not None)
    # Its output is the SDK's translation of a Chat answer: not the provider's message.
    return outcome(calls, text, None)


def run(base_url, wire, request):
    response = asyncio.run(final_response(base_url, request))
    if response is None:
        return outcome(error="harness: the stream ended without response.completed")
    return output_outcome(response.output)


def run_whole(base_url, wire, request):
    return output_outcome(asyncio.run(whole_response(base_url, request)).output)


# The `Model` interface (agents/models/interface.py; the docs' "Models" page, custom model
# providers) has `get_response`, "Get a response from the model", beside `stream_response`:
# `Runner.run` calls the first, `Runner.run_streamed` the second.
WHOLE = {"openai-chat": run_whole}

if __name__ == "__main__":
    serve(__file__, run, FEATURES, WHOLE)
