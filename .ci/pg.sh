# PostgreSQL helpers shared by .ci/run and .ci/stock-pg-hba (sourced, never run alone): find or
# install PostgreSQL, start a cluster, and settle how CI connects to it.
# shellcheck shell=bash

# The port and cluster name can be overridden (CI_PG_PORT, CI_PG_CLUSTER) to try this script's
# PostgreSQL set-up against a scratch cluster; CI itself uses the defaults.
PG_HOST=127.0.0.1
PG_PORT=${CI_PG_PORT:-5432}
PG_CLUSTER=${CI_PG_CLUSTER:-main}
PG_WAIT_SECONDS=${PG_WAIT_SECONDS:-60}
CI_ROLE=spend_auth_ci

section() {
  printf '\n==============================================================================\n'
  printf '==> %s\n' "$*"
  printf '==============================================================================\n'
}
info() { printf -- '--> %s\n' "$*"; }
warn() { printf -- '!!! %s\n' "$*" >&2; }

# Runs a command as root (directly, or through sudo when this user is not root).
as_root() {
  if [ "$(id -u)" -eq 0 ]; then
    "$@"
  elif command -v sudo >/dev/null 2>&1; then
    sudo -n "$@"
  else
    warn "need root for: $*"
    return 1
  fi
}

# Runs a command as the postgres OS user (peer authentication on the local socket).
as_postgres() {
  if [ "$(id -un)" = postgres ]; then
    (cd / && "$@")
  elif [ "$(id -u)" -eq 0 ] && command -v runuser >/dev/null 2>&1; then
    (cd / && runuser -u postgres -- "$@")
  elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
    (cd / && sudo -n -u postgres -- "$@")
  elif [ "$(id -u)" -eq 0 ]; then
    local quoted
    quoted=$(printf '%q ' "$@")
    (cd / && su postgres -s /bin/sh -c "$quoted")
  else
    warn "cannot run as the postgres user: $*"
    return 1
  fi
}

pg_ready() {
  command -v pg_isready >/dev/null 2>&1 && pg_isready -q -h "$PG_HOST" -p "$PG_PORT"
}

# The newest installed PostgreSQL version that has a cluster configuration directory.
installed_pg_version() {
  [ -d /etc/postgresql ] || return 1
  local v
  # shellcheck disable=SC2012 # version directory names are plain numbers
  v=$(ls /etc/postgresql 2>/dev/null | sort -V | tail -n 1)
  [ -n "$v" ] || return 1
  echo "$v"
}

start_cluster() {
  local version=$1
  if [ ! -d "/etc/postgresql/$version/$PG_CLUSTER" ]; then
    info "no cluster $version/$PG_CLUSTER yet: creating it"
    as_root pg_createcluster "$version" "$PG_CLUSTER" -p "$PG_PORT"
  fi
  info "starting cluster $version/$PG_CLUSTER"
  as_root pg_ctlcluster --skip-systemctl-redirect "$version" "$PG_CLUSTER" start \
    || as_root pg_ctlcluster "$version" "$PG_CLUSTER" start \
    || warn "pg_ctlcluster $version $PG_CLUSTER start failed (it may already be running)"
}

wait_for_pg() {
  local i
  for ((i = 0; i < PG_WAIT_SECONDS; i++)); do
    if pg_ready; then
      info "PostgreSQL answers on $PG_HOST:$PG_PORT"
      return 0
    fi
    sleep 1
  done
  warn "PostgreSQL did not answer on $PG_HOST:$PG_PORT within ${PG_WAIT_SECONDS}s"
  return 1
}

ensure_postgres() {
  if pg_ready; then
    info "PostgreSQL already answers on $PG_HOST:$PG_PORT"
    return 0
  fi
  local version
  if version=$(installed_pg_version); then
    info "PostgreSQL $version is installed but not answering"
  else
    info "PostgreSQL is not installed: installing Debian's postgresql package"
    as_root apt-get update
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y postgresql
    version=$(installed_pg_version) || {
      warn "postgresql installed but /etc/postgresql is empty"
      return 1
    }
  fi
  pg_ready || start_cluster "$version"
  wait_for_pg
}

# psql against the server over TCP as $PGUSER_CI (with $PGPASSWORD_CI if set), never prompting.
pg_tcp() {
  PGPASSWORD=${PGPASSWORD_CI:-} PGCONNECT_TIMEOUT=10 \
    psql -w -X -q -v ON_ERROR_STOP=1 -h "$PG_HOST" -p "$PG_PORT" -U "$PGUSER_CI" "$@"
}

# Settles how CI connects: user postgres over TCP (trust, as on the project's machines); else a
# password role created through the local socket (Debian's stock pg_hba.conf); else, unless
# PG_NO_TRUST_FALLBACK is set, a trust line for 127.0.0.1 in pg_hba.conf. The role gets what the
# suite needs: CREATEDB (a database per run) and CREATEROLE (runtime-role.test.ts makes an owner
# and a runtime role).
choose_pg_credentials() {
  PGUSER_CI=postgres
  PGPASSWORD_CI=
  if pg_tcp -d postgres -c 'select 1' >/dev/null 2>&1; then
    info "connecting as postgres (trust)"
    return 0
  fi
  info "cannot connect as postgres over TCP without a password: setting up role $CI_ROLE"
  local password
  password="ci_$(od -An -N12 -tx1 /dev/urandom | tr -d ' \n')"
  as_postgres psql -X -q -v ON_ERROR_STOP=1 -p "$PG_PORT" -d postgres <<SQL
DO \$\$
BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = '$CI_ROLE') THEN
    CREATE ROLE $CI_ROLE LOGIN CREATEDB CREATEROLE;
  END IF;
END
\$\$;
ALTER ROLE $CI_ROLE LOGIN CREATEDB CREATEROLE PASSWORD '$password';
SQL
  PGUSER_CI=$CI_ROLE
  PGPASSWORD_CI=$password
  if pg_tcp -d postgres -c 'select 1' >/dev/null 2>&1; then
    info "connecting as $CI_ROLE (password)"
    return 0
  fi
  if [ -n "${PG_NO_TRUST_FALLBACK:-}" ]; then
    warn "password login as $CI_ROLE refused"
    return 1
  fi
  info "password login refused too: adding a trust line for $PG_HOST to pg_hba.conf"
  local hba
  hba=$(as_postgres psql -X -At -p "$PG_PORT" -d postgres -c 'SHOW hba_file')
  as_root sed -i "1i host all all $PG_HOST/32 trust  # added by .ci/run" "$hba"
  as_postgres psql -X -q -p "$PG_PORT" -d postgres -c 'SELECT pg_reload_conf()' >/dev/null
  sleep 1
  PGUSER_CI=postgres
  PGPASSWORD_CI=
  pg_tcp -d postgres -c 'select 1' >/dev/null
  info "connecting as postgres (trust)"
}

