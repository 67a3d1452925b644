"""The pg_auto_failover formation of deploy/compose.yaml (a monitor, a primary and its synchronous
standby), started on this machine from deploy/'s own files, for scripts/check-failover.py and
bench/postgres/sync-cost.py: nothing here sets a timing, a node setting or a connection string.

Each PostgreSQL service of compose.yaml (those built from deploy/pg-auto-failover) runs its
image's entrypoint, deploy/pg-auto-failover/entrypoint.sh, the way a container would:
  - environment: the Containerfile's ENV, then the service's `environment` from compose.yaml,
    as the Containerfile's USER;
  - network: a network namespace of its own on a bridge with compose.yaml's subnet, so every
    part listens on 5432 as in compose; the service names resolve through a hosts file bound
    over /etc/hosts (compose's DNS does that in containers), and nothing else resolves;
  - files: a private mount namespace with the service's volume bound at compose.yaml's path
    (on an empty tmpfs for the directory above it, as in the image; its own /run/postgresql and
    /tmp too) and the service's hostname (a UTS namespace).
The instances (check-failover.py starts the binary under test) get compose.yaml's DATABASE_URL
as it is, run through `resolving`, which binds the same hosts file.

Breaking a node the way a machine breaks: `kill` ends every process in its network namespace
(its keeper and its PostgreSQL); `partition` drops every packet on its interface (iptables in
its namespace: nothing in, nothing out; its keeper still reaches its own PostgreSQL).

Needs root, Debian's postgresql-15-auto-failover, pg-auto-failover-cli, iptables, iproute2,
util-linux (nsenter, unshare, setpriv) and PyYAML.
"""
import ipaddress
import json
import os
import pwd
import re
import shlex
import shutil
import signal
import socket
import subprocess
import time

import yaml

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DEPLOY = os.path.join(ROOT, "deploy")
IMAGE = os.path.join(DEPLOY, "pg-auto-failover")
# What a container's PATH is when its image sets none (Docker's and podman's default).
CONTAINER_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
PSQL = "/usr/lib/postgresql/15/bin/psql"
PREFIX = "npf"  # of every bridge, veth and network namespace made here; then the owner's pid


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def containerfile():
    """(ENV as a dict, USER, ENTRYPOINT's program) of deploy/pg-auto-failover/Containerfile."""
    text = open(os.path.join(IMAGE, "Containerfile")).read().replace("\\\n", " ")
    env, user, entrypoint = {}, "root", None
    for line in text.splitlines():
        words = line.split(None, 1)
        if len(words) == 2 and words[0] == "ENV":
            env.update(item.split("=", 1) for item in shlex.split(words[1]))
        elif len(words) == 2 and words[0] == "USER":
            user = words[1].strip()
        elif len(words) == 2 and words[0] == "ENTRYPOINT":
            entrypoint = json.loads(words[1])[0]
    if not entrypoint:
        raise RuntimeError("deploy/pg-auto-failover/Containerfile has no ENTRYPOINT")
    return env, user, entrypoint


def settings(path):
    """{name: value} of a settings file (`name = value` lines, `#` comments), as deploy/ ships it."""
    values = {}
    for line in open(path):
        line = line.split("#", 1)[0].strip()
        if line:
            name, value = (part.strip() for part in line.split("=", 1))
            values[name] = value
    return values


def run(*command, check=True):
    return subprocess.run(command, capture_output=True, text=True, check=check)


