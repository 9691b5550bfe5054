"""Deliberately broken clients: each is the reference client with one bug real clients have.

Every module names the wire it runs on (`WIRE`), the clause that flags it (`CAUGHT_BY`) and
exposes `client(base_url, wire) -> outcome`. tests/clients/test_broken_clients.py checks each
is flagged by its clause at the default profile, and that the reference itself passes.
"""
