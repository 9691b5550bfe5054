"""boto3 as its users stream with tools: `client.converse_stream(..., toolConfig=...)` on a
`bedrock-runtime` client at the case's endpoint, each event of `response["stream"]` read as
the Bedrock User Guide's streaming tool-use example reads them (`stream_messages`): a tool
block's `toolUse.input` deltas joined and parsed with `json.loads` at its
`contentBlockStop`, a block without input kept as the text gathered so far, the stop reason
from `messageStop`. boto3 assembles no message of its own (the dict that example builds is
the user's), so there is none; a failed answer is what boto3 raises (`EventStreamError` for
an exception event) or a stop reason the service model names for a failed answer."""

import json

import boto3
from botocore.config import Config

from _protocol import call, outcome, serve, tools_of

PROMPT = "What is the weather in Paris?"
MODEL = "anthropic.claude-3-5-sonnet-20240620-v1:0"

# Stop reasons of `StopReason` (botocore's bedrock-runtime model) that say the answer failed.
FAILED_STOP = {"guardrail_intervened", "content_filtered", "malformed_model_output",
               "malformed_tool_use"}

# What `converse_stream` and `converse` take (botocore's bedrock-runtime service model, the
# same request shapes for both operations):
# max_tokens: `inferenceConfig={"maxTokens": N}` (InferenceConfiguration.maxTokens);
# reasoning: `additionalModelRequestFields={"thinking": {"type": "enabled", "budget_tokens": N}}`
#   ("additional inference parameters that the model supports"; the Bedrock User Guide's
#   "Extended thinking" page enables Claude's thinking with exactly this field).
# No feature of the wire is left out.
FEATURES = {"bedrock-converse": ["max_tokens", "reasoning"]}


def arguments(value):
    """A parsed input as the outcome carries it: an object as it is, text kept raw, any other
    JSON value (which `json.loads` parsed and kept no text of) written back as its JSON text."""
    return value if isinstance(value, (dict, str)) else json.dumps(value)


def parsed(text):
    """A tool block's joined input: `{}` when empty, the JSON value, or the raw text."""
    if not text:
        return {}
    try:
        return json.loads(text)
    except ValueError:
        return text


def client_of(base_url):
    """A `bedrock-runtime` client at the case's endpoint, dummy keys, one attempt."""
    return boto3.client("bedrock-runtime", endpoint_url=base_url, region_name="us-east-1",
                        aws_access_key_id="mcs", aws_secret_access_key="mcs",
                        config=Config(retries={"total_max_attempts": 1}))


def converse_request(request):
    """The keyword arguments of `converse_stream` and `converse` alike: the told tools as
    `toolConfig.tools[].toolSpec`, a told token limit and thinking budget (`FEATURES`)."""
    options = {"modelId": MODEL, "messages": [{"role": "user", "content": [{"text": PROMPT}]}]}
    tools = [{"toolSpec": {"name": name, "description": description,
                           "inputSchema": {"json": parameters}}}
             for name, description, parameters in tools_of(request)]
    if tools:
        options["toolConfig"] = {"tools": tools}
    if "max_tokens" in request:
        options["inferenceConfig"] = {"maxTokens": request["max_tokens"]}
    if "reasoning" in request:
        options["additionalModelRequestFields"] = {"thinking": {
            "type": "enabled", "budget_tokens": request["reasoning"]["budget_tokens"]}}
    return options


def answer_of(content, stop_reason):
    """The outcome of a Converse message's content blocks and its stop reason."""
    calls = [call(block["toolUse"]["name"], arguments(block["toolUse"]["input"]),
                  block["toolUse"]["toolUseId"]) for block in content if "toolUse" in block]
    shown = "".join(block["text"] for block in content if "text" in block)
    failed = f"stopReason: {stop_reason}" if stop_reason in FAILED_STOP else None
    return outcome(calls, shown, None, failed)


def run(base_url, wire, request):
    response = client_of(base_url).converse_stream(**converse_request(request))
    stop_reason, content, text, tool_use = "", [], "", {}
    for chunk in response["stream"]:
        if "contentBlockStart" in chunk:
            tool = chunk["contentBlockStart"]["start"]["toolUse"]
            tool_use["toolUseId"] = tool["toolUseId"]
            tool_use["name"] = tool["name"]
            tool_use["input"] = ""  # a tool without parameters may send no input delta
        elif "contentBlockDelta" in chunk:
            delta = chunk["contentBlockDelta"]["delta"]
            if "toolUse" in delta:
                if "input" not in tool_use:
                    tool_use["input"] = ""
                tool_use["input"] += delta["toolUse"]["input"]
            elif "text" in delta:
                text += delta["text"]
        elif "contentBlockStop" in chunk:
            if "input" in tool_use:
                # the docs' json.loads, kept from failing on an empty input (no parameters)
                # and on text that is not JSON (kept raw): the harness adds no bug of its own
                tool_use["input"] = parsed(tool_use["input"])
                content.append({"toolUse": tool_use})
                tool_use = {}
            else:
                content.append({"text": text})
                text = ""
        elif "messageStop" in chunk:
            stop_reason = chunk["messageStop"]["stopReason"]
    return answer_of(content, stop_reason)


def whole(base_url, wire, request):
    """`client.converse(...)`, the Converse operation of the Bedrock User Guide's "Carry out
    a conversation with the Converse API operations" (and boto3's `BedrockRuntime.Client.converse`
    reference), read from `response["output"]["message"]["content"]` and
    `response["stopReason"]` as its tool use example reads them."""
    response = client_of(base_url).converse(**converse_request(request))
    return answer_of(response["output"]["message"]["content"], response["stopReason"])


if __name__ == "__main__":
    serve(__file__, run, FEATURES, {"bedrock-converse": whole})
