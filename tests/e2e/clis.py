"""Real agent CLIs for end-to-end tests: pinned installs and offline environments.

``ensure_cli(name)`` installs the pinned CLI from npm once (through ``install_clis.sh``) and returns its binary,
or ``None`` when that is impossible here; ``cli_unavailable_reason(name)`` then says why, so a test can
``pytest.skip(reason)`` instead of failing on machines without npm or network.

``cli_env(name, server_url, home)`` returns the *complete* environment for running a CLI against the fake model
server (``tests/fakes/model_server.py``) and nothing else:

* the process environment is not inherited (only PATH/locale/TMPDIR), so a developer's real API keys, config
  dirs or base URLs can never leak into a test run;
* every base URL points at the loopback server, telemetry/update/"nonessential" traffic is switched off with
  each CLI's documented knobs, and retries are disabled so error paths are fast;
* as a last line of defence all HTTP(S) proxies point at a closed loopback port with ``NO_PROXY`` covering
  127.0.0.1, so anything that still tried to reach the internet fails immediately instead of leaving the box.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import threading
from pathlib import Path

__all__ = [
    "PINS",
    "DEFAULT_MODELS",
    "cache_dir",
    "cli_env",
    "cli_unavailable_reason",
    "ensure_cli",
]

# name -> (npm package, pinned version). Keep in sync with install_clis.sh.
PINS: dict[str, tuple[str, str]] = {
    "claude": ("@anthropic-ai/claude-code", "2.1.197"),
    "codex": ("@openai/codex", "0.169.0"),
}

# Model slugs to pass on the command line / thread/start. codex needs a slug it has metadata for: an unknown one
# adds an "model metadata not found" error item; gpt-5.5 runs cleanly and makes no side requests.
DEFAULT_MODELS: dict[str, str] = {"claude": "claude-sonnet-4-5", "codex": "gpt-5.5"}

INSTALL_SCRIPT = Path(__file__).resolve().with_name("install_clis.sh")
INSTALL_TIMEOUT_S = 900

# Nothing listens on port 9 (discard); connections to it are refused at once.
DEAD_PROXY = "http://127.0.0.1:9"

_lock = threading.Lock()
_resolved: dict[str, Path | None] = {}
_reasons: dict[str, str] = {}


def cache_dir() -> Path:
    """Where installs live: ``$ACP_MUX_CLI_CACHE`` or ``~/.cache/acp-mux-clis``."""
    return Path(os.environ.get("ACP_MUX_CLI_CACHE") or Path.home() / ".cache" / "acp-mux-clis")


def _prefix(name: str) -> Path:
    return cache_dir() / f"{name}-{PINS[name][1]}"


def _installed_bin(name: str) -> Path | None:
    """The binary, if the pinned version is already installed (cheap: reads package.json, runs nothing)."""
    package, version = PINS[name]
    prefix = _prefix(name)
    binary = prefix / "node_modules" / ".bin" / name
    try:
        meta = json.loads((prefix / "node_modules" / package / "package.json").read_text())
    except (OSError, ValueError):
        return None
    return binary if meta.get("version") == version and os.access(binary, os.X_OK) else None


def ensure_cli(name: str, *, install: bool = True) -> Path | None:
    """Return the pinned CLI's binary, installing it on first use; ``None`` (see the reason) if unavailable.

    ``$ACP_MUX_<NAME>_BIN`` (e.g. ``ACP_MUX_CLAUDE_BIN``) points at a binary to use as is. Set
    ``ACP_MUX_NO_CLI_INSTALL=1`` (or pass ``install=False``) to only use what is already installed. The outcome
    is remembered for the process, so a whole test session pays for at most one install attempt per CLI.
    """
    with _lock:
        if name not in _resolved:
            _resolved[name] = _resolve(name, install and not os.environ.get("ACP_MUX_NO_CLI_INSTALL"))
        return _resolved[name]


def cli_unavailable_reason(name: str) -> str | None:
    """Why :func:`ensure_cli` returned ``None`` for ``name`` (``None`` if it has not failed)."""
    return _reasons.get(name)


def _resolve(name: str, install: bool) -> Path | None:
    if name not in PINS:
        return _fail(name, f"unknown CLI {name!r}; known: {', '.join(PINS)}")
    override = os.environ.get(f"ACP_MUX_{name.upper()}_BIN")
    if override:
        path = Path(override)
        if os.access(path, os.X_OK):
            return path
        return _fail(name, f"ACP_MUX_{name.upper()}_BIN={override} is not executable")
    found = _installed_bin(name)
    if found or not install:
        return found or _fail(name, f"{name} {PINS[name][1]} is not installed in {cache_dir()} (installs disabled)")
    if not shutil.which("npm") or not shutil.which("node"):
        return _fail(name, "node/npm not found on PATH; cannot install the CLI")
    try:
        proc = subprocess.run(["bash", str(INSTALL_SCRIPT), name], capture_output=True, text=True,
                              timeout=INSTALL_TIMEOUT_S, env={**os.environ, "ACP_MUX_CLI_CACHE": str(cache_dir())})
    except subprocess.TimeoutExpired:
        return _fail(name, f"installing {name} timed out after {INSTALL_TIMEOUT_S}s")
    found = _installed_bin(name)
    if proc.returncode != 0 or not found:
        tail = " | ".join(proc.stderr.strip().splitlines()[-5:])
        return _fail(name, f"installing {PINS[name][0]}@{PINS[name][1]} failed (rc={proc.returncode}): {tail}")
    return found


def _fail(name: str, reason: str) -> None:
    _reasons[name] = reason
    return None


# ----------------------------------------------------------------------------------------------------------------
# Environments
# ----------------------------------------------------------------------------------------------------------------


def _base_env(home: Path) -> dict[str, str]:
    """What every CLI needs from the host, and nothing else: PATH (node for the codex wrapper), locale, tmp."""
    env = {
        "PATH": os.environ.get("PATH", "/usr/local/bin:/usr/bin:/bin"),
        "HOME": str(home),
        "USER": os.environ.get("USER", "tester"),
        "LANG": "C.UTF-8",
        "LC_ALL": "C.UTF-8",
        "TZ": "UTC",
        "TERM": "dumb",
        "NO_COLOR": "1",
        "XDG_CONFIG_HOME": str(home / ".config"),
        "XDG_CACHE_HOME": str(home / ".cache"),
        "XDG_DATA_HOME": str(home / ".local" / "share"),
        "XDG_STATE_HOME": str(home / ".local" / "state"),
        # Safety net: any stray non-loopback HTTP(S) goes to a closed port and fails fast.
        "HTTP_PROXY": DEAD_PROXY,
        "HTTPS_PROXY": DEAD_PROXY,
        "ALL_PROXY": DEAD_PROXY,
        "http_proxy": DEAD_PROXY,
        "https_proxy": DEAD_PROXY,
        "all_proxy": DEAD_PROXY,
        "NO_PROXY": "127.0.0.1,localhost,::1",
        "no_proxy": "127.0.0.1,localhost,::1",
    }
    if os.environ.get("TMPDIR"):
        env["TMPDIR"] = os.environ["TMPDIR"]
    return env


def cli_env(name: str, server_url: str, home: Path, *, cwd: Path | None = None) -> dict[str, str]:
    """The complete environment to run CLI ``name`` offline against the fake server at ``server_url``.

    ``home`` becomes the CLI's private HOME (created if needed); for codex the config file is written into it
    (``home/.codex/config.toml``). Pass ``cwd`` to mark that project as trusted where the CLI has such a notion.
    """
    home = Path(home)
    home.mkdir(parents=True, exist_ok=True)
    server_url = server_url.rstrip("/")
    if name == "claude":
        return {**_base_env(home), **_claude_env(server_url, home)}
    if name == "codex":
        return {**_base_env(home), **_codex_env(server_url, home, cwd)}
    raise ValueError(f"no environment recipe for CLI {name!r}")


def _claude_env(server_url: str, home: Path) -> dict[str, str]:
    """claude: API key + base URL, no retries, and every documented switch for traffic beyond the model API."""
    return {
        "ANTHROPIC_BASE_URL": server_url,
        "ANTHROPIC_API_KEY": "sk-ant-fake",
        "CLAUDE_CONFIG_DIR": str(home / ".claude"),
        "IS_SANDBOX": "1",  # lets it run as root (CI containers) with permission bypass available
        "CLAUDE_CODE_MAX_RETRIES": "0",  # default 10 with backoff, and it retries even 401s
        "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
        "DISABLE_TELEMETRY": "1",
        "DISABLE_ERROR_REPORTING": "1",
        "DISABLE_AUTOUPDATER": "1",
        "DISABLE_BUG_COMMAND": "1",
        "DISABLE_NON_ESSENTIAL_MODEL_CALLS": "1",
        "CLAUDE_CODE_DISABLE_FEEDBACK_SURVEY": "1",
        "CLAUDE_CODE_DISABLE_TERMINAL_TITLE": "1",
        "CLAUDE_CODE_IDE_SKIP_AUTO_INSTALL": "1",
        "CLAUDE_CODE_ENABLE_TELEMETRY": "0",
    }


def _codex_env(server_url: str, home: Path, cwd: Path | None) -> dict[str, str]:
    """codex: everything goes through config.toml (it ignores OPENAI_BASE_URL); the key comes from the env."""
    codex_home = home / ".codex"
    codex_home.mkdir(parents=True, exist_ok=True)
    (codex_home / "config.toml").write_text(codex_config_toml(server_url, cwd))
    return {
        "CODEX_HOME": str(codex_home),
        "OPENAI_API_KEY": "sk-fake",
        "CODEX_DISABLE_UPDATE_CHECK": "1",
        "RUST_LOG": "warn",
    }


def _toml_str(value: str) -> str:
    return json.dumps(value)  # a JSON string literal is a valid TOML basic string


def codex_config_toml(server_url: str, cwd: Path | None = None) -> str:
    """codex's config: a custom Responses provider on the fake server, retries off, telemetry/updates off."""
    lines = [
        "# Written by tests/e2e/clis.py: run codex offline against the fake model server.",
        f"model = {_toml_str(DEFAULT_MODELS['codex'])}",
        'model_provider = "fake"',
        "check_for_update_on_startup = false",
        "",
        "[analytics]",
        "enabled = false",
        "",
        "[feedback]",
        "enabled = false",
        "",
        # Features that reach OpenAI/GitHub services at startup (curated plugin sync via git + api.github.com +
        # chatgpt.com, apps/connectors) or spawn background helpers. Off: tests must stay on loopback.
        "[features]",
        "plugins = false",
        "remote_plugin = false",
        "plugin_sharing = false",
        "apps = false",
        "in_app_updates = false",
        "daemon_auto_start = false",
        "",
        "[otel]",
        'exporter = "none"',
        'trace_exporter = "none"',
        'metrics_exporter = "none"',
        "",
        "[model_providers.fake]",
        'name = "acp-mux fake model server"',
        f"base_url = {_toml_str(server_url + '/v1')}",
        'env_key = "OPENAI_API_KEY"',
        'wire_api = "responses"',
        "request_max_retries = 0",
        "stream_max_retries = 0",
        "stream_idle_timeout_ms = 60000",
    ]
    if cwd is not None:
        lines += ["", f"[projects.{_toml_str(str(cwd))}]", 'trust_level = "trusted"']
    return "\n".join(lines) + "\n"
