"""langchain-anthropic as its users stream: `ChatAnthropic.stream()`, the chunks summed with
`+`, the calls read from the summed `AIMessageChunk`'s `tool_calls` and
`invalid_tool_calls`; not streamed, `.invoke()` (as `bind_tools`'s docstring shows), the
same reading of the `AIMessage` it returns."""

from langchain_anthropic import ChatAnthropic
from langchain_core.messages import AIMessage, HumanMessage, ToolMessage

from _protocol import outcome, serve, tools_of
from _langchain import PROMPT, summed_calls, summed_stream, with_tools

# What ChatAnthropic's documented fields and inputs ask (its class fields; the LangChain
# Anthropic integration page: built-in tools, citations, search results):
# thinking: `thinking={"type": "enabled", "budget_tokens": N}`; programmatic_tool_calling:
#   `betas=[...]`, the code execution tool and tools in Anthropic's format with
#   `allowed_callers` (AnthropicTool, which `convert_to_anthropic_tool` passes through);
# programmatic_follow_up: the `container` field, and the told history as LangChain messages
#   (an AIMessage holding the content blocks, a ToolMessage for each tool_result);
# max_tokens: `max_tokens` (the told N, else 4096); stop_sequences: `stop_sequences` (alias
#   `stop`);
# web_search, web_fetch, code_execution, tool_search: the server tool's dict in
#   `bind_tools`, which sends a built-in tool unchanged (`_is_builtin_tool`: the
#   web_search_, web_fetch_, code_execution_ and tool_search_ types; it adds the beta a
#   tool needs itself);
# citations, search_results: `document` and `search_result` content blocks with
#   `citations: {"enabled": True}` in the HumanMessage, which `_format_messages` sends as
#   they are. None is left out.
FEATURES = {"anthropic-messages": ["thinking", "programmatic_tool_calling",
                                   "programmatic_follow_up", "max_tokens",
                                   "stop_sequences", "web_search", "web_fetch",
                                   "code_execution", "tool_search", "citations",
                                   "search_results"]}


def model_of(base_url, request):
    """`ChatAnthropic` with the told tools bound and its options, the same streamed or not."""
    options = {}
    if "thinking" in request:
        options["thinking"] = {"type": "enabled", "budget_tokens": request["thinking"]["budget_tokens"]}
    if request.get("betas"):
        options["betas"] = request["betas"]
    if request.get("stop_sequences"):
        options["stop_sequences"] = request["stop_sequences"]
    if "follow_up" in request:
        options["container"] = request["follow_up"]["container"]
    model = ChatAnthropic(model="claude-sonnet-4-5", api_key="sk-mcs",
                          max_tokens=request.get("max_tokens", 4096),
                          base_url=base_url.rstrip("/"), max_retries=0, **options)
    if "allowed_callers" not in request:
        return with_tools(model, request, request.get("native_tools", ()))
    # a tool in Anthropic's own format keeps its `allowed_callers` (AnthropicTool)
    tools = [{"name": name, "description": description, "input_schema": parameters,
              "allowed_callers": request["allowed_callers"]}
             for name, description, parameters in tools_of(request)]
    return model.bind_tools([*tools, *request.get("native_tools", ())])


def history_of(messages):
    """The told follow-up messages as LangChain writes them: an assistant turn as an
    AIMessage of its content blocks, a user turn's tool results as ToolMessages."""
    history = []
    for message in messages:
        if message["role"] == "assistant":
            history.append(AIMessage(message["content"]))
        else:
            history += [ToolMessage(block["content"], tool_call_id=block["tool_use_id"])
                        for block in message["content"] if block["type"] == "tool_result"]
    return history


def prompt_of(request):
    """The question; with told documents or search results, one HumanMessage holding them
    (as content blocks, before the question) and the question; then the follow-up's
    history, when told."""
    sources = [*request.get("documents", ()), *request.get("search_results", ())]
    if not sources and "follow_up" not in request:
        return PROMPT
    question = HumanMessage([*sources, {"type": "text", "text": PROMPT}] if sources else PROMPT)
    return [question, *history_of(request.get("follow_up", {}).get("messages", ()))]


def answer_of(message):
    """The calls and text of a summed `AIMessageChunk` or an `AIMessage`; no native message."""
    if message is None:
        return outcome()
    return outcome(summed_calls(message), message.text, None)


def run(base_url, wire, request):
    return answer_of(summed_stream(model_of(base_url, request), prompt_of(request)))


def whole(base_url, wire, request):
    return answer_of(model_of(base_url, request).invoke(prompt_of(request)))


if __name__ == "__main__":
    serve(__file__, run, FEATURES, {"anthropic-messages": whole})
