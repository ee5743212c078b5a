"""What the GPU check packers (gemm-epilogues.py, matmul-tiles.py, attention.py)
share: kiln-run, the runtime and the shared libraries they need copied into a
folder the GPU machine runs from, the run.sh they write (its head and the
file), and the packing of aten-dialect cases with seeded inputs, whose CPU
builds are checked here. The shell packers (pack.sh, conv-grads.sh,
bench/pack_gpu.sh) copy kiln-run with `python3 pack_util.py copy-kiln-run
BUILD OUT`."""
import os
import shutil
import subprocess
import sys

import numpy as np

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


def sh(cmd, **kw):
    return subprocess.run(cmd, capture_output=True, text=True, **kw)


def fresh_pack(build, out):
    """Empties OUT, makes OUT/{bin,lib,cases} and copies kiln-run in."""
    shutil.rmtree(out, ignore_errors=True)
    for d in ("bin", "lib", "cases"):
        os.makedirs(os.path.join(out, d))
    copy_kiln_run(build, out)


def pack_cases(build, out, cases, cuda_flags, sample, check_runs=(("", ""),)):
    """Packs each case (a dict: name, text: the aten module, shapes: one list
    of input shapes per run) into OUT/cases/NAME: compiles it for CUDA (with
    cuda_flags) and the CPU (exits 2 if either fails), draws each run's inputs
    and expected result with sample(case, shapes) -> (inputs, expected, rtol,
    atol), saves them as .npy files and checks the CPU build against them here.
    Returns run.sh's check lines (one per run and per (label suffix, extra
    kiln-run arguments) of check_runs) and 1 if a CPU check failed, else 0."""
    compile_ = os.path.join(build, "bin", "kiln-compile")
    run = os.path.join(build, "bin", "kiln-run")
    env = dict(os.environ, LD_LIBRARY_PATH=os.path.join(build, "lib"))
    lines, cpu_failed = [], 0
    for case in cases:
        d = os.path.join(out, "cases", case["name"])
        os.makedirs(d)
        mlir = os.path.join(d, "model.mlir")
        with open(mlir, "w") as f:
            f.write(case["text"] + "\n")
        for target, so in (("cuda", "cuda.so"), ("cpu", "cpu.so")):
            cmd = [compile_, mlir, "-o", os.path.join(d, so)]
            if target == "cuda":
                cmd += ["--target=cuda"] + list(cuda_flags)
            p = sh(cmd)
            if p.returncode != 0:
                print(f"COMPILE-FAIL {case['name']} ({target}): {p.stdout}{p.stderr}")
                sys.exit(2)
        for i, shapes in enumerate(case["shapes"]):
            ins, want, rtol, atol = sample(case, shapes)
            args = []
            for j, x in enumerate(ins):
                np.save(os.path.join(d, f"input{i}_{j}.npy"), x)
                args += ["--input", f"cases/{case['name']}/input{i}_{j}.npy"]
            np.save(os.path.join(d, f"expect{i}.npy"), want)
            args += ["--expect", f"cases/{case['name']}/expect{i}.npy", "--rtol", rtol, "--atol", atol]
            label = case["name"] + ("" if len(case["shapes"]) == 1 else "[" + "x".join(map(str, shapes[0])) + "]")
            p = sh([run, os.path.join(d, "cpu.so")] + args, cwd=out, env=env)
            status = "ok" if p.returncode == 0 else "MISMATCH"
            if p.returncode != 0:
                cpu_failed = 1
                print(p.stdout + p.stderr)
            print(f"cpu {status} {label}")
            for suffix, extra in check_runs:
                lines.append(f"check {label}{suffix} cases/{case['name']}/cuda.so "
                             + " ".join(f'"{x}"' for x in args) + extra + " || failed=1")
        os.remove(os.path.join(d, "cpu.so"))
    return lines, cpu_failed


def write_run_script(out, lines):
    """OUT/run.sh: `lines`, then exit $failed; prints how many cases OUT holds."""
    lines = lines + ["exit $failed"]
    with open(os.path.join(out, "run.sh"), "w") as f:
        f.write("\n".join(lines) + "\n")
    os.chmod(os.path.join(out, "run.sh"), 0o755)
    print(f"packed {len(os.listdir(os.path.join(out, 'cases')))} cases in {out}")


if __name__ == "__main__":
    if len(sys.argv) != 4 or sys.argv[1] != "copy-kiln-run":
        sys.exit("usage: pack_util.py copy-kiln-run BUILD_DIR OUT_DIR")
    copy_kiln_run(sys.argv[2], sys.argv[3])
