"""Where each quirk comes from: the evidence that a real server sends it, or the spec that allows it.

A peer finding (✗) is a public claim about someone else's code, so every shape the kit
serves under a profile named after a real server must be one that server is shown to send.
Each piece of `Evidence` is a `recording` (a recorded stream: its repository, commit and
path, as ../shared/corpora-real/SOURCES.md gives it), a `report` (an upstream issue, pull
request or document that quotes the bytes), a `source` (the server's own code at a version:
the function or line that sends the shape) or a `spec` (the format's or the SSE spec's own
text: it shows what a client must accept, never that a server sends it). `profiles` names
the server profiles whose streams the evidence shows holding the shape; evidence that names
none (a spec, an intermediary, test data, a report without the bytes) evidences no server,
and a quirk with nothing else is served only under its wire's `*-spec-edges` profile.
"""
from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import quote

__all__ = ["EVIDENCE", "KINDS", "Evidence"]

#: The kinds of evidence: the first three can show a server sending a shape, `spec` cannot.
KINDS = ("recording", "report", "source", "spec")


@dataclass(frozen=True)
class Evidence:
    """One piece of a quirk's provenance: its `kind` (one of `KINDS`), `where` it is (a
    link), what it `shows`, and the server profiles it shows sending the shape."""

    kind: str
    where: str
    shows: str
    profiles: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"evidence kind {self.kind!r} is not one of {', '.join(KINDS)}")
        if not self.where.startswith("https://") or not self.shows:
            raise ValueError(f"evidence needs an https link and what it shows: {self!r}")
        if self.kind == "spec" and self.profiles:
            raise ValueError(f"a spec shows no server sending a shape: {self.where}")


def _github(repo: str, ref: str, path: str, line: int | None = None) -> str:
    url = f"https://github.com/{repo}/blob/{ref}/{quote(path)}"
    return f"{url}#L{line}" if line else url


def _recording(snapshot: tuple[str, str], path: str, shows: str, *profiles: str) -> Evidence:
    return Evidence("recording", _github(*snapshot, path), shows, profiles)


def _source(snapshot: tuple[str, str], path: str, line: int, shows: str,
            *profiles: str) -> Evidence:
    return Evidence("source", _github(*snapshot, path, line), shows, profiles)


def _report(url: str, shows: str, *profiles: str) -> Evidence:
    return Evidence("report", url, shows, profiles)


def _spec(url: str, shows: str) -> Evidence:
    return Evidence("spec", url, shows)


# The snapshots the recordings were read from (SOURCES.md), and the servers' sources.
_VERCEL = ("vercel/ai", "ed857f50f112e23930b0c2dd8d532cc8bebbc911")
_PYDANTIC_AI = ("pydantic/pydantic-ai", "4fda38988f2939fa6ea9cdefcf120693e10ef491")
_OPENAI_PY = ("openai/openai-python", "e43b422412a9e96c9cc5192c61fffbe2d7e04836")
_ANTHROPIC_PY = ("anthropics/anthropic-sdk-python", "009b035305e0724ce108ebd796935f91711fc6e1")
_LLM_ANTHROPIC = ("simonw/llm-anthropic", "3ae428f3b5143cc81da25af0271d8fa55bda3f05")
_JS_GENAI = ("googleapis/js-genai", "6e9b35c45e21f0d37179a24d29dca01ebed698e6")
_LANGCHAIN_AWS = ("langchain-ai/langchain-aws", "0434c7f94f")
_SEMANTIC_KERNEL = ("microsoft/semantic-kernel", "83c9a036442f7afc486e1e71b500268e6321ebfc")
# SOURCES.md names this one "unidentified"; the index's file id resolves to it.
_MODELARTS = ("Lukaschen1986/Machine-Learning-Column", "e8e9e20cce4cad086c4a9ca069c82c2abb2deac6")
_VLLM = ("vllm-project/vllm", "v0.33.0")
_OLLAMA = ("ollama/ollama", "fb30760996871fa9460115c753afd2c60d4ab0f7")
_OLLAMA_0_4_6 = ("ollama/ollama", "ce7455a8e1045ae12c5eaa9dc5bb5bdc84a098dc")  # v0.4.6
_OLLAMA_0_9_0 = ("ollama/ollama", "5f57b0ef4268a6bd9e8043d54c351a608a7e1bca")  # v0.9.0

