"""The ollama Python client as its docs stream a tool-calling chat: `chat(stream=True)`,
the content pieces joined and the tool calls of every chunk collected."""

import ollama

from _protocol import call, openai_tools, outcome, serve


def run(base_url, wire, request):
    client = ollama.Client(host=base_url.rstrip("/"))
    content, tool_calls = "", []
    for chunk in client.chat(model="llama3.2", stream=True, messages=[
            {"role": "user", "content": "What is the weather in Paris?"}],
            tools=openai_tools(request) or None):
        if chunk.message.content:
            content += chunk.message.content
        if chunk.message.tool_calls:
            tool_calls.extend(chunk.message.tool_calls)
    calls = [call(tc.function.name, tc.function.arguments, getattr(tc, "id", None))
             for tc in tool_calls]
    return outcome(calls, content, None)


if __name__ == "__main__":
    serve(__file__, run, {})  # no request feature concerns Ollama's wire
