#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# The lab's `ceph` CLI without its start-up: Ceph's own /usr/bin/ceph loaded once (Python,
# rados, ceph_argparse: ~0.5 s of CPU a start, which the lab tests' polls paid at every call),
# then one fork of that loaded process per call, which runs the CLI's own main() with the
# caller's arguments, working directory and stdin/stdout/stderr. Started by
# `contrib/lab/ceph up` on the admin host (inside its namespaces, as `ceph` runs there);
# contrib/lab/ceph-cli-client.c is the caller's side.
#
#   ceph-cli-server.py SOCKET [PIDFILE]   listens on the unix socket SOCKET (its pid in
#                                         PIDFILE once it listens)
#
# A call on the socket: the client sends its three descriptors (SCM_RIGHTS) with a request
# "cwd\0arg1\0arg2\0...\0" (the whole request in one message, at most 64 KiB); the server
# answers with the exit status as 4 bytes (little endian): the CLI's, or 128 + the signal
# that ended it. When the client goes away first (killed by a timeout), the call is killed.
# Nothing of this is cephprov's: it is the lab's tool, as the `ceph` CLI is.
import array
import importlib.machinery
import importlib.util
import os
import select
import signal
import socket
import struct
import sys

CEPH = "/usr/bin/ceph"


def load_cli():
    loader = importlib.machinery.SourceFileLoader("ceph_cli", CEPH)
    spec = importlib.util.spec_from_loader("ceph_cli", loader)
    mod = importlib.util.module_from_spec(spec)
    mod.__file__ = CEPH
    loader.exec_module(mod)
    return mod


def run_cli(cli, argv):
    # what /usr/bin/ceph does under `if __name__ == '__main__'`
    sys.argv = [CEPH] + argv
    try:
        retval = cli.main()
        if retval == 0 and cli.cluster_handle:
            cli.run_in_thread(cli.cluster_handle.shutdown)
    except KeyboardInterrupt:
        print("Interrupted")
        retval = 4  # errno.EINTR
    except SystemExit as e:
        retval = e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
    except BaseException as e:  # what an uncaught exception would print, and status 1
        import traceback
        traceback.print_exc()
        retval = 1
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(retval & 0xff)


def serve_one(cli, conn):
    """The forked child of one connection: runs the call in a grandchild, answers its status."""
    fds = array.array("i")
    msg, anc, _, _ = conn.recvmsg(65536, socket.CMSG_SPACE(3 * fds.itemsize))
    for level, kind, data in anc:
        if level == socket.SOL_SOCKET and kind == socket.SCM_RIGHTS:
            fds.frombytes(data[:len(data) - len(data) % fds.itemsize])
    if len(fds) != 3 or not msg:
        os._exit(2)
    parts = msg.split(b"\0")
    if parts and parts[-1] == b"":
        parts.pop()
    cwd, argv = parts[0], [p.decode("utf-8", "surrogateescape") for p in parts[1:]]
    pid = os.fork()
    if pid == 0:
        conn.close()
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        for i in range(3):
            os.dup2(fds[i], i)
        for fd in fds:
            os.close(fd)
        try:
            os.chdir(cwd)
        except OSError:
            pass
        run_cli(cli, argv)
    for fd in fds:
        os.close(fd)
    pidfd = os.pidfd_open(pid)
    ready, _, _ = select.select([pidfd, conn], [], [])
    if pidfd not in ready:
        # the connection readable before the answer: the client went away (EOF), or sent
        # more than its one request (the protocol has nothing after it): the call is killed
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
        os._exit(0)
    _, status = os.waitpid(pid, 0)
    code = os.waitstatus_to_exitcode(status)
    code = 128 - code if code < 0 else code
    try:
        conn.sendall(struct.pack("<i", code))
    except OSError:
        pass
    os._exit(0)


def main():
    if len(sys.argv) not in (2, 3):
        print("usage: ceph-cli-server.py SOCKET [PIDFILE]", file=sys.stderr)
        return 2
    path = sys.argv[1]
    cli = load_cli()
    try:
        os.unlink(path)
    except FileNotFoundError:
        pass
    srv = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    srv.bind(path)
    os.chmod(path, 0o600)
    srv.listen(64)
    if len(sys.argv) == 3:
        with open(sys.argv[2] + ".tmp", "w") as f:
            f.write("%d\n" % os.getpid())
        os.rename(sys.argv[2] + ".tmp", sys.argv[2])
    # children are reaped by the kernel: nobody waits for the connections' processes
    signal.signal(signal.SIGCHLD, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, lambda *_: os._exit(0))
    while True:
        try:
            conn, _ = srv.accept()
        except InterruptedError:
            continue
        pid = os.fork()
        if pid == 0:
            srv.close()
            signal.signal(signal.SIGCHLD, signal.SIG_DFL)
            serve_one(cli, conn)
        conn.close()


if __name__ == "__main__":
    sys.exit(main())
