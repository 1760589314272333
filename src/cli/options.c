/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "options.h"

#include <errno.h>
#include <fnmatch.h>
#include <getopt.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "basic/color.h"
#include "basic/strv.h"
#include "yaml/yaml-schema.h"

enum {
        ARG_JSON = 0x100,
        ARG_INVENTORY,
        ARG_HOSTS,
        ARG_DRY_RUN,
        ARG_YES,
        ARG_STAGE,
        ARG_PARALLEL,
        ARG_DETAILED_EXITCODE,
        ARG_SAVE,
        ARG_CANCEL,
        ARG_OSD_IDS,
        ARG_TAKE_BACK,
        ARG_RESHAPE,
        ARG_OSD_TREE,
        ARG_OSD_METADATA,
        ARG_STOP_AFTER_HOST,
        ARG_DRAIN_FIRST,
        ARG_CHECK_HOSTS,
        ARG_DETAIL,
};

static const struct {
        int val;
        unsigned mask;
} option_masks[] = {
        { ARG_JSON, OPT_JSON },           { ARG_INVENTORY, OPT_INVENTORY },
        { ARG_HOSTS, OPT_HOSTS },         { ARG_DRY_RUN, OPT_DRY_RUN },
        { ARG_YES, OPT_YES },             { ARG_STAGE, OPT_STAGE },
        { ARG_PARALLEL, OPT_PARALLEL },   { ARG_DETAILED_EXITCODE, OPT_DETAILED_EXITCODE },
        { ARG_SAVE, OPT_SAVE },           { ARG_CANCEL, OPT_CANCEL },
        { ARG_OSD_IDS, OPT_OSD_IDS },     { ARG_TAKE_BACK, OPT_TAKE_BACK },
        { ARG_RESHAPE, OPT_RESHAPE },     { ARG_OSD_TREE, OPT_OSD_TREE },
        { ARG_OSD_METADATA, OPT_OSD_METADATA }, { ARG_STOP_AFTER_HOST, OPT_STOP_AFTER_HOST },
        { ARG_DRAIN_FIRST, OPT_DRAIN_FIRST },
        { ARG_CHECK_HOSTS, OPT_CHECK_HOSTS },
        { ARG_DETAIL, OPT_DETAIL },
};

