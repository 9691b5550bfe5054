"""The openai SDK as its users stream: `chat.completions.stream()` then
`get_final_completion()`, and `responses.stream()` then `get_final_response()`."""

import openai

from _protocol import call, chat_options, outcome, serve, tools_of

# What the SDK's documented parameters ask: `n` and `stream_options` on Chat Completions.
FEATURES = {"openai-chat": ["n", "include_usage"]}

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


def chat(client, request):
    with client.chat.completions.stream(model="gpt-4o", messages=[
            {"role": "user", "content": "What is the weather in Paris?"}],
            **chat_options(request)) as stream:
        for _ in stream:
            pass
        completion = stream.get_final_completion()
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


def responses(client, request):
    tools = [{"type": "function", "name": name, "description": description,
              "parameters": parameters, "strict": False}
             for name, description, parameters in tools_of(request)]
    with client.responses.stream(model="gpt-4o", input="What is the weather in Paris?",
                                 **({"tools": tools} if tools else {})) as stream:
        for _ in stream:
            pass
        response = stream.get_final_response()
    dumped = without_sdk_keys(response.to_dict(mode="json"))
    answered = {item.get("call_id") for item in dumped["output"]
                if item["type"].endswith("_output")}
    calls = [item_call(item) for item in dumped["output"]
             if item["type"] in CALL_ITEMS and item.get("call_id") not in answered]
    return outcome(calls, response.output_text, dumped)


def run(base_url, wire, request):
    client = openai.OpenAI(api_key="sk-mcs", base_url=base_url.rstrip("/") + "/v1", max_retries=0)
    return chat(client, request) if wire == "openai-chat" else responses(client, request)


if __name__ == "__main__":
    serve(__file__, run, FEATURES)
