/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* ceph-volume argv builders and listing parsers. raw list outputs were captured on the
 * lab cluster (ceph-volume 16.2.15); lvm-list-constructed.json is built after
 * ceph_volume/devices/lvm/listing.py because this machine's kernel has no device-mapper
 * (see tests/data/ceph/README.md). */

#include <errno.h>

#include "basic/macro.h"
#include "basic/strv.h"
#include "ceph/ceph-volume.h"
#include "fixture.h"
#include "test.h"

#define LAB_FSID "5881fcfd-4408-49eb-8f72-3158a118d6ab"

static void test_raw_list(void) {
        Error err = {};
        _cleanup_(freep) char *s = fixture_ceph("ceph-volume-raw-list-node1.json");
        _cleanup_(ceph_volume_list_freep) CephVolumeList *l = NULL;
        CHECK_INTEQ(ceph_volume_raw_list_parse(s, &l, &err), 0);
        if (!l)
                return;

        /* every host sees every loop: the list has all 12 lab OSDs plus a BlueStore label
         * of another cluster on a loop device of someone else's test */
        CHECK_INTEQ(l->n_osds, 13);
        size_t ours = 0;
        for (size_t i = 0; i < l->n_osds; i++)
                if (str_eq(l->osds[i].ceph_fsid, LAB_FSID))
                        ours++;
        CHECK_INTEQ(ours, 12);

        const CephVolumeOsd *o = ceph_volume_list_find_osd(l, 0, LAB_FSID);
        CHECK(o != NULL);
        if (o) {
                CHECK_STREQ(o->device, "/dev/loop3");
                CHECK_STREQ(o->device_db, "/dev/loop5p1");
                CHECK(o->device_wal == NULL);
                CHECK_STREQ(o->osd_uuid, "c5386903-3a33-455a-8d8c-5e57f5a49a54");
                CHECK_STREQ(o->type, "bluestore");
                CHECK_INTEQ(o->source, CEPH_VOLUME_RAW);
        }
        /* a DB partition leads to its OSD */
        CHECK(ceph_volume_list_find_device(l, "/dev/loop5p1", LAB_FSID) == o);
        o = ceph_volume_list_find_device(l, "/dev/loop12", LAB_FSID);
        CHECK(o && o->osd_id == 6 && o->device_db == NULL);
        /* the foreign label is not ours */
        o = ceph_volume_list_find_osd(l, 7, NULL);
        CHECK(o != NULL);
        const CephVolumeOsd *o7 = ceph_volume_list_find_osd(l, 7, LAB_FSID);
        CHECK(o7 && str_eq(o7->device, "/dev/loop45"));
        CHECK(ceph_volume_list_find_device(l, "/dev/loop43", LAB_FSID) == NULL);
        CHECK(ceph_volume_list_find_device(l, "/dev/loop43", NULL) != NULL);
        CHECK(ceph_volume_list_find_device(l, "/dev/loop99", NULL) == NULL);
        l = ceph_volume_list_free(l);

        /* `raw list DEVICE` omits the device_db */
        _cleanup_(freep) char *one = fixture_ceph("ceph-volume-raw-list-device.json");
        CHECK_INTEQ(ceph_volume_raw_list_parse(one, &l, &err), 0);
        CHECK(l && l->n_osds == 1 && l->osds[0].osd_id == 0 && l->osds[0].device_db == NULL);
        l = ceph_volume_list_free(l);

        /* no LVM here: {} */
        _cleanup_(freep) char *empty = fixture_ceph("ceph-volume-lvm-list.out");
        CHECK_INTEQ(ceph_volume_lvm_list_parse(empty, &l, &err), 0);
        CHECK(l && l->n_osds == 0);

        Error e = {};
        CephVolumeList *bad = NULL;
        CHECK_INTEQ(ceph_volume_raw_list_parse("{\"x\":{\"device\":\"/dev/sdb\"}}", &bad, &e), -EINVAL);
        CHECK(bad == NULL && strstr(e.message, "osd_id"));
}