_SNOWFLAKE = "tests/models/cassettes/test_snowflake/test_snowflake_model_streaming.yaml"
_GROQ = "tests/models/cassettes/test_groq/test_tool_use_failed_error_streaming.yaml"
_OPENROUTER = "tests/models/cassettes/test_openrouter/test_openrouter_stream_error.yaml"
_MANTLE = "tests/models/cassettes/test_bedrock_mantle/test_reused_tool_call_ids[stream].yaml"
_GEMINI_3 = "tests/models/cassettes/test_google/test_google_streaming_tool_call_thought_signature.yaml"
_GEMINI_2 = "tests/models/cassettes/test_google/test_google_model_iter_stream.yaml"
_NOVA = "tests/models/cassettes/test_bedrock/test_bedrock_model_iter_stream.yaml"
_GPT_OSS = "tests/models/cassettes/test_bedrock/test_bedrock_model_stream_empty_text_delta.yaml"
_CLAUDE_CONVERSE = "libs/aws/tests/cassettes/test_agent_loop_streaming[v0].yaml.gz"
_SCRIPT = "explore_on_llm/demo_function_calling_2.py"
_ALIBABA = "packages/alibaba/src/__fixtures__/alibaba-tool-call.chunks.txt"
_AZURE = "packages/openai/src/chat/__fixtures__/azure-model-router.1.chunks.txt"
_DEEPSEEK = "packages/deepseek/src/chat/__fixtures__/deepseek-tool-call.chunks.txt"
_MISTRAL = "packages/mistral/src/__fixtures__/mistral-tool-call.chunks.txt"
_XAI = "packages/openai-compatible/src/chat/__fixtures__/xai-tool-call.chunks.txt"
_PTC = "packages/anthropic/src/__fixtures__/anthropic-programmatic-tool-calling.1.chunks.txt"
_VERTEX_ARGS = "packages/google/src/__fixtures__/google-stream-tool-call-arguments.chunks.txt"
_VERTEX_NO_ARGS = "packages/google/src/__fixtures__/google-stream-no-args-tool-call.chunks.txt"
_VERTEX_CALL = "test/system/recordings/Chats_Tests_chats_function_calling_Vertex_AI_with_function_calling_stream.json"
_SK_CALLS = ("dotnet/src/Connectors/Connectors.Ollama.UnitTests/TestData/"
             "chat_completion_multiple_function_calls_test_response.txt")
_OLLAMA_BLOG = "https://ollama.com/blog/streaming-tool"

_SSE_SPEC = "https://html.spec.whatwg.org/multipage/server-sent-events.html#parsing-an-event-stream"
_CHUNK_TYPES = _github(*_OPENAI_PY, "src/openai/types/chat/chat_completion_chunk.py", 62)
_GEMINI_TYPES = "src/types.ts"

