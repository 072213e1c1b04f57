"""The quiz: seeded questions with typed answers, checked and explained.

One folder, one lesson: its state (schema) and one Streamlit view (``view.render()``) that
``pages/`` calls. The questions and their checking are the quiz bank, :mod:`relpos.quizbank`,
which a live class asks from too.
"""
