"""Fault class 1 of issue 21: an "always" rule is exactly as wide as its label, against an adversary.

Each test generates the adversary's side from a structure whose truth the test knows without asking the code under
test: which wrapper runs (the system's, or a program named by a path, or a shell told to read start-up code from
elsewhere), which program, whether an option writes files or runs programs, whether a character hides text; for
paths, what the kernel itself resolves (``os.stat``, not ``realpath``); for URLs, the origin they were built from.
A rule granted for A may allow B only when B's effect is what A's label says.
"""

from __future__ import annotations

import os
import shlex
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from acp_mux.translation.permissions import PermissionRules, permission_options, scope_for
from acp_mux.translation.targets import hides_text

# ── commands ────────────────────────────────────────────────────────────────────────────────────────────────────
NEUTRAL = [
    "",
    "bash -c",
    "/bin/bash -lc",
    "/usr/bin/env",
    "env",
    "exec",
    "nohup",
    "sh -c",
    "/usr/bin/env bash -c",
    "/bin/sh -c",
    "command",
    "bash --login -c",
    "/usr/bin/bash -ec",
]
ADVERSE = [
    "/tmp/evil/env",
    "./env",
    "/tmp/evil/bash -c",
    "./bash -c",
    "./sh -c",
    "/tmp/x/nohup",
    "/tmp/x/exec",
    "/bin/../tmp/env",
    "/usr/bin/../../tmp/evil/bash -c",
    "bash --rcfile /tmp/x -ic",
    "bash --init-file /tmp/x -c",
    "bash -i -c",
    "bash -ic",
    "BASH_ENV=/tmp/x bash -c",
    "ENV=/tmp/x sh -c",
    "env BASH_ENV=/tmp/x bash -c",
    "env ENV=/tmp/x sh -c",
    "ZDOTDIR=/tmp/z zsh -c",
    "HOME=/tmp/h bash -lc",
    "sh -o xtrace -c",
    "sh +o posix -c",
    "bash -O extglob -c",
    "env 'BASH_FUNC_git%%=() { rm -rf ~; }' bash -c",
    "/usr/bin/env -S bash -c",
    "SHELLOPTS=xtrace PS4='$(rm -rf ~)' bash -c",
    "env -i HOME=/tmp/h bash -lc",
    "bash -s -c",
]
# program (as written) -> subcommand words, and the options (placed after the subcommand) that write or run
PROGRAMS: dict[str, tuple[list[str], list[str]]] = {
    "git": (
        ["status", "log", "diff"],
        ["--output=/tmp/o", "--outp=/tmp/o", "--ext-diff", "--exec-path=/tmp", "--upload-pack=evil", "--output /tmp/o"],
    ),
    "sort": (
        [],
        ["-o /tmp/o", "-uo/tmp/o", "--output=/tmp/o", "--out /tmp/o", "--compress-program=evil", "-so /tmp/o"],
    ),
    "find": (
        ["."],
        [
            "-exec rm {} +",
            "-delete",
            "-fprint /tmp/o",
            "-fls /tmp/o",
            "-okdir rm {} +",
            "-execdir rm {} +",
            "-fprintf /tmp/o %p",
        ],
    ),
    "curl": (
        ["https://a.example"],
        [
            "-o /tmp/o",
            "-sSLo /tmp/o",
            "-O",
            "--output=/tmp/o",
            "-K /tmp/cfg",
            "--trace /tmp/t",
            "-c /tmp/jar",
            "--remote-name",
            "-D /tmp/h",
        ],
    ),
    "dd": (["if=a"], ["of=/tmp/o"]),
    "uniq": (["a"], ["/tmp/o"]),
    "less": (["f"], ["-o /tmp/o", "+!rm", "--log-file=/tmp/o", "-O/tmp/o"]),
    "rg": (["x"], ["--pre=evil", "--pre evil", "--pre-glob '*'"]),
    "tee": ([], ["/tmp/o"]),
    "make": (["build", "test"], ["SHELL=/tmp/evil", "CC:=/tmp/evil", "MAKE+=x", "--eval=all:;evil", "-E all:;evil"]),
    "pytest": (
        ["tests"],
        [
            "-p evil",
            "-pevil",
            "-c /tmp/cfg",
            "-o addopts=-pevil",
            "--basetemp=/home",
            "--rootdir=/tmp",
            "--override-ini=addopts=x",
            "--junitxml=/tmp/o",
        ],
    ),
    "ls": ([], []),
    "cat": ([], []),
}
GLOBAL_RISKY = {"git": ["-c core.pager=evil", "-c alias.status=!evil", "--exec-path=/tmp/x", "-ccore.pager=evil"]}
SAFE_ARGS = ["-s", "x", "a b", "-v", "src/main.py", "--", "2"]
HIDDEN = [
    "\n",
    "\r",
    "\x0b",
    "\x0c",
    "\x00",
    "\x1b[2K",
    "\u2028",
    "\u2029",
    "\x85",
    "\u202e",
    "\u200b",
    "\ufeff",
    "\u2066",
]
PATHS = ["/tmp/evil/", "./", "/opt/x/", "../"]


