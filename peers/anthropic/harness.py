"""The anthropic SDK as its users stream: `messages.stream()` then `get_final_message()`;
not streamed, `messages.create()` (the README's "Getting started"), the same request and the
same reading of the `Message` it returns."""

import anthropic

from _protocol import call, outcome, serve, tools_of

# Every feature is a documented parameter of `messages.create()` / `messages.stream()` (the
# SDK's generated signatures and types), so none is left out:
# thinking: `thinking={"type": "enabled", "budget_tokens": N}` (ThinkingConfigParam);
# programmatic_tool_calling: `client.beta.messages` with `betas=[...]` (the anthropic-beta
#   header), the code execution tool and a tool's `allowed_callers` (BetaToolParam);
# programmatic_follow_up: the told history after the question (BetaMessageParam) and
#   `container`;
# max_tokens: `max_tokens`, required: the told N, else 4096;
# stop_sequences: `stop_sequences`;
# web_search, web_fetch, code_execution, tool_search: `tools` takes the server tools as the
#   API writes them (ToolUnionParam: WebSearchTool20250305Param, WebFetchTool20250910Param,
#   CodeExecutionTool20250825Param, ToolSearchToolRegex20251119Param / Bm25);
# citations, search_results: the user message's content blocks (ContentBlockParam:
#   DocumentBlockParam with a text, base64 PDF or content source, SearchResultBlockParam),
#   `citations: {"enabled": true}`.
FEATURES = {"anthropic-messages": ["thinking", "programmatic_tool_calling",
                                   "programmatic_follow_up", "max_tokens",
                                   "stop_sequences", "web_search", "web_fetch",
                                   "code_execution", "tool_search", "citations",
                                   "search_results"]}

PROMPT = "What is the weather in Paris?"


def prompt_of(request):
    """The user message: the told documents and search results (as content blocks, before
    the question, as the citations docs show them), then the question."""
    sources = [*request.get("documents", ()), *request.get("search_results", ())]
    content = [*sources, {"type": "text", "text": PROMPT}] if sources else PROMPT
    return [{"role": "user", "content": content}]


def messages_of(base_url, request):
    """The messages API to call (`client.beta.messages` when betas are told) and the
    request's keywords, the same streamed or not."""
    client = anthropic.Anthropic(api_key="sk-mcs", base_url=base_url, max_retries=0)
    options = {"model": "claude-sonnet-4-5", "max_tokens": request.get("max_tokens", 4096),
               "messages": prompt_of(request)}
    callers = {key: request[key] for key in ("allowed_callers",) if key in request}
    tools = [{"name": name, "description": description, "input_schema": parameters, **callers}
             for name, description, parameters in tools_of(request)]
    tools += request.get("native_tools", ())
    if tools:
        options["tools"] = tools
    if "thinking" in request:
        options["thinking"] = {"type": "enabled", "budget_tokens": request["thinking"]["budget_tokens"]}
    if request.get("stop_sequences"):
        options["stop_sequences"] = request["stop_sequences"]
    if "follow_up" in request:
        options["messages"] += request["follow_up"]["messages"]
        options["container"] = request["follow_up"]["container"]
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
