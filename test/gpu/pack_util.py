"""What the GPU check packers (gemm-epilogues.py, matmul-tiles.py, attention.py)
share: kiln-run, the runtime and the shared libraries they need copied into a
folder the GPU machine runs from, and the head of the run.sh they write."""
import os
import shutil
import subprocess

# Libraries every machine has (and kiln's runtime, copied by name).
_SYSTEM = ("libc.so", "libm.so", "libstdc++", "libgcc_s", "ld-linux", "libkiln_runtime")


def copy_kiln_run(build, out):
    """OUT/bin/kiln-run and OUT/lib/: the runtime and every library ldd names
    for the two that a bare machine may lack."""
    for sub in ("bin", "lib"):
        os.makedirs(os.path.join(out, sub), exist_ok=True)
    run = os.path.join(build, "bin", "kiln-run")
    runtime = os.path.join(build, "lib", "libkiln_runtime.so.0")
    shutil.copy(run, os.path.join(out, "bin"))
    shutil.copy(os.path.realpath(runtime), os.path.join(out, "lib", "libkiln_runtime.so.0"))
    ldd = subprocess.run(["ldd", run, runtime], capture_output=True, text=True).stdout
    for line in ldd.splitlines():
        parts = line.split("=>")
        if len(parts) != 2 or not parts[1].split():
            continue
        lib = parts[1].split()[0]
        base = os.path.basename(lib)
        if not base.startswith(_SYSTEM):
            shutil.copy(os.path.realpath(lib), os.path.join(out, "lib", base))


def run_script_head(writer):
    """The first lines of OUT/run.sh: the library path and check NAME ARGS...,
    which runs kiln-run ARGS --device cuda and prints PASS with the largest
    error, or FAIL with kiln-run's last lines (returning 1)."""
    return ["#!/usr/bin/env bash",
            "# Written by %s: each case's CUDA build against its expected outputs." % writer,
            "here=$(cd \"$(dirname \"$0\")\" && pwd)", "export LD_LIBRARY_PATH=$here/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}",
            "failed=0", "check() {  # name, then kiln-run's arguments",
            "  local name=$1; shift",
            "  if out=$(\"$here/bin/kiln-run\" \"$@\" --device cuda 2>&1); then",
            "    echo \"PASS $name: $(echo \"$out\" | grep -o 'max abs error [^:]*' | sort -g -k4 | tail -1)\"",
            "  else echo \"FAIL $name:\"; echo \"$out\" | tail -5; return 1; fi", "}", "cd \"$here\""]
