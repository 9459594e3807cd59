#!/usr/bin/env python3
"""The prove --all table in docs/templates.md and the list in README.md.

Runs `choreo prove --all --markdown` once and writes its table between the
`<!-- prove-all -->` and `<!-- /prove-all -->` lines of docs/templates.md,
and a line per family (its templates, its obligations, how many proved for
every parameter value) between the same markers in README.md. With
--check, writes nothing and fails (exit 1) if either file says something
else than the run (times aside), or if the run fails: the ctest prove.all.

usage: scripts/prove_table.py CHOREO [--check] [--root DIR] [-- ARGS...]
  CHOREO  the choreo binary
  --root  the source tree (default: this script's parent)
  ARGS    more arguments for `choreo prove --all` (--allow-bounded ...)
"""

import re
import subprocess
import sys
import time
from pathlib import Path

BEGIN, END = "<!-- prove-all -->", "<!-- /prove-all -->"


def run(choreo, extra):
    start = time.monotonic()
    p = subprocess.run([choreo, "prove", "--all", "--markdown", *extra],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       text=True, stdin=subprocess.DEVNULL)
    wall = time.monotonic() - start
    sys.stderr.write(p.stderr)
    return p.returncode, p.stdout, wall


def rows(table):
    """The table's rows as lists of cells (header and rule skipped)."""
    out = []
    for line in table.splitlines():
        if not line.startswith("| ") or line.startswith("| family"):
            continue
        out.append([c.strip() for c in line.strip().strip("|").split("|")])
    return out


def readme_list(table):
    """One line per family: its templates and what is proved of them."""
    fams, order = {}, []
    for r in rows(table):
        fam, tpl = r[0], r[1]
        if tpl == "(domains)":
            continue
        if fam not in fams:
            fams[fam] = []
            order.append(fam)
        fams[fam].append(r)
    lines = []
    for fam in order:
        rs = fams[fam]
        obs = sum(int(r[3]) for r in rs if r[3].isdigit())
        unb = sum(int(r[4]) for r in rs if r[4].isdigit())
        names = ", ".join(r[1] for r in rs)
        who = ("no generator (built in)" if fam == "none" else fam)
        verdict = ("every one for every parameter value" if obs == unb
                   else f"{unb} for every parameter value")
        lines.append(f"- {who}: {names}; {obs} obligations, {verdict}")
    return "\n".join(lines) + "\n"


def without_times(text):
    """Text with the seconds column and the total's time blanked."""
    text = re.sub(r"\| [0-9.]+ \|\n", "| |\n", text)
    return re.sub(r"\(([0-9.]+) s\)", "(s)", text)


def splice(path, body, check):
    text = path.read_text()
    if BEGIN not in text or END not in text:
        sys.exit(f"error: {path}: no {BEGIN} ... {END} section")
    head, rest = text.split(BEGIN, 1)
    old, tail = rest.split(END, 1)
    new = f"{head}{BEGIN}\n{body}{END}{tail}"
    if check:
        if without_times(old.strip()) != without_times(body.strip()):
            print(f"error: {path} does not say what `choreo prove --all` "
                  f"says: run scripts/prove_table.py CHOREO to update it")
            return False
        return True
    path.write_text(new)
    return True


def main(argv):
    args, extra = argv, []
    if "--" in argv:
        i = argv.index("--")
        args, extra = argv[:i], argv[i + 1:]
    check = "--check" in args
    root = Path(__file__).resolve().parent.parent
    if "--root" in args:
        root = Path(args[args.index("--root") + 1])
    pos = [a for i, a in enumerate(args)
           if not a.startswith("--") and (i == 0 or args[i - 1] != "--root")]
    if len(pos) != 1:
        sys.exit(__doc__)
    code, table, wall = run(pos[0], extra)
    sys.stdout.write(table)
    print(f"wall time: {wall:.1f} s")
    if code != 0:
        print(f"error: choreo prove --all exited {code}")
        return 1
    ok = splice(root / "docs" / "templates.md", table, check)
    ok &= splice(root / "README.md", readme_list(table), check)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