int cli_options_parse(const Verb *v, int argc, char *argv[], unsigned accepted, CliOptions *ret) {
        static const struct option options[] = {
                { "json", no_argument, NULL, ARG_JSON },
                { "inventory", required_argument, NULL, ARG_INVENTORY },
                { "hosts", required_argument, NULL, ARG_HOSTS },
                { "dry-run", no_argument, NULL, ARG_DRY_RUN },
                { "yes", no_argument, NULL, ARG_YES },
                { "stage", required_argument, NULL, ARG_STAGE },
                { "parallel", required_argument, NULL, ARG_PARALLEL },
                { "detailed-exitcode", no_argument, NULL, ARG_DETAILED_EXITCODE },
                { "save", required_argument, NULL, ARG_SAVE },
                { "cancel", no_argument, NULL, ARG_CANCEL },
                { "osd-ids", required_argument, NULL, ARG_OSD_IDS },
                { "take-back", required_argument, NULL, ARG_TAKE_BACK },
                { "reshape", no_argument, NULL, ARG_RESHAPE },
                { "osd-tree", required_argument, NULL, ARG_OSD_TREE },
                { "osd-metadata", required_argument, NULL, ARG_OSD_METADATA },
                { "stop-after-host", no_argument, NULL, ARG_STOP_AFTER_HOST },
                { "drain-first", no_argument, NULL, ARG_DRAIN_FIRST },
                { "check-hosts", no_argument, NULL, ARG_CHECK_HOSTS },
                { "detail", no_argument, NULL, ARG_DETAIL },
                { "verbose", no_argument, NULL, 'v' },
                { "help", no_argument, NULL, 'h' },
                {}
        };
        CliOptions o = {};
        int c;

        optind = 0; /* full re-initialisation of getopt */
        opterr = 0;
        int longindex = -1;
        while ((c = getopt_long(argc, argv, ":vhy", options, &longindex)) >= 0) {
                if (c == 'y')
                        c = ARG_YES;
                for (size_t i = 0; i < ELEMENTSOF(option_masks); i++)
                        if (option_masks[i].val == c && !(accepted & option_masks[i].mask)) {
                                /* By its name: argv[optind - 1] is the option's argument
                                 * when one was given ("--inventory FILE"). */
                                char name[64];
                                if (longindex >= 0)
                                        snprintf(name, sizeof name, "--%s", options[longindex].name);
                                else
                                        snprintf(name, sizeof name, "%s", argv[optind - 1]);
                                cli_options_done(&o);
                                return verb_usage_error(v, "option '%s' does not apply to this command", name);
                        }
                longindex = -1;

                switch (c) {
                case 'v':
                case 'h':
                        break; /* handled in main() */
                case ARG_JSON:
                        o.json = true;
                        break;
                case ARG_CANCEL:
                        o.cancel = true;
                        break;
                case ARG_INVENTORY:
                        o.inventory = optarg;
                        break;
                case ARG_SAVE:
                        o.save = optarg;
                        break;
                case ARG_OSD_IDS:
                        o.osd_ids = optarg;
                        break;
                case ARG_STOP_AFTER_HOST:
                        o.stop_after_host = true;
                        break;
                case ARG_CHECK_HOSTS:
                        o.check_hosts = true;
                        break;
                case ARG_DETAIL:
                        o.detail = true;
                        break;
                case ARG_DRAIN_FIRST:
                        o.drain_first = true;
                        break;
                case ARG_RESHAPE:
                        o.reshape = true;
                        break;
                case ARG_OSD_TREE:
                        o.osd_tree = optarg;
                        break;
                case ARG_OSD_METADATA:
                        o.osd_metadata = optarg;
                        break;
                case ARG_HOSTS:
                case ARG_TAKE_BACK: {
                        /* given again: the lists add up (each name once, in order) */
                        char ***list = c == ARG_HOSTS ? &o.hosts : &o.take_back;
                        _cleanup_strv_free_ char **more = strv_split(optarg, ",");
                        bool empty = !more || !more[0];
                        STRV_FOREACH(h, more)
                                empty = empty || !(*h)[0];
                        if (empty) {
                                cli_options_done(&o);
                                return verb_usage_error(v, "%s needs a comma-separated list of host names, not '%s'",
                                                        c == ARG_HOSTS ? "--hosts" : "--take-back", optarg);
                        }
                        STRV_FOREACH(h, more)
                                if (!strv_contains(*list, *h) && strv_extend(list, *h) < 0) {
                                        cli_options_done(&o);
                                        return verb_usage_error(v, "out of memory");
                                }
                        break;
                }
                case ARG_DRY_RUN:
                        o.dry_run = true;
                        break;
                case ARG_YES:
                        o.yes = true;
                        break;
                case ARG_DETAILED_EXITCODE:
                        o.detailed_exitcode = true;
                        break;
                case ARG_STAGE:
                        if (!streq(optarg, "disks") && !streq(optarg, "osds") && !streq(optarg, "all")) {
                                cli_options_done(&o);
                                return verb_usage_error(v, "unknown stage '%s' (expected disks, osds or all)", optarg);
                        }
                        o.stage = optarg;
                        break;
                case ARG_PARALLEL: {
                        char *end;
                        errno = 0;
                        long n = strtol(optarg, &end, 10);
                        /* the layout's osd.parallel takes the same range */
                        if (errno || *end || end == optarg || n < 1 || n > 64) {
                                cli_options_done(&o);
                                return verb_usage_error(v, "--parallel needs a number from 1 to 64, not '%s'", optarg);
                        }
                        o.parallel = (unsigned) n;
                        break;
                }
                case ':':
                        cli_options_done(&o);
                        return verb_usage_error(v, "option '%s' needs an argument", argv[optind - 1]);
                default:
                        cli_options_done(&o);
                        return verb_usage_error(v, "unknown option '%s'", argv[optind - 1]);
                }
        }

        o.args = argv + optind;
        o.n_args = argc - optind;
        *ret = o;
        return 0;
}

void cli_options_done(CliOptions *o) {
        o->hosts = strv_free(o->hosts);
        o->take_back = strv_free(o->take_back);
}

static int expand_host_patterns(const Layout *l, char ***hosts, Error *err) {
        bool any = false;
        STRV_FOREACH(h, *hosts)
                any = any || strpbrk(*h, "*?[");
        if (!any)
                return 0;
        _cleanup_strv_free_ char **out = calloc(1, sizeof(char *));
        if (!out)
                return error_set(err, ENOMEM, "out of memory");
        STRV_FOREACH(h, *hosts) {
                if (!strpbrk(*h, "*?[")) {
                        if (!strv_contains(out, *h) && strv_extend(&out, *h) < 0)
                                return error_set(err, ENOMEM, "out of memory");
                        continue;
                }
                size_t n = 0;
                for (size_t i = 0; i < l->n_hosts; i++) {
                        if (fnmatch(*h, l->hosts[i].name, 0) != 0)
                                continue;
                        n++;
                        if (!strv_contains(out, l->hosts[i].name) && strv_extend(&out, l->hosts[i].name) < 0)
                                return error_set(err, ENOMEM, "out of memory");
                }
                if (n == 0)
                        return error_set(err, ENOENT, "--hosts pattern '%s' matches no host of layout '%s'", *h, l->path);
        }
        strv_free(*hosts);
        *hosts = TAKE_PTR(out);
        return 0;
}

