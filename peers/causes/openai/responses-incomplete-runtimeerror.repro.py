"""A Responses stream that ends in response.incomplete (max_output_tokens reached) makes
responses.stream(...).get_final_response() raise RuntimeError instead of returning the Response.

openai==3.57.0. Exit 1 while the bug is there."""
import http.server
import sys
import threading

import openai

BODY = (
    b'event: response.created\ndata: {"type":"response.created","response":{"id":"resp_000000000000000000000000000000000000000000000000","object":"response","created_at":1700000000,"status":"in_progress","error":null,"incomplete_details":null,"instructions":null,"max_output_tokens":2048,"model":"gpt-4o-2024-08-06","parallel_tool_calls":true,"previous_response_id":null,"reasoning":{"effort":null,"summary":null},"store":false,"temperature":1.0,"text":{"format":{"type":"text"}},"tool_choice":"auto","tools":[{"type":"function","name":"get_weather","description":null,"parameters":{"type":"object","properties":{},"additionalProperties":false},"strict":false}],"top_p":1.0,"truncation":"disabled","usage":null,"user":null,"metadata":{},"output":[]},"sequence_number":0}\n\n'
    b'event: response.in_progress\ndata: {"type":"response.in_progress","response":{"id":"resp_000000000000000000000000000000000000000000000000","object":"response","created_at":1700000000,"status":"in_progress","error":null,"incomplete_details":null,"instructions":null,"max_output_tokens":2048,"model":"gpt-4o-2024-08-06","parallel_tool_calls":true,"previous_response_id":null,"reasoning":{"effort":null,"summary":null},"store":false,"temperature":1.0,"text":{"format":{"type":"text"}},"tool_choice":"auto","tools":[{"type":"function","name":"get_weather","description":null,"parameters":{"type":"object","properties":{},"additionalProperties":false},"strict":false}],"top_p":1.0,"truncation":"disabled","usage":null,"user":null,"metadata":{},"output":[]},"sequence_number":1}\n\n'
    b'event: response.output_item.added\ndata: {"type":"response.output_item.added","item":{"id":"fc_000000000000000000000000000000000000000000000001","type":"function_call","status":"in_progress","arguments":"","call_id":"call_000000000000000000000000","name":"get_weather"},"output_index":0,"sequence_number":2}\n\n'
    b'event: response.function_call_arguments.delta\ndata: {"type":"response.function_call_arguments.delta","item_id":"fc_000000000000000000000000000000000000000000000001","delta":"{}","output_index":0,"sequence_number":3}\n\n'
    b'event: response.function_call_arguments.done\ndata: {"type":"response.function_call_arguments.done","item_id":"fc_000000000000000000000000000000000000000000000001","arguments":"{}","output_index":0,"sequence_number":4}\n\n'
    b'event: response.output_item.done\ndata: {"type":"response.output_item.done","item":{"id":"fc_000000000000000000000000000000000000000000000001","type":"function_call","status":"completed","arguments":"{}","call_id":"call_000000000000000000000000","name":"get_weather"},"output_index":0,"sequence_number":5}\n\n'
    b'event: response.incomplete\ndata: {"type":"response.incomplete","response":{"id":"resp_000000000000000000000000000000000000000000000000","object":"response","created_at":1700000000,"status":"incomplete","error":null,"incomplete_details":{"reason":"max_output_tokens"},"instructions":null,"max_output_tokens":2048,"model":"gpt-4o-2024-08-06","output":[{"id":"fc_000000000000000000000000000000000000000000000001","type":"function_call","status":"completed","arguments":"{}","call_id":"call_000000000000000000000000","name":"get_weather"}],"parallel_tool_calls":true,"previous_response_id":null,"reasoning":{"effort":null,"summary":null},"store":false,"temperature":1.0,"text":{"format":{"type":"text"}},"tool_choice":"auto","tools":[{"type":"function","name":"get_weather","description":null,"parameters":{"type":"object","properties":{},"additionalProperties":false},"strict":false}],"top_p":1.0,"truncation":"disabled","usage":{"input_tokens":0,"input_tokens_details":{"cached_tokens":0,"cache_write_tokens":0},"output_tokens":0,"output_tokens_details":{"reasoning_tokens":0},"total_tokens":0},"user":null,"metadata":{}},"sequence_number":6}\n\n'
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
client = openai.OpenAI(api_key="sk-test", base_url=f"http://127.0.0.1:{server.server_port}/v1",
                       max_retries=0)
TOOLS = [{"type": "function", "name": "get_weather", "parameters": {"type": "object"}, "strict": False}]
expected = "status 'incomplete', 1 call: get_weather {}"
try:
    with client.responses.stream(model="gpt-4o", input="What is the weather in Paris?",
                                 tools=TOOLS, max_output_tokens=2048) as stream:
        response = stream.get_final_response()
    calls = [item for item in response.output if item.type == "function_call"]
    got = f"status {response.status!r}, {len(calls)} call: " + ", ".join(
        f"{c.name} {c.arguments}" for c in calls)
except Exception as exc:  # the bug: the stream ends in response.incomplete, not .completed
    got = f"{type(exc).__name__}: {exc}"
print("got:     ", got)
print("expected:", expected, "(as responses.create() returns for the same answer)")
sys.exit(0 if got == expected else 1)
