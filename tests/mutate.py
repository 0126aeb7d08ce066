#!/usr/bin/env python3
"""Mutation testing for hearth's C modules (make mutate, make mutate-ci).

For each module named in tests/mutate/modules.txt (a .c file, the unit tests
and the end-to-end scripts that cover it, its floor) this plants one small
bug at a time -- a mutant -- and asks whether a test notices:

  ror    a comparison flipped or its boundary moved  (== !=, < <=, > >=)
  lcr    && and || swapped
  cond   an if/while condition negated
  const  an integer constant changed (0->1, 1->0, n->n+1; not the capacity
         hint of buf_init nor an index under sizeof, which change nothing)
  ret    a return value replaced by 0 (by 1 where it was 0; not NULL, which is 0)
  del    a call statement deleted (not the calls that only free memory:
         their mutants are the leak checkers' business, see README)

The working tree is never written.  The mutated copy of the file goes to
build/mutate/src/..., is compiled there (with the build's own flags, -O1
to save time; -Werror still rejects mutants that do not compile, which are
counted as "stillborn", not as killed), and linked ahead of
build/libhearth.a into the module's unit tests (so the archive's member
is never pulled) and, when an end-to-end script is needed, into
build/mutate/hearth.  The unit tests run first; only a survivor goes on to
the module's e2e scripts (cheap: most mutants never get there).  Before the
first such mutant, each of the module's e2e scripts runs once against the
unmutated hearth linked the same way: one that fails then is left out of
the run (it would "kill" every mutant), and the time it took bounds it
under a mutant (4 times, at least 60 s, at most --e2e-timeout; at the
bound the script's whole process group is stopped).  A mutant is killed
when a test exits non-zero, crashes or overruns its time; a kill by an e2e
script names the first check that failed.

Mutants that cannot change behaviour are listed in tests/mutate/equivalent.txt
by their key (printed with each survivor) and a reason; they count neither
way.  The score is killed / (killed + survived).

Usage:  tests/mutate.py [--modules a,b] [--sample N] [--no-e2e] [--floor]
                        [--budget SECONDS] [--e2e-timeout SECONDS] [--only KEYS] [--list]
The sample is deterministic: mutants are ordered by a hash of their key,
so the same N are taken on every run while the file is unchanged.
"""
import argparse
import atexit
import hashlib
import os
import re
import shlex
import shutil
import subprocess
import sys
import time

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
MUTDIR = os.path.join(ROOT, "tests", "mutate")
BUILD = os.environ.get("BUILD", "build")
WORK = os.path.join(ROOT, BUILD, "mutate")
MAKE = os.environ.get("MAKE", "make")

# calls that only release memory: deleting them leaks and nothing else
RELEASE = {"free", "buf_release", "cJSON_Delete", "xfree", "git_object_free",
           "git_reference_free", "git_tree_free", "git_commit_free", "git_index_free",
           "git_repository_free", "git_blob_free", "git_signature_free", "git_buf_dispose",
           "git_diff_free", "git_status_list_free", "git_config_free", "git_odb_free",
           "regfree", "curl_slist_free_all", "ts_tree_delete", "ts_parser_delete",
           "ts_query_delete", "ts_query_cursor_delete", "closedir", "fclose", "close",
           "err_clear", "conv_free", "str_free"}


def die(msg):
    sys.stderr.write("mutate: %s\n" % msg)
    sys.exit(2)


# ---------------------------------------------------------------- config files

class Module:
    def __init__(self, name, path, floor, units, e2e):
        self.name, self.path, self.floor = name, path, floor
        self.units, self.e2e = units, e2e


