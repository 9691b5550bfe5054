"""A Gemini `functionCall` without `args` (Vertex AI's call of a tool without parameters)
ends litellm.completion(stream=True) in `KeyError: 'args'` (stream=False fails the same
way), though litellm's own type for the part, `HttpxFunctionCall(TypedDict, total=False)`,
requires only `name`.

litellm==1.110.2. Exit 1 while the bug is there."""
import http.server
import os
import sys
import threading

os.environ["LITELLM_LOCAL_MODEL_COST_MAP"] = "True"
import litellm

BODY = (
    b'data: {"candidates":[{"content":{"role":"model","parts":[{"functionCall":{"name":"wmx8"}}]}}],"usageMetadata":{"trafficType":"ON_DEMAND"},"modelVersion":"gemini-3-pro-preview","createTime":"2026-07-19T04:16:23.232806Z","responseId":"DJvHRvlrrjI6qGdsfn049-"}\n\n'
    b'data: {"candidates":[{"content":{"role":"model","parts":[{"text":""}]},"finishReason":"STOP"}],"usageMetadata":{"promptTokenCount":832,"candidatesTokenCount":347,"totalTokenCount":1179,"promptTokensDetails":[{"modality":"TEXT","tokenCount":832}],"trafficType":"ON_DEMAND","candidatesTokensDetails":[{"modality":"TEXT","tokenCount":347}]},"modelVersion":"gemini-3-pro-preview","createTime":"2026-07-19T04:16:23.232806Z","responseId":"DJvHRvlrrjI6qGdsfn049-"}\n\n'
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
MESSAGES = [{"role": "user", "content": "What is the weather in Paris?"}]
TOOLS = [{"type": "function", "function": {"name": "wmx8", "parameters": {"type": "object", "properties": {}}}}]
try:
    chunks = list(litellm.completion(
        model="gemini/gemini-2.5-flash", messages=MESSAGES, tools=TOOLS, api_key="sk-test",
        max_retries=0, stream=True, api_base=f"http://127.0.0.1:{server.server_port}/v1beta"))
    calls = litellm.stream_chunk_builder(chunks, messages=MESSAGES).choices[0].message.tool_calls
    got = [(c.function.name, c.function.arguments) for c in calls or []]
except Exception as exc:  # the bug: KeyError 'args' inside the stream
    got = f"{type(exc).__name__}: {str(exc).splitlines()[0]}"
expected = [("wmx8", "{}")]
print("got:     ", got)
print("expected:", expected, "(a call without `args` is a call with no arguments)")
sys.exit(0 if got == expected else 1)
