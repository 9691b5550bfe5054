"""llama-index-llms-openai: two tool calls streamed without `index` (Mistral sends each call
whole in one delta, no `index`) come out of `stream_chat_with_tools()` as ONE call whose name
and id are the two concatenated (`update_tool_calls` compares `None == None`);
`chat_with_tools()` on the same answer returns both calls. Exit 1 while the bug is there."""
import json
import threading
from http.server import BaseHTTPRequestHandler, HTTPServer

from llama_index.core.llms import ChatMessage
from llama_index.core.tools import FunctionTool
from llama_index.llms.openai import OpenAI

HEAD = ('{"id":"chatcmpl-0","object":"chat.completion.chunk","created":1700000000,'
        '"model":"gpt-4o-2024-08-06","choices":[{"index":0,"delta":')
CALL = '{"id":"call_%d","type":"function","function":{"name":"get_weather","arguments":"{}"}}'
DELTAS = ['{"role":"assistant","content":null},"logprobs":null,"finish_reason":null}]}',
          '{"tool_calls":[%s]},"logprobs":null,"finish_reason":null}]}' % (CALL % 0),
          '{"tool_calls":[%s]},"logprobs":null,"finish_reason":null}]}' % (CALL % 1),
          '{},"logprobs":null,"finish_reason":"tool_calls"}]}']
STREAM = "".join(f"data: {HEAD}{d}\n\n" for d in DELTAS).encode() + b"data: [DONE]\n\n"
WHOLE = json.dumps({"id": "chatcmpl-0", "object": "chat.completion", "created": 1700000000,
                    "model": "gpt-4o-2024-08-06", "choices": [{"index": 0, "finish_reason": "tool_calls",
                    "message": {"role": "assistant", "content": None, "tool_calls": [
                        json.loads(CALL % 0), json.loads(CALL % 1)]}}]}).encode()


class Handler(BaseHTTPRequestHandler):
    def do_POST(self):
        streamed = json.loads(self.rfile.read(int(self.headers["Content-Length"]))).get("stream")
        body = STREAM if streamed else WHOLE
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream" if streamed else "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


server = HTTPServer(("127.0.0.1", 0), Handler)
threading.Thread(target=server.serve_forever, daemon=True).start()
llm = OpenAI(model="gpt-4o", api_key="sk-x", api_base=f"http://127.0.0.1:{server.server_port}/v1",
             max_retries=0)
tool = FunctionTool.from_defaults(fn=lambda: None, name="get_weather", description="Weather.")
prompt = [ChatMessage(role="user", content="Weather in Paris and Rome?")]

whole = [(t.tool_name, t.tool_id) for t in llm.get_tool_calls_from_response(
    llm.chat_with_tools([tool], chat_history=prompt, allow_parallel_tool_calls=True))]
*_, last = llm.stream_chat_with_tools([tool], chat_history=prompt, allow_parallel_tool_calls=True)
streamed = [(t.tool_name, t.tool_id) for t in llm.get_tool_calls_from_response(last)]
print("chat_with_tools():       ", whole)
print("stream_chat_with_tools():", streamed)
print("expected the stream to give the same two calls")
raise SystemExit(0 if streamed == whole else 1)
