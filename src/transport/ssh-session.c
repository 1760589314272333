/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "ssh-session.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <libssh2.h>
#include <libssh2_sftp.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "basic/clock-util.h"
#include "basic/log.h"
#include "basic/strv.h"

#define SSH_KEEPALIVE_SEC 15
#define SSH_CONNECT_TIMEOUT_DEFAULT 10
#define SSH_COMMAND_TIMEOUT_DEFAULT 600
#define SSH_OUTPUT_MAX (256u * 1024 * 1024)
#define SSH_STDERR_TAIL 4096
#define SSH_CLOSE_GRACE_MS 2000

/* Fast, modern algorithms first: curve25519 kex and ed25519 host keys cost the least CPU
 * on both ends; the rest stays acceptable for older servers. */
static const char kex_pref[] =
        "curve25519-sha256,curve25519-sha256@libssh.org,ecdh-sha2-nistp256,ecdh-sha2-nistp384,"
        "ecdh-sha2-nistp521,diffie-hellman-group-exchange-sha256,diffie-hellman-group16-sha512,"
        "diffie-hellman-group18-sha512,diffie-hellman-group14-sha256";
/* Only names libssh2 1.10 knows: its method_pref() corrupts memory (memcpy on overlapping
 * ranges, found with ASan) when it has to drop an unknown one such as rsa-sha2-256. */
static const char hostkey_pref[] =
        "ssh-ed25519,ecdsa-sha2-nistp256,ecdsa-sha2-nistp384,ecdsa-sha2-nistp521,ssh-rsa";
static const char cipher_pref[] = "aes128-ctr,aes256-ctr,aes192-ctr";
static const char mac_pref[] = "hmac-sha2-256,hmac-sha2-512,hmac-sha1";

struct SshSession {
        char *host_name;
        char *address;
        unsigned port;
        int fd;
        LIBSSH2_SESSION *session;
        bool ready; /* authenticated: keepalives only from then on (never mid key exchange) */
};

struct SshStream {
        SshSession *s;
        LIBSSH2_CHANNEL *ch;
        char *buf;          /* stdout bytes not yet returned as lines */
        size_t buf_size, buf_alloc;
        char tail[SSH_STDERR_TAIL + 1];
        size_t tail_size;
        bool eof;
        bool broken; /* a read timed out or failed: close without waiting on the peer */
};

static uint64_t deadline_after(unsigned sec) {
        return clock_mono_ms() + (uint64_t) sec * 1000;
}

static const char *last_error(SshSession *s) {
        char *msg = NULL;
        if (!s->session)
                return "no session";
        libssh2_session_last_error(s->session, &msg, NULL, 0);
        return msg && *msg ? msg : "unknown libssh2 error";
}

static int last_errno(SshSession *s) {
        return libssh2_session_last_errno(s->session);
}

/* Wait until the socket is ready in the direction libssh2 is blocked on, or the deadline.
 * Sends keepalives while waiting so that idle NATs/firewalls keep long commands alive. */
static int ssh_wait(SshSession *s, uint64_t deadline) {
        uint64_t now = clock_mono_ms();
        if (now >= deadline)
                return -ETIME;

        int dir = libssh2_session_block_directions(s->session);
        struct pollfd p = { .fd = s->fd };
        if (dir & LIBSSH2_SESSION_BLOCK_INBOUND)
                p.events |= POLLIN;
        if (dir & LIBSSH2_SESSION_BLOCK_OUTBOUND)
                p.events |= POLLOUT;
        if (!p.events)
                p.events = POLLIN;

        uint64_t wait = deadline - now;
        if (s->ready) {
                int next_keepalive = SSH_KEEPALIVE_SEC;
                (void) libssh2_keepalive_send(s->session, &next_keepalive);
                if (next_keepalive > 0 && wait > (uint64_t) next_keepalive * 1000)
                        wait = (uint64_t) next_keepalive * 1000;
        }

        int r = poll(&p, 1, (int) wait);
        if (r < 0 && errno != EINTR)
                return -errno;
        if (p.revents & POLLNVAL)
                return -EBADF;
        return 0;
}

/* Name resolution bounded by the connect deadline: an IP address is taken as it is; a name
 * goes to glibc's asynchronous resolver (getaddrinfo_a) and is given up on at the deadline,
 * since a plain getaddrinfo() can block for as long as the DNS servers make it. */
typedef struct Lookup {
        struct gaicb cb;
        struct addrinfo hints;
        char name[256];
        char port[16];
} Lookup;

