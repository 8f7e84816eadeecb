#!/usr/bin/env bash
# CI database: makes sure the machine's PostgreSQL cluster (Debian layout, e.g. 15/main) is up,
# creates a fresh database svc_ci_<random> on 127.0.0.1:5432 as user postgres, and prints its
# DATABASE_URL on stdout (nothing else goes to stdout). The caller drops it when done.
set -euo pipefail

HOST=127.0.0.1
PORT=5432
USER_NAME=postgres

version=$(ls /etc/postgresql | sort -V | tail -n 1)
if [ -z "$version" ]; then
  echo "pg.sh: no PostgreSQL cluster under /etc/postgresql" >&2
  exit 1
fi

if ! pg_lsclusters --no-header "$version" main 2>/dev/null | grep -q online; then
  echo "pg.sh: starting PostgreSQL $version/main" >&2
  pg_ctlcluster --skip-systemctl-redirect "$version" main start >&2
fi

for _ in $(seq 1 30); do
  if pg_isready -q -h "$HOST" -p "$PORT" -U "$USER_NAME"; then
    break
  fi
  sleep 1
done
if ! pg_isready -q -h "$HOST" -p "$PORT" -U "$USER_NAME"; then
  echo "pg.sh: PostgreSQL on $HOST:$PORT does not accept connections" >&2
  exit 1
fi

name="svc_ci_$(od -An -N6 -tx1 /dev/urandom | tr -d ' \n')"
psql -q -v ON_ERROR_STOP=1 "postgres://$USER_NAME@$HOST:$PORT/postgres" \
  -c "CREATE DATABASE \"$name\"" >&2
echo "postgres://$USER_NAME@$HOST:$PORT/$name"
