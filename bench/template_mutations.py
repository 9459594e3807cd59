#!/usr/bin/env python3
"""template_mutations.py: one-token mutations of every built-in template.

For each template (template/builtin/*.choreo, every one `choreo prove --all`
proves), makes N deterministic one-token mutations of the schedule's text and
proves each mutant with `choreo prove --first`:

  refuted   the prover gives a counterexample; its parameter values are then
            expanded with `choreo gen --template MUTANT ...` and the explicit
            engine (`choreo verify`) must fail that instance: "replayed" (or
            "not replayed" if it passes, or if the expansion refuses it);
  equivalent  the mutant is still proved for every parameter value (the
            mutation does not change what the schedule does: listed by name),
            or is proved with holds lines of its own (PROVED_WITH_HOLDS);
  undecided the prover neither proves nor refutes it (an unknown or a
            timed-out obligation); such a mutant is then expanded at every
            parameter value with each parameter in [0, 4] and checked by
            the explicit engine: refuted "by the explicit engine alone"
            where it fails one, else undecided, with the number of values
            it passes;
  invalid   the mutant does not parse or type-check (exit 2): it does not
            count, and another mutation is drawn.

The mutations (of op lines `#N ...` and `stage ... steps E` lines; the
`holds` lines are proof annotations, not the schedule, and are left alone):
  index+1, index-1   a message index  m[E] -> m[(E) + 1]
  from+1, from-1     the sending endpoint shifted
  to+1, to-1         the receiving endpoint shifted
  lo+1, hi+1, hi-1   a loop bound [A, B) moved by one
  swap               a loop's bounds swapped: [B, A)
  guard-drop         `if C:` removed
  guard-negate       `if C:` -> `if not (C):`
  steps+1, steps-1   a stage's step count moved by one
  const, op, cmp, var  any other token of an op line: an integer constant
                     moved by one, `+` and `-` swapped, a comparison flipped,
                     a parameter or the step `i` replaced by another one;
                     and a comparison of the `domain` line flipped
  exp+1, exp-1       a `pow2(E)` exponent moved by one
  op xor->+, xor->-  a bit flip made a sum or a difference
Where a line has several places for one kind, `@C` names the column.
The candidates of a template are shuffled with a seed made from its name, and
taken in that order until N valid mutants are drawn.

usage: bench/template_mutations.py CHOREO [--count N] [--templates A,B,...]
                                   [--timeout S] [--markdown] [--check]
                                   [--write DOC] [--lock FILE]
  --check   exit 1 unless every mutant tried is refuted and replayed (the
            ctest template.mutations runs a small slice this way)
  --write   put the Markdown table between `<!-- mutations -->` and
            `<!-- /mutations -->` in DOC (docs/templates.md)
  --lock    hold an exclusive flock on FILE while mutating each template (a
            machine shared by several builds: one template per hold)
Example (2 mutants of bcast-chain, a second or so):
  bench/template_mutations.py build/bin/choreo --count 2 --templates bcast-chain
"""

import argparse
import fcntl
import random
import re
import subprocess
import sys
import tempfile
import time
import zlib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BUILTIN = ROOT / "template" / "builtin"
BEGIN, END = "<!-- mutations -->", "<!-- /mutations -->"


def split_top(text):
    """Text split at its commas outside parentheses."""
    parts, depth, cur = [], 0, ""
    for ch in text:
        if ch in "([":
            depth += 1
        elif ch in ")]":
            depth -= 1
        if ch == "," and depth == 0:
            parts.append(cur)
            cur = ""
        else:
            cur += ch
    parts.append(cur)
    return parts


def bump(expr, delta):
    """expr moved by delta, as one more token."""
    expr = expr.strip()
    sign = "+" if delta > 0 else "-"
    if re.fullmatch(r"[\w.]+", expr):
        return f"{expr} {sign} 1"
    return f"({expr}) {sign} 1"


def closing(text, start):
    """Index of the ')' that closes an interval opened at text[start - 1]."""
    depth = 0
    for k in range(start, len(text)):
        if text[k] in "([":
            depth += 1
        elif text[k] == ")":
            if depth == 0:
                return k
            depth -= 1
        elif text[k] == "]":
            depth -= 1
    return -1


