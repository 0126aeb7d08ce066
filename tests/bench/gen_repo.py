#!/usr/bin/env python3
"""tests/bench/gen_repo.py DIR [NFILES]: a generated repository for make bench.

NFILES (default 30,000) source-like files of 20-120 lines in a tree of
directories, a .gitattributes shaped like git's own (text eol=lf on
scripts, eol=crlf on *.bat, diff drivers, whitespace rules), a .gitignore,
committed with the git CLI.  Deterministic (fixed seed)."""
import os, random, subprocess, sys

root = sys.argv[1]
n = int(sys.argv[2]) if len(sys.argv) > 2 else 30000
rnd = random.Random(16)
words = ("static int char const struct return while for if else void size_t buf "
         "len data next prev node list tree hash index entry path name value count "
         "error file line read write open close alloc free init parse token").split()
exts = [".c", ".h", ".py", ".sh", ".txt", ".md", ".js", ".go"]
os.makedirs(root, exist_ok=True)
with open(os.path.join(root, ".gitattributes"), "w") as f:
    f.write("* whitespace=!indent,trail,space\n"
            "*.[ch] whitespace=indent,trail,space diff=cpp\n"
            "*.sh whitespace=indent,trail,space text eol=lf\n"
            "*.py text eol=lf diff=python\n"
            "*.md text eol=lf\n"
            "*.bat text eol=crlf\n"
            "/docs/** text eol=lf\n")
with open(os.path.join(root, ".gitignore"), "w") as f:
    f.write("*.o\n/build/\n*.log\n")
for i in range(n):
    d = os.path.join(root, "d%02d" % (i // 1000), "s%02d" % (i // 50 % 20))
    if i % 50 == 0:
        os.makedirs(d, exist_ok=True)
    ext = exts[i % len(exts)] if i % 200 else ".bat"
    lines = []
    for k in range(rnd.randint(20, 120)):
        lines.append(" ".join(rnd.choice(words) for _ in range(rnd.randint(3, 10))))
    if i % 997 == 0:
        lines.insert(rnd.randint(0, len(lines)), "needle_rare_token(%d);" % i)
    nl = "\r\n" if ext == ".bat" else "\n"
    with open(os.path.join(d, "f%05d%s" % (i, ext)), "w", newline="") as f:
        f.write(nl.join(lines) + nl)
env = dict(os.environ, GIT_AUTHOR_NAME="b", GIT_AUTHOR_EMAIL="b@b",
           GIT_COMMITTER_NAME="b", GIT_COMMITTER_EMAIL="b@b")
for cmd in (["git", "init", "-q"], ["git", "add", "-A"],
            ["git", "-c", "gc.auto=0", "commit", "-qm", "base"]):
    subprocess.run(cmd, cwd=root, env=env, check=True, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL)