static void test_lvm_list(void) {
        Error err = {};
        _cleanup_(freep) char *s = fixture_ceph("lvm-list-constructed.json");
        _cleanup_(ceph_volume_list_freep) CephVolumeList *l = NULL;
        CHECK_INTEQ(ceph_volume_lvm_list_parse(s, &l, &err), 0);
        if (!l)
                return;
        CHECK_INTEQ(l->n_osds, 2);
        const CephVolumeOsd *o = ceph_volume_list_find_osd(l, 0, LAB_FSID);
        CHECK(o != NULL);
        if (o) {
                CHECK_STREQ(o->device, "/dev/sdc");
                CHECK_STREQ(o->device_db, "/dev/sdb5"); /* a plain partition */
                CHECK_STREQ(o->crush_device_class, "hdd");
                CHECK_STREQ(o->osd_uuid, "5a1b7c52-3f4e-4d8a-9b61-2c0e8f7d9a10");
                CHECK_STREQ(o->type, "bluestore");
                CHECK_INTEQ(o->source, CEPH_VOLUME_LVM);
                CHECK(o->lv_path && startswith(o->lv_path, "/dev/ceph-0f3a6e2b"));
        }
        o = ceph_volume_list_find_osd(l, 1, NULL);
        CHECK(o && str_eq(o->device, "/dev/sdd") && str_eq(o->device_db, "/dev/sdb6"));
        CHECK(o && o->crush_device_class == NULL); /* empty tag */
        CHECK(ceph_volume_list_find_device(l, "/dev/sdb6", LAB_FSID) == o);
        CHECK(ceph_volume_list_find_device(l, "/dev/sdb6", "00000000-0000-0000-0000-000000000000") == NULL);

        Error e = {};
        CephVolumeList *bad = NULL;
        CHECK_INTEQ(ceph_volume_lvm_list_parse("{\"x\":[]}", &bad, &e), -EINVAL);
        error_reset(&e);
        CHECK_INTEQ(ceph_volume_lvm_list_parse("{\"3\":[{\"type\":\"db\",\"path\":\"/dev/sdb1\"}]}", &bad, &e),
                    -EINVAL);
        CHECK(strstr(e.message, "no block") != NULL);
}

static void test_argv(void) {
        Error err = {};
        CephVolumePrepare p = { .data = "/dev/loop3", .db = "/dev/disk/by-partuuid/9c8b7a65", .osd_id = -1 };
        check_argv(ceph_volume_argv_raw_prepare(&p, &err),
                   "ceph-volume raw prepare --bluestore --data /dev/loop3 --block.db /dev/disk/by-partuuid/9c8b7a65");
        p = (CephVolumePrepare) { .data = "/dev/bcache0", .db = "/dev/sdb5", .wal = "/dev/sdb6", .osd_id = 4,
                                  .crush_device_class = "hdd" };
        check_argv(ceph_volume_argv_raw_prepare(&p, &err),
                   "ceph-volume raw prepare --bluestore --data /dev/bcache0 --block.db /dev/sdb5 "
                   "--block.wal /dev/sdb6 --crush-device-class hdd --osd-id 4");
        check_argv(ceph_volume_argv_lvm_create(&p, &err),
                   "ceph-volume lvm create --bluestore --data /dev/bcache0 --block.db /dev/sdb5 "
                   "--block.wal /dev/sdb6 --crush-device-class hdd --osd-id 4");
        p.dmcrypt = true;
        check_argv(ceph_volume_argv_lvm_create(&p, &err),
                   "ceph-volume lvm create --bluestore --data /dev/bcache0 --block.db /dev/sdb5 "
                   "--block.wal /dev/sdb6 --crush-device-class hdd --dmcrypt --osd-id 4");
        check_argv(ceph_volume_argv_raw_activate("/dev/loop3", "/dev/loop5p1", NULL, &err),
                   "ceph-volume raw activate --device /dev/loop3 --block.db /dev/loop5p1 --no-systemd");
        check_argv(ceph_volume_argv_raw_list(NULL, &err), "ceph-volume raw list --format json");
        check_argv(ceph_volume_argv_lvm_list("/dev/sdc", &err), "ceph-volume lvm list /dev/sdc --format json");
        check_argv(ceph_volume_argv_zap("/dev/sdc", true, &err), "ceph-volume lvm zap --destroy /dev/sdc");
        CHECK_INTEQ(err.code, 0);
        CHECK_STREQ(CEPH_VOLUME_ENV_ALLOW_LOOP, "CEPH_VOLUME_ALLOW_LOOP_DEVICES=1");

        Error e = {};
        p = (CephVolumePrepare) { .data = "sdc", .osd_id = -1 };
        CHECK(ceph_volume_argv_raw_prepare(&p, &e) == NULL);
        CHECK(e.code == EINVAL && strstr(e.message, "'sdc'"));
        error_reset(&e);
        p = (CephVolumePrepare) { .data = "/dev/sdc", .db = "/dev/sdc", .osd_id = -1 };
        CHECK(ceph_volume_argv_raw_prepare(&p, &e) == NULL);
        error_reset(&e);
        CHECK(ceph_volume_argv_lvm_create(&p, &e) == NULL);
        CHECK(strstr(e.message, "ceph-volume lvm create: data, block.db and block.wal must be different") != NULL);
        error_reset(&e);
        p = (CephVolumePrepare) { .data = "/dev/sdc", .db = "/dev/sd b", .osd_id = -1 };
        CHECK(ceph_volume_argv_raw_prepare(&p, &e) == NULL);
        error_reset(&e);
        p = (CephVolumePrepare) { .data = "/dev/sdc", .osd_id = -5 };
        CHECK(ceph_volume_argv_raw_prepare(&p, &e) == NULL);
        error_reset(&e);
        p = (CephVolumePrepare) { .data = "/dev/sdc", .osd_id = -1, .crush_device_class = "-x" };
        CHECK(ceph_volume_argv_raw_prepare(&p, &e) == NULL);
        error_reset(&e);
        CHECK(ceph_volume_argv_zap("/dev/../etc/passwd", false, &e) == NULL);
}

