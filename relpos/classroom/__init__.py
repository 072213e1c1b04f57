"""The live class: a teacher paces a lesson, students follow, answer and see the results.

Pure Python, no Streamlit: the data (model) and its rules (codes, validation, questions,
results, presence, limits, errors), the stored form (records), and the store (store: the
:class:`ClassStore` abstraction, with notifier; sqlite_store and redis_store: its backends;
stores: :func:`~relpos.classroom.stores.open_store`), and qr for the join link's QR code.
Pages build on :func:`open_store`; nothing here draws anything.

May import: the standard library, numpy, the quiz bank ``relpos.quizbank`` (grading;
through the one module quiz), ``relpos.text`` and ``relpos.core``; ``redis`` (the
Redis store) and ``segno`` (the QR code). Never Streamlit, Plotly or pandas.
"""
