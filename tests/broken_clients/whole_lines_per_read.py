"""Assumes every network read holds whole lines: a line cut between two reads is lost."""
import json

from ._reading import pieces

WIRE = "openai-chat"
CAUGHT_BY = "client.byte-cuts"
SEVERITY = "silent-loss"


def _read(response):
    while True:
        piece = response.read1(65536)
        if not piece:
            return
        for line in piece.decode("utf-8", "replace").splitlines():  # the bug: per read
            if line.startswith("data:") and line[5:].strip() != "[DONE]":
                try:
                    yield json.loads(line[5:])
                except ValueError:
                    continue


def client(base_url: str, wire: str) -> dict:
    return pieces(base_url, wire, _read)


