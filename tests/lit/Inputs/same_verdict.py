#!/usr/bin/env python3
"""same_verdict.py CHOREO FILE...: every schedule given, or embedded in a lit
test as a `#--- NAME.json` section, is proved by `choreo verify` and by
`choreo verify --distributed`; the two must exit alike and print the same
diagnostics (standard error) and the same verdict line up to the
distributed run's summary in parentheses. Once a send fails availability
at step s, the explicit engine goes on with what the sender really held and
the distributed proof with what the receiver was told
(docs/distributed-proof.md): then completeness, and exactly-once and
operand order from step s on, may differ, and so may the count of failing
properties. Prints one line per schedule and a count; exits 1 on the first
difference."""
import os
import re
import subprocess
import sys
import tempfile


def sections(path):
    """(name, text) of every JSON schedule in a file."""
    with open(path) as f:
        text = f.read()
    if not path.endswith(".test"):
        return [(os.path.basename(path), text)]
    out, name, lines = [], None, []
    for line in text.splitlines(keepends=True):
        m = re.match(r"#--- (\S+)", line)
        if m:
            if name and name.endswith(".json"):
                out.append((name, "".join(lines)))
            name, lines = m.group(1), []
        elif name:
            lines.append(line)
    if name and name.endswith(".json"):
        out.append((name, "".join(lines)))
    return [(os.path.basename(path) + ":" + n, t) for n, t in out]


def blocks(err):
    """The diagnostics of standard error: each error line with its notes."""
    out = []
    for line in err.splitlines():
        if line.startswith("error: ") or not out:
            out.append([line])
        else:
            out[-1].append(line)
    return out


def step_of(block):
    m = re.match(r"error: step (\d+):", block[0])
    return int(m.group(1)) if m else None


def comparable(err, s0):
    """The diagnostics that must agree when availability failed at s0."""
    if s0 is None:
        return blocks(err)
    keep = []
    for b in blocks(err):
        head = b[0]
        if head.startswith("error: after the last step") or \
                head.startswith("error: with no steps"):
            continue
        later = step_of(b) is not None and step_of(b) >= s0
        if later and ("a second time" in head or
                      "is not commutative" in head):
            continue
        keep.append(b)
    return keep


def first_availability(err):
    for b in blocks(err):
        if " before holding" in b[0] or ", but holds it with" in b[0]:
            return step_of(b)
    return None


def run(choreo, args):
    p = subprocess.run([choreo, "verify"] + args, capture_output=True,
                       text=True, stdin=subprocess.DEVNULL)
    return p.returncode, p.stdout, p.stderr


def main():
    choreo, files = sys.argv[1], sys.argv[2:]
    count = 0
    with tempfile.TemporaryDirectory() as tmp:
        for path in files:
            for name, text in sections(path):
                f = os.path.join(tmp, "s.json")
                with open(f, "w") as out:
                    out.write(text)
                a = run(choreo, [f])
                b = run(choreo, ["--distributed", f])
                out_b = re.sub(r" \(distributed: [^)]*\)$", "", b[1],
                               flags=re.M)
                s0 = first_availability(a[2])
                if s0 is not None:
                    out_a = re.sub(r": \d+ propert(y|ies) fails?$", "", a[1],
                                   flags=re.M)
                    out_b = re.sub(r": \d+ propert(y|ies) fails?$", "",
                                   out_b, flags=re.M)
                else:
                    out_a = a[1]
                if a[0] != b[0] or out_a != out_b or \
                        comparable(a[2], s0) != comparable(b[2], s0):
                    print(f"DIFFER {name}: exit {a[0]} vs {b[0]}")
                    print("--- verify:\n" + a[2] + a[1])
                    print("--- verify --distributed:\n" + b[2] + b[1])
                    return 1
                print(f"same {name}: exit {a[0]}")
                count += 1
    print(f"{count} schedules: same verdicts and diagnostics")
    return 0


if __name__ == "__main__":
    sys.exit(main())
