"""Where hermes finds acp-mux's plugin (``hermes_plugin/``) without anything written into the person's ~/.hermes.

hermes (0.19.0) loads plugins from its bundled folder, ``$HERMES_HOME/plugins``, ``./.hermes/plugins`` (opt-in)
and pip entry points; all but bundled *backends* also need the plugin's name in ``plugins.enabled`` of the
person's config.yaml. Its bundled folder can be moved with ``HERMES_BUNDLED_PLUGINS`` (meant for packaged
installs). So acp-mux builds a private overlay of that folder: a link to every entry of hermes' own bundled
folder (nothing of hermes is lost) plus ``acp-mux-asks``, a copy of our plugin whose manifest says ``kind:
backend``, and starts hermes with ``HERMES_BUNDLED_PLUGINS`` pointing there. The person's config, home and
project are untouched, and their own disable list still applies (hermes honours ``plugins.disabled`` first).

The overlay lives in the bridge's private folder (0700, ours, removed at exit: :func:`acp_mux.core.files.private.
private_dir`), made fresh once per bundled folder.
"""

from __future__ import annotations

import glob
import logging
import os
import shutil
import tempfile
import threading
from pathlib import Path

from acp_mux.core.files.private import private_dir

log = logging.getLogger(__name__)

ENV = "HERMES_BUNDLED_PLUGINS"
PLUGIN = "acp-mux-asks"  # the overlay entry; also the name hermes' `plugins.disabled` would have to name
SOURCE = Path(__file__).resolve().parent / "hermes_plugin"
_lock = threading.Lock()
_overlays: dict[str, str] = {}  # hermes' bundled folder ("" = none found) → our overlay of it


def bundled_dir(binary: str, env: dict[str, str] | None) -> str:
    """hermes' own bundled plugins folder: ``HERMES_BUNDLED_PLUGINS`` when the person set it, else the
    ``plugins`` folder of the Python environment the ``hermes`` script runs on (its ``#!`` line: pip, pipx and
    uv tool installs all write one). "" when neither is found."""
    source = os.environ if env is None else env
    if source.get(ENV):
        return source[ENV]
    try:
        with open(binary, "rb") as fh:
            first = fh.readline(4096)
    except OSError:
        return ""
    if not first.startswith(b"#!"):
        return ""
    words = first[2:].decode(errors="replace").split()
    if not words:
        return ""
    prefix = os.path.dirname(os.path.dirname(words[0]))  # <venv>/bin/python → <venv>
    found = sorted(glob.glob(os.path.join(glob.escape(prefix), "lib", "python*", "site-packages", "plugins")))
    return found[-1] if found else ""


def overlay(bundled: str) -> str:
    """The private folder hermes should take as its bundled plugins: ``bundled``'s entries plus our plugin."""
    with _lock:
        made = _overlays.get(bundled)
        if made is not None and os.path.isdir(made):
            return made
        made = tempfile.mkdtemp(prefix="hermes-plugins-", dir=private_dir())  # 0700, new, ours
        if bundled and os.path.isdir(bundled):
            for name in sorted(os.listdir(bundled)):
                if name != PLUGIN:
                    os.symlink(os.path.join(os.path.abspath(bundled), name), os.path.join(made, name))
        elif bundled:
            log.warning("hermes' bundled plugins folder %s is missing: hermes runs with acp-mux's plugin only", bundled)
        else:
            log.warning("hermes' bundled plugins folder was not found: hermes runs with acp-mux's plugin only")
        ours = os.path.join(made, PLUGIN)
        os.mkdir(ours, 0o700)
        shutil.copyfile(SOURCE / "plugin.yaml", os.path.join(ours, "plugin.yaml"))
        shutil.copyfile(SOURCE / "acp_mux_asks.py", os.path.join(ours, "__init__.py"))
        _overlays[bundled] = made
        return made
