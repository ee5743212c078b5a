"""Writes a damaged copy of a .pt2 archive, for bad-input tests.

usage: pt2-edit.py IN OUT [--drop SUFFIX] [--set SUFFIX TEXT]
                          [--set-from SUFFIX FILE] [--replace SUFFIX OLD NEW]
                          [--json SUFFIX CODE]
                          [--zeros SUFFIX N] [--deflate SUFFIX]
                          [--claim-size SUFFIX N]...

Members are named by a suffix of their path (e.g. models/model.json), so the
archive's top folder does not matter. Every edit must apply: an edit that
matches nothing is an error, so a test cannot pass by accident.

--json runs the Python statement CODE with `j` bound to the member's parsed
JSON and writes `j` back (a structural edit: `j['a'][0] = [[1]]`).
--zeros makes the member N zero bytes; --deflate compresses it (a zip bomb
when it is large and zero); --claim-size rewrites the member's uncompressed
size in the zip headers to N (a size that lies).
"""
import json
import struct
import sys
import zipfile

args = sys.argv[1:]
src, dst, edits = args[0], args[1], args[2:]
drops, sets, replaces, jsons, zeros, deflates, claims = [], {}, [], [], {}, [], {}
i = 0
while i < len(edits):
    if edits[i] == "--drop":
        drops.append(edits[i + 1]); i += 2
    elif edits[i] == "--set-from":
        sets[edits[i + 1]] = open(edits[i + 2]).read(); i += 3
    elif edits[i] == "--json":
        jsons.append((edits[i + 1], edits[i + 2])); i += 3
    elif edits[i] == "--zeros":
        zeros[edits[i + 1]] = int(edits[i + 2]); i += 3
    elif edits[i] == "--deflate":
        deflates.append(edits[i + 1]); i += 2
    elif edits[i] == "--claim-size":
        claims[edits[i + 1]] = int(edits[i + 2]); i += 3
    elif edits[i] == "--set":
        sets[edits[i + 1]] = edits[i + 2]; i += 3
    elif edits[i] == "--replace":
        replaces.append((edits[i + 1], edits[i + 2], edits[i + 3])); i += 4
    else:
        sys.exit(f"pt2-edit: unknown option {edits[i]}")

used = set()
with zipfile.ZipFile(src) as zin, zipfile.ZipFile(dst, "w", zipfile.ZIP_STORED) as zout:
    for info in zin.infolist():
        name = info.filename
        if any(name.endswith(d) for d in drops):
            used.update(d for d in drops if name.endswith(d))
            continue
        data = zin.read(name)
        for suffix, text in sets.items():
            if name.endswith(suffix):
                data = text.encode()
                used.add(suffix)
        for suffix, old, new in replaces:
            if name.endswith(suffix):
                text = data.decode()
                if old not in text:
                    sys.exit(f"pt2-edit: '{old}' not found in {name}")
                data = text.replace(old, new).encode()
                used.add(suffix)
        for suffix, code in jsons:
            if name.endswith(suffix):
                scope = {"j": json.loads(data)}
                exec(code, {}, scope)
                data = json.dumps(scope["j"]).encode()
                used.add(suffix)
        for suffix, n in zeros.items():
            if name.endswith(suffix):
                data = bytes(n)
                used.add(suffix)
        out = zipfile.ZipInfo(name, info.date_time)
        for suffix in deflates:
            if name.endswith(suffix):
                out.compress_type = zipfile.ZIP_DEFLATED
                used.add(suffix)
        zout.writestr(out, data)

# --claim-size: patch the uncompressed size in the local header and the
# central directory entry of the member (zip32 fields; N < 2^32).
if claims:
    raw = bytearray(open(dst, "rb").read())
    for sig, size_at, name_len_at, name_at in ((b"PK\x03\x04", 22, 26, 30),
                                               (b"PK\x01\x02", 24, 28, 46)):
        pos = raw.find(sig)
        while pos >= 0:
            (nlen,) = struct.unpack_from("<H", raw, pos + name_len_at)
            name = raw[pos + name_at:pos + name_at + nlen].decode()
            for suffix, n in claims.items():
                if name.endswith(suffix):
                    struct.pack_into("<I", raw, pos + size_at, n)
                    used.add(suffix)
            pos = raw.find(sig, pos + 4)
    open(dst, "wb").write(bytes(raw))

missing = [s for s in drops + list(sets) + [r[0] for r in replaces] + [x[0] for x in jsons] +
           list(zeros) + deflates + list(claims) if s not in used]
if missing:
    sys.exit(f"pt2-edit: no member matches {missing}")
