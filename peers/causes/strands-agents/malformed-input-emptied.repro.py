"""A tool block whose streamed input is not JSON ('{"city": ') comes out of a streamed BedrockModel
turn as a call with input {}; the same model with streaming=False keeps the raw input.
strands-agents==1.62.0 (boto3 1.44.8). Exit 1 while the bug is there."""
import asyncio, http.server, json, sys, threading

import boto3
from strands.event_loop.streaming import process_stream
from strands.models.bedrock import BedrockModel

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
WHOLE = json.dumps({"output": {"message": {"role": "assistant", "content": [  # the same answer whole
    {"toolUse": {"toolUseId": "tooluse_bad", "name": "get_weather", "input": '{"city": '}}, {"text": ""}]}},
    "stopReason": "tool_use", "usage": {"inputTokens": 10, "outputTokens": 1, "totalTokens": 11}}).encode()


class Handler(http.server.BaseHTTPRequestHandler):
    def do_POST(self):  # /converse-stream: the saved frames, then a clean end; /converse: JSON
        self.rfile.read(int(self.headers["content-length"]))
        body = STREAM if (streamed := self.path.endswith("/converse-stream")) else WHOLE
        self.send_response(200)
        self.send_header("content-type", "application/vnd.amazon.eventstream" if streamed else "application/json")
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    log_message = lambda self, *args: None  # quiet


server = http.server.HTTPServer(("127.0.0.1", 0), Handler)
threading.Thread(target=server.serve_forever, daemon=True).start()
TOOL = {"name": "get_weather", "description": "Weather of a city.", "inputSchema": {"json": {"type": "object"}}}


async def calls(streaming):  # one model turn, assembled as the Agent's event loop does
    model = BedrockModel(model_id="anthropic.claude-3-5-sonnet-20240620-v1:0", streaming=streaming,
                         boto_session=boto3.Session(aws_access_key_id="x", aws_secret_access_key="x",
                                                    region_name="us-east-1"),
                         endpoint_url=f"http://127.0.0.1:{server.server_port}")
    chunks = model.stream([{"role": "user", "content": [{"text": "Weather in Paris?"}]}], tool_specs=[TOOL])
    async for event in process_stream(chunks):
        if "stop" in event:
            message = event["stop"][1]
    return [block["toolUse"]["input"] for block in message["content"] if "toolUse" in block]


streamed, whole = asyncio.run(calls(True)), asyncio.run(calls(False))
print("streamed tool input:       ", streamed)  # the bug: '{"city": ' replaced by {}
print("streaming=False tool input:", whole)
print("expected: the same input both ways, never {} for input nobody wrote")
sys.exit(1 if streamed == [{}] else 0)