FLIP = {"<": "<=", "<=": "<", ">": ">=", ">=": ">", "==": "!=", "!=": "=="}


def token_mutations(body, start, cmp_only=False, names=()):
    """One-token mutations of body[start:]: an integer constant moved by one,
    a `+` made `-` and back, a comparison flipped (`<` to `<=`, `==` to
    `!=`, ...), a parameter or the step `i` replaced by another of names;
    with cmp_only, the comparisons only."""
    out = []
    for m in re.finditer(r"\b[a-z]\w*\b", body[start:]) if not cmp_only \
            else ():
        a, b, tok = start + m.start(), start + m.end(), m.group(0)
        if tok not in names or body[b:b + 1] == "[":
            continue
        for other in names:
            if other != tok:
                out.append((f"var {tok}->{other} @{a + 1}", body[:a] + other +
                            body[b:]))
    # Powers of two: an exponent moved by one, a bit flip made a sum or a
    # difference.
    for m in re.finditer(r"\bpow2\(", body[start:]) if not cmp_only else ():
        a = start + m.end()
        b = closing(body, a)
        if b < 0:
            continue
        for d in (1, -1):
            out.append((f"exp{'+' if d > 0 else '-'}1 @{a + 1}",
                        body[:a] + bump(body[a:b], d) + body[b:]))
    for m in re.finditer(r"\bxor\b", body[start:]) if not cmp_only else ():
        a, b = start + m.start(), start + m.end()
        for new in ("+", "-"):
            out.append((f"op xor->{new} @{a + 1}", body[:a] + new + body[b:]))
    for m in re.finditer(r"<=|>=|==|!=|<|>|\+|-|\b\d+\b", body[start:]):
        a, b, tok = start + m.start(), start + m.end(), m.group(0)
        if tok in FLIP:
            out.append((f"cmp {tok}->{FLIP[tok]} @{a + 1}", body[:a] + FLIP[tok] +
                        body[b:]))
        elif cmp_only:
            continue
        elif tok in "+-":
            new = "-" if tok == "+" else "+"
            out.append((f"op {tok}->{new} @{a + 1}", body[:a] + new + body[b:]))
        else:
            n = int(tok)
            for v in (n + 1, n - 1):
                if v >= 0:
                    out.append((f"const {n}->{v} @{a + 1}", body[:a] + str(v) +
                                body[b:]))
    return out


def line_mutations(line, names=()):
    """(what, mutated line) for every one-token mutation of one line."""
    out = []
    body = line.split("//")[0]
    if re.match(r"\s*stage \S+ steps ", body):
        m = re.match(r"(\s*stage \S+ steps )(.*)$", body)
        for d, what in ((1, "steps+1"), (-1, "steps-1")):
            out.append((what, m.group(1) + bump(m.group(2), d)))
        return out
    if re.match(r"\s*domain ", body):
        return token_mutations(body, len("domain "), cmp_only=True)
    label = re.match(r"\s*#\S+ ", body)
    if not label:
        return out
    out += token_mutations(body, label.end(), names=names)
    # Loop bounds (the op's loops and a message family's `for x in`).
    for m in re.finditer(r" in \[", body):
        start = m.end()
        end = closing(body, start)
        if end < 0:
            continue
        parts = split_top(body[start:end])
        if len(parts) != 2:
            continue
        lo, hi = parts[0].strip(), parts[1].strip()
        for what, new in (("lo+1", f"{bump(lo, 1)}, {hi}"),
                          ("hi+1", f"{lo}, {bump(hi, 1)}"),
                          ("hi-1", f"{lo}, {bump(hi, -1)}"),
                          ("swap", f"{hi}, {lo}")):
            out.append((f"{what} @{start}", body[:start] + new +
                        body[end:]))
    # The guard: dropped, negated.
    g = re.search(r" if (.*?): (send|combine) ", body)
    if g:
        out.append(("guard-drop", body[:g.start()] + body[g.end(1):]))
        out.append(("guard-negate", body[:g.start(1)] + "not (" + g.group(1) +
                    ")" + body[g.end(1):]))
    # The message index (the last component of several).
    m = re.search(r"(send|combine) \w+\[([^\]]+)\]", body)
    if m:
        parts = split_top(m.group(2))
        head = ",".join(parts[:-1]) + ("," if len(parts) > 1 else "")
        for d, what in ((1, "index+1"), (-1, "index-1")):
            idx = head + (" " if head else "") + bump(parts[-1], d)
            out.append((what, body[:m.start(2)] + idx + body[m.end(2):]))
    # The endpoints.
    e = re.search(r" from (.*) to (.*?)\s*$", body)
    if e:
        for grp, name in ((1, "from"), (2, "to")):
            for d in (1, -1):
                what = f"{name}{'+' if d > 0 else '-'}1"
                out.append((what, body[:e.start(grp)] +
                            bump(e.group(grp), d) + body[e.end(grp):]))
    return out


