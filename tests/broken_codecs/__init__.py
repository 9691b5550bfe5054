"""Deliberately broken format codecs: the closure property must catch every one of them.

Each module holds one codec, a subclass of a reference codec of the catalogue with ONE bug
real tool parsers have (its docstring says which), `FORMAT` (the catalogue format), `CODEC`
(the class name) and `CAUGHT_BY`, the mutation kind (`mcs_conformance.wires.MUTATIONS`) on
which the bug shows. tests/reference/test_formats_closure.py checks that the property finds
each on outputs mutated by that kind, and passes it on the outputs as drawn.
"""