const char *cli_nearest_name(const char *s, const char * const *names, size_t n) {
        const char *best = NULL;
        size_t best_d = SIZE_MAX;
        for (size_t i = 0; i < n; i++) {
                size_t d = yaml_edit_distance(s, names[i]);
                if (d < best_d) {
                        best_d = d;
                        best = names[i];
                }
        }
        return best && best_d <= MAX(2u, strlen(s) / 3) ? best : NULL;
}

int cli_options_parse_layout(const Verb *v, int argc, char *argv[], unsigned accepted, CliOptions *ret,
                             Layout **ret_layout) {
        CliOptions o = {};
        int r = cli_options_parse(v, argc, argv, accepted, &o);
        if (r != 0)
                return r;
        if (o.n_args != 1) {
                cli_options_done(&o);
                return verb_usage_error(v, "expected one layout file");
        }

        Error err = {};
        if (layout_load_file(o.args[0], ret_layout, &err) < 0) {
                bool json = o.json;
                cli_options_done(&o);
                return json ? cli_report_json(&err) : cli_report(&err);
        }
        /* The layout's warnings, as validate prints them: plan and apply are where they matter. */
        const YamlDiags *w = &(*ret_layout)->warnings;
        for (size_t i = 0; i < w->n; i++)
                fprintf(stderr, "%s:%u:%u: %swarning%s: %s\n", o.args[0], w->items[i].mark.line, w->items[i].mark.column,
                        color_on(stderr, COLOR_WARNING), color_off(stderr), w->items[i].message);
        /* --hosts patterns (a glob, as cephadm's host_pattern: 'node[1-3]', 'rack2-*') become
         * the layout's hosts they match, in layout order; a pattern that matches none is an
         * error, as an unknown name is */
        if (expand_host_patterns(*ret_layout, &o.hosts, &err) < 0) {
                bool json = o.json;
                cli_options_done(&o);
                *ret_layout = layout_free(*ret_layout);
                return json ? cli_report_json(&err) : cli_report(&err);
        }

        /* the arguments before any connection: a host not in the layout is said now, not
         * after SSH to the others */
        const char *opt = "--hosts";
        char **list = o.hosts;
        for (int k = 0; k < 2; k++, opt = "--take-back", list = o.take_back)
                STRV_FOREACH(h, list)
                        if (!layout_find_host(*ret_layout, *h)) {
                                const Layout *l = *ret_layout;
                                _cleanup_(freep) const char **names = calloc(l->n_hosts + 1, sizeof(char *));
                                for (size_t i = 0; names && i < l->n_hosts; i++)
                                        names[i] = l->hosts[i].name;
                                const char *best = names ? cli_nearest_name(*h, names, l->n_hosts) : NULL;
                                _cleanup_(freep) char *hint = best ? strprintf(" (did you mean '%s'?)", best) : NULL;
                                error_set(&err, ENOENT, "host '%s' given with %s is not in layout '%s'%s", *h, opt, l->path,
                                          hint ? hint : "");
                                bool json = o.json;
                                cli_options_done(&o);
                                *ret_layout = layout_free(*ret_layout);
                                return json ? cli_report_json(&err) : cli_report(&err);
                        }
        *ret = o;
        return 0;
}

int cli_read_text(const char *path, char **ret, Error *err) {
        _cleanup_(fclosep) FILE *f = streq(path, "-") ? NULL : fopen(path, "re");
        FILE *in = streq(path, "-") ? stdin : f;
        if (!in)
                return error_set(err, errno, "cannot open '%s': %s", path, strerror(errno));
        _cleanup_(freep) char *buf = NULL;
        size_t len = 0;
        _cleanup_(fclosep) FILE *m = open_memstream(&buf, &len);
        if (!m)
                return error_set(err, ENOMEM, "out of memory");
        char chunk[65536];
        size_t n, total = 0;
        while ((n = fread(chunk, 1, sizeof chunk, in)) > 0) {
                /* what cephprov reads this way is an OSD list or a captured answer: a file
                 * past the limit (or /dev/zero) is not one, and is not read to its end */
                if ((total += n) > CLI_READ_MAX)
                        return error_set(err, EFBIG, "'%s' is larger than %d MiB: not what cephprov reads there", path,
                                         CLI_READ_MAX >> 20);
                fwrite(chunk, 1, n, m);
        }
        if (ferror(in))
                return error_set(err, EIO, "cannot read '%s'", path);
        fclose(TAKE_PTR(m));
        *ret = buf ? TAKE_PTR(buf) : strdup("");
        return *ret ? 0 : error_set(err, ENOMEM, "out of memory");
}
