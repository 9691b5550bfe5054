"""mcs-conformance: the conformance kit for streaming tool-call extraction.

One subpackage a subsystem, lowest layer first: `base`, `wires` (with `hypothesis`, its public
face), `targets`, `clients`, `clauses`, `corpora`, `plugin`, `certify`, and `cli` on top. Each
imports only those below it, through their `__all__`; docs/architecture.md draws the house.
"""
