"""Tests of one lesson: relpos/topics/quiz/ (model, view and browser)."""
