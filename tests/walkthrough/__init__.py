"""Tests of one lesson: relpos/topics/walkthrough/ (model, view and browser)."""
