// SPDX-License-Identifier: LGPL-2.1-or-later
//
// The caller's side of contrib/lab/ceph-cli-server.py: runs `ceph ARGS...` on the lab's
// admin host through the server's loaded CLI, with this process's working directory and
// stdin/stdout/stderr, and exits with the CLI's status. A few milliseconds of CPU a call
// where a `ceph` start costs ~0.5 s.
//
//   ceph-cli-client SOCKET ARGS...
//
// Exit status: the CLI's; 255 when the server cannot be reached or ends the call without an
// answer (the message names the socket).
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#define REQUEST_MAX 65536

static int fail(const char *sock, const char *what)
{
        fprintf(stderr, "ceph-cli-client: %s: %s: %s\n", sock, what, strerror(errno));
        return 255;
}

int main(int argc, char **argv)
{
        if (argc < 2) {
                fprintf(stderr, "usage: ceph-cli-client SOCKET ARGS...\n");
                return 2;
        }
        const char *sock = argv[1];

        static char req[REQUEST_MAX];
        size_t len = 0;
        if (!getcwd(req, sizeof(req) - 1))
                return fail(sock, "getcwd");
        len = strlen(req) + 1;
        for (int i = 2; i < argc; i++) {
                size_t n = strlen(argv[i]) + 1;
                if (len + n > sizeof(req)) {
                        errno = E2BIG;
                        return fail(sock, "arguments");
                }
                memcpy(req + len, argv[i], n);
                len += n;
        }

        struct sockaddr_un sa = { .sun_family = AF_UNIX };
        if (strlen(sock) >= sizeof(sa.sun_path)) {
                errno = ENAMETOOLONG;
                return fail(sock, "socket path");
        }
        strcpy(sa.sun_path, sock);
        int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (fd < 0)
                return fail(sock, "socket");
        if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0)
                return fail(sock, "connect");

        // a descriptor the caller closed is /dev/null to the CLI, as a closed one is
        // nothing it could use
        int fds[3] = { 0, 1, 2 };
        for (int i = 0; i < 3; i++)
                if (fcntl(i, F_GETFD) < 0 && (fds[i] = open("/dev/null", O_RDWR | O_CLOEXEC)) < 0)
                        return fail(sock, "/dev/null");
        union {
                char buf[CMSG_SPACE(sizeof(fds))];
                struct cmsghdr align;
        } ctl;
        memset(&ctl, 0, sizeof(ctl));
        struct iovec iov = { .iov_base = req, .iov_len = len };
        struct msghdr msg = {
                .msg_iov = &iov, .msg_iovlen = 1,
                .msg_control = ctl.buf, .msg_controllen = sizeof(ctl.buf),
        };
        struct cmsghdr *c = CMSG_FIRSTHDR(&msg);
        c->cmsg_level = SOL_SOCKET;
        c->cmsg_type = SCM_RIGHTS;
        c->cmsg_len = CMSG_LEN(sizeof(fds));
        memcpy(CMSG_DATA(c), fds, sizeof(fds));
        ssize_t sent;
        do
                sent = sendmsg(fd, &msg, MSG_NOSIGNAL);
        while (sent < 0 && errno == EINTR);
        if (sent != (ssize_t)len)
                return fail(sock, "sendmsg");

        unsigned char st[4];
        size_t got = 0;
        while (got < sizeof(st)) {
                ssize_t n = read(fd, st + got, sizeof(st) - got);
                if (n < 0 && errno == EINTR)
                        continue;
                if (n <= 0) {
                        if (n == 0)
                                errno = ECONNRESET;
                        return fail(sock, "no exit status from the server");
                }
                got += (size_t)n;
        }
        int32_t code = (int32_t)((uint32_t)st[0] | (uint32_t)st[1] << 8 | (uint32_t)st[2] << 16 |
                                 (uint32_t)st[3] << 24);
        return code & 0xff;
}
