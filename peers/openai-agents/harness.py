"""The OpenAI Agents SDK's `OpenAIChatCompletionsModel.stream_response()`: the Chat
Completions stream as the SDK turns it into Responses events, read up to the final
`response.completed` event's `Response`."""
import asyncio

from agents import (FunctionTool, ModelSettings, ModelTracing, OpenAIChatCompletionsModel,
                    set_tracing_disabled)
from openai import AsyncOpenAI

from _protocol import call, outcome, serve, tools_of

# `ModelSettings(include_usage=True)` asks for the usage chunk; the SDK has no `n`.
FEATURES = {"openai-chat": ["include_usage"]}


async def never_invoked(context, arguments):  # the harness reads calls, it runs none
    return ""


def function_tools(request):
    return [FunctionTool(name=name, description=description, params_json_schema=parameters,
                         on_invoke_tool=never_invoked, strict_json_schema=False)
            for name, description, parameters in tools_of(request)]

set_tracing_disabled(True)  # no trace export: the machine has no network


async def final_response(base_url, request):
    client = AsyncOpenAI(api_key="sk-mcs", base_url=base_url.rstrip("/") + "/v1", max_retries=0)
    model = OpenAIChatCompletionsModel(model="gpt-4o", openai_client=client)
    final = None
    async for event in model.stream_response(
            system_instructions=None, input="What is the weather in Paris?",
            model_settings=ModelSettings(include_usage=True if request.get("include_usage") else None),
            tools=function_tools(request), output_schema=None, handoffs=[],
            tracing=ModelTracing.DISABLED):
        if event.type == "response.completed":
            final = event.response
    await client.close()
    return final


def run(base_url, wire, request):
    response = asyncio.run(final_response(base_url, request))
    if response is None:
        return outcome(error="harness: the stream ended without response.completed")
    calls = [call(item.name, item.arguments, item.call_id)
             for item in response.output if item.type == "function_call"]
    # Its Response is the SDK's translation of a Chat stream: not the provider's message.
    return outcome(calls, response.output_text, None)


if __name__ == "__main__":
    serve(__file__, run, FEATURES)
