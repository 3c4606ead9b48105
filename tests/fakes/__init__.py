"""Fakes used by the test suite (scripted model server and its scenarios)."""
