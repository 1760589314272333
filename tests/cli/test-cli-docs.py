#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""cli tier: the documentation's examples still work (README.md, docs/*.md, playbooks/README.md).

What the fenced blocks mean (docs/README conventions, also in README.md "Documentation"):
  ```yaml            a whole layout (top level cluster:/hosts:) or playbook (playbook:):
                     `cephprov validate` must accept it
  ```yaml fragment   a deliberately partial piece (one section, some steps): not validated
  ```synopsis        each line is a verb's usage line, exactly as `cephprov VERB --help`
                     prints it (without "usage: ")
  ```console         `$ cephprov ...` lines are run from the repository top as written; the
                     lines under one, up to the next `$`, are its output (stdout and stderr),
                     compared exactly; with no output shown it must exit 0, with an output
                     that says "error:" it must fail
  ```sh              lines that start with `cephprov` are run the same way (no output shown)
Commands that need hosts (apply, inventory, status, drain, run, lock, plan without
--inventory, convert and replace without --dry-run --inventory) are listed and skipped here with the reason; the lab test docs-hosts
(tests/lab/test-docs-hosts.sh) runs the plans and dry runs among them on a real host.
Paths a doc names in backquotes (src/..., tests/..., layouts/..., playbooks/..., contrib/...,
docs/...) and relative Markdown links must exist.

usage: test-cli-docs.py CEPHPROV SRCDIR [--host-commands]
  --host-commands  print the command lines that need hosts (FILE:LINE<TAB>COMMAND), one a
                   line, for the lab tier to run, and check nothing
"""
import glob
import os
import re
import shlex
import subprocess
import sys
import shutil
import tempfile

try:
    import yaml
except ImportError:  # python3-yaml: only the fragments' YAML syntax goes unchecked
    yaml = None

cephprov, src = sys.argv[1], sys.argv[2]
list_host_commands = "--host-commands" in sys.argv[3:]
cephprov = os.path.abspath(cephprov)
src = os.path.abspath(src)
checks = failures = 0
offline_verbs = {"validate", "help", "version", "--version", "-V", "--help", "-h"}


def check(what, ok, detail=""):
    global checks, failures
    checks += 1
    if ok:
        print(f"ok   {what}")
    else:
        failures += 1
        print(f"FAIL {what}" + (f"\n  {detail}" if detail else ""))


def blocks(path):
    """(line of the opening fence, info string, lines) of each fenced block."""
    lines = open(path, encoding="utf-8").read().split("\n")
    i = 0
    while i < len(lines):
        m = re.match(r"^(\s*)```(.*)$", lines[i])
        if not m:
            i += 1
            continue
        indent, info = len(m.group(1)), m.group(2).strip()
        j = i + 1
        while j < len(lines) and not re.match(r"^\s*```\s*$", lines[j]):
            j += 1
        yield i + 1, info, [l[indent:] if l[:indent].strip() == "" else l for l in lines[i + 1:j]]
        i = j + 1


# The examples name the usual key files (~/.ssh/id_ed25519) and validate checks that an
# identity exists: they run with a HOME of their own that has them (empty files).
_home = None


def doc_home():
    global _home
    if _home is None:
        import atexit, shutil, tempfile
        _home = tempfile.mkdtemp(prefix="cephprov-docs-home.")
        atexit.register(shutil.rmtree, _home, True)
        os.makedirs(os.path.join(_home, ".ssh"))
        for f in ("id_ed25519", "id_ecdsa", "known_hosts"):
            open(os.path.join(_home, ".ssh", f), "w").close()
    return _home


def run(argv):
    p = subprocess.run(argv, cwd=src, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, text=True,
                       env=dict(os.environ, LC_ALL="C", NO_COLOR="1", HOME=doc_home()))
    return p.returncode, p.stdout.rstrip("\n")


def needs_hosts(argv):
    """Why a cephprov command line cannot run offline, or None."""
    verb = argv[1] if len(argv) > 1 else ""
    if "--help" in argv or "-h" in argv or verb in offline_verbs:
        return None
    if verb == "plan":
        return None if "--inventory" in argv else "plan without --inventory inventories the hosts live"
    if verb in ("convert", "replace"):
        return None if "--dry-run" in argv and "--inventory" in argv else f"{verb} without --dry-run --inventory needs the hosts"
    return f"'{verb}' connects to the hosts"


def run_command(where, line, expected):
    argv = shlex.split(line)
    argv[0] = cephprov
    why = needs_hosts(argv)
    if list_host_commands:
        if why:
            print(f"{where}\t{line}")
        return
    if why:
        print(f"skip {where}: {line}: {why} (lab tier)")
        return
    rc, out = run(argv)
    if expected:
        want = "\n".join(expected)
        check(f"{where}: {line}: prints what the doc shows", out == want,
              f"got:\n{out}\n  doc shows:\n{want}")
        if "error:" in want:
            check(f"{where}: {line}: fails, as the doc shows", rc != 0, f"exit {rc}")
        else:
            check(f"{where}: {line}: exits 0", rc == 0, f"exit {rc}")
    else:
        check(f"{where}: {line}: exits 0", rc == 0, f"exit {rc}: {out}")


