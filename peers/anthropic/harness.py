"""The anthropic SDK as its users stream: `messages.stream()` then `get_final_message()`."""

import anthropic

from _protocol import call, outcome, serve


def run(base_url, wire):
    client = anthropic.Anthropic(api_key="sk-mcs", base_url=base_url, max_retries=0)
    with client.messages.stream(model="claude-sonnet-4-5", max_tokens=1024, messages=[
            {"role": "user", "content": "What is the weather in Paris?"}]) as stream:
        for _ in stream:
            pass
        message = stream.get_final_message()
    calls = [call(block.name, block.input, block.id)
             for block in message.content if block.type == "tool_use"]
    text = "".join(block.text for block in message.content if block.type == "text")
    return outcome(calls, text, message.to_dict(mode="json"))


if __name__ == "__main__":
    serve(__file__, run)
