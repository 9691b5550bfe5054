"""The peer matrix: certify the libraries people use through their harnesses, confirm each
failure alone, keep its stream as a corpus entry, and publish `docs/peers.md`.

`peers/run.py` is the command; each module here is one step of it.
"""
