"""Tests of one lesson: relpos/topics/training/ (model, view and browser)."""
