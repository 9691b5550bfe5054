#!/usr/bin/env python3
"""mcs-conformance harness (protocol v1) for the reference, `mcs_reference`, over raw HTTP.

Run by the kit: `mcs-conformance certify --harness "python harnesses/python-reference/harness.py"
--wire openai-chat`. Each case is one POST with `http.client`; the body is read as it
arrives and fed to `mcs_reference`'s buffer by the kit's own reference client, so this file
only speaks the protocol: one JSON line in, one JSON line out, logs on stderr.
"""
from __future__ import annotations

import json
import sys
from importlib.metadata import version

from mcs_conformance.clients.reference_client import PATHS, reference_client

IMPLEMENTATION = {
    "name": "mcs_reference",
    "language": "python",
    "version": version("mcs-conformance"),
    "homepage": "",
    # protocol v1 knows the first four wires; gemini and bedrock-converse need version 2
    "wires": sorted(set(PATHS) - {"gemini", "bedrock-converse"}),
}


def answer(message: dict) -> dict:
    """The reply to one kit line (start or run)."""
    if message["cmd"] == "start":
        return {"ready": True, "version": 1, "implementation": IMPLEMENTATION}
    try:
        outcome = reference_client(message["base_url"], message["wire"])
    except Exception as exc:  # never crash on the library: the kit reads outcome.error
        outcome = {"calls": [], "text": "", "message": None, "error": f"{type(exc).__name__}: {exc}"}
    return {"seq": message["seq"], "outcome": outcome}


def main() -> int:
    for line in sys.stdin:
        message = json.loads(line)
        if message["cmd"] == "stop":
            return 0
        sys.stdout.write(json.dumps(answer(message)) + "\n")
        sys.stdout.flush()
    return 0  # stdin ended: the kit is gone


if __name__ == "__main__":
    sys.exit(main())
