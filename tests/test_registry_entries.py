"""The ACP registry's own checks, run on every generated entry (``packaging/acp-registry/<id>``), offline.

The checks (``tools/acp_registry_checks.py``) are the registry's: its schema (vendored), its build script's rules
(ids, versions, version pinning, icons), and its verify script's launch and ``--auth-check`` handshake. Each check
is first shown to refuse what the registry refuses (deliberately broken entries, and property tests that try to
sneak a bad entry or icon past it), then run on what ``tools/sync_agents.py`` generates.
"""

from __future__ import annotations

import copy
import json
import os
import re
import stat
import sys
import tomllib
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from acp_mux import __version__
from acp_mux.adapters.registry import AGENT_NAMES, ENTRIES
from acp_mux.cli.main import build_parser
from tools import sync_agents
from tools.acp_registry_checks import (
    auth_check,
    auth_verdict,
    duplicate_ids,
    ecma_pattern,
    entry_errors,
    icon_errors,
    launch_check,
    load_schema,
    package_name,
    sandbox_env,
    schema_errors,
    uvx_command,
)

ROOT = Path(__file__).resolve().parents[1]
PROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
REGISTRY = ROOT / "packaging" / "acp-registry"
FOLDERS = sorted(p.name for p in REGISTRY.iterdir() if p.is_dir())
SCHEMA = load_schema()
ICON = (ROOT / "packaging" / "icon.svg").read_text()
OS_PATH = os.pathsep.join(p for p in ("/usr/local/bin", "/usr/bin", "/bin") if os.path.isdir(p))


def registry_refuses(entry: Any, folder: str | None = None) -> list[str]:
    """Everything the registry's build would say about ``entry`` in ``folder`` (default: its own id)."""
    errors = schema_errors(entry, SCHEMA)
    if errors or not isinstance(entry, dict):
        return errors  # the build stops at the schema, as the registry's does
    return entry_errors(entry, folder if folder is not None else str(entry.get("id")))


# ── entries of every kind the registry documents, written here from its format description ────────────────────
UVX = {
    "id": "some-agent",
    "name": "Some Agent",
    "version": "1.2.3",
    "description": "An agent",
    "repository": "https://example.org/some-agent",
    "authors": ["Someone <someone@example.org>"],
    "license": "MIT",
    "icon": "./icon.svg",
    "distribution": {"uvx": {"package": "some-agent==1.2.3", "args": ["serve", "--acp"], "env": {"A": "b"}}},
}
NPX = {**UVX, "distribution": {"npx": {"package": "@scope/some-agent@1.2.3", "args": ["--acp"]}}}
ARCHIVE = "https://example.org/download/v1.2.3/agent-{}.tar.gz"
BINARY = {
    **UVX,
    "distribution": {
        "binary": {
            p: {"archive": ARCHIVE.format(p), "cmd": "./agent", "args": ["acp"]}
            for p in ("darwin-aarch64", "linux-x86_64", "windows-x86_64")
        }
    },
}
VALID = [UVX, NPX, BINARY, {k: UVX[k] for k in ("id", "name", "version", "description", "distribution")}]


@pytest.mark.parametrize("entry", VALID, ids=["uvx", "npx", "binary", "minimal"])
def test_the_documented_kinds_of_entry_pass(entry):
    assert registry_refuses(entry) == []


def _broken(path: str, value: Any) -> dict[str, Any]:
    """UVX with the field at ``path`` (dots) set to ``value`` (``...`` removes it)."""
    entry = copy.deepcopy(UVX)
    *parents, last = path.split(".")
    node = entry
    for part in parents:
        node = node[part]
    if value is ...:
        del node[last]
    else:
        node[last] = value
    return entry


