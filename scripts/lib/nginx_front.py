"""nginx (Debian's) in front of navprefs instances with the shipped deploy/nginx-navprefs.conf,
rewritten only for this run's ports and directory: the checks then test the file a team deploys."""
import http.client
import os
import subprocess
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def start(directory, upstream_ports, front_port, workers=1):
    """Starts nginx on 127.0.0.1:front_port; returns its process once it answers /healthz."""
    config = open(os.path.join(ROOT, "deploy/nginx-navprefs.conf")).read()
    servers = "".join(f"    server 127.0.0.1:{port} max_fails=1 fail_timeout=5s;\n" for port in upstream_ports)
    lines = [line for line in config.splitlines(keepends=True) if not line.strip().startswith("server 127.0.0.1:808")]
    config = "".join(lines).replace("upstream navprefs {\n", "upstream navprefs {\n" + servers, 1)
    config = config.replace("listen 8080;", f"listen 127.0.0.1:{front_port};")
    with open(os.path.join(directory, "navprefs.conf"), "w") as f:
        f.write(config)
    with open(os.path.join(directory, "nginx.conf"), "w") as f:
        f.write(f"""daemon off;
pid {directory}/nginx.pid;
error_log {directory}/nginx-error.log warn;
worker_processes {workers};
events {{ worker_connections 1024; }}
http {{
    access_log off;
    client_body_temp_path {directory}/body;
    proxy_temp_path {directory}/proxy;
    fastcgi_temp_path {directory}/fastcgi;
    uwsgi_temp_path {directory}/uwsgi;
    scgi_temp_path {directory}/scgi;
    include {directory}/navprefs.conf;
}}
""")
    process = subprocess.Popen(["nginx", "-c", f"{directory}/nginx.conf", "-p", directory],
                               stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT)
    deadline = time.time() + 10
    while time.time() < deadline:
        try:
            connection = http.client.HTTPConnection("127.0.0.1", front_port, timeout=2)
            connection.request("GET", "/healthz")
            if connection.getresponse().status == 200:
                return process
        except OSError:
            time.sleep(0.05)
    process.kill()
    raise RuntimeError("nginx did not answer /healthz")