#: The provenance of every quirk, by name.
EVIDENCE: dict[str, tuple[Evidence, ...]] = {
    # OpenAI Chat Completions and compatible servers
    "split-id-then-name": (
        _recording(_MODELARTS, _SCRIPT, "a raw stream pasted in the script's docstring ('2.1 - "
                   "Qwen2.5-72B-32K', March 2025): Qwen2.5-72B on Huawei ModelArts, its chunks "
                   "in vLLM's shape (`chat-` ids, `chatcmpl-tool-` call ids, `stop_reason`); "
                   "the first tool delta holds `id`, `type` and `index` only, the next "
                   "`function.name` alone, then the arguments", "vllm"),
    ),
    "no-index": (
        _recording(_VERCEL, _MISTRAL, "mistral-small-latest on Mistral's API: the call "
                   "arrives whole in one delta with `id` and `function`, no `index`", "mistral"),
    ),
    "empty-id-continuations": (
        _recording(_VERCEL, _ALIBABA, "qwen3-max on Alibaba DashScope: every continuation "
                   "delta repeats `id: \"\"` and `type: \"function\"`", "alibaba-qwen"),
    ),
    "empty-name-continuations": (
        _recording(_VERCEL, "packages/mistral/src/__fixtures__/mistral-incremental-tool-call"
                   ".chunks.txt", "zai-glm-5-2 on Mistral's API, captured live (vercel/ai PR "
                   "#19181): the second delta has no `id` and `name: \"\"` beside the "
                   "arguments", "mistral"),
        _report("https://github.com/earendil-works/pi/issues/8387", "quotes a raw stream of "
                "zai-glm-5-2 from Mistral's endpoint whose continuation delta holds "
                "`\"name\":\"\"` (issue closed)", "mistral"),
    ),
    "whole-call-one-delta": (
        _recording(_PYDANTIC_AI, _GROQ, "interaction #1, Groq with openai/gpt-oss-120b: one "
                   "delta holds the call's `id`, `type`, `name`, complete arguments and "
                   "`index`", "groq"),
        _recording(_VERCEL, _XAI, "grok-3-mini on xAI: after the reasoning, one delta holds "
                   "the call's `id`, `name`, complete arguments, `index` and `type`", "xai"),
        _recording(_MODELARTS, _SCRIPT, "'2.2 - glm-4-plus' on Zhipu's API: the first chunk "
                   "holds the whole call (`id`, `index`, `type`, `name`, arguments)", "zhipu"),
        _source(_OLLAMA, "openai/openai.go", 249, "`ToToolCalls` converts each whole call "
                "(`id`, `index`, `name`, the arguments marshalled at once) and `toChunk` "
                "(line 301) puts them in one chunk's delta", "ollama-openai"),
    ),
    "fragments-same-chunk": (
        _spec(_CHUNK_TYPES, "`ChoiceDelta.tool_calls` is a list of `ChoiceDeltaToolCall`, each "
              "naming its `index`: several fragments may share one chunk; no recording shows "
              "it"),
    ),
    "interleaved-calls": (
        _spec(_CHUNK_TYPES, "a fragment names its call by `index`, so the format does not "
              "order them; OpenAI's own recordings send parallel calls one after another"),
    ),
    "empty-deltas": (
        _recording(_PYDANTIC_AI, _SNOWFLAKE, "interaction #0, Snowflake Cortex: after the text "
                   "a delta of `content: \"\"` (with `refusal: \"\"`, `role`, `tool_calls: "
                   "null`) that adds nothing", "snowflake-cortex"),
        _source(_VLLM, "vllm/entrypoints/openai/chat_completion/serving.py", 738,
                "`chat_completion_stream_generator_raw`: a token that yields no delta (a tool "
                "call's control token) still goes out as an empty `DeltaMessage()`, `delta: "
                "{}`, when logprobs or token ids are asked for", "vllm"),
    ),
    "azure-empty-first-chunk": (
        _recording(_VERCEL, _AZURE, "Azure OpenAI (model-router to gpt-5-nano): the first "
                   "chunk has `choices: []`, empty `id`, `model` and `object`, and "
                   "`prompt_filter_results`", "azure-openai"),
    ),
    "usage-only-chunk": (
        _recording(_OPENAI_PY, ".inline-snapshot/external/f82268f2fefd5cfbc7eeb59c297688be2f6"
                   "ca0849a6e4f17851b517310841d9b.bin", "gpt-4o-2024-08-06 (the SDK's "
                   "test_parse_multiple_pydantic_tools): after the finish chunk, a chunk with "
                   "`choices: []` and the usage", "openai"),
        _recording(_VERCEL, _AZURE, "the last chunk has `choices: []` and the usage",
                   "azure-openai"),
        _recording(_VERCEL, _ALIBABA, "after the finish chunk, a chunk with `choices: []` and "
                   "the usage", "alibaba-qwen"),
        _recording(_PYDANTIC_AI, _SNOWFLAKE, "the usage comes in a last chunk with "
                   "`choices: []`", "snowflake-cortex"),
        _recording(_VERCEL, _XAI, "the usage comes in a last chunk with `choices: []`", "xai"),
        _source(_OLLAMA, "middleware/openai.go", 144, "`ChatWriter.writeResponse`: with "
                "`stream_options.include_usage` the finish chunk is written again with "
                "`choices: []` and the usage", "ollama-openai"),
    ),
    "moderation-chunk": (
        _recording(_PYDANTIC_AI, "tests/models/cassettes/test_openai/test_openai_moderation_"
                   "stream.yaml", "interaction #0, gpt-5: after the usage-only chunk, another "
                   "`choices: []` chunk carrying `moderation`", "openai"),
    ),
    "usage-on-finish-chunk": (
        _recording(_VERCEL, _DEEPSEEK, "deepseek-reasoner: the chunk with `finish_reason` "
                   "carries the usage; no usage-only chunk follows", "deepseek"),
        _recording(_VERCEL, _MISTRAL, "the chunk with the call and `finish_reason` carries "
                   "the usage", "mistral"),
        _recording(_PYDANTIC_AI, _GROQ, "interaction #1: the finish chunk carries `usage`",
                   "groq"),
        _recording(_MODELARTS, _SCRIPT, "glm-4-plus: the second chunk, which repeats "
                   "`finish_reason`, carries the usage", "zhipu"),
    ),
    "x-groq-usage": (
        _recording(_PYDANTIC_AI, _GROQ, "interaction #1: the finish chunk repeats the usage "
                   "in `x_groq.usage`", "groq"),
    ),
    "finish-reason-on-last-delta": (
        _recording(_VERCEL, _MISTRAL, "`finish_reason: tool_calls` in the chunk that holds the "
                   "call", "mistral"),
        _recording(_MODELARTS, _SCRIPT, "glm-4-plus: the chunk that holds the whole call also "
                   "holds `finish_reason: tool_calls`", "zhipu"),
    ),
    "finish-reason-first-chunk": (
        _recording(_MODELARTS, _SCRIPT, "glm-4-plus: the first chunk carries the role, the "
                   "whole call and `finish_reason`", "zhipu"),
    ),
    "finish-reason-twice": (
        _recording(_MODELARTS, _SCRIPT, "glm-4-plus: a second chunk repeats `finish_reason: "
                   "tool_calls` with `role` and `content: \"\"`", "zhipu"),
        _recording(_PYDANTIC_AI, _OPENROUTER, "interaction #0, OpenRouter (minimax-m2 behind "
                   "it): two chunks in a row carry `finish_reason: length`", "openrouter"),
    ),
    "no-finish-reason": (
        _recording(_PYDANTIC_AI, _SNOWFLAKE, "interaction #0: no chunk has a `finish_reason` "
                   "key; the stream ends with the usage and `[DONE]`", "snowflake-cortex"),
    ),
    "empty-envelope": (
        _recording(_PYDANTIC_AI, _SNOWFLAKE, "every chunk has `id: \"\"`, `created: 0`, "
                   "`service_tier: \"\"` and `system_fingerprint: \"\"`", "snowflake-cortex"),
    ),
    "unicode-escaped-arguments": (
        _recording(_MODELARTS, _SCRIPT, "the Qwen2.5-72B stream: the arguments text holds "
                   "`\\u5357\\u4eac` (南京 escaped), one fragment of 12 ASCII characters",
                   "vllm"),
        _report("https://github.com/vllm-project/vllm/pull/46308", "merged June 2026: vLLM's "
                "xlam, hunyuan_a13b and seed_oss tool parsers wrote non-ASCII arguments as "
                "`\\uXXXX` escapes (`json.dumps` at its default `ensure_ascii`), as "
                "llama3_json did before PR #17704", "vllm"),
    ),
    "empty-fragments": (
        _recording(_MODELARTS, _SCRIPT, "the Qwen2.5-72B stream: an argument fragment `\"\"` "
                   "between the others", "vllm"),
        _report("https://github.com/vllm-project/vllm/issues/9693", "a vLLM tool-calling "
                "maintainer's answer (issue closed): argument diffs in vLLM may be empty "
                "strings", "vllm"),
    ),
    "n-choices": (
        _recording(_OPENAI_PY, ".inline-snapshot/external/a491adda08c3d4fde95f5b2ee3f60f7f745"
                   "f1a56d82e62f58031cc2add502380.bin", "gpt-4o with `n=3`: the deltas of "
                   "choices 0, 1 and 2 interleave, each with its role chunk and "
                   "`finish_reason`", "openai"),
    ),
    "no-object-field": (
        _recording(_MODELARTS, _SCRIPT, "glm-4-plus: no chunk has `object`", "zhipu"),
    ),
    "reasoning-content": (
        _recording(_VERCEL, _DEEPSEEK, "deepseek-reasoner streams `delta.reasoning_content` "
                   "before the call", "deepseek"),
        _recording(_VERCEL, _XAI, "grok-3-mini streams about 200 `reasoning_content` deltas "
                   "before the call", "xai"),
    ),
    # Anthropic Messages
    "pings": (
        _recording(_ANTHROPIC_PY, "tests/lib/streaming/fixtures/tool_use_response.txt",
                   "claude-sonnet-4: a `ping` event after the first `content_block_start`",
                   "anthropic"),
        _recording(_VERCEL, _PTC, "lines 1-167, claude-sonnet-4-5 with programmatic tool "
                   "calling: a `ping` among the events", "anthropic-ptc"),
    ),
    "whole-input-at-start": (
        _recording(_VERCEL, _PTC, "lines 1-167: a client `tool_use` called from code "
                   "execution whose `content_block_start` already holds the whole `input`; "
                   "no `input_json_delta` follows", "anthropic-ptc"),
    ),
    "prefilled-message-start": (
        _recording(_VERCEL, _PTC, "lines 168-169, the follow-up stream: `message_start` whose "
                   "content already holds a complete `tool_use`, then `message_stop`",
                   "anthropic-ptc"),
    ),
    "empty-thinking-delta": (
        _recording(_LLM_ANTHROPIC, "tests/cassettes/test_anthropic/test_fixed_version_tool_"
                   "chain_with_thinking_display_regression.yaml", "interaction #0, "
                   "claude-haiku-4-5: a `thinking_delta` whose `thinking` is `\"\"`",
                   "anthropic"),
    ),
    "max-tokens-open-call": (
        _recording(_ANTHROPIC_PY, "tests/lib/streaming/fixtures/incomplete_partial_json_"
                   "response.txt", "claude-3-7-sonnet: the tool's `partial_json` is cut off, "
                   "its `content_block_stop` never comes, `stop_reason: max_tokens`",
                   "anthropic"),
    ),
    # OpenAI Responses
    "no-sequence-number": (
        _recording(_PYDANTIC_AI, "tests/models/cassettes/test_openai_responses/test_openai_"
                   "responses_stream.yaml", "interaction #0, gpt-4o (March 2025): no event "
                   "has `sequence_number`", "openai-responses"),
    ),
    "call-ids-restart": (
        _recording(_PYDANTIC_AI, _MANTLE, "AWS Bedrock's /openai/v1/responses: response 1's "
                   "call is `call_0`; response 2's, after a reasoning item at output index 0, "
                   "is `call_1`: ids are numbered within each response", "bedrock-responses"),
        _recording(_PYDANTIC_AI, _MANTLE.replace("[stream]", "[request]"), "the same turns "
                   "not streamed: the calls of both responses are named `call_0`",
                   "bedrock-responses"),
    ),
    "whole-arguments-one-delta": (
        _source(_OLLAMA, "openai/responses.go", 1316, "`ResponsesStreamConverter."
                "emitFunctionCallEvents` (/v1/responses, since v0.13.3) sends each call's "
                "whole arguments in one `response.function_call_arguments.delta` (line 1346)",
                "ollama-responses"),
    ),
    # Ollama
    "no-call-id": (
        _source(_OLLAMA_0_4_6, "api/types.go", 144, "v0.4.6, the first release that streams "
                "calls (`ChatHandler` in server/routes.go sets them on a `done: false` "
                "chunk): `ToolCall` holds only `Function`; ids came in v0.12.10 (commit "
                "809b9c68f)", "ollama-older"),
        _report(_github(*_OLLAMA, "docs/api.md", 584), "the documented streamed call "
                "('Chat request (Streaming with tools)') has neither `id` nor `index`",
                "ollama-older"),
    ),
    "no-call-index": (
        _source(_OLLAMA_0_4_6, "api/types.go", 148, "v0.4.6: `ToolCallFunction` has `name` "
                "and `arguments` only; `index` came in v0.4.7 with `omitempty` (index 0 left "
                "out) and is always sent from v0.12.6 (commit c4c5a4a01)", "ollama-older"),
        _report(_OLLAMA_BLOG, "Ollama v0.8 (May 2025): the streamed call of qwen3 has no `id` "
                "and no `index`", "ollama-older"),
    ),
    "calls-in-done-chunk": (
        _recording(_SEMANTIC_KERNEL, _SK_CALLS, "five calls in the `done: true` object of a "
                   "non-streamed llama3.2 answer (Oct 2024; test data, likely edited); no "
                   "stream is shown with them: before v0.4.6 Ollama parsed calls only for "
                   "`stream: false`, and from v0.4.6 `ChatHandler` sends a parsed call on the "
                   "chunk that completes it, before the `done: true` one"),
        _spec(_github(*_OLLAMA, "docs/api.md", 584), "a stream's last object is a whole "
              "`done: true` response, of the type a non-streamed answer holds its calls in"),
    ),
    "call-without-arguments": (
        _recording(_SEMANTIC_KERNEL, _SK_CALLS, "the same test data: the fourth call has no "
                   "`arguments` key; Ollama's own `ToolCallFunction` always writes it (no "
                   "`omitempty`; `{}` when empty, `MarshalJSON` in api/types.go)"),
    ),
    "think-tag-in-content": (
        _report(_OLLAMA_BLOG, "Ollama v0.8 (May 2025), qwen3 without `think`: the last "
                "reasoning token and a literal `</think>` arrive in `message.content`, then "
                "the call", "ollama-older"),
        _source(_OLLAMA_0_9_0, "server/routes.go", 1519, "v0.9.0 `ChatHandler` parses "
                "thinking only for `think: true`; otherwise the think tags stay in `content`, "
                "until v0.12.4 turned thinking on for reasoning models (commit 90d429f5a)",
                "ollama-older"),
    ),
    # Gemini (`streamGenerateContent`)
    "vertex-envelope": (
        _recording(_JS_GENAI, _VERTEX_CALL, "Google's replay recording of Vertex AI "
                   "(gemini-2.0-flash): `createTime`, no candidate `index`, `trafficType` in "
                   "the usage", "vertex-ai", "vertex-ai-partial-args"),
        _recording(_VERCEL, _VERTEX_ARGS, "Vertex AI with streamFunctionCallArguments: "
                   "`createTime` on every record, no `index`, only `trafficType` as the usage "
                   "of the records before the last", "vertex-ai", "vertex-ai-partial-args"),
    ),
    "call-without-id": (
        _recording(_PYDANTIC_AI, _GEMINI_2, "interaction #0, the Gemini API with "
                   "gemini-2.0-flash: the `functionCall` has `name` and `args`, no `id`",
                   "gemini-api-2"),
        _recording(_JS_GENAI, _VERTEX_CALL, "Vertex AI: the `functionCall` has no `id`",
                   "vertex-ai"),
        _recording(_VERCEL, _VERTEX_ARGS, "Vertex AI: the streamed calls have no `id`",
                   "vertex-ai-partial-args"),
    ),
    "call-without-args": (
        _recording(_VERCEL, _VERTEX_NO_ARGS, "Vertex AI (gemini-3-flash) with "
                   "streamFunctionCallArguments: true (the recording script sets it; vercel/ai"
                   "#14847): the call of a tool without parameters is `{\"name\": "
                   "\"read_theme\"}`, no `args`", "vertex-ai-partial-args"),
    ),
    "partial-args": (
        _recording(_VERCEL, _VERTEX_ARGS, "Vertex AI (gemini-3.1-pro): each call is `{name, "
                   "willContinue: true}`, then `partialArgs` entries (`jsonPath`, "
                   "`stringValue`), a string closed by `stringValue: \"\"`, then a bare "
                   "`functionCall: {}`", "vertex-ai-partial-args"),
        _recording(_JS_GENAI, "test/system/recordings/MCP_related_client_Tests_"
                   "generateContentStream_with_streamFunctionCallingArguments_enabled_Vertex_"
                   "AI_should_stream_arguments_when_afc_is_disabled_explicitly.json",
                   "the same shape in Google's own replay recording", "vertex-ai-partial-args"),
    ),
    "partial-args-one-chunk": (
        _recording(_JS_GENAI, "test/system/recordings/Chats_Tests_chats_function_calling_"
                   "Vertex_AI_with_streaming_function_calling_arguments_stream.json",
                   "Vertex AI with streamFunctionCallArguments on: the name and two "
                   "`numberValue` partialArgs in one record with `STOP`, no `willContinue`",
                   "vertex-ai-partial-args"),
    ),
    "partial-args-no-terminator": (
        _recording(_VERCEL, "packages/google/src/__fixtures__/google-stream-tool-call-array-"
                   "arguments-missing-terminal-function-call.chunks.txt", "Vertex AI "
                   "(gemini-3-flash-preview, added with a live repro by vercel/ai PR #15438): "
                   "the last partialArgs entry has no `willContinue` and no bare "
                   "`functionCall: {}` follows", "vertex-ai-partial-args"),
    ),
    "partial-args-noop-chunks": (
        _recording(_VERCEL, "packages/google/src/__fixtures__/google-vertex-stream-tool-call-"
                   "arguments-nested.1.chunks.txt", "Vertex AI: records of `{\"functionCall\": "
                   "{\"willContinue\": true}}` with no arguments between array elements",
                   "vertex-ai-partial-args"),
    ),
    "calls-in-one-record": (
        _spec(_github(*_JS_GENAI, _GEMINI_TYPES, 2210), "a record's `Content.parts` is a "
              "list, so several calls may share one; no recorded stream shows it"),
        _report("https://github.com/jeremychone/rust-genai/pull/173", "merged March 2026: "
                "says gemini-2.5-flash's stream, tested live, sent two `functionCall` parts "
                "in one SSE chunk; the bytes are not quoted"),
    ),
    "empty-text-parts": (
        _spec(_github(*_JS_GENAI, _GEMINI_TYPES, 2074), "a `Part`'s `text` may be empty; the "
              "recorded streams hold `{\"text\": \"\"}` only in their last record "
              "(`empty-text-finish`)"),
    ),
    "empty-text-finish": (
        _recording(_PYDANTIC_AI, _GEMINI_3, "interaction #0, the Gemini API with "
                   "gemini-3-pro-preview: the call's record has no `finishReason`; a last "
                   "record holds `{\"text\": \"\"}` and `STOP`", "gemini-api"),
        _recording(_VERCEL, _VERTEX_NO_ARGS, "Vertex AI (gemini-3-flash): the last record is "
                   "`{\"text\": \"\"}` with `STOP`", "vertex-ai"),
    ),
    "signature-on-empty-text": (
        _recording(_VERCEL, "packages/google/src/__fixtures__/google-reasoning.chunks.txt",
                   "the Gemini API with gemini-3-pro-preview: two text records, then "
                   "`{\"text\": \"\", \"thoughtSignature\": ...}` with `STOP`", "gemini-api"),
    ),
    "usage-only-last-record": (
        _spec(_github(*_JS_GENAI, _GEMINI_TYPES, 3701), "a `GenerateContentResponse` may hold "
              "`usageMetadata` without `candidates`; no recorded stream ends that way"),
    ),
    # Bedrock Converse (`converse-stream`)
    "empty-first-input-delta": (
        _recording(_LANGCHAIN_AWS, _CLAUDE_CONVERSE, "interaction #0, Claude on Converse: the "
                   "tool block's first `toolUse.input` delta is `\"\"`, then the JSON split "
                   "mid-key", "bedrock-claude"),
    ),
    "whole-input-one-delta": (
        _recording(_PYDANTIC_AI, _NOVA, "interaction #0, Nova Micro: the tool block's whole "
                   "input `{\"city\":\"Paris\"}` in one delta", "bedrock-nova"),
    ),
    "tool-use-no-deltas": (
        _spec("https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_"
              "ConverseStream.html", "nothing requires a `contentBlockDelta` between a "
              "block's start and stop; the recorded tool blocks (Claude, Nova) always send "
              "one"),
    ),
    "tool-use-type": (
        _recording(_LANGCHAIN_AWS, _CLAUDE_CONVERSE, "`start.toolUse` carries `type: "
                   "\"tool_use\"`", "bedrock-claude"),
    ),
    "padding-field": (
        _recording(_LANGCHAIN_AWS, _CLAUDE_CONVERSE, "every frame's JSON payload holds a `p` "
                   "field of random length", "bedrock-claude"),
        _recording(_PYDANTIC_AI, _NOVA, "Nova Micro: the same `p` field in every frame",
                   "bedrock-nova"),
        _recording(_PYDANTIC_AI, _GPT_OSS, "gpt-oss: the same `p` field in every frame",
                   "bedrock-gpt-oss"),
    ),
    "empty-text-block": (
        _recording(_PYDANTIC_AI, _GPT_OSS, "gpt-oss on Converse: block 0 is a lone `text: "
                   "\"\"` delta and its stop, before the reasoning", "bedrock-gpt-oss"),
    ),
    "kimi-tool-ids": (
        _recording(_PYDANTIC_AI, "tests/models/cassettes/test_bedrock/test_bedrock_moonshotai_"
                   "tool_call.yaml", "Kimi K2 on Converse (not streamed): `toolUseId: "
                   "functions.get_temperature:0`; the ids a server assigns are the same "
                   "streamed or not", "bedrock-kimi"),
    ),
    # Byte-level, in the HTTP body
    "sse-comments": (
        _recording(_PYDANTIC_AI, _OPENROUTER, "interaction #0: 17 `: OPENROUTER PROCESSING` "
                   "comment lines before the first event", "openrouter"),
    ),
    "sse-crlf": (
        _recording(_PYDANTIC_AI, _GEMINI_3, "the raw body of the Gemini API "
                   "(gemini-3-pro-preview) ends each record in `\\r\\n\\r\\n`", "gemini-api"),
        _recording(_PYDANTIC_AI, _GEMINI_2, "the raw body of the Gemini API "
                   "(gemini-2.0-flash) ends each record in `\\r\\n\\r\\n`", "gemini-api-2"),
        _spec(_SSE_SPEC, "a line may end in CRLF, LF or CR"),
    ),
    "data-padding": (
        _recording(_LLM_ANTHROPIC, "tests/cassettes/test_anthropic/test_tools.yaml",
                   "interaction #0, claude-haiku-4-5: each `data:` JSON padded with spaces "
                   "before its closing brace (the Messages API that programmatic tool calling "
                   "runs on)", "anthropic", "anthropic-ptc"),
        _recording(_ANTHROPIC_PY, "tests/lib/streaming/fixtures/incomplete_partial_json_"
                   "response.txt", "claude-3-7-sonnet: the same padding", "anthropic",
                   "anthropic-ptc"),
    ),
    "data-before-event": (
        _recording(_PYDANTIC_AI, _MANTLE, "interaction #0: in every block the `data:` line "
                   "comes before the `event:` line", "bedrock-responses"),
    ),
    "sorted-keys": (
        _recording(_PYDANTIC_AI, _MANTLE, "interaction #0: every JSON object's keys sorted",
                   "bedrock-responses"),
        _recording(_PYDANTIC_AI, _SNOWFLAKE, "interaction #0: every chunk's keys sorted",
                   "snowflake-cortex"),
    ),
    "raw-line-separators": (
        _spec("https://www.rfc-editor.org/rfc/rfc8259#section-7", "JSON must escape only `\"`, "
              "`\\` and U+0000 to U+001F: U+2028, U+2029 and U+0085 may stand raw in a "
              "string"),
        _report("https://github.com/BerriAI/litellm/pull/30602", "open: says Vertex/Gemini "
                "thinking answers carry U+2028, U+2029 or U+0085 raw in the `data:` JSON, "
                "which broke LiteLLM's proxy that split lines on them (issue #30471); the "
                "bytes are not quoted"),
    ),
    "spaced-json": (
        _recording(_PYDANTIC_AI, _GEMINI_3, "the raw body: `\": \"` after keys and `,` alone "
                   "between members (`\"key\": value,\"next\"`)", "gemini-api"),
        _recording(_PYDANTIC_AI, _GEMINI_2, "gemini-2.0-flash: the same spacing",
                   "gemini-api-2"),
    ),
    "no-space-after-data": (
        _spec(_SSE_SPEC, "a field value loses one leading space if there is one: "
              "`data:{...}` is the same event as `data: {...}`"),
    ),
}
