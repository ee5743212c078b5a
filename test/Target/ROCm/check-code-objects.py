#!/usr/bin/env python3
"""Checks the AMDGPU code object that kiln-compile --target=rocm embeds in a model.

usage: check-code-objects.py MODEL.so HOST.ll --arch gfxNNN [--out FILE] [--llvm-bin DIR]

MODEL.so is the compiled model, HOST.ll the same model compiled with
--emit=llvm (its host code). The script extracts every embedded ELF whose
e_machine is EM_AMDGPU from MODEL.so (there must be exactly one, identical to
the code object in HOST.ll), checks it with llvm-readobj and llvm-objdump (an
AMDHSA shared object for --arch, code object version 4 or later), and checks
that the kernels it defines are exactly those the host code looks up with
mgpuModuleGetFunction before launching, and that every launch passes each
kernel the arguments its code object's metadata (amdhsa.kernels) declares:
as many, in order, each of the declared size, pointers where it expects
global buffers. Prints one summary line; exits 1 with
the reason on any mismatch. Standard library only; the LLVM tools come from
PATH.
"""
import argparse
import os
import re
import struct
import subprocess
import sys

EM_AMDGPU = 224
ARGS = None


def fail(msg):
    print("check-code-objects: error: " + msg, file=sys.stderr)
    sys.exit(1)


def embedded_amdgpu_elfs(data):
    """(offset, bytes) of each 64-bit little-endian AMDGPU ELF inside `data`."""
    found = []
    start = 1  # the model itself is the ELF at offset 0
    while True:
        i = data.find(b"\x7fELF", start)
        if i < 0:
            return found
        start = i + 1
        hdr = data[i:i + 64]
        if len(hdr) < 64 or hdr[4] != 2 or hdr[5] != 1:
            continue
        machine = struct.unpack_from("<H", hdr, 18)[0]
        if machine != EM_AMDGPU:
            continue
        shoff = struct.unpack_from("<Q", hdr, 0x28)[0]
        shentsize, shnum = struct.unpack_from("<HH", hdr, 0x3A)
        end = i + shoff + shentsize * shnum
        if shoff == 0 or end > len(data):
            continue
        found.append((i, data[i:end]))
        start = end


def c_string_bytes(ir_literal):
    """Decodes the body of an LLVM IR c"..." literal."""
    out = bytearray()
    i = 0
    while i < len(ir_literal):
        ch = ir_literal[i]
        if ir_literal.startswith("\\\\", i):
            out.append(0x5C)
            i += 2
        elif ch == "\\":
            out.append(int(ir_literal[i + 1:i + 3], 16))
            i += 3
        else:
            out.extend(ch.encode("latin-1"))
            i += 1
    return bytes(out)


def host_launches(ll_text):
    """Kernel names the host code passes to mgpuModuleGetFunction, and the
    embedded binaries (by global name)."""
    consts = {}
    for m in re.finditer(r'^@([\w.$]+) = [^\n]*?constant \[\d+ x i8\] c"((?:[^"\\]|\\\\|\\[0-9A-Fa-f]{2})*)"',
                         ll_text, re.M):
        consts[m.group(1)] = c_string_bytes(m.group(2))
    names = []
    for m in re.finditer(r"@mgpuModuleGetFunction\(ptr [^,]+, ptr @([\w.$]+)\)", ll_text):
        raw = consts.get(m.group(1))
        if raw is None:
            fail("the host code looks up a kernel through @%s, which is not a string constant" % m.group(1))
        names.append(raw.rstrip(b"\0").decode())
    loads = re.findall(r"@mgpuModuleLoad\(ptr @([\w.$]+), i64 (\d+)\)", ll_text)
    binaries = [consts[g][:int(n)] for g, n in loads if g in consts]
    return names, binaries


IR_SIZES = {"ptr": 8, "i64": 8, "double": 8, "i32": 4, "float": 4, "i16": 2, "half": 2, "bfloat": 2,
            "i8": 1, "i1": 1}