static int resolve_bounded(SshSession *s, const char *port, uint64_t deadline, struct addrinfo **ret, Error *err) {
        struct addrinfo hints = { .ai_socktype = SOCK_STREAM, .ai_flags = AI_NUMERICSERV | AI_NUMERICHOST };
        if (getaddrinfo(s->address, port, &hints, ret) == 0)
                return 0;

        Lookup *l = calloc(1, sizeof(Lookup));
        if (!l)
                return error_set(err, ENOMEM, "out of memory");
        snprintf(l->name, sizeof(l->name), "%s", s->address);
        snprintf(l->port, sizeof(l->port), "%s", port);
        l->hints = (struct addrinfo) { .ai_socktype = SOCK_STREAM, .ai_flags = AI_NUMERICSERV };
        l->cb = (struct gaicb) { .ar_name = l->name, .ar_service = l->port, .ar_request = &l->hints };
        struct gaicb *list[1] = { &l->cb };
        int r = getaddrinfo_a(GAI_NOWAIT, list, 1, NULL);
        if (r != 0) {
                free(l);
                return error_set(err, EHOSTUNREACH, "cannot resolve '%s' for host '%s': %s", s->address, s->host_name,
                                 gai_strerror(r));
        }
        for (;;) {
                r = gai_error(&l->cb);
                if (r != EAI_INPROGRESS)
                        break;
                uint64_t now = clock_mono_ms();
                if (now >= deadline) {
                        /* a request the resolver still works on must outlive us: leave it */
                        if (gai_cancel(&l->cb) == EAI_CANCELED)
                                free(l);
                        return error_set(err, ETIME, "cannot resolve '%s' for host '%s': no answer within the connect timeout",
                                         s->address, s->host_name);
                }
                uint64_t left = deadline - now;
                struct timespec ts = { .tv_sec = (time_t) (left / 1000), .tv_nsec = (long) (left % 1000) * 1000000 };
                (void) gai_suspend((const struct gaicb * const *) list, 1, &ts);
        }
        if (r != 0) {
                free(l);
                return error_set(err, EHOSTUNREACH, "cannot resolve '%s' for host '%s': %s", s->address, s->host_name,
                                 gai_strerror(r));
        }
        *ret = l->cb.ar_result;
        free(l);
        return 0;
}

static int tcp_connect_once(SshSession *s, uint64_t deadline, Error *err) {
        char port[16];
        snprintf(port, sizeof(port), "%u", s->port);
        struct addrinfo *ai = NULL;
        int r = resolve_bounded(s, port, deadline, &ai, err);
        if (r < 0)
                return r;

        int fd = -1, saved = ECONNREFUSED;
        for (struct addrinfo *a = ai; a; a = a->ai_next) {
                fd = socket(a->ai_family, a->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, a->ai_protocol);
                if (fd < 0) {
                        saved = errno;
                        continue;
                }
                if (connect(fd, a->ai_addr, a->ai_addrlen) == 0)
                        break;
                if (errno == EINPROGRESS) {
                        struct pollfd p = { .fd = fd, .events = POLLOUT };
                        for (;;) {
                                uint64_t now = clock_mono_ms();
                                if (now >= deadline) {
                                        saved = ETIME;
                                        break;
                                }
                                r = poll(&p, 1, (int) (deadline - now));
                                if (r < 0 && errno == EINTR)
                                        continue;
                                if (r <= 0) {
                                        saved = r == 0 ? ETIME : errno;
                                        break;
                                }
                                int soerr = 0;
                                socklen_t len = sizeof(soerr);
                                if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &soerr, &len) < 0)
                                        soerr = errno;
                                saved = soerr;
                                break;
                        }
                        if (saved == 0)
                                break;
                } else
                        saved = errno;
                close(fd);
                fd = -1;
        }
        freeaddrinfo(ai);
        if (fd < 0) {
                if (saved == ETIME)
                        return error_set(err, ETIME, "cannot connect to host '%s' (%s port %u): timed out",
                                         s->host_name, s->address, s->port);
                return error_set(err, saved, "cannot connect to host '%s' (%s port %u): %s",
                                 s->host_name, s->address, s->port, strerror(saved));
        }
        int one = 1;
        (void) setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
        s->fd = fd;
        return 0;
}

static void session_teardown(SshSession *s) {
        s->ready = false;
        if (s->session) {
                /* Best effort, bounded: a dead peer must not hang the close. */
                uint64_t deadline = clock_mono_ms() + 500;
                while (libssh2_session_disconnect(s->session, "bye") == LIBSSH2_ERROR_EAGAIN)
                        if (ssh_wait(s, deadline) < 0)
                                break;
                libssh2_session_free(s->session);
                s->session = NULL;
        }
        if (s->fd >= 0) {
                close(s->fd);
                s->fd = -1;
        }
}

static int handshake(SshSession *s, uint64_t deadline, Error *err) {
        s->session = libssh2_session_init();
        if (!s->session)
                return error_set(err, ENOMEM, "cannot create ssh session for host '%s'", s->host_name);
        libssh2_session_set_blocking(s->session, 0);
        libssh2_session_flag(s->session, LIBSSH2_FLAG_COMPRESS, 0);
        (void) libssh2_session_method_pref(s->session, LIBSSH2_METHOD_KEX, kex_pref);
        (void) libssh2_session_method_pref(s->session, LIBSSH2_METHOD_HOSTKEY, hostkey_pref);
        (void) libssh2_session_method_pref(s->session, LIBSSH2_METHOD_CRYPT_CS, cipher_pref);
        (void) libssh2_session_method_pref(s->session, LIBSSH2_METHOD_CRYPT_SC, cipher_pref);
        (void) libssh2_session_method_pref(s->session, LIBSSH2_METHOD_MAC_CS, mac_pref);
        (void) libssh2_session_method_pref(s->session, LIBSSH2_METHOD_MAC_SC, mac_pref);
        libssh2_keepalive_config(s->session, 1, SSH_KEEPALIVE_SEC);

        int r;
        while ((r = libssh2_session_handshake(s->session, s->fd)) == LIBSSH2_ERROR_EAGAIN)
                if (ssh_wait(s, deadline) < 0)
                        return error_set(err, ETIME, "ssh handshake with host '%s' (%s) timed out",
                                         s->host_name, s->address);
        if (r == 0)
                return 0;
        /* sshd under MaxStartups pressure accepts and drops the connection: that shows up
         * here as a reset during the banner or key exchange, worth a retry. */
        bool reset = r == LIBSSH2_ERROR_SOCKET_DISCONNECT || r == LIBSSH2_ERROR_SOCKET_RECV ||
                     r == LIBSSH2_ERROR_BANNER_RECV || r == LIBSSH2_ERROR_SOCKET_SEND ||
                     r == LIBSSH2_ERROR_KEX_FAILURE;
        return error_set(err, reset ? ECONNRESET : EPROTO, "ssh handshake with host '%s' (%s) failed: %s",
                         s->host_name, s->address, last_error(s));
}