/* the lab's flake (ceph-volume 16.2.15, four labs on one kernel): another lab's loop
 * partition removed while ceph-volume read every /sys/block entry */
static void test_vanished_device(void) {
        const char *tb = "Traceback (most recent call last):\n"
                         "  File \"/usr/lib/python3/dist-packages/ceph_volume/util/disk.py\", line 881, in get_devices\n"
                         "FileNotFoundError: [Errno 2] No such file or directory: '/sys/block/loop9/loop9p2/partition'\n";
        CHECK(ceph_volume_failed_on_vanished_device("", tb, "/dev/loop2"));
        /* the device being prepared is the one gone: not a neighbour's flake */
        CHECK(!ceph_volume_failed_on_vanished_device("", tb, "/dev/loop9"));
        CHECK(!ceph_volume_failed_on_vanished_device("", tb, "/dev/loop9p2"));
        /* loop9 is not loop19 */
        CHECK(ceph_volume_failed_on_vanished_device("", tb, "/dev/loop19"));
        /* after `osd new`: the cluster was asked, never run again blindly */
        CHECK(!ceph_volume_failed_on_vanished_device(
                "Running command: /usr/bin/ceph --cluster ceph --name client.bootstrap-osd "
                "--keyring /var/lib/ceph/bootstrap-osd/ceph.keyring -i - osd new 0c7a...\n", tb, "/dev/loop2"));
        /* any other failure */
        CHECK(!ceph_volume_failed_on_vanished_device("", "--> RuntimeError: Device /dev/loop2 has a filesystem.\n",
                                                     "/dev/loop2"));
        CHECK(!ceph_volume_failed_on_vanished_device("", "FileNotFoundError: [Errno 2] No such file or directory: "
                                                         "'/var/lib/ceph/bootstrap-osd/ceph.keyring'\n", "/dev/loop2"));
        CHECK(!ceph_volume_failed_on_vanished_device(NULL, NULL, "/dev/loop2"));
}

int main(void) {
        TEST_RUN(test_vanished_device);
        TEST_RUN(test_raw_list);
        TEST_RUN(test_lvm_list);
        TEST_RUN(test_argv);
        return test_result();
}