BROKEN = {
    "cmd under uvx (the entries before issue 22)": _broken("distribution.uvx.cmd", "acp-mux"),
    "no id": _broken("id", ...),
    "no distribution": _broken("distribution", ...),
    "an empty distribution": _broken("distribution", {}),
    "an unknown distribution": _broken("distribution", {"pipx": {"package": "x"}}),
    "uvx without package": _broken("distribution.uvx.package", ...),
    "an empty package": _broken("distribution.uvx.package", ""),
    "an argument that is not a string": _broken("distribution.uvx.args", ["--agent", 1]),
    "an env value that is not a string": _broken("distribution.uvx.env", {"A": True}),
    "an upper-case id": _broken("id", "Some-agent"),
    "an id with a final newline": _broken("id", "some-agent\n"),
    "an id starting with a digit": _broken("id", "1agent"),
    "an empty name": _broken("name", ""),
    "a two-part version": _broken("version", "1.2"),
    "a version with a suffix on its third part": _broken("version", "1.2.3-beta"),
    "a version as a number": _broken("version", 1.2),
    "a repository that is no URI": _broken("repository", "not a uri"),
    "authors as a string": _broken("authors", "Someone"),
    "a package pinned to another version": _broken("distribution.uvx.package", "some-agent==1.2.4"),
    "a package on @latest": _broken("distribution.uvx.package", "some-agent@latest"),
    "a binary for one OS only": {
        **BINARY,
        "distribution": {"binary": {"linux-x86_64": BINARY["distribution"]["binary"]["linux-x86_64"]}},
    },
    "a binary on an unknown platform": {
        **BINARY,
        "distribution": {
            "binary": {**BINARY["distribution"]["binary"], "linux-riscv64": {"archive": "https://x.org/a", "cmd": "a"}}
        },
    },
    "a binary target without archive": {
        **BINARY,
        "distribution": {"binary": {p: {"cmd": "./a"} for p in BINARY["distribution"]["binary"]}},
    },
    "an npx package on another version": {**NPX, "distribution": {"npx": {"package": "@scope/some-agent@9.9.9"}}},
}


@pytest.mark.parametrize("name", sorted(BROKEN))
def test_what_the_registry_refuses_is_refused(name):
    assert registry_refuses(BROKEN[name]), name


def test_an_id_must_name_its_folder_and_be_used_once():
    assert entry_errors(UVX, "other-folder")
    assert duplicate_ids({"a": {"id": "x"}, "b": {"id": "x"}, "c": {"id": "y"}}) == ["id 'x' of b is already a's"]


def test_a_schema_keyword_the_validator_does_not_know_fails_instead_of_passing():
    with pytest.raises(ValueError, match="oneOf"):
        schema_errors("x", {"oneOf": [{"type": "string"}]})
    with pytest.raises(ValueError, match="email"):
        schema_errors("x", {"format": "email"})


def test_patterns_read_as_the_schema_means_them():
    assert ecma_pattern("^[a-z]+$").search("abc") and not ecma_pattern("^[a-z]+$").search("abc\n")
    assert ecma_pattern("^a[$]b").search("a$b") and ecma_pattern(r"^a\$").search("a$")
    assert not ecma_pattern(r"^\d$").search("٣")  # ECMA's \d is ASCII


# ── property tests: try to sneak a bad entry past the checks ──────────────────────────────────────────────────
names = st.text(alphabet=st.characters(codec="utf-8"), min_size=1, max_size=12)


@given(key=names.filter(lambda k: k not in ("package", "args", "env")), value=st.from_type(str) | st.booleans())
def test_no_field_but_package_args_and_env_passes_under_uvx(key, value):
    entry = copy.deepcopy(UVX)
    entry["distribution"]["uvx"][key] = value  # (set directly: a key may hold the dots _broken splits paths at)
    assert registry_refuses(entry)


@given(key=names.filter(lambda k: k not in ("binary", "npx", "uvx")))
def test_no_distribution_kind_but_binary_npx_and_uvx_passes(key):
    entry = _broken("distribution", {**UVX["distribution"], key: {"package": "x"}})
    assert registry_refuses(entry)


@given(
    entry_id=st.text(alphabet=st.characters(codec="utf-8"), max_size=10)
    | st.from_regex(r"[a-z][a-z0-9-]*", fullmatch=True)
)
def test_an_id_passes_only_as_lowercase_ascii_letters_digits_and_hyphens(entry_id):
    good = re.fullmatch(r"[a-z][a-z0-9-]*", entry_id, re.ASCII) is not None
    assert (registry_refuses(_broken("id", entry_id), entry_id) == []) == good