def candidates(text):
    """Every (line number, what, mutant text) of a template's text."""
    lines = text.split("\n")
    names = params_of(text) + ["i"]
    out = []
    for n, line in enumerate(lines):
        if line.strip().startswith("//"):
            continue
        for what, new in line_mutations(line, names):
            if new != line:
                out.append((n + 1, what,
                            "\n".join(lines[:n] + [new] + lines[n + 1:])))
    return out


def op_label(text, n):
    """`stage#op` (or `stage`) of line n (1-based) of a template's text."""
    stage, label = "?", ""
    if re.match(r"\s*domain ", text.split("\n")[n - 1]):
        return "domain"
    for k, line in enumerate(text.split("\n")[:n]):
        s = re.match(r"\s*stage (\S+)", line)
        if s:
            stage, label = s.group(1), ""
        o = re.match(r"\s*(#\S+) ", line)
        if o and k == n - 1:
            label = o.group(1)
    return stage + label


def run(args, timeout, stdin=None):
    try:
        if stdin is None:
            return subprocess.run(args, capture_output=True, timeout=timeout,
                                  stdin=subprocess.DEVNULL)
        return subprocess.run(args, input=stdin, capture_output=True,
                              timeout=timeout)
    except subprocess.TimeoutExpired:
        return None


def replay(choreo, path, gen_args, timeout):
    """(class, how) of the mutant expanded at gen_args and checked by the
    explicit engine: refuted if `choreo verify` fails it (exit 1, or 2 for
    an op outside the schedule's ranks), refused if the expansion refuses
    it, not replayed if the engine passes it."""
    out = path.with_suffix(".json")
    # -o last: a template parameter named o (`--o V`) must not send the
    # schedule elsewhere.
    g = run([choreo, "gen", "--template", str(path), *gen_args, "-o",
             str(out)], timeout)
    if g is None:
        return "not replayed", "gen timed out"
    if g.returncode != 0:
        why = g.stderr.decode().strip().split("\n")[0]
        return "refused", why.replace("error: ", "", 1)
    v = run([choreo, "verify", str(out)], timeout)
    if v is None:
        return "not replayed", "verify timed out"
    if v.returncode in (1, 2):
        why = next((l for l in v.stderr.decode().split("\n")
                    if l.startswith("error:")), "not proved")
        return "refuted", why.replace("error: ", "", 1)
    return "not replayed", "the explicit engine proves it"


def params_of(text):
    m = re.search(r"^params (.*)$", text, re.M)
    return m.group(1).split() if m else []


SWEEP_MAX = 4


def explicit_sweep(choreo, path, timeout):
    """(failure, values passed) of the explicit engine on the mutant's
    expansion at every parameter value with each parameter in [0,
    SWEEP_MAX] that the expansion takes (the others are outside the domain
    or refused): failure is (args, why) for the first instance it fails."""
    names = params_of(path.read_text())
    passed = 0
    values = [[]]
    for _ in names:
        values = [v + [x] for v in values for x in range(SWEEP_MAX + 1)]
    for v in values:
        args = []
        for n, x in zip(names, v):
            args += [f"--{n}", str(x)]
        cls, how = replay(choreo, path, args, timeout)
        if cls == "refuted":
            return (" ".join(args), how), passed
        if cls == "not replayed" and how == "the explicit engine proves it":
            passed += 1
    return None, passed


