"""What a shell command really runs, and the narrowest honest "always allow" key for it.

Why: an "Always allow" answer is remembered as a rule, and the rule must never be wider than its label. Agents wrap
commands (codex sends ``/bin/bash -lc 'rm -rf build'``), prefix them with environment assignments, put options
before a subcommand (``git -C repo push --force``), or run inline code through an interpreter (``python3 -c …``).
Keying a rule on the first word made ``/bin/bash`` — and with it every later command — allowed. So:

* shells and wrappers (``sh -c``, ``bash -lc``, ``/usr/bin/env bash -c``, ``exec``, ``nohup``, ``command``,
  ``time``) are unwrapped only when named bare or in a system folder (:data:`SYSTEM_DIRS`): ``/tmp/evil/env git
  status`` or ``./bash -c 'git status'`` runs a program of its own, so the path is the program, and a program named
  by a path never shares a key with the bare name (``/tmp/x/git`` is not ``git``); ``env`` and leading
  ``NAME=value`` (and ``NAME+=value``) assignments are unwrapped too, but the assignments stay part of the key
  (``FOO=1 git status`` is not ``git status``);
* a shell is unwrapped only when nothing can make it read other start-up code: no assignment or ``env`` setting in
  front of it (``BASH_ENV=``, ``ENV=``, ``ZDOTDIR=``, ``HOME=``, exported functions ...), and no option but ``-c`` and
  the harmless ``-l``/``--login``, ``-e``, ``-u``, ``-x``, ``--noprofile``, ``--norc`` (no ``-i``, ``--rcfile``,
  ``--init-file``, ``-o``/``+o``/``-O``). ``-l`` is accepted because it is what codex sends for every command
  (``/bin/bash -lc``): a login shell reads /etc/profile and the person's own ~/.profile (and the like), the same
  start-up code their own terminal runs; changing those files is itself a write that asks;
* a command holding a character a shell treats as a separator or that hides text in a label (newline, CR, any other
  control, line separators, bidi overrides, zero-width characters), in the string, in an argv element or in a
  ``-c`` script, is compound; so is any ``$`` in a shell line (variables, ``$'…'`` quoting, substitutions) and a
  line that starts with a shell keyword (``!``, ``coproc``, ``if`` ...); a key word with glob, brace or tilde
  characters (``g*t``, ``{git,rm}``) gets no key; the label shows hidden characters escaped;
* programs whose options write files or run other programs (``risky_options.py``: find's actions, ``sort -o``,
  ``git --output``, ``curl -o``, ``tar`` ...) get no key when such an option is used, nor when a glob or brace in a
  shell line could produce one;
* tools with subcommands are keyed by program, the exact options before the subcommand, and the subcommand (plus
  the script name for ``npm run build`` and the like); an option we cannot place means no prefix key;
* interpreters get a key only for a script or ``-m module`` (``python3 script.py``), never for inline code
  (``-c``, ``-e``, awk/sed programs), and programs that run other programs (``sudo``, ``xargs``, ``timeout``,
  ``npx``, ``uv run``, ``find -exec``…) never get one;
* anything chained, piped, redirected, substituted, or unparsable is compound: only the identical command matches.

``None`` as a key means "exact command only". The key is compared for equality with the key of a later command, so
the later command's own analysis decides whether it qualifies (a ``find -delete`` never matches a ``find`` rule).
"""

from __future__ import annotations

import os
import re
import shlex
from dataclasses import dataclass

from acp_mux.translation import risky_options
from acp_mux.translation.targets import hides_text, visible

