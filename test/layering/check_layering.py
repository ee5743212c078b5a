#!/usr/bin/env python3
"""kiln's layering check: fails on any forbidden include or link (docs/architecture.md, "Layers").

  check_layering.py --source SRC [--build BUILD --readelf READELF]

Sources: every #include of runtime/, dialects/, lib/, include/, tools/ and
python-bindings/ is checked against the rules of the folder it is in, and
the header layout (docs/architecture.md, "Header layout"): lib/'s private
headers are included only inside their own lib/<Area>, include/kiln/<Area>
mirrors a lib/<Area>, and every source file opens with a comment.
Build (optional): every target's include directories (with those its link
dependencies bring) and link dependencies, which the build writes into
BUILD/layering-targets.jsonl (cmake/KilnLayering.cmake), and the shared
libraries libkiln_runtime.so needs, read with readelf.
Prints every violation with its file and line (or target) and exits 1 if
there is any; standard library only.
"""
import argparse
import json
import os
import re
import subprocess
import sys

INCLUDE = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]')

# Headers that are vendor code (a GPU vendor's SDK, or MLIR's vendor dialects,
# targets and conversions).
VENDOR_HEADERS = re.compile(
    r'^(cuda[._/]|cuda\.h|cudaTypedefs|cuda_runtime|cublas|cublasLt|cudnn|cufft|curand|nvrtc|nvJitLink|'
    r'hip/|hipblas|miopen|rocblas|hsa/|'
    r'mlir/Dialect/LLVMIR/(NVVM|ROCDL)|mlir/Dialect/(NVGPU|AMDGPU)/|mlir/Target/LLVM/(NVVM|ROCDL)|'
    r'mlir/Target/LLVMIR/Dialect/(NVVM|ROCDL)|mlir/Conversion/(GPUToNVVM|GPUToROCDL|NVVMToLLVM|'
    r'NVGPUToNVVM|AMDGPUToROCDL)/)')
# Where vendor code may live (paths relative to the source root).
VENDOR_PLACES = ('lib/Target/CUDA/', 'lib/Target/ROCm/', 'runtime/src/cuda/', 'runtime/src/hip/')
# The GPU passes: lib/Transforms/GPU*.cpp.
GPU_PASS = re.compile(r'^lib/Transforms/GPU[^/]*\.(cpp|h)$')

# Compiler headers (what only the compiler may include).
COMPILER_PREFIXES = ('mlir/', 'llvm/', 'llvm-c/', 'mlir-c/', 'ATen/', 'Autograd/')
LIB_HEADER_DIRS = ('Import', 'Conversion', 'Transforms', 'Pipelines', 'Compiler', 'Target')


def rel(path, root):
    return os.path.relpath(path, root).replace(os.sep, '/')


def sources(root, folders):
    for folder in folders:
        top = os.path.join(root, folder)
        for dirpath, dirnames, filenames in os.walk(top):
            dirnames[:] = sorted(d for d in dirnames if d not in ('build', '__pycache__'))
            for f in sorted(filenames):
                if f.endswith(('.c', '.cc', '.cpp', '.cu', '.h', '.hpp', '.inc', '.td')):
                    yield os.path.join(dirpath, f)


def includes(path):
    with open(path, encoding='utf-8', errors='replace') as f:
        for n, line in enumerate(f, 1):
            m = INCLUDE.match(line)
            if m:
                yield n, m.group(1), m.group(2)


def is_vendor_place(r):
    return r.startswith(VENDOR_PLACES) or bool(GPU_PASS.match(r))