def try_mutant(choreo, path, timeout):
    """(class, detail) of one mutant written at path; an undecided one is
    then expanded at every small parameter value (explicit_sweep): class
    `explicit` where the explicit engine fails one (a mutant refuted at one
    value is refuted), else undecided, with how many values it passes."""
    cls, detail = prove_mutant(choreo, path, timeout)
    if cls != "undecided":
        return cls, detail
    fail, passed = explicit_sweep(choreo, path, timeout)
    if fail:
        return "explicit", f"the prover undecided; the explicit engine " \
                           f"fails it at {fail[0]}: {fail[1]}"
    return "undecided", f"{detail}; the explicit engine passes each of " \
                        f"the {passed} values with every parameter <= " \
                        f"{SWEEP_MAX} that the expansion takes"


def prove_mutant(choreo, path, timeout):
    """(class, detail) of one mutant written at path, by the prover."""
    p = run([choreo, "prove", "--first", "--timeout", str(timeout), str(path)],
            timeout + 30)
    if p is None:
        return "undecided", "prove ran out of time"
    out, err = p.stdout.decode(), p.stderr.decode()
    if p.returncode == 2:
        return "invalid", err.strip().split("\n")[0]
    if p.returncode == 0:
        return "equivalent", ""
    first = next((l for l in err.split("\n") if l.startswith("error:")), "")
    # A header obligation (a divisor, a `mod` argument or a step count out
    # of range) is the mutant failing to type-check: invalid.
    if re.match(r"error: [^:]*: header fails", first):
        return "invalid", first
    model = re.search(r" does not hold for (.*?)(?: \(|$)", first)
    if "counterexample" not in out or not model:
        return "undecided", first
    values = dict(kv.split(" = ") for kv in model.group(1).split(", "))
    gen_args = []
    for name in params_of(path.read_text()):
        if name in values:
            gen_args += [f"--{name}", values[name]]
    cls, how = replay(choreo, path, gen_args, timeout)
    if cls == "not replayed":
        # A `mod` argument outside [-n, 2n) breaks the language's rule (the
        # wrap the encoding uses), and with it the other obligations: the
        # mutant is invalid, whichever obligation --first stopped at.
        q = run([choreo, "prove", "--timeout", str(timeout), str(path)],
                timeout + 30)
        if q is not None and re.search(r"^error: [^:]*: mod \S+ fails",
                                       q.stderr.decode(), re.M):
            return "invalid", "a `mod` argument outside [-n, 2n)"
    cex = re.sub(r"^error: [^:]*: ", "", first).split(" fails: ")[0]
    return cls, f"{cex} at {' '.join(gen_args)}: {how}"


def mutate_template(choreo, name, count, timeout, tmp, log):
    text = (BUILTIN / f"{name}.choreo").read_text()
    cands = candidates(text)
    random.Random(zlib.crc32(name.encode())).shuffle(cands)
    rows, invalid = [], 0
    for n, what, mutant in cands:
        if len(rows) == count:
            break
        path = Path(tmp) / f"{name}-{n}-{what}.choreo"
        path.write_text(mutant)
        start = time.monotonic()
        cls, detail = try_mutant(choreo, path, timeout)
        secs = time.monotonic() - start
        if cls == "invalid":
            invalid += 1
            continue
        if cls == "undecided" and (name, n, what) in PROVED_WITH_HOLDS:
            cls = "equivalent"
        row = {"line": n, "op": op_label(text, n), "what": what, "class": cls,
               "detail": detail, "secs": secs}
        rows.append(row)
        log(f"{name}: line {n} {row['op']} {what}: {cls} {detail} "
            f"({secs:.2f} s)")
    return rows, invalid, len(cands)