_META = re.compile(r"[;&|`<>()$]")
_ASSIGNMENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*(\[[^\]]*\])?\+?=")
_EXPANDS = re.compile(r"[*?\[\]{}~]")  # glob, brace and tilde expansion in a shell line
_EXPANSION_CHARS = frozenset("*?[{~")
# Where a wrapper or shell named by a path is still the system's own: anywhere else the path is the program.
SYSTEM_DIRS = frozenset(
    {
        "/bin",
        "/usr/bin",
        "/usr/local/bin",
        "/sbin",
        "/usr/sbin",
        "/usr/local/sbin",
        "/opt/homebrew/bin",
        "/run/current-system/sw/bin",
        "/nix/var/nix/profiles/default/bin",
    }
)
# Shell words that are not programs: a rule keyed on them would cover whatever follows.
RESERVED = frozenset(
    {
        "!",
        "if",
        "then",
        "else",
        "elif",
        "fi",
        "case",
        "esac",
        "for",
        "select",
        "while",
        "until",
        "do",
        "done",
        "in",
        "function",
        "time",
        "coproc",
        "{",
        "}",
        "[[",
        "]]",
    }
)
_SHELL_FLAGS = frozenset("celux")  # -c, and options that change no code the shell reads: -l -e -u -x
_SHELL_LONG = frozenset({"--login", "--noprofile", "--norc"})
SHELLS = frozenset({"sh", "bash", "zsh", "dash", "ksh", "mksh", "ash", "yash", "fish", "tcsh", "csh"})
_SHELL_VALUE_OPTIONS = frozenset({"-o", "+o", "-O", "+O", "--rcfile", "--init-file"})
# Wrappers that run the rest of the line unchanged: dropped (with their own simple flags) before analysis.
_TRANSPARENT = {
    "exec": {"-c", "-l"},
    "nohup": set(),
    "command": {"-p"},
    "builtin": set(),
    "time": {"-p"},
    "noglob": set(),
}
# Programs that run another program chosen by their arguments: never a prefix rule.
RUNNERS = frozenset(
    {
        "sudo",
        "doas",
        "su",
        "pkexec",
        "runuser",
        "xargs",
        "parallel",
        "timeout",
        "nice",
        "ionice",
        "chrt",
        "taskset",
        "watch",
        "strace",
        "ltrace",
        "gdb",
        "valgrind",
        "chroot",
        "unshare",
        "nsenter",
        "setsid",
        "stdbuf",
        "unbuffer",
        "flock",
        "script",
        "ssh",
        "eval",
        "source",
        ".",
        "trap",
        "npx",
        "bunx",
        "pnpx",
        "uvx",
        "pipx",
        "busybox",
        "env",
        "exec",
        "systemd-run",
        "firejail",
        "bwrap",
        "entr",
        "nodemon",
        "expect",
        "dbus-run-session",
        "sg",
        "xterm",
        "tmux",
        "screen",
        "at",
        "batch",
        "crontab",
        "open",
        "xdg-open",
        "start",
        "osascript",
        "enable",
        "fc",
        "mapfile",
        "readarray",
        "socat",
        "command",
        "builtin",
        "nohup",
        "noglob",
    }
)
# Interpreters: a script (or ``-m module``) is a key; inline code never is. Options taking a value, per family.
_INTERPRETERS: dict[str, tuple[frozenset[str], frozenset[str]]] = {
    # family: (inline-code options, options that take a value)
    "python": (frozenset({"-c", "-"}), frozenset({"-W", "-X", "-Q"})),
    "node": (
        frozenset({"-e", "--eval", "-p", "--print", "-"}),
        frozenset({"-r", "--require", "--import", "--loader", "--experimental-loader", "--inspect-port"}),
    ),
    "ruby": (frozenset({"-e", "-"}), frozenset({"-r", "-I", "-C", "-E"})),
    "perl": (frozenset({"-e", "-E", "-"}), frozenset({"-I", "-M", "-m"})),
    "php": (frozenset({"-r", "-B", "-R", "-E", "-F", "-"}), frozenset({"-c", "-d", "-z"})),
    "lua": (frozenset({"-e", "-"}), frozenset({"-l"})),
    "Rscript": (frozenset({"-e", "--expr"}), frozenset()),
    "R": (frozenset({"-e"}), frozenset()),
    "julia": (frozenset({"-e", "-E", "--eval", "--print"}), frozenset({"-L", "--load", "-J", "--sysimage"})),
    "deno": (frozenset({"eval", "-"}), frozenset()),
    "pwsh": (frozenset({"-c", "-Command", "-EncodedCommand", "-e"}), frozenset()),
    "tclsh": (frozenset(), frozenset()),
}
_INTERPRETER_NAMES = {
    **dict.fromkeys(("python", "python2", "python3", "pythonw", "pypy", "pypy3"), "python"),
    **dict.fromkeys(("node", "nodejs", "bun"), "node"),
    "ruby": "ruby",
    "perl": "perl",
    "php": "php",
    "lua": "lua",
    "luajit": "lua",
    "Rscript": "Rscript",
    "R": "R",
    "julia": "julia",
    "deno": "deno",
    "pwsh": "pwsh",
    "powershell": "pwsh",
    "tclsh": "tclsh",
    "wish": "tclsh",
}
_INTERPRETER_RE = re.compile(r"^(python|pypy)[0-9.]*$")
# Languages whose programs are always inline code in the arguments.
INLINE_PROGRAM_TOOLS = frozenset({"awk", "gawk", "mawk", "nawk", "sed", "gsed", "jq", "yq", "dc", "bc", "m4"})


