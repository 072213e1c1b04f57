"""Tests of one lesson: relpos/topics/quiz/ (its view and browser) and its question bank, relpos/quizbank/."""
