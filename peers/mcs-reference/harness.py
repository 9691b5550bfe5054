"""The first row: `mcs_reference` as a client, raw HTTP with `http.client` fed to its buffer
(`mcs_conformance.clients.reference_client`). It has no requirements.txt: it runs in the
project's own environment, the one that runs `peers/run.py`."""

from mcs_conformance.clients.reference_client import PATHS, reference_client

from _protocol import serve

# The reference writes its request body itself: it can ask for anything.
FEATURES = {"openai-chat": ["n", "include_usage"],
            "anthropic-messages": ["thinking", "programmatic_tool_calling",
                                   "programmatic_follow_up"],
            "gemini": ["include_thoughts", "stream_function_call_arguments"]}


def whole(base_url, wire, request):
    """The non-streaming call: the same request with `stream` false (Gemini's
    `:generateContent`, Converse's `/converse`), the whole body read by the same strategy."""
    return reference_client(base_url, wire, request, stream=False)


if __name__ == "__main__":
    serve(__file__, reference_client, FEATURES, dict.fromkeys(PATHS, whole))
