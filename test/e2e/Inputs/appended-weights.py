# Reads, or writes damaged copies of, the weight blob appended to a compiled
# model .so (runtime/abi/kiln/abi/appended_weights.h; standard library only):
#   appended-weights.py check MODEL.so      prints what the file holds
#   appended-weights.py damage MODEL.so DIR writes DIR/{stripped,cut,short,misaligned}.so
import os, struct, sys

MAGIC, TRAILER = b"kilnWTS1", 24


def trailer(data):
    if len(data) < TRAILER or data[-TRAILER:-16] != MAGIC:
        sys.exit("no weight trailer at the end of the file")
    return struct.unpack("<QQ", data[-16:])


def with_trailer(body, offset, size):
    return body + MAGIC + struct.pack("<QQ", offset, size)


data = open(sys.argv[2], "rb").read()
offset, size = trailer(data)
if sys.argv[1] == "check":
    print("weights appended" if b"\nweights appended\n" in data else "manifest: no 'weights appended'")
    print("blob ends at the trailer" if offset + size + TRAILER == len(data) else "blob does not end at the trailer")
    print("blob page-aligned" if offset % 4096 == 0 else "blob at offset %d" % offset)
    print("blob bytes %d" % size)
    # No symbol for the blob: its name is nowhere in the file.
    print("weight symbol exported" if b"kiln_model_weights" in data else "no weight symbol")
else:
    out = sys.argv[3]
    body = data[:-TRAILER]
    files = {
        "stripped": data[:offset],  # what a tool that rewrites the ELF file leaves
        "cut": with_trailer(body[: offset + size // 2], offset, size),  # the file cut short
        "short": with_trailer(body, offset, 64),  # a blob smaller than the weights need
        "misaligned": with_trailer(body, offset + 8, size - 8),
    }
    for name, content in files.items():
        with open(os.path.join(out, name + ".so"), "wb") as f:
            f.write(content)
