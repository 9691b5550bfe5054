"""The engines matrix: what each engine's tool parsers did, kept apart from what it means.

`observed` runs the cells (one engine on one format; `worker.py` runs an engine's cells in
its own environment)
and keeps their observations under peers/engines/observations/; `judged` derives every
verdict, severity and cause from those observations by the kit's current parser clauses and
the hand-written notes (peers/engines/notes/), and checks the rules the notes obey; `page`
renders docs/engines.md from that; `repros` runs each cause's standalone repro where its
engine is installed. Only `observed` and `repros` start engines; judging needs none.
"""