@dataclass(frozen=True)
class Cmd:
    """A command with the truth about it: whether anything but the named program could run or be written."""

    wrapper: str
    program: str  # as written: bare, or a path of its own
    sub: tuple[str, ...]
    globals: tuple[str, ...]
    args: tuple[str, ...]
    hidden: str  # a character inserted somewhere, or ""
    hidden_at: int
    argv: bool  # handed over as an argv list (no shell) rather than a string

    @property
    def adverse(self) -> bool:
        """Could this run or write something a rule for the plain program does not say?"""
        risky = bool(self.globals) or any(a in PROGRAMS[os.path.basename(self.program)][1] for a in self.args)
        return self.wrapper in ADVERSE or bool(self.hidden) or risky or os.path.basename(self.program) == "tee"

    def inner_words(self) -> list[str]:
        words = [self.program, *[w for g in self.globals for w in shlex.split(g)], *self.sub]
        for arg in self.args:
            words += shlex.split(arg)
        return words

    def render(self) -> str | list[str]:
        words = self.inner_words()
        if self.hidden:  # into a word: between words it would be a separator, inside it hides text
            at = self.hidden_at % len(words)
            word = words[at]
            cut = len(word) // 2
            words[at] = word[:cut] + self.hidden + word[cut:]
        wrapper = shlex.split(self.wrapper)
        script = wrapper and wrapper[-1].startswith("-") and wrapper[-1].endswith("c")
        if self.argv:
            return [*wrapper, shlex.join(words)] if script else [*wrapper, *words]
        inner = shlex.join(words)
        return f"{self.wrapper} {shlex.quote(inner)}" if script else f"{self.wrapper} {inner}".strip()

    def same_text(self, other: Cmd) -> bool:
        mine, theirs = self.render(), other.render()
        flat = lambda c: c.strip() if isinstance(c, str) else shlex.join(c)  # noqa: E731
        return flat(mine) == flat(theirs)


@st.composite
def commands(draw: Any, adversary: bool = True) -> Cmd:
    name = draw(st.sampled_from(sorted(PROGRAMS)))
    subs, risky = PROGRAMS[name]
    program = draw(st.sampled_from([name, name, name] + ([p + name for p in PATHS] if adversary else [])))
    sub = (draw(st.sampled_from(subs)),) if subs else ()
    options = SAFE_ARGS + (risky if adversary else [])
    return Cmd(
        wrapper=draw(st.sampled_from(NEUTRAL + (ADVERSE if adversary else []))),
        program=program,
        sub=sub,
        globals=tuple(draw(st.lists(st.sampled_from(GLOBAL_RISKY[name]), max_size=1)))
        if adversary and name in GLOBAL_RISKY
        else (),
        args=tuple(draw(st.lists(st.sampled_from(options), max_size=3))),
        hidden=draw(st.sampled_from([""] * 6 + HIDDEN)) if adversary else "",
        hidden_at=draw(st.integers(0, 8)),
        argv=draw(st.booleans()),
    )


