"""The anthropic SDK as its users stream: `messages.stream()` then `get_final_message()`."""

import anthropic

from _protocol import call, outcome, serve, tools_of

# `thinking` is a parameter of `messages.stream()`; betas go through `client.beta.messages`.
FEATURES = {"anthropic-messages": ["thinking", "programmatic_tool_calling"]}


def run(base_url, wire, request):
    client = anthropic.Anthropic(api_key="sk-mcs", base_url=base_url, max_retries=0)
    options = {}
    tools = [{"name": name, "description": description, "input_schema": parameters}
             for name, description, parameters in tools_of(request)]
    if tools:
        options["tools"] = tools
    if "thinking" in request:
        options["thinking"] = {"type": "enabled", "budget_tokens": request["thinking"]["budget_tokens"]}
    messages = client.messages
    if request.get("betas"):
        messages, options["betas"] = client.beta.messages, request["betas"]
    with messages.stream(model="claude-sonnet-4-5", max_tokens=4096, messages=[
            {"role": "user", "content": "What is the weather in Paris?"}], **options) as stream:
        for _ in stream:
            pass
        message = stream.get_final_message()
    calls = [call(block.name, block.input, block.id)
             for block in message.content if block.type == "tool_use"]
    text = "".join(block.text for block in message.content if block.type == "text")
    return outcome(calls, text, message.to_dict(mode="json"))


if __name__ == "__main__":
    serve(__file__, run, FEATURES)
