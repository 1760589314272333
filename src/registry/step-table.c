/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The table of built-in steps (see step-registry.h). Host steps first, in the order the
 * planner emits them, then the cluster steps. Each entry says how its result is verified;
 * the executor and src/ceph implement exactly that. */

#include <string.h>

#include "registry-internal.h"

static const char * const cache_modes[] = { "writeback", "writethrough", "writearound", "none", NULL };
static const char * const objectstores[] = { "bluestore", "filestore", NULL };
static const char * const flag_scopes[] = { "cluster", "host", NULL };
static const char * const throttle_presets[] = { "layout", "slow", "default", "fast", "custom", NULL };
static const char * const health_statuses[] = { "HEALTH_OK", "HEALTH_WARN", NULL };

/* Arguments several steps share. */
#define ARG_OSDS_OF_HOST                                                                       \
        { "osds", STEP_ARG_OSD_IDS, false, "${host.osds}", NULL, 0, 0,                         \
          "the OSD ids; default: every OSD under the host's CRUSH bucket" }
#define ARG_TIMEOUT(def, what)                                                                 \
        { "timeout", STEP_ARG_DURATION, false, def, NULL, 0, 0, "give up after this long (" what ")" }
#define ARG_END { NULL, 0, false, NULL, NULL, 0, 0, NULL }