def yaml_top_keys(lines):
    return {m.group(1) for m in (re.match(r"^([A-Za-z_][A-Za-z0-9_]*):", l) for l in lines) if m}


def check_quiet(*a, **kw):
    pass


if list_host_commands:
    check = check_quiet  # noqa: F811 (listing only)

docs = [os.path.join(src, "README.md"), os.path.join(src, "playbooks", "README.md")] + \
    sorted(glob.glob(os.path.join(src, "docs", "*.md")))
docs = [d for d in docs if os.path.exists(d)]
tmp = tempfile.mkdtemp()
n_yaml = n_fragments = n_commands = 0
for doc in docs:
    rel = os.path.relpath(doc, src)
    for line, info, body in blocks(doc):
        where = f"{rel}:{line}"
        words = info.split()
        kind = words[0] if words else ""
        if kind == "yaml" and "fragment" in words[1:]:
            # partial, but still YAML a reader can paste into a layout
            n_fragments += 1
            if yaml is None:
                print(f"note {where}: python3-yaml is not installed: the fragment is not parsed")
                continue
            try:
                yaml.safe_load("\n".join(body))
                ok, detail = True, ""
            except yaml.YAMLError as e:
                ok, detail = False, str(e).replace("\n", " ")
            check(f"{where}: the yaml fragment parses", ok, detail)
            continue
        if kind == "yaml":
            n_yaml += 1
            top = yaml_top_keys(body)
            check(f"{where}: a yaml block is a layout or a playbook (else mark it 'yaml fragment')",
                  bool(top & {"cluster", "hosts", "playbook"}), f"top-level keys: {sorted(top)}")
            # the same base name as the doc's, so a message that names the file reads well
            path = os.path.join(tmp, f"{os.path.basename(rel)[:-3]}-{line}.yaml")
            with open(path, "w", encoding="utf-8") as f:
                f.write("\n".join(body) + "\n")
            rc, out = run([cephprov, "validate", path])
            check(f"{where}: cephprov validate accepts the example", rc == 0, out)
        elif kind == "synopsis":
            for k, s in enumerate(body):
                if not s.strip():
                    continue
                verb = s.split()[1]
                rc, out = run([cephprov, verb, "--help"])
                first = out.split("\n")[0]
                check(f"{rel}:{line + 1 + k}: synopsis of '{verb}' is its --help usage", first.rstrip() == "usage: " + s,
                      f"--help says: {first}")
        elif kind == "console":
            cmd, cmd_line, expected = None, 0, []
            for k, s in enumerate(body + ["$ "]):
                if s.startswith("$ "):
                    if cmd:
                        n_commands += 1
                        run_command(f"{rel}:{cmd_line}", cmd, expected)
                    cmd, cmd_line, expected = (s[2:] if s[2:].startswith("cephprov ") or s[2:] == "cephprov" else None), line + 1 + k, []
                elif cmd is not None:
                    expected.append(s)
        elif kind == "sh":
            for k, s in enumerate(body):
                s = re.sub(r"\s+#.*$", "", s)
                if s.startswith("cephprov ") or s == "cephprov":
                    n_commands += 1
                    run_command(f"{rel}:{line + 1 + k}", s, [])
    # every command line a doc shows belongs in a console or sh block
    text = open(doc, encoding="utf-8").read()
    for m in re.finditer(r"^```\s*\n\$ cephprov", text, re.M):
        lineno = text[:m.start()].count("\n") + 1
        check(f"{rel}:{lineno}: a block of '$ cephprov' lines is marked 'console'", False)

    # paths the doc names must exist (relative to the repository top, or to the doc)
    base = os.path.dirname(doc)
    names = set(re.findall(r"`((?:src|tests|layouts|playbooks|contrib|docs|man|shell-completion)/[A-Za-z0-9_./*-]*)`", text))
    names |= {m for m in re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", text) if "://" not in m and not m.startswith("mailto:")}
    names |= set(re.findall(r"`([a-z0-9-]+\.yaml)`", text)) if rel.startswith("playbooks/") else set()
    for name in sorted(names):
        found = any(glob.glob(os.path.join(b, name)) for b in (src, base))
        check(f"{rel}: names '{name}', which exists", found)

shutil.rmtree(tmp)
if list_host_commands:
    sys.exit(0)
check("the docs have yaml examples that are validated", n_yaml >= 3)
check("the docs have command lines that are run or listed", n_commands >= 3)
print(f"{n_yaml} yaml examples validated, {n_fragments} fragments, {n_commands} command lines")
print(f"{checks} checks, {failures} failed")
sys.exit(0 if checks > 0 and failures == 0 else 1)