def clear_leftovers():
    """Removes the namespaces, veths and bridges of earlier runs whose process is gone (a run
    ended by `timeout` cannot clean up after itself)."""
    names = run("ip", "netns", "list", check=False).stdout.split()
    links = re.findall(r"^\d+: ([^:@]+)", run("ip", "-o", "link", "show", check=False).stdout, re.M)
    owners = {int(m[1]) for name in names + links if (m := re.match(rf"{PREFIX}(\d+)", name))}
    for owner in owners:
        if os.path.exists(f"/proc/{owner}"):
            continue
        for name in names:
            if name.startswith(f"{PREFIX}{owner}-"):
                for pid in run("ip", "netns", "pids", name, check=False).stdout.split():
                    try:
                        os.kill(int(pid), signal.SIGKILL)
                    except ProcessLookupError:
                        pass
                run("ip", "netns", "delete", name, check=False)
        for link in links:
            if re.fullmatch(rf"{PREFIX}{owner}(h\d+)?", link):
                run("ip", "link", "delete", link, check=False)
        run("iptables", "-w", "-D", "FORWARD", "-i", f"{PREFIX}{owner}", "-o", f"{PREFIX}{owner}", "-j", "ACCEPT", check=False)


class Service:
    """One PostgreSQL service of compose.yaml (the monitor or a data node), run from its entrypoint."""

    def __init__(self, formation, name, definition, index, address):
        self.formation, self.name, self.index, self.address = formation, name, index, address
        self.hostname = definition.get("hostname", name)
        self.netns = f"{formation.tag}-{name}"
        self.veth = f"{formation.tag}h{index}"
        self.home = os.path.join(formation.directory, name)
        volume, self.volume_path = definition["volumes"][0].split(":")[:2]
        self.volume = os.path.join(formation.directory, "volumes", volume)
        image_env, self.user, self.entrypoint = formation.image
        self.env = {"PATH": CONTAINER_PATH, "HOME": pwd.getpwnam(self.user).pw_dir, "HOSTNAME": self.hostname,
                    **image_env, **{key: str(value) for key, value in (definition.get("environment") or {}).items()}}
        self.role = self.env.get("PG_AUTOCTL_ROLE", "postgres")
        self.pgdata = self.env["PGDATA"]
        self.process = None

    # -- the service's namespaces

    def create(self):
        """Its network namespace on the formation's bridge, its directories."""
        tag = self.formation.tag
        run("ip", "netns", "add", self.netns)
        run("ip", "link", "add", self.veth, "type", "veth", "peer", "name", "eth0", "netns", self.netns)
        run("ip", "link", "set", self.veth, "master", tag, "up")
        run("ip", "-n", self.netns, "addr", "add", f"{self.address}/{self.formation.network.prefixlen}", "dev", "eth0")
        run("ip", "-n", self.netns, "link", "set", "eth0", "up")
        run("ip", "-n", self.netns, "link", "set", "lo", "up")
        run("ip", "-n", self.netns, "route", "add", "default", "via", str(self.formation.gateway))
        for path, mode in ((self.volume, 0o700), (f"{self.home}/run", 0o2775), (f"{self.home}/tmp", 0o1777)):
            os.makedirs(path, exist_ok=True)
            shutil.chown(path, self.user, self.user)
            os.chmod(path, mode)

    def inside(self, argv, env=None):
        """argv as the image's user in this service's namespaces, with exactly env (default: the
        service's environment)."""
        # deploy/pg-auto-failover's files where the image's COPY puts them (on a tmpfs over the
        # directory above: nothing of the host's is written), before /tmp is the service's own:
        # a checkout under /tmp would vanish then.
        mounts = " && ".join([
            'mount -t tmpfs -o mode=0755 tmpfs "$(dirname "$6")"',
            'mkdir "$6"',
            'mount --bind "$7" "$6"',
            'mount --bind "$1" /etc/hosts',
            'mount --bind "$1.resolv" /etc/resolv.conf',
            'mount -t tmpfs -o mode=0755 tmpfs "$(dirname "$2")"',
            'chown "$0:" "$(dirname "$2")"',
            'mkdir "$2"',
            'mount --bind "$3" "$2"',
            'mount --bind "$4/run" /run/postgresql',
            'mount --bind "$4/tmp" /tmp',
            'hostname "$5"',
            'shift 8',
            'exec setpriv --reuid="$0" --regid="$0" --init-groups env -i "$@"',
        ])
        env = self.env if env is None else env
        return ["nsenter", f"--net=/run/netns/{self.netns}", "unshare", "--mount", "--uts", "--propagation", "private",
                "sh", "-c", mounts, self.user, self.formation.hosts_file, self.volume_path, self.volume, self.home,
                self.hostname, os.path.dirname(self.entrypoint), IMAGE, "--",
                *[f"{key}={value}" for key, value in env.items()], *argv]

    def start(self):
        """Runs deploy/pg-auto-failover/entrypoint.sh (again: a restarted container)."""
        log = open(os.path.join(self.home, "entrypoint.log"), "a")
        self.process = subprocess.Popen(self.inside([self.entrypoint]),
                                        stdout=log, stderr=subprocess.STDOUT, start_new_session=True)

    def autoctl(self, *arguments, check=True, timeout=120):
        """`pg_autoctl ARGUMENTS --pgdata PGDATA` in the service, as its entrypoint runs it."""
        result = subprocess.run(self.inside(["pg_autoctl", *arguments, "--pgdata", self.pgdata]),
                                capture_output=True, text=True, errors="replace", timeout=timeout)
        if check and result.returncode != 0:
            raise RuntimeError(f"pg_autoctl {' '.join(arguments)} on {self.name}: {result.stdout}{result.stderr}")
        return result.stdout

    def log(self):
        try:
            return open(os.path.join(self.home, "entrypoint.log"), errors="replace").read()
        except OSError:
            return ""

    # -- breaking it

    def pids(self):
        """Every process in the service's network namespace: its keeper and its PostgreSQL."""
        return [int(pid) for pid in run("ip", "netns", "pids", self.netns, check=False).stdout.split()]

    def postmaster_pid(self):
        with open(os.path.join(self.volume, os.path.relpath(self.pgdata, self.volume_path), "postmaster.pid")) as f:
            return int(f.readline())

    def kill_postmaster(self):
        """kill -9 of the postmaster alone: its keeper sees it die and starts it again."""
        os.kill(self.postmaster_pid(), signal.SIGKILL)

    def kill(self):
        """kill -9 of the whole node, keeper and PostgreSQL, as if its machine died."""
        for _ in range(3):  # a process forked meanwhile is in the namespace too
            for pid in self.pids():
                try:
                    os.kill(pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
        if self.process:
            self.process.wait(10)
            self.process = None

    def run(self):
        """Starts the killed node again, as compose's restart policy would."""
        self.start()

    def iptables(self, action):
        for rule in (["INPUT", "-i", "eth0", "-j", "DROP"], ["OUTPUT", "-o", "eth0", "-j", "DROP"]):
            result = run("nsenter", f"--net=/run/netns/{self.netns}", "iptables", "-w", action, *rule, check=False)
            if action == "-I" and result.returncode != 0:
                raise RuntimeError(f"iptables in {self.netns}: {result.stderr}")
            while action == "-D" and result.returncode == 0:
                result = run("nsenter", f"--net=/run/netns/{self.netns}", "iptables", "-w", action, *rule, check=False)

    def partition(self):
        """Cuts the node off the network: nothing it sends and nothing sent to it arrives."""
        self.iptables("-I")

    def heal(self):
        self.iptables("-D")

    def remove(self):
        self.kill()
        run("ip", "link", "delete", self.veth, check=False)
        run("ip", "netns", "delete", self.netns, check=False)


class Formation:
    """compose.yaml's monitor and data nodes; `url` is compose.yaml's DATABASE_URL of the instances."""

    def __init__(self, directory, compose=os.path.join(DEPLOY, "compose.yaml")):
        self.directory = directory
        os.makedirs(directory, exist_ok=True)
        os.chmod(directory, 0o755)
        self.compose = yaml.safe_load(open(compose))
        self.image = containerfile()
        services = self.compose["services"]
        context = os.path.relpath(IMAGE, DEPLOY)
        # The PostgreSQL parts, in compose.yaml's order (which is its depends_on order).
        names = [name for name, service in services.items() if (service.get("build") or {}).get("context") == context]
        self.tag = f"{PREFIX}{os.getpid()}"
        self.network = self.free_subnet()
        self.gateway = self.network.network_address + 1
        self.services = [Service(self, name, services[name], index, self.gateway + 1 + index)
                         for index, name in enumerate(names)]
        self.monitor = next(service for service in self.services if service.role == "monitor")
        self.nodes = [service for service in self.services if service.role == "postgres"]
        # The navprefs instances: the services given a DATABASE_URL that run the image as built
        # (navprefs-token overrides its entrypoint to make a token once).
        instances = [service for service in services.values()
                     if "DATABASE_URL" in (service.get("environment") or {}) and "entrypoint" not in service]
        envs = [{key: str(value) for key, value in service["environment"].items()} for service in instances]
        if not envs or any(env != envs[0] for env in envs):
            raise ValueError(f"compose.yaml's instances should share one environment: {envs}")
        self.instance_env = envs[0]
        self.url = self.instance_env["DATABASE_URL"]
        self.hosts_file = os.path.join(directory, "hosts")
        with open(self.hosts_file, "w") as f:
            f.write("127.0.0.1 localhost\n")
            for service in self.services:
                f.write(f"{service.address} {service.hostname} {service.name}\n")
        # No name server in the services (the host's is beyond the bridge): a name not in the
        # hosts file fails at once. PostgreSQL looks up each client's address for pg_hba.conf's
        # host name lines; a name server that does not answer would stall every connection.
        with open(self.hosts_file + ".resolv", "w") as f:
            f.write("nameserver 127.0.0.1\n")

    def free_subnet(self):
        """compose.yaml's subnet, or the next free /24 when another run on this machine holds it."""
        wanted = ipaddress.ip_network(self.compose["networks"]["navprefs"]["ipam"]["config"][0]["subnet"])
        used = [ipaddress.ip_interface(address).network
                for address in re.findall(r"inet (\S+)", run("ip", "-o", "-4", "addr", "show").stdout)]
        for offset in range(64):
            candidate = ipaddress.ip_network((int(wanted.network_address) + offset * wanted.num_addresses, wanted.prefixlen))
            if not any(candidate.overlaps(network) for network in used):
                return candidate
        raise RuntimeError(f"no free subnet near {wanted}")

    def resolving(self, argv):
        """argv with the formation's names resolving (the hosts file bound over /etc/hosts in a
        private mount namespace), as the instances of compose.yaml see them."""
        return ["unshare", "--mount", "--propagation", "private", "sh", "-c", 'mount --bind "$0" /etc/hosts && exec "$@"',
                self.hosts_file, *argv]

    def start(self, timeout=150):
        """The bridge, then each service in compose.yaml's order, each once the one before it is
        up (the monitor answering, the primary single); returns once the standby is secondary."""
        clear_leftovers()
        run("ip", "link", "add", self.tag, "type", "bridge")
        run("ip", "addr", "add", f"{self.gateway}/{self.network.prefixlen}", "dev", self.tag)
        run("ip", "link", "set", self.tag, "up")
        # Bridged packets pass the host's FORWARD chain when br_netfilter is loaded.
        run("iptables", "-w", "-I", "FORWARD", "-i", self.tag, "-o", self.tag, "-j", "ACCEPT")
        for service in self.services:
            service.create()
        self.startup = {}  # service name: seconds until it was up
        for service in self.services:
            begun = time.time()
            service.start()
            if service is self.monitor:
                self.wait(lambda: self.sql("SELECT count(*) FROM pgautofailover.node") == "0", timeout,
                          "the monitor to answer", service)
            else:
                wanted = "single" if service is self.nodes[0] else "secondary"
                self.wait(lambda: self.states().get(service.name) == (wanted, wanted), timeout, f"{service.name} to be {wanted}", service)
            self.startup[service.name] = time.time() - begun
        self.wait_healthy(timeout)

    def sql(self, query, node=None, dbname="pg_auto_failover"):
        """One query on the monitor (or on a node), its first value; None if it fails. Over the
        service's Unix socket, as the image's user."""
        service = node or self.monitor
        env = {"PATH": CONTAINER_PATH, "PGCONNECT_TIMEOUT": "2"}
        result = subprocess.run(service.inside([PSQL, "-d", dbname, "-XtAqc", query], env=env),
                                capture_output=True, text=True, timeout=15)
        return result.stdout.strip().split("\n")[0] if result.returncode == 0 else None

    def states(self):
        """{node name: (reported state, assigned state)} as the monitor sees them."""
        env = {"PATH": CONTAINER_PATH, "PGCONNECT_TIMEOUT": "2"}
        result = subprocess.run(self.monitor.inside([PSQL, "-d", "pg_auto_failover", "-XtAqF|", "-c",
                                                     "SELECT nodename, reportedstate, goalstate FROM pgautofailover.node"], env=env),
                                capture_output=True, text=True, timeout=15)
        states = {}
        for line in result.stdout.split():
            name, reported, goal = line.split("|")
            states[name] = (reported, goal)
        return states

    def primary(self):
        """The node the monitor holds primary now, or None."""
        states = self.states()
        for node in self.nodes:
            if states.get(node.name, ("", ""))[1] in ("primary", "wait_primary", "single"):
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

    def wait(self, condition, timeout, what, service=None):
        deadline = time.time() + timeout
        while time.time() < deadline:
            try:
                if condition():
                    return
            except (subprocess.SubprocessError, ValueError, OSError):
                pass
            if service and service.process and service.process.poll() is not None:
                raise RuntimeError(f"{service.name}'s entrypoint ended ({service.process.returncode}):\n{service.log()[-3000:]}")
            time.sleep(0.2)
        logs = "".join(f"\n--- {s.name}:\n{s.log()[-1500:]}" for s in ([service] if service else self.services))
        raise TimeoutError(f"waited {timeout} s for {what}; states: {self.states()}{logs}")

    def shipped_settings(self):
        """Checks that the running formation took deploy/'s settings: each of monitor.conf's
        values as the monitor's PostgreSQL shows it, each of keeper.conf's as each keeper's
        configuration holds it, and the primary committing synchronously with its standby."""
        checks = {}
        monitor = settings(os.path.join(IMAGE, "monitor.conf"))
        shown = {name: self.sql(f"SELECT setting FROM pg_settings WHERE name = '{name}'") for name in monitor}
        differing = [f"{name} = {shown[name]}" for name, value in monitor.items() if shown[name] != value]
        checks[f"the monitor runs monitor.conf's {len(monitor)} settings ({', '.join(differing) or 'all'})"] = not differing and bool(monitor)
        keeper = settings(os.path.join(IMAGE, "keeper.conf"))
        differing = [f"{node.name}: {name} = {got}" for node in self.nodes for name, value in keeper.items()
                     if (got := node.autoctl("config", "get", name).strip()) != value]
        checks[f"each keeper runs keeper.conf's {len(keeper)} settings ({', '.join(differing) or 'all'})"] = not differing and bool(keeper)
        primary = self.primary()
        names = self.sql("SHOW synchronous_standby_names", node=primary, dbname="postgres") or ""
        commit = self.sql("SHOW synchronous_commit", node=primary, dbname="postgres")
        checks[f"the primary commits synchronously (synchronous_standby_names {names!r}, synchronous_commit {commit})"] = \
            names.startswith("ANY 1 (") and commit == "on"
        encoding = self.sql("SELECT pg_encoding_to_char(encoding) FROM pg_database WHERE datname = current_database()",
                            node=primary, dbname="navprefs")
        checks[f"the navprefs database is UTF8 (it is {encoding})"] = encoding == "UTF8"
        return checks

    def stop(self):
        """Removes the firewall rules, kills every service, removes the namespaces, the bridge and
        the directory."""
        for service in reversed(self.services):
            service.heal()
            service.remove()
        run("iptables", "-w", "-D", "FORWARD", "-i", self.tag, "-o", self.tag, "-j", "ACCEPT", check=False)
        run("ip", "link", "delete", self.tag, check=False)
        shutil.rmtree(self.directory, ignore_errors=True)