@dataclass(frozen=True)
class _Multi:
    """A tool with subcommands: options before the subcommand (which take a value, which are plain flags), the
    subcommands that run arbitrary commands (no key), and those whose next word belongs to the key."""

    value_options: frozenset[str] = frozenset()
    flags: frozenset[str] = frozenset()
    runners: frozenset[str] = frozenset()
    two_level: frozenset[str] = frozenset()


_F = frozenset
_JS = _Multi(
    _F(
        {
            "--prefix",
            "-w",
            "--workspace",
            "--userconfig",
            "--cache",
            "--registry",
            "--loglevel",
            "--filter",
            "-F",
            "--dir",
            "--cwd",
        }
    ),
    _F(
        {
            "-g",
            "--global",
            "-s",
            "--silent",
            "-q",
            "--quiet",
            "-d",
            "--verbose",
            "-y",
            "--yes",
            "--no-audit",
            "--no-fund",
            "--offline",
            "--ws",
            "--workspaces",
            "--if-present",
            "-r",
            "--recursive",
        }
    ),
    _F({"exec", "x", "dlx", "create", "init", "exec-run"}),
    _F({"run", "run-script", "workspace"}),
)
MULTI: dict[str, _Multi] = {
    "git": _Multi(
        _F({"-C", "-c", "--git-dir", "--work-tree", "--namespace", "--config-env", "--super-prefix"}),
        _F(
            {
                "--no-pager",
                "-p",
                "--paginate",
                "-P",
                "--bare",
                "--no-replace-objects",
                "--literal-pathspecs",
                "--glob-pathspecs",
                "--noglob-pathspecs",
                "--icase-pathspecs",
                "--no-optional-locks",
                "--no-advice",
            }
        ),
        _F({"filter-branch", "filter-repo", "daemon", "instaweb", "difftool", "mergetool", "web--browse"}),
        _F({"stash", "remote", "submodule", "worktree", "notes", "bisect", "lfs", "sparse-checkout", "reflog"}),
    ),
    "npm": _JS,
    "pnpm": _JS,
    "yarn": _JS,
    "cargo": _Multi(
        _F({"-C", "--config", "-Z", "--color"}),
        _F({"-v", "-vv", "-q", "--quiet", "--verbose", "--frozen", "--locked", "--offline"}),
    ),
    "go": _Multi(two_level=_F({"mod", "work", "env", "tool"}), runners=_F({"tool"})),
    "docker": _Multi(
        _F({"-H", "--host", "--context", "-c", "--config", "-l", "--log-level"}),
        _F({"-D", "--debug", "--tls", "--tlsverify"}),
        _F({"exec", "run", "compose", "buildx"}),
        _F({"container", "image", "network", "volume", "system", "context"}),
    ),
    "podman": _Multi(
        _F({"--connection", "-c", "--log-level", "--root", "--runroot"}),
        _F({"--remote", "-r"}),
        _F({"exec", "run", "compose"}),
        _F({"container", "image", "network", "volume", "system", "pod"}),
    ),
    "kubectl": _Multi(
        _F({"-n", "--namespace", "--context", "--kubeconfig", "--cluster", "--user", "-s", "--server"}),
        _F(),
        _F({"exec", "run", "debug", "attach", "plugin"}),
        _F({"config", "rollout", "auth", "create", "set", "top"}),
    ),
    "make": _Multi(
        _F({"-C", "--directory", "-f", "--file", "--makefile", "-I", "--include-dir", "-o", "-W", "-j", "-l"}),
        _F({"-s", "--silent", "-k", "--keep-going", "-B", "-n", "--dry-run", "-q", "-w", "--no-print-directory"}),
    ),
    "pip": _Multi(
        _F({"--python", "--log", "--cache-dir"}),
        _F(
            {
                "-q",
                "--quiet",
                "-v",
                "--verbose",
                "--no-cache-dir",
                "--isolated",
                "--disable-pip-version-check",
                "--no-input",
            }
        ),
    ),
    "uv": _Multi(
        _F({"--directory", "--project", "--python", "-p", "--cache-dir", "--config-file"}),
        _F({"-q", "--quiet", "-v", "--verbose", "--offline", "--no-cache", "--frozen", "--locked", "--no-sync"}),
        _F({"run", "tool", "x"}),
        _F({"pip", "python", "cache", "self"}),
    ),
    "poetry": _Multi(
        _F({"-C", "--directory", "-P", "--project"}),
        _F({"-q", "--quiet", "-v", "-n", "--no-interaction", "--no-ansi"}),
        _F({"run", "shell"}),
        _F({"env", "self", "source", "cache"}),
    ),
    "gh": _Multi(
        _F({"-R", "--repo", "--hostname"}),
        _F(),
        _F({"extension", "alias", "codespace"}),
        _F(
            {
                "pr",
                "issue",
                "repo",
                "run",
                "workflow",
                "release",
                "gist",
                "secret",
                "variable",
                "label",
                "cache",
                "project",
                "auth",
                "ssh-key",
                "gpg-key",
                "ruleset",
                "api",
            }
        ),
    ),
    "terraform": _Multi(_F({"-chdir"}), _F(), _F(), _F({"state", "workspace", "providers"})),
    "helm": _Multi(
        _F({"-n", "--namespace", "--kube-context", "--kubeconfig"}),
        _F({"--debug"}),
        _F({"plugin"}),
        _F({"repo", "plugin"}),
    ),
    "systemctl": _Multi(
        _F({"-H", "--host", "-M", "--machine"}), _F({"--user", "--system", "-q", "--quiet", "--no-pager", "--now"})
    ),
    "brew": _Multi(flags=_F({"-v", "--verbose", "-q", "--quiet"}), runners=_F({"sh", "ruby", "exec"})),
    "apt": _Multi(flags=_F({"-y", "-q", "--yes", "--quiet", "--no-install-recommends"})),
    "apt-get": _Multi(flags=_F({"-y", "-q", "--yes", "--quiet", "--no-install-recommends"})),
    "dnf": _Multi(flags=_F({"-y", "-q", "--assumeyes", "--quiet"})),
    "rustup": _Multi(two_level=_F({"toolchain", "component", "target", "override", "self"}), runners=_F({"run"})),
    "dotnet": _Multi(two_level=_F({"tool", "nuget", "workload"}), runners=_F({"exec"})),
    "conda": _Multi(runners=_F({"run"}), two_level=_F({"env", "config"})),
    "bazel": _Multi(runners=_F({"run"})),
    "mvn": _Multi(
        _F({"-f", "--file", "-s", "--settings", "-P", "-pl"}),
        _F({"-q", "-B", "--batch-mode", "-U", "-o", "--offline", "-e"}),
    ),
    "gradle": _Multi(_F({"-p", "--project-dir"}), _F({"-q", "--quiet", "--offline", "--no-daemon", "-i", "--info"})),
    "./gradlew": _Multi(_F({"-p", "--project-dir"}), _F({"-q", "--quiet", "--offline", "--no-daemon", "-i", "--info"})),
    "bundle": _Multi(runners=_F({"exec"})),
    "rake": _Multi(_F({"-f", "--rakefile", "-C", "--directory"}), _F({"-q", "--quiet", "-t", "--trace"})),
    "composer": _Multi(
        _F({"-d", "--working-dir"}), _F({"-q", "--quiet", "-n", "--no-interaction"}), _F({"exec", "run-script", "run"})
    ),
    "nix": _Multi(runners=_F({"run", "shell", "develop"})),
    "bun": _Multi(runners=_F({"x", "exec", "-e", "--eval", "-p", "--print"}), two_level=_F({"run", "pm"})),
}
MAX_DEPTH = 4
# Second-level subcommands that run any command they are given.
_TWO_LEVEL_RUNNERS = frozenset({("submodule", "foreach"), ("bisect", "run"), ("worktree", "exec")})


