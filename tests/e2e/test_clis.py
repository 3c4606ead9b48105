"""Unit tests for tests/e2e/clis.py: pins, install detection and the offline environments (no CLI is run)."""

from __future__ import annotations

import json
import os
import re
import time
from pathlib import Path

import pytest

from tests.e2e import clis
from tests.e2e.clis import DEAD_PROXY, PINS, RUNTIME_PINS, cli_env, prepare_home

INSTALL_SCRIPT = Path(clis.__file__).with_name("install_clis.sh")


def read_config(path: Path) -> dict:
    """The YAML configs are written as JSON after one comment line (JSON is YAML), so json reads them."""
    lines = path.read_text().splitlines()
    assert lines[0].startswith("#")
    return json.loads("\n".join(lines[1:]))


def script_table(name: str) -> dict[str, str]:
    """One `declare -A NAME=(...)` table of install_clis.sh, as a dict."""
    text = INSTALL_SCRIPT.read_text()
    body = re.search(rf"declare -A {name}=\((.*?)\)[ \t]*(?:#[^\n]*)?\n", text, re.S)
    assert body, name
    return dict(re.findall(r'\[([\w-]+)\]="?([^"\s)]+)"?', body.group(1)))


def test_install_script_pins_match_python_pins() -> None:
    packages, versions = script_table("PKG"), script_table("VER")
    for name, (package, version) in {**PINS, **RUNTIME_PINS}.items():
        assert (packages[name], versions[name]) == (package, version), name
    assert script_table("KIND") == dict.fromkeys(clis.PYPI_CLIS, "pypi")
    assert script_table("RUNTIME") == clis.CLI_RUNTIMES


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("ACP_MUX_CLI_CACHE", str(tmp_path / "cache"))
    return tmp_path / "cache"


def fake_npm_install(cache: Path, name: str, package: str, version: str, binary: str) -> Path:
    prefix = cache / f"{name}-{version}"
    meta = prefix / "node_modules" / package / "package.json"
    meta.parent.mkdir(parents=True)
    meta.write_text(json.dumps({"name": package, "version": version}))
    path = prefix / binary
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("#!/bin/sh\n")
    path.chmod(0o755)
    return path


def test_omp_counts_as_installed_only_with_its_bun(cache: Path) -> None:
    omp = fake_npm_install(cache, "omp", *PINS["omp"], "node_modules/.bin/omp")
    assert clis._installed_bin("omp") is None  # bun missing: omp cannot start
    fake_npm_install(cache, "bun", *RUNTIME_PINS["bun"], "bin/bun")
    assert clis._installed_bin("omp") == omp
    assert clis.runtime_bin_dir("omp") == cache / f"bun-{RUNTIME_PINS['bun'][1]}" / "bin"


def test_hermes_venv_detected_by_its_dist_info(cache: Path) -> None:
    prefix = cache / f"hermes-{PINS['hermes'][1]}"
    binary = prefix / "bin" / "hermes"
    binary.parent.mkdir(parents=True)
    binary.write_text("#!/bin/sh\n")
    binary.chmod(0o755)
    site = prefix / "lib" / "python3.11" / "site-packages"
    (site / "hermes_agent-0.18.0.dist-info").mkdir(parents=True)
    assert clis._installed_bin("hermes") is None  # another version
    (site / f"hermes_agent-{PINS['hermes'][1]}.dist-info").mkdir()
    assert clis._installed_bin("hermes") == binary


def test_omp_env_and_home(tmp_path: Path) -> None:
    env = cli_env("omp", "http://127.0.0.1:4321/", tmp_path / "home")
    agent_dir = tmp_path / "home" / ".omp" / "agent"
    models = read_config(agent_dir / "models.yml")
    provider = models["providers"]["fake"]
    assert provider["baseUrl"] == "http://127.0.0.1:4321/v1" and provider["api"] == "openai-completions"
    assert [m["id"] for m in provider["models"]] == ["fake-model", "fake-model-2"]  # two: the model switch test
    assert all(m["input"] == ["text", "image"] for m in provider["models"])
    settings = read_config(agent_dir / "config.yml")
    assert settings["tools"] == {"approvalMode": "always-ask"}
    assert settings["startup"]["checkUpdate"] is False and settings["dev"]["autoqa"] is False
    assert settings["retry"]["maxRetries"] == 1
    assert env["HOME"] == str(tmp_path / "home")
    assert env["PATH"].split(os.pathsep)[0] == str(clis.runtime_bin_dir("omp"))
    assert env["HTTPS_PROXY"] == DEAD_PROXY and "127.0.0.1" in env["NO_PROXY"]
    assert "OPENAI_API_KEY" not in env and "ANTHROPIC_API_KEY" not in env