static void base64_nopad(const unsigned char *in, size_t n, char *out, size_t out_size) {
        static const char tbl[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
        size_t o = 0;
        for (size_t i = 0; i < n && o + 5 < out_size; i += 3) {
                uint32_t v = (uint32_t) in[i] << 16;
                if (i + 1 < n)
                        v |= (uint32_t) in[i + 1] << 8;
                if (i + 2 < n)
                        v |= in[i + 2];
                out[o++] = tbl[(v >> 18) & 63];
                out[o++] = tbl[(v >> 12) & 63];
                if (i + 1 < n)
                        out[o++] = tbl[(v >> 6) & 63];
                if (i + 2 < n)
                        out[o++] = tbl[v & 63];
        }
        out[o] = 0;
}

static const char *hostkey_type_name(int type, int *ret_knownhost_bit) {
        switch (type) {
        case LIBSSH2_HOSTKEY_TYPE_RSA:
                *ret_knownhost_bit = LIBSSH2_KNOWNHOST_KEY_SSHRSA;
                return "RSA";
        case LIBSSH2_HOSTKEY_TYPE_DSS:
                *ret_knownhost_bit = LIBSSH2_KNOWNHOST_KEY_SSHDSS;
                return "DSA";
        case LIBSSH2_HOSTKEY_TYPE_ECDSA_256:
                *ret_knownhost_bit = LIBSSH2_KNOWNHOST_KEY_ECDSA_256;
                return "ECDSA";
        case LIBSSH2_HOSTKEY_TYPE_ECDSA_384:
                *ret_knownhost_bit = LIBSSH2_KNOWNHOST_KEY_ECDSA_384;
                return "ECDSA";
        case LIBSSH2_HOSTKEY_TYPE_ECDSA_521:
                *ret_knownhost_bit = LIBSSH2_KNOWNHOST_KEY_ECDSA_521;
                return "ECDSA";
        case LIBSSH2_HOSTKEY_TYPE_ED25519:
                *ret_knownhost_bit = LIBSSH2_KNOWNHOST_KEY_ED25519;
                return "ED25519";
        default:
                *ret_knownhost_bit = LIBSSH2_KNOWNHOST_KEY_UNKNOWN;
                return "unknown";
        }
}

/* "~/x" → "$HOME/x"; other paths copied. */
static char *expand_home(const char *p) {
        if (!p)
                return NULL;
        if (p[0] == '~' && (p[1] == '/' || p[1] == 0)) {
                const char *home = getenv("HOME");
                return strprintf("%s%s", home ? home : "/root", p + 1);
        }
        return strdup(p);
}

/* known_hosts is read and appended under one lock: several hosts may record their keys
 * at once (accept-new with fan-out), also from other processes (flock). */
static pthread_mutex_t known_hosts_lock = PTHREAD_MUTEX_INITIALIZER;

static int append_known_host(SshSession *s, LIBSSH2_KNOWNHOSTS *kh, const char *path, const char *key,
                             size_t key_len, int keybit, Error *err) {
        char hostfmt[300];
        if (s->port == 22)
                snprintf(hostfmt, sizeof(hostfmt), "%s", s->address);
        else
                snprintf(hostfmt, sizeof(hostfmt), "[%s]:%u", s->address, s->port);

        struct libssh2_knownhost *entry = NULL;
        if (libssh2_knownhost_addc(kh, hostfmt, NULL, key, key_len, NULL, 0,
                                   LIBSSH2_KNOWNHOST_TYPE_PLAIN | LIBSSH2_KNOWNHOST_KEYENC_RAW | keybit,
                                   &entry) != 0)
                return error_set(err, EIO, "cannot record host key of '%s': %s", s->host_name, last_error(s));
        char line[8192];
        size_t len = 0;
        if (libssh2_knownhost_writeline(kh, entry, line, sizeof(line), &len, LIBSSH2_KNOWNHOST_FILE_OPENSSH) != 0)
                return error_set(err, EIO, "cannot format host key of '%s': %s", s->host_name, last_error(s));

        _cleanup_(closep) int fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600);
        if (fd < 0)
                return error_set(err, errno, "cannot record host key of '%s' in '%s': %s", s->host_name, path,
                                 strerror(errno));
        (void) flock(fd, LOCK_EX);
        if (write(fd, line, len) != (ssize_t) len)
                return error_set(err, EIO, "cannot record host key of '%s' in '%s': short write", s->host_name, path);
        return 0;
}

