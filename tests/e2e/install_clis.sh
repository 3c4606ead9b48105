#!/usr/bin/env bash
# Install the real agent CLIs that the end-to-end tests drive, at pinned versions.
#
# usage: tests/e2e/install_clis.sh [claude|codex|all]...      (default: all)
#
# Each CLI goes into its own npm prefix under the cache dir
#   ${ACP_MUX_CLI_CACHE:-$HOME/.cache/acp-mux-clis}/<name>-<version>/
# so two versions never collide and a finished install is never touched again.
# The install is idempotent: a prefix that already holds the pinned version is
# skipped. A fresh install goes to a temporary sibling dir first and is renamed
# into place only when `<bin> --version` works, so an interrupted run never
# leaves a half-installed prefix that later runs would mistake for a good one.
#
# On success the last line printed for each CLI is `<name> <absolute bin path>`.
# The pins live here and in tests/e2e/clis.py (PINS); keep them in sync.
set -euo pipefail

CACHE="${ACP_MUX_CLI_CACHE:-$HOME/.cache/acp-mux-clis}"

declare -A PKG=([claude]="@anthropic-ai/claude-code" [codex]="@openai/codex")
declare -A VER=([claude]="2.1.197" [codex]="0.169.0")
# Install steps run with --ignore-scripts (no package install script may run code
# or reach the network). claude's postinstall is needed though:
# it only hard-links the native binary from the platform optional dependency over
# the bin/claude.exe stub, so we run that one script explicitly.
declare -A POSTINSTALL=([claude]="@anthropic-ai/claude-code/install.cjs")

log() { echo "install_clis: $*" >&2; }

# installed_version PREFIX PKG -> prints the version npm recorded, or nothing.
installed_version() {
  local pj="$1/node_modules/$2/package.json"
  [[ -f "$pj" ]] || return 0
  node -e 'process.stdout.write(require(process.argv[1]).version || "")' "$pj" 2>/dev/null || true
}

install_one() {
  local name="$1" pkg="${PKG[$1]:-}" ver="${VER[$1]:-}"
  if [[ -z "$pkg" ]]; then log "unknown CLI '$name' (known: ${!PKG[*]})"; return 2; fi
  local prefix="$CACHE/$name-$ver" bin
  bin="$prefix/node_modules/.bin/$name"

  if [[ "$(installed_version "$prefix" "$pkg")" == "$ver" && -x "$bin" ]]; then
    log "$name $ver already installed in $prefix"
    echo "$name $bin"
    return 0
  fi

  command -v npm >/dev/null || { log "npm not found on PATH"; return 3; }
  mkdir -p "$CACHE"
  local tmp
  tmp="$(mktemp -d "$CACHE/.$name-$ver.XXXXXX")"
  chmod 755 "$tmp"
  log "installing $pkg@$ver into $prefix"
  local t0=$SECONDS
  if ! npm install --prefix "$tmp" --no-audit --no-fund --no-update-notifier \
        --ignore-scripts --loglevel=error "$pkg@$ver" >&2; then
    rm -rf "$tmp"; log "npm install of $pkg@$ver failed"; return 4
  fi
  local post="${POSTINSTALL[$name]:-}"
  if [[ -n "$post" ]] && ! node "$tmp/node_modules/$post" >&2; then
    rm -rf "$tmp"; log "postinstall $post failed"; return 4
  fi
  # Smoke-test the binary with a throwaway HOME: codex creates $CODEX_HOME/tmp
  # even for --version, and the real ~ must stay untouched.
  local scratch
  scratch="$(mktemp -d)"
  if ! env HOME="$scratch" CODEX_HOME="$scratch/.codex" \
        "$tmp/node_modules/.bin/$name" --version >&2; then
    rm -rf "$tmp" "$scratch"; log "$name --version failed after install"; return 5
  fi
  rm -rf "$scratch"
  rm -rf "$prefix"
  mv "$tmp" "$prefix"
  log "$name $ver installed in $((SECONDS - t0))s ($(du -sh "$prefix" | cut -f1))"
  echo "$name $bin"
}

main() {
  local names=("$@")
  [[ ${#names[@]} -eq 0 || "${names[0]}" == all ]] && names=(claude codex)
  local rc=0
  for n in "${names[@]}"; do install_one "$n" || rc=$?; done
  return $rc
}

main "$@"
