/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* For the unit tests whose cluster is a FAKE that answers the `ceph` CLI by its words (a
 * stand-in script, or a dispatcher that keeps a small cluster): the agent's "ceph-command"
 * request (librados on a real admin host) answered by handing each command, as the argv
 * the CLI would run (ceph --cluster C WORDS..., "-i -" with its input on stdin), to the
 * test's "run" handler, and its {exit, stdout, stderr} back as librados would have answered:
 * rc = -exit, status = stderr without the CLI's "Error EXXX: ", out = stdout. */

#include <json-c/json.h>

/* `run(run_args, userdata)`: the test's answer to a "run" op's args ({argv, stdin}): a
 * result {exit, stdout, stderr}, or NULL with *ret_error set (an agent error). */
typedef json_object *(*CephAsRunFn)(json_object *run_args, void *userdata, int *ret_errno, char **ret_error);

/* The "ceph-command" op's result for `args`, or NULL with *ret_errno and *ret_error when the
 * single command's run failed (the agent could not answer). */
json_object *ceph_as_run(json_object *args, const char *binary, CephAsRunFn run, void *userdata, int *ret_errno,
                         char **ret_error);