static int check_host_key(SshSession *s, const SshOptions *o, Error *err) {
        size_t key_len = 0;
        int type = 0;
        const char *key = libssh2_session_hostkey(s->session, &key_len, &type);
        if (!key)
                return error_set(err, EPROTO, "host '%s' sent no host key", s->host_name);

        int keybit;
        const char *tname = hostkey_type_name(type, &keybit);
        char fp[64] = "?";
        const unsigned char *hash = (const unsigned char *) libssh2_hostkey_hash(s->session, LIBSSH2_HOSTKEY_HASH_SHA256);
        if (hash)
                base64_nopad(hash, 32, fp, sizeof(fp));

        _cleanup_(freep) char *path = expand_home(o->known_hosts ? o->known_hosts : "~/.ssh/known_hosts");
        if (!path)
                return error_set(err, ENOMEM, "out of memory");

        LIBSSH2_KNOWNHOSTS *kh = libssh2_knownhost_init(s->session);
        if (!kh)
                return error_set(err, ENOMEM, "cannot check host key of '%s': %s", s->host_name, last_error(s));

        int r = 0;
        pthread_mutex_lock(&known_hosts_lock);
        if (access(path, F_OK) == 0 &&
            libssh2_knownhost_readfile(kh, path, LIBSSH2_KNOWNHOST_FILE_OPENSSH) < 0) {
                r = error_set(err, EINVAL, "cannot read known_hosts '%s': %s", path, last_error(s));
                goto finish;
        }

        struct libssh2_knownhost *found = NULL;
        int c = libssh2_knownhost_checkp(kh, s->address, (int) s->port, key, key_len,
                                         LIBSSH2_KNOWNHOST_TYPE_PLAIN | LIBSSH2_KNOWNHOST_KEYENC_RAW | keybit,
                                         &found);
        switch (c) {
        case LIBSSH2_KNOWNHOST_CHECK_MATCH:
                break;
        case LIBSSH2_KNOWNHOST_CHECK_MISMATCH:
                r = error_set(err, EKEYREJECTED,
                              "host key of '%s' (%s) does not match '%s': the host sent %s key SHA256:%s; "
                              "refusing to connect (if the host was reinstalled, remove its old entry)",
                              s->host_name, s->address, path, tname, fp);
                break;
        case LIBSSH2_KNOWNHOST_CHECK_NOTFOUND:
                if (o->host_key_policy == HOST_KEY_ACCEPT_NEW) {
                        r = append_known_host(s, kh, path, key, key_len, keybit, err);
                        break;
                }
                r = error_set(err, ENOKEY,
                              "host '%s' (%s) is not in '%s' (it sent %s key SHA256:%s); refusing with "
                              "host_key_checking strict (add the key, or use accept-new)",
                              s->host_name, s->address, path, tname, fp);
                break;
        default:
                r = error_set(err, EIO, "cannot check host key of '%s': %s", s->host_name, last_error(s));
        }
finish:
        pthread_mutex_unlock(&known_hosts_lock);
        libssh2_knownhost_free(kh);
        return r;
}

/* Whether the key in `path` is an RSA key (from its .pub, or a PEM RSA header). */
static bool identity_is_rsa(const char *path) {
        char buf[64] = "";
        _cleanup_(freep) char *pub = strprintf("%s.pub", path);
        FILE *f = pub ? fopen(pub, "re") : NULL;
        if (f) {
                size_t n = fread(buf, 1, sizeof(buf) - 1, f);
                buf[n] = 0;
                fclose(f);
                return startswith(buf, "ssh-rsa ");
        }
        f = fopen(path, "re");
        if (!f)
                return false;
        size_t n = fread(buf, 1, sizeof(buf) - 1, f);
        buf[n] = 0;
        fclose(f);
        return startswith(buf, "-----BEGIN RSA PRIVATE KEY");
}

static int auth_with_file(SshSession *s, const char *user, const char *path, uint64_t deadline, Error *err) {
        if (access(path, R_OK) < 0)
                return error_set(err, errno, "cannot read identity '%s' for host '%s': %s", path, s->host_name,
                                 strerror(errno));
        int r;
        while ((r = libssh2_userauth_publickey_fromfile_ex(s->session, user, (unsigned) strlen(user), NULL, path,
                                                           NULL)) == LIBSSH2_ERROR_EAGAIN)
                if (ssh_wait(s, deadline) < 0)
                        return error_set(err, ETIME, "authentication on host '%s' timed out", s->host_name);
        if (r == 0)
                return 0;
        if (identity_is_rsa(path))
                return error_set(err, EKEYREJECTED,
                                 "authentication as '%s' on host '%s' with RSA key '%s' failed: RSA keys do not "
                                 "work with libssh2 1.10 against OpenSSH >= 8.8 (libssh2 signs with ssh-rsa/SHA-1 "
                                 "only); use an ed25519 or ECDSA key",
                                 user, s->host_name, path);
        return error_set(err, EACCES, "authentication as '%s' on host '%s' with key '%s' failed: %s", user,
                         s->host_name, path, last_error(s));
}

static int auth_with_agent(SshSession *s, const char *user, uint64_t deadline) {
        if (!getenv("SSH_AUTH_SOCK"))
                return -ENOENT;
        LIBSSH2_AGENT *a = libssh2_agent_init(s->session);
        if (!a)
                return -ENOMEM;
        int r = -EACCES;
        if (libssh2_agent_connect(a) != 0 || libssh2_agent_list_identities(a) != 0)
                goto finish;
        struct libssh2_agent_publickey *id = NULL, *prev = NULL;
        while (libssh2_agent_get_identity(a, &id, prev) == 0) {
                int q;
                while ((q = libssh2_agent_userauth(a, user, id)) == LIBSSH2_ERROR_EAGAIN)
                        if (ssh_wait(s, deadline) < 0) {
                                r = -ETIME;
                                goto finish;
                        }
                if (q == 0) {
                        r = 0;
                        break;
                }
                prev = id;
        }
finish:
        libssh2_agent_disconnect(a);
        libssh2_agent_free(a);
        return r;
}