# Why an equivalent mutant (still proved) does not change the schedule:
# (template, line, mutation) -> reason, from reading each one of the run in
# docs/templates.md.
REASONS = {
    ("bcast-chain", 14, "var i->p @28"):
        "the sender becomes (root + p) mod p = root: the flat tree, also a "
        "broadcast",
    ("ring-equal", 20, "var p->q @51"): "the domain has p == q",
    ("ring-opt", 30, "const 1->2 @22"):
        "the guard makes i odd, where (i + 2) / 2 == (i + 1) / 2",
    ("ring-opt-wide", 28, "const 1->2 @69"):
        "guard 2 * j + q >= i + 2 for >= i + 1: proved for every value, the "
        "reason not worked out by hand (the ops it drops, 2 * j + q == i + 1, "
        "are not needed, or not in range)",
    ("barrier-recursive-doubling-fold", 18, "cmp <-><= @26"):
        "m = 2^k widens the domain: every rank pairs in the fold, the odd "
        "ones do recursive doubling and tell the even ones: still a barrier",
    ("gather-binomial", 18, "steps+1"):
        "a step k has no sender (a % 2^(k+1) == 2^k for no place a < 2^k)",
    ("gather-binomial", 20, "lo+1 @15"):
        "place 0 is never a sender (0 % 2^(i+1) != 2^i)",
    ("gather-binomial", 20, "hi+1 @15"):
        "place p = 2^k is never a sender (a multiple of 2^(i+1) for i < k)",
    ("gather-binomial-fold", 19, "hi+1 @15"):
        "place p carries min(2^i, p - p) = 0 messages",
    ("scatter-binomial-fold", 23, "const 0->1 @16"):
        "place 0 is never a receiver (0 % 2^(k-i) != 2^(k-1-i))",
    ("scatter-binomial-fold", 23, "hi+1 @15"):
        "place p carries min(2^(k-1-i), p - p) = 0 messages",
    ("alltoall-bruck", 24, "op +->- @68"):
        "block d = r + 2^i - 2 (x - x % 2^i) for + 2 (...): h -> -h mod "
        "2^(k-1-i) permutes the bundle's high digits, the same blocks in "
        "another order",
    ("allreduce-halving-doubling", 26, "op xor->+ @77"):
        "(r + 2^i) % 2^(i+1) == (r xor 2^i) % 2^(i+1): adding 2^i flips bit "
        "i below 2^(i+1)",
    ("scan-recursive-doubling", 29, "lo+1 @15"):
        "rank 0 never has bit i set: #2 sends the same",
    ("exscan-recursive-doubling", 29, "lo+1 @15"):
        "rank 0 never has bit i set: #2 sends the same",
    ("exscan-recursive-doubling", 29, "hi+1 @15"):
        "rank p = 2^k has bit i (i < k) clear: #2 sends the same",
    ("exscan-recursive-doubling", 29, "op xor->- @78"):
        "where bit i of r is set (#2's guard), r xor 2^i = r - 2^i",
    ("exscan-recursive-doubling", 28, "hi-1 @15"):
        "rank p - 1 has every bit set, never #1's (bit i clear)",
    ("ring-receivers-first-odd", 30, "var p->q @23"):
        "min(q, a + i) for min(p, a + i): the domain has p <= q, and the "
        "bound is a + i wherever the loop runs",
}


# Mutants the prover leaves undecided with the template's own holds lines
# (the check leaves them alone) that are proved correct, for every
# parameter value, with holds lines that say what the mutant's ranks hold:
# tests/lit/prove/mutants-correct.test. Counted as equivalent.
PROVED_WITH_HOLDS = {
    ("gather-binomial-fold", 19, "guard-drop"):
        "every place sends its window c[a .. a + 2^i) to place a - 2^i, "
        "redundant messages: proved with holds that give every place its "
        "window (tests/lit/prove/mutants-correct.test)",
    ("scatter-binomial", 20, "hi+1 @99"):
        "every bundle one message longer, within its sender's window one "
        "longer: proved with those holds (tests/lit/prove/"
        "mutants-correct.test)",
    ("scatter-binomial-fold", 23, "const 1->0 @116"):
        "every bundle 2^(k-i) long for 2^(k-1-i), within its sender's "
        "window twice as long: proved with those holds (tests/lit/prove/"
        "mutants-correct.test)",
}


def why(name, row):
    """The reason an equivalent mutant is still proved, if known."""
    if (name, row["line"], row["what"]) in REASONS:
        return REASONS[(name, row["line"], row["what"])]
    if (name, row["line"], row["what"]) in PROVED_WITH_HOLDS:
        return PROVED_WITH_HOLDS[(name, row["line"], row["what"])]
    if row["op"] == "domain" and re.match(r"cmp (>=->>|<=-><)", row["what"]):
        return "the domain narrowed, a part of the proved one"
    return ""