@dataclass(frozen=True)
class Command:
    """A command line as far as a rule needs it: the effective argv after unwrapping, the assignments in front of
    it, and whether it is compound (then only the identical text may match)."""

    text: str
    words: tuple[str, ...] = ()
    assignments: tuple[str, ...] = ()
    compound: bool = False
    expands: bool = False  # a shell line with unquoted glob, brace or tilde characters (an argv list never has)


def analyze(command: str | list[str] | tuple[str, ...]) -> Command:
    """The effective command of ``command`` (a shell line, or an argv list run without a shell)."""
    if isinstance(command, (list, tuple)):
        words = [str(w) for w in command]
        text = shlex.join(words)
        if any(hides_text(w) for w in words):
            return Command(text, compound=True)
        return _unwrap(text, words, (), 0, expands=False)
    text = command.strip()
    if not text or _META.search(text) or hides_text(text):
        return Command(text, compound=True)
    try:
        words = shlex.split(text)
    except ValueError:
        return Command(text, compound=True)
    return _unwrap(text, words, (), 0, expands=_expands_unquoted(text))


def _expands_unquoted(text: str) -> bool:
    """Does the shell line hold a glob, brace or tilde character outside quotes (where the shell expands it)?"""
    quote = ""
    escaped = False
    for char in text:
        if escaped:
            escaped = False
        elif char == "\\" and quote != "'":
            escaped = True
        elif quote:
            quote = "" if char == quote else quote
        elif char in "'\"":
            quote = char
        elif char in _EXPANSION_CHARS:
            return True
    return False