const StepEntry step_table[] = {
        /* ---- host steps: the planner's (StepKind in src/plan/plan.h) ------------------ */
        {
                .name = "wipe", .target = STEP_TARGET_HOST, .agent_op = "wipe",
                .concurrency = STEP_CONCURRENCY_DEVICE_EXCLUSIVE, .destructive = true,
                .args = (const StepArgSpec[]) {
                        { "device", STEP_ARG_STRING, false, NULL, NULL, 0, 0,
                          "the disk or partition to wipe (a path as in the inventory)" },
                        { "owned", STEP_ARG_BOOL, false, "false", NULL, 0, 0,
                          "wipe every disk and partition cephprov owns on the host (its data disks, "
                          "its partitions on fast devices), nothing else" },
                        ARG_END,
                },
                .doc = "erase every signature (partition tables, filesystems, bcache, BlueStore labels) of a device",
                .verify = "a fresh probe finds no signature and no partition on the device; with owned, a fresh "
                          "inventory shows each wiped device blank, each deleted partition gone and every other "
                          "partition of the host as it was (number, start, size, name, filesystem and its uuid)",
                .check = step_check_wipe,
        },
        {
                .name = "create-gpt", .target = STEP_TARGET_HOST, .agent_op = "create-gpt",
                .concurrency = STEP_CONCURRENCY_HOST_SERIAL,
                .args = (const StepArgSpec[]) {
                        { "device", STEP_ARG_STRING, true, NULL, NULL, 0, 0, "the blank disk" },
                        ARG_END,
                },
                .doc = "write an empty GPT on a blank disk",
                .verify = "the inventory taken after the step shows a GPT with no partitions",
        },
        {
                .name = "create-partition", .target = STEP_TARGET_HOST, .agent_op = "create-partition",
                .concurrency = STEP_CONCURRENCY_HOST_SERIAL,
                .args = (const StepArgSpec[]) {
                        { "device", STEP_ARG_STRING, true, NULL, NULL, 0, 0, "the disk holding the GPT" },
                        { "number", STEP_ARG_UINT, true, NULL, NULL, 1, 128, "the partition number" },
                        { "offset", STEP_ARG_SIZE, true, NULL, NULL, 0, 0, "start, 1 MiB aligned" },
                        { "size", STEP_ARG_SIZE, true, NULL, NULL, 1, 0, "length, 1 MiB aligned" },
                        { "name", STEP_ARG_STRING, true, NULL, NULL, 0, 0, "GPT name (cp:ROLE:SLOT:HOST)" },
                        { "type_guid", STEP_ARG_STRING, true, NULL, NULL, 0, 0, "GPT partition type" },
                        ARG_END,
                },
                .doc = "add one partition at an exact offset and size, found again by its GPT name",
                .verify = "the partition exists with that number, offset, size, name and type (the agent re-reads "
                          "the table through its claimed descriptor)",
        },
        {
                .name = "make-bcache-backing", .target = STEP_TARGET_HOST, .agent_op = "make-bcache",
                .concurrency = STEP_CONCURRENCY_HOST_SERIAL,
                .args = (const StepArgSpec[]) {
                        { "device", STEP_ARG_STRING, true, NULL, NULL, 0, 0, "the data disk" },
                        ARG_END,
                },
                .doc = "make a data disk a bcache backing device and register it",
                .verify = "the backing superblock is read back and /sys/class/block/DEV/bcache exists",
        },
        {
                .name = "make-bcache-cache", .target = STEP_TARGET_HOST, .agent_op = "make-bcache",
                .concurrency = STEP_CONCURRENCY_HOST_SERIAL,
                .args = (const StepArgSpec[]) {
                        { "device", STEP_ARG_STRING, true, NULL, NULL, 0, 0, "the fast device" },
                        { "partname", STEP_ARG_STRING, true, NULL, NULL, 0, 0, "GPT name of its cache partition" },
                        ARG_END,
                },
                .doc = "make a cache partition a bcache cache set and register it",
                .verify = "the cache superblock is read back and its set is under /sys/fs/bcache",
        },
        {
                .name = "bcache-attach", .target = STEP_TARGET_HOST, .agent_op = "bcache-attach",
                .concurrency = STEP_CONCURRENCY_HOST_SERIAL,
                .args = (const StepArgSpec[]) {
                        { "backing", STEP_ARG_STRING, true, NULL, NULL, 0, 0, "the backing data disk" },
                        { "cache_device", STEP_ARG_STRING, true, NULL, NULL, 0, 0, "the fast device" },
                        { "cache_partname", STEP_ARG_STRING, true, NULL, NULL, 0, 0, "GPT name of the cache partition" },
                        ARG_END,
                },
                .doc = "attach a backing device to its cache set",
                .verify = "the backing device's bcache/cache link names that set (already attached to it: success)",
        },
        {
                .name = "bcache-tune", .target = STEP_TARGET_HOST, .agent_op = "bcache-tune",
                .concurrency = STEP_CONCURRENCY_HOST_SERIAL,
                .args = (const StepArgSpec[]) {
                        { "backing", STEP_ARG_STRING, true, NULL, NULL, 0, 0, "the backing data disk" },
                        { "cache_mode", STEP_ARG_ENUM, false, "writeback", cache_modes, 0, 0, "bcache cache mode" },
                        { "sequential_cutoff", STEP_ARG_SIZE, false, "0", NULL, 0, 0,
                          "0: cache sequential writes too (bcache's 4M default is Ceph's object size)" },
                        { "writeback_percent", STEP_ARG_UINT, false, "10", NULL, 0, 100, "dirty data target" },
                        ARG_END,
                },
                .doc = "set cache_mode, sequential_cutoff and writeback_percent, and a udev rule that keeps them",
                .verify = "the sysfs values read back equal the arguments and the udev rule file exists",
        },
        {
                .name = "create-osd", .target = STEP_TARGET_HOST, .agent_op = "osd-create",
                .concurrency = STEP_CONCURRENCY_OSD_PARALLEL,
                .args = (const StepArgSpec[]) {
                        { "device", STEP_ARG_STRING, true, NULL, NULL, 0, 0, "the data disk" },
                        { "osd_id", STEP_ARG_UINT, false, NULL, NULL, 0, 2147483647,
                          "the id; default: allocated up front by the controller (osd new)" },
                        { "data_is_bcache", STEP_ARG_BOOL, false, "false", NULL, 0, 0, "data on the disk's bcache device" },
                        { "db_device", STEP_ARG_STRING, false, NULL, NULL, 0, 0, "fast device of the DB partition" },
                        { "db_partname", STEP_ARG_STRING, false, NULL, NULL, 0, 0, "GPT name of the DB partition" },
                        { "wal_device", STEP_ARG_STRING, false, NULL, NULL, 0, 0, "fast device of the WAL partition" },
                        { "wal_partname", STEP_ARG_STRING, false, NULL, NULL, 0, 0, "GPT name of the WAL partition" },
                        { "device_class", STEP_ARG_STRING, false, NULL, NULL, 0, 0,
                          "CRUSH device class; default: from the backing disk, never from bcache" },
                        { "objectstore", STEP_ARG_ENUM, false, "bluestore", objectstores, 0, 0, "the OSD's objectstore" },
                        ARG_END,
                },
                .doc = "prepare, activate and start one OSD with the given id (ceph-volume raw or lvm)",
                .verify = "the OSD is up and in the OSD map with that id, its osd fsid the one given to osd new, "
                          "and its device class set",
                .progress = "prepare, activate, start (osd-phase records in the journal)",
        },

        /* ---- host steps of playbooks ---------------------------------------------------- */
        {
                .name = "stop-osd", .target = STEP_TARGET_HOST, .agent_op = "run",
                .concurrency = STEP_CONCURRENCY_OSD_PARALLEL,
                .args = (const StepArgSpec[]) {
                        ARG_OSDS_OF_HOST,
                        ARG_TIMEOUT("5m", "until every OSD is down in the OSD map"),
                        ARG_END,
                },
                .doc = "stop and disable ceph-osd@ID for each OSD (systemctl), leaving its data in place",
                .verify = "systemctl stop and disable exit 0 for each OSD and the OSD map marks each OSD down",
                .progress = "OSDs still up",
        },
        {
                .name = "start-osd", .target = STEP_TARGET_HOST, .agent_op = "run",
                .concurrency = STEP_CONCURRENCY_OSD_PARALLEL,
                .args = (const StepArgSpec[]) {
                        ARG_OSDS_OF_HOST,
                        ARG_TIMEOUT("10m", "until every OSD is up in the OSD map"),
                        ARG_END,
                },
                .doc = "enable and start ceph-osd@ID for each OSD",
                .verify = "the OSD map marks each OSD up",
                .progress = "OSDs not yet up",
        },
        {
                .name = "bcache-teardown", .target = STEP_TARGET_HOST, .agent_op = "bcache-teardown",
                .concurrency = STEP_CONCURRENCY_DEVICE_EXCLUSIVE, .destructive = true,
                .args = (const StepArgSpec[]) {
                        { "backing", STEP_ARG_STRING, false, NULL, NULL, 0, 0, "the backing data disk" },
                        { "owned", STEP_ARG_BOOL, false, "false", NULL, 0, 0,
                          "every bcache device cephprov made on the host" },
                        ARG_TIMEOUT("10m", "for the dirty data to be written back"),
                        ARG_END,
                },
                .doc = "detach (writing dirty data back), stop and unregister a bcache device, wipe its backing superblock",
                .verify = "no bcacheN is backed by the disk, its superblock is gone, an unused cache set is unregistered",
                .progress = "dirty data left to write back",
                .check = step_check_teardown,
        },

        /* ---- host steps of a conversion (cephprov convert): they act on the host's
         * convert plan (src/plan/plan-convert.h), which the controller computed before the
         * run changed anything; outside a conversion they refuse to run ------------------ */
        {
                .name = "unmount-filestore", .target = STEP_TARGET_HOST, .agent_op = "run",
                .concurrency = STEP_CONCURRENCY_HOST_SERIAL,
                .args = (const StepArgSpec[]) { ARG_OSDS_OF_HOST, ARG_END },
                .doc = "unmount the data directory /var/lib/ceph/osd/ceph-ID of each stopped FileStore OSD the "
                       "convert plan rebuilds (one not mounted is left as it is)",
                .verify = "the OSD map says each OSD down before; after, the directory is no mount point on the host "
                          "(mountpoint -q fails)",
        },
        {
                .name = "wipe-replaced", .target = STEP_TARGET_HOST, .agent_op = "wipe",
                .concurrency = STEP_CONCURRENCY_HOST_SERIAL, .destructive = true,
                .args = (const StepArgSpec[]) { ARG_OSDS_OF_HOST, ARG_END },
                .doc = "wipe the data devices of the OSDs the convert plan rebuilds and delete the partitions it "
                       "replaces (the old journals, DB or WAL the cluster names): the one exception to 'only "
                       "cephprov's partitions are touched', allowed in a conversion only; refuses OSDs the OSD "
                       "map does not show destroyed",
                .verify = "a fresh inventory shows each wiped data device blank, each replaced partition gone and every "
                          "other partition of the host as it was (number, start, size, name, filesystem and its uuid)",
        },
        {
                .name = "rebuild-osds", .target = STEP_TARGET_HOST, .agent_op = "osd-create",
                .concurrency = STEP_CONCURRENCY_OSD_PARALLEL,
                .args = (const StepArgSpec[]) {
                        ARG_OSDS_OF_HOST,
                        ARG_TIMEOUT("30m", "until every rebuilt OSD is up"),
                        ARG_END,
                },
                .doc = "create the convert plan's new DB [+ WAL] partitions, then re-create each rebuilt OSD in the "
                       "layout's shape with its old id (ceph-volume --osd-id, as create-osd), in parallel within the "
                       "host; after a ceph-volume rollback that purged the id, the id and its CRUSH place are made "
                       "again and the creation retried once",
                .verify = "each id up and in, under the host's CRUSH bucket with its weight from before and its device "
                          "class, and osd metadata says bluestore with its DB on the planned partition",
                .progress = "prepare, activate, start per OSD (osd-phase records), convert-phase records",
        },

        /* ---- cluster steps ------------------------------------------------------------- */
        {
                .name = "drain-check", .target = STEP_TARGET_CLUSTER,
                .concurrency = STEP_CONCURRENCY_CLUSTER_SERIAL,
                .args = (const StepArgSpec[]) {
                        { "hosts", STEP_ARG_STRING_LIST, false, "${hosts}", NULL, 0, 0,
                          "the CRUSH host buckets to drain; default: every host of the run" },
                        { "together", STEP_ARG_BOOL, false, "true", NULL, 0, 0,
                          "true: all the hosts' OSDs out at once (a drain or destroy keeps them out to its end); "
                          "false: each host alone (a rolling conversion brings each back before the next)" },
                        ARG_END,
                },
                .doc = "refuse a drain the rest of the cluster cannot hold, with the hosts' data projected onto the "
                       "OSDs of the other hosts (all the hosts gone at once unless together is false): per OSD by "
                       "CRUSH weight no OSD may pass its backfillfull ratio, and no pool may lose redundancy (size or "
                       "k+m against the failure domains left under its rule); also run before anything changes, "
                       "for the plan",
                .verify = "read-only; fails naming the hosts and the OSD or pool that would not fit",
        },
        {
                .name = "set-flag", .target = STEP_TARGET_CLUSTER,
                .concurrency = STEP_CONCURRENCY_CLUSTER_SERIAL,
                .args = (const StepArgSpec[]) {
                        { "flag", STEP_ARG_FLAG, true, NULL, NULL, 0, 0, "the OSD map flag" },
                        { "scope", STEP_ARG_ENUM, false, "cluster", flag_scopes, 0, 0,
                          "cluster: osd set FLAG; host: osd set-group FLAG HOST (noup, nodown, noin, noout)" },
                        ARG_END,
                },
                .doc = "set an OSD map flag, recording whether it was set before (host scope: on the host's CRUSH "
                       "node), with the run that set it",
                .verify = "osd dump shows the flag (host scope: in crush_node_flags under the host)",
                .check = step_check_flag,
        },
        {
                .name = "unset-flag", .target = STEP_TARGET_CLUSTER, .restore = true,
                .concurrency = STEP_CONCURRENCY_CLUSTER_SERIAL,
                .args = (const StepArgSpec[]) {
                        { "flag", STEP_ARG_FLAG, true, NULL, NULL, 0, 0, "the OSD map flag" },
                        { "scope", STEP_ARG_ENUM, false, "cluster", flag_scopes, 0, 0,
                          "cluster: osd unset FLAG; host: osd unset-group FLAG HOST (in before, gate or after: on "
                          "every host a record says cephprov set it on, this run or a failed or killed one)" },
                        { "restore", STEP_ARG_BOOL, false, "true", NULL, 0, 0,
                          "true: unset only when cephprov's set-flag set it (it was not there before); a flag the "
                          "operator had set, or one cephprov has no record of, stays and is named" },
                        ARG_END,
                },
                .doc = "unset an OSD map flag, or put back what was there before set-flag",
                .verify = "osd dump shows the flag as recorded before set-flag (or unset)",
                .check = step_check_unset_flag,
        },
        {
                .name = "pause-balancer", .target = STEP_TARGET_CLUSTER,
                .concurrency = STEP_CONCURRENCY_CLUSTER_SERIAL,
                .args = (const StepArgSpec[]) { ARG_END },
                .doc = "record whether the mgr balancer is active, then turn it off while data moves",
                .verify = "balancer status says active false",
        },
        {
                .name = "restore-balancer", .target = STEP_TARGET_CLUSTER, .restore = true,
                .concurrency = STEP_CONCURRENCY_CLUSTER_SERIAL,
                .args = (const StepArgSpec[]) { ARG_END },
                .doc = "turn the balancer back on when pause-balancer found it on",
                .verify = "balancer status says active as recorded",
        },
        {
                .name = "pause-autoscaler", .target = STEP_TARGET_CLUSTER,
                .concurrency = STEP_CONCURRENCY_CLUSTER_SERIAL,
                .args = (const StepArgSpec[]) { ARG_END },
                .doc = "record each pool's pg_autoscale_mode and set it off (the noautoscale flag where the release has it)",
                .verify = "osd pool ls detail shows autoscale off for every pool",
        },
        {
                .name = "restore-autoscaler", .target = STEP_TARGET_CLUSTER, .restore = true,
                .concurrency = STEP_CONCURRENCY_CLUSTER_SERIAL,
                .args = (const StepArgSpec[]) { ARG_END },
                .doc = "put each pool's pg_autoscale_mode back as recorded",
                .verify = "osd pool ls detail shows each pool's recorded mode",
        },
        {
                .name = "out", .target = STEP_TARGET_CLUSTER,
                .concurrency = STEP_CONCURRENCY_CLUSTER_SERIAL,
                .args = (const StepArgSpec[]) { ARG_OSDS_OF_HOST, ARG_END },
                .doc = "mark OSDs out (their CRUSH weight stays, so 'in' undoes it and data moves once)",
                .verify = "osd dump shows in 0 for each OSD",
        },
        {
                .name = "wait-peered", .target = STEP_TARGET_CLUSTER,
                .concurrency = STEP_CONCURRENCY_WAIT,
                .args = (const StepArgSpec[]) {
                        ARG_OSDS_OF_HOST,
                        ARG_TIMEOUT("10m", "until every PG has peered"),
                        ARG_END,
                },
                .doc = "after out: wait until every PG has peered at the OSD map that has the OSDs out (client I/O "
                       "waits while PGs peer; the adaptive throttle does not judge those seconds)",
                .verify = "pg dump pgs_brief, every second: no PG has one of the OSDs in its up set, and every PG is "
                          "active, not peering nor stale (the out re-peers PGs that no longer have them in any set)",
                .progress = "PGs not peered yet since the OSDs went out",
        },
        {
                .name = "in", .target = STEP_TARGET_CLUSTER,
                .concurrency = STEP_CONCURRENCY_CLUSTER_SERIAL,
                .args = (const StepArgSpec[]) { ARG_OSDS_OF_HOST, ARG_END },
                .doc = "mark OSDs in",
                .verify = "osd dump shows in 1 for each OSD",
        },
        {
                .name = "crush-reweight", .target = STEP_TARGET_CLUSTER,
                .concurrency = STEP_CONCURRENCY_CLUSTER_SERIAL,
                .args = (const StepArgSpec[]) {
                        ARG_OSDS_OF_HOST,
                        { "weight", STEP_ARG_NUMBER, true, NULL, NULL, 0, 1000, "the target CRUSH weight" },
                        { "step", STEP_ARG_NUMBER, false, NULL, NULL, 0.001, 1000,
                          "change the weight by at most this much at a time, waiting for clean between; "
                          "default: at once" },
                        ARG_TIMEOUT("12h", "for clean after each step"),
                        ARG_END,
                },
                .doc = "move each OSD's CRUSH weight to a target, in steps",
                .verify = "osd tree shows each OSD at the target weight",
                .progress = "current weight, PGs and objects still to move, recovery rate, ETA",
        },
        {
                .name = "wait-ok-to-stop", .target = STEP_TARGET_CLUSTER,
                .concurrency = STEP_CONCURRENCY_WAIT,
                .args = (const StepArgSpec[]) {
                        ARG_OSDS_OF_HOST,
                        ARG_TIMEOUT("30m", "while osd ok-to-stop answers EBUSY"),
                        ARG_END,
                },
                .doc = "poll osd ok-to-stop until stopping the OSDs leaves every PG available",
                .verify = "osd ok-to-stop exits 0 with ok_to_stop true (exit status and answer must agree; no answer is "
                          "an error) naming every id asked; the ids asked are those osd dump has, and each is checked "
                          "there again after the yes (ok-to-stop says yes for an id that does not exist)",
                .progress = "PGs that would become unavailable, time waited",
        },
        {
                .name = "wait-safe-to-destroy", .target = STEP_TARGET_CLUSTER,
                .concurrency = STEP_CONCURRENCY_WAIT,
                .args = (const StepArgSpec[]) {
                        ARG_OSDS_OF_HOST,
                        ARG_TIMEOUT("24h", "while osd safe-to-destroy answers EBUSY"),
                        ARG_END,
                },
                .doc = "poll osd safe-to-destroy until no PG has data only on the OSDs",
                .verify = "every OSD is listed in safe_to_destroy, never the exit status alone (Pacific exits 0 with -f json "
                          "while unsafe); an empty or unreadable answer is an error, never safe; the ids asked are those "
                          "osd dump has; it lags and can say safe while PGs still recover, so wait-clean follows",
                .progress = "PGs still stored on the OSDs, objects still to move, recovery rate, ETA",
        },
        {
                .name = "wait-clean", .target = STEP_TARGET_CLUSTER,
                .concurrency = STEP_CONCURRENCY_WAIT,
                .args = (const StepArgSpec[]) {
                        ARG_TIMEOUT("24h", "until every PG is active+clean"),
                        ARG_END,
                },
                .doc = "wait until every PG is active+clean: nothing degraded, misplaced or recovering",
                .verify = "pg stat: all PGs active+clean, 0 degraded and 0 misplaced objects",
                .progress = "PGs not active+clean by state, degraded and misplaced objects, recovery rate, ETA",
        },
        {
                .name = "destroy-osd", .target = STEP_TARGET_CLUSTER, .destructive = true,
                .concurrency = STEP_CONCURRENCY_CLUSTER_SERIAL,
                .args = (const StepArgSpec[]) {
                        ARG_OSDS_OF_HOST,
                        { "in_place", STEP_ARG_BOOL, false, "false", NULL, 0, 0,
                          "true: do not ask safe-to-destroy (a conversion in place: the OSDs are stopped after "
                          "ok-to-stop, their data is rebuilt from the other copies onto the same ids)" },
                        ARG_END,
                },
                .doc = "osd destroy: remove the OSDs' keys and mark them destroyed, keeping ids and CRUSH places "
                       "for a replacement; the step refuses OSDs that are up, and unless in_place those "
                       "safe-to-destroy does not clear (Ceph itself refuses only an OSD that is up)",
                .verify = "osd dump shows each id with the destroyed state",
        },
        {
                .name = "purge-osd", .target = STEP_TARGET_CLUSTER, .destructive = true,
                .concurrency = STEP_CONCURRENCY_CLUSTER_SERIAL,
                .args = (const StepArgSpec[]) { ARG_OSDS_OF_HOST, ARG_END },
                .doc = "osd purge: remove the OSDs from CRUSH, auth and the OSD map; the step refuses OSDs "
                       "safe-to-destroy does not clear (Ceph itself refuses only an OSD that is up); in a "
                       "host's list it purges only the OSDs still that host's (its CRUSH bucket, else the "
                       "daemon's hostname) and names the others, never purged: a destroy's record keeps the "
                       "ids it purged, and such an id may belong to another host's new OSD since",
                .verify = "the ids are gone from osd dump, auth ls and osd tree",
        },
        {
                .name = "crush-remove-host", .target = STEP_TARGET_CLUSTER, .destructive = true,
                .concurrency = STEP_CONCURRENCY_CLUSTER_SERIAL,
                .args = (const StepArgSpec[]) {
                        { "host", STEP_ARG_STRING, false, "${host}", NULL, 0, 0, "the CRUSH host bucket" },
                        ARG_END,
                },
                .doc = "remove an empty host bucket from CRUSH (refused while it holds an item)",
                .verify = "osd tree has no bucket of that name",
        },
        {
                .name = "throttle", .target = STEP_TARGET_CLUSTER,
                .concurrency = STEP_CONCURRENCY_CLUSTER_SERIAL,
                .args = (const StepArgSpec[]) {
                        { "preset", STEP_ARG_ENUM, false, "layout", throttle_presets, 0, 0,
                          "layout: the layout's throttle section (adaptive there: a controller steers by client latency while "
                          "data moves); slow 1/1/1, default 1/3/1, fast 4/4/4, custom: the values below" },
                        { "osd_max_backfills", STEP_ARG_UINT, false, NULL, NULL, 1, 1000, "overrides the preset's" },
                        { "osd_recovery_max_active", STEP_ARG_UINT, false, NULL, NULL, 1, 1000, "overrides the preset's" },
                        { "osd_recovery_max_single_start", STEP_ARG_UINT, false, NULL, NULL, 1, 1000, "overrides the preset's" },
                        ARG_END,
                },
                .doc = "record the recovery/backfill settings there before (in the cluster, config-key), then set "
                       "the preset with ceph config set (a mClock profile on releases that use mClock)",
                .verify = "config get osd shows the values (or the mClock profile) set",
                .check = step_check_throttle,
        },
        {
                .name = "restore-throttle", .target = STEP_TARGET_CLUSTER, .restore = true,
                .concurrency = STEP_CONCURRENCY_CLUSTER_SERIAL,
                .args = (const StepArgSpec[]) { ARG_END },
                .doc = "stop the adaptive throttle and take its brake off, if any; put back the settings throttle "
                       "recorded (also those a killed run recorded)",
                .verify = "config get osd shows the recorded values; the record is removed",
        },
        {
                .name = "health-gate", .target = STEP_TARGET_CLUSTER,
                .concurrency = STEP_CONCURRENCY_WAIT,
                .args = (const StepArgSpec[]) {
                        { "max_status", STEP_ARG_ENUM, false, "HEALTH_OK", health_statuses, 0, 0,
                          "the worst overall status that passes" },
                        { "allow", STEP_ARG_STRING_LIST, false, NULL, NULL, 0, 0,
                          "health check codes that do not count (e.g. OSDMAP_FLAGS for a flag the playbook set)" },
                        { "allow_down", STEP_ARG_OSD_IDS, false, NULL, NULL, 0, 0,
                          "given: the only OSDs that may be down; any other down fails the gate at once, naming the "
                          "OSDs and the PGs left without a readable copy (a resumed conversion gives its host's)" },
                        ARG_TIMEOUT("30m", "until the health passes"),
                        ARG_END,
                },
                .doc = "wait until the cluster's health is at most max_status, ignoring the allowed checks (health "
                       "says nothing of PG readiness: HEALTH_OK was seen with every PG unknown; wait-clean is that)",
                .verify = "health detail: status and remaining check codes",
                .progress = "status and the check codes that hold it back",
        },
        {
                .name = "benchmark", .target = STEP_TARGET_CLUSTER,
                .concurrency = STEP_CONCURRENCY_CLUSTER_SERIAL,
                .args = (const StepArgSpec[]) {
                        { "label", STEP_ARG_STRING, true, NULL, NULL, 0, 0,
                          "names the measurement (before, after), recorded per host in the cluster" },
                        { "osds", STEP_ARG_OSD_IDS, false, "${host.osds}", NULL, 0, 0, "the OSDs measured" },
                        { "rounds", STEP_ARG_UINT, false, "5", NULL, 1, 20,
                          "osd bench rounds per OSD and size; the best round counts" },
                        { "compare_to", STEP_ARG_STRING, false, NULL, NULL, 0, 0,
                          "label of an earlier measurement of the same host: fail when slower" },
                        { "max_regression", STEP_ARG_UINT, false, "100", NULL, 1, 1000,
                          "percent the OSDs may be slower than at compare_to (geometric mean of 4 KiB write IOPS, "
                          "or of 4 MiB write throughput) before the step fails" },
                        { "canary_only", STEP_ARG_BOOL, false, "true", NULL, 0, 0,
                          "per host: only in the first wave (the canary); other hosts pass at once" },
                        ARG_END,
                },
                .doc = "measure each OSD with `ceph tell osd.N bench` (4 KiB and 4 MiB writes, rounds × each), record the "
                       "best round of each, and with compare_to fail when the OSDs got slower than max_regression allows (a "
                       "slower verdict is measured again with as many rounds, the best of all kept, before it fails)",
                .verify = "each bench answer parsed; the record read back from the cluster; with compare_to, the "
                          "figures side by side in the result and the error",
                .progress = "the OSD and round being measured",
        },
};

const size_t step_table_size = ELEMENTSOF(step_table);
