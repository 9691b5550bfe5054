"""The clause catalogue. Importing this package registers every clause, in catalogue order."""
from ._registry import CLAUSES, Clause, ClauseFailure, ClauseNotApplicable, Subject, applicable, clause
from . import reassembly, resolve, extract, history, codec, robust, client  # noqa: E402,F401  (registers)

__all__ = ["CLAUSES", "Clause", "ClauseFailure", "ClauseNotApplicable", "Subject", "applicable", "clause"]
