"""Writes a damaged copy of a .pt2 archive, for bad-input tests.

usage: pt2-edit.py IN OUT [--drop SUFFIX] [--set SUFFIX TEXT]
                          [--replace SUFFIX OLD NEW]...

Members are named by a suffix of their path (e.g. models/model.json), so the
archive's top folder does not matter. Every edit must apply: an edit that
matches nothing is an error, so a test cannot pass by accident.
"""
import sys
import zipfile

args = sys.argv[1:]
src, dst, edits = args[0], args[1], args[2:]
drops, sets, replaces = [], {}, []
i = 0
while i < len(edits):
    if edits[i] == "--drop":
        drops.append(edits[i + 1]); i += 2
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
        zout.writestr(info, data)

missing = [s for s in drops + list(sets) + [r[0] for r in replaces] if s not in used]
if missing:
    sys.exit(f"pt2-edit: no member matches {missing}")