static int authenticate(SshSession *s, const SshOptions *o, uint64_t deadline, Error *err) {
        const char *user = o->user ? o->user : "root";
        if (o->identity) {
                _cleanup_(freep) char *path = expand_home(o->identity);
                if (!path)
                        return error_set(err, ENOMEM, "out of memory");
                return auth_with_file(s, user, path, deadline, err);
        }

        int r = auth_with_agent(s, user, deadline);
        if (r == 0)
                return 0;
        if (r == -ETIME)
                return error_set(err, ETIME, "authentication on host '%s' timed out", s->host_name);

        static const char *const defaults[] = { "~/.ssh/id_ed25519", "~/.ssh/id_ecdsa" };
        for (size_t i = 0; i < ELEMENTSOF(defaults); i++) {
                _cleanup_(freep) char *path = expand_home(defaults[i]);
                if (!path || access(path, R_OK) < 0)
                        continue;
                return auth_with_file(s, user, path, deadline, err);
        }
        return error_set(err, EACCES,
                         "no way to authenticate as '%s' on host '%s': no identity given, ssh-agent has no "
                         "accepted key and there is no ~/.ssh/id_ed25519 or ~/.ssh/id_ecdsa",
                         user, s->host_name);
}

SshSession *ssh_session_free(SshSession *s) {
        if (!s)
                return NULL;
        session_teardown(s);
        free(s->host_name);
        free(s->address);
        free(s);
        return NULL;
}

int ssh_session_open(const char *host_name, const char *address, const SshOptions *o, SshSession **ret,
                     Error *err) {
        _cleanup_(ssh_session_freep) SshSession *s = calloc(1, sizeof(SshSession));
        if (!s)
                return error_set(err, ENOMEM, "out of memory");
        s->fd = -1;
        s->host_name = strdup(host_name);
        s->address = strdup(address ? address : host_name);
        if (!s->host_name || !s->address)
                return error_set(err, ENOMEM, "out of memory");
        s->port = o->port ? o->port : 22;

        unsigned timeout = o->connect_timeout_sec ? o->connect_timeout_sec : SSH_CONNECT_TIMEOUT_DEFAULT;
        uint64_t deadline = deadline_after(timeout);
        unsigned backoff = 50 + (unsigned) (rand() % 50);
        int r;
        for (unsigned attempt = 1;; attempt++) {
                Error e = {};
                r = tcp_connect_once(s, deadline, &e);
                if (r == 0)
                        r = handshake(s, deadline, &e);
                if (r == 0)
                        break;
                session_teardown(s);
                /* Refused: sshd may be restarting, try a few times. Reset: sshd drops
                 * connections under MaxStartups pressure, try harder. Both with backoff. */
                bool retry = (r == -ECONNREFUSED && attempt < 4) || (r == -ECONNRESET && attempt < 10);
                if (!retry || clock_mono_ms() + backoff >= deadline) {
                        if (attempt > 1)
                                return error_set(err, e.code, "%s (after %u attempts)", e.message, attempt);
                        return error_set(err, e.code, "%s", e.message);
                }
                log_debug("host '%s': attempt %u failed (%s), retrying in %u ms", s->host_name, attempt,
                          e.message, backoff);
                usleep(backoff * 1000);
                backoff = MIN(backoff * 2, 2000u) + (unsigned) (rand() % 50);
        }

        r = check_host_key(s, o, err);
        if (r < 0)
                return r;
        r = authenticate(s, o, deadline, err);
        if (r < 0)
                return r;
        s->ready = true;
        *ret = TAKE_PTR(s);
        return 0;
}

static int open_channel(SshSession *s, const char *command, uint64_t deadline, LIBSSH2_CHANNEL **ret, Error *err) {
        LIBSSH2_CHANNEL *ch;
        while (!(ch = libssh2_channel_open_session(s->session))) {
                if (last_errno(s) != LIBSSH2_ERROR_EAGAIN)
                        return error_set(err, EIO, "cannot open a channel to host '%s': %s", s->host_name,
                                         last_error(s));
                if (ssh_wait(s, deadline) < 0)
                        return error_set(err, ETIME, "opening a channel to host '%s' timed out", s->host_name);
        }
        int r;
        while ((r = libssh2_channel_exec(ch, command)) == LIBSSH2_ERROR_EAGAIN)
                if (ssh_wait(s, deadline) < 0) {
                        libssh2_channel_free(ch);
                        return error_set(err, ETIME, "starting a command on host '%s' timed out", s->host_name);
                }
        if (r < 0) {
                libssh2_channel_free(ch);
                return error_set(err, EIO, "cannot start a command on host '%s': %s", s->host_name, last_error(s));
        }
        *ret = ch;
        return 0;
}

/* Close and free a channel within a short grace period; a peer that does not answer
 * does not hold us. */
