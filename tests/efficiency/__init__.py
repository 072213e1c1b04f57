"""Tests of one lesson: relpos/topics/efficiency/ (model, view and browser)."""
