/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "error.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

int error_setv(Error *err, int code, const char *fmt, va_list ap) {
        if (code < 0)
                code = -code;
        if (code == 0)
                code = EIO;
        if (err && err->code == 0) {
                err->code = code;
                vsnprintf(err->message, sizeof(err->message), fmt, ap);
        }
        return -code;
}

int error_set(Error *err, int code, const char *fmt, ...) {
        va_list ap;
        va_start(ap, fmt);
        int r = error_setv(err, code, fmt, ap);
        va_end(ap);
        return r;
}

int error_prefix(Error *err, int code, const char *fmt, ...) {
        if (code < 0)
                code = -code;
        if (code == 0)
                code = EIO;
        if (!err)
                return -code;

        char prefix[512];
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(prefix, sizeof(prefix), fmt, ap);
        va_end(ap);

        if (err->code == 0) {
                err->code = code;
                snprintf(err->message, sizeof(err->message), "%s", prefix);
                return -code;
        }

        /* "prefix: old", truncated to the buffer */
        char joined[sizeof(prefix) + 2 + sizeof(err->message)];
        size_t n = strlen(prefix);
        memcpy(joined, prefix, n);
        memcpy(joined + n, ": ", 2);
        memcpy(joined + n + 2, err->message, strlen(err->message) + 1);
        size_t total = strlen(joined);
        if (total >= sizeof(err->message))
                total = sizeof(err->message) - 1;
        memcpy(err->message, joined, total);
        err->message[total] = 0;
        return -err->code;
}

void error_reset(Error *err) {
        if (!err)
                return;
        err->code = 0;
        err->message[0] = 0;
}

const char *errno_name(int code) {
        if (code < 0)
                code = -code;
        switch (code) {
#define E(x) case x: return #x
        E(EPERM); E(ENOENT); E(ESRCH); E(EINTR); E(EIO); E(ENXIO); E(E2BIG); E(ENOEXEC);
        E(EBADF); E(ECHILD); E(EAGAIN); E(ENOMEM); E(EACCES); E(EFAULT); E(EBUSY);
        E(EEXIST); E(EXDEV); E(ENODEV); E(ENOTDIR); E(EISDIR); E(EINVAL); E(ENFILE);
        E(EMFILE); E(ENOTTY); E(EFBIG); E(ENOSPC); E(ESPIPE); E(EROFS); E(EPIPE);
        E(EDOM); E(ERANGE); E(EDEADLK); E(ENAMETOOLONG); E(ENOSYS); E(ENOTEMPTY);
        E(ELOOP); E(ENOMSG); E(ENODATA); E(ETIME); E(EPROTO); E(EBADMSG); E(EOVERFLOW);
        E(EILSEQ); E(EUSERS); E(ENOTSOCK); E(EPROTONOSUPPORT); E(EOPNOTSUPP);
        E(EADDRINUSE); E(ENETUNREACH); E(ECONNABORTED); E(ECONNRESET); E(ENOBUFS);
        E(EISCONN); E(ENOTCONN); E(ESHUTDOWN); E(ETIMEDOUT); E(ECONNREFUSED);
        E(EHOSTDOWN); E(EHOSTUNREACH); E(EALREADY); E(EINPROGRESS); E(ESTALE);
        E(EDQUOT); E(ECANCELED); E(EKEYREJECTED); E(ENOMEDIUM); E(EMEDIUMTYPE);
        E(EUCLEAN); E(ENOKEY); E(EKEYEXPIRED); E(ENOLCK); E(ENOTBLK); E(ENOTUNIQ);
#undef E
        default:
                return "EUNKNOWN";
        }
}