def read_modules():
    mods = []
    fn = os.path.join(MUTDIR, "modules.txt")
    with open(fn) as f:
        for n, line in enumerate(f, 1):
            line = line.split("#", 1)[0].strip()
            if not line:
                continue
            w = line.split()
            if len(w) != 5:
                die("%s:%d: want NAME FILE FLOOR UNITS E2E, got %r" % (fn, n, line))
            units = [] if w[3] == "-" else w[3].split(",")
            e2e = [] if w[4] == "-" else w[4].split(",")
            if not os.path.isfile(os.path.join(ROOT, w[1])):
                die("%s:%d: no file %s" % (fn, n, w[1]))
            mods.append(Module(w[0], w[1], int(w[2]), units, e2e))
    return mods


def read_equivalent():
    eq = {}
    fn = os.path.join(MUTDIR, "equivalent.txt")
    if os.path.exists(fn):
        with open(fn) as f:
            for line in f:
                line = line.strip()
                if not line or line.startswith("#"):
                    continue
                key, _, why = line.partition(" ")
                eq[key] = why.strip()
    return eq


# ---------------------------------------------------------------- mutants

def code_mask(src):
    """src with comments, string and char literals and preprocessor lines
    blanked (same length, newlines kept), so operators are only found in code."""
    out = list(src)
    i, n = 0, len(src)
    line_start = True
    while i < n:
        c = src[i]
        if line_start and c in " \t":
            i += 1
            continue
        if line_start and c == "#":  # preprocessor line (with continuations)
            while i < n and src[i] != "\n":
                if src[i] == "\\" and i + 1 < n and src[i + 1] == "\n":
                    out[i] = " "
                    i += 2
                    continue
                out[i] = " "
                i += 1
            continue
        line_start = False
        if c == "\n":
            line_start = True
            i += 1
        elif src.startswith("/*", i):
            j = src.find("*/", i + 2)
            j = n if j < 0 else j + 2
            for k in range(i, j):
                if out[k] != "\n":
                    out[k] = " "
            i = j
        elif src.startswith("//", i):
            while i < n and src[i] != "\n":
                out[i] = " "
                i += 1
        elif c in "\"'":
            j = i + 1
            while j < n and src[j] != c:
                j += 2 if src[j] == "\\" else 1
            for k in range(i + 1, min(j, n)):
                if out[k] != "\n":
                    out[k] = " "
            i = j + 1
        else:
            i += 1
    return "".join(out)


def match_paren(mask, i):
    """index of the ) closing the ( at mask[i], or -1"""
    depth = 0
    for j in range(i, len(mask)):
        if mask[j] == "(":
            depth += 1
        elif mask[j] == ")":
            depth -= 1
            if depth == 0:
                return j
    return -1


class Mutant:
    def __init__(self, src, path, start, end, repl, op):
        self.path, self.start, self.end, self.repl, self.op = path, start, end, repl, op
        self.orig = src[start:end]
        self.line = src.count("\n", 0, start) + 1
        ls = src.rfind("\n", 0, start) + 1
        le = src.find("\n", end)
        le = len(src) if le < 0 else le
        self.old_line = src[ls:le]
        self.new_line = src[ls:start] + repl + src[end:le]
        # the key survives edits elsewhere in the file: the line's text, the
        # operator, and which of the identical edits on that line it is
        # (and which of the identical lines of the file it is on)
        nth = sum(1 for ln in src[:ls].split("\n") if ln.strip() == self.old_line.strip())
        h = hashlib.sha1(("%s\0%s\0%s\0%d\0%d" % (path, self.old_line.strip(), op,
                                                  start - ls, nth)).encode()).hexdigest()
        self.key = "%s:%s" % (os.path.basename(path), h[:10])

    def apply(self, src):
        return src[:self.start] + self.repl + src[self.end:]

    def diff(self):
        return "%s:%d (%s)\n  - %s\n  + %s" % (self.path, self.line, self.op,
                                               self.old_line.strip(), self.new_line.strip())


ROR = {"==": "!=", "!=": "==", "<": "<=", "<=": "<", ">": ">=", ">=": ">"}