def _is_version(text: str) -> bool:
    """The registry's two version rules restated: the schema wants ASCII digits, dot, digits, dot, digits at the
    start; the build splits on dots and wants the first three parts all digits."""
    parts = text.split(".")
    ascii_digits = [p != "" and all(c in "0123456789" for c in p) for p in parts[:2]]
    return len(parts) >= 3 and all(ascii_digits) and parts[2][:1] in tuple("0123456789") and parts[2].isdigit()


@given(
    version=st.text(alphabet="0123456789.-+a\n٣", max_size=9) | st.from_regex(r"[0-9]+\.[0-9]+\.[0-9]+", fullmatch=True)
)
def test_a_version_passes_only_as_numeric_x_y_z(version):
    entry = _broken("version", version)
    entry["distribution"]["uvx"]["package"] = "some-agent"  # no pin: only the version's own form is judged
    assert (registry_refuses(entry) == []) == _is_version(version)


semver = st.from_regex(r"(0|[1-9][0-9]{0,2})\.(0|[1-9][0-9]{0,2})\.(0|[1-9][0-9]{0,2})", fullmatch=True)


@given(version=semver, pinned=semver, operator=st.sampled_from(["==", "@", ">=", "==="]))
def test_a_pinned_package_passes_only_on_the_entrys_own_version(version, pinned, operator):
    entry = _broken("version", version)
    entry["distribution"]["uvx"]["package"] = f"some-agent{operator}{pinned}"
    assert (registry_refuses(entry) == []) == (pinned == version)


@given(case=st.sampled_from(["@latest", "@LATEST", "@Latest"]), prefix=st.sampled_from(["some-agent", "x==1.2.3"]))
def test_latest_never_passes(case, prefix):
    assert registry_refuses(_broken("distribution.uvx.package", prefix + case))


colours = st.sampled_from(["#000", "#ff5500", "red", "black", "rgb(0,0,0)", "white", "url(#g)", "transparent"])
plain = st.sampled_from(["currentColor", "currentcolor", "CURRENTCOLOR", "none", "inherit", " none "])


@given(
    colour=colours,
    form=st.sampled_from(
        ['fill="{}"', "stroke='{}'", 'style="fill:{}"', 'style="opacity:1; stroke: {}"', 'data-fill="{}"']
    ),
    where=st.sampled_from(["path", "circle", "comment"]),
)
def test_an_icon_with_a_fixed_colour_anywhere_is_refused(colour, form, where):
    attr = form.format(colour)
    if where == "comment":
        svg = ICON.replace("</svg>", f"<!-- {attr} --></svg>")
    else:
        svg = ICON.replace(f"<{where} ", f"<{where} {attr} ", 1)
    assert svg != ICON
    assert icon_errors(svg)


@given(value=plain, attribute=st.sampled_from(["fill", "stroke"]))
def test_an_icon_painted_only_with_current_color_none_or_inherit_passes(value, attribute):
    svg = ICON.replace("<circle ", f'<circle {attribute}="{value}" ', 1)  # the path still says currentColor
    assert icon_errors(svg) == []


@given(width=st.integers(1, 64), height=st.integers(1, 64))
def test_an_icon_passes_only_at_16_by_16(width, height):
    svg = ICON.replace('width="16"', f'width="{width}"').replace('height="16"', f'height="{height}"')
    assert (icon_errors(svg) == []) == (width == height == 16)


def test_an_icon_without_current_color_is_refused():
    assert icon_errors('<svg width="16" height="16"><path fill="none" stroke="none" d="M0 0"/></svg>')


method = st.fixed_dictionaries(
    {"id": st.text(max_size=5), "name": st.text(max_size=5)},
    optional={
        "type": st.sampled_from(["agent", "terminal", "env_var", "oauth", ""]),
        "_meta": st.dictionaries(st.sampled_from(["terminal-auth", "agent-auth", "other"]), st.just({})),
    },
)


def _registry_type(m: dict[str, Any]) -> str:
    if m.get("type"):
        return m["type"]
    meta = m.get("_meta") or {}
    return "terminal" if "terminal-auth" in meta else "agent" if "agent-auth" in meta else "agent"


@given(methods=st.lists(method, max_size=4))
def test_the_handshake_passes_only_with_an_agent_or_terminal_method(methods):
    verdict = auth_verdict({"jsonrpc": "2.0", "id": 1, "result": {"authMethods": methods}})
    assert verdict.ok == any(_registry_type(m) in ("agent", "terminal") for m in methods)


