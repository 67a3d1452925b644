#!/usr/bin/env python3
"""Checks deploy/compose.yaml and the pg_auto_failover image it builds without starting them
(scripts/check-failover.py starts the formation from these files, each part's entrypoint.sh
with compose.yaml's environment, and breaks it): the file parses as YAML and has the parts
README promises, every service it depends on exists, every build context, Containerfile and
mounted file is in the repository, the instances' connection string lists both nodes with
target_session_attrs=read-write, the entrypoint is valid bash with both roles, the image puts
the cluster's settings (monitor.conf, keeper.conf) beside the entrypoint that applies them, each
setting is well formed and docs/several-instances.md gives it with its value, the image's Debian
packages exist, and `podman-compose config` (or `docker compose config`) accepts the file when
one of them is installed.

Usage: check-deploy.py
"""
import os
import re
import shutil
import subprocess
import sys

import yaml

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "lib"))
from navprefs_checks import report  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEPLOY = os.path.join(ROOT, "deploy")
IMAGE = os.path.join(DEPLOY, "pg-auto-failover")
# The monitor's timings a failover depends on (monitor.conf), and the keeper's (keeper.conf).
MONITOR_TIMINGS = ["pgautofailover.health_check_period", "pgautofailover.health_check_timeout",
                   "pgautofailover.health_check_max_retries", "pgautofailover.health_check_retry_delay",
                   "pgautofailover.node_considered_unhealthy_timeout", "pgautofailover.primary_demote_timeout"]
KEEPER_TIMINGS = ["timeout.network_partition_timeout"]


def conninfo(text):
    """libpq's keyword=value form, as a dict (values without quotes, as the file writes them)."""
    return dict(item.split("=", 1) for item in text.split())


def settings(name, pattern):
    """(settings, malformed lines) of one settings file: `name = value` lines, `#` comments."""
    values, malformed = {}, []
    for line in open(os.path.join(IMAGE, name)):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        match = re.fullmatch(pattern, line)
        if match:
            values[match[1]] = match[2]
        else:
            malformed.append(line)
    return values, malformed


