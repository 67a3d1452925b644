#!/usr/bin/env bash
# Starts one pg_auto_failover part of deploy/compose.yaml: the monitor (PG_AUTOCTL_ROLE=monitor)
# or a data node (PG_AUTOCTL_ROLE=postgres, registering with PG_AUTOCTL_MONITOR). The first
# start creates the node (initdb, or a base backup of the primary for a standby); later starts
# (a restarted container, the old primary coming back) run the node as configured, and
# pg_autoctl rejoins it as a standby by itself.
#
#   PG_AUTOCTL_ROLE      monitor | postgres
#   PG_AUTOCTL_NODE_NAME this node's name in the formation (default: the container's hostname)
#   PG_AUTOCTL_HOSTNAME  how the other parts reach this one (default: the container's hostname)
#   PG_AUTOCTL_MONITOR   the monitor's URI (data nodes)
#   PG_AUTOCTL_AUTH      authentication for connections between the parts (default trust: the
#                        compose network only; see deploy/compose.yaml before exposing it)
#   NAVPREFS_DATABASE    the database navprefs uses (default navprefs)
set -euo pipefail
bin=/usr/lib/postgresql/15/bin
host=${PG_AUTOCTL_HOSTNAME:-$(hostname)}
auth=${PG_AUTOCTL_AUTH:-trust}
config="$XDG_CONFIG_HOME/pg_autoctl${PGDATA}/pg_autoctl.cfg"

if [ -f "$config" ]; then
  exec pg_autoctl run --pgdata "$PGDATA"
fi

case "${PG_AUTOCTL_ROLE:-postgres}" in
  monitor)
    exec pg_autoctl create monitor --pgctl "$bin/pg_ctl" --pgdata "$PGDATA" --pgport 5432 \
      --hostname "$host" --auth "$auth" --no-ssl --run
    ;;
  postgres)
    : "${PG_AUTOCTL_MONITOR:?set PG_AUTOCTL_MONITOR to the URI of the monitor}"
    exec pg_autoctl create postgres --pgctl "$bin/pg_ctl" --pgdata "$PGDATA" --pgport 5432 \
      --hostname "$host" --name "${PG_AUTOCTL_NODE_NAME:-$host}" --dbname "${NAVPREFS_DATABASE:-navprefs}" \
      --username postgres --monitor "$PG_AUTOCTL_MONITOR" --auth "$auth" --pg-hba-lan --no-ssl --run
    ;;
  *)
    echo "PG_AUTOCTL_ROLE must be monitor or postgres, not '${PG_AUTOCTL_ROLE}'" >&2
    exit 2
    ;;
esac