def test_the_handshake_fails_on_an_error_answer_or_one_without_methods():
    assert not auth_verdict({"jsonrpc": "2.0", "id": 1, "error": {"code": -32603, "message": "x"}}).ok
    assert not auth_verdict({"jsonrpc": "2.0", "id": 1, "result": {}}).ok
    assert not auth_verdict({"jsonrpc": "2.0", "id": 1, "result": {"authMethods": ["terminal"]}}).ok
    assert not auth_verdict({"jsonrpc": "2.0", "method": "session/update", "params": {}}).ok


@settings(max_examples=50)
@given(
    spec=st.from_regex(r"[A-Za-z0-9][A-Za-z0-9._-]{0,10}", fullmatch=True),
    tail=st.sampled_from(["", "==1.0.0", ">=1", "@1.0.0", "[x]==2", "~=1.0"]),
)
def test_uvx_runs_the_executable_named_after_the_package(spec, tail):
    assert package_name(spec + tail) == spec


def _python(code: str) -> list[str]:
    return [sys.executable, "-c", code]


ANSWER = 'import json,sys; sys.stdin.readline(); print(json.dumps({"jsonrpc":"2.0","id":1,"result":%s}), flush=True)'


@pytest.mark.parametrize(
    "program,ok",
    [
        (ANSWER % '{"authMethods":[{"id":"a","name":"A","type":"terminal","args":[]}]}', True),
        (ANSWER % '{"authMethods":[]}', False),
        ('import sys; print("starting up"); sys.stdin.readline()', False),  # the first line must be the answer
        ('print(\'{"jsonrpc":"2.0","method":"session/update","params":{}}\')', False),
        ("import sys; sys.stdin.readline(); sys.exit(3)", False),
        ("import time; time.sleep(30)", False),  # never answers within the timeout
    ],
)
def test_the_auth_check_fails_what_the_registrys_client_fails(program, ok, tmp_path):
    assert auth_check(_python(program), tmp_path, dict(os.environ), timeout=3).ok == ok


@pytest.mark.parametrize(
    "program,ok",
    [
        ("pass", True),
        ("import time; time.sleep(30)", True),
        ("import sys; sys.exit(2)", False),
        ('import sys; print("no stdin given", file=sys.stderr); sys.exit(2)', True),
    ],
)
def test_the_launch_check_judges_as_the_registry_does(program, ok, tmp_path):
    assert launch_check(_python(program), tmp_path, dict(os.environ), timeout=2).ok == ok


# ── the generated entries ──────────────────────────────────────────────────────────────────────────────────────
def _entry(folder: str) -> dict[str, Any]:
    return json.loads((REGISTRY / folder / "agent.json").read_text())


def test_there_is_an_entry_for_every_supported_agent_and_for_every_agent_at_once():
    agents = {build_parser().parse_args(_entry(f)["distribution"]["uvx"]["args"]).agent for f in FOLDERS}
    assert agents == {n for n in AGENT_NAMES if ENTRIES[n].supported} | {"auto"}
    assert {"omp", "openclaw", "auto"} <= agents
    assert "acp-mux" in FOLDERS  # the every-agent entry has the project's own name


@pytest.mark.parametrize("folder", FOLDERS)
def test_the_registry_builds_each_generated_entry(folder):
    entry = _entry(folder)
    assert registry_refuses(entry, folder) == []
    assert icon_errors((REGISTRY / folder / "icon.svg").read_text()) == []
    assert set(entry["distribution"]["uvx"]) <= {"package", "args", "env"}  # no `cmd`: uvx has none


def test_no_two_generated_entries_share_an_id():
    assert duplicate_ids({f: _entry(f) for f in FOLDERS}) == []


@pytest.mark.parametrize("folder", FOLDERS)
def test_each_entry_runs_this_version_through_a_command_of_this_distribution(folder):
    entry = _entry(folder)
    package = entry["distribution"]["uvx"]["package"]
    assert entry["version"] == __version__ and package == f"{PROJECT['name']}=={__version__}"
    assert PROJECT["scripts"][package_name(package)] == PROJECT["scripts"]["acp-mux"]
    assert entry["license"] == PROJECT["license"]
    urls = {label.lower(): url for label, url in (PROJECT.get("urls") or {}).items()}
    repository = urls.get("repository") or urls.get("source")  # PyPA's well-known labels for the source
    assert entry.get("repository") == repository  # present exactly when the project names one


