#!/usr/bin/env python3
"""Seeds for kiln's archive fuzz targets: copies .pt2 archives without the
members no kiln reader opens (sample inputs, format/version/byteorder
markers), so the mutator's raw-member edits (truncate, drop, flip bytes) land
on members kiln reads. The smallest KEEP archives stay whole, so archives
with members kiln skips are in the corpus too.

  trim_seeds.py DEST KEEP ARCHIVE...
"""
import os
import sys
import zipfile

UNREAD = ('/data/sample_inputs/', '/archive_format', '/archive_version', '/.data/', '/byteorder')


def main():
    dest, keep, archives = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
    os.makedirs(dest, exist_ok=True)
    for i, path in enumerate(sorted(archives, key=os.path.getsize)):
        out = os.path.join(dest, path.replace('/', '_'))
        if os.path.exists(out):
            continue
        with open(path, 'rb') as f:
            data = f.read()
        if i < keep or not zipfile.is_zipfile(path):
            with open(out, 'wb') as f:
                f.write(data)
            continue
        with zipfile.ZipFile(path) as zi, zipfile.ZipFile(out, 'w', zipfile.ZIP_STORED) as zo:
            for info in zi.infolist():
                if not any(u in '/' + info.filename for u in UNREAD):
                    zo.writestr(info, zi.read(info.filename))


if __name__ == '__main__':
    main()