def mutants(path, src):
    mask = code_mask(src)
    out = []
    # only inside braces (function bodies and initialisers), never in the
    # file-scope declarations (a changed prototype does not compile)
    depth = [0] * (len(mask) + 1)
    d = 0
    for i, c in enumerate(mask):
        if c == "{":
            d += 1
        elif c == "}":
            d -= 1
        depth[i] = d
    seen = set()

    def add(s, e, r, op):
        if depth[s] <= 0 or (s, e, r) in seen:
            return
        seen.add((s, e, r))
        out.append(Mutant(src, path, s, e, r, op))

    for m in re.finditer(r"==|!=|<=|>=|<<=?|>>=?|->|<|>", mask):
        t = m.group()
        if t in ROR:
            add(m.start(), m.end(), ROR[t], "ror")
    for m in re.finditer(r"&&|\|\|", mask):
        add(m.start(), m.end(), "||" if m.group() == "&&" else "&&", "lcr")
    for m in re.finditer(r"\b(if|while)\s*\(", mask):
        o = m.end() - 1
        c = match_paren(mask, o)
        if c > o + 1:
            add(o, c + 1, "(!" + src[o:c + 1] + ")", "cond")
    # a buffer's initial capacity is a hint: changing it changes no behaviour
    hints = set()
    for m in re.finditer(r"\bbuf_init\s*\([^,()]+,\s*(\d+)\s*\)", mask):
        hints.add(m.start(1))
    for m in re.finditer(r"(?<![\w.])(\d+)([uUlL]*)(?![\w.])", mask):
        if m.start(1) in hints:
            continue
        # sizeof v[0] is sizeof v[1]: the index under sizeof is never evaluated
        if re.search(r"sizeof\s*\(?\s*[\w.>-]+\[$", mask[max(0, m.start() - 60):m.start()]):
            continue
        lit = m.group(1)
        octal = len(lit) > 1 and lit[0] == "0"
        v = int(lit, 8 if octal else 10)
        nv = 1 if v == 0 else 0 if v == 1 else v + 1
        add(m.start(1), m.end(1), ("0%o" % nv) if octal else str(nv), "const")
    for m in re.finditer(r"\breturn\s+([^;]+);", mask):
        val = m.group(1).strip()
        if val == "NULL":  # NULL is 0: "return 0" returns the same
            continue
        add(m.start(1), m.end(1), "1" if val == "0" else "0", "ret")
    for m in re.finditer(r"(?m)^([ \t]+)((?:\(void\)\s*)?([A-Za-z_]\w*)\s*\()", mask):
        name = m.group(3)
        if name in RELEASE or re.search(r"_(free|free_list|release|delete|destroy)$", name) or \
                name in ("if", "while", "for", "switch", "return", "sizeof"):
            continue
        o = m.end() - 1
        c = match_paren(mask, o)
        if c < 0:
            continue
        rest = mask[c + 1:c + 3]
        if not rest.startswith(";"):
            continue
        # a statement of its own: the previous code character ends one
        k = m.start(2) - 1
        while k >= 0 and mask[k] in " \t\n":
            k -= 1
        if k >= 0 and mask[k] not in ";{}:)":
            continue
        if k >= 0 and mask[k] == ")":  # if (x) call(); : keep the statement
            continue
        add(m.start(2), c + 2, ";", "del")
    out.sort(key=lambda x: (x.start, x.op, x.repl))
    return out


def sample(ms, n):
    """n of ms, the same n on every run: the lowest hashes of their keys"""
    if n is None or n >= len(ms):
        return ms
    pick = sorted(ms, key=lambda x: hashlib.sha1(x.key.encode()).hexdigest())[:n]
    return sorted(pick, key=lambda x: x.start)


# ---------------------------------------------------------------- building

def make_cmds(target):
    """the commands make would run to build target, continuation lines joined"""
    r = subprocess.run([MAKE, "-n", "-B", "--no-print-directory", target], cwd=ROOT,
                       capture_output=True, text=True)
    if r.returncode:
        die("make -n %s failed:\n%s" % (target, r.stderr))
    text = r.stdout.replace("\\\n", " ")
    return [shlex.split(line) for line in text.splitlines() if line.strip()]