@settings(max_examples=30, deadline=None)
@given(version=st.text(alphabet="0123456789.rcab-+", min_size=1, max_size=9) | semver)
def test_the_generator_writes_entries_for_a_version_only_when_the_registry_takes_it(version):
    """Whatever the project's version, the generator either writes entries that pass or refuses to write."""
    real = sync_agents.project()
    original = sync_agents.project
    sync_agents.project = lambda: {**real, "version": version}
    try:
        files = sync_agents.registry_files()
    except SystemExit:
        files = None
    finally:
        sync_agents.project = original
    assert (files is not None) == _is_version(version)
    for path, text in (files or {}).items():
        if path.name == "agent.json":
            assert registry_refuses(json.loads(text), path.parent.name) == []


@pytest.mark.parametrize("repository,written", [("https://github.com/someone/acp-mux", True), ("not a url", False)])
def test_a_repository_named_by_the_project_goes_into_every_entry(repository, written, monkeypatch):
    real = sync_agents.project()
    monkeypatch.setattr(sync_agents, "project", lambda: {**real, "repository": repository})
    if not written:
        with pytest.raises(SystemExit, match="not an absolute URI"):
            sync_agents.registry_files()
        return
    entries = [json.loads(text) for path, text in sync_agents.registry_files().items() if path.name == "agent.json"]
    assert entries and all(e["repository"] == repository and registry_refuses(e) == [] for e in entries)


def test_the_generator_refuses_to_write_an_entry_the_registry_would_refuse(monkeypatch):
    monkeypatch.setattr(sync_agents, "registry_id", lambda name: f"Acp_{name}")
    with pytest.raises(SystemExit, match="would refuse"):
        sync_agents.registry_files()


# ── the verify script's --auth-check, on each entry ────────────────────────────────────────────────────────────
def console_script(bin_dir: Path, name: str) -> Path:
    """What installing the wheel puts on PATH for ``name`` (``[project.scripts]``): an executable that calls the
    named function with this interpreter, as pip's and uv's generated scripts do."""
    module, function = PROJECT["scripts"][name].split(":")
    path = bin_dir / name
    path.write_text(f"#!{sys.executable}\nimport sys\nfrom {module} import {function}\nsys.exit({function}())\n")
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return path


def installed(folder: str, tmp_path: Path) -> tuple[list[str], dict[str, str]]:
    """The entry's ``uvx PACKAGE ARGS`` as it runs once uvx has installed the package: the executable named after
    the package, with the entry's args, HOME in a sandbox, TERM=dumb and the system's tools only (no agent CLI)."""
    cmd, extra = uvx_command(_entry(folder), tmp_path / "uv-cache")
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    script = console_script(bin_dir, package_name(cmd[3]))
    (tmp_path / "auth-home").mkdir()
    env = sandbox_env(tmp_path / "auth-home", extra)
    env["PATH"] = os.pathsep.join([str(bin_dir), OS_PATH])
    return [str(script), *cmd[4:]], env


@pytest.mark.parametrize("folder", FOLDERS)
def test_each_entry_passes_the_auth_check_where_no_agent_cli_is_installed(folder, tmp_path):
    """The registry's CI writes one initialize and reads the first line: it must offer a sign-in of type agent or
    terminal."""
    cmd, env = installed(folder, tmp_path)
    verdict = auth_check(cmd, tmp_path, env, timeout=60)
    assert verdict.ok, verdict.reason


@pytest.mark.parametrize("folder", FOLDERS)
def test_each_entry_passes_the_plain_launch_check(folder, tmp_path):
    """Without --auth-check the registry starts the command on an empty stdin: it must keep running or exit 0."""
    cmd, env = installed(folder, tmp_path)
    verdict = launch_check(cmd, tmp_path, env)
    assert verdict.ok and verdict.reason == "exited cleanly", verdict.reason  # stdin at its end: nothing to serve
