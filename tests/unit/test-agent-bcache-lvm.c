/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Which volume group on a bcache device bcache-teardown may remove (issue 28, item 5): the
 * one `ceph-volume lvm create` made for an OSD on /dev/bcacheN — its only PV that device,
 * every LV tagged as an OSD's — and no other. The outputs are as `lvm pvs --noheadings -o
 * pv_name --select vg_name=VG` and `lvm lvs --noheadings -o lv_tags VG` print them (leading
 * blanks, one item a line), captured on the uml guest. */

#include <errno.h>

#include "agent/agent-internal.h"
#include "basic/strv.h"
#include "test.h"

#define TAGS "  ceph.block_device=/dev/ceph-4e1c/osd-block-9a2f,ceph.block_uuid=x,ceph.cephx_lockbox_secret=," \
             "ceph.cluster_fsid=5881fcfd,ceph.cluster_name=ceph,ceph.crush_device_class=hdd,ceph.db_device=/dev/ubdb5," \
             "ceph.osd_fsid=9a2f,ceph.osd_id=3,ceph.type=block,ceph.vdo=0\n"

static void test_osd_vg_removable(void) {
        Error err = {};
        CHECK_INTEQ(bcache_lvm_check_osd_vg("  /dev/bcache0\n", TAGS, "/dev/bcache0", &err), 0);
        CHECK_INTEQ(err.code, 0);
}

static void test_other_pv_refused(void) {
        Error err = {};
        /* the VG spans bcache0 and a disk: not ceph-volume's one-PV VG */
        CHECK_INTEQ(bcache_lvm_check_osd_vg("  /dev/bcache0\n  /dev/sdz\n", TAGS, "/dev/bcache0", &err), -EBUSY);
        CHECK(strstr(err.message, "another physical volume (/dev/sdz)") != NULL);
        /* a name that only starts like ours is another PV */
        Error e2 = {};
        CHECK_INTEQ(bcache_lvm_check_osd_vg("  /dev/bcache10\n", TAGS, "/dev/bcache1", &e2), -EBUSY);
}

static void test_foreign_lv_refused(void) {
        Error err = {};
        /* a second LV without tags (a blank line): not only the OSD's */
        CHECK_INTEQ(bcache_lvm_check_osd_vg("  /dev/bcache0\n", TAGS "  \n", "/dev/bcache0", &err), -EBUSY);
        CHECK(strstr(err.message, "is no OSD's (no tags)") != NULL);
        Error e2 = {};
        CHECK_INTEQ(bcache_lvm_check_osd_vg("  /dev/bcache0\n", TAGS "  owner=backup\n", "/dev/bcache0", &e2), -EBUSY);
        CHECK(strstr(e2.message, "no OSD's (tags 'owner=backup')") != NULL);
        Error e3 = {};
        CHECK_INTEQ(bcache_lvm_check_osd_vg("  /dev/bcache0\n", "", "/dev/bcache0", &e3), -EBUSY);
        CHECK(strstr(e3.message, "holds no OSD's logical volume") != NULL);
}

static void test_no_pv_refused(void) {
        Error err = {};
        CHECK_INTEQ(bcache_lvm_check_osd_vg("", TAGS, "/dev/bcache0", &err), -EBUSY);
        CHECK(strstr(err.message, "no LVM physical volume") != NULL);
}

/* the boot units of the OSDs whose LVs go: one per LV with both tags, nothing made of
 * anything else (a unit name is what systemctl gets) */
static void test_volume_units(void) {
        _cleanup_strv_free_ char **one = bcache_lvm_volume_units(TAGS);
        CHECK(one && strv_length(one) == 1);
        CHECK_STREQ(one ? one[0] : NULL, "ceph-volume@lvm-3-9a2f");
        _cleanup_strv_free_ char **two = bcache_lvm_volume_units(
                "  ceph.osd_id=2,ceph.osd_fsid=6a420aa5-55d7-4fac-a582-e3ea01a8746f,ceph.type=block\n"
                "  ceph.type=db,ceph.osd_id=2,ceph.osd_fsid=6A420AA5-55d7-4fac-a582-e3ea01a8746f\n");
        CHECK(two && strv_length(two) == 2);
        CHECK_STREQ(two ? two[0] : NULL, "ceph-volume@lvm-2-6a420aa5-55d7-4fac-a582-e3ea01a8746f");
        static const char *const none[] = {
                "", "  \n", "  owner=backup\n", "  ceph.osd_id=3\n", "  ceph.osd_fsid=9a2f\n",
                "  ceph.osd_id=3x,ceph.osd_fsid=9a2f\n", "  ceph.osd_id=3,ceph.osd_fsid=9a2f;reboot\n",
                "  ceph.osd_id=,ceph.osd_fsid=9a2f\n", "  ceph.osd_id=3,ceph.osd_fsid=../x\n",
        };
        for (size_t i = 0; i < ELEMENTSOF(none); i++) {
                _cleanup_strv_free_ char **u = bcache_lvm_volume_units(none[i]);
                CHECK(u && strv_length(u) == 0);
        }
}

/* after osd.3 is made again: the boot units of earlier osd.3s among multi-user.target's
 * wants, not its current one (any case of its fsid), not another OSD's, nothing else */
static void test_stale_volume_units(void) {
        const char *wants = "ceph-osd@3.service ceph-volume@lvm-3-aaaa-bbbb.service\n"
                            "ceph-volume@lvm-3-9A2F.service ceph-volume@lvm-3-cc11.service\t"
                            "ceph-volume@lvm-31-dd22.service ceph-volume@lvm-4-ee33.service "
                            "ceph-volume@lvm-3-.service ceph-volume@lvm-3-x;y.service ceph-volume@lvm-3-ff44 "
                            "ceph-volume@simple-3-ab12.service ssh.service\n";
        _cleanup_strv_free_ char **u = osd_stale_volume_units(wants, 3, "9a2f");
        CHECK(u && strv_length(u) == 2);
        CHECK_STREQ(u && u[0] ? u[0] : NULL, "ceph-volume@lvm-3-aaaa-bbbb");
        CHECK_STREQ(u && u[0] && u[1] ? u[1] : NULL, "ceph-volume@lvm-3-cc11");
        _cleanup_strv_free_ char **none = osd_stale_volume_units("", 3, "9a2f");
        CHECK(none && strv_length(none) == 0);
        _cleanup_strv_free_ char **only = osd_stale_volume_units("ceph-volume@lvm-3-9a2f.service\n", 3, "9a2f");
        CHECK(only && strv_length(only) == 0);
}

int main(void) {
        TEST_RUN(test_osd_vg_removable);
        TEST_RUN(test_other_pv_refused);
        TEST_RUN(test_foreign_lv_refused);
        TEST_RUN(test_no_pv_refused);
        TEST_RUN(test_volume_units);
        TEST_RUN(test_stale_volume_units);
        return test_result();
}
