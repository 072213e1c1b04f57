"""Tests of one lesson: relpos/topics/value_side/ (model, view and browser)."""