def allowed(granted: Cmd, asked: Cmd) -> bool:
    rules = PermissionRules()
    rules.remember(scope_for("Bash", "execute", {"command": granted.render()}), "allow")
    return rules.match("shell", "execute", {"command": asked.render()}) == "allow"


@settings(max_examples=1500, deadline=None)
@given(a=commands(), b=commands())
def test_a_command_rule_never_allows_an_adversarial_command(a: Cmd, b: Cmd) -> None:
    """A rule for A allows B only if B is exactly A, or both run the same program (same path as written) with the
    same subcommand through a system wrapper, with no option that writes or runs and no hidden character."""
    if not allowed(a, b) or a.same_text(b):
        return
    assert not a.adverse and not b.adverse, (a.render(), b.render())
    assert a.program == b.program and a.sub == b.sub, (a.render(), b.render())


@st.composite
def one_change(draw: Any) -> tuple[Cmd, Cmd]:
    """A plain command A, and B: the same command with one adversarial change (a wrapper that is not the system's
    or that reads other start-up code, a program of the same name elsewhere, a hidden character, an option that
    writes or runs)."""
    a = draw(commands(adversary=False))
    name = os.path.basename(a.program)
    changes = (
        ["wrapper", "program", "hidden"]
        + (["risky"] if PROGRAMS[name][1] else [])
        + (["global"] if name in GLOBAL_RISKY else [])
    )
    change = draw(st.sampled_from(changes))
    if change == "wrapper":
        b = Cmd(draw(st.sampled_from(ADVERSE)), a.program, a.sub, a.globals, a.args, "", 0, draw(st.booleans()))
    elif change == "program":
        b = Cmd(a.wrapper, draw(st.sampled_from(PATHS)) + name, a.sub, a.globals, a.args, "", 0, a.argv)
    elif change == "hidden":
        b = Cmd(
            a.wrapper,
            a.program,
            a.sub,
            a.globals,
            a.args,
            draw(st.sampled_from(HIDDEN)),
            draw(st.integers(0, 8)),
            a.argv,
        )
    elif change == "risky":
        at = draw(st.integers(0, len(a.args)))
        risky = draw(st.sampled_from(PROGRAMS[name][1]))
        b = Cmd(a.wrapper, a.program, a.sub, a.globals, a.args[:at] + (risky,) + a.args[at:], "", 0, a.argv)
    else:
        b = Cmd(a.wrapper, a.program, a.sub, (draw(st.sampled_from(GLOBAL_RISKY[name])),), a.args, "", 0, a.argv)
    return a, b


@settings(max_examples=1500, deadline=None)
@given(pair=one_change())
def test_one_adversarial_change_is_never_covered(pair: tuple[Cmd, Cmd]) -> None:
    a, b = pair
    assert b.adverse or a.program != b.program
    assert not allowed(a, b), (a.render(), b.render())
    assert not allowed(b, a) or b.same_text(a), (b.render(), a.render())


@settings(max_examples=600, deadline=None)
@given(a=commands(), b=commands())
def test_the_label_is_the_rule(a: Cmd, b: Cmd) -> None:
    """The label shows no character that hides text, and names the program path and words every allowed command
    starts with (or the exact command)."""
    name = permission_options(scope_for("Bash", "execute", {"command": a.render()}))[1]["name"]
    assert not hides_text(name), repr(name)
    if not allowed(a, b) or a.same_text(b):
        return
    assert name.endswith("commands (this session)"), name
    named = shlex.split(name.split("`")[1])
    assert b.inner_words()[: len(named)] == named, (name, b.render())


@settings(max_examples=300, deadline=None)
@given(a=commands(adversary=False), b=commands(adversary=False))
def test_plain_commands_through_system_wrappers_are_still_covered(a: Cmd, b: Cmd) -> None:
    """The rule stays useful: the same program and subcommand with harmless arguments, through any system wrapper
    (codex's ``/bin/bash -lc`` included), is allowed."""
    if a.program != b.program or a.sub != b.sub or os.path.basename(a.program) in ("tee", "uniq"):
        return
    if "--" in a.args or "--" in b.args:
        return  # `--` before the subcommand's own words: exactly-only is fine
    assert allowed(a, b), (a.render(), b.render())


