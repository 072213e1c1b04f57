"""What the pages teach with, built on the math: walkthrough steps, quiz questions and
answer parsing, the Explorer's presets, the position-effects experiment and its
trained presets, live timing.

May import: numpy, ``relpos.core`` and ``relpos.text``.
"""
