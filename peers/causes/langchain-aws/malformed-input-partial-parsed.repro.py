"""Streamed tool input that is not JSON ('{"city": ') comes out of ChatBedrockConverse.stream(),
summed, as a valid call with args {}; .invoke() on the same answer returns no such call (it raises).
langchain-aws==1.9.1 (langchain-core 1.8.3, boto3 1.44.8). Exit 1 while the bug is there."""
import http.server
import json
import sys
import threading

from langchain_aws import ChatBedrockConverse

STREAM = b"".join([  # the saved Converse event stream, one frame a line
    b'\x00\x00\x00v\x00\x00\x00R\x96\xd5\xfa\xde\x0b:event-type\x07\x00\x0cmessageStart\r:content-type\x07\x00\x10application/json\r:message-type\x07\x00\x05event{"role":"assistant"}o\xa8\xc5\x99'
    b'\x00\x00\x00\xc3\x00\x00\x00W>\x98\x895\x0b:event-type\x07\x00\x11contentBlockStart\r:content-type\x07\x00\x10application/json\r:message-type\x07\x00\x05event{"contentBlockIndex":0,"start":{"toolUse":{"toolUseId":"tooluse_bad","name":"get_weather"}}}\xfa\x1e\xbc\xad'
    b'\x00\x00\x00\xaa\x00\x00\x00W\xaa\xba\x9c\t\x0b:event-type\x07\x00\x11contentBlockDelta\r:content-type\x07\x00\x10application/json\r:message-type\x07\x00\x05event{"contentBlockIndex":0,"delta":{"toolUse":{"input":"{\\"city\\": "}}}<{\xb6\xcb'
    b'\x00\x00\x00}\x00\x00\x00V\xe6h\x0f\xd6\x0b:event-type\x07\x00\x10contentBlockStop\r:content-type\x07\x00\x10application/json\r:message-type\x07\x00\x05event{"contentBlockIndex":0}\xb3.M4'
    b'\x00\x00\x00\x92\x00\x00\x00W;\xeboN\x0b:event-type\x07\x00\x11contentBlockDelta\r:content-type\x07\x00\x10application/json\r:message-type\x07\x00\x05event{"contentBlockIndex":1,"delta":{"text":""}}\xf5\t\xcd\xfb'
    b'\x00\x00\x00}\x00\x00\x00V\xe6h\x0f\xd6\x0b:event-type\x07\x00\x10contentBlockStop\r:content-type\x07\x00\x10application/json\r:message-type\x07\x00\x05event{"contentBlockIndex":1}\xaa5|u'
    b'\x00\x00\x00z\x00\x00\x00Q\xca,Fe\x0b:event-type\x07\x00\x0bmessageStop\r:content-type\x07\x00\x10application/json\r:message-type\x07\x00\x05event{"stopReason":"tool_use"}\x9d\xcb)\x81'
    b'\x00\x00\x00\xb8\x00\x00\x00N\xd4\xf1\xf0+\x0b:event-type\x07\x00\x08metadata\r:content-type\x07\x00\x10application/json\r:message-type\x07\x00\x05event{"usage":{"inputTokens":10,"outputTokens":1,"totalTokens":11},"metrics":{"latencyMs":100}}9C\xb6e'
])
WHOLE = json.dumps({"output": {"message": {"role": "assistant", "content": [
    {"toolUse": {"toolUseId": "tooluse_bad", "name": "get_weather", "input": '{"city": '}},
    {"text": ""}]}}, "stopReason": "tool_use",
    "usage": {"inputTokens": 10, "outputTokens": 1, "totalTokens": 11},
    "metrics": {"latencyMs": 100}}).encode()


class Handler(http.server.BaseHTTPRequestHandler):
    def do_POST(self):  # /converse-stream: the saved frames, then a clean end; /converse: JSON
        self.rfile.read(int(self.headers["content-length"]))
        body = STREAM if (streamed := self.path.endswith("/converse-stream")) else WHOLE
        self.send_response(200)
        self.send_header("content-type", "application/vnd.amazon.eventstream" if streamed else "application/json")
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):  # quiet
        pass


server = http.server.HTTPServer(("127.0.0.1", 0), Handler)
threading.Thread(target=server.serve_forever, daemon=True).start()
TOOL = {"type": "function", "function": {"name": "get_weather", "parameters": {"type": "object"}}}
model = ChatBedrockConverse(model="anthropic.claude-3-5-sonnet-20240620-v1:0", region_name="us-east-1",
                            aws_access_key_id="x", aws_secret_access_key="x", max_retries=0,
                            base_url=f"http://127.0.0.1:{server.server_port}").bind_tools([TOOL])
total = None
for chunk in model.stream("What is the weather in Paris?"):  # summed as LangChain's docs show
    total = chunk if total is None else total + chunk
try:
    whole = [(c["name"], c["args"]) for c in model.invoke("What is the weather in Paris?").tool_calls]
except Exception as error:  # shown, not hidden
    whole = type(error).__name__
valid = [(c["name"], c["args"]) for c in total.tool_calls]
print("stream() tool_calls:        ", valid)  # the bug: '{"city": ' closed into {}, a valid call
print("stream() invalid_tool_calls:", [(c["name"], c["args"]) for c in total.invalid_tool_calls])
print("invoke() on the same answer:", whole)
print("expected: no valid call from the broken input (invalid_tool_calls, or an error)")
sys.exit(1 if ("get_weather", {}) in valid else 0)
