"""Bundled data: a recorded game for the demo."""