@pytest.mark.parametrize(
    ("granted", "asked"),
    [
        ("git status", "/tmp/evil/env git status"),
        ("git status", "./bash -c 'git status'"),
        ("git status", "/tmp/x/git status"),
        ("/tmp/x/git status", "git status"),
        ("git status", "bash --rcfile /tmp/x -ic 'git status'"),
        ("git status", "bash -ic 'git status'"),
        ("git status", "sh -o xtrace -c 'git status'"),
        ("git status", "zsh -c 'git status' && true"),
        ("git status", "BASH_ENV=/tmp/x bash -c 'git status'"),
        ("git status", "env BASH_ENV=/tmp/x bash -c 'git status'"),
        ("git status", "git status\nrm -rf ~"),
        ("git status", "git status\rrm -rf ~"),
        ("git status", "bash -c $'git status\\nrm -rf ~'"),
        ("find . -name x", "find . -name x -fprint /tmp/o"),
        ("sort a", "sort -o ~/.bashrc a"),
        ("sort a", "sort --outp=~/.bashrc a"),
        ("git log", "git log --output=/tmp/o"),
        ("git diff", "git diff --ext-diff"),
        ("git log", "git -c core.pager='rm -rf ~' log"),
        ("curl https://a.example", "curl -o ~/.bashrc https://a.example"),
        ("less f", "less '+!rm -rf ~' f"),
        ("git status", "PATH+=:/tmp/evil git status"),
        ("sort a", "sort {-o,/tmp/x} a"),
        ("sort a", "sort * a"),
        ("ls", "! rm -rf ~"),
    ],
)
def test_the_reported_classes_are_closed(granted: str, asked: str) -> None:
    rules = PermissionRules()
    rules.remember(scope_for("Bash", "execute", {"command": granted}), "allow")
    assert rules.match("Bash", "execute", {"command": asked}) is None


@pytest.mark.parametrize(
    ("granted", "asked", "allowed_then"),
    [
        ("cargo test", "cargo test '*.py'", True),  # quoted: the shell passes the star as it is
        ("sort a", "sort '*' a", True),
        ("sort a", "sort * a", False),  # unquoted: a file named -ofoo would become an option
        ("sort a", "bash -c 'sort * a'", False),
    ],
)
def test_only_unquoted_globs_count(granted: str, asked: str, allowed_then: bool) -> None:
    rules = PermissionRules()
    rules.remember(scope_for("Bash", "execute", {"command": granted}), "allow")
    assert (rules.match("Bash", "execute", {"command": asked}) == "allow") is allowed_then


def test_hidden_characters_in_argv_elements_and_labels() -> None:
    rules = PermissionRules()
    rules.remember(scope_for("shell", "execute", {"command": ["git", "status"]}), "allow")
    assert rules.match("shell", "execute", {"command": ["git", "status", "x\ny"]}) is None
    assert rules.match("shell", "execute", {"command": ["bash", "-lc", "git status\nrm -rf ~"]}) is None
    label = permission_options(scope_for("shell", "execute", {"command": "echo hi\nrm -rf ~"}))[1]["name"]
    assert label == "Always allow exactly `echo hi\\nrm -rf ~` (this session)"


