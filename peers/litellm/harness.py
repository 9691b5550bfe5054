"""LiteLLM as its users stream: `litellm.completion(..., stream=True)`, the chunks kept and
rebuilt with `litellm.stream_chunk_builder`. OpenAI Chat through its `openai/` provider
(a self-hosted OpenAI-compatible server), Anthropic Messages through `anthropic/`, Gemini
through `gemini/` (Google AI Studio's provider; `vertex_ai/` needs Google credentials: it
fetches an OAuth token before any request, whatever the api_base), Bedrock Converse through
`bedrock/converse/` (`aws_bedrock_runtime_endpoint`, dummy AWS keys: it signs with them).
Not streamed, the same `completion()` call with `stream=False` (the README's "Python SDK"
example, which omits `stream`), its `ModelResponse` read as the rebuilt one is, on every
wire."""
import gc
import os

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")  # offline: no cost-map download
import litellm

gc.freeze()  # what importing litellm made stays out of the collections `converse` asks

from _protocol import call, chat_options, outcome, serve

# `completion()`'s documented parameters: `n` and `stream_options` (OpenAI's), `thinking`
# (Anthropic's, which litellm passes through, and maps to Gemini's `includeThoughts`). Not
# `stream_function_call_arguments`: no parameter asks it, and it is Vertex AI's alone.
FEATURES = {"openai-chat": ["n", "include_usage"], "anthropic-messages": ["thinking"],
            "gemini": ["include_thoughts"], "bedrock-converse": []}

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


def completion(base_url, wire, request, stream):
    """`litellm.completion()` of the request through the wire's provider, streamed or not."""
    if wire == "bedrock-converse":
        return converse(base_url, request, stream)
    if wire == "openai-chat":
        model, api_base = "openai/gpt-4o", base_url.rstrip("/") + "/v1"
    elif wire == "gemini":
        # Google AI Studio's provider; a custom api_base gets `/models/<model>:<method>`.
        model, api_base = "gemini/gemini-2.5-flash", base_url.rstrip("/") + "/v1beta"
    else:
        model, api_base = "anthropic/claude-sonnet-4-5", base_url.rstrip("/")
    return litellm.completion(model=model, messages=MESSAGES, api_base=api_base,
                              api_key="sk-mcs", stream=stream, max_retries=0,
                              **options_of(request))


def converse(base_url, request, stream):
    """Bedrock's Converse API through `bedrock/converse/`: a custom endpoint is
    `aws_bedrock_runtime_endpoint` (it posts to `<endpoint>/model/<id>/converse-stream`, or
    `/converse` not streamed), signed with the AWS keys and region given as keywords.

    First `gc.collect()`: when a Converse stream raises mid-body, litellm leaves the HTTP
    response's byte iterator suspended in a reference cycle (converse_handler.py:90 hands
    it to `AWSEventStreamDecoder.iter_bytes`, invoke_handler.py:854, which raises from inside
    its loop and never closes it), and a cyclic collection that falls inside the next request's
    `ConnectionPool.handle_request` finalizes it there: its `close()` takes the pool's lock
    that request holds, and the process hangs (httpcore 1.0.9, connection_pool.py:220 and
    :416). Collecting between cases keeps one case's leak out of the next (a harness
    process runs many; a repro runs one)."""
    gc.collect()
    return litellm.completion(
        model="bedrock/converse/anthropic.claude-sonnet-4-5-20250929-v1:0", messages=MESSAGES,
        aws_bedrock_runtime_endpoint=base_url.rstrip("/"), aws_region_name="us-east-1",
        aws_access_key_id="x", aws_secret_access_key="x", stream=stream, max_retries=0,
        **chat_options(request))


def run(base_url, wire, request):
    chunks = list(completion(base_url, wire, request, stream=True))
    return answer_of(litellm.stream_chunk_builder(chunks, messages=MESSAGES), wire)


def whole(base_url, wire, request):
    return answer_of(completion(base_url, wire, request, stream=False), wire)


def answer_of(response, wire):
    """The outcome of a `ModelResponse`, rebuilt from chunks or returned whole."""
    if response is None:
        return outcome()
    message = response.choices[0].message
    calls = [call(tc.function.name, tc.function.arguments, tc.id)
             for tc in message.tool_calls or []]
    # Its message has OpenAI's shape: native only on openai-chat.
    native = message.model_dump(mode="json") if wire == "openai-chat" else None
    # On gemini and bedrock-converse, litellm tells its user of a refused answer (SAFETY,
    # RECITATION, a blocked prompt; Converse's guardrail_intervened) by `finish_reason:
    # "content_filter"`, raising nothing: its error report.
    finish = response.choices[0].finish_reason
    refused = wire in ("gemini", "bedrock-converse") and finish == "content_filter"
    stopped = f"finish_reason: {finish}" if refused else None
    return outcome(calls, message.content or "", native, stopped)


if __name__ == "__main__":
    serve(__file__, run, FEATURES, dict.fromkeys(FEATURES, whole))