def system_name(program: str) -> str | None:
    """The name of ``program`` when it is named bare or in a system folder (what wrappers are recognised by)."""
    if "/" not in program:
        return program
    folder, name = os.path.split(program)
    return name if folder in SYSTEM_DIRS else None


def _unwrap(text: str, words: list[str], assignments: tuple[str, ...], depth: int, expands: bool) -> Command:
    if depth > MAX_DEPTH:
        return Command(text, compound=True)
    words = list(words)
    assigned = list(assignments)
    while words:
        first, name = words[0], system_name(words[0])
        if _ASSIGNMENT.match(first):
            assigned.append(words.pop(0))
        elif name == "env":
            env_words: list[str] = []
            rest = _env_args(words[1:], env_words)
            if rest is None:
                return Command(text, compound=True)
            if env_words:  # kept in the key: `env -i X=1 cmd` is not `cmd` (a bare `env cmd` is)
                assigned += ["env", *env_words]
            words = rest
        elif name in _TRANSPARENT:
            words.pop(0)
            while words and words[0] in _TRANSPARENT[name]:
                words.pop(0)
            if words and words[0].startswith("-"):
                return Command(text, compound=True)  # exec -a NAME, command -v: not modelled
        elif name in SHELLS:
            return _unwrap_shell(text, words, tuple(assigned), depth, expands)
        else:
            break
    if not words or words[0].startswith("-") or words[0] in RESERVED or "=" in words[0]:
        return Command(text, compound=True)  # only assignments or wrappers, an option, a shell keyword: nothing to name
    return Command(text, tuple(words), tuple(assigned), expands=expands)


