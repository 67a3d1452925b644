"""A blocking HTTP/1.1 client over a plain socket for the hostile-client suite: it sends exactly
the bytes a check asks for (folded lines, two lengths, invalid UTF-8, %00) and reads answers one
at a time, so that a check can tell a refused request from a desynchronised connection.
Loopback only."""
import os
import socket
import time


class Closed(Exception):
    """The server closed the connection (or reset it) before a whole response arrived."""


class Response:
    def __init__(self, status, reason, headers, body):
        self.status, self.reason, self.headers, self.body = status, reason, headers, body

    def header(self, name):
        """The first value of a header field, case-insensitively; None if absent."""
        for key, value in self.headers:
            if key.lower() == name.lower():
                return value
        return None

    def __repr__(self):
        return f"<{self.status} {self.reason} {self.body[:120]!r}>"


class Connection:
    """One TCP connection to 127.0.0.1:port, optionally from another loopback source address."""

    def __init__(self, port, host="127.0.0.1", source=None, timeout=5.0):
        assert host.startswith("127."), "loopback targets only"
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        if source:
            assert source.startswith("127."), "loopback sources only"
            self.sock.bind((source, 0))
        self.sock.settimeout(timeout)
        self.sock.connect((host, port))
        self.port = port
        self.buffer = b""

    def close(self):
        try:
            self.sock.close()
        except OSError:
            pass

    def request(self, method, target, headers=(), body=b"", timeout=5.0):
        """Sends one well-framed request on this connection and reads its response."""
        self.send(encode(method, target, headers, body, port=self.port))
        return self.read_response(method, timeout)

    def send(self, data):
        if isinstance(data, str):
            data = data.encode("latin-1")
        self.sock.sendall(data)

    def _fill(self, deadline):
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            raise TimeoutError("no complete response in time")
        self.sock.settimeout(remaining)
        try:
            chunk = self.sock.recv(65536)
        except ConnectionResetError as error:
            raise Closed(f"reset: {error}") from None
        if not chunk:
            raise Closed("closed by the server")
        self.buffer += chunk

    def _read_until(self, marker, deadline):
        while marker not in self.buffer:
            self._fill(deadline)
        index = self.buffer.index(marker) + len(marker)
        data, self.buffer = self.buffer[:index], self.buffer[index:]
        return data

    def _read_exactly(self, count, deadline):
        while len(self.buffer) < count:
            self._fill(deadline)
        data, self.buffer = self.buffer[:count], self.buffer[count:]
        return data

    def read_head(self, timeout=5.0):
        """Status line and header fields of the next response; the body stays unread."""
        deadline = time.monotonic() + timeout
        head = self._read_until(b"\r\n\r\n", deadline).decode("latin-1")
        lines = head.split("\r\n")
        parts = lines[0].split(" ", 2)
        if len(parts) < 2 or not parts[0].startswith("HTTP/1."):
            raise ValueError(f"not a status line: {lines[0]!r}")
        headers = []
        for line in lines[1:]:
            if line:
                name, _, value = line.partition(":")
                headers.append((name.strip(), value.strip()))
        return int(parts[1]), (parts[2] if len(parts) > 2 else ""), headers

    def read_response(self, method="GET", timeout=5.0, stream_ok=True):
        """The next whole response. An event stream (text/event-stream) is returned after its
        head, with an empty body, when `stream_ok`: it would never end."""
        deadline = time.monotonic() + timeout
        status, reason, headers = self.read_head(timeout)
        response = Response(status, reason, headers, b"")
        if method == "HEAD" or status in (204, 304) or 100 <= status < 200:
            return response
        if stream_ok and (response.header("Content-Type") or "").startswith("text/event-stream"):
            return response
        length = response.header("Content-Length")
        if (response.header("Transfer-Encoding") or "").lower() == "chunked":
            body = b""
            while True:
                size_line = self._read_until(b"\r\n", deadline)
                size = int(size_line.split(b";")[0].strip(), 16)
                if size == 0:
                    self._read_until(b"\r\n", deadline)  # no trailers are sent
                    break
                body += self._read_exactly(size, deadline)
                self._read_exactly(2, deadline)
            response.body = body
        elif length is not None:
            response.body = self._read_exactly(int(length), deadline)
        else:
            while True:
                try:
                    self._fill(deadline)
                except Closed:
                    break
            response.body, self.buffer = self.buffer, b""
        return response

    def read_chunk(self, timeout=5.0):
        """The data of the next chunk of a chunked body whose head was read; b"" at its end."""
        deadline = time.monotonic() + timeout
        size = int(self._read_until(b"\r\n", deadline).split(b";")[0].strip(), 16)
        if size == 0:
            self._read_until(b"\r\n", deadline)
            return b""
        data = self._read_exactly(size, deadline)
        self._read_exactly(2, deadline)
        return data

    def closed_by_server(self, within=2.0):
        """True if the server closes (or resets) the connection within `within` seconds; any
        byte that arrives instead is kept for the next read and counts as 'not closed'."""
        if self.buffer:
            return False
        self.sock.settimeout(within)
        try:
            chunk = self.sock.recv(65536)
        except (ConnectionResetError, BrokenPipeError):
            return True
        except (TimeoutError, socket.timeout):
            return False
        if not chunk:
            return True
        self.buffer += chunk
        return False

    def readable(self, within):
        """True if a byte (or the close) arrives within `within` seconds, without consuming it."""
        if self.buffer:
            return True
        self.sock.settimeout(within)
        try:
            chunk = self.sock.recv(65536)
        except (TimeoutError, socket.timeout):
            return False
        except OSError:
            return True
        self.buffer += chunk
        return True


