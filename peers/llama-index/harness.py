"""LlamaIndex's OpenAI LLM as its users stream: `stream_chat()`, the last `ChatResponse`
kept, its calls read with `get_tool_calls_from_response()`."""

from llama_index.core.llms import ChatMessage
from llama_index.llms.openai import OpenAI

from _protocol import call, outcome, serve


def run(base_url, wire):
    llm = OpenAI(model="gpt-4o", api_key="sk-mcs", api_base=base_url.rstrip("/") + "/v1",
                 max_retries=0)
    last = None
    for last in llm.stream_chat([ChatMessage(role="user",
                                             content="What is the weather in Paris?")]):
        pass
    if last is None:
        return outcome()
    calls = [call(selection.tool_name, selection.tool_kwargs, selection.tool_id)
             for selection in llm.get_tool_calls_from_response(last, error_on_no_tool_call=False)]
    return outcome(calls, last.message.content or "", None)


if __name__ == "__main__":
    serve(__file__, run)
