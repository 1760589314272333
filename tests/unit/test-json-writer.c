/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The streaming JSON writer prints what json_to_pretty() prints for the same tree, byte for
 * byte: strings that need escaping, empty and nested containers, numbers at their limits,
 * a tree embedded at depth. */
#include <stdint.h>
#include <string.h>

#include "basic/json-util.h"
#include "basic/json-writer.h"
#include "basic/strv.h"
#include "test.h"

static const char *const strings[] = {
        "plain", "", "quote \" backslash \\ slash /", "tab\t newline\n cr\r bs\b ff\f",
        "\x01\x02\x1f control", "del \x7f", "utf-8 \xc3\xa9 \xe2\x86\x92", "cp:db:3:node1",
};

static char *written(void (*fn)(JsonWriter *w)) {
        char *buf = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&buf, &len);
        static JsonWriter w;
        json_writer_init(&w, f);
        fn(&w);
        CHECK_INTEQ(json_writer_finish(&w), 0);
        fclose(f);
        return buf;
}

static json_object *tree(void) {
        json_object *o = json_object_new_object();
        json_object_object_add(o, "format", json_object_new_int(1));
        json_object *a = json_object_new_array();
        for (size_t i = 0; i < ELEMENTSOF(strings); i++)
                json_object_array_add(a, json_object_new_string(strings[i]));
        json_object_object_add(o, "strings", a);
        json_object *k = json_object_new_object();
        for (size_t i = 0; i < ELEMENTSOF(strings); i++)
                json_object_object_add(k, strings[i], json_object_new_int((int64_t) i - 4));
        json_object_object_add(o, "keys", k);
        json_object_object_add(o, "empty_array", json_object_new_array());
        json_object_object_add(o, "empty_object", json_object_new_object());
        json_object *n = json_object_new_array();
        json_object_array_add(n, json_object_new_array());
        json_object_array_add(n, json_object_new_object());
        json_object_array_add(n, json_object_new_uint64(UINT64_MAX));
        json_object_array_add(n, json_object_new_int64(INT64_MIN));
        json_object_array_add(n, json_object_new_int64(0));
        json_object_array_add(n, json_object_new_boolean(true));
        json_object_array_add(n, json_object_new_boolean(false));
        json_object_object_add(o, "nested", n);
        return o;
}

static void write_same(JsonWriter *w) {
        json_writer_begin_object(w, NULL);
        json_writer_int(w, "format", 1);
        json_writer_begin_array(w, "strings");
        for (size_t i = 0; i < ELEMENTSOF(strings); i++)
                json_writer_string(w, NULL, strings[i]);
        json_writer_end_array(w);
        json_writer_begin_object(w, "keys");
        for (size_t i = 0; i < ELEMENTSOF(strings); i++)
                json_writer_int(w, strings[i], (int64_t) i - 4);
        json_writer_end_object(w);
        json_writer_strv(w, "empty_array", NULL);
        json_writer_begin_object(w, "empty_object");
        json_writer_end_object(w);
        json_writer_begin_array(w, "nested");
        json_writer_begin_array(w, NULL);
        json_writer_end_array(w);
        json_writer_begin_object(w, NULL);
        json_writer_string(w, "omitted", NULL);
        json_writer_end_object(w);
        json_writer_u64(w, NULL, UINT64_MAX);
        json_writer_int(w, NULL, INT64_MIN);
        json_writer_int(w, NULL, 0);
        json_writer_bool(w, NULL, true);
        json_writer_bool(w, NULL, false);
        json_writer_end_array(w);
        json_writer_end_object(w);
}

static void test_same_as_json_c(void) {
        _cleanup_json_ json_object *o = tree();
        _cleanup_(freep) char *want = strprintf("%s\n", json_to_pretty(o));
        _cleanup_(freep) char *got = written(write_same);
        CHECK_STREQ(got, want);
}

static json_object *embedded;

static void write_embedded(JsonWriter *w) {
        json_writer_begin_object(w, NULL);
        json_writer_begin_array(w, "hosts");
        json_writer_begin_object(w, NULL);
        json_writer_tree(w, "sub", embedded);
        json_writer_end_object(w);
        json_writer_end_array(w);
        json_writer_end_object(w);
}

/* A tree written at depth 3 is indented as if it were part of the document. */
static void test_tree_at_depth(void) {
        embedded = tree();
        _cleanup_json_ json_object *doc = json_object_new_object();
        json_object *hosts = json_object_new_array(), *h = json_object_new_object();
        json_object_object_add(doc, "hosts", hosts);
        json_object_array_add(hosts, h);
        json_object_object_add(h, "sub", json_object_get(embedded));
        _cleanup_(freep) char *want = strprintf("%s\n", json_to_pretty(doc));
        _cleanup_(freep) char *got = written(write_embedded);
        CHECK_STREQ(got, want);
        json_object_put(embedded);
}

/* Large output goes through the writer's buffer in pieces: a string longer than it too. */
static void write_long(JsonWriter *w) {
        static char big[200000];
        memset(big, 'x', sizeof(big) - 1);
        big[1000] = '"';
        json_writer_begin_array(w, NULL);
        for (int i = 0; i < 3; i++)
                json_writer_string(w, NULL, big);
        json_writer_end_array(w);
}

static void test_long(void) {
        _cleanup_(freep) char *got = written(write_long);
        /* "[", 3 x ("\n  " + quoted 199,999 bytes with one escaped quote), 2 commas, "\n]\n" */
        CHECK(got && strlen(got) == 1 + 3 * (3 + 2 + 200000) + 2 + 3);
        _cleanup_json_ json_object *o = got ? json_tokener_parse(got) : NULL;
        CHECK(o && json_object_array_length(o) == 3 &&
              strlen(json_object_get_string(json_object_array_get_idx(o, 2))) == 199999);
}

static void write_unbalanced(JsonWriter *w) {
        json_writer_begin_object(w, NULL);
}

static void test_unbalanced(void) {
        char *buf = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&buf, &len);
        static JsonWriter w;
        json_writer_init(&w, f);
        write_unbalanced(&w);
        CHECK(json_writer_finish(&w) < 0);
        fclose(f);
        free(buf);
}

int main(void) {
        TEST_RUN(test_same_as_json_c);
        TEST_RUN(test_tree_at_depth);
        TEST_RUN(test_long);
        TEST_RUN(test_unbalanced);
        return test_result();
}