class Builder:
    def __init__(self):
        # the archive must be what the sources say: an out-of-date one (a bug
        # planted by hand and reverted, say) would be linked under every mutant
        for t in (os.path.join(BUILD, "libhearth.a"), os.path.join(BUILD, "obj", "src", "main.o")):
            if subprocess.run([MAKE, "-q", t], cwd=ROOT, capture_output=True).returncode:
                die("%s is older than its sources: run make first" % t)
        obj = os.path.join(BUILD, "obj", "src", "base", "fs.o")
        cc = [c for c in make_cmds(obj) if "-c" in c]
        if not cc:
            die("cannot learn the compile command from make -n %s" % obj)
        self.cc = cc[-1]
        lk = [c for c in make_cmds("hearth" if BUILD == "build" else BUILD + "/hearth")
              if "-o" in c]
        self.link_main = lk[-1]
        self.tests = {}
        os.makedirs(WORK, exist_ok=True)
        # a private copy of the archive and main.o: a build in the working
        # tree while this runs must not change what the mutants link against
        # (one per process: two runs side by side must not share them)
        self.lib = os.path.join(WORK, "libhearth.%d.a" % os.getpid())
        self.main_o = os.path.join(WORK, "main.%d.o" % os.getpid())
        # removed however the run ends (a die() on the way, an exception)
        atexit.register(self.cleanup)
        shutil.copyfile(os.path.join(ROOT, BUILD, "libhearth.a"), self.lib)
        shutil.copyfile(os.path.join(ROOT, BUILD, "obj", "src", "main.o"), self.main_o)
        self.link_main = [self.lib if a.endswith("libhearth.a") else
                          self.main_o if a.endswith("/main.o") else a for a in self.link_main]

    def cleanup(self):
        for f in (self.lib, self.main_o):
            if os.path.exists(f):
                os.unlink(f)
        for d in ("tobj.%d", "m.%d"):
            shutil.rmtree(os.path.join(WORK, d % os.getpid()), ignore_errors=True)

    def compile_cmd(self, src, obj, incdir):
        c = list(self.cc)
        i = c.index("-c")
        c[i + 1] = src
        c[c.index("-o") + 1] = obj
        c = [a for a in c if a not in ("-MMD", "-MP")]
        c = ["-O1" if a == "-O2" else a for a in c]
        # a swapped && / || inside a chain is a fair mutant, not a style error
        c.append("-Wno-parentheses")
        # the mutated copy lives elsewhere: its own folder's headers by -I
        c.insert(1, "-I" + incdir)
        return c

    def test_parts(self, name):
        """(compile commands, link command) for unit test name, compiled once"""
        if name in self.tests:
            return self.tests[name]
        target = os.path.join(BUILD, "tests", name)
        cmds = [c for c in make_cmds(target) if "-o" in c and target in c]
        if not cmds:
            die("no unit test %s (make -n %s)" % (name, target))
        cmd = cmds[-1]
        srcs = [a for a in cmd if a.endswith(".c")]
        flags = [a for a in cmd[1:] if not a.endswith((".c", ".a")) and not a.startswith("-l")
                 and not a.startswith("-Wl,") and a not in ("-pthread",)]
        o = flags.index("-o")
        del flags[o:o + 2]
        tdir = os.path.join(WORK, "tobj.%d" % os.getpid(), name)
        os.makedirs(tdir, exist_ok=True)
        objs = []
        for s in srcs:
            ob = os.path.join(tdir, os.path.basename(s)[:-2] + ".o")
            if not os.path.exists(ob) or os.path.getmtime(ob) < os.path.getmtime(os.path.join(ROOT, s)):
                r = subprocess.run([cmd[0]] + flags + ["-c", s, "-o", ob], cwd=ROOT,
                                   capture_output=True, text=True)
                if r.returncode:
                    die("compiling %s for %s:\n%s" % (s, name, r.stderr))
            objs.append(ob)
        rest = [a for a in cmd[1:] if a.endswith(".a") or a.startswith("-l")
                or a.startswith("-Wl,") or a == "-pthread" or a.startswith("-fsanitize")]
        rest = [self.lib if a.endswith("libhearth.a") else a for a in rest]
        self.tests[name] = (cmd[0], objs, rest)
        return self.tests[name]

    def link_test(self, name, mobj, out):
        cc, objs, rest = self.test_parts(name)
        i = rest.index(self.lib) if self.lib in rest else 0
        cmd = [cc] + rest[:i] + ["-o", out] + objs + ([mobj] if mobj else []) + rest[i:]
        return subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True)

    def link_hearth(self, mobj, out):
        c = list(self.link_main)
        c[c.index("-o") + 1] = out
        # ahead of the private copy of the archive (libhearth.PID.a)
        c.insert(c.index(self.lib), mobj)
        return subprocess.run(c, cwd=ROOT, capture_output=True, text=True)


