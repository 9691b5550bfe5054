"""Certify clients black-box: the local provider server, client targets, the reference client.

A client is `fn(base_url, wire) -> outcome` (schemas/outcome.json): one streaming request
with the library under test, against the kit's own HTTP server on 127.0.0.1 (docs/clients.md).
Import the modules themselves; this package imports nothing, so that no import circles form.
"""
