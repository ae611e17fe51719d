#!/usr/bin/env bash
# Installs the peers that the interop tests run against, into one directory (default
# `target/interop` of the repository; set ACP_INTEROP_DIR to put it elsewhere):
#
#   $ACP_INTEROP_DIR/node/node_modules/...   npm packages of scripts/interop/package.json: the
#                                            official TypeScript SDK, real agents (codex-acp,
#                                            claude-agent-acp, gemini-cli), a client (acpx) and `ws` (the
#                                            WebSocket package the SDK's Node transports use)
#   $ACP_INTEROP_DIR/venv/                   a Python virtual environment with the official
#                                            Python SDK and its `http` extra (the WebSocket
#                                            and Streamable HTTP transports), and uvicorn to
#                                            serve its ASGI app (scripts/interop/requirements.txt)
#   $ACP_INTEROP_DIR/READY                   written last, when everything is installed
#
# Tests look for that directory (ACP_INTEROP_DIR, else `target/interop` beside the workspace's
# Cargo.toml). When it is missing they print a skip message and pass, unless
# ACP_INTEROP_REQUIRED=1 (as in CI), where they fail. Running this again is cheap: it does
# nothing when the installed versions match the pinned ones.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
dir="${ACP_INTEROP_DIR:-${root}/target/interop}"
mkdir -p "${dir}"
stamp="$(cat "${root}/scripts/interop/package.json" "${root}/scripts/interop/requirements.txt" | sha256sum | cut -c1-16)"
if [[ -f "${dir}/READY" && "$(cat "${dir}/READY")" == "${stamp}" ]]; then
  echo "interop peers already installed in ${dir}"
  exit 0
fi
rm -f "${dir}/READY"

command -v node >/dev/null || { echo "interop-setup: node is needed (Node.js 20 or newer)" >&2; exit 1; }
command -v npm >/dev/null || { echo "interop-setup: npm is needed" >&2; exit 1; }
command -v python3 >/dev/null || { echo "interop-setup: python3 is needed (3.10 or newer)" >&2; exit 1; }

echo "== npm peers -> ${dir}/node"
mkdir -p "${dir}/node"
cp "${root}/scripts/interop/package.json" "${dir}/node/package.json"
# Install scripts of optional native add-ons (keychain, pty) are not needed by the tests.
(cd "${dir}/node" && npm install --no-audit --no-fund --ignore-scripts --loglevel=error)

echo "== Python SDK -> ${dir}/venv"
if [[ ! -x "${dir}/venv/bin/python" ]]; then
  python3 -m venv "${dir}/venv"
fi
"${dir}/venv/bin/python" -m pip install --quiet --disable-pip-version-check \
  -r "${root}/scripts/interop/requirements.txt"

echo "${stamp}" > "${dir}/READY"
echo "interop peers installed in ${dir}"
