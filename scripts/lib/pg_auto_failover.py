"""A throwaway pg_auto_failover formation on this machine, for scripts/check-failover.py and the
benchmarks: one monitor and two PostgreSQL nodes (a primary and its synchronous standby), each
node run by `pg_autoctl run` under an OS user of its own, on 127.0.0.1 with ports of its own.

Why an OS user per node: a network partition of one node is then one firewall rule on its user
(iptables' owner match drops every packet its keeper and its PostgreSQL send, also to the
monitor) plus one on its port (every packet sent to it), on the loopback interface, with no
network namespaces. Unix sockets (the keeper to its own PostgreSQL) are not affected, as on a
real machine cut off from the network.

Why the monitor's timings are shortened (see `tune_monitor`): the defaults (a health check every
20 s, a node unhealthy after 20 s of silence, 30 s for an old primary to demote itself) are made
for networks where a pause is likelier than a death; here they would dominate every figure.
Shortening the demotion wait is safe for acknowledged writes because the standby is synchronous:
a cut-off old primary cannot acknowledge a commit that the new primary lacks.

Needs Debian's postgresql-NN-auto-failover and pg-auto-failover-cli (and iptables for
partitions); runs as root (it creates the node users and the firewall rules).
"""
import glob
import os
import pwd
import shutil
import signal
import socket
import subprocess
import time

# Debian's newest PostgreSQL, the one its pg_auto_failover package is built for.
BIN = (sorted(glob.glob("/usr/lib/postgresql/*/bin"), key=lambda path: int(path.split("/")[-2])) or ["/usr/lib/postgresql/15/bin"])[-1]
USERS = ("navprefs-pgaf1", "navprefs-pgaf2")
# Monitor settings (milliseconds); see the module's docstring for why.
MONITOR_SETTINGS = {
    "pgautofailover.health_check_period": 1000,
    "pgautofailover.health_check_timeout": 1000,
    "pgautofailover.health_check_max_retries": 1,
    "pgautofailover.health_check_retry_delay": 500,
    "pgautofailover.node_considered_unhealthy_timeout": 2000,
    "pgautofailover.primary_demote_timeout": 2000,
}


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Node:
    """One `pg_autoctl run` service: the monitor or a data node."""

    def __init__(self, formation, name, user, port):
        self.formation, self.name, self.user, self.port = formation, name, user, port
        self.home = os.path.join(formation.directory, name)
        self.pgdata = os.path.join(self.home, "data")
        self.process = None

    def env(self):
        # pg_autoctl keeps its configuration, state and pid files under the XDG directories:
        # one set per node, so that nodes never share them (the default would be $HOME and /tmp).
        return {"PATH": os.environ.get("PATH", "/usr/bin:/bin"),
                "XDG_CONFIG_HOME": f"{self.home}/config", "XDG_DATA_HOME": f"{self.home}/share",
                "XDG_RUNTIME_DIR": f"{self.home}/run", "LC_ALL": "C.UTF-8"}

    def autoctl(self, *arguments, check=True, timeout=120):
        command = ["runuser", "-u", self.user, "--", "pg_autoctl", *arguments, "--pgdata", self.pgdata]
        result = subprocess.run(command, env=self.env(), capture_output=True, text=True, errors="replace", timeout=timeout)
        if check and result.returncode != 0:
            raise RuntimeError(f"{' '.join(arguments)} on {self.name}: {result.stdout}{result.stderr}")
        return result.stdout

    def run(self):
        """Starts (or restarts) `pg_autoctl run` for this node."""
        log = open(os.path.join(self.home, "run.log"), "a")
        self.process = subprocess.Popen(["runuser", "-u", self.user, "--", "pg_autoctl", "run", "--pgdata", self.pgdata],
                                        env=self.env(), stdout=log, stderr=subprocess.STDOUT, start_new_session=True)

    def pids(self):
        """Every process this node's user runs: its keeper and its PostgreSQL (the user is ours alone)."""
        result = subprocess.run(["ps", "-o", "pid=", "-u", self.user], capture_output=True, text=True)
        return [int(pid) for pid in result.stdout.split()]

    def postmaster_pid(self):
        with open(os.path.join(self.pgdata, "postmaster.pid")) as f:
            return int(f.readline())

    def kill_postmaster(self):
        """kill -9 of the postmaster alone: its keeper sees it die and starts it again."""
        os.kill(self.postmaster_pid(), signal.SIGKILL)

    def kill(self):
        """kill -9 of the whole node, keeper and PostgreSQL, as if its machine died."""
        for pid in self.pids():
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        if self.process:
            self.process.wait(10)
            self.process = None

    def rules(self):
        return [["OUTPUT", "-m", "owner", "--uid-owner", self.user, "-j", "DROP"],
                ["OUTPUT", "-p", "tcp", "-d", "127.0.0.1", "--dport", str(self.port), "-j", "DROP"]]

    def partition(self):
        """Cuts the node off the network: nothing it sends and nothing sent to it arrives."""
        for rule in self.rules():
            subprocess.run(["iptables", "-w", "-I", *rule], check=True)

    def heal(self):
        for rule in self.rules():
            while subprocess.run(["iptables", "-w", "-D", *rule], capture_output=True).returncode == 0:
                pass


