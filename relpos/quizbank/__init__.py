"""The quiz bank: seeded questions with their answers, worked solutions and named slips,
and how a typed answer is judged. The quiz page (``relpos/topics/quiz/``) asks them one by
one; a live class (:mod:`relpos.classroom.quiz`) asks them of a whole room.

* :mod:`~relpos.quizbank.model`: a question, its answer's text and the verdict on an answer;
* :mod:`~relpos.quizbank.questions`: the seed's questions, each computed by the core from a
  small random scenario;
* :mod:`~relpos.quizbank.slips`: the named slips a wrong answer may be (a term left out,
  i − j for j − i …), from the question's own numbers;
* :mod:`~relpos.quizbank.checking`: a typed answer read and judged (``check_answer``,
  ``check_try``), hints, the reveal and the summary; re-exports the others' names.

NumPy only, no Streamlit, Plotly or pandas. May import: numpy, ``relpos.text`` and ``relpos.core``.
"""