# ── paths ───────────────────────────────────────────────────────────────────────────────────────────────────────
@pytest.fixture(scope="module")
def tree(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """work/ (the session's cwd) with a file, a folder, a symlinked folder pointing outside, a link to itself, a
    link to a file outside, and a symlink loop; outside/ beside it."""
    root = tmp_path_factory.mktemp("rules")
    work, outside = root / "work", root / "outside"
    (work / "sub").mkdir(parents=True)
    outside.mkdir()
    for path in (work / "notes.txt", work / "sub" / "a.txt", outside / "notes.txt", outside / "secret.txt"):
        path.write_text("x")
    (work / "link").symlink_to(outside)
    (work / "self").symlink_to(".")
    (work / "file_link").symlink_to(outside / "secret.txt")
    (work / "loop1").symlink_to("loop2")
    (work / "loop2").symlink_to("loop1")
    yield work


COMPONENTS = [
    "notes.txt",
    "sub",
    "a.txt",
    "link",
    "..",
    ".",
    "self",
    "file_link",
    "loop1",
    "outside",
    "work",
    "secret.txt",
    "new.txt",
    "",
]


@st.composite
def path_strings(draw: Any) -> str:
    parts = draw(st.lists(st.sampled_from(COMPONENTS), min_size=1, max_size=4))
    prefix = draw(st.sampled_from(["", "", "./", "WORK/", "ROOT/"]))
    return prefix + "/".join(parts) + draw(st.sampled_from(["", "", "/"]))


def concrete(path: str, work: Path) -> str:
    return path.replace("WORK/", f"{work}/").replace("ROOT/", f"{work.parent}/")


def kernel_target(path: str) -> tuple[Any, ...] | None:
    """What a write to ``path`` reaches, as the kernel resolves it (not realpath): an existing file's identity, or
    the folder and name a new file would get; None when the kernel cannot resolve it (the write fails)."""
    try:
        found = os.stat(path)
        return ("existing", found.st_dev, found.st_ino)
    except FileNotFoundError:
        pass
    except OSError:
        return None
    if os.path.islink(path) or path.endswith("/"):
        return None
    parent, name = os.path.split(path)
    if name in ("", ".", ".."):
        return None
    try:
        folder = os.stat(parent or ".")
    except OSError:
        return None
    return ("new", folder.st_dev, folder.st_ino, name) if stat.S_ISDIR(folder.st_mode) else None


def labelled_paths(label: str) -> list[str]:
    return label.removeprefix("Always allow changes to ").removesuffix(" (this session)").split(", ")


@settings(max_examples=800, deadline=None)
@given(a=path_strings(), b=path_strings())
def test_a_path_rule_covers_only_the_real_path_it_names(tree: Path, a: str, b: str) -> None:
    """The label names where A's write really goes (as the kernel resolves it), and a request B the rule allows
    writes there too, whatever ``..``, symlinked folders, links to itself and loops it goes through."""
    work = tree
    a, b = concrete(a, work), concrete(b, work)
    rules = PermissionRules(cwd=str(work))
    scope = rules.scope("Write", "edit", {"file_path": a})
    name = permission_options(scope)[1]["name"]
    assert not hides_text(name)
    truth_a = kernel_target(os.path.join(work, a))
    if scope.paths is not None:
        (labelled,) = labelled_paths(name)
        assert truth_a is None or kernel_target(labelled) == truth_a, (a, name)
    rules.remember(scope, "allow")
    if rules.match("Edit", "edit", {"file_path": b}) != "allow" or a == b:
        return
    truth_b = kernel_target(os.path.join(work, b))
    assert scope.paths is not None, (a, b)
    assert truth_b is None or truth_b == kernel_target(labelled_paths(name)[0]), (a, b, name)


def test_the_reported_path_escapes_are_closed(tree: Path) -> None:
    rules = PermissionRules(cwd=str(tree))
    rules.remember(rules.scope("Write", "edit", {"file_path": "notes.txt"}), "allow")
    assert rules.match("Edit", "edit", {"file_path": str(tree / "notes.txt")}) == "allow"
    for escape in [
        "link/notes.txt",
        "link/../../etc/passwd",
        "./notes.txt/../x",
        "self/../notes.txt",
        "loop1/notes.txt",
        "~/notes.txt",
        "file:///etc/passwd",
        "notes.txt\n",
        "sub/../../work/../outside/notes.txt",
    ]:
        assert rules.match("Edit", "edit", {"file_path": escape}) is None, escape
    assert rules.match("Edit", "edit", {"file_path": "self/notes.txt"}) == "allow"  # really the same file
    unnamed = rules.scope("Write", "edit", {"file_path": "loop1/x"})
    assert unnamed.paths is None and "exactly this call" in permission_options(unnamed)[1]["name"]


def test_a_relative_path_without_a_session_folder_is_only_that_call() -> None:
    rules = PermissionRules()
    scope = rules.scope("Write", "edit", {"file_path": "notes.txt"})
    assert scope.paths is None
    rules.remember(scope, "allow")
    assert rules.match("Write", "edit", {"file_path": "notes.txt"}) == "allow"
    assert rules.match("Edit", "edit", {"file_path": "notes.txt"}) is None


# ── fetch origins ───────────────────────────────────────────────────────────────────────────────────────────────
@dataclass(frozen=True)
class Url:
    scheme: str
    userinfo: str
    host: str
    port: int | None
    path: str
    trick: str  # "" or a way to make parsers disagree about the host

    def render(self) -> str:
        port = "" if self.port is None else f":{self.port}"
        host = self.host
        if self.trick == "backslash":
            return f"{self.scheme}://{host}\\@evil.example{port}{self.path}"
        if self.trick == "tab":
            host = host[:1] + "\t" + host[1:]
        if self.trick == "percent":
            host = "%65" + host[1:]
        if self.trick == "slashes":
            return f"{self.scheme}:///{host}{port}{self.path}"
        if self.trick == "space":
            return f" {self.scheme}://{self.userinfo}{host}{port}{self.path}"
        return f"{self.scheme}://{self.userinfo}{host}{port}{self.path}"

    def truth(self) -> str | None:
        """The origin by construction, when every URL parser agrees on it."""
        scheme = self.scheme.lower()
        if self.trick or self.userinfo or scheme not in ("http", "https"):
            return None
        default = 443 if scheme == "https" else 80
        port = "" if self.port in (None, default) else f":{self.port}"
        return f"{scheme}://{self.host.lower()}{port}"


urls = st.builds(
    Url,
    scheme=st.sampled_from(["http", "https", "HTTPS", "ftp", "file", "javascript"]),
    userinfo=st.sampled_from(["", "", "", "user@", "a.example@", "user:pw@", "b.example:443@"]),
    host=st.sampled_from(
        [
            "a.example",
            "b.example",
            "A.Example",
            "a.example.",
            "127.0.0.1",
            "[::1]",
            "localhost",
            "a.example.evil.example",
            "xn--80ak6aa92e.example",
        ]
    ),
    port=st.sampled_from([None, None, 80, 443, 8080]),
    path=st.sampled_from(["", "/", "/x?y#z", "/@b.example"]),
    trick=st.sampled_from([""] * 5 + ["backslash", "tab", "percent", "slashes", "space"]),
)


@settings(max_examples=800, deadline=None)
@given(a=urls, b=urls)
def test_a_fetch_rule_covers_only_the_origin_it_names(a: Url, b: Url) -> None:
    rules = PermissionRules()
    scope = rules.scope("WebFetch", "fetch", {"url": a.render()})
    name = permission_options(scope)[1]["name"]
    assert not hides_text(name)
    if scope.origins is not None:
        assert a.truth() is not None and name == f"Always allow fetches from {a.truth()} (this session)"
    rules.remember(scope, "allow")
    if rules.match("fetch", "fetch", {"url": b.render()}) != "allow" or a.render() == b.render():
        return
    assert a.truth() is not None and a.truth() == b.truth(), (a.render(), b.render())


@pytest.mark.parametrize("kind", ["search", "other", "think", "read"])
def test_other_kinds_without_a_target_cover_that_call_only(kind: str) -> None:
    rules = PermissionRules()
    rules.remember(rules.scope("mcp__db__query", kind, {"sql": "select 1"}), "allow")
    assert rules.match("mcp__db__query", kind, {"sql": "select 1"}) == "allow"
    assert rules.match("mcp__db__query", kind, {"sql": "drop table x"}) is None
    assert rules.match("mcp__other__query", kind, {"sql": "select 1"}) is None