class Formation:
    """The monitor and two data nodes; `url` is the multi-host connection string for navprefs."""

    def __init__(self, directory, dbname="navprefs"):
        self.directory, self.dbname = directory, dbname
        os.makedirs(directory, exist_ok=True)
        os.chmod(directory, 0o755)
        for user in USERS:
            try:
                pwd.getpwnam(user)
            except KeyError:
                # In group postgres: PostgreSQL's socket and lock files go to /var/run/postgresql.
                subprocess.run(["useradd", "--system", "--no-create-home", "--shell", "/usr/sbin/nologin",
                                "--groups", "postgres", user], check=True)
        self.monitor = Node(self, "monitor", "postgres", free_port())
        self.nodes = [Node(self, f"node{i + 1}", user, free_port()) for i, user in enumerate(USERS)]
        for node in [self.monitor, *self.nodes]:
            for sub in ("", "/run"):
                os.makedirs(node.home + sub, exist_ok=True)
            subprocess.run(["chown", "-R", node.user, node.home], check=True)

    @property
    def monitor_uri(self):
        return f"postgres://autoctl_node@127.0.0.1:{self.monitor.port}/pg_auto_failover?sslmode=disable"

    @property
    def url(self):
        """libpq's multi-host form: it tries each host in turn and keeps the one that takes writes."""
        hosts = ",".join(f"127.0.0.1:{node.port}" for node in self.nodes)
        return (f"postgresql://postgres@{hosts}/{self.dbname}"
                "?target_session_attrs=read-write&connect_timeout=2&sslmode=disable")

    def start(self, timeout=150):
        """Creates and starts the monitor, then the primary, then the standby; returns once the
        standby is secondary (replicating synchronously)."""
        self.monitor.autoctl("create", "monitor", "--pgctl", f"{BIN}/pg_ctl", "--pgport", str(self.monitor.port),
                             "--hostname", "127.0.0.1", "--auth", "trust", "--no-ssl")
        self.monitor.run()
        self.wait(lambda: self.sql("SELECT 1") == "1", timeout, "the monitor to answer")
        self.tune_monitor()
        for index, node in enumerate(self.nodes):
            node.autoctl("create", "postgres", "--pgctl", f"{BIN}/pg_ctl", "--pgport", str(node.port),
                         "--listen", "127.0.0.1", "--hostname", "127.0.0.1", "--name", node.name,
                         "--dbname", self.dbname, "--username", "postgres", "--monitor", self.monitor_uri,
                         "--auth", "trust", "--no-ssl", timeout=timeout)
            # The keeper gives up on an unreachable monitor and standby (and demotes itself)
            # after this many seconds; 20 by default.
            node.autoctl("config", "set", "timeout.network_partition_timeout", "5")
            node.run()
            wanted = "single" if index == 0 else "secondary"
            self.wait(lambda: self.states().get(node.name) == (wanted, wanted), timeout, f"{node.name} to be {wanted}")
        self.wait_healthy(timeout)

    def tune_monitor(self):
        for name, value in MONITOR_SETTINGS.items():
            self.sql(f"ALTER SYSTEM SET {name} = {value}")
        self.sql("SELECT pg_reload_conf()")

    def sql(self, query, port=None, dbname="pg_auto_failover"):
        """One query on the monitor (or on a node's port), its first value; None if it fails."""
        result = subprocess.run([f"{BIN}/psql", "-h", "127.0.0.1", "-p", str(port or self.monitor.port), "-U", "postgres",
                                 "-d", dbname, "-XtAqc", query], capture_output=True, text=True, timeout=10,
                                env={**os.environ, "PGCONNECT_TIMEOUT": "2"})
        return result.stdout.strip().split("\n")[0] if result.returncode == 0 else None

    def states(self):
        """{node name: (reported state, assigned state)} as the monitor sees them."""
        result = subprocess.run([f"{BIN}/psql", "-h", "127.0.0.1", "-p", str(self.monitor.port), "-U", "postgres",
                                 "-d", "pg_auto_failover", "-XtAqF|", "-c",
                                 "SELECT nodename, reportedstate, goalstate FROM pgautofailover.node"],
                                capture_output=True, text=True, timeout=10)
        states = {}
        for line in result.stdout.split():
            name, reported, goal = line.split("|")
            states[name] = (reported, goal)
        return states

    def primary(self):
        """The node the monitor holds primary now, or None."""
        for node in self.nodes:
            if self.states().get(node.name, ("", ""))[1] in ("primary", "wait_primary", "single"):
                return node
        return None

    def standby(self):
        primary = self.primary()
        return next((node for node in self.nodes if node is not primary), None)

    def wait_healthy(self, timeout=120):
        """Waits until one node is primary and the other secondary, both as assigned."""
        def healthy():
            values = sorted(self.states().values())
            return values == [("primary", "primary"), ("secondary", "secondary")]
        self.wait(healthy, timeout, "primary and secondary")

    def wait(self, condition, timeout, what):
        deadline = time.time() + timeout
        while time.time() < deadline:
            try:
                if condition():
                    return
            except (subprocess.SubprocessError, ValueError, OSError):
                pass
            time.sleep(0.2)
        raise TimeoutError(f"waited {timeout} s for {what}; states: {self.states()}")

    def stop(self):
        """Removes the firewall rules, kills every node and the monitor, deletes the directory."""
        for node in self.nodes:
            node.heal()
        for node in [*self.nodes, self.monitor]:
            if node is self.monitor:
                if node.process and node.process.poll() is None:
                    os.killpg(node.process.pid, signal.SIGTERM)
                    try:
                        node.process.wait(20)
                    except subprocess.TimeoutExpired:
                        os.killpg(node.process.pid, signal.SIGKILL)
            else:
                node.kill()
        shutil.rmtree(self.directory, ignore_errors=True)
