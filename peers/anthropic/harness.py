"""The anthropic SDK as its users stream: `messages.stream()` then `get_final_message()`;
not streamed, `messages.create()` (the README's "Getting started"), the same request and the
same reading of the `Message` it returns."""

import anthropic

from _protocol import call, outcome, serve, tools_of

# `thinking` is a parameter of `messages.stream()`; betas go through `client.beta.messages`.
FEATURES = {"anthropic-messages": ["thinking", "programmatic_tool_calling"]}

PROMPT = [{"role": "user", "content": "What is the weather in Paris?"}]


def messages_of(base_url, request):
    """The messages API to call (`client.beta.messages` when betas are told) and the
    request's keywords, the same streamed or not."""
    client = anthropic.Anthropic(api_key="sk-mcs", base_url=base_url, max_retries=0)
    options = {"model": "claude-sonnet-4-5", "max_tokens": 4096, "messages": PROMPT}
    tools = [{"name": name, "description": description, "input_schema": parameters}
             for name, description, parameters in tools_of(request)]
    if tools:
        options["tools"] = tools
    if "thinking" in request:
        options["thinking"] = {"type": "enabled", "budget_tokens": request["thinking"]["budget_tokens"]}
    messages = client.messages
    if request.get("betas"):
        messages, options["betas"] = client.beta.messages, request["betas"]
    return messages, options


def answer_of(message):
    """The calls, text and native message of a `Message`, however it came."""
    calls = [call(block.name, block.input, block.id)
             for block in message.content if block.type == "tool_use"]
    text = "".join(block.text for block in message.content if block.type == "text")
    return outcome(calls, text, message.to_dict(mode="json"))


def run(base_url, wire, request):
    messages, options = messages_of(base_url, request)
    with messages.stream(**options) as stream:
        for _ in stream:
            pass
        message = stream.get_final_message()
    return answer_of(message)


def whole(base_url, wire, request):
    messages, options = messages_of(base_url, request)
    return answer_of(messages.create(**options))


if __name__ == "__main__":
    serve(__file__, run, FEATURES, {"anthropic-messages": whole})