def _env_args(args: list[str], assigned: list[str]) -> list[str] | None:
    """``env``'s own arguments consumed (assignments kept); None when it does something we do not model."""
    while args:
        word = args[0]
        if word in ("-i", "--ignore-environment", "-", "--"):
            assigned.append(args.pop(0))
        elif word in ("-u", "--unset") and len(args) > 1:
            assigned += [args.pop(0), args.pop(0)]
        elif word.startswith(("--unset=", "-u")):
            assigned.append(args.pop(0))
        elif _ASSIGNMENT.match(word):
            assigned.append(args.pop(0))
        elif "=" in word and not word.startswith("-"):
            return None  # env takes any NAME=VALUE (BASH_FUNC_git%%=...: an exported function): not modelled
        elif word.startswith("-"):
            return None  # -S/--split-string, -C/--chdir, ...: not modelled
        else:
            return args
    return args


def _unwrap_shell(text: str, words: list[str], assignments: tuple[str, ...], depth: int, expands: bool) -> Command:
    """``bash [options] -c SCRIPT`` → SCRIPT's command; ``bash script.sh`` → an interpreter with a script. Anything
    that can make the shell read other start-up code (assignments in front, options beyond -c/-l/-e/-u/-x) keeps
    the whole line compound."""
    args = words[1:]
    inline = False
    i = 0
    while i < len(args):
        word = args[i]
        if word == "--":
            i += 1
            break
        if word.startswith(("--", "+")) or (word.startswith("-") and len(word) > 1):
            if word in _SHELL_LONG or (word[0] == "-" and word[1] != "-" and set(word[1:]) <= _SHELL_FLAGS):
                inline = inline or "c" in word[1:]
                i += 1
                continue
            return Command(text, compound=True)  # --rcfile, --init-file, -i, -o/+o, -O, -s ...: start-up code
        break
    rest = args[i:]
    if not inline:
        return Command(text, tuple(words), assignments, expands=expands)  # a shell reading a script file (or stdin)
    if assignments:
        return Command(text, compound=True)  # BASH_ENV=, ENV=, HOME=, ZDOTDIR=, exported functions ...
    if len(rest) != 1:
        return Command(text, compound=True)  # no script, or positional args the script may run ("$0" "$@")
    inner = analyze(rest[0])
    if inner.compound:
        return Command(text, compound=True)
    return _unwrap(text, list(inner.words), inner.assignments, depth + 1, expands=inner.expands)


def rule_key(command: Command) -> tuple[str, ...] | None:
    """The words an "always allow" rule for ``command`` is keyed on (assignments first), or None: exact only."""
    if command.compound or not command.words:
        return None
    words = command.words
    program = words[0]
    name = os.path.basename(program)
    if system_name(program) is None and (name in SHELLS or name in RUNNERS or name == "env" or name in _TRANSPARENT):
        return None  # a program that looks like a wrapper but is not the system's: never keyed like one
    key, subcommand_at = _key(command, name)
    if key is None:
        return None
    if command.expands and any(_EXPANDS.search(w) for w in key):
        return None  # g*t, {git,rm}, ~/bin/x: the words that run depend on files or the environment
    if name in risky_options.TABLE and command.expands:
        return None  # a glob or brace could produce a file-writing option (a file named -ofoo)
    if risky_options.reason(words, subcommand_at) is not None:
        return None
    return command.assignments + key


def _key(command: Command, name: str) -> tuple[tuple[str, ...] | None, int | None]:
    """The key words without assignments, and the index of the subcommand in the words (if the tool has one)."""
    words = command.words
    program = words[0]
    if name in SHELLS:  # reading a script file (``-c`` was unwrapped before): keyed like an interpreter
        return _interpreter_key(words, "tclsh"), None
    if name in RUNNERS or name in INLINE_PROGRAM_TOOLS:
        return None, None
    family = _INTERPRETER_NAMES.get(name) or ("python" if _INTERPRETER_RE.match(name) else None)
    if (
        family == "node"
        and name == "bun"
        and len(words) > 1
        and not words[1].startswith("-")
        and not _looks_like_script(words[1])
    ):
        family = None  # `bun test`, `bun install`: a tool with subcommands
    if family is not None:
        return _interpreter_key(words, family), None
    multi = MULTI.get(name) or MULTI.get(program)
    if multi is not None:
        key = _multi_key(words, multi)
        return key, (_subcommand_at(words, multi) if key is not None else None)
    return (program,), None


