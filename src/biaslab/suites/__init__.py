"""Suites: one folder each, with the same parts (generate -> render -> task -> analyse)."""
