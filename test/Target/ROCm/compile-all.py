#!/usr/bin/env python3
"""Compiles every exported model under the given folders for ROCm and checks each result.

usage: compile-all.py --arch gfxNNN --out DIR [--plugin LIB]... FOLDER...

For each model*.pt2 below each FOLDER (sorted): kiln-compile --target=rocm
to a .so and, with --emit=llvm, to its host LLVM IR; then
check-code-objects.py checks the embedded AMDGPU code object against the
architecture and the host's launches. A model that does not compile for ROCm
is compiled for the CPU: if that fails too, the model is beyond what kiln
compiles at all (an op without a lowering), which is reported and is not a
ROCm failure; if the CPU compile succeeds, the ROCm backend is at fault.
Prints one line per model (PASS / NOT-COMPILED-FOR-CPU-EITHER / KNOWN-GAP / FAIL) and
exits 1 if any failed. kiln-compile comes from PATH. Every compile loads the
--plugin libraries (custom ops, which run on the host between kernels).
"""
import argparse
import glob
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))

# Models that compile for the CPU but not yet for a GPU, with the reason. Each
# is reported as KNOWN-GAP; one that compiles after all fails the run, so the
# list cannot outlive the gap.
KNOWN_GPU_GAPS = {}


def run(cmd):
    p = subprocess.run(cmd, capture_output=True, text=True)
    return p.returncode, (p.stdout + p.stderr).strip()


def first_line(text):
    return text.splitlines()[0] if text else ""


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--arch", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--plugin", action="append", default=[])
    ap.add_argument("folders", nargs="+")
    a = ap.parse_args()
    plugins = [x for p in a.plugin for x in ("--plugin", p)]
    os.makedirs(a.out, exist_ok=True)
    failed = 0
    for folder in a.folders:
        for pt2 in sorted(glob.glob(os.path.join(folder, "*", "model*.pt2"))):
            name = os.path.basename(os.path.dirname(pt2)) + os.path.basename(pt2)[len("model"):-len(".pt2")]
            base = os.path.join(a.out, name)
            rc, out = run(["kiln-compile", pt2, *plugins, "--target=rocm", "--gpu-arch=" + a.arch, "-o", base + ".so"])
            if name in KNOWN_GPU_GAPS:
                if rc == 0:
                    failed += 1
                    print("FAIL %s: listed in KNOWN_GPU_GAPS but compiles now: remove it" % name)
                else:
                    print("KNOWN-GAP %s: %s" % (name, KNOWN_GPU_GAPS[name]))
                continue
            if rc != 0:
                crc, cout = run(["kiln-compile", pt2, *plugins, "--emit=obj", "-o", base + ".cpu.o"])
                if crc != 0:
                    print("NOT-COMPILED-FOR-CPU-EITHER %s: %s" % (name, first_line(cout)))
                else:
                    failed += 1
                    print("FAIL %s: compiles for the CPU but not for ROCm: %s" % (name, out))
                continue
            rc, out = run(["kiln-compile", pt2, *plugins, "--target=rocm", "--gpu-arch=" + a.arch, "--emit=llvm",
                           "-o", base + ".ll"])
            if rc != 0:
                failed += 1
                print("FAIL %s: --emit=llvm failed: %s" % (name, out))
                continue
            rc, out = run([sys.executable, os.path.join(HERE, "check-code-objects.py"), base + ".so", base + ".ll",
                           "--arch", a.arch])
            os.remove(base + ".ll")
            if rc != 0:
                failed += 1
                print("FAIL %s: %s" % (name, out))
            else:
                print("PASS %s" % out.replace("\n", "; "))
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
