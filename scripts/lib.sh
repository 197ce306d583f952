# shellcheck shell=bash
# Copyright: (c) 2026, devinfra.providers contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
# Shared helpers for the project's scripts. Sourced, never run.

REPO_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
VENV=${DEVINFRA_VENV:-$REPO_ROOT/.venv}
# Outside the checkout: ansible-test would otherwise list files through the outer git repo.
BUILD_DIR=${DEVINFRA_BUILD_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/devinfra.providers}

log() { printf '==> %s\n' "$*" >&2; }
die() { printf 'ERROR: %s\n' "$*" >&2; exit 1; }

# Run a command as root: directly when we are root, through sudo otherwise.
as_root() {
  if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi
}

# System packages named in bindep.txt for the given profiles (dpkg platform).
# A line is taken when it has no profile, or one of its profiles is among "$@".
bindep_packages() {
  awk -v want=" $* " '
    /^[[:space:]]*(#|$)/ { next }
    {
      name = $1; sel = ""
      if (match($0, /\[[^]]*\]/)) sel = substr($0, RSTART + 1, RLENGTH - 2)
      n = split(sel, tags, " "); ok_platform = 1; profiled = 0; ok_profile = 0
      for (i = 1; i <= n; i++) {
        if (tags[i] ~ /^platform:/) { ok_platform = (tags[i] == "platform:dpkg") ; continue }
        profiled = 1
        if (index(want, " " tags[i] " ")) ok_profile = 1
      }
      if (ok_platform && (!profiled || ok_profile)) print name
    }' "$REPO_ROOT/bindep.txt"
}

install_system_packages() {
  local pkgs
  pkgs=$(bindep_packages "$@" | tr '\n' ' ')
  # shellcheck disable=SC2086
  if ! dpkg -s $pkgs >/dev/null 2>&1; then
    log "installing system packages: $pkgs"
    as_root env DEBIAN_FRONTEND=noninteractive apt-get update -q
    # shellcheck disable=SC2086
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends $pkgs
  fi
}

# pyenv's root (PYENV_ROOT wins, as in pyenv itself), or nothing.
pyenv_root() {
  if [ -n "${PYENV_ROOT:-}" ] && [ -d "$PYENV_ROOT/versions" ]; then echo "$PYENV_ROOT"; return; fi
  command -v pyenv >/dev/null 2>&1 && pyenv root 2>/dev/null
}

# The controller Python: 3.12 for ansible-core 2.21 (3.13 next). pyenv's bare shims fail
# when the version is not selected, so look for real interpreters under pyenv's root first.
find_python() {
  local cand root
  if root=$(pyenv_root) && [ -n "$root" ]; then
    for cand in "$root"/versions/3.12*/bin/python3.12 "$root"/versions/3.13*/bin/python3.13; do
      [ -x "$cand" ] && "$cand" -c 'import venv' >/dev/null 2>&1 && { echo "$cand"; return; }
    done
  fi
  for cand in python3.12 python3.13 python3; do
    command -v "$cand" >/dev/null 2>&1 && "$cand" -c 'import venv, ensurepip' >/dev/null 2>&1 \
      && { command -v "$cand"; return; }
  done
  die "no usable Python 3 with venv found"
}

# Create the venv and install the collection's Python requirements (+ extra files).
ensure_venv() {
  if [ ! -x "$VENV/bin/python" ]; then
    local py
    py=$(find_python)
    log "creating venv $VENV with $py"
    "$py" -m venv "$VENV"
    "$VENV/bin/python" -m pip install -q --upgrade pip
  fi
  local req args=()
  for req in "$REPO_ROOT/requirements.txt" "$@"; do args+=(-r "$req"); done
  log "installing Python requirements: ${args[*]}"
  "$VENV/bin/python" -m pip install -q "${args[@]}" -c "$REPO_ROOT/tests/constraints.txt"
}

# Older target Pythons that module code must run on, from pyenv when it has them, put on
# PATH as pythonX.Y so ansible-test finds them.
target_pythons_path() {
  local dir="$BUILD_DIR/pythons" root v
  mkdir -p "$dir"
  if root=$(pyenv_root) && [ -n "$root" ]; then
    for v in "$root"/versions/3.*/bin/python3.*; do
      case "$v" in *-config|*m) continue ;; esac
      [ -x "$v" ] && ln -sf "$v" "$dir/$(basename "$v")"
    done
  fi
  echo "$dir"
}
