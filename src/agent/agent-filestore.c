/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* FileStore OSDs in the inventory (docs/inventory.md, "osd"): the data partition from the
 * files of its mounted data directory, the journal partition from that directory's
 * `journal` link (or `journal_uuid`) and from the journal's own header; what an unmounted
 * "ceph data" partition suggests, marked unconfirmed. The formats are decoded by
 * src/ondisk (filestore.c); this file only reads the bytes and matches devices. */

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "agent-internal.h"

/* ceph-disk's GPT partition type of a FileStore (or ceph-disk BlueStore) data partition */
#define CEPH_DISK_DATA_TYPE "4fbd7e29-9d25-41b8-afd0-062c0ceff05d"

/* The small text file `dir`/`name`, or NULL: a regular file, not followed through a link,
 * at most 255 bytes read (what the OSD writes there is a line). */
static char *read_small_file(const char *dir, const char *name) {
        _cleanup_(freep) char *path = strprintf("%s/%s", dir, name);
        if (!path)
                return NULL;
        _cleanup_(closep) int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY);
        if (fd < 0)
                return NULL;
        struct stat st;
        if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode))
                return NULL;
        char buf[256];
        ssize_t n = read(fd, buf, sizeof(buf) - 1);
        if (n < 0)
                return NULL;
        buf[n] = 0;
        if (strlen(buf) != (size_t) n)
                return NULL; /* a NUL inside: not the text the OSD writes */
        return strdup(buf);
}

static void osd_set(InvOsd *o, int id, const char *osd_fsid, const char *cluster_fsid, const char *role,
                    bool unconfirmed) {
        free(o->osd_fsid);
        free(o->cluster_fsid);
        free(o->role);
        free(o->objectstore);
        *o = (InvOsd) {
                .id = id,
                .osd_fsid = osd_fsid ? strdup(osd_fsid) : NULL,
                .cluster_fsid = cluster_fsid ? strdup(cluster_fsid) : NULL,
                .role = strdup(role),
                .objectstore = strdup("filestore"),
                .unconfirmed = unconfirmed,
        };
}

static bool osd_is_set(const InvOsd *o) {
        return o->id >= 0 || o->osd_fsid || o->role || o->objectstore;
}

void filestore_probe_data(InvContent *c) {
        if (!c->mountpoint || osd_is_set(&c->osd))
                return;
        _cleanup_(freep) char *type = read_small_file(c->mountpoint, "type");
        if (!type)
                return;
        _cleanup_(freep) char *whoami = read_small_file(c->mountpoint, "whoami");
        _cleanup_(freep) char *fsid = read_small_file(c->mountpoint, "fsid");
        _cleanup_(freep) char *ceph_fsid = read_small_file(c->mountpoint, "ceph_fsid");
        FilestoreOsdDir d;
        Error err = {};
        int r = filestore_osd_dir_parse(c->mountpoint, type, whoami, fsid, ceph_fsid, &d, &err);
        if (r < 0)
                log_debug("'%s': not taken as an OSD: %s", c->mountpoint, err.message);
        if (r <= 0)
                return; /* a mount, and nothing more: the planner refuses it as in use */
        osd_set(&c->osd, d.id, d.osd_fsid, d.cluster_fsid, "data", false);
}

void filestore_probe_journal(int fd, uint64_t off, InvContent *c) {
        if (c->fstype || osd_is_set(&c->osd))
                return;
        uint8_t buf[FILESTORE_JOURNAL_HEADER_SIZE];
        if (read_exact_at(fd, buf, sizeof(buf), off) < 0)
                return;
        FilestoreJournalHeader h;
        if (filestore_journal_header_decode(buf, sizeof(buf), &h) != 1)
                return;
        /* which OSD (id, cluster) only its data directory can say: filestore_link_journals() */
        osd_set(&c->osd, -1, h.fsid, NULL, "journal", true);
}

void filestore_hint_data(InvPartition *p) {
        if (p->content.mountpoint || !p->content.fstype || osd_is_set(&p->content.osd) || !p->type_guid ||
            !streq(p->type_guid, CEPH_DISK_DATA_TYPE) || !p->partuuid)
                return;
        char lower[37];
        if (strlen(p->partuuid) != 36)
                return;
        for (size_t i = 0; i <= 36; i++)
                lower[i] = (char) (p->partuuid[i] >= 'A' && p->partuuid[i] <= 'F' ? p->partuuid[i] - 'A' + 'a'
                                                                                  : p->partuuid[i]);
        osd_set(&p->content.osd, -1, lower, NULL, "data", true);
}

