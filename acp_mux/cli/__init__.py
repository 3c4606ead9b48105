"""The command line: argument parsing, ``doctor``, ``demo``, ``--login``."""
