#!/usr/bin/env python3
"""Where a request's server CPU goes, from `perf script` output: one table, µs per request.

usage: profile-table.py LABEL=PERF_SCRIPT_TXT:US_PER_REQ [LABEL=...]

Each sample (with its call chain, leaf first) is charged to one activity:
* in the kernel, under a system call: the call, named by the libc function that made it (send or
  receive on a socket, file write, flush (fsync/fdatasync), epoll, futex, ...); SQLite's file
  writes and flushes come out here;
* in the kernel, not under a system call: page faults, or interrupts and the scheduler;
* in user space: the shared object of the leaf frame (SQLite, libmicrohttpd, libc, the Swift
  runtime and Foundation, the server's own code).
A column's µs are its share of samples times the server CPU µs per request measured while perf ran;
they add up to that figure. Below, inclusive rows: samples with SQLite / libmicrohttpd anywhere
in the chain (their system calls included).
"""
import re
import sys
from collections import Counter

# The system call, named by the libc wrapper that made it (the first user-space frame): the
# kernel's own entry frames differ from call to call (some are inlined).
SYSCALLS = [
    (re.compile(r"sendmsg|sendto|sendmmsg|writev|\bsend\b|__libc_send\b"), "kernel: socket send"),
    (re.compile(r"recv|readv"), "kernel: socket receive"),
    (re.compile(r"fdatasync|fsync|sync_file_range"), "kernel: flush (fsync/fdatasync)"),
    (re.compile(r"pwrite"), "kernel: file write (pwrite)"),
    (re.compile(r"pread"), "kernel: file read (pread)"),
    (re.compile(r"epoll"), "kernel: epoll"),
    (re.compile(r"futex|lll_lock|lll_unlock|pthread_cond|sem_wait|sem_post|pthread_mutex"), "kernel: futex (thread hand-offs)"),
    (re.compile(r"accept|close|shutdown"), "kernel: accept/close"),
    (re.compile(r"write"), "kernel: write (socket, log or eventfd)"),
    (re.compile(r"read"), "kernel: read (socket or eventfd)"),
]
ORDER = [
    "kernel: socket send", "kernel: socket receive", "kernel: write (socket, log or eventfd)",
    "kernel: read (socket or eventfd)", "kernel: epoll", "kernel: futex (thread hand-offs)",
    "kernel: file write (pwrite)", "kernel: file read (pread)", "kernel: flush (fsync/fdatasync)",
    "kernel: accept/close", "kernel: other system calls", "kernel: page faults",
    "kernel: interrupts, scheduler, other",
    "SQLite (user space)", "libmicrohttpd (user space)", "libc: malloc, free, memcpy, ...",
    "Swift runtime, Foundation, Dispatch", "the server's own code", "other user space",
]


def samples(path):
    """Yields each sample's frames as (symbol, dso) pairs, leaf first."""
    frames = []
    with open(path, errors="replace") as f:
        for line in f:
            if not line.strip():
                if frames:
                    yield frames
                frames = []
                continue
            if line[0] not in " \t":
                if frames:
                    yield frames
                frames = []
                continue
            m = re.match(r"\s+[0-9a-f]+\s+(.*?)\s+\((.*)\)\s*$", line)
            if m:
                sym = re.sub(r"\+0x[0-9a-f]+$", "", m.group(1))
                frames.append((sym, m.group(2)))
    if frames:
        yield frames


def classify(frames):
    leaf_sym, leaf_dso = frames[0]
    if "kernel" in leaf_dso or leaf_dso.startswith("[k"):
        kernel = [sym for sym, dso in frames if "kernel" in dso]
        if any("page_fault" in sym for sym in kernel):
            return "kernel: page faults"
        caller = next((sym for sym, dso in frames if "kernel" not in dso), None)
        if caller is None or not any("syscall" in sym for sym in kernel):
            return "kernel: interrupts, scheduler, other"
        for pattern, name in SYSCALLS:
            if pattern.search(caller):
                return name
        return "kernel: other system calls"
    dso = leaf_dso.rsplit("/", 1)[-1]
    if dso.startswith("libsqlite3"):
        return "SQLite (user space)"
    if dso.startswith("libmicrohttpd"):
        return "libmicrohttpd (user space)"
    if dso.startswith("libc.so") or dso.startswith("libc-"):
        return "libc: malloc, free, memcpy, ..."
    if dso.startswith(("libswift", "libFoundation", "libdispatch", "libBlocksRuntime", "lib_FoundationICU")):
        return "Swift runtime, Foundation, Dispatch"
    if dso in ("floor", "navprefs"):
        return "the server's own code"
    return "other user space"


def main(argv):
    columns = []
    for spec in argv[1:]:
        label, rest = spec.split("=", 1)
        path, upr = rest.rsplit(":", 1)
        counts, inclusive, total = Counter(), Counter(), 0
        for frames in samples(path):
            total += 1
            counts[classify(frames)] += 1
            dsos = {d.rsplit("/", 1)[-1] for _, d in frames}
            if any(d.startswith("libsqlite3") for d in dsos):
                inclusive["SQLite, inclusive (its system calls too)"] += 1
            if any(d.startswith("libmicrohttpd") for d in dsos):
                inclusive["libmicrohttpd, inclusive (its system calls too)"] += 1
        columns.append((label, float(upr), counts, inclusive, max(total, 1)))
    print("| µs per request | " + " | ".join(c[0] for c in columns) + " |")
    print("|---|" + "---:|" * len(columns))
    for name in ORDER:
        if not any(c[2][name] for c in columns):
            continue
        cells = [f"{c[1] * c[2][name] / c[4]:.1f}" for c in columns]
        print(f"| {name} | " + " | ".join(cells) + " |")
    print("| **total (server CPU per request while perf ran)** | " + " | ".join(f"**{c[1]:.1f}**" for c in columns) + " |")
    for name in ("SQLite, inclusive (its system calls too)", "libmicrohttpd, inclusive (its system calls too)"):
        print(f"| {name} | " + " | ".join(f"{c[1] * c[3][name] / c[4]:.1f}" for c in columns) + " |")
    print("| samples | " + " | ".join(str(c[4]) for c in columns) + " |")


if __name__ == "__main__":
    main(sys.argv)
