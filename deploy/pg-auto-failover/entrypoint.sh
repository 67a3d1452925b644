#!/usr/bin/env bash
# Starts one pg_auto_failover part of deploy/compose.yaml: the monitor (PG_AUTOCTL_ROLE=monitor)
# or a data node (PG_AUTOCTL_ROLE=postgres, registering with PG_AUTOCTL_MONITOR). The first
# start creates the node (initdb, or a base backup of the primary for a standby); every start
# applies the settings beside this script (the monitor's before its PostgreSQL first starts)
# and runs the node (`pg_autoctl run`): a restarted container, or the old primary coming back,
# rejoins as a standby by itself.
#
#   monitor.conf  the monitor's timings, included from its postgresql.conf
#   keeper.conf   each data node's keeper settings (`pg_autoctl config set`)
#
#   PG_AUTOCTL_ROLE      monitor | postgres
#   PG_AUTOCTL_NODE_NAME this node's name in the formation (default: the container's hostname)
#   PG_AUTOCTL_HOSTNAME  how the other parts reach this one (default: the container's hostname)
#   PG_AUTOCTL_MONITOR   the monitor's URI (data nodes)
#   PG_AUTOCTL_AUTH      authentication for connections between the parts (default trust: the
#                        compose network only; see deploy/compose.yaml before exposing it)
#   NAVPREFS_DATABASE    the database navprefs uses (default navprefs)
#
# scripts/check-failover.py runs this script, with compose.yaml's environment, for each part.
set -euo pipefail
bin=/usr/lib/postgresql/15/bin
here=$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")
role=${PG_AUTOCTL_ROLE:-postgres}
host=${PG_AUTOCTL_HOSTNAME:-$(hostname)}
auth=${PG_AUTOCTL_AUTH:-trust}
config="$XDG_CONFIG_HOME/pg_autoctl${PGDATA}/pg_autoctl.cfg"

# Has a PostgreSQL left running by `pg_autoctl create` read its changed files.
reload_if_running() {
  if "$bin/pg_ctl" status --pgdata "$PGDATA" > /dev/null 2>&1; then
    "$bin/pg_ctl" reload --pgdata "$PGDATA" > /dev/null
  fi
}

# Copies monitor.conf into PGDATA and includes it from postgresql.conf (once), before the
# monitor's PostgreSQL starts.
apply_monitor_settings() {
  install -m 0600 "$here/monitor.conf" "$PGDATA/navprefs-monitor.conf"
  grep -qxF "include 'navprefs-monitor.conf'" "$PGDATA/postgresql.conf" \
    || echo "include 'navprefs-monitor.conf'" >> "$PGDATA/postgresql.conf"
}

# pg_rewind (an old primary rejoining as a standby) connects to the database "postgres", but
# pg_autoctl's rules let the replication user into NAVPREFS_DATABASE only: without this line
# every rejoin falls back to a full base backup, and the primary runs without its synchronous
# standby until that copy is done.
allow_rewind() {
  local rule="host \"postgres\" \"pgautofailover_replicator\" samenet $auth # pg_rewind (entrypoint.sh)"
  grep -qxF "$rule" "$PGDATA/pg_hba.conf" || echo "$rule" >> "$PGDATA/pg_hba.conf"
  reload_if_running
}

# Sets each `section.option = value` line of keeper.conf; any other line but comments and
# blank ones stops the start.
apply_keeper_settings() {
  local line pattern='^[[:space:]]*([a-z_]+\.[a-z_]+)[[:space:]]*=[[:space:]]*([^[:space:]#]+)[[:space:]]*$'
  while IFS= read -r line || [ -n "$line" ]; do
    if [[ $line =~ $pattern ]]; then
      pg_autoctl config set --pgdata "$PGDATA" "${BASH_REMATCH[1]}" "${BASH_REMATCH[2]}" > /dev/null
    elif [[ ! $line =~ ^[[:space:]]*(#.*)?$ ]]; then
      echo "keeper.conf: not a 'section.option = value' line: $line" >&2
      exit 2
    fi
  done < "$here/keeper.conf"
}

case "$role" in
  monitor)
    if [ ! -f "$config" ]; then
      # initdb as pg_autoctl runs it on an empty PGDATA, so that the settings are in place
      # before the monitor's first start and that start is its only one: `create` without
      # --run stops the server it started, and a node registering meanwhile fails.
      [ -f "$PGDATA/PG_VERSION" ] || "$bin/pg_ctl" initdb -s --pgdata "$PGDATA" -o "--auth=$auth"
      apply_monitor_settings
      exec pg_autoctl create monitor --pgctl "$bin/pg_ctl" --pgdata "$PGDATA" --pgport 5432 \
        --hostname "$host" --auth "$auth" --no-ssl --run
    fi
    apply_monitor_settings
    ;;
  postgres)
    if [ ! -f "$config" ]; then
      : "${PG_AUTOCTL_MONITOR:?set PG_AUTOCTL_MONITOR to the URI of the monitor}"
      pg_autoctl create postgres --pgctl "$bin/pg_ctl" --pgdata "$PGDATA" --pgport 5432 \
        --hostname "$host" --name "${PG_AUTOCTL_NODE_NAME:-$host}" --dbname "${NAVPREFS_DATABASE:-navprefs}" \
        --username postgres --monitor "$PG_AUTOCTL_MONITOR" --auth "$auth" --pg-hba-lan --no-ssl
    fi
    apply_keeper_settings
    allow_rewind
    ;;
  *)
    echo "PG_AUTOCTL_ROLE must be monitor or postgres, not '${role}'" >&2
    exit 2
    ;;
esac
exec pg_autoctl run --pgdata "$PGDATA"
