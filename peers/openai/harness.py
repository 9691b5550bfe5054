"""The openai SDK as its users stream: `chat.completions.stream()` then
`get_final_completion()`, and `responses.stream()` then `get_final_response()`; and as they
call it without streaming (WHOLE): `chat.completions.create()` and `responses.create()`, the
result read by the same mapping."""

import openai

from _protocol import call, chat_options, outcome, serve, tools_of

# Every feature is a documented parameter of `chat.completions.create()` / `.stream()` and
# `responses.create()` / `.stream()` (the SDK's generated signatures and types):
# openai-chat: `n`; `stream_options={"include_usage": True}` (streamed only: the API refuses
# it without `stream`); `max_completion_tokens`; `logprobs=True`; `web_search_options={}`.
# openai-responses: `tools` takes every provider tool as the API writes it (ToolParam:
# CustomToolParam, ComputerUsePreviewToolParam, LocalShell, FunctionShellToolParam with a
# local or container environment, ApplyPatchToolParam, WebSearchToolParam,
# FileSearchToolParam, CodeInterpreter, ImageGeneration, Mcp, ToolSearchToolParam);
# `context_management=[{"type": "compaction"}]`; `reasoning={"summary": ...}`;
# `include=["code_interpreter_call.outputs"]` (ResponseIncludable); `background=True`;
# `max_output_tokens`. None is left out.
FEATURES = {
    "openai-chat": ["n", "include_usage", "max_tokens", "logprobs", "web_search"],
    "openai-responses": ["custom_tools", "computer_use", "local_shell", "shell", "hosted_shell",
                         "apply_patch", "web_search", "file_search", "code_interpreter",
                         "image_generation", "mcp", "tool_search", "compaction",
                         "reasoning_summary", "include", "background", "max_tokens"],
}

# Keys the SDK's parse helpers add to its final objects; no server sends them.
SDK_ONLY = ("parsed", "parsed_arguments")
CALL_ITEMS = ("function_call", "custom_tool_call", "computer_call", "local_shell_call",
              "shell_call", "apply_patch_call")


def without_sdk_keys(value):
    if isinstance(value, dict):
        return {k: without_sdk_keys(v) for k, v in value.items() if k not in SDK_ONLY}
    if isinstance(value, list):
        return [without_sdk_keys(v) for v in value]
    return value


PROMPT = "What is the weather in Paris?"


def chat_request(request, stream):
    """The keywords of one Chat Completions request; `stream_options` only when streaming."""
    options = chat_options(request)
    if not stream:
        options.pop("stream_options", None)
    if "max_tokens" in request:
        options["max_completion_tokens"] = request["max_tokens"]
    if request.get("logprobs"):
        options["logprobs"] = True
    if request.get("web_search"):
        options["web_search_options"] = {}
    return {"model": "gpt-4o", "messages": [{"role": "user", "content": PROMPT}], **options}


def chat(client, request):
    with client.chat.completions.stream(**chat_request(request, stream=True)) as stream:
        for _ in stream:
            pass
        return chat_outcome(stream.get_final_completion())


def chat_whole(client, request):
    """The README's "Usage": `completion = client.chat.completions.create(...)`."""
    return chat_outcome(client.chat.completions.create(**chat_request(request, stream=False)))


def chat_outcome(completion):
    """A `ChatCompletion` (streamed: the helper's final one) as an outcome."""
    message = completion.choices[0].message
    calls = [call(tc.function.name, tc.function.arguments, tc.id)
             for tc in message.tool_calls or [] if tc.type == "function"]
    dumped = without_sdk_keys(message.to_dict(mode="json"))
    return outcome(calls, message.content or "", dumped)


def item_call(item):
    """A client-run output item as an outcome call (the kit's call kinds)."""
    if item["type"] == "function_call":
        return call(item["name"], item["arguments"], item["call_id"])
    if item["type"] == "custom_tool_call":  # free-form input: kept as text, never parsed
        return {"name": item["name"], "arguments": item["input"], "id": item["call_id"]}
    kind = item["type"][: -len("_call")]
    payload = {k: v for k, v in item.items() if k not in ("type", "id", "call_id", "status")}
    return call(kind, payload, item["call_id"])


def responses_request(request):
    """The keywords of one Responses request, streamed or not: the function tools, the
    provider's own tools as told (written as `ToolParam` writes them), and the options."""
    tools = [{"type": "function", "name": name, "description": description,
              "parameters": parameters, "strict": False}
             for name, description, parameters in tools_of(request)]
    tools += request.get("native_tools", [])
    options = {"tools": tools} if tools else {}
    if "reasoning_summary" in request:
        options["reasoning"] = {"summary": request["reasoning_summary"]}
    for key in ("include", "background", "context_management"):
        if key in request:
            options[key] = request[key]
    if "max_tokens" in request:
        options["max_output_tokens"] = request["max_tokens"]
    return {"model": "gpt-4o", "input": PROMPT, **options}


def responses(client, request):
    with client.responses.stream(**responses_request(request)) as stream:
        for _ in stream:
            pass
        return responses_outcome(stream.get_final_response())


def responses_whole(client, request):
    """The README's "Usage": `response = client.responses.create(...)`."""
    return responses_outcome(client.responses.create(**responses_request(request)))


def responses_outcome(response):
    """A `Response` (streamed: the helper's final one) as an outcome."""
    dumped = without_sdk_keys(response.to_dict(mode="json"))
    answered = {item.get("call_id") for item in dumped["output"]
                if item["type"].endswith("_output")}
    calls = [item_call(item) for item in dumped["output"]
             if item["type"] in CALL_ITEMS and item.get("call_id") not in answered]
    return outcome(calls, response.output_text, dumped)


def client_of(base_url):
    return openai.OpenAI(api_key="sk-mcs", base_url=base_url.rstrip("/") + "/v1", max_retries=0)


def run(base_url, wire, request):
    return (chat if wire == "openai-chat" else responses)(client_of(base_url), request)


def run_whole(base_url, wire, request):
    return (chat_whole if wire == "openai-chat" else responses_whole)(client_of(base_url), request)


# Both wires have a documented non-streaming call (the README's "Usage" section).
WHOLE = {"openai-chat": run_whole, "openai-responses": run_whole}

if __name__ == "__main__":
    serve(__file__, run, FEATURES, WHOLE)
