"""Request features and the shapes each one elicits: the one place that knows the ties.

A real server sends some shapes only to a request that asks for them: a `computer_call`
only when the request declares the computer tool, a citation only when it carries a cited
document, a stop at the token limit only when it sets one (the kit's answers are a few
hundred characters: no model's own ceiling stops them). `FEATURES` names, per wire, each
such request feature, what the request asks, the shapes it elicits and where the provider
documents it. The case generators take `features` (what the request can ask on their wire;
None, every one: a strategy under certification, a v1 harness) and draw a tied shape only
when `asks(features, name)`; `_requests.case_request` reads the same ties back from a case.

Shapes a provider sends whatever the request (a model's `reasoning_content` on DeepSeek,
Anthropic's pings, Gemini's thought signatures) are tied to nothing: they belong to the
server profiles (wires/_profiles.py).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable

__all__ = ["ALWAYS_ASKED", "ANTHROPIC_CITATION_FEATURES", "ANTHROPIC_SERVER_TOOL_FEATURES",
           "FEATURES", "Feature", "MAX_TOKENS", "QUIRK_FEATURES", "RESPONSES_ANNOTATION_FEATURES",
           "RESPONSES_ITEM_FEATURES", "asked", "asks", "granted",
           "item_feature", "quirks_asked"]

_CHAT, _RESPONSES, _ANTHROPIC, _GEMINI, _BEDROCK, _OLLAMA = (
    "openai-chat", "openai-responses", "anthropic-messages", "gemini", "bedrock-converse",
    "ollama-chat")

#: The token limit a case stopped at it tells its request to set.
MAX_TOKENS = 2048

_OPENAI_API = "OpenAI API reference (openai-python's generated types)"
_CLAUDE = "https://platform.claude.com/docs/en/"
_OPENAI_GUIDES = "https://platform.openai.com/docs/guides/"


@dataclass(frozen=True)
class Feature:
    """One request feature of one wire: `asks` what the request asks, `serves` the shapes
    only that request gets, `source` where the provider says so."""

    wire: str
    name: str
    asks: str
    serves: str
    source: str


_LIMIT = "a stop at the token limit"
_TABLE = (
    # OpenAI Chat Completions
    (_CHAT, "n", "`n` above 1", "several choices (quirk `n-choices`)",
     f"{_OPENAI_API}, chat.completions.create `n`: how many choices to generate"),
    (_CHAT, "include_usage", "`stream_options: {include_usage: true}`",
     "the usage-only chunk and the moderation chunk after it (`usage-only-chunk`, "
     "`moderation-chunk`)",
     f"{_OPENAI_API}, `stream_options.include_usage`: 'an additional chunk will be streamed "
     "before the data: [DONE] message'"),
    (_CHAT, "max_tokens", "`max_completion_tokens` (or `max_tokens`)",
     f"{_LIMIT}: `finish_reason: length`",
     f"{_OPENAI_API}, ChatCompletion `finish_reason`: '`length` if the maximum number of "
     "tokens specified in the request was reached'"),
    (_CHAT, "logprobs", "`logprobs: true`", "a choice's `logprobs` (per content token)",
     f"{_OPENAI_API}, `logprobs`: 'If true, returns the log probabilities of each output "
     "token returned in the content of message'"),
    (_CHAT, "web_search", "`web_search_options: {}` (a search model)",
     "`url_citation` annotations", f"{_OPENAI_API}, ChatCompletionMessage `annotations`: "
     f"'when applicable, as when using the web search tool'; {_OPENAI_GUIDES}tools-web-search"),
    # OpenAI Responses: a tool's items come only when the request declares that tool
    (_RESPONSES, "custom_tools", "a tool `{type: custom, name}` per name",
     "`custom_tool_call` items", f"{_OPENAI_GUIDES}function-calling#custom-tools"),
    (_RESPONSES, "computer_use", "a tool `{type: computer_use_preview, ...}` (or `computer`)",
     "`computer_call` items", f"{_OPENAI_GUIDES}tools-computer-use"),
    (_RESPONSES, "local_shell", "a tool `{type: local_shell}`", "`local_shell_call` items",
     f"{_OPENAI_GUIDES}tools-local-shell"),
    (_RESPONSES, "shell", "a tool `{type: shell}` run by the client (no environment, or "
     "`local`)", "`shell_call` items the client runs", f"{_OPENAI_GUIDES}tools-shell"),
    (_RESPONSES, "hosted_shell", "a tool `{type: shell, environment: {type: container_auto}}`",
     "a `shell_call` run in a hosted container and its `shell_call_output`",
     f"{_OPENAI_GUIDES}tools-shell (hosted environments)"),
    (_RESPONSES, "apply_patch", "a tool `{type: apply_patch}`", "`apply_patch_call` items",
     f"{_OPENAI_GUIDES}tools-apply-patch"),
    (_RESPONSES, "web_search", "a tool `{type: web_search}` (or `web_search_preview`)",
     "`web_search_call` items and `url_citation` annotations",
     f"{_OPENAI_GUIDES}tools-web-search"),
    (_RESPONSES, "file_search", "a tool `{type: file_search, vector_store_ids}`",
     "`file_search_call` items and `file_citation` annotations",
     f"{_OPENAI_GUIDES}tools-file-search"),
    (_RESPONSES, "code_interpreter", "a tool `{type: code_interpreter, container}`",
     "`code_interpreter_call` items", f"{_OPENAI_GUIDES}tools-code-interpreter"),
    (_RESPONSES, "image_generation", "a tool `{type: image_generation}`",
     "`image_generation_call` items", f"{_OPENAI_GUIDES}tools-image-generation"),
    (_RESPONSES, "mcp", "a tool `{type: mcp, server_label, server_url}`",
     "`mcp_list_tools`, `mcp_call` and `mcp_approval_request` items",
     f"{_OPENAI_GUIDES}tools-remote-mcp"),
    (_RESPONSES, "tool_search", "a tool `{type: tool_search}`",
     "`tool_search_call` and `tool_search_output` items",
     f"{_OPENAI_API}, ToolSearchToolParam: 'Hosted or BYOT tool search configuration'"),
    (_RESPONSES, "compaction", "`context_management: [{type: compaction}]`", "`compaction` items",
     f"{_OPENAI_API}, `context_management`: 'Currently only compaction is supported'"),
    (_RESPONSES, "reasoning_summary", "`reasoning: {summary: auto}`",
     "reasoning summaries (`summary_text` parts, `reasoning_summary_*` events)",
     f"{_OPENAI_GUIDES}reasoning#reasoning-summaries"),
    (_RESPONSES, "include", "`include: [code_interpreter_call.outputs]`",
     "a code interpreter call's `outputs`",
     f"{_OPENAI_API}, `include`: '`code_interpreter_call.outputs`: Includes the outputs of "
     "python code execution in code interpreter tool call items'"),
    (_RESPONSES, "background", "`background: true`", "the `response.queued` event",
     f"{_OPENAI_GUIDES}background"),
    (_RESPONSES, "max_tokens", "`max_output_tokens`",
     f"{_LIMIT}: status `incomplete`, `incomplete_details.reason: max_output_tokens`",
     f"{_OPENAI_API}, Response `incomplete_details` and `max_output_tokens`"),
    # Anthropic Messages
    (_ANTHROPIC, "thinking", "`thinking: {type: enabled, budget_tokens}`",
     "thinking and redacted thinking blocks (`empty-thinking-delta` among them)",
     f"{_CLAUDE}build-with-claude/extended-thinking"),
    (_ANTHROPIC, "programmatic_tool_calling", "the header `anthropic-beta: "
     "advanced-tool-use-2025-11-20`, the code execution tool `code_execution_20250825`, and "
     "`allowed_callers: [code_execution_20250825]` on the function tools",
     "calls made from code execution (`whole-input-at-start`)",
     f"{_CLAUDE}agents-and-tools/tool-use/programmatic-tool-calling"),
    (_ANTHROPIC, "programmatic_follow_up", "programmatic tool calling's follow-up (with "
     "`programmatic_tool_calling`): the history holding a call made from code execution and "
     "the client's `tool_result` for it, and the same `container`",
     "a `message_start` already holding the code's next calls, then `message_stop` "
     "(`prefilled-message-start`)",
     f"{_CLAUDE}agents-and-tools/tool-use/programmatic-tool-calling; recorded as the second "
     "stream of vercel/ai's anthropic-programmatic-tool-calling.1.chunks.txt (lines 168-169)"),
    (_ANTHROPIC, "max_tokens", "`max_tokens` (the API requires it: every request asks it)",
     f"{_LIMIT}: `stop_reason: max_tokens` (`max-tokens-open-call` among them)",
     f"{_CLAUDE}api/messages (`max_tokens` required; stop_reason `max_tokens`)"),
    (_ANTHROPIC, "stop_sequences", "`stop_sequences` holding the sequence",
     "`stop_reason: stop_sequence` and its `stop_sequence`",
     f"{_CLAUDE}api/messages: '`stop_sequence`: one of your provided custom stop_sequences "
     "was generated'"),
    (_ANTHROPIC, "web_search", "a tool `{type: web_search_20250305, name: web_search}`",
     "`server_tool_use` web_search, `web_search_tool_result`, `web_search_result_location` "
     "citations", f"{_CLAUDE}agents-and-tools/tool-use/web-search-tool"),
    (_ANTHROPIC, "web_fetch", "a tool `{type: web_fetch_20250910, name: web_fetch}`",
     "`server_tool_use` web_fetch and `web_fetch_tool_result`",
     f"{_CLAUDE}agents-and-tools/tool-use/web-fetch-tool"),
    (_ANTHROPIC, "code_execution", "a tool `{type: code_execution_20250825, name: "
     "code_execution}`", "`server_tool_use` code_execution, bash_code_execution and "
     "text_editor_code_execution, and their results",
     f"{_CLAUDE}agents-and-tools/tool-use/code-execution-tool"),
    (_ANTHROPIC, "tool_search", "a tool `{type: tool_search_tool_regex_20251119}` (or bm25)",
     "`server_tool_use` tool_search_tool_* and `tool_search_tool_result`",
     f"{_CLAUDE}agents-and-tools/tool-use/tool-search-tool"),
    (_ANTHROPIC, "citations", "a `document` block with `citations: {enabled: true}`: plain "
     "text, PDF or custom content", "`char_location`, `page_location` and "
     "`content_block_location` citations", f"{_CLAUDE}build-with-claude/citations"),
    (_ANTHROPIC, "search_results", "a `search_result` block with `citations: {enabled: true}`",
     "`search_result_location` citations", f"{_CLAUDE}build-with-claude/search-results"),
    # Gemini
    (_GEMINI, "include_thoughts", "`generationConfig.thinkingConfig.includeThoughts: true`",
     "thought summary parts (`thought: true`)",
     "google-genai ThinkingConfig.include_thoughts: 'Indicates whether to include thoughts "
     "in the response'"),
    (_GEMINI, "stream_function_call_arguments", "`toolConfig.functionCallingConfig."
     "streamFunctionCallArguments: true` (Vertex AI)", "call arguments streamed as "
     "`partialArgs` (`partial-args` and its kin)",
     "https://cloud.google.com/vertex-ai/generative-ai/docs/multimodal/function-calling"),
    (_GEMINI, "max_tokens", "`generationConfig.maxOutputTokens`",
     f"{_LIMIT}: `finishReason: MAX_TOKENS`",
     "google-genai FinishReason.MAX_TOKENS: 'the maximum number of tokens allowed by the "
     "max_output_tokens parameter'"),
    # Bedrock Converse
    (_BEDROCK, "reasoning", "`additionalModelRequestFields.thinking: {type: enabled, "
     "budget_tokens}` (Claude; Nova's `reasoningConfig`)", "`reasoningContent` blocks",
     "https://docs.aws.amazon.com/bedrock/latest/userguide/claude-messages-extended-thinking"
     ".html"),
    (_BEDROCK, "max_tokens", "`inferenceConfig.maxTokens`", f"{_LIMIT}: `stopReason: max_tokens`",
     "botocore bedrock-runtime InferenceConfiguration.maxTokens, StopReason"),
    # Ollama
    (_OLLAMA, "think", "`think: true` (or a level)", "the message's `thinking` field",
     "https://ollama.com/blog/thinking: 'When thinking is enabled, the output will separate "
     "the model's thinking from the model's output'"),
    (_OLLAMA, "max_tokens", "`options.num_predict`", f"{_LIMIT}: `done_reason: length`",
     "https://docs.ollama.com/api (`num_predict`: maximum number of tokens to predict)"),
)

#: wire -> feature name -> `Feature`.
FEATURES: dict[str, dict[str, Feature]] = {
    wire: {row[1]: Feature(*row) for row in _TABLE if row[0] == wire}
    for wire in dict.fromkeys(row[0] for row in _TABLE)}

#: Features every request of a wire asks, declared or not: Anthropic requires `max_tokens`.
ALWAYS_ASKED: dict[str, frozenset] = {_ANTHROPIC: frozenset({"max_tokens"})}

#: Quirk -> the request feature (of the quirk's wire) without which no real server sends it.
QUIRK_FEATURES: dict[str, str] = {
    "n-choices": "n",
    "usage-only-chunk": "include_usage",
    "moderation-chunk": "include_usage",  # rides after the usage-only chunk
    "empty-thinking-delta": "thinking",
    "whole-input-at-start": "programmatic_tool_calling",
    "prefilled-message-start": "programmatic_follow_up",
    "max-tokens-open-call": "max_tokens",
    "partial-args": "stream_function_call_arguments",
    "call-without-args": "stream_function_call_arguments",  # recorded only with it set
    "partial-args-one-chunk": "stream_function_call_arguments",
    "partial-args-no-terminator": "stream_function_call_arguments",
    "partial-args-noop-chunks": "stream_function_call_arguments",
}

#: OpenAI Responses output item type -> its feature (a function call needs only its tool;
#: a `shell_call` with an `environment` is `hosted_shell`'s: `item_feature`).
RESPONSES_ITEM_FEATURES: dict[str, str] = {
    "custom_tool_call": "custom_tools", "computer_call": "computer_use",
    "local_shell_call": "local_shell", "shell_call": "shell", "apply_patch_call": "apply_patch",
    "web_search_call": "web_search", "file_search_call": "file_search",
    "code_interpreter_call": "code_interpreter", "image_generation_call": "image_generation",
    "mcp_call": "mcp", "mcp_list_tools": "mcp", "mcp_approval_request": "mcp",
    "tool_search_call": "tool_search", "tool_search_output": "tool_search",
    "compaction": "compaction", "shell_call_output": "hosted_shell",
}
#: OpenAI Responses annotation type -> the tool whose results it cites.
RESPONSES_ANNOTATION_FEATURES: dict[str, str] = {"url_citation": "web_search",
                                                 "file_citation": "file_search"}
#: Anthropic server tool name (a `server_tool_use` block's) -> the tool the request declares.
ANTHROPIC_SERVER_TOOL_FEATURES: dict[str, str] = {
    "web_search": "web_search", "web_fetch": "web_fetch", "code_execution": "code_execution",
    "bash_code_execution": "code_execution", "text_editor_code_execution": "code_execution",
    "tool_search_tool_regex": "tool_search", "tool_search_tool_bm25": "tool_search",
}
#: Anthropic citation type -> what the request must carry for it: a cited document (plain
#: text, PDF, custom content), a cited search result, or the web search tool.
ANTHROPIC_CITATION_FEATURES: dict[str, str] = {
    "char_location": "citations", "page_location": "citations",
    "content_block_location": "citations", "search_result_location": "search_results",
    "web_search_result_location": "web_search",
}


def item_feature(item: dict) -> str | None:
    """The feature an OpenAI Responses output item needs (None: a message, a reasoning item,
    a function call)."""
    if item.get("type") == "shell_call" and "environment" in item:
        return "hosted_shell"
    return RESPONSES_ITEM_FEATURES.get(item.get("type"))


def granted(wire: str, features: Iterable[str] | None) -> frozenset | None:
    """The features a request of `wire` asks: those declared and those every request asks
    (`ALWAYS_ASKED`); None stays None (every shape)."""
    if features is None:
        return None
    return frozenset(features) | ALWAYS_ASKED.get(wire, frozenset())


def asks(features: frozenset | None, name: str) -> bool:
    """Whether a request asking `features` (None: every one) may be served `name`'s shapes."""
    return features is None or name in features


def asked(shapes: Iterable[str], ties: dict[str, str], features: frozenset | None) -> tuple:
    """The `shapes` (in their order) whose feature in `ties` a request asking `features`
    asks: the citation types, the server tools a generator may draw."""
    return tuple(shape for shape in shapes if asks(features, ties[shape]))


def quirks_asked(allowed: frozenset, wire: str, features: frozenset | None) -> frozenset:
    """`allowed` (a wire's drawable quirks) less those whose feature a request of `wire`
    asking `features` does not ask; a server profile's selection stays one."""
    features = granted(wire, features)
    if features is None:
        return allowed
    return allowed - {name for name in allowed
                      if name in QUIRK_FEATURES and QUIRK_FEATURES[name] not in features}