# ---------------------------------------------------------------- running

# ---------------------------------------------------------------- the jail
#
# A planted bug in code that deletes, writes or confines paths can reach
# anything the tests' user can: a restore that prunes past its root, a
# confinement check that lets "/" through (/etc vanished from the
# development machine while unconfined runs went on).  So every test runs in a
# bubblewrap jail where the whole file system is read-only except /tmp,
# /var/tmp and this checkout (the tests' temp directories and the build).
# The jail found a real bug on its first run: hearth kept a workspace's
# checkpoints in /checkpoints before its state directory was set.

JAIL = []


JAIL_TMP = []  # the jail's /tmp and /var/tmp (jail_setup), removed at the end


def jail_setup(mode):
    """fill JAIL for mode require|try|off; exit when require cannot be met"""
    global JAIL
    if mode == "off":
        return
    # the host's /dev and /proc, not new ones: hearth's own sandbox (bwrap
    # --unshare-all, in test_gate and test_sandbox) cannot mount its proc
    # under a jail's fresh one
    cmd = ["bwrap", "--die-with-parent", "--ro-bind", "/", "/", "--dev-bind", "/dev", "/dev",
           "--bind", "/proc", "/proc", "--bind", ROOT, ROOT]
    # /tmp and /var/tmp are the run's own (under WORK), not the machine's: a
    # planted bug once left the machine's /tmp at mode 0700 (a chmod meant
    # for a directory below it), which failed every later test run as nobody
    for d in ("tmp", "var-tmp"):
        p = os.path.join(WORK, "%s.%d" % (d, os.getpid()))
        os.makedirs(p, exist_ok=True)
        os.chmod(p, 0o1777)
        JAIL_TMP.append(p)
        cmd += ["--bind", p, "/" + d.replace("-", "/")]
    cmd += ["--setenv", "TMPDIR", "/tmp"]
    probe = "touch /usr/.hearth-jail-probe 2>/dev/null && exit 1; exit 0"
    try:
        ok = subprocess.run(cmd + ["sh", "-c", probe], capture_output=True, timeout=30).returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        ok = False
    if ok:
        JAIL = cmd
        print("mutate: tests run in a bwrap jail: / read-only but for %s, with a /tmp and /var/tmp "
              "of their own" % ROOT)
        return
    if mode == "require":
        die("bwrap cannot make the read-only jail the tests run in (a planted bug may delete "
            "anything the tests' user can): install bubblewrap, or pass --jail try|off")
    print("mutate: warning: no bwrap jail here: the tests run unconfined")


def run_unit(binary, timeout):
    try:
        r = subprocess.run(JAIL + [binary], cwd=ROOT, capture_output=True, timeout=timeout,
                           env=dict(os.environ, CMOCKA_MESSAGE_OUTPUT="stdout"))
        return r.returncode == 0
    except subprocess.TimeoutExpired:
        return False


