"""Strands Agents as it streams one model turn with tools: `BedrockModel(...).stream(messages,
tool_specs)` through `strands.event_loop.streaming.process_stream`, the assembler the Agent's
event loop runs on every model call (and Strands' own summarizer and structured output run
on `model.stream()`), read from its last event, `ModelStopReason` (`event["stop"]`: the stop
reason, the assembled Converse `Message`, the usage and the metrics). An `Agent` is not
used: its event loop runs every tool the model calls and asks the model again, where the
harness must only observe the calls. The model is pointed at the case as at a custom
endpoint (`endpoint_url`, a boto3 session with dummy keys, retries off through
`boto_client_config`). Not streamed, the same model configured `streaming=False` (its
documented switch: `BedrockModel` then calls `converse` and turns the response into the same
events), the same turn read the same way. Its four parts are the Converse response's four
fields by name, so they are the native message; a failed answer is what Strands raises
(`ModelThrottledException`, botocore's `EventStreamError`) or a stop reason the service model
names for a failed answer."""

import asyncio
import base64
import json

import boto3
from botocore.config import Config
from strands.event_loop.streaming import process_stream
from strands.models.bedrock import BedrockModel

from _protocol import call, outcome, serve, tools_of

PROMPT = "What is the weather in Paris?"
MODEL = "anthropic.claude-3-5-sonnet-20240620-v1:0"

# Stop reasons of `StopReason` (botocore's bedrock-runtime model) that say the answer failed.
FAILED_STOP = {"guardrail_intervened", "content_filtered", "malformed_model_output",
               "malformed_tool_use"}

# What `BedrockModel`'s documented configuration (`BedrockConfig`) asks, streamed or not:
# max_tokens: `max_tokens=N` ("Maximum number of tokens to generate in the response"; sent as
#   `inferenceConfig.maxTokens`);
# reasoning: `additional_request_fields={"thinking": {"type": "enabled", "budget_tokens": N}}`
#   ("Additional fields to include in the Bedrock request", sent as
#   `additionalModelRequestFields`; the model keeps `thinking` there unless a tool is forced).
# No feature of the wire is left out.
FEATURES = {"bedrock-converse": ["max_tokens", "reasoning"]}


def arguments(value):
    """A parsed input as the outcome carries it: an object as it is, any other JSON value
    (which Strands parsed and kept no text of) written back as its JSON text."""
    return value if isinstance(value, dict) else json.dumps(value)


def as_json(value):
    """`value` as Converse's JSON has it: the bytes botocore decoded from a blob (a redacted
    reasoning block) back in base64."""
    if isinstance(value, bytes):
        return base64.b64encode(value).decode("ascii")
    if isinstance(value, dict):
        return {key: as_json(item) for key, item in value.items()}
    if isinstance(value, list):
        return [as_json(item) for item in value]
    return value


async def model_turn(model, request):
    tool_specs = [{"name": name, "description": description, "inputSchema": {"json": parameters}}
                  for name, description, parameters in tools_of(request)]
    chunks = model.stream([{"role": "user", "content": [{"text": PROMPT}]}],
                          tool_specs=tool_specs or None)
    stop = None
    async for event in process_stream(chunks):
        if "stop" in event:
            stop = event["stop"]
    return stop


def turn(base_url, request, streaming):
    """One model turn at the case's endpoint, `converse_stream` or (not `streaming`)
    `converse`, asking the told token limit and thinking budget (`FEATURES`), mapped to an
    outcome."""
    session = boto3.Session(aws_access_key_id="mcs", aws_secret_access_key="mcs",
                            region_name="us-east-1")
    options = {}
    if "max_tokens" in request:
        options["max_tokens"] = request["max_tokens"]
    if "reasoning" in request:
        options["additional_request_fields"] = {"thinking": {
            "type": "enabled", "budget_tokens": request["reasoning"]["budget_tokens"]}}
    model = BedrockModel(model_id=MODEL, boto_session=session, endpoint_url=base_url,
                         boto_client_config=Config(retries={"total_max_attempts": 1}),
                         streaming=streaming, **options)
    stop_reason, message, usage, metrics = asyncio.run(model_turn(model, request))
    content = message.get("content", [])
    calls = [call(block["toolUse"]["name"], arguments(block["toolUse"]["input"]),
                  block["toolUse"]["toolUseId"]) for block in content if "toolUse" in block]
    text = "".join(block["text"] for block in content if "text" in block)
    native = as_json({"output": {"message": message}, "stopReason": stop_reason,
                      "usage": usage, "metrics": metrics})
    failed = f"stopReason: {stop_reason}" if stop_reason in FAILED_STOP else None
    return outcome(calls, text, native, failed)


def run(base_url, wire, request):
    return turn(base_url, request, streaming=True)


def whole(base_url, wire, request):
    """`BedrockModel(..., streaming=False)`: `BedrockConfig.streaming`, "Flag to
    enable/disable streaming" (its docstring; the Amazon Bedrock page of the Strands docs
    lists it among the model's configuration options)."""
    return turn(base_url, request, streaming=False)


if __name__ == "__main__":
    serve(__file__, run, FEATURES, {"bedrock-converse": whole})
