"""Programs whose options (or operands) write files or run other programs: the one table a command rule consults.

Why: "Always allow `sort` commands" reads as "sort things"; ``sort -o ~/.bashrc`` overwrites a file and ``find .
-exec rm {} +`` runs another program. A rule keyed on the program alone would cover them although the label does
not say so. So a command that uses such an option never gets a prefix key (only the identical command may match),
and since a later command is judged by its own analysis, a rule for ``find . -name x`` never covers ``find
-delete``. Programs that write or run by nature (``cp``, ``rm``, ``make``, ``npm test``) are not here: their label
already says what they do.

How an option is recognised (each conservative: a false alarm only means "asked again"):

* ``short``: a letter anywhere in a single-dash cluster (``-o``, ``-ofile``, ``-sSLo``);
* ``long``: ``--name``, ``--name=value`` and every abbreviation getopt_long and git's parse-options accept
  (``--outp`` for ``--output``);
* ``words``: a word starting with the text (``find -exec``/``-execdir``, ``dd of=``, ``gcc -B/x``, ``go -exec=``);
* ``plus``: a word starting with ``+`` runs commands (``less +!cmd``, ``vim +cmd``);
* ``operands``: more operands than this name an output file (``uniq IN OUT``, ``xxd IN OUT``);
* ``always``: every use writes or runs something beyond its operands (``tee``, ``tar``, ``wget``).

Covered (from each program's manual / ``--help`` of the versions on Debian 12 and upstream docs):

* find: -exec -execdir -ok -okdir -delete -fprint -fprint0 -fprintf -fls
* sort -o/--output, --compress-program; shuf -o/--output; iconv -o/--output; uniq/xxd a second operand; dd of=;
  tee, tar, wget (always); file -C (compiles a magic file)
* git: -c/--config-env and --exec-path before the subcommand; --output, --output-directory, --ext-diff,
  --upload-pack, --receive-pack, --exec, --extcmd, --template, --open-files-in-pager anywhere; per subcommand
  rebase -x, grep -O, clone -u/-c, format-patch -o, archive -o, difftool/mergetool -x/-t; ``submodule foreach``,
  ``bisect run``, ``filter-branch`` (see command_scope: runners)
* rg --pre/--pre-glob/--hostname-bin; fd -x/--exec/-X/--exec-batch; bat --pager
* curl -o -O -K -D -c -T -w, --output --output-dir --remote-name(-all) --config --dump-header --cookie-jar
  --upload-file --write-out --trace --trace-ascii --stderr --libcurl --etag-save --hsts --alt-svc
* less -o -O -k, --log-file --LOG-FILE --lesskey-file --lesskey-src, +commands; man -P -H -p -C, --pager --html
  --preprocessor --config-file
* zip -T/-TT/--unzip-command; rsync -e/--rsh/--rsync-path/--log-file/--write-batch/--only-write-batch;
  scp/sftp -S -o -F; nc/ncat -e -c, --exec --sh-exec --lua-exec
* vim/vi/nvim/view/ex/vimdiff -c -S -u -s -w -W, --cmd, +commands; emacs -l -f, --eval --load --funcall --script
* gcc/g++/cc/clang/clang++ -wrapper -B -fplugin -specs --specs; go -exec -toolexec; cargo --config (after the
  subcommand); npm/pnpm/yarn --script-shell --node-options --userconfig --globalconfig --shell
* make/gmake: any ``NAME=value`` argument, -E/--eval; pytest/py.test: -p -c -o, --config-file --override-ini
  --rootdir --confcutdir --basetemp --junitxml --junit-xml --log-file --report-log --result-log --cov-report --debug
* openssl -out -keyout -engine; gpg -o/--output; pandoc -o -F -L, --output --filter --lua-filter --extract-media
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass

_ASSIGNMENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_.-]*[:+?!]?=")


@dataclass(frozen=True)
class Risky:
    """How one program writes files or runs code through its arguments (see the module docstring)."""

    short: str = ""
    long: frozenset[str] = frozenset()
    words: tuple[str, ...] = ()
    plus: bool = False
    operands: int | None = None
    always: bool = False
    assignments: bool = False  # a ``NAME=value`` argument overrides a variable that can name a program (make SHELL=)


_F = frozenset
_VIM = Risky(short="cSusWw", long=_F({"--cmd"}), plus=True)
_CC = Risky(words=("-wrapper", "-B", "-fplugin", "-specs", "--specs"))
_JS = Risky(long=_F({"--script-shell", "--node-options", "--userconfig", "--globalconfig", "--shell"}))
_GIT_ANYWHERE = _F(
    {
        "--output",
        "--output-directory",
        "--ext-diff",
        "--upload-pack",
        "--receive-pack",
        "--exec",
        "--extcmd",
        "--template",
        "--open-files-in-pager",
        "--exec-path",
        "--config-env",
    }
)
# make: a command-line variable replaces the Makefile's (``SHELL=/tmp/x``, ``CC=/tmp/x`` run that program), and
# ``--eval``/``-E`` adds makefile text.
_MAKE = Risky(short="E", long=_F({"--eval"}), assignments=True)
# pytest: ``-p`` loads a plugin module, ``-c``/``--config-file`` another config, ``-o``/``--override-ini`` rewrites
# options (``addopts``), ``--rootdir``/``--confcutdir`` choose which conftest.py files run, ``--basetemp`` is
# emptied (removed) by pytest, and the report options write files.
_PYTEST = Risky(
    short="pco",
    long=_F(
        {
            "--config-file",
            "--override-ini",
            "--rootdir",
            "--confcutdir",
            "--basetemp",
            "--junitxml",
            "--junit-xml",
            "--log-file",
            "--report-log",
            "--result-log",
            "--cov-report",
            "--debug",
        }
    ),
)
_NC = Risky(short="ec", long=_F({"--exec", "--sh-exec", "--lua-exec"}))

TABLE: dict[str, Risky] = {
    "find": Risky(words=("-exec", "-ok", "-delete", "-fprint", "-fls")),
    "sort": Risky(short="o", long=_F({"--output", "--compress-program"})),
    "shuf": Risky(short="o", long=_F({"--output"})),
    "iconv": Risky(short="o", long=_F({"--output"})),
    "uniq": Risky(operands=1),
    "xxd": Risky(operands=1),
    "dd": Risky(words=("of=",)),
    "tee": Risky(always=True),
    "tar": Risky(always=True),
    "wget": Risky(always=True),
    "file": Risky(short="C"),
    "git": Risky(long=_GIT_ANYWHERE),
    "rg": Risky(long=_F({"--pre", "--pre-glob", "--hostname-bin"})),
    "fd": Risky(short="xX", long=_F({"--exec", "--exec-batch"})),
    "fdfind": Risky(short="xX", long=_F({"--exec", "--exec-batch"})),
    "bat": Risky(long=_F({"--pager"})),
    "batcat": Risky(long=_F({"--pager"})),
    "curl": Risky(
        short="oOKDcTw",
        long=_F(
            {
                "--output",
                "--output-dir",
                "--remote-name",
                "--remote-name-all",
                "--config",
                "--dump-header",
                "--cookie-jar",
                "--upload-file",
                "--write-out",
                "--trace",
                "--trace-ascii",
                "--stderr",
                "--libcurl",
                "--etag-save",
                "--hsts",
                "--alt-svc",
            }
        ),
    ),
    "less": Risky(short="oOk", long=_F({"--log-file", "--LOG-FILE", "--lesskey-file", "--lesskey-src"}), plus=True),
    "man": Risky(short="PHpC", long=_F({"--pager", "--html", "--preprocessor", "--config-file"})),
    "zip": Risky(short="T", long=_F({"--unzip-command", "--test"})),
    "rsync": Risky(short="e", long=_F({"--rsh", "--rsync-path", "--log-file", "--write-batch", "--only-write-batch"})),
    "scp": Risky(short="SoF"),
    "sftp": Risky(short="SoFb"),
    "nc": _NC,
    "ncat": _NC,
    "netcat": _NC,
    **dict.fromkeys(("vim", "vi", "nvim", "view", "ex", "vimdiff", "gvim"), _VIM),
    "emacs": Risky(short="lf", long=_F({"--eval", "--load", "--funcall", "--script"})),
    **dict.fromkeys(("gcc", "g++", "cc", "c++", "clang", "clang++"), _CC),
    "go": Risky(words=("-exec", "--exec", "-toolexec", "--toolexec")),
    "cargo": Risky(long=_F({"--config"})),
    "make": _MAKE,
    "gmake": _MAKE,
    "pytest": _PYTEST,
    "py.test": _PYTEST,
    "npm": _JS,
    "pnpm": _JS,
    "yarn": _JS,
    "openssl": Risky(words=("-out", "-keyout", "-engine")),
    "gpg": Risky(short="o", long=_F({"--output"})),
    "pandoc": Risky(short="oFL", long=_F({"--output", "--filter", "--lua-filter", "--extract-media"})),
}
# Options that write or run only for one subcommand (git's letters mean different things per subcommand).
SUBCOMMANDS: dict[tuple[str, str], Risky] = {
    ("git", "rebase"): Risky(short="x"),
    ("git", "grep"): Risky(short="O"),
    ("git", "clone"): Risky(short="uc", long=_F({"--config"})),
    ("git", "format-patch"): Risky(short="o"),
    ("git", "archive"): Risky(short="o"),
    ("git", "difftool"): Risky(short="xt", long=_F({"--tool"})),
    ("git", "mergetool"): Risky(short="t", long=_F({"--tool"})),
    ("git", "ls-remote"): Risky(short="u"),
}
GLOBAL_VALUE_OPTIONS: dict[str, frozenset[str]] = {"git": _F({"-c"})}  # before the subcommand


def reason(words: tuple[str, ...], subcommand_at: int | None = None) -> str | None:
    """Why ``words`` (a program and its arguments) may write files or run code beyond what its name says, or None.

    ``subcommand_at`` is the index of the subcommand in ``words`` (tools like git), when there is one. The program
    is looked up by its base name whatever its path: a copy of ``sort`` elsewhere is judged the same."""
    if not words:
        return None
    name = os.path.basename(words[0])
    subcommand = words[subcommand_at] if subcommand_at is not None and subcommand_at < len(words) else ""
    before = words[1:subcommand_at] if subcommand_at is not None else words[1:]
    for option in GLOBAL_VALUE_OPTIONS.get(name, _F()):
        if any(w.startswith(option) for w in before):
            return f"{name} {option}: sets configuration that can run programs"
    for spec in (TABLE.get(name), SUBCOMMANDS.get((name, subcommand))):
        found = _found(spec, words[1:]) if spec is not None else None
        if found:
            return f"{name} {found}"
    return None


def _found(spec: Risky, args: tuple[str, ...]) -> str | None:
    if spec.always:
        return "writes files or runs programs"
    operands = 0
    for word in args:
        if spec.plus and word.startswith("+") and len(word) > 1:
            return f"{word.split()[0][:12]}: runs commands"
        if any(word.startswith(w) for w in spec.words):
            return f"{word[:16]}: writes files or runs programs"
        if word.startswith("--") and len(word) > 2:
            name = word.split("=", 1)[0]
            if any(option.startswith(name) for option in spec.long):
                return f"{name}: writes files or runs programs"
        elif word.startswith("-") and len(word) > 1:
            if set(word[1:]) & set(spec.short):
                return f"{word[:16]}: writes files or runs programs"
        elif spec.assignments and _ASSIGNMENT.match(word):
            return f"{word.split('=', 1)[0][:16]}=: overrides a variable that can name a program"
        else:
            operands += 1
    if spec.operands is not None and operands > spec.operands:
        return "with an output operand: writes a file"
    return None
