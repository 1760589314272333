/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* The agent in process, for the block tests: requests dispatched as the protocol loop would
 * (each with a new id, progress reports built and dropped), their responses read by dotted
 * path, the bytes of a device hashed, and a BlueStore label block encoded as Ceph writes it. */

#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent/agent.h"
#include "basic/json-util.h"
#include "basic/sha256.h"
#include "basic/strv.h"
#include "test.h"

static unsigned agent_call_next_id = 1;

static inline void agent_call_progress(json_object *o, void *userdata) {
}

/* A request as the executor sends it ({"op", "args"}) with the next id; the response is the
 * caller's. A request the agent cannot take at all ends the test. */
static inline json_object *call_req(AgentState *s, json_object *req) {
        json_object_object_add(req, "id", json_object_new_int((int) agent_call_next_id++));
        json_object *resp = NULL;
        if (agent_dispatch(s, req, &resp, agent_call_progress, NULL) < 0)
                exit(1);
        return resp;
}

static inline json_object *vcall(AgentState *s, const char *op, const char *args_fmt, va_list ap) _printf_(3, 0);
static inline json_object *vcall(AgentState *s, const char *op, const char *args_fmt, va_list ap) {
        char args[4096], buf[8192];
        vsnprintf(args, sizeof(args), args_fmt, ap);
        snprintf(buf, sizeof(buf), "{\"op\":\"%s\",\"args\":%s}", op, args);
        json_object *req = json_tokener_parse(buf);
        if (!req) {
                fprintf(stderr, "bad test request: %s\n", buf);
                exit(1);
        }
        json_object *resp = call_req(s, req);
        json_object_put(req);
        return resp;
}

/* One request `op` whose args are the JSON of `args_fmt`; the response is the caller's. */
static inline json_object *call(AgentState *s, const char *op, const char *args_fmt, ...) _printf_(3, 4);
static inline json_object *call(AgentState *s, const char *op, const char *args_fmt, ...) {
        va_list ap;
        va_start(ap, args_fmt);
        json_object *resp = vcall(s, op, args_fmt, ap);
        va_end(ap);
        return resp;
}

/* Dotted path lookup: "result.created", "error.errno"; NULL when a step is missing. */
static inline json_object *jget(json_object *o, const char *path) {
        char buf[256];
        snprintf(buf, sizeof(buf), "%s", path);
        char *save = NULL;
        for (char *k = strtok_r(buf, ".", &save); k && o; k = strtok_r(NULL, ".", &save))
                if (!json_object_object_get_ex(o, k, &o))
                        return NULL;
        return o;
}

/* The value at `path` as a string, "" when there is none. */
static inline const char *jstr(json_object *o, const char *path) {
        json_object *v = jget(o, path);
        return v ? json_object_get_string(v) : "";
}

static inline bool jbool(json_object *o, const char *path) {
        json_object *v = jget(o, path);
        return v && json_object_get_boolean(v);
}

/* "ok": true; otherwise the response is printed. */
static inline bool resp_ok(json_object *r) {
        json_object *ok;
        bool v = r && json_object_object_get_ex(r, "ok", &ok) && json_object_get_boolean(ok);
        if (!v)
                fprintf(stderr, "  response: %s\n", json_object_to_json_string(r));
        return v;
}

/* `op` answered ok, for a check; the response is dropped (printed when not ok). */
static inline bool call_ok(AgentState *s, const char *op, const char *args_fmt, ...) _printf_(3, 4);
static inline bool call_ok(AgentState *s, const char *op, const char *args_fmt, ...) {
        va_list ap;
        va_start(ap, args_fmt);
        json_object *r = vcall(s, op, args_fmt, ap);
        va_end(ap);
        bool ok = resp_ok(r);
        json_object_put(r);
        return ok;
}

/* The request `req` (kept: the caller's) answered ok, for a check. */
static inline bool call_req_ok(AgentState *s, json_object *req) {
        json_object *r = call_req(s, req);
        bool ok = resp_ok(r);
        json_object_put(r);
        return ok;
}

static inline bool refused_(json_object *r, bool put, const char *code, ...) {
        bool ok = streq(jstr(r, "error.errno"), code);
        va_list ap;
        va_start(ap, code);
        for (const char *s = va_arg(ap, const char *); s; s = va_arg(ap, const char *))
                if (!strstr(jstr(r, "error.message"), s))
                        ok = false;
        va_end(ap);
        if (!ok)
                fprintf(stderr, "  response: %s\n", json_object_to_json_string(r));
        if (put)
                json_object_put(r);
        return ok;
}

/* refused(r, CODE, STRING..., NULL): the error CODE ("EBUSY") and a message holding every one
 * of the strings; otherwise the response is printed. refused_put() also drops the response:
 * CHECK(refused_put(call(...), "EBUSY", dev, NULL)). */