static void close_channel(SshSession *s, LIBSSH2_CHANNEL *ch, bool wait_closed, unsigned grace_ms) {
        uint64_t deadline = clock_mono_ms() + grace_ms;
        while (libssh2_channel_close(ch) == LIBSSH2_ERROR_EAGAIN)
                if (ssh_wait(s, deadline) < 0)
                        break;
        if (wait_closed)
                while (libssh2_channel_wait_closed(ch) == LIBSSH2_ERROR_EAGAIN)
                        if (ssh_wait(s, deadline) < 0)
                                break;
        while (libssh2_channel_free(ch) == LIBSSH2_ERROR_EAGAIN)
                if (ssh_wait(s, deadline) < 0)
                        break;
}

static int buf_append(char **buf, size_t *size, size_t *alloc, const char *data, size_t n) {
        if (*size + n + 1 > *alloc) {
                size_t a = MAX(*alloc * 2, *size + n + 1);
                a = MAX(a, (size_t) 4096);
                char *p = realloc(*buf, a);
                if (!p)
                        return -ENOMEM;
                *buf = p;
                *alloc = a;
        }
        memcpy(*buf + *size, data, n);
        *size += n;
        (*buf)[*size] = 0;
        return 0;
}

int ssh_session_exec(SshSession *s, const char *command, const char *stdin_data, size_t stdin_size,
                     unsigned timeout_sec, TransportExecResult *ret, Error *err) {
        uint64_t deadline = deadline_after(timeout_sec);
        LIBSSH2_CHANNEL *ch = NULL;
        int r = open_channel(s, command, deadline, &ch, err);
        if (r < 0)
                return r;

        _cleanup_(freep) char *out = NULL, *errbuf = NULL, *exit_signal = NULL;
        size_t out_size = 0, out_alloc = 0, err_size = 0, err_alloc = 0, in_off = 0;
        bool in_done = !stdin_data || stdin_size == 0, eof_sent = false;
        char buf[32768];

        for (;;) {
                bool progress = false;
                if (clock_mono_ms() >= deadline) {
                        r = error_set(err, ETIME, "command on host '%s' timed out after %u s", s->host_name, timeout_sec);
                        goto fail;
                }
                if (!in_done) {
                        ssize_t n = libssh2_channel_write(ch, stdin_data + in_off, MIN(stdin_size - in_off, sizeof(buf)));
                        if (n > 0) {
                                in_off += (size_t) n;
                                progress = true;
                        } else if (n != LIBSSH2_ERROR_EAGAIN)
                                in_done = true; /* the command closed its stdin: fine */
                        if (in_off >= stdin_size)
                                in_done = true;
                }
                if (in_done && !eof_sent) {
                        int q = libssh2_channel_send_eof(ch);
                        if (q != LIBSSH2_ERROR_EAGAIN) {
                                eof_sent = true;
                                progress = true;
                        }
                }
                ssize_t n = libssh2_channel_read(ch, buf, sizeof(buf));
                if (n > 0) {
                        if (out_size + (size_t) n > SSH_OUTPUT_MAX || buf_append(&out, &out_size, &out_alloc, buf, (size_t) n) < 0) {
                                r = error_set(err, ENOBUFS, "output of command on host '%s' too large", s->host_name);
                                goto fail;
                        }
                        progress = true;
                } else if (n < 0 && n != LIBSSH2_ERROR_EAGAIN) {
                        r = error_set(err, EIO, "cannot read from host '%s': %s", s->host_name, last_error(s));
                        goto fail;
                }
                n = libssh2_channel_read_stderr(ch, buf, sizeof(buf));
                if (n > 0) {
                        if (err_size + (size_t) n > SSH_OUTPUT_MAX || buf_append(&errbuf, &err_size, &err_alloc, buf, (size_t) n) < 0) {
                                r = error_set(err, ENOBUFS, "error output of command on host '%s' too large", s->host_name);
                                goto fail;
                        }
                        progress = true;
                } else if (n < 0 && n != LIBSSH2_ERROR_EAGAIN) {
                        r = error_set(err, EIO, "cannot read from host '%s': %s", s->host_name, last_error(s));
                        goto fail;
                }
                if (!progress && libssh2_channel_eof(ch))
                        break;
                if (!progress && ssh_wait(s, deadline) == -ETIME) {
                        r = error_set(err, ETIME, "command on host '%s' timed out after %u s", s->host_name, timeout_sec);
                        goto fail;
                }
        }

        /* Orderly close: wait for the exit status, then free. */
        uint64_t grace = clock_mono_ms() + SSH_CLOSE_GRACE_MS;
        while (libssh2_channel_close(ch) == LIBSSH2_ERROR_EAGAIN)
                if (ssh_wait(s, grace) < 0)
                        break;
        while (libssh2_channel_wait_closed(ch) == LIBSSH2_ERROR_EAGAIN)
                if (ssh_wait(s, grace) < 0)
                        break;
        int exit_status = libssh2_channel_get_exit_status(ch);
        char *sig = NULL;
        size_t sig_len = 0;
        if (libssh2_channel_get_exit_signal(ch, &sig, &sig_len, NULL, NULL, NULL, NULL) == 0 && sig) {
                exit_signal = strndup(sig, sig_len);
                exit_status = -1;
                libssh2_free(s->session, sig);
        }
        while (libssh2_channel_free(ch) == LIBSSH2_ERROR_EAGAIN)
                if (ssh_wait(s, grace) < 0)
                        break;

        if (!out && buf_append(&out, &out_size, &out_alloc, "", 0) < 0)
                return error_set(err, ENOMEM, "out of memory");
        if (!errbuf && buf_append(&errbuf, &err_size, &err_alloc, "", 0) < 0)
                return error_set(err, ENOMEM, "out of memory");
        ret->exit_status = exit_status;
        ret->exit_signal = TAKE_PTR(exit_signal);
        ret->out = TAKE_PTR(out);
        ret->out_size = out_size;
        ret->err = TAKE_PTR(errbuf);
        ret->err_size = err_size;
        return 0;
fail:
        close_channel(s, ch, false, 200); /* a timed out command does not answer */
        return r;
}

