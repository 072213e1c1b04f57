"""Sentences and numbers as text: the one number formatter (numbers: true minus sign,
never "−0.00", one rule for offsets), the one escaper for user text shown in Markdown
(escape), the facts a sentence may state (facts: ties at the precision printed, visible
changes, why a row does not move), captions and notes chosen from those facts (explain:
the Explorer and the walkthrough; effects: the Position effects page; training: the
training page), hover arithmetic (hover).

Every sentence built from numbers comes from a pure function here, tested against the
core in hard settings built on purpose (tests/strategies.py). May import: numpy and
``relpos.core``.
"""
