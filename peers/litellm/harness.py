"""LiteLLM as its users stream: `litellm.completion(..., stream=True)`, the chunks kept and
rebuilt with `litellm.stream_chunk_builder`. OpenAI Chat through its `openai/` provider
(a self-hosted OpenAI-compatible server), Anthropic Messages through `anthropic/`."""
import os

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")  # offline: no cost-map download
import litellm

from _protocol import call, outcome, serve

MESSAGES = [{"role": "user", "content": "What is the weather in Paris?"}]


def run(base_url, wire):
    if wire == "openai-chat":
        model, api_base = "openai/gpt-4o", base_url.rstrip("/") + "/v1"
    else:
        model, api_base = "anthropic/claude-sonnet-4-5", base_url.rstrip("/")
    chunks = list(litellm.completion(model=model, messages=MESSAGES, api_base=api_base,
                                     api_key="sk-mcs", stream=True, max_retries=0))
    response = litellm.stream_chunk_builder(chunks, messages=MESSAGES)
    if response is None:
        return outcome()
    message = response.choices[0].message
    calls = [call(tc.function.name, tc.function.arguments, tc.id)
             for tc in message.tool_calls or []]
    # Its message has OpenAI's shape: native only on openai-chat.
    native = message.model_dump(mode="json") if wire == "openai-chat" else None
    return outcome(calls, message.content or "", native)


if __name__ == "__main__":
    serve(__file__, run)