int ssh_session_upload(SshSession *s, const char *path, const void *data, size_t size, unsigned mode,
                       unsigned timeout_sec, Error *err) {
        uint64_t deadline = deadline_after(timeout_sec);
        /* An unpredictable name, created O_EXCL (SFTP's EXCL is O_CREAT|O_EXCL on the
         * host): nobody can plant a file or a symlink there in advance for us to write
         * through. Mode 0700 until it is complete and moved into place. */
        uint8_t rnd[12];
        if (getrandom(rnd, sizeof(rnd), 0) != (ssize_t) sizeof(rnd))
                return error_set(err, errno ? errno : EIO, "cannot get random bytes: %m");
        char hex[sizeof(rnd) * 2 + 1];
        for (size_t i = 0; i < sizeof(rnd); i++)
                snprintf(hex + 2 * i, 3, "%02x", rnd[i]);
        _cleanup_(freep) char *tmp = strprintf("%s.tmp-%s", path, hex);
        if (!tmp)
                return error_set(err, ENOMEM, "out of memory");

        LIBSSH2_SFTP *sftp;
        while (!(sftp = libssh2_sftp_init(s->session))) {
                if (last_errno(s) != LIBSSH2_ERROR_EAGAIN)
                        return error_set(err, EIO, "cannot start sftp on host '%s': %s", s->host_name, last_error(s));
                if (ssh_wait(s, deadline) < 0)
                        return error_set(err, ETIME, "starting sftp on host '%s' timed out", s->host_name);
        }

        int r = 0;
        bool created = false;
        LIBSSH2_SFTP_HANDLE *h;
        while (!(h = libssh2_sftp_open_ex(sftp, tmp, (unsigned) strlen(tmp),
                                          LIBSSH2_FXF_WRITE | LIBSSH2_FXF_CREAT | LIBSSH2_FXF_EXCL, 0700,
                                          LIBSSH2_SFTP_OPENFILE))) {
                if (last_errno(s) != LIBSSH2_ERROR_EAGAIN) {
                        r = error_set(err, EIO, "cannot create '%s' on host '%s': %s (sftp status %lu)", tmp,
                                      s->host_name, last_error(s), libssh2_sftp_last_error(sftp));
                        goto finish;
                }
                if (ssh_wait(s, deadline) < 0) {
                        r = error_set(err, ETIME, "creating '%s' on host '%s' timed out", tmp, s->host_name);
                        goto finish;
                }
        }
        created = true;

        size_t off = 0;
        while (off < size) {
                ssize_t n = libssh2_sftp_write(h, (const char *) data + off, MIN(size - off, (size_t) 256 * 1024));
                if (n > 0)
                        off += (size_t) n;
                else if (n == LIBSSH2_ERROR_EAGAIN) {
                        if (ssh_wait(s, deadline) < 0) {
                                r = error_set(err, ETIME, "writing '%s' on host '%s' timed out", tmp, s->host_name);
                                break;
                        }
                } else {
                        r = error_set(err, EIO, "cannot write '%s' on host '%s': %s", tmp, s->host_name, last_error(s));
                        break;
                }
        }
        if (r == 0) {
                int q;
                while ((q = libssh2_sftp_fsync(h)) == LIBSSH2_ERROR_EAGAIN)
                        if (ssh_wait(s, deadline) < 0)
                                break;
        }
        while (libssh2_sftp_close_handle(h) == LIBSSH2_ERROR_EAGAIN)
                if (ssh_wait(s, deadline) < 0)
                        break;

finish:
        if (r < 0 && created)
                while (libssh2_sftp_unlink_ex(sftp, tmp, (unsigned) strlen(tmp)) == LIBSSH2_ERROR_EAGAIN)
                        if (ssh_wait(s, deadline) < 0)
                                break;
        while (libssh2_sftp_shutdown(sftp) == LIBSSH2_ERROR_EAGAIN)
                if (ssh_wait(s, deadline) < 0)
                        break;
        if (r < 0)
                return r;

        /* SFTP's rename refuses an existing target; rename(2) via mv replaces it atomically
         * (-T: never into a directory of that name; a symlink there is replaced, not
         * followed). chmod explicitly: the sftp server applies its umask to the open mode. */
        char modestr[16];
        snprintf(modestr, sizeof(modestr), "%04o", mode);
        char *chmod_argv[] = { (char *) "chmod", modestr, tmp, NULL };
        char *mv_argv[] = { (char *) "mv", (char *) "-f", (char *) "-T", tmp, (char *) path, NULL };
        char *rm_argv[] = { (char *) "rm", (char *) "-f", tmp, NULL };
        _cleanup_(freep) char *q1 = transport_quote_argv(chmod_argv);
        _cleanup_(freep) char *q2 = transport_quote_argv(mv_argv);
        _cleanup_(freep) char *q3 = transport_quote_argv(rm_argv);
        _cleanup_(freep) char *cmd = q1 && q2 && q3 ? strprintf("%s && %s || { %s; exit 1; }", q1, q2, q3) : NULL;
        if (!cmd)
                return error_set(err, ENOMEM, "out of memory");
        TransportExecResult res = {};
        r = ssh_session_exec(s, cmd, NULL, 0, timeout_sec, &res, err);
        if (r < 0)
                return r;
        if (res.exit_status != 0) {
                r = error_set(err, EIO, "cannot move '%s' into place on host '%s': %s", path, s->host_name,
                              res.err && *res.err ? res.err : "failed");
        }
        transport_exec_result_done(&res);
        return r;
}