def check_sources(root):
    errors = []
    runtime_headers = set(os.listdir(os.path.join(root, 'runtime/include/kiln')))
    for path in sources(root, ('runtime', 'dialects', 'lib', 'include', 'tools', 'python-bindings/src')):
        r = rel(path, root)
        for n, kind, inc in includes(path):
            where = f'{r}:{n}: #include {kind}{inc}{">" if kind == "<" else kind}'
            resolved = os.path.normpath(os.path.join(os.path.dirname(r), inc)).replace(os.sep, '/')
            def bad(why):
                errors.append(f'{where}: {why}')
            # Vendor code stays in its places.
            if VENDOR_HEADERS.match(inc) and not is_vendor_place(r):
                bad('vendor (CUDA/ROCm) header outside lib/Target/{CUDA,ROCm}, the GPU passes '
                    '(lib/Transforms/GPU*) and runtime/src/{cuda,hip}')
            if (resolved.startswith(('runtime/src/cuda/', 'runtime/src/hip/')) or inc == 'kiln/cuda.h') \
                    and kind == '"' and r.startswith('runtime/src/') and not is_vendor_place(r):
                bad('a vendor backend\'s header outside runtime/src/{cuda,hip}: go through the '
                    'vendor-neutral GPU runtime (runtime/src/gpu/Backend.h)')
            if r.startswith('runtime/abi/'):
                # The ABI: C only, and only itself.
                if not (inc.startswith('kiln/abi/') or inc in ('stdint.h', 'stddef.h', 'stdbool.h')):
                    bad('the ABI headers (runtime/abi) are plain C and include only each other and '
                        '<stdint.h>, <stddef.h>, <stdbool.h>')
            elif r.startswith('runtime/'):
                if inc.startswith(COMPILER_PREFIXES) or \
                        any(inc.startswith(f'kiln/{d}/') for d in LIB_HEADER_DIRS) or \
                        inc == 'kiln/Registration.h' or resolved.startswith(('lib/', 'dialects/', 'include/')):
                    bad('the runtime includes nothing of the compiler, MLIR or LLVM')
                if inc == 'nlohmann/json.hpp' and r != 'runtime/src/loader/Json.h':
                    bad('the runtime includes nlohmann/json.hpp only through runtime/src/loader/Json.h, '
                        'which makes a failed JSON precondition an error instead of undefined behaviour')
            elif r.startswith('dialects/'):
                if any(inc.startswith(f'kiln/{d}/') for d in LIB_HEADER_DIRS) or inc == 'kiln/Registration.h' \
                        or resolved.startswith(('lib/', 'include/')) or inc.startswith(('lib/', 'include/')):
                    bad('the dialects never reach lib/ (or its headers, include/kiln)')
                if inc.startswith('runtime/') or 'runtime/' in resolved or \
                        (inc.startswith('kiln/') and inc[5:] in runtime_headers):
                    bad('the dialects never include the runtime\'s headers')
            elif r.startswith(('lib/', 'include/', 'tools/kiln-compile/', 'tools/kiln-opt/')):
                if inc.startswith('runtime/') or resolved.startswith('runtime/') or \
                        (inc.startswith('kiln/') and inc[5:] in runtime_headers):
                    bad('the compiler sees the runtime only through the ABI headers '
                        '(kiln/abi/*.h, runtime/abi), never its C++ internals')
            elif r.startswith(('tools/', 'python-bindings/')):
                if inc.startswith(COMPILER_PREFIXES) or \
                        any(inc.startswith(f'kiln/{d}/') for d in LIB_HEADER_DIRS if d != 'Compiler'):
                    bad('runtime tools and bindings include nothing of the compiler but its API')
    return errors


def check_header_layout(root):
    """lib/<Area>'s private headers stay in lib/<Area>; include/kiln/<Area> has a lib/<Area>;
    every source file opens with a comment saying what it holds."""
    errors = []
    inc_root = os.path.join(root, 'include/kiln')
    for d in sorted(os.listdir(inc_root)):
        if os.path.isdir(os.path.join(inc_root, d)) and not os.path.isdir(os.path.join(root, 'lib', d)):
            errors.append(f'include/kiln/{d}/: public headers of a lib/{d} that does not exist '
                          '(include/kiln/<Area> holds the public headers of lib/<Area>)')
    for path in sources(root, ('runtime', 'dialects', 'lib', 'include', 'tools', 'python-bindings/src')):
        r = rel(path, root)
        with open(path, encoding='utf-8', errors='replace') as f:
            first = next((line.strip() for line in f if line.strip()), '')
        if not first.startswith(('//', '/*', '#!')):
            errors.append(f'{r}:1: opens without a comment saying what the file holds')
        for n, kind, inc in includes(path):
            resolved = os.path.normpath(os.path.join(os.path.dirname(r), inc)).replace(os.sep, '/')
            if kind == '"' and resolved.startswith('lib/') and os.path.exists(os.path.join(root, resolved)):
                area = '/'.join(resolved.split('/')[:2]) + '/'
                if not r.startswith(area):
                    errors.append(f'{r}:{n}: #include "{inc}": a private header of {area} used outside it '
                                  f'(move it to include/kiln/{area[4:]})')
    return errors


# ---- the build: what CMake resolved for each target

RUNTIME_TARGETS = {'kiln_runtime', 'kiln_run_driver', 'kiln-run', 'kiln-opcheck', 'kiln_example_ops', '_kiln',
                   'kiln-runtime-tests', 'kiln-cuda-runtime-tests', 'kiln-hip-runtime-tests',
                   'kiln-gpu-graph-check'}
DIALECT_TARGETS = re.compile(r'^(obj\.)?Kiln(ATen|Autograd)(Dialect|Transforms|Rules)$')
LIB_TARGETS = re.compile(r'^(obj\.)?Kiln(Import|Transforms|ATenToLinalg|AutogradToATen|RuntimeCallsToLLVM|'
                         r'Registration|TargetCPU|TargetCUDA|TargetROCm|Compiler|CompilerShared)$')
