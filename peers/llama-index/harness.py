"""LlamaIndex's OpenAI LLM (openai-chat), its Google GenAI LLM (gemini, package
llama-index-llms-google-genai) and its Bedrock Converse LLM (bedrock-converse, package
llama-index-llms-bedrock-converse) as their users stream: `stream_chat_with_tools()` (or
`stream_chat()` with no tools), the last `ChatResponse` kept, its calls read with
`get_tool_calls_from_response()`. On bedrock-converse it gives its user no stop reason
(`stream_chat` reads Converse's `messageStop` and drops it), so a failed answer is what it
raises. Not streamed, on each wire: `chat_with_tools()` (`chat()`), its `ChatResponse` read the
same way."""

from botocore.config import Config
from llama_index.core.llms import ChatMessage
from llama_index.core.tools import FunctionTool
from llama_index.llms.bedrock_converse import BedrockConverse
from llama_index.llms.google_genai import GoogleGenAI
from llama_index.llms.openai import OpenAI
from google.genai import types
from google.oauth2.credentials import Credentials
from pydantic import ConfigDict, create_model

from _protocol import call, outcome, serve, tools_of

# What each LLM class's documented fields ask.
# openai-chat (`OpenAI`'s fields): include_usage: `additional_kwargs={"stream_options":
# {"include_usage": True}}` ("Add additional parameters to OpenAI request body"; it drops
# `stream_options` itself when not streaming); max_tokens: `max_tokens=N` (sent as
# `max_tokens`); logprobs: `logprobs=True`; web_search: `additional_kwargs=
# {"web_search_options": {}}`. Left out: n: a `ChatResponse` is one message, read from
# `choices[0]` of each chunk (and of the whole answer), so the class has no place for several.
# gemini (`GoogleGenAI`'s `generation_config`, a `GenerateContentConfig`, and `max_tokens`):
# include_thoughts: `thinking_config=ThinkingConfig(include_thoughts=True)`; max_tokens:
# `max_tokens=N` (and `max_output_tokens=N` in a given `generation_config`, which replaces the
# one `max_tokens` makes); stream_function_call_arguments: `tool_config=ToolConfig(
# function_calling_config=FunctionCallingConfig(stream_function_call_arguments=True))` with
# automatic function calling off (google-genai refuses the two together), which Gemini takes
# on Vertex AI only: there the LLM takes `vertexai_config` (project, location, credentials;
# here a static access token) at the same base URL.
# bedrock-converse (`BedrockConverse`'s fields): reasoning: `thinking={"type": "enabled",
# "budget_tokens": N}` (sent as `additionalModelRequestFields.thinking` to a model its
# BEDROCK_REASONING_MODELS lists, as this Claude is); max_tokens: `max_tokens=N` (sent as
# `inferenceConfig.maxTokens`). None is left out.
FEATURES = {"openai-chat": ["include_usage", "max_tokens", "logprobs", "web_search"],
            "gemini": ["include_thoughts", "stream_function_call_arguments", "max_tokens"],
            "bedrock-converse": ["reasoning", "max_tokens"]}
#: The token limit asked when the case tells none (a reasoning budget needs one above it).
LIMIT = 4096


def function_tool(name, description, wire):
    """A tool of the told name whose schema takes any arguments (a model allowing extra
    keys); the harness reads calls, it runs none. On gemini the model only drops the
    `additionalProperties` key: google-genai refuses it outside Vertex AI ("only supported in
    Gemini Enterprise Agent Platform mode"), and `GoogleGenAI` takes no raw JSON Schema."""
    extra = "ignore" if wire == "gemini" else "allow"
    arguments = create_model("Arguments", __config__=ConfigDict(extra=extra))
    return FunctionTool.from_defaults(fn=lambda **kwargs: None, name=name,
                                      description=description, fn_schema=arguments)