def test_omp_default_approval_mode_is_left_unset() -> None:
    assert "tools" not in json.loads(clis.omp_config_yml(approval_mode=None).split("\n", 1)[1])


def test_hermes_env_and_home(tmp_path: Path) -> None:
    env = cli_env("hermes", "http://127.0.0.1:4321", tmp_path / "home")
    hermes_home = tmp_path / "home" / ".hermes"
    config = read_config(hermes_home / "config.yaml")
    assert config["model"] == {
        "provider": "custom",
        "base_url": "http://127.0.0.1:4321/v1",
        "api_key": "sk-fake",
        "default": "fake-model",
        "supports_vision": True,
    }
    assert config["approvals"]["mode"] == "manual" and config["agent"]["api_max_retries"] == 1
    stamp = json.loads((hermes_home / ".update_check").read_text())
    assert stamp["ver"] == PINS["hermes"][1] and time.time() - stamp["ts"] < 60
    assert env["HERMES_HOME"] == str(hermes_home) and env["HERMES_DISABLE_LAZY_INSTALLS"] == "1"
    assert env["HTTP_PROXY"] == DEAD_PROXY


def test_prepare_home_repoints_an_existing_home(tmp_path: Path) -> None:
    prepare_home("hermes", "http://127.0.0.1:1111", tmp_path)
    prepare_home("hermes", "http://127.0.0.1:2222", tmp_path)
    assert read_config(tmp_path / ".hermes" / "config.yaml")["model"]["base_url"] == "http://127.0.0.1:2222/v1"
    prepare_home("claude", "http://127.0.0.1:2222", tmp_path / "claude-home")  # nothing to write, still a home
    assert (tmp_path / "claude-home").is_dir()


def test_unknown_cli_has_no_recipe(tmp_path: Path) -> None:
    with pytest.raises(ValueError):
        cli_env("nope", "http://127.0.0.1:1", tmp_path)