VENDOR_LIBS = re.compile(r'(^|[/ ])(-l)?(lib)?(cuda|cudart|cublas|cublasLt|cudnn|nvrtc|amdhip64|hiprtc|'
                         r'rocblas|MIOpen)(\.so[.0-9]*|\.a)?$')


def load_targets(build):
    """<build>/layering-targets.jsonl (cmake/KilnLayering.cmake): name -> target."""
    path = os.path.join(build, 'layering-targets.jsonl')
    if not os.path.exists(path):
        return None
    targets = {}
    with open(path) as f:
        for line in f:
            if line.strip():
                t = json.loads(line)
                for key in ('includes', 'links', 'interface_links'):
                    t[key] = [x for x in t.get(key, '').split('|') if x and not x.startswith('::@')]
                targets[t['name']] = t
    return targets


def link_closure(name, targets):
    """Everything `name` links, directly or through its dependencies' interfaces."""
    seen, todo = [], list(targets[name]['links'])
    while todo:
        d = todo.pop(0)
        if d in seen:
            continue
        seen.append(d)
        if d in targets:
            todo.extend(targets[d]['interface_links'])
    return seen


def check_build(root, build, readelf):
    errors = []
    targets = load_targets(build)
    if targets is None:
        return [f'{build}: no layering-targets.jsonl (configured without cmake/KilnLayering.cmake?)']
    src = os.path.realpath(root)
    bld = os.path.realpath(build)
    compiler_dirs = [os.path.join(src, 'include'), os.path.join(src, 'dialects'),
                     os.path.join(bld, 'include'), os.path.join(bld, 'dialects')]
    runtime_include = os.path.join(src, 'runtime', 'include')
    lib_includes = [os.path.join(src, 'include'), os.path.join(bld, 'include')]
    for name, t in sorted(targets.items()):
        if t['type'] == 'INTERFACE_LIBRARY':
            continue
        deps = link_closure(name, targets)
        incs = {os.path.realpath(i) for i in t['includes']}
        def bad(why):
            errors.append(f'target {name}: {why}')
        if name in RUNTIME_TARGETS:
            for d in deps:
                if d.startswith(('MLIR', 'LLVM')) or d in ('MLIR', 'LLVM') or DIALECT_TARGETS.match(d) or \
                        LIB_TARGETS.match(d):
                    bad(f'links {d}: the runtime side links nothing of the compiler, MLIR or LLVM')
            for i in sorted(incs):
                if i in compiler_dirs or re.search(r'/llvm-[0-9]+/include|/(mlir|llvm)/include$', i):
                    bad(f'has the compiler\'s or MLIR\'s headers on its include path ({i})')
        if DIALECT_TARGETS.match(name):
            for d in deps:
                if LIB_TARGETS.match(d) or d == 'kiln_runtime':
                    bad(f'links {d}: the dialects never reach lib/ or the runtime')
            for i in sorted(incs):
                if i in lib_includes or i == runtime_include:
                    bad(f'has {i} on its include path: the dialects see MLIR and dialects/ only')
        if LIB_TARGETS.match(name) or DIALECT_TARGETS.match(name) or name in ('kiln-compile', 'kiln-opt'):
            if runtime_include in incs:
                bad(f'has the runtime\'s C++ headers ({runtime_include}) on its include path: the '
                    f'compiler sees the runtime through kiln_abi (runtime/abi) only')
        for d in deps:
            if VENDOR_LIBS.search(d):
                bad(f'links the vendor library {d}: vendor libraries are loaded at run time')
    # What the runtime library itself needs.
    lib = os.path.join(build, 'lib', 'libkiln_runtime.so')
    if not os.path.exists(lib):
        errors.append(f'{lib}: not built (build before running the tests)')
    elif readelf:
        out = subprocess.run([readelf, '-d', lib], capture_output=True, text=True).stdout
        for needed in re.findall(r'\(NEEDED\)\s+Shared library: \[([^\]]+)\]', out):
            if re.match(r'lib(MLIR|LLVM|KilnCompiler|cuda|cudart|cublas|cudnn|amdhip64)', needed):
                errors.append(f'{rel(lib, build)}: needs {needed}: the runtime loads no compiler, MLIR '
                              f'or LLVM, and vendor libraries only at run time')
    return errors


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--source', required=True)
    ap.add_argument('--build')
    ap.add_argument('--readelf')
    a = ap.parse_args()
    errors = check_sources(a.source) + check_header_layout(a.source)
    checked = 'sources'
    if a.build:
        errors += check_build(a.source, a.build, a.readelf)
        checked += ' and build'
    for e in errors:
        print(f'layering: {e}')
    if errors:
        print(f'layering: {len(errors)} violation(s); the rules are in docs/architecture.md ("Layers")')
        return 1
    print(f'layering: {checked} follow the rules')
    return 0


if __name__ == '__main__':
    sys.exit(main())
