"""The text kit: sentences and numbers as text. The one number formatter (numbers: true
minus sign, never "−0.00", one rule for offsets), the one escaper for user text shown in
Markdown (escape), notation, the facts a sentence may state (facts: ties at the precision
printed, visible changes, why a row does not move), captions and notes chosen from those
facts that several topics share (explain), hover arithmetic (hover), and the checking of
typed answers (answers).

Every sentence built from numbers comes from a pure function here or in a topic's
``text.py``, tested against the core in hard settings built on purpose
(tests/support/strategies.py). May import: numpy and ``relpos.core``.
"""