def gemini_llm(base_url, request):
    """`GoogleGenAI` at `base_url` asking what `request` says; with max_tokens and
    context_window given, it asks no model metadata (`models.get`) first."""
    limit = request.get("max_tokens", LIMIT)
    streamed_arguments = bool(request.get("stream_function_call_arguments"))
    options = {}
    if request.get("include_thoughts"):
        options["thinking_config"] = types.ThinkingConfig(include_thoughts=True)
    if streamed_arguments:
        options["tool_config"] = types.ToolConfig(function_calling_config=types.FunctionCallingConfig(
            stream_function_call_arguments=True))
        options["automatic_function_calling"] = types.AutomaticFunctionCallingConfig(disable=True)
    vertex = {"vertexai_config": {"project": "mcs", "location": "us-central1",
                                  "credentials": Credentials(token="mcs-token")}} \
        if streamed_arguments else {"api_key": "sk-mcs"}
    return GoogleGenAI(model="gemini-2.5-flash", max_retries=0, max_tokens=limit,
                       context_window=1048576, http_options=types.HttpOptions(base_url=base_url),
                       generation_config=types.GenerateContentConfig(
                           max_output_tokens=limit, **options) if options else None, **vertex)


def llm_for(base_url, wire, request):
    if wire == "gemini":
        return gemini_llm(base_url, request)
    if wire == "bedrock-converse":
        # Its own boto3 client at `endpoint_url` (it posts to `<endpoint>/model/<id>/converse-stream`),
        # retries off: `max_retries=1` is one attempt of its tenacity loop, and botocore's own
        # retries go through `botocore_config` (`total_max_attempts` 1).
        thinking = request.get("reasoning")
        return BedrockConverse(model="anthropic.claude-sonnet-4-5-20250929-v1:0",
                               endpoint_url=base_url, region_name="us-east-1",
                               aws_access_key_id="x", aws_secret_access_key="x", max_retries=1,
                               max_tokens=request.get("max_tokens", LIMIT),
                               thinking={"type": "enabled", **thinking} if thinking else None,
                               botocore_config=Config(retries={"total_max_attempts": 1,
                                                               "mode": "standard"}))
    # `additional_kwargs` is where its users pass OpenAI parameters the class has no field
    # for; it drops `stream_options` itself from requests that do not stream.
    extra = {"stream_options": {"include_usage": True}} if request.get("include_usage") else {}
    if request.get("web_search"):
        extra["web_search_options"] = {}
    return OpenAI(model="gpt-4o", api_key="sk-mcs", api_base=base_url.rstrip("/") + "/v1",
                  max_retries=0, additional_kwargs=extra, max_tokens=request.get("max_tokens"),
                  logprobs=True if request.get("logprobs") else None)


def chat(base_url, wire, request, stream):
    """The LLM and its answer to the prompt with the told tools: `stream_chat_with_tools()`
    (its `ChatResponse` generator) when `stream`, else `chat_with_tools()`; without tools
    `stream_chat()` or `chat()`."""
    llm = llm_for(base_url, wire, request)
    tools = [function_tool(name, description, wire) for name, description, _ in tools_of(request)]
    prompt = ChatMessage(role="user", content="What is the weather in Paris?")
    if tools:
        with_tools = llm.stream_chat_with_tools if stream else llm.chat_with_tools
        return llm, with_tools(tools, chat_history=[prompt], allow_parallel_tool_calls=True)
    return llm, (llm.stream_chat if stream else llm.chat)([prompt])


def outcome_of(llm, response):
    """The outcome of the last streamed `ChatResponse` or the one `chat` returned (None:
    the stream yielded none)."""
    if response is None:
        return outcome()
    calls = [call(selection.tool_name, selection.tool_kwargs, selection.tool_id)
             for selection in llm.get_tool_calls_from_response(response, error_on_no_tool_call=False)]
    return outcome(calls, response.message.content or "", None)


def run(base_url, wire, request):
    llm, stream = chat(base_url, wire, request, stream=True)
    last = None
    for last in stream:
        pass
    return outcome_of(llm, last)


def whole(base_url, wire, request):
    """The non-streamed answer: `FunctionCallingLLM.chat_with_tools()`, the twin of
    `stream_chat_with_tools()` in `llama_index.core.llms.function_calling` ("Chat with function
    calling"), or without tools `chat()`, as each package's README shows it ("Chat Responses",
    "Chat with Messages", "Call chat with a list of messages")."""
    return outcome_of(*chat(base_url, wire, request, stream=False))


if __name__ == "__main__":
    serve(__file__, run, FEATURES, dict.fromkeys(FEATURES, whole))
