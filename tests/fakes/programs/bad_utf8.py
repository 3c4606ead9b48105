"""Fake agent: lines with invalid UTF-8 mixed with valid multi-byte text.

Output (bytes): "ok", "bad:\\xff\\xfe\\x80end", "caf\\xc3\\xa9 \\xe2\\x9c\\x93",
"trunc\\xe2\\x9c" (truncated sequence), then "done".
"""

import sys

out = sys.stdout.buffer
out.write(b"ok\n")
out.write(b"bad:\xff\xfe\x80end\n")
out.write("caf\u00e9 \u2713\n".encode())
out.write(b"trunc\xe2\x9c\n")
out.write(b"done\n")
out.flush()
