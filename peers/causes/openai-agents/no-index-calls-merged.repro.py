"""Two tool calls streamed without `index` (Mistral's streams) come out of the Agents SDK's
OpenAIChatCompletionsModel.stream_response() as one call with concatenated arguments.

openai-agents==0.24.0. Exit 1 while the bug is there."""
import asyncio
import http.server
import sys
import threading

from agents import (FunctionTool, ModelSettings, ModelTracing, OpenAIChatCompletionsModel,
                    set_tracing_disabled)
from openai import AsyncOpenAI

BODY = (
    b'data: {"id":"chatcmpl-00000000000000000000000000000","object":"chat.completion.chunk","created":1700000000,"model":"gpt-4o-2024-08-06","choices":[{"index":0,"delta":{"role":"assistant","content":null},"logprobs":null,"finish_reason":null}]}\n\n'
    b'data: {"id":"chatcmpl-00000000000000000000000000000","object":"chat.completion.chunk","created":1700000000,"model":"gpt-4o-2024-08-06","choices":[{"index":0,"delta":{"tool_calls":[{"id":"call_000000000000000000000000","type":"function","function":{"name":"get_weather","arguments":"{}"}}]},"logprobs":null,"finish_reason":null}]}\n\n'
    b'data: {"id":"chatcmpl-00000000000000000000000000000","object":"chat.completion.chunk","created":1700000000,"model":"gpt-4o-2024-08-06","choices":[{"index":0,"delta":{"tool_calls":[{"id":"call_000000000000000000000001","type":"function","function":{"name":"get_weather","arguments":"{}"}}]},"logprobs":null,"finish_reason":null}]}\n\n'
    b'data: {"id":"chatcmpl-00000000000000000000000000000","object":"chat.completion.chunk","created":1700000000,"model":"gpt-4o-2024-08-06","choices":[{"index":0,"delta":{},"logprobs":null,"finish_reason":"tool_calls"}]}\n\n'
    b'data: [DONE]\n\n'
)


class Handler(http.server.BaseHTTPRequestHandler):
    def do_POST(self):  # the saved answer, then a clean end of the body
        self.rfile.read(int(self.headers["content-length"]))
        self.send_response(200)
        self.send_header("content-type", "text/event-stream")
        self.end_headers()
        self.wfile.write(BODY)

    def log_message(self, *args):
        pass


server = http.server.HTTPServer(("127.0.0.1", 0), Handler)
threading.Thread(target=server.serve_forever, daemon=True).start()
set_tracing_disabled(True)
client = AsyncOpenAI(api_key="sk-test", base_url=f"http://127.0.0.1:{server.server_port}/v1",
                     max_retries=0)
async def stream_calls():
    model = OpenAIChatCompletionsModel(model="mistral-large-latest", openai_client=client)
    tool = FunctionTool(name="get_weather", description="", params_json_schema={"type": "object"},
                        on_invoke_tool=lambda ctx, args: "", strict_json_schema=False)
    final = None
    async for event in model.stream_response(
            system_instructions=None, input="Weather in Paris and Lyon?", model_settings=ModelSettings(),
            tools=[tool], output_schema=None, handoffs=[], tracing=ModelTracing.DISABLED):
        if event.type == "response.completed":
            final = event.response
    return [(item.name, item.arguments) for item in final.output if item.type == "function_call"]

got = asyncio.run(stream_calls())
expected = [("get_weather", "{}"), ("get_weather", "{}")]
print("got:     ", got)  # the bug: both deltas are keyed index None and merged
print("expected:", expected, "(as the model's get_response() returns for the same answer)")
sys.exit(0 if got == expected else 1)
