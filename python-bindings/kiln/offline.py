"""Compiling on one machine for another: record the programs a run asks kiln to
compile, compile them where kiln-compile is, and run again with the filled cache.

kiln is an ahead-of-time compiler, and a machine with the GPU need not have
LLVM. With KILN_RECORD_DIR set, every compile that misses the cache writes the
program and its options into that folder (one sub-folder per cache key:
model.pt2 and request.json). Where kiln-compile is missing, the compile then
fails with NotCompiled, and the Dynamo backend runs that graph in PyTorch eager
for this run (it is not an error under KILN_STRICT, which still refuses any
other fallback). On the machine with the compiler,

    python -m kiln.offline compile RECORD_DIR --cache-dir CACHE_DIR

compiles each recorded program with its recorded options into CACHE_DIR and
writes the compiler's identity there (cache.COMPILER_ID_FILE); a program that
does not compile is recorded there as a failure with its error, so the other
machine takes the road a compiler error would make it take (AOTAutograd for a
graph kiln cannot differentiate) and records that road's programs next. Given that cache
(KILN_CACHE_DIR), the first machine's next run finds every program under the
same key and compiles nothing: keys are computed from the program, the options
and the compiler's identity alone (cache.py).
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Dict, List, Optional

from . import cache


def record_dir() -> Optional[str]:
    d = os.environ.get("KILN_RECORD_DIR")
    return d or None


def record_target() -> Optional[str]:
    """KILN_RECORD_TARGET (cpu, cuda or rocm), with KILN_RECORD_DIR: programs are
    recorded for that target whatever device the run's tensors are on, and none
    is compiled or loaded in this run (their graphs run in eager). A machine
    without the GPU thus records for it: the backend exports every graph on CPU
    stand-ins of its inputs, so the program and its key do not depend on the
    device. None when unset."""
    t = os.environ.get("KILN_RECORD_TARGET") or None
    if t and t not in ("cpu", "cuda", "rocm"):
        raise ValueError(f"KILN_RECORD_TARGET={t!r}: expected cpu, cuda or rocm")
    return t if t and record_dir() else None


def record(key: str, pt2: str, options: Dict[str, Any]) -> str:
    """Writes the program and its options under KILN_RECORD_DIR/<key>/ (atomically);
    returns that folder."""
    root = record_dir()
    assert root, "KILN_RECORD_DIR is not set"
    os.makedirs(root, exist_ok=True)
    entry = os.path.join(root, key)
    if os.path.isdir(entry):
        return entry
    tmp = tempfile.mkdtemp(prefix=f".{key}-", dir=root)
    shutil.copyfile(pt2, os.path.join(tmp, "model.pt2"))
    with open(os.path.join(tmp, "request.json"), "w") as f:
        json.dump({"key": key, "options": options}, f, indent=1, sort_keys=True)
    try:
        os.replace(tmp, entry)
    except OSError:  # recorded by another process meanwhile
        shutil.rmtree(tmp, ignore_errors=True)
    return entry


def requests(root: str) -> List[Dict[str, Any]]:
    """The recorded requests under `root`: {key, options, pt2}, in key order."""
    out = []
    for name in sorted(os.listdir(root)):
        entry = os.path.join(root, name)
        req = os.path.join(entry, "request.json")
        if name.startswith(".") or not os.path.isfile(req):
            continue
        with open(req) as f:
            r = json.load(f)
        if not isinstance(r, dict) or not isinstance(r.get("options"), dict):
            raise ValueError(f"{req}: not a kiln compile request")
        r["pt2"] = os.path.join(entry, "model.pt2")
        out.append(r)
    return out


def compile_recorded(root: str, jobs: int = 1, log=print) -> Dict[str, Any]:
    """Compiles every request under `root` into the cache (cache.cache_dir()) and
    records the compiler's identity there. Returns {compiled, cached, failed: {key: error}}."""
    from . import compiler
    if not cache.compiler_available():
        raise RuntimeError("kiln.offline compile needs kiln-compile, which this installation lacks")
    reqs = requests(root)
    result: Dict[str, Any] = {"compiled": 0, "cached": 0, "failed": {}}

    def one(r: Dict[str, Any]) -> None:
        opts = r["options"]
        key = cache.key_for(r["pt2"], opts)  # this compiler's key for the program
        if cache.lookup(key) or cache.failure(key) is not None:
            result["cached"] += 1
            return
        t0 = time.perf_counter()
        with tempfile.TemporaryDirectory(prefix="kiln-offline-") as tmp:
            so = os.path.join(tmp, "model.so")
            try:
                compiler.compile_file(r["pt2"], so, target=opts.get("target", "cpu"),
                                      weights=opts.get("weights", "embed"),
                                      plugins=opts.get("plugins", ()),
                                      extra_args=compiler.derivative_args(opts))
            except Exception as e:  # noqa: BLE001 - reported per program, the others go on
                result["failed"][r["key"]] = str(e).splitlines()[0] if str(e) else type(e).__name__
                log(f"kiln.offline: {r['key']} FAILED: {result['failed'][r['key']]}")
                # The other machine then knows, as a compiler would: the backend
                # takes its other road (AOTAutograd for a graph kiln cannot
                # differentiate), whose programs the next recording run records.
                cache.store_failure(key, result["failed"][r["key"]])
                return
            cache.store(key, so)
        result["compiled"] += 1
        what = ", grad" if opts.get("grad") else ""
        what += f", {opts['split']} half" if opts.get("split") else ""
        log(f"kiln.offline: {r['key']} ({opts.get('target')}{what}) "
            f"compiled in {time.perf_counter() - t0:.1f} s")

    with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        list(pool.map(one, reqs))
    cache.write_compiler_identity()
    return result


def main(argv: Optional[List[str]] = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m kiln.offline",
                                 description="Compile the programs a run recorded (KILN_RECORD_DIR) "
                                             "into a compile cache for another machine.")
    sub = ap.add_subparsers(dest="cmd", required=True)
    c = sub.add_parser("compile", help="compile every recorded program into the cache")
    c.add_argument("record_dir")
    c.add_argument("--cache-dir", help="the cache to fill (default: KILN_CACHE_DIR or the user cache)")
    c.add_argument("-j", "--jobs", type=int, default=1, help="programs compiled at once")
    ls = sub.add_parser("list", help="list the recorded programs")
    ls.add_argument("record_dir")
    a = ap.parse_args(argv)
    if not os.path.isdir(a.record_dir):
        print(f"kiln.offline: {a.record_dir}: no such folder", file=sys.stderr)
        return 2
    try:
        if a.cmd == "list":
            for r in requests(a.record_dir):
                print(r["key"], json.dumps(r["options"], sort_keys=True))
            return 0
        if a.cache_dir:
            os.environ["KILN_CACHE_DIR"] = a.cache_dir
        res = compile_recorded(a.record_dir, a.jobs)
    except (OSError, ValueError, RuntimeError) as e:
        print(f"kiln.offline: {e}", file=sys.stderr)
        return 2
    print(f"kiln.offline: {res['compiled']} compiled, {res['cached']} already cached, "
          f"{len(res['failed'])} failed, into {cache.cache_dir()}")
    return 1 if res["failed"] else 0


if __name__ == "__main__":
    sys.exit(main())
