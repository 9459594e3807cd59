#!/usr/bin/env python3
"""tests/lit/trace/Inputs/mkrecord.py - a trace record written by hand.

usage: mkrecord.py SPEC...

Each SPEC (NAME.spec) becomes the directory NAME beside it. SPEC holds one section per rank, `=== rank-W`, of `rank-W.events` lines
(docs/trace.md). In them `@data(BYTES)` appends BYTES to the rank's
`rank-W.data` and stands for their offset, `@digest(BYTES)` for their
digest as a receive records it, `@len(BYTES)` for their length. BYTES is
`stream U LO HI` (bytes [LO, HI) of the stream of U-byte words,
trace/Encoding.h, written here again from its definition) or `hex HEX`,
or several of them joined by ` + `.
"""
import os
import re
import sys

M = (1 << 64) - 1


def mix64(x):
    x = (x + 0x9E3779B97F4A7C15) & M
    x = ((x ^ (x >> 30)) * 0xBF58476D1CE4E5B9) & M
    x = ((x ^ (x >> 27)) * 0x94D049BB133111EB) & M
    return x ^ (x >> 31)


def index_bits(u):
    return {8: 40, 4: 24, 2: 12, 1: 8}[u]


def stream_word(u, k):
    ib = index_bits(u)
    if u == 1:
        return k & 0xFF
    check = mix64(k ^ 0x636B) & ((1 << (8 * u - ib)) - 1)
    return ((check << ib) | k) & ((1 << (8 * u)) - 1)


def stream(u, lo, hi):
    return bytes((stream_word(u, x // u) >> (8 * (x % u))) & 0xFF
                 for x in range(lo, hi))


def digest(b):
    h = mix64(len(b))
    i = 0
    while i + 8 <= len(b):
        h = mix64(h ^ int.from_bytes(b[i:i + 8], "little"))
        i += 8
    tail = int.from_bytes(b[i:], "little")
    return mix64(h ^ tail ^ (len(b) - i))


def parse_bytes(spec):
    if " + " in spec:
        return b"".join(parse_bytes(p) for p in spec.split(" + "))
    words = spec.split()
    if words[0] == "stream":
        return stream(int(words[1]), int(words[2]), int(words[3]))
    if words[0] == "hex":
        return bytes.fromhex(words[1] if len(words) > 1 else "")
    raise SystemExit("mkrecord.py: unknown bytes '%s'" % spec)


def write(spec):
    out = spec[:-len(".spec")]
    os.makedirs(out, exist_ok=True)
    sections = re.split(r"^=== (\S+)\n", open(spec).read(), flags=re.M)
    for name, body in zip(sections[1::2], sections[2::2]):
        data = bytearray()

        def put(m):
            b = parse_bytes(m.group(2))
            if m.group(1) == "data":
                data.extend(b)
                return str(len(data) - len(b))
            if m.group(1) == "digest":
                return "%x" % digest(b)
            return str(len(b))

        text = re.sub(r"@(data|digest|len)\(([^)]*)\)", put, body)
        open("%s/%s.events" % (out, name), "w").write(text)
        open("%s/%s.data" % (out, name), "wb").write(bytes(data))


for arg in sys.argv[1:]:
    write(arg)
