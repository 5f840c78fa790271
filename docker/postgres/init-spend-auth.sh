#!/bin/sh
# Runs once, on the first start of an empty PostgreSQL volume: the service's own role and database,
# next to the `temporal` and `temporal_visibility` databases that the Temporal schema job creates.
set -eu
psql -v ON_ERROR_STOP=1 --username "$POSTGRES_USER" --dbname postgres <<SQL
CREATE ROLE spend_auth LOGIN PASSWORD '${SPEND_AUTH_DB_PASSWORD:-spend_auth}';
CREATE DATABASE spend_auth OWNER spend_auth;
SQL
