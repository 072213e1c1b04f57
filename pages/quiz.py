"""Self-check quiz: five predict-then-reveal questions from a seeded random scenario."""

import streamlit as st

from relpos.lessons import quiz
from relpos.server import page_entry
from relpos.ui import common as ui
from relpos.ui import quiz as quiz_ui

page_entry()

st.title("Self-check quiz")
ui.markdown("quiz_intro")
with st.expander("How to type answers", expanded=False):
    ui.markdown("quiz_formats")

seed = quiz_ui.quiz_seed()
questions = quiz.make_quiz(seed)
for number, question in enumerate(questions, start=1):
    quiz_ui.quiz_question(number, question, seed)
quiz_ui.quiz_summary(questions, seed)