def table(results, wall):
    out = ["| template | candidates | tried | refuted + replayed | refused by "
           "the expansion | equivalent | undecided or not replayed | "
           "invalid (redrawn) |", "|---|---|---|---|---|---|---|---|"]
    tot = [0] * 7
    names = lambda rs: ", ".join(
        f"{r['op']} {r['what']} (line {r['line']}{reason(r)})" for r in rs)
    for name, (rows, invalid, ncand) in results.items():
        reason = lambda r: ": " + why(name, r) if why(name, r) else ""
        ref = sum(r["class"] == "refuted" for r in rows)
        expl = [r for r in rows if r["class"] == "explicit"]
        refused = sum(r["class"] == "refused" for r in rows)
        eq = [r for r in rows if r["class"] == "equivalent"]
        bad = [r for r in rows if r["class"] in ("undecided", "not replayed")]
        sweep = lambda r: re.search(r"passes each of the (\d+) values",
                                    r["detail"])
        passes = lambda r: (f"; the explicit engine passes its {sweep(r)[1]} "
                            f"values with every parameter <= {SWEEP_MAX}"
                            if sweep(r) else "")
        undecided = ", ".join(f"{r['op']} {r['what']} (line {r['line']}"
                              f"{reason(r)}{passes(r)})" for r in bad)
        alone = ", ".join(f"{r['op']} {r['what']} (line {r['line']})"
                          for r in expl)
        out.append(f"| {name} | {ncand} | {len(rows)} | {ref + len(expl)}"
                   f"{f' ({len(expl)} by the explicit engine alone: {alone})' if expl else ''}"
                   f" | {refused} | "
                   f"{len(eq)}{': ' + names(eq) if eq else ''} | {len(bad)}"
                   f"{': ' + undecided if bad else ''} | {invalid} |")
        for k, v in enumerate((len(rows), ref + len(expl), refused, len(eq),
                               len(bad), invalid, len(expl))):
            tot[k] += v
    out.append(f"| **all {len(results)}** | | {tot[0]} | {tot[1]} | {tot[2]} "
               f"| {tot[3]} | {tot[4]} | {tot[5]} |")
    out.append("")
    out.append(f"{tot[0]} mutants in {wall:.0f} s.")
    return "\n".join(out) + "\n", tot


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("choreo")
    ap.add_argument("--count", type=int, default=20)
    ap.add_argument("--templates", default="")
    ap.add_argument("--timeout", type=int, default=60)
    ap.add_argument("--markdown", action="store_true")
    ap.add_argument("--check", action="store_true")
    ap.add_argument("--write", default="")
    ap.add_argument("--lock", default="")
    a = ap.parse_args()
    names = ([t.strip() for t in a.templates.split(",") if t.strip()] or
             sorted(p.stem for p in BUILTIN.glob("*.choreo")))
    for n in names:
        if not (BUILTIN / f"{n}.choreo").exists():
            sys.exit(f"error: --templates: no built-in template '{n}'")
    log = lambda s: print(s, file=sys.stderr, flush=True)
    results = {}
    start = time.monotonic()
    with tempfile.TemporaryDirectory() as tmp:
        for n in names:
            lock = open(a.lock, "a") if a.lock else None
            if lock:
                fcntl.flock(lock, fcntl.LOCK_EX)
            results[n] = mutate_template(a.choreo, n, a.count, a.timeout, tmp,
                                         log)
            if lock:
                lock.close()
    text, tot = table(results, time.monotonic() - start)
    print(text, end="")
    if a.write:
        doc = Path(a.write)
        body = doc.read_text()
        if BEGIN not in body or END not in body:
            sys.exit(f"error: {doc}: no {BEGIN} ... {END} section")
        head, rest = body.split(BEGIN, 1)
        doc.write_text(head + BEGIN + "\n" + text + END +
                       rest.split(END, 1)[1])
    if a.check:
        short = [n for n, (rows, _, _) in results.items() if len(rows) <
                 a.count]
        if tot[1] - tot[6] != tot[0] or short:
            sys.exit(f"error: {tot[0] - tot[1]} mutant(s) not refuted and "
                     f"replayed; too few valid mutants of: {short}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