#define refused(r, ...) refused_((r), false, __VA_ARGS__)
#define refused_put(r, ...) refused_((r), true, __VA_ARGS__)

/* An agent of host node1 configured with the allow-list `allow_json` (a JSON array). */
static inline AgentState *agent_configured(const char *allow_json, bool dry) {
        AgentState *s = agent_state_new();
        json_object *r = call(s, "configure", "{\"host\":\"node1\",\"allow\":%s,\"dry_run\":%s}", allow_json,
                              dry ? "true" : "false");
        CHECK(resp_ok(r));
        json_object_put(r);
        return s;
}

/* An agent allowed `dev` (and so its partitions) and, when given, `dev2`. */
static inline AgentState *agent_for2(const char *dev, const char *dev2, bool dry) {
        char allow[512];
        if (dev2)
                snprintf(allow, sizeof(allow), "[\"%s\",\"%s\"]", dev, dev2);
        else
                snprintf(allow, sizeof(allow), "[\"%s\"]", dev);
        return agent_configured(allow, dry);
}

static inline AgentState *agent_for(const char *dev, bool dry) {
        return agent_for2(dev, NULL, dry);
}

/* sha256 of `len` bytes at `off` of `dev` (0, 0: all of it); "" when it cannot be read. */
static inline char *dev_hash(const char *dev, uint64_t off, uint64_t len) {
        char hex[65];
        Error err = {};
        if (sha256_file(dev, off, len, hex, &err) < 0) {
                fprintf(stderr, "%s\n", err.message);
                return strdup("");
        }
        return strdup(hex);
}

/* All of `dev` still hashes to `before` (dev_hash(dev, 0, 0) of then); otherwise both are
 * printed. */
static inline bool dev_same(const char *dev, const char *before) {
        char *now = dev_hash(dev, 0, 0);
        bool same = streq(now, before);
        if (!same)
                fprintf(stderr, "  '%s' changed: sha256 %s, was %s\n", dev, now, before);
        free(now);
        return same;
}

static inline void bluestore_put32(uint8_t **p, uint32_t v) {
        for (int i = 0; i < 4; i++)
                *(*p)++ = (uint8_t) (v >> (8 * i));
}

static inline void bluestore_putstr(uint8_t **p, const char *s) {
        bluestore_put32(p, (uint32_t) strlen(s));
        memcpy(*p, s, strlen(s));
        *p += strlen(s);
}

/* A BlueStore label block as Ceph encodes it (bluestore_bdev_label_t, struct_v 2): the
 * "bluestore block device" line with `osd_uuid`, then the uuid's 16 bytes, `size`, a birth
 * time, `description` ("main", "bluefs db", "bluefs wal") and the meta pairs of `meta` (key,
 * value, ..., NULL; NULL: none), closed by Ceph's crc32c (Castagnoli, seed -1, no final
 * inversion) of all before it. */
static inline void bluestore_label(uint8_t buf[4096], const char *osd_uuid, uint64_t size, const char *description,
                                   const char *const *meta) {
        memset(buf, 0, 4096);
        uint8_t *p = buf;
        p += sprintf((char *) p, "bluestore block device\n%s\n", osd_uuid);
        *p++ = 2; /* struct_v */
        *p++ = 1; /* compat */
        uint8_t *lenp = p;
        p += 4;
        uint8_t *body = p;
        for (const char *u = osd_uuid; *u; u++) {
                if (*u == '-')
                        continue;
                unsigned v;
                sscanf(u, "%2x", &v);
                *p++ = (uint8_t) v;
                u++;
        }
        for (int i = 0; i < 8; i++)
                *p++ = (uint8_t) (size >> (8 * i));
        bluestore_put32(&p, 1700000000);
        bluestore_put32(&p, 0);
        bluestore_putstr(&p, description);
        size_t n_meta = 0;
        while (meta && meta[2 * n_meta])
                n_meta++;
        bluestore_put32(&p, (uint32_t) n_meta);
        for (size_t i = 0; i < n_meta; i++) {
                bluestore_putstr(&p, meta[2 * i]);
                bluestore_putstr(&p, meta[2 * i + 1]);
        }
        uint8_t *end = p;
        p = lenp;
        bluestore_put32(&p, (uint32_t) (end - body));
        uint32_t crc = 0xffffffffu;
        for (const uint8_t *q = buf; q < end; q++) {
                crc ^= *q;
                for (int k = 0; k < 8; k++)
                        crc = crc & 1 ? (crc >> 1) ^ 0x82f63b78u : crc >> 1;
        }
        p = end;
        bluestore_put32(&p, crc);
}