/* Every content of the inventory: whole devices and partitions, with their node. */
typedef struct ContentRef {
        InvContent *content;
        const char *node;
        const char *partuuid;
} ContentRef;

static size_t content_refs(Inventory *inv, ContentRef **ret) {
        size_t n = 0;
        for (size_t i = 0; i < inv->n_devices; i++)
                n += 1 + inv->devices[i].n_partitions;
        ContentRef *refs = calloc(n ? n : 1, sizeof(ContentRef));
        if (!refs)
                return 0;
        size_t k = 0;
        for (size_t i = 0; i < inv->n_devices; i++) {
                InvDevice *d = &inv->devices[i];
                refs[k++] = (ContentRef) { &d->content, d->path, NULL };
                for (size_t j = 0; j < d->n_partitions; j++)
                        refs[k++] = (ContentRef) { &d->partitions[j].content, d->partitions[j].node,
                                                   d->partitions[j].partuuid };
        }
        *ret = refs;
        return k;
}

static bool node_is(const char *node, dev_t rdev) {
        struct stat st;
        return node && stat(node, &st) >= 0 && S_ISBLK(st.st_mode) && st.st_rdev == rdev;
}

/* The journal of the FileStore OSD whose data directory is `dir`: the block device its
 * `journal` link resolves to, else the partition whose PARTUUID is its `journal_uuid`.
 * Returns 1 with *ret set (NULL: a device that is not in the inventory), 0 when the
 * journal is a file in the directory, -ENOENT when neither names one. */
static int journal_of(const char *dir, ContentRef *refs, size_t n, InvContent **ret) {
        *ret = NULL;
        _cleanup_(freep) char *link = strprintf("%s/journal", dir);
        struct stat st;
        if (link && stat(link, &st) >= 0) {
                if (S_ISREG(st.st_mode))
                        return 0;
                if (S_ISBLK(st.st_mode)) {
                        for (size_t i = 0; i < n; i++)
                                if (node_is(refs[i].node, st.st_rdev))
                                        *ret = refs[i].content;
                        return 1;
                }
        }
        _cleanup_(freep) char *juuid = read_small_file(dir, "journal_uuid");
        if (!juuid)
                return -ENOENT;
        size_t len = strlen(juuid);
        while (len > 0 && (juuid[len - 1] == '\n' || juuid[len - 1] == ' '))
                juuid[--len] = 0;
        for (size_t i = 0; i < n; i++)
                if (refs[i].partuuid && strcasecmp(refs[i].partuuid, juuid) == 0) {
                        *ret = refs[i].content;
                        return 1;
                }
        return -ENOENT;
}

/* A journal whose own header names the OSD fsid `fsid` (unconfirmed, no id yet), when there
 * is exactly one. */
static InvContent *journal_by_header(const char *fsid, ContentRef *refs, size_t n) {
        InvContent *found = NULL;
        for (size_t i = 0; i < n; i++) {
                const InvOsd *o = &refs[i].content->osd;
                if (o->unconfirmed && o->id < 0 && streq_ptr(o->role, "journal") && streq_ptr(o->osd_fsid, fsid)) {
                        if (found)
                                return NULL; /* two copies of one journal: neither is proven */
                        found = refs[i].content;
                }
        }
        return found;
}

void filestore_link_journals(Inventory *inv) {
        _cleanup_(freep) ContentRef *refs = NULL;
        size_t n = content_refs(inv, &refs);
        for (size_t i = 0; i < n; i++) {
                const InvContent *c = refs[i].content;
                const InvOsd *o = &c->osd;
                if (o->id < 0 || o->unconfirmed || !c->mountpoint || !streq_ptr(o->role, "data") ||
                    !streq_ptr(o->objectstore, "filestore"))
                        continue;
                InvContent *j = NULL;
                int r = journal_of(c->mountpoint, refs, n, &j);
                /* the directory names no journal (no link, no journal_uuid; a by-partuuid link
                 * that does not resolve here): the journal whose header is this OSD's, as
                 * FileJournal itself accepts a journal by its fsid */
                if (r == -ENOENT)
                        j = journal_by_header(o->osd_fsid, refs, n);
                if (!j || j == refs[i].content || j->fstype)
                        continue;
                /* what the journal says of itself must not contradict the link: a header of
                 * another OSD (or a BlueStore label) means the link is stale, and the OSD
                 * would refuse that journal too */
                if (osd_is_set(&j->osd) && !(j->osd.unconfirmed && streq_ptr(j->osd.role, "journal") &&
                                             j->osd.osd_fsid && streq(j->osd.osd_fsid, o->osd_fsid)))
                        continue;
                osd_set(&j->osd, o->id, o->osd_fsid, o->cluster_fsid, "journal", false);
        }
}