def host_launch_args(ll_text):
    """(kernel name, [IR type of each argument]) of every mgpuLaunchKernel in
    the host code: the kernel comes from the mgpuModuleGetFunction result it
    is called with, the types from the argument struct whose fields the
    launch's parameter array points to."""
    struct_types = {}
    for m in re.finditer(r"^(%[\w.$]+) = type \{ ([^}]*) \}", ll_text, re.M):
        struct_types[m.group(1)] = [t.strip() for t in m.group(2).split(",")]
    consts = {}
    for m in re.finditer(r'^@([\w.$]+) = [^\n]*?constant \[\d+ x i8\] c"([^"]*)"', ll_text, re.M):
        consts[m.group(1)] = m.group(2).replace("\\00", "")
    launches = []
    functions, last_struct = {}, None
    for line in ll_text.splitlines():
        m = re.search(r"(%[\w.$]+) = call ptr @mgpuModuleGetFunction\(ptr [^,]+, ptr @([\w.$]+)\)", line)
        if m:
            functions[m.group(1)] = consts.get(m.group(2), m.group(2))
        m = re.search(r"getelementptr inbounds(?: nuw)? (%[\w.$]+), ptr", line)
        if m and m.group(1) in struct_types:
            last_struct = m.group(1)
        m = re.search(r"call void @mgpuLaunchKernel\(ptr (%[\w.$]+),.* i64 (\d+)\)", line)
        if m:
            types = struct_types.get(last_struct, [])
            if len(types) != int(m.group(2)):
                fail("a launch of %s passes %s arguments but its argument struct %s has %d fields"
                     % (functions.get(m.group(1)), m.group(2), last_struct, len(types)))
            launches.append((functions.get(m.group(1)), types))
            last_struct = None
    return launches


def kernel_args(notes):
    """{kernel name: [(size, value_kind)] of its explicit arguments} from
    llvm-readobj --notes (the amdhsa.kernels metadata, YAML: a list of
    kernels at indent 2, their keys at 4, .args items at 6, their keys at 8)."""
    entries, cur, in_args = [], None, False
    for line in notes.splitlines():
        if re.match(r"^  - \.", line):  # a new kernel; its first key follows the dash
            cur = {"name": None, "args": []}
            entries.append(cur)
            line = "    " + line[4:]
        if cur is None:
            continue
        if re.match(r"^    \.", line):  # a key of the kernel
            in_args = line.startswith("    .args:")
            m = re.match(r"^    \.name:\s+(\S+)", line)
            if m:
                cur["name"] = m.group(1)
            continue
        if not line.startswith("      "):
            if not line.startswith("  "):
                cur = None  # past the kernel list (amdhsa.target, ...)
            continue
        if in_args:
            if re.match(r"^      - \.", line):  # a new argument
                cur["args"].append({})
                line = "        " + line[8:]
            m = re.match(r"^        \.(size|value_kind):\s+(\S+)", line)
            if m and cur["args"]:
                cur["args"][-1][m.group(1)] = m.group(2)
    return {e["name"]: [(int(x["size"]), x["value_kind"]) for x in e["args"]
                        if not x["value_kind"].startswith("hidden_")]
            for e in entries}


def run(tool, *args):
    try:
        return subprocess.run([tool, *args], check=True, capture_output=True, text=True).stdout
    except FileNotFoundError:
        fail("%s not found on PATH" % tool)
    except subprocess.CalledProcessError as e:
        fail("%s %s failed: %s" % (tool, " ".join(args), e.stderr.strip()))


