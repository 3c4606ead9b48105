"""Test-wide settings.

Hypothesis runs derandomized by default: every run (and CI) tries the same examples, so a red run is reproducible
and a green one does not turn red by chance. ``HYPOTHESIS_PROFILE=explore`` searches afresh (random examples each run)
when hunting for new bugs; whatever it finds belongs in a test as an explicit example.
"""

from __future__ import annotations

import os

from hypothesis import settings

settings.register_profile("deterministic", derandomize=True, database=None)
settings.register_profile("explore", derandomize=False)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "deterministic"))