def run_e2e(script, hearth, timeout):
    """(passed, the first failed check or why it failed) for one e2e script
    run against hearth; the script's whole process group goes at the timeout
    (it starts mocks and tmux servers of its own, which its trap then kills)"""
    env = dict(os.environ, HEARTH_BIN=hearth, BUILD=BUILD, E2E_ROOT=ROOT)
    p = subprocess.Popen(JAIL + ["sh", os.path.join("tests", "e2e", script)], cwd=ROOT, env=env,
                         stdout=subprocess.PIPE, stderr=subprocess.STDOUT, start_new_session=True)
    try:
        out = p.communicate(timeout=timeout)[0].decode("utf-8", "replace")
    except subprocess.TimeoutExpired:
        # TERM first so the script's trap stops what it started, then KILL
        for sig, wait in ((15, 10), (9, 10)):
            try:
                os.killpg(p.pid, sig)
            except ProcessLookupError:
                break
            try:
                p.communicate(timeout=wait)
                break
            except subprocess.TimeoutExpired:
                continue
        return False, "timed out after %.0f s" % timeout
    if p.returncode == 0:
        return True, ""
    bad = [ln for ln in out.splitlines() if ln.startswith("not ok")]
    return False, bad[0][:100] if bad else "exit %d" % p.returncode