def request(port, method, target, headers=(), body=b"", timeout=5.0, source=None):
    """One request on a fresh connection (Connection: close); returns the Response."""
    connection = Connection(port, source=source, timeout=timeout)
    try:
        connection.send(encode(method, target, list(headers) + [("Connection", "close")], body, port=port))
        return connection.read_response(method, timeout)
    finally:
        connection.close()


def encode(method, target, headers=(), body=b"", port=None):
    """The bytes of a well-framed request: Host (127.0.0.1[:port], a loopback name every mode
    serves) first, Content-Length when there is a body."""
    host = f"127.0.0.1:{port}" if port else "127.0.0.1"
    if isinstance(body, str):
        body = body.encode("utf-8")
    if isinstance(target, str):
        target = target.encode("latin-1")
    names = {name.lower() for name, _ in headers}
    lines = [method.encode("latin-1") + b" " + target + b" HTTP/1.1"]
    if "host" not in names:
        lines.append(b"Host: " + host.encode())
    for name, value in headers:
        value = value if isinstance(value, bytes) else value.encode("latin-1")
        lines.append(name.encode("latin-1") + b": " + value)
    if body and "content-length" not in names and "transfer-encoding" not in names:
        lines.append(b"Content-Length: " + str(len(body)).encode())
    return b"\r\n".join(lines) + b"\r\n\r\n" + body


def tcp_kernel_bytes():
    """Bytes the kernel holds for every TCP socket of the machine (/proc/net/sockstat's `TCP: ... mem`,
    in pages): buffers of sockets, which a process's resident size does not show."""
    with open("/proc/net/sockstat") as sockstat:
        for line in sockstat:
            if line.startswith("TCP:"):
                fields = line.split()
                return int(fields[fields.index("mem") + 1]) * os.sysconf("SC_PAGE_SIZE")
    raise RuntimeError("no TCP line in /proc/net/sockstat")


def rss_kib(pid, field="VmRSS"):
    """Resident memory of `pid` in KiB (VmRSS now, or VmHWM: the peak so far)."""
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    raise RuntimeError(f"no {field} for {pid}")
