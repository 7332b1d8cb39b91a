"""Tests of the portable firmware core (firmware/tablefw)."""
