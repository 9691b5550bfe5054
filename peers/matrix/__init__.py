"""The peer matrix: certify the libraries people use through their harnesses, keep what
each cell observed, judge it again with the current kit, explain each failure by the cause a
person wrote, and publish `docs/peers.md`.

`peers/run.py` is the command; each module here is one step of it: `catalog` (the peers and
their environments), `observing` (one cell run and its counterexamples replayed alone),
`observations` (the saved cells and cases), `judging` (verdicts and causes from them),
`page`, `issues` and `repros` (what is published), `speed`.
"""
