#!/bin/bash
# A private, throwaway PostgreSQL server for the tests: 127.0.0.1 only, TCP only, no password
# (trust on loopback; members of receiptdesk_password_login excepted), data in DIR, run as the `postgres` user (the server refuses root).
#
#   scripts/postgres-test-server.sh start DIR   creates DIR, starts the server, prints its URL
#   scripts/postgres-test-server.sh stop DIR    stops it (if running) and removes DIR
#
# PGBIN overrides where initdb/pg_ctl live (default: the newest /usr/lib/postgresql/*/bin).
set -euo pipefail

usage() { echo "usage: $0 start DIR | stop DIR" >&2; exit 64; }
[ $# -eq 2 ] || usage
command=$1
dir=$2

pgbin() {
  if [ -n "${PGBIN:-}" ]; then echo "$PGBIN"; return; fi
  local found
  found=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1 || true)
  if [ -z "$found" ]; then
    echo "postgres-test-server: no PostgreSQL server binaries under /usr/lib/postgresql (run make deps)" >&2
    exit 69
  fi
  echo "$found"
}

# Runs a server command as the postgres user (or as ourselves when we are not root).
as_postgres() {
  if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

case "$command" in
start)
  bin=$(pgbin)
  mkdir -p "$dir"
  chmod 755 "$dir"   # mktemp -d makes 0700: the postgres user must reach the data folder
  if [ "$(id -u)" = 0 ]; then chown postgres:postgres "$dir"; fi
  as_postgres "$bin/initdb" -D "$dir/data" -U postgres -A trust --no-sync -E UTF8 --locale=C.UTF-8 \
    >"$dir/initdb.log" 2>&1 || { echo "postgres-test-server: initdb failed:" >&2; tail -5 "$dir/initdb.log" >&2; exit 69; }
  # Everyone is trusted, except members of the role receiptdesk_password_login (made by the tests
  # that need it): they must give their password, so a test can tell a password reached the server.
  hba="$dir/data/pg_hba.conf"
  { echo "host all +receiptdesk_password_login 127.0.0.1/32 scram-sha-256"; cat "$hba"; } >"$hba.new"
  mv "$hba.new" "$hba"
  if [ "$(id -u)" = 0 ]; then chown postgres:postgres "$hba"; fi
  # A random high port; another one when it is taken.
  for attempt in 1 2 3 4 5 6; do
    port=$(( 20000 + (RANDOM * 32768 + RANDOM) % 40000 ))
    if as_postgres "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 30 \
         -o "-c listen_addresses=127.0.0.1 -p $port -c unix_socket_directories='' -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=200" \
         start >/dev/null 2>&1; then
      echo "$port" >"$dir/port"
      echo "postgresql://postgres@127.0.0.1:$port/postgres"
      exit 0
    fi
  done
  echo "postgres-test-server: the server did not start (see $dir/server.log):" >&2
  tail -5 "$dir/server.log" >&2 || true
  exit 69
  ;;
stop)
  if [ -f "$dir/data/postmaster.pid" ]; then
    as_postgres "$(pgbin)/pg_ctl" -D "$dir/data" -m fast -w stop >/dev/null 2>&1 || true
  fi
  rm -rf "$dir"
  ;;
*) usage ;;
esac
