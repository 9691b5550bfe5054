"""LlamaIndex's OpenAI LLM as its users stream: `stream_chat()`, the last `ChatResponse`
kept, its calls read with `get_tool_calls_from_response()`."""

from llama_index.core.llms import ChatMessage
from llama_index.core.tools import FunctionTool
from llama_index.llms.openai import OpenAI
from pydantic import ConfigDict, create_model

from _protocol import call, outcome, serve, tools_of


# include_usage through `additional_kwargs`; not `n`: `stream_chat` reads `choices[0]` of
# each chunk, whatever choice it is, so its users cannot stream several.
FEATURES = {"openai-chat": ["include_usage"]}


def function_tool(name, description):
    """A tool of the told name whose schema takes any arguments (a model allowing extra
    keys); the harness reads calls, it runs none."""
    arguments = create_model("Arguments", __config__=ConfigDict(extra="allow"))
    return FunctionTool.from_defaults(fn=lambda **kwargs: None, name=name,
                                      description=description, fn_schema=arguments)


def run(base_url, wire, request):
    # `additional_kwargs` is where its users pass OpenAI parameters the class has no field
    # for; it drops `stream_options` itself from requests that do not stream.
    extra = {"stream_options": {"include_usage": True}} if request.get("include_usage") else {}
    llm = OpenAI(model="gpt-4o", api_key="sk-mcs", api_base=base_url.rstrip("/") + "/v1",
                 max_retries=0, additional_kwargs=extra)
    last = None
    tools = [function_tool(name, description) for name, description, _ in tools_of(request)]
    prompt = ChatMessage(role="user", content="What is the weather in Paris?")
    stream = (llm.stream_chat_with_tools(tools, chat_history=[prompt], allow_parallel_tool_calls=True)
              if tools
              else llm.stream_chat([prompt]))
    for last in stream:
        pass
    if last is None:
        return outcome()
    calls = [call(selection.tool_name, selection.tool_kwargs, selection.tool_id)
             for selection in llm.get_tool_calls_from_response(last, error_on_no_tool_call=False)]
    return outcome(calls, last.message.content or "", None)


if __name__ == "__main__":
    serve(__file__, run, FEATURES)