def tool(name):
    """LLVM 22's tool: --llvm-bin, else NAME-22 on PATH (an older LLVM's NAME
    may come first on PATH and not know newer GPUs), else NAME."""
    if ARGS.llvm_bin:
        return os.path.join(ARGS.llvm_bin, name)
    for candidate in (name + "-22", name):
        for d in os.environ.get("PATH", "").split(os.pathsep):
            p = os.path.join(d, candidate)
            if os.access(p, os.X_OK):
                return p
    return name


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("model")
    ap.add_argument("host_ll")
    ap.add_argument("--arch", required=True)
    ap.add_argument("--out", help="write the extracted code object here")
    ap.add_argument("--llvm-bin", help="folder of llvm-readobj and llvm-objdump")
    global ARGS
    a = ARGS = ap.parse_args()

    with open(a.model, "rb") as f:
        data = f.read()
    elfs = embedded_amdgpu_elfs(data)
    if len(elfs) != 1:
        fail("%s embeds %d AMDGPU code objects, expected 1" % (a.model, len(elfs)))
    _, co = elfs[0]
    with open(a.host_ll, encoding="latin-1") as f:
        launches, binaries = host_launches(f.read())
    if binaries != [co]:
        fail("the code object in %s differs from the one the host code in %s loads" % (a.model, a.host_ll))
    out = a.out or os.path.splitext(a.model)[0] + ".hsaco"
    with open(out, "wb") as f:
        f.write(co)

    readobj = tool("llvm-readobj")
    hdr = run(readobj, "--file-headers", out)
    want = {
        "Class": "64-bit",
        "Type": "SharedObject",
        "Machine": "EM_AMDGPU",
        "OS/ABI": "AMDGPU_HSA",
    }
    for key, value in want.items():
        m = re.search(r"^\s*%s: (\S+)" % re.escape(key), hdr, re.M)
        if not m or not m.group(1).startswith(value):
            fail("%s: %s is %s, expected %s" % (out, key, m.group(1) if m else "missing", value))
    abi = int(re.search(r"ABIVersion: (\d+)", hdr).group(1))
    if abi < 2:
        fail("%s: AMDHSA ABI version %d is older than code object v4" % (out, abi))
    mach = "EF_AMDGPU_MACH_AMDGCN_" + a.arch.upper()
    flags = re.search(r"Flags \[ \(0x[0-9a-fA-F]+\)(.*?)\]", hdr, re.S)
    if not flags or mach not in flags.group(1).split():
        fail("%s: the ELF flags do not name %s:\n%s" % (out, mach, flags.group(0) if flags else hdr))

    syms = run(readobj, "--symbols", out)
    kernels, descriptors = set(), set()
    for m in re.finditer(r"Name: (\S+).*?Binding: (\w+).*?Type: (\w+)", syms, re.S):
        name, binding, typ = m.groups()
        if binding != "Global":
            continue
        if typ == "Function":
            kernels.add(name)
        elif name.endswith(".kd"):
            descriptors.add(name[:-3])
    if kernels != descriptors:
        fail("%s: kernels without descriptors: %s; descriptors without code: %s" %
             (out, sorted(kernels - descriptors), sorted(descriptors - kernels)))
    if not launches:
        fail("%s: the host code launches no kernel" % a.host_ll)
    missing = sorted(set(launches) - kernels)
    unused = sorted(kernels - set(launches))
    if missing or unused:
        fail("host launches without a kernel: %s; kernels never launched: %s" % (missing, unused))

    declared = kernel_args(run(readobj, "--notes", out))
    if set(declared) != kernels:
        fail("%s: the metadata describes kernels %s, the symbols are %s" % (out, sorted(declared), sorted(kernels)))
    with open(a.host_ll, encoding="latin-1") as f:
        launch_args = host_launch_args(f.read())
    if len(launch_args) != len(launches):
        fail("%s: %d launches but %d kernel lookups" % (a.host_ll, len(launch_args), len(launches)))
    for kernel, types in launch_args:
        want = declared.get(kernel)
        got = [(IR_SIZES.get(t, -1), "global_buffer" if t == "ptr" else "by_value") for t in types]
        if want is None or got != want:
            fail("launch of %s passes %s, its code object expects %s" % (kernel, got, want))

    dis = run(tool("llvm-objdump"), "-d", "--mcpu=" + a.arch, out)
    for k in kernels:
        if not re.search(r"^[0-9a-f]+ <%s>:" % re.escape(k), dis, re.M):
            fail("%s: llvm-objdump shows no code for %s" % (out, k))
    if "s_endpgm" not in dis:
        fail("%s: the disassembly has no s_endpgm" % out)

    print("%s: AMDGPU code object for %s (ELF ABI version %d), %d kernels, %d launches, all match"
          % (os.path.basename(a.model), a.arch, abi, len(kernels), len(launches)))
    print("%s: %d launch argument lists match their kernels' metadata (%d arguments)"
          % (os.path.basename(a.model), len(launch_args), sum(len(t) for _, t in launch_args)))


if __name__ == "__main__":
    main()
