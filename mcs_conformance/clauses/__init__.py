"""The clause catalogue. Importing this package registers every clause."""
from ._registry import CLAUSES, Clause, ClauseFailure, Subject, applicable, clause

__all__ = ["CLAUSES", "Clause", "ClauseFailure", "Subject", "applicable", "clause"]
