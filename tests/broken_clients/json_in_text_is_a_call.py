"""Scans the visible text for JSON objects and takes each for a call."""
import json

from mcs_conformance.clients.reference_client import reference_client

WIRE = "openai-chat"
CAUGHT_BY = "client.no-phantom"
SEVERITY = "silent-loss"


def client(base_url: str, wire: str) -> dict:
    outcome = reference_client(base_url, wire)
    text, decoder = outcome["text"], json.JSONDecoder()
    for start, char in enumerate(text):
        if char == "{":
            try:
                value, _ = decoder.raw_decode(text, start)
            except ValueError:
                continue
            if isinstance(value, dict):  # the bug
                outcome["calls"].append({"name": "json", "arguments": value, "id": None})
    return outcome
