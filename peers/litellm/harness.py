"""LiteLLM as its users stream: `litellm.completion(..., stream=True)`, the chunks kept and
rebuilt with `litellm.stream_chunk_builder`. OpenAI Chat through its `openai/` provider
(a self-hosted OpenAI-compatible server), Anthropic Messages through `anthropic/`, Gemini
through `gemini/` (Google AI Studio's provider; `vertex_ai/` needs Google credentials: it
fetches an OAuth token before any request, whatever the api_base)."""
import os

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")  # offline: no cost-map download
import litellm

from _protocol import call, chat_options, outcome, serve

# `completion()`'s documented parameters: `n` and `stream_options` (OpenAI's), `thinking`
# (Anthropic's, which litellm passes through, and maps to Gemini's `includeThoughts`). Not
# `stream_function_call_arguments`: no parameter asks it, and it is Vertex AI's alone.
FEATURES = {"openai-chat": ["n", "include_usage"], "anthropic-messages": ["thinking"],
            "gemini": ["include_thoughts"]}

MESSAGES = [{"role": "user", "content": "What is the weather in Paris?"}]


def options_of(request):
    """The told tools (OpenAI's format, which litellm translates) and options as keywords."""
    options = chat_options(request)
    if "thinking" in request:
        options["thinking"] = {"type": "enabled", "budget_tokens": request["thinking"]["budget_tokens"]}
        options["max_tokens"] = 4096
    if request.get("include_thoughts"):
        # On gemini/, `thinking` becomes `thinkingConfig` with `includeThoughts: true`.
        options["thinking"] = {"type": "enabled", "budget_tokens": 1024}
    return options


def run(base_url, wire, request):
    if wire == "openai-chat":
        model, api_base = "openai/gpt-4o", base_url.rstrip("/") + "/v1"
    elif wire == "gemini":
        # Google AI Studio's provider; a custom api_base gets `/models/<model>:<method>`.
        model, api_base = "gemini/gemini-2.5-flash", base_url.rstrip("/") + "/v1beta"
    else:
        model, api_base = "anthropic/claude-sonnet-4-5", base_url.rstrip("/")
    chunks = list(litellm.completion(model=model, messages=MESSAGES, api_base=api_base,
                                     api_key="sk-mcs", stream=True, max_retries=0,
                                     **options_of(request)))
    response = litellm.stream_chunk_builder(chunks, messages=MESSAGES)
    if response is None:
        return outcome()
    message = response.choices[0].message
    calls = [call(tc.function.name, tc.function.arguments, tc.id)
             for tc in message.tool_calls or []]
    # Its message has OpenAI's shape: native only on openai-chat.
    native = message.model_dump(mode="json") if wire == "openai-chat" else None
    # On gemini, litellm tells its user of a refused answer (SAFETY, RECITATION, a blocked
    # prompt) by `finish_reason: "content_filter"`, raising nothing: its error report.
    finish = response.choices[0].finish_reason
    stopped = f"finish_reason: {finish}" if wire == "gemini" and finish == "content_filter" else None
    return outcome(calls, message.content or "", native, stopped)


if __name__ == "__main__":
    serve(__file__, run, FEATURES)
