/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* FileStore: the journal header (FileJournal::header_t, src/os/filestore/FileJournal.h)
 * and the files of a FileStore OSD's data directory (see ondisk.h). */

#include <errno.h>
#include <stdbool.h>
#include <string.h>

#include "ondisk.h"

static uint32_t get32(const uint8_t *p) {
        return (uint32_t) p[0] | (uint32_t) p[1] << 8 | (uint32_t) p[2] << 16 | (uint32_t) p[3] << 24;
}

static uint64_t get64(const uint8_t *p) {
        return (uint64_t) get32(p) | (uint64_t) get32(p + 4) << 32;
}

static bool pow2_between(uint64_t x, uint64_t lo, uint64_t hi) {
        return x >= lo && x <= hi && (x & (x - 1)) == 0;
}

/* header_t's encoded part: flags, fsid, block_size, alignment, max_size, start (48 bytes),
 * then committed_up_to from v3 and start_seq from v4 */
#define JOURNAL_EM_V2 48u
#define JOURNAL_FLAG_CRC 1u

int filestore_journal_header_decode(const uint8_t *buf, size_t len, FilestoreJournalHeader *ret) {
        if (len < 8)
                return 0;
        uint32_t v = get32(buf), em_len = get32(buf + 4);
        if (v < 2 || v > 4)
                return 0;
        uint32_t want = JOURNAL_EM_V2 + (v > 2 ? 8 : 0) + (v > 3 ? 8 : 0);
        /* a newer encoder could append fields, never drop any; a block is its bound */
        if (em_len < want || em_len > FILESTORE_JOURNAL_HEADER_SIZE - 8 || len < 8 + (size_t) em_len)
                return 0;
        const uint8_t *em = buf + 8;
        uint64_t flags = get64(em);
        uint32_t block_size = get32(em + 24), alignment = get32(em + 28);
        uint64_t max_size = get64(em + 32), start = get64(em + 40);
        if ((flags & ~(uint64_t) JOURNAL_FLAG_CRC) != 0)
                return 0;
        if (!pow2_between(block_size, 512, 65536) || !pow2_between(alignment, 512, 65536))
                return 0;
        /* max_size and start are int64_t in header_t: negative is garbage */
        if (max_size > INT64_MAX || max_size <= block_size || start < block_size || start >= max_size)
                return 0;
        static const uint8_t zero[16];
        if (memcmp(em + 8, zero, 16) == 0)
                return 0;

        FilestoreJournalHeader h = {
                .version = v,
                .block_size = block_size,
                .alignment = alignment,
                .max_size = max_size,
                .start = start,
                .flags = flags,
        };
        uuid_to_string(em + 8, h.fsid);
        *ret = h;
        return 1;
}

/* `s` without trailing white space, as a length */
static size_t trimmed_len(const char *s) {
        size_t n = strlen(s);
        while (n > 0 && (s[n - 1] == '\n' || s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r'))
                n--;
        return n;
}

/* A textual UUID (36 characters, any case) followed only by white space → lowercase. */
static bool uuid_text(const char *s, char out[37]) {
        if (trimmed_len(s) != 36)
                return false;
        for (size_t i = 0; i < 36; i++) {
                char c = s[i];
                if (i == 8 || i == 13 || i == 18 || i == 23) {
                        if (c != '-')
                                return false;
                } else if (c >= '0' && c <= '9')
                        out[i] = c;
                else if (c >= 'a' && c <= 'f')
                        out[i] = c;
                else if (c >= 'A' && c <= 'F')
                        out[i] = (char) (c - 'A' + 'a');
                else
                        return false;
                out[i] = i == 8 || i == 13 || i == 18 || i == 23 ? '-' : out[i];
        }
        out[36] = 0;
        return true;
}

/* Decimal 0..INT32_MAX in the first n characters, no sign, no leading zero but "0". */
static int decimal_id(const char *s, size_t n) {
        if (n == 0 || n > 10 || (n > 1 && s[0] == '0'))
                return -1;
        int64_t x = 0;
        for (size_t i = 0; i < n; i++) {
                if (s[i] < '0' || s[i] > '9')
                        return -1;
                x = x * 10 + (s[i] - '0');
        }
        return x > INT32_MAX ? -1 : (int) x;
}

int filestore_osd_dir_parse(const char *dir, const char *type, const char *whoami, const char *fsid,
                            const char *ceph_fsid, FilestoreOsdDir *ret, Error *err) {
        if (!type)
                return 0;
        size_t tn = trimmed_len(type);
        if (tn != strlen("filestore") || strncmp(type, "filestore", tn) != 0)
                return 0;

        FilestoreOsdDir d = { .id = -1 };
        if (!whoami)
                return error_set(err, EBADMSG, "FileStore OSD directory without a 'whoami' file");
        d.id = decimal_id(whoami, trimmed_len(whoami));
        if (d.id < 0)
                return error_set(err, EBADMSG, "FileStore OSD directory: 'whoami' is not an OSD id");
        if (!fsid || !uuid_text(fsid, d.osd_fsid))
                return error_set(err, EBADMSG, "FileStore OSD directory: %s",
                                 fsid ? "'fsid' is not a UUID" : "no 'fsid' file");
        if (!ceph_fsid || !uuid_text(ceph_fsid, d.cluster_fsid))
                return error_set(err, EBADMSG, "FileStore OSD directory: %s",
                                 ceph_fsid ? "'ceph_fsid' is not a UUID" : "no 'ceph_fsid' file");

        /* the name: CLUSTER-ID, the last component of the path */
        size_t n = dir ? strlen(dir) : 0;
        while (n > 1 && dir[n - 1] == '/')
                n--;
        size_t b = n;
        while (b > 0 && dir[b - 1] != '/')
                b--;
        size_t dash = n;
        while (dash > b && dir[dash - 1] != '-')
                dash--;
        if (dash <= b + 1 || dash - 1 - b >= sizeof(d.cluster))
                return error_set(err, EBADMSG, "FileStore OSD directory: its name is not CLUSTER-ID");
        int id = decimal_id(dir + dash, n - dash);
        if (id != d.id)
                return error_set(err, EBADMSG, "FileStore OSD directory: its name says osd.%.*s, 'whoami' says osd.%d",
                                 (int) (n - dash), dir + dash, d.id);
        memcpy(d.cluster, dir + b, dash - 1 - b);
        d.cluster[dash - 1 - b] = 0;
        *ret = d;
        return 1;
}
