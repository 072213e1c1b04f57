"""Sentences and numbers as text: the one number formatter (numbers: true minus sign,
never "−0.00", one rule for offsets), the one escaper for user text shown in Markdown
(escape), captions and notes computed from the numbers (explain: the Explorer and the
walkthrough; effects: the Position effects page; training: the training page), hover
arithmetic (hover).

Every sentence built from numbers comes from a pure function here, tested against the
core in degenerate settings too. May import: numpy and ``relpos.core``.
"""
