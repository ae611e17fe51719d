#!/usr/bin/env bash
# A throwaway PostgreSQL cluster for the PostgreSQL store's tests and the cluster tests, on a
# loopback port, in a scratch directory, run as an unprivileged user (initdb refuses root).
#
#   scripts/test-postgres.sh start   creates and starts it; prints `export ACP_TEST_POSTGRES_URL=...`
#   scripts/test-postgres.sh url     prints the URL of the running cluster
#   scripts/test-postgres.sh stop    stops it and removes its directory
#
#   eval "$(scripts/test-postgres.sh start)"
#   cargo test -p acptk-runtime --features sqlite,postgres --test stores
#   scripts/test-postgres.sh stop
#
# The server binaries come from PG_BIN, else `pg_config --bindir`, else the newest
# /usr/lib/postgresql/*/bin (Debian: `apt-get install postgresql`). The directory is
# ACP_TEST_POSTGRES_DIR (default: acp-test-postgres under $TMPDIR or /tmp). Run as root, the
# server runs as ACP_TEST_POSTGRES_USER (default `postgres`, created as a system user when
# missing). Trust authentication on loopback; no fsync (tests), unless ACP_TEST_POSTGRES_DURABLE=1
# keeps PostgreSQL's durable defaults (benchmarks).
set -euo pipefail

dir="${ACP_TEST_POSTGRES_DIR:-${TMPDIR:-/tmp}/acp-test-postgres}"
command="${1:-}"

find_bin() {
  if [[ -n "${PG_BIN:-}" ]]; then
    echo "${PG_BIN}"
  elif command -v pg_config >/dev/null && [[ -x "$(pg_config --bindir)/initdb" ]]; then
    pg_config --bindir
  else
    # The newest installed major version.
    local found
    found="$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1 || true)"
    [[ -n "${found}" && -x "${found}/initdb" ]] || {
      echo "test-postgres: no PostgreSQL server binaries (apt-get install postgresql, or set PG_BIN)" >&2
      exit 1
    }
    echo "${found}"
  fi
}

# Runs a command as the cluster's user (as is when not root).
as_owner() {
  if [[ "$(id -u)" == 0 ]]; then
    runuser -u "${owner}" -- "$@"
  else
    "$@"
  fi
}

url() {
  [[ -f "${dir}/url" ]] || { echo "test-postgres: no cluster in ${dir} (run: $0 start)" >&2; exit 1; }
  cat "${dir}/url"
}

case "${command}" in
  start)
    if [[ -f "${dir}/url" ]] && "$(find_bin)/pg_isready" -q -d "$(cat "${dir}/url")"; then
      echo "export ACP_TEST_POSTGRES_URL=$(cat "${dir}/url")"
      exit 0
    fi
    bin="$(find_bin)"
    owner="${ACP_TEST_POSTGRES_USER:-postgres}"
    if [[ "$(id -u)" == 0 ]] && ! id "${owner}" >/dev/null 2>&1; then
      useradd --system --no-create-home --shell /usr/sbin/nologin "${owner}"
    fi
    rm -rf "${dir}"
    mkdir -p "${dir}"
    if [[ "$(id -u)" == 0 ]]; then
      chown "${owner}" "${dir}"
    fi
    as_owner "${bin}/initdb" --pgdata="${dir}/data" --username=acp --auth=trust \
      --no-sync --encoding=UTF8 --locale=C >"${dir}/initdb.log" 2>&1 || {
      cat "${dir}/initdb.log" >&2
      exit 1
    }
    # A free loopback port, from 55432 up.
    port=55432
    while (exec 3<>"/dev/tcp/127.0.0.1/${port}") 2>/dev/null; do
      port=$((port + 1))
    done
    settings="-c listen_addresses=127.0.0.1 -c port=${port} -c unix_socket_directories=${dir} -c max_connections=200"
    if [[ "${ACP_TEST_POSTGRES_DURABLE:-0}" != 1 ]]; then
      settings="${settings} -c fsync=off -c synchronous_commit=off -c full_page_writes=off"
    fi
    as_owner "${bin}/pg_ctl" --pgdata="${dir}/data" --log="${dir}/server.log" --wait \
      --options="${settings}" start >/dev/null || {
      cat "${dir}/server.log" >&2
      exit 1
    }
    echo "postgres://acp@127.0.0.1:${port}/postgres" >"${dir}/url"
    echo "export ACP_TEST_POSTGRES_URL=$(cat "${dir}/url")"
    ;;
  url)
    url
    ;;
  stop)
    if [[ -d "${dir}/data" ]]; then
      bin="$(find_bin)"
      owner="$(stat -c %U "${dir}/data")"
      as_owner "${bin}/pg_ctl" --pgdata="${dir}/data" --mode=fast --wait stop >/dev/null 2>&1 || true
    fi
    rm -rf "${dir}"
    ;;
  *)
    echo "usage: $0 start|url|stop" >&2
    exit 2
    ;;
esac
