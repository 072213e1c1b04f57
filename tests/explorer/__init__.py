"""Tests of one lesson: relpos/topics/explorer/ (model, view and browser)."""