def _looks_like_script(word: str) -> bool:
    return "/" in word or word.endswith((".js", ".ts", ".mjs", ".cjs", ".jsx", ".tsx"))


def _interpreter_key(words: tuple[str, ...], family: str) -> tuple[str, ...] | None:
    inline, valued = _INTERPRETERS[family]
    i = 1
    while i < len(words):
        word = words[i]
        if word in inline or (not word.startswith("--") and word[:2] in inline and word[:2] != "-"):
            return None  # inline code (or code on stdin), also with the code attached: -eprint(1)
        if family == "python" and word.startswith("-") and not word.startswith("--") and "c" in word[1:]:
            return None  # clustered short flags ending in c: python -Bc '...'
        if family == "python" and word == "-m" and i + 1 < len(words):
            module = words[i + 1]
            tool = MULTI.get(module)
            if tool is not None:
                sub = _multi_key((module, *words[i + 2 :]), tool)
                return None if sub is None else words[: i + 1] + sub
            return words[: i + 2]
        if family == "python" and word.startswith("-m") and len(word) > 2:
            return words[: i + 1]
        if word in valued:
            i += 2
            continue
        if word.startswith("-"):
            i += 1
            continue
        if family == "deno" and word in ("run", "test", "task", "serve"):
            return words[: i + 2] if word in ("run", "task") and i + 1 < len(words) else words[: i + 1]
        return words[: i + 1]  # the script: options before it stay in the key
    return None  # no script: a REPL, or code on stdin


def _subcommand_at(words: tuple[str, ...], tool: _Multi) -> int | None:
    """Where the subcommand is, past the options before it; None when an option cannot be placed (is the next
    word its value or the subcommand?)."""
    i = 1
    while i < len(words):
        word = words[i]
        if word in tool.value_options:
            if i + 1 >= len(words):
                return None
            i += 2
            continue
        if word.startswith("--") and "=" in word and word.split("=", 1)[0] in tool.value_options:
            i += 1
            continue
        if len(word) > 2 and word[:2] in tool.value_options and not word.startswith("--"):
            i += 1  # -Crepo, -j4 style: the value is attached
            continue
        if word in tool.flags:
            i += 1
            continue
        if word.startswith("-"):
            return None
        break
    return i


def _multi_key(words: tuple[str, ...], tool: _Multi) -> tuple[str, ...] | None:
    i = _subcommand_at(words, tool)
    if i is None:
        return None
    if i >= len(words):
        return words  # the tool with options only (`make`, `git --no-pager`): exactly those
    sub = words[i]
    if sub in tool.runners:
        return None
    if sub in tool.two_level and i + 1 < len(words):
        nxt = words[i + 1]
        if nxt.startswith("-"):
            return words[: i + 1] if sub not in ("run", "run-script", "workspace") else None
        if sub == "workspace" or (sub, nxt) in _TWO_LEVEL_RUNNERS:
            return None  # yarn workspace NAME <any command>; git submodule foreach <any command>
        return words[: i + 2]
    return words[: i + 1]


def label(command: Command, key: tuple[str, ...] | None, limit: int = 72) -> str:
    """What an "always" rule for ``command`` covers, in words the person reads on the option; characters that hide
    text are shown escaped, so what the person reads is the rule."""
    if key is not None:
        return f"`{visible(shlex.join(key))}` commands"
    text = visible(command.text)
    return f"exactly `{text}`" if len(text) <= limit else "exactly this command"


def segments(text: str) -> list[Command]:
    """The simple commands a compound line is made of (split at ; & | && || and newlines), for reject rules: a
    rejected command stays rejected when it is chained with others."""
    return [analyze(part) for part in re.split(r"&&|\|\||[;&|\n]", text) if part.strip()]
