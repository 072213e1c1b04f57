"""Tests of one lesson: relpos/topics/position_effects/ (model, view and browser)."""