def timed(fn, *a):
    t = time.monotonic()
    ok = fn(*a)
    return ok, time.monotonic() - t


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--modules", default="", help="names from tests/mutate/modules.txt (comma or space)")
    ap.add_argument("--sample", type=int, default=None, help="at most N mutants per module")
    ap.add_argument("--no-e2e", action="store_true", help="unit tests only")
    ap.add_argument("--e2e-timeout", type=float, default=600,
                    help="at most SECONDS for one e2e script (else 4x its time without a mutant, 60 s at least)")
    ap.add_argument("--floor", action="store_true", help="exit 1 when a module scores below its floor")
    ap.add_argument("--floor-override", type=int, default=None, help="one floor for every module")
    ap.add_argument("--floor-total", type=int, default=None,
                    help="with --floor: hold the score over all modules to this floor instead "
                    "(a small sample per module is too coarse for per-module floors)")
    ap.add_argument("--budget", type=float, default=None, help="stop starting mutants after SECONDS")
    ap.add_argument("--list", action="store_true", help="list the mutants, run nothing")
    ap.add_argument("--only", default="", help="run only the mutants with these keys (comma or "
                    "space separated; @FILE reads them from a file): a survivor again after a new test")
    ap.add_argument("--quiet", action="store_true", help="no line per mutant")
    ap.add_argument("--jail", choices=("require", "try", "off"), default="require",
                    help="run the tests in a bwrap jail with / read-only but for the checkout, and a "
                    "/tmp and /var/tmp of their own: require it (default), use it when bwrap can, or not")
    args = ap.parse_args()

    mods = read_modules()
    want = [m for m in re.split(r"[,\s]+", args.modules) if m]
    if want:
        names = {m.name for m in mods}
        for w in want:
            if w not in names:
                die("no module %r in tests/mutate/modules.txt (known: %s)" % (w, " ".join(sorted(names))))
        mods = [m for m in mods if m.name in want]
    eq = read_equivalent()
    only = args.only
    if only.startswith("@"):
        only = open(only[1:]).read()
    only = set(k for k in re.split(r"[,\s]+", only) if k)

    def pick(ms):
        ms = sample(ms, args.sample)
        return [x for x in ms if x.key in only] if only else ms

    if args.list:
        for m in mods:
            src = open(os.path.join(ROOT, m.path)).read()
            ms = pick(mutants(m.path, src))
            for x in ms:
                print("%s %s %s" % (m.name, x.key, x.diff().replace("\n", " |")))
        return 0

    jail_setup(args.jail)
    b = Builder()
    start = time.monotonic()
    e2e_runs = 0
    rows = []
    below = []
    for m in mods:
        src = open(os.path.join(ROOT, m.path)).read()
        ms = pick(mutants(m.path, src))
        if not ms:
            continue
        if args.budget and time.monotonic() - start > args.budget:
            rows.append((m, len(ms), 0, 0, 0, 0, 0.0, m.floor, [], True))
            continue
        # the process's own: two runs side by side may take the same module
        mdir = os.path.join(WORK, "m.%d" % os.getpid(), m.name)
        os.makedirs(mdir, exist_ok=True)
        mpath = os.path.join(mdir, os.path.basename(m.path))
        mobj = mpath[:-2] + ".o"
        incdir = os.path.join(ROOT, os.path.dirname(m.path))
        # baseline: the unmutated file through the same pipeline must pass
        shutil.copyfile(os.path.join(ROOT, m.path), mpath)
        r = subprocess.run(b.compile_cmd(mpath, mobj, incdir), cwd=ROOT, capture_output=True, text=True)
        if r.returncode:
            die("%s: the unmutated copy does not compile:\n%s" % (m.name, r.stderr))
        base_t = {}
        for t in m.units:
            out = os.path.join(mdir, t)
            r = b.link_test(t, mobj, out)
            if r.returncode:
                die("%s: linking %s:\n%s" % (m.name, t, r.stderr))
            ok, dt = timed(run_unit, out, 600)
            if not ok:
                die("%s: %s fails without a mutant; fix the tests first" % (m.name, t))
            base_t[t] = dt
        killed = survived = stillborn = equiv = 0
        e2e_t = {}  # script -> its seconds without a mutant (None: fails so)
        survivors = []
        timed_out = False
        for x in ms:
            if args.budget and time.monotonic() - start > args.budget:
                timed_out = True
                break
            if x.key in eq:
                equiv += 1
                continue
            with open(mpath, "w") as f:
                f.write(x.apply(src))
            r = subprocess.run(b.compile_cmd(mpath, mobj, incdir), cwd=ROOT,
                               capture_output=True, text=True)
            if r.returncode:
                stillborn += 1
                if not args.quiet:
                    print("  %-10s %-8s %s  %s:%d %s" % (m.name, "stillborn", x.key, m.path, x.line,
                          x.op), flush=True)
                continue
            dead, by = False, ""
            for t in m.units:
                out = os.path.join(mdir, t)
                if b.link_test(t, mobj, out).returncode:
                    # the mutant defines what the original did: a failed link is
                    # the build's trouble, never a test catching the bug
                    die("%s: linking %s failed for mutant %s; is the build being rewritten?"
                        % (m.name, t, x.key))
                if not run_unit(out, max(10, 5 * base_t[t])):
                    dead, by = True, t
                    break
            if not dead and m.e2e and not args.no_e2e:
                hb = os.path.join(mdir, "hearth")
                if not e2e_t:
                    # the e2e baseline, once per module and only when a mutant
                    # gets this far: the unmutated hearth linked the same way
                    # must pass each script (one that fails or skips everything
                    # without a mutant would "kill" every mutant: left out)
                    shutil.copyfile(os.path.join(ROOT, m.path), mpath)
                    r = subprocess.run(b.compile_cmd(mpath, mobj, incdir), cwd=ROOT,
                                       capture_output=True, text=True)
                    if r.returncode or b.link_hearth(mobj, hb).returncode:
                        die("%s: linking the unmutated hearth failed" % m.name)
                    for sc in m.e2e:
                        ok, dt = timed(lambda: run_e2e(sc, hb, args.e2e_timeout)[0])
                        if ok:
                            e2e_t[sc] = dt
                        else:
                            print("  %-10s %s fails without a mutant (%.0f s): left out of this run"
                                  % (m.name, sc, dt), flush=True)
                            e2e_t[sc] = None
                    with open(mpath, "w") as f:
                        f.write(x.apply(src))
                    r = subprocess.run(b.compile_cmd(mpath, mobj, incdir), cwd=ROOT,
                                       capture_output=True, text=True)
                    if r.returncode:
                        die("%s: mutant %s compiled once and not again" % (m.name, x.key))
                if b.link_hearth(mobj, hb).returncode:
                    die("%s: linking hearth failed for mutant %s" % (m.name, x.key))
                for sc in m.e2e:
                    if dead or e2e_t.get(sc) is None:
                        continue
                    # bounded: a few times the script's own time without a mutant
                    ok, why = run_e2e(sc, hb, min(args.e2e_timeout, max(60, 4 * e2e_t[sc])))
                    if not ok:
                        dead, by = True, "%s (%s)" % (sc, why)
                    e2e_runs += 1
            if dead:
                killed += 1
            else:
                survived += 1
                survivors.append(x)
            if not args.quiet:
                print("  %-10s %-8s %s  %s:%d %s" % (m.name, "killed" if dead else "SURVIVED",
                      x.key, m.path, x.line, ("by " + by) if dead else x.op), flush=True)
        # the unmutated object again (the directory is scratch, but keep it honest)
        shutil.copyfile(os.path.join(ROOT, m.path), mpath)
        tot = killed + survived
        score = 100.0 * killed / tot if tot else 0.0
        floor = args.floor_override if args.floor_override is not None else m.floor
        rows.append((m, len(ms), killed, survived, stillborn, equiv, score, floor, survivors, timed_out))
        if tot and score < floor:
            below.append(m.name)

    print()
    for m, n, k, s, sb, eqn, score, floor, survivors, to in rows:
        for x in survivors:
            print("survivor %s %s\n%s" % (m.name, x.key, x.diff()))
    print()
    print("%-11s %-28s %7s %6s %8s %9s %5s %6s %5s" % ("module", "file", "mutants", "killed",
          "survived", "stillborn", "equiv", "score", "floor"))
    tk = ts = 0
    for m, n, k, s, sb, eqn, score, floor, survivors, to in rows:
        tk, ts = tk + k, ts + s
        print("%-11s %-28s %7d %6d %8d %9d %5d %6s %4d%%%s" % (
            m.name, m.path, n, k, s, sb, eqn, ("%5.1f%%" % score) if k + s else "-", floor,
            "  BELOW" if m.name in below else "") + ("  (time box: stopped early)" if to else ""))
    if tk + ts:
        print("%-11s %-28s %7s %6d %8d %9s %5s %5.1f%%" % ("all", "", "", tk, ts, "", "",
              100.0 * tk / (tk + ts)))
    print("time: %.0f s%s" % (time.monotonic() - start,
          (", %d e2e script runs for unit-test survivors" % e2e_runs) if e2e_runs else ""))
    b.cleanup()
    for p in JAIL_TMP:  # what the tests left there, directories made read-only included
        for d, _, _ in os.walk(p):
            os.chmod(d, 0o700)
        shutil.rmtree(p, ignore_errors=True)
    if args.floor and args.floor_total is not None:
        total = 100.0 * tk / (tk + ts) if tk + ts else 100.0
        if total < args.floor_total:
            print("mutate: the sample scores %.1f%%, below the floor of %d%% (kill the survivors "
                  "above with a test, or list a mutant that cannot change behaviour in "
                  "tests/mutate/equivalent.txt with the reason)" % (total, args.floor_total))
            return 1
        print("mutate: the sample scores %.1f%%, at or above the floor of %d%%" % (total, args.floor_total))
        return 0
    if args.floor and below:
        print("mutate: below the floor: %s (kill the survivors above with a test, or list a "
              "mutant that cannot change behaviour in tests/mutate/equivalent.txt with the reason)"
              % " ".join(below))
        return 1
    if args.floor and args.floor_total is None:
        print("mutate: every module scored is at or above its floor")
    return 0


if __name__ == "__main__":
    sys.exit(main())
