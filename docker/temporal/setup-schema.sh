#!/bin/sh
# One-shot (temporalio/admin-tools): creates the `temporal` and `temporal_visibility` databases and
# brings their schemas up to date. Safe to re-run on an existing volume.
set -eu
: "${POSTGRES_SEEDS:=postgres}" "${DB_PORT:=5432}" "${POSTGRES_USER:=temporal}"
export SQL_PASSWORD="${POSTGRES_PWD:-temporal}"
SCHEMA_DIR=/etc/temporal/schema/postgresql/v12

echo "Waiting for PostgreSQL at $POSTGRES_SEEDS:$DB_PORT..."
i=0
until nc -z -w 5 "$POSTGRES_SEEDS" "$DB_PORT"; do
  i=$((i + 1))
  if [ "$i" -ge 30 ]; then echo "PostgreSQL did not answer"; exit 1; fi
  sleep 2
done

sql_tool() {
  temporal-sql-tool --plugin postgres12 --ep "$POSTGRES_SEEDS" -u "$POSTGRES_USER" -p "$DB_PORT" "$@"
}

create_database() {
  if ! out=$(sql_tool --db "$1" create 2>&1); then
    case "$out" in
      *"already exists"*) echo "database $1 already exists" ;;
      *) echo "$out"; exit 1 ;;
    esac
  fi
}

create_database temporal
sql_tool --db temporal setup-schema -v 0.0
sql_tool --db temporal update-schema -d "$SCHEMA_DIR/temporal/versioned"

create_database temporal_visibility
sql_tool --db temporal_visibility setup-schema -v 0.0
sql_tool --db temporal_visibility update-schema -d "$SCHEMA_DIR/visibility/versioned"

echo "Temporal schemas are up to date"