def main():
    checks = {}
    compose = yaml.safe_load(open(os.path.join(DEPLOY, "compose.yaml")))
    services = compose.get("services", {})
    checks["compose.yaml parses and names the monitor, two nodes, two instances and nginx"] = \
        {"monitor", "node1", "node2", "navprefs1", "navprefs2", "nginx"} <= set(services)

    dangling = []
    for name, service in services.items():
        depends = service.get("depends_on", [])
        for dependency in (depends if isinstance(depends, list) else list(depends)):
            if dependency not in services:
                dangling.append(f"{name} -> {dependency}")
    checks[f"every depends_on names a service ({', '.join(dangling) or 'all do'})"] = not dangling

    missing = []
    for name, service in services.items():
        build = service.get("build")
        if build:
            context = os.path.normpath(os.path.join(DEPLOY, build["context"]))
            if not os.path.isfile(os.path.join(context, build.get("dockerfile", "Dockerfile"))):
                missing.append(f"{name}: {build}")
        for volume in service.get("volumes", []):
            source = volume.split(":")[0]
            if source.startswith("."):
                if not os.path.exists(os.path.join(DEPLOY, source)):
                    missing.append(f"{name}: {source}")
            elif source not in (compose.get("volumes") or {}):
                missing.append(f"{name}: volume {source} not declared")
    checks[f"every build context, Containerfile, mounted file and volume exists ({'; '.join(missing) or 'all do'})"] = not missing

    urls = [service["environment"]["DATABASE_URL"] for name, service in services.items()
            if name.startswith("navprefs") and "DATABASE_URL" in service.get("environment", {})]
    good = [url for url in urls if conninfo(url).get("host") == "node1,node2"
            and conninfo(url).get("target_session_attrs") == "read-write"]
    checks[f"the instances' DATABASE_URL lists both nodes, read-write ({len(good)}/{len(urls)})"] = urls and len(good) == len(urls)

    monitor_uri = services["node1"]["environment"]["PG_AUTOCTL_MONITOR"]
    checks["the nodes register with the monitor service"] = re.match(r"postgres://autoctl_node@monitor:5432/", monitor_uri) is not None

    nginx_command = " ".join(services["nginx"].get("command", []))
    config = open(os.path.join(DEPLOY, "nginx-navprefs.conf")).read()
    checks["nginx rewrites the shipped file's upstreams to both instances"] = \
        "127.0.0.1:8081" in config and "127.0.0.1:8082" in config and "navprefs1:8080" in nginx_command and "navprefs2:8080" in nginx_command

    entrypoint = os.path.join(IMAGE, "entrypoint.sh")
    script = open(entrypoint).read()
    checks["entrypoint.sh is valid bash, executable, with both roles, applying monitor.conf and keeper.conf"] = (
        subprocess.run(["bash", "-n", entrypoint]).returncode == 0 and os.access(entrypoint, os.X_OK)
        and "create monitor" in script and "create postgres" in script
        and '"$here/monitor.conf"' in script and '"$here/keeper.conf"' in script)
    if shutil.which("shellcheck"):
        checks["shellcheck entrypoint.sh"] = subprocess.run(["shellcheck", entrypoint]).returncode == 0

    docs = open(os.path.join(ROOT, "docs", "several-instances.md")).read()
    # PostgreSQL settings (integers here: milliseconds or counts), and pg_autoctl config keys.
    monitor, malformed = settings("monitor.conf", r"(pgautofailover\.[a-z_]+) = (\d+)")
    keeper, malformed_keeper = settings("keeper.conf", r"([a-z_]+\.[a-z_]+) = (\d+)")
    missing = [name for name in MONITOR_TIMINGS if name not in monitor] + [name for name in KEEPER_TIMINGS if name not in keeper]
    checks[f"monitor.conf and keeper.conf set every timing, as `name = integer` lines "
           f"({'; '.join(missing + malformed + malformed_keeper) or 'they do'})"] = not (missing or malformed or malformed_keeper)
    undocumented = [f"{name} = {value}" for name, value in {**monitor, **keeper}.items() if f"`{name} = {value}`" not in docs]
    checks[f"docs/several-instances.md gives each setting with its value ({', '.join(undocumented) or 'it does'})"] = not undocumented

    containerfile = open(os.path.join(IMAGE, "Containerfile")).read()
    copies = {source: destination for *sources, destination in
              (line.split()[1:] for line in containerfile.splitlines() if line.startswith("COPY"))
              for source in sources if not source.startswith("--")}
    entrypoint_path = (re.search(r'^ENTRYPOINT \["([^"]+)"', containerfile, re.M) or [None, ""])[1]
    beside = os.path.dirname(entrypoint_path) + "/"
    checks[f"the image's ENTRYPOINT is entrypoint.sh with monitor.conf and keeper.conf beside it ({entrypoint_path})"] = (
        entrypoint_path == beside + "entrypoint.sh" and all(copies.get(name) == beside for name in ("entrypoint.sh", "monitor.conf", "keeper.conf")))
    packages = re.findall(r"\b(postgresql-\d+(?:-auto-failover)?|pg-auto-failover-cli)\b", containerfile)
    known = [package for package in sorted(set(packages))
             if subprocess.run(["apt-cache", "show", package], capture_output=True).returncode == 0]
    checks[f"the image's Debian packages exist ({', '.join(known)})"] = len(set(packages)) >= 3 and len(known) == len(set(packages))

    for tool in (["podman-compose"], ["docker", "compose"]):
        if shutil.which(tool[0]) and subprocess.run([*tool, "version"], capture_output=True).returncode == 0:
            result = subprocess.run([*tool, "-f", os.path.join(DEPLOY, "compose.yaml"), "config"], capture_output=True, text=True)
            checks[f"{' '.join(tool)} config accepts compose.yaml"] = result.returncode == 0
            break
    report("deploy", checks)


if __name__ == "__main__":
    main()
