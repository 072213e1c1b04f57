"""Sentences and numbers as text: captions and notes computed from the numbers
(explain), hover arithmetic (hover).

Every sentence built from numbers comes from a pure function here, tested against the
core in degenerate settings too. May import: numpy and ``relpos.core``.
"""
