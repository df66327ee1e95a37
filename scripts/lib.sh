# Shared by scripts/run and scripts/test: make .venv and install the pinned requirements. Source, don't run.
# shellcheck shell=bash

UV_VERSION="0.13.9"
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VENV="$ROOT/.venv"

say() { printf '\033[1m==> %s\033[0m\n' "$*" >&2; }
die() { printf '\033[31merror:\033[0m %s\n' "$*" >&2; exit 1; }

find_python() {
    local candidate
    for candidate in "${PYTHON:-}" python3 python3.13 python3.12 python3.11; do
        [ -n "$candidate" ] || continue
        command -v "$candidate" >/dev/null 2>&1 || continue
        if "$candidate" -c 'import sys; sys.exit(sys.version_info < (3, 11))' 2>/dev/null; then
            command -v "$candidate"
            return 0
        fi
    done
    return 1
}

# uv reads neither pip's config nor PIP_* variables, so carry a custom index across (and back, for pip itself).
share_index_settings() {
    if [ -n "${PIP_INDEX_URL:-}" ] && [ -z "${UV_DEFAULT_INDEX:-}" ] && [ -z "${UV_INDEX_URL:-}" ]; then
        export UV_DEFAULT_INDEX="$PIP_INDEX_URL"
    fi
    if [ -n "${UV_DEFAULT_INDEX:-}" ] && [ -z "${PIP_INDEX_URL:-}" ]; then
        export PIP_INDEX_URL="$UV_DEFAULT_INDEX"
    fi
}

ensure_venv() {
    if [ ! -x "$VENV/bin/python" ]; then
        local python
        python="$(find_python)" || die "Python 3.11 or newer is required (set PYTHON=/path/to/python3.x)."
        say "Creating .venv with $python"
        "$python" -m venv "$VENV" || die "python -m venv failed (on Debian/Ubuntu: apt-get install python3-venv)."
    fi
}

# Prints the path of a uv binary of the pinned version inside .venv, installing it with pip when needed.
ensure_uv() {
    local uv="$VENV/bin/uv"
    if [ -x "$uv" ] && [ "$("$uv" --version 2>/dev/null | cut -d' ' -f2)" = "$UV_VERSION" ]; then
        echo "$uv"
        return 0
    fi
    # Virtualenvs made by uv itself have no pip; ensurepip adds it.
    "$VENV/bin/python" -m pip --version >/dev/null 2>&1 || "$VENV/bin/python" -m ensurepip --upgrade >&2 || return 1
    say "Installing uv $UV_VERSION into .venv"
    "$VENV/bin/python" -m pip install --quiet "uv==$UV_VERSION" >&2 || return 1
    echo "$uv"
}

# install_requirements <file> <sync|install>: "sync" makes .venv match the file exactly; "install" only adds.
install_requirements() {
    local requirements="$ROOT/$1" mode="$2" uv
    share_index_settings
    ensure_venv
    if uv="$(ensure_uv)"; then
        say "Installing $1 with uv"
        local source=("$requirements")
        [ "$mode" = sync ] || source=(-r "$requirements")
        if UV_PYTHON_DOWNLOADS=never "$uv" pip "$mode" --quiet --python "$VENV/bin/python" "${source[@]}"; then
            return 0
        fi
        say "uv could not install $1; falling back to pip"
    else
        say "uv is not available; installing with pip"
    fi
    "$VENV/bin/python" -m pip --version >/dev/null 2>&1 || "$VENV/bin/python" -m ensurepip --upgrade >&2
    "$VENV/bin/python" -m pip install --quiet -r "$requirements" || die "could not install $1"
}