def test_gemini_env_and_settings(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GOOGLE_API_KEY", "a-real-key")  # must not leak into the CLI's environment
    env = cli_env("gemini", "http://127.0.0.1:4321/", tmp_path / "home")
    gemini_dir = tmp_path / "home" / ".gemini"
    settings = json.loads((gemini_dir / "settings.json").read_text())
    assert settings["security"]["auth"]["selectedType"] == "gemini-api-key"
    assert settings["general"]["maxAttempts"] == 1  # a 429 must not back off for minutes
    assert settings["privacy"]["usageStatisticsEnabled"] is False and settings["telemetry"]["enabled"] is False
    assert env["GOOGLE_GEMINI_BASE_URL"] == "http://127.0.0.1:4321" and env["GEMINI_API_KEY"] == "fake"
    assert env["GEMINI_CLI_HOME"] == env["HOME"] == str(tmp_path / "home")
    assert env["GEMINI_CLI_NO_RELAUNCH"] == env["GEMINI_CLI_TRUST_WORKSPACE"] == "true"
    for name in ("GEMINI_CLI_SYSTEM_SETTINGS_PATH", "GEMINI_CLI_SYSTEM_DEFAULTS_PATH"):
        assert env[name].startswith(str(gemini_dir)) and not Path(env[name]).exists()
    assert "GOOGLE_API_KEY" not in env and env["HTTPS_PROXY"] == DEAD_PROXY


def test_install_marks_match_the_install_script() -> None:
    assert script_table("EXTRA_MARK") == clis.INSTALL_MARKS
    assert set(script_table("EXTRA")) == set(clis.INSTALL_MARKS)


@pytest.mark.parametrize("name", sorted(clis.INSTALL_MARKS))
def test_an_install_without_its_extra_step_is_not_installed(cache: Path, name: str) -> None:
    binary = fake_npm_install(cache, name, *PINS[name], f"node_modules/.bin/{name}")
    assert clis._installed_bin(name) is None  # e.g. copilot's package not extracted yet
    mark = cache / f"{name}-{PINS[name][1]}" / clis.INSTALL_MARKS[name]
    mark.parent.mkdir(parents=True)
    mark.write_text("{}")
    assert clis._installed_bin(name) == binary


def test_opencode_env_and_config(tmp_path: Path, cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "a-real-key")  # must not leak into the CLI's environment
    home = tmp_path / "home"
    env = cli_env("opencode", "http://127.0.0.1:4321/", home)
    config = json.loads((home / ".config" / "opencode" / "opencode.json").read_text())
    provider = config["provider"]["fake"]
    assert provider["npm"] == "@ai-sdk/anthropic" and provider["options"]["baseURL"] == "http://127.0.0.1:4321/v1"
    assert config["model"] == config["small_model"] == clis.DEFAULT_MODELS["opencode"] == "fake/claude-sonnet-4-5"
    assert list(provider["models"]) == ["claude-sonnet-4-5", "fake-model-2"] and config["enabled_providers"] == ["fake"]
    assert all(m["modalities"]["input"] == ["text", "image"] for m in provider["models"].values())
    assert "permission" not in config  # top-level rules would override plan mode's edit deny
    ask = {"edit": "ask", "bash": "ask", "webfetch": "ask"}
    assert config["agent"] == {
        "build": {"permission": ask},
        "general": {"permission": ask},
        "plan": {"permission": {"bash": "ask", "webfetch": "ask"}},
    }
    assert config["autoupdate"] is False and config["share"] == "disabled"
    assert env["XDG_CONFIG_HOME"] == str(home / ".config") and env["HOME"] == str(home)
    assert env["OPENCODE_DISABLE_MODELS_FETCH"] == env["OPENCODE_DISABLE_AUTOUPDATE"] == "1"
    assert not Path(env["OPENCODE_TEST_MANAGED_CONFIG_DIR"]).exists()
    assert "ANTHROPIC_API_KEY" not in env and env["HTTPS_PROXY"] == DEAD_PROXY
    assert not (home / ".config" / "opencode" / "node_modules").exists()  # no seed in this empty cache


def test_opencode_default_permissions_are_left_unset() -> None:
    config = clis.opencode_config("http://127.0.0.1:1", permission=None)
    assert "permission" not in config and "agent" not in config


def test_opencode_plugin_seed_is_linked_not_copied(tmp_path: Path, cache: Path) -> None:
    seed = cache / f"opencode-{PINS['opencode'][1]}" / clis.OPENCODE_PLUGIN_SEED
    plugin = seed / "node_modules" / clis.OPENCODE_PLUGIN_PACKAGE / "package.json"
    plugin.parent.mkdir(parents=True)
    plugin.write_text("{}")
    (seed / "package.json").write_text('{"dependencies": {"@opencode-ai/plugin": "1.18.33"}}')
    (seed / "package-lock.json").write_text('{"packages": {"": {"dependencies": {"@opencode-ai/plugin": "1"}}}}')
    home = tmp_path / "home"
    for _ in range(2):  # idempotent: a second prepare_home keeps the link
        prepare_home("opencode", "http://127.0.0.1:1", home)
        config_dir = home / ".config" / "opencode"
        assert (config_dir / "node_modules").is_symlink()
        assert (config_dir / "node_modules").resolve() == (seed / "node_modules").resolve()
        assert json.loads((config_dir / "package-lock.json").read_text())["packages"][""]["dependencies"]
    (config_dir / "node_modules").unlink()
    (config_dir / "node_modules").mkdir()  # opencode's own half-finished install is replaced by the seed
    assert clis.seed_opencode_plugin(config_dir) and (config_dir / "node_modules").is_symlink()


def test_copilot_env(tmp_path: Path, cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GITHUB_TOKEN", "a-real-token")  # must not leak into the CLI's environment
    env = cli_env("copilot", "http://127.0.0.1:4321/", tmp_path / "home")
    assert env["COPILOT_PROVIDER_BASE_URL"] == "http://127.0.0.1:4321/v1"
    assert env["COPILOT_PROVIDER_TYPE"] == "openai" and env["COPILOT_PROVIDER_API_KEY"] == "sk-fake"
    assert env["COPILOT_MODEL"] == clis.DEFAULT_MODELS["copilot"]
    assert env["COPILOT_OFFLINE"] == "true" and env["COPILOT_AUTO_UPDATE"] == "false"
    assert env["COPILOT_HOME"] == str(tmp_path / "home" / ".copilot")
    # The pre-extracted package in the CLI cache, shared by every test: nothing is extracted into the HOME.
    assert env["COPILOT_CLI_DIST_DIR"] == str(cache / f"copilot-{PINS['copilot'][1]}" / clis.COPILOT_DIST)
    assert "GITHUB_TOKEN" not in env and env["HTTPS_PROXY"] == DEAD_PROXY
