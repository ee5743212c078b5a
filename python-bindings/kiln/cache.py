"""The on-disk cache of compiled models, keyed by program, options and kiln version.

A second process compiling the same program with the same options loads the
cached .so instead of running the compiler. Keys depend on nothing of the machine
(not the device the graph's tensors were on, nor paths other than plugins'), so
a cache filled on one machine serves another: see offline.py. KILN_CACHE_DIR sets the folder
(default: $XDG_CACHE_HOME/kiln or ~/.cache/kiln). Each entry is a folder holding
model.so and entry.json (the .so's SHA-256); an entry whose .so is missing, does
not match its checksum or fails to load is removed and rebuilt, never trusted.
"""
from __future__ import annotations

import hashlib
import json
import os
import shutil
import tempfile
import zipfile
from typing import Any, Dict, Optional

from . import _paths

# Archive members that change from one save of the same program to the next.
_VOLATILE = ("/.data/serialization_id", "/data/sample_inputs/")


def cache_dir() -> str:
    d = os.environ.get("KILN_CACHE_DIR")
    if not d:
        base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
        d = os.path.join(base, "kiln")
    os.makedirs(d, exist_ok=True)
    return d


# The file in a cache folder naming the compiler that filled it (see compiler_identity).
COMPILER_ID_FILE = "compiler-id"


def compiler_available() -> bool:
    """Whether this installation has kiln-compile (a runtime-only copy of the
    package, as on a GPU machine without LLVM, does not)."""
    return os.path.isfile(_paths.KILN_COMPILE) and os.access(_paths.KILN_COMPILE, os.X_OK)


def compiler_identity() -> str:
    """What the keys say about the compiler: the version and kiln-compile's size
    and mtime. A process without kiln-compile uses the identity recorded in the
    cache folder by the compiler that filled it (kiln.offline), so a cache
    compiled on one machine is found by the same keys on another."""
    try:
        st = os.stat(_paths.KILN_COMPILE)
        return f"{_paths.KILN_VERSION}:{st.st_size}:{st.st_mtime_ns}"
    except OSError:
        pass
    try:
        with open(os.path.join(cache_dir(), COMPILER_ID_FILE)) as f:
            recorded = f.read().strip()
        if recorded:
            return recorded
    except OSError:
        pass
    return f"{_paths.KILN_VERSION}:no-compiler"


def write_compiler_identity() -> None:
    """Records this compiler's identity in the cache folder (kiln.offline does this
    after filling a cache for another machine)."""
    path = os.path.join(cache_dir(), COMPILER_ID_FILE)
    with open(path + ".tmp", "w") as f:
        f.write(compiler_identity() + "\n")
    os.replace(path + ".tmp", path)


def _member(name: str) -> str:
    """An archive member's path below the archive's top folder."""
    return name.split("/", 1)[1] if "/" in name else name


def _without_node_metadata(data: bytes) -> bytes:
    """The graph JSON without each node's metadata (stack traces, module paths):
    they name where the program came from, not what it computes, and differ
    from one trace of the same program to the next."""
    try:
        model = json.loads(data)
        for node in model["graph_module"]["graph"]["nodes"]:
            node.pop("metadata", None)
        return json.dumps(model, sort_keys=True).encode()
    except (ValueError, KeyError, TypeError, AttributeError):
        return data  # not the graph kiln knows: hash it as it is


def key_for(pt2: str, options: Dict[str, Any]) -> str:
    """Hash of the program (every archive member that defines it, read as bytes,
    the graph without its nodes' metadata; nothing is unpickled), the options and
    the compiler's identity."""
    h = hashlib.sha256()
    h.update(compiler_identity().encode())
    h.update(json.dumps(options, sort_keys=True).encode())
    try:
        with zipfile.ZipFile(pt2) as z:
            # torch.export.save names the archive's top folder after the file, so
            # members are hashed without it: the same program saved as a.pt2 and
            # b.pt2 has one key.
            for name in sorted(z.namelist(), key=_member):
                if any(v in "/" + name for v in _VOLATILE):
                    continue
                h.update(_member(name).encode())
                data = z.read(name)
                h.update(_without_node_metadata(data) if name.endswith("models/model.json") else data)
    except zipfile.BadZipFile:
        with open(pt2, "rb") as f:  # .mlir input, or a broken archive kiln will reject
            h.update(f.read())
    return h.hexdigest()[:32]


def _sha(path: str) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def evict(key: str) -> None:
    shutil.rmtree(os.path.join(cache_dir(), key), ignore_errors=True)


def lookup(key: str) -> Optional[str]:
    """The cached .so for `key`, or None (a damaged entry is removed; a recorded
    failure stays, see failure())."""
    entry = os.path.join(cache_dir(), key)
    so, meta = os.path.join(entry, "model.so"), os.path.join(entry, "entry.json")
    if not os.path.isdir(entry) or failure(key) is not None:
        return None
    try:
        with open(meta) as f:
            want = json.load(f)["sha256"]
        if _sha(so) == want:
            return so
    except (OSError, ValueError, KeyError, TypeError):
        pass
    evict(key)
    return None


def store_failure(key: str, error: str) -> None:
    """Records that the program of `key` does not compile (kiln.offline does this
    for a machine without kiln-compile, which cannot find out itself)."""
    root = cache_dir()
    tmp = tempfile.mkdtemp(prefix=f".{key}-", dir=root)
    with open(os.path.join(tmp, "failure.json"), "w") as f:
        json.dump({"error": error}, f)
    try:
        os.replace(tmp, os.path.join(root, key))
    except OSError:  # an entry is there already
        shutil.rmtree(tmp, ignore_errors=True)


def failure(key: str) -> Optional[str]:
    """The recorded compile error of `key`'s program, or None."""
    try:
        with open(os.path.join(cache_dir(), key, "failure.json")) as f:
            return str(json.load(f)["error"])
    except (OSError, ValueError, KeyError, TypeError):
        return None


def store(key: str, so: str) -> str:
    """Moves a freshly compiled .so into the cache (atomically) and returns its path."""
    root = cache_dir()
    tmp = tempfile.mkdtemp(prefix=f".{key}-", dir=root)
    shutil.copyfile(so, os.path.join(tmp, "model.so"))
    with open(os.path.join(tmp, "entry.json"), "w") as f:
        json.dump({"sha256": _sha(os.path.join(tmp, "model.so"))}, f)
    entry = os.path.join(root, key)
    if failure(key) is not None:  # this compiler compiled what another could not
        evict(key)
    try:
        os.replace(tmp, entry)
    except OSError:  # another process stored it first (non-empty target folder)
        shutil.rmtree(tmp, ignore_errors=True)
        if lookup(key) is None:
            raise
    return os.path.join(entry, "model.so")


def keep(so: str) -> str:
    """Copies a .so out of a temporary folder when caching is off."""
    fd, path = tempfile.mkstemp(prefix="kiln-model-", suffix=".so")
    os.close(fd)
    shutil.copyfile(so, path)
    return path