int ssh_session_spawn(SshSession *s, const char *command, unsigned timeout_sec, SshStream **ret, Error *err) {
        _cleanup_(freep) SshStream *st = calloc(1, sizeof(SshStream));
        if (!st)
                return error_set(err, ENOMEM, "out of memory");
        int r = open_channel(s, command, deadline_after(timeout_sec), &st->ch, err);
        if (r < 0)
                return r;
        st->s = s;
        *ret = TAKE_PTR(st);
        return 0;
}

int ssh_stream_write(SshStream *st, const char *data, size_t size, uint64_t deadline_ms, Error *err) {
        size_t off = 0;
        while (off < size) {
                ssize_t n = libssh2_channel_write(st->ch, data + off, size - off);
                if (n > 0)
                        off += (size_t) n;
                else if (n == LIBSSH2_ERROR_EAGAIN) {
                        if (ssh_wait(st->s, deadline_ms) < 0)
                                return error_set(err, ETIME, "writing to the agent on host '%s' timed out",
                                                 st->s->host_name);
                } else
                        return error_set(err, EPIPE, "cannot write to the agent on host '%s': %s", st->s->host_name,
                                         last_error(st->s));
        }
        return 0;
}

static void tail_append(SshStream *st, const char *data, size_t n) {
        if (n >= SSH_STDERR_TAIL) {
                data += n - SSH_STDERR_TAIL;
                n = SSH_STDERR_TAIL;
        }
        if (st->tail_size + n > SSH_STDERR_TAIL) {
                size_t drop = st->tail_size + n - SSH_STDERR_TAIL;
                memmove(st->tail, st->tail + drop, st->tail_size - drop);
                st->tail_size -= drop;
        }
        memcpy(st->tail + st->tail_size, data, n);
        st->tail_size += n;
        st->tail[st->tail_size] = 0;
}

int ssh_stream_read_line(SshStream *st, uint64_t deadline_ms, char **ret, Error *err) {
        char buf[32768];
        for (;;) {
                char *nl = st->buf_size ? memchr(st->buf, '\n', st->buf_size) : NULL;
                if (nl) {
                        size_t len = (size_t) (nl - st->buf);
                        char *line = strndup(st->buf, len);
                        if (!line)
                                return error_set(err, ENOMEM, "out of memory");
                        memmove(st->buf, nl + 1, st->buf_size - len - 1);
                        st->buf_size -= len + 1;
                        *ret = line;
                        return 0;
                }
                if (st->eof)
                        return error_set(err, EPIPE, "the agent on host '%s' exited", st->s->host_name);

                bool progress = false;
                ssize_t n = libssh2_channel_read(st->ch, buf, sizeof(buf));
                if (n > 0) {
                        if (st->buf_size + (size_t) n > SSH_OUTPUT_MAX ||
                            buf_append(&st->buf, &st->buf_size, &st->buf_alloc, buf, (size_t) n) < 0)
                                return error_set(err, ENOBUFS, "line from the agent on host '%s' too long",
                                                 st->s->host_name);
                        progress = true;
                } else if (n < 0 && n != LIBSSH2_ERROR_EAGAIN) {
                        st->broken = true;
                        return error_set(err, EIO, "cannot read from the agent on host '%s': %s", st->s->host_name,
                                         last_error(st->s));
                }
                n = libssh2_channel_read_stderr(st->ch, buf, sizeof(buf));
                if (n > 0) {
                        tail_append(st, buf, (size_t) n);
                        progress = true;
                }
                if (!progress && libssh2_channel_eof(st->ch)) {
                        st->eof = true;
                        continue;
                }
                if (!progress && ssh_wait(st->s, deadline_ms) == -ETIME) {
                        st->broken = true;
                        return error_set(err, ETIME, "no answer from the agent on host '%s' in time", st->s->host_name);
                }
        }
}

bool ssh_stream_is_broken(SshStream *st) {
        return st->broken || st->eof;
}

const char *ssh_stream_stderr_tail(SshStream *st) {
        return st->tail;
}

SshStream *ssh_stream_free(SshStream *st) {
        if (!st)
                return NULL;
        if (st->ch) {
                unsigned grace = st->broken ? 200 : SSH_CLOSE_GRACE_MS;
                uint64_t deadline = clock_mono_ms() + grace;
                while (libssh2_channel_send_eof(st->ch) == LIBSSH2_ERROR_EAGAIN)
                        if (ssh_wait(st->s, deadline) < 0)
                                break;
                close_channel(st->s, st->ch, !st->broken, grace);
        }
        free(st->buf);
        free(st);
        return NULL;
}
