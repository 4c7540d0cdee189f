#!/usr/bin/env bash
# Starts throwaway PostgreSQL and Redis servers on loopback for the tests of
# dedup/pgdedup and dedup/redisdedup, after installing them from Debian's
# packages when they are missing. A server already answering on its port is
# reused. It prints the tests' environment on stdout and its progress and
# the time it took on stderr:
#
#   eval "$(scripts/start-stores.sh)"
#   (cd dedup/pgdedup && go test ./...); (cd dedup/redisdedup && go test ./...)
#   scripts/start-stores.sh stop
#
# Environment: PG_PORT (default 55432), REDIS_PORT (default 56379),
# STORES_DIR (default /tmp/bankpay-stores: the PostgreSQL data directory,
# sockets and logs; nothing in it is kept).
set -euo pipefail

pg_port=${PG_PORT:-55432}
redis_port=${REDIS_PORT:-56379}
dir=${STORES_DIR:-/tmp/bankpay-stores}
pgdata=$dir/pg
started=$(date +%s%N)

log() { echo "start-stores: $*" >&2; }
die() { log "$*"; exit 1; }

pg_bin() { ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1; }

# as_pg runs a PostgreSQL command as the postgres user when we are root
# (initdb and postgres refuse root), as ourselves otherwise.
as_pg() {
  if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

if [ "${1:-}" = stop ]; then
  bin=$(pg_bin)
  if [ -n "$bin" ] && [ -f "$pgdata/postmaster.pid" ]; then
    as_pg "$bin/pg_ctl" -D "$pgdata" -m fast -w stop >&2 || true
  fi
  if command -v redis-cli >/dev/null 2>&1; then
    redis-cli -h 127.0.0.1 -p "$redis_port" shutdown nosave >/dev/null 2>&1 || true
  fi
  log "stopped"
  exit 0
fi

# ---- install what is missing (Debian's packages) ----
need=()
bin=$(pg_bin)
[ -n "$bin" ] && [ -x "$bin/initdb" ] && [ -x "$bin/pg_ctl" ] || need+=(postgresql)
command -v redis-server >/dev/null 2>&1 && command -v redis-cli >/dev/null 2>&1 || need+=(redis-server)
if [ ${#need[@]} -gt 0 ]; then
  sudo=""
  [ "$(id -u)" = 0 ] || sudo=sudo
  log "installing ${need[*]} with apt-get (output in $dir/apt.log)"
  mkdir -p "$dir"
  { $sudo apt-get update -qq &&
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${need[@]}"; } >"$dir/apt.log" 2>&1 ||
    { cat "$dir/apt.log" >&2; die "apt-get failed"; }
  bin=$(pg_bin)
  [ -n "$bin" ] || die "no /usr/lib/postgresql/*/bin after installing postgresql"
fi

mkdir -p "$dir"
chmod 755 "$dir"

# ---- PostgreSQL: a fresh cluster in $pgdata, TCP on 127.0.0.1 only ----
if "$bin/pg_isready" -q -h 127.0.0.1 -p "$pg_port"; then
  log "PostgreSQL already answering on 127.0.0.1:$pg_port: reused"
else
  [ -f "$pgdata/postmaster.pid" ] && as_pg "$bin/pg_ctl" -D "$pgdata" -m immediate stop >/dev/null 2>&1 || true
  rm -rf "$pgdata"
  mkdir -p "$pgdata"
  [ "$(id -u)" = 0 ] && chown postgres: "$pgdata"
  chmod 700 "$pgdata"
  as_pg "$bin/initdb" -D "$pgdata" -U postgres --auth=trust -E UTF8 --locale=C --no-sync >"$dir/initdb.log" 2>&1 ||
    { cat "$dir/initdb.log" >&2; die "initdb failed"; }
  as_pg "$bin/pg_ctl" -D "$pgdata" -l "$pgdata/server.log" -w -t 60 \
    -o "-c listen_addresses=127.0.0.1 -p $pg_port -k $pgdata -c max_connections=200" start >/dev/null ||
    { cat "$pgdata/server.log" >&2; die "PostgreSQL did not start"; }
fi
for _ in $(seq 1 300); do "$bin/pg_isready" -q -h 127.0.0.1 -p "$pg_port" && break; sleep 0.1; done
"$bin/pg_isready" -q -h 127.0.0.1 -p "$pg_port" || die "PostgreSQL not ready on 127.0.0.1:$pg_port"
if [ "$("$bin/psql" -h 127.0.0.1 -p "$pg_port" -U postgres -tAc "SELECT 1 FROM pg_database WHERE datname = 'bankpay_test'")" != 1 ]; then
  "$bin/psql" -q -h 127.0.0.1 -p "$pg_port" -U postgres -c 'CREATE DATABASE bankpay_test' >&2
fi

# ---- Redis: no persistence, 127.0.0.1 only ----
if [ "$(redis-cli -h 127.0.0.1 -p "$redis_port" ping 2>/dev/null)" = PONG ]; then
  log "Redis already answering on 127.0.0.1:$redis_port: reused"
else
  redis-server --port "$redis_port" --bind 127.0.0.1 --daemonize yes --save '' --appendonly no \
    --dir "$dir" --logfile "$dir/redis.log" --pidfile "$dir/redis.pid" >&2
fi
for _ in $(seq 1 300); do [ "$(redis-cli -h 127.0.0.1 -p "$redis_port" ping 2>/dev/null)" = PONG ] && break; sleep 0.1; done
[ "$(redis-cli -h 127.0.0.1 -p "$redis_port" ping 2>/dev/null)" = PONG ] ||
  { cat "$dir/redis.log" >&2 || true; die "Redis not ready on 127.0.0.1:$redis_port"; }

ms=$(( ($(date +%s%N) - started) / 1000000 ))
log "$("$bin/postgres" --version) on 127.0.0.1:$pg_port, $(redis-server --version | cut -d' ' -f1-3) on 127.0.0.1:$redis_port: ready in $((ms / 1000)).$(printf %03d $((ms % 1000))) s (installs included)"
echo "export BANKPAY_TEST_POSTGRES_DSN='postgres://postgres@127.0.0.1:$pg_port/bankpay_test?sslmode=disable'"
echo "export BANKPAY_TEST_REDIS_ADDR='127.0.0.1:$redis_port'"
