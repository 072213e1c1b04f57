"""Tests of one lesson: relpos/topics/schemes/ (model, view and browser)."""
