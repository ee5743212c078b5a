# lit configuration of kiln's tests (FileCheck tests of the compiler, bad-input
# tests of the tools, end-to-end model tests).
import os

import lit.formats
from lit.llvm import llvm_config
from lit.llvm.subst import ToolSubst

config.name = "kiln"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir", ".test"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.kiln_obj_root, "test")
# Data, helper scripts and the GoogleTests are not lit tests.
config.excludes = ["data", "python", "unittests", "lit.cfg.py", "lit.site.cfg.py", "CMakeLists.txt",
                   "Inputs"]

llvm_config.with_system_environment(["HOME", "TMP", "TEMP"])
# Tools are found by PATH too, so `not` and `count` work at the start of a line.
llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)
llvm_config.with_environment("PATH", config.kiln_tools_dir, append_path=True)
llvm_config.use_default_substitutions()

test_root = os.path.join(config.kiln_src_root, "test")
config.substitutions.append(("%corpus", os.path.join(test_root, "data", "corpus")))
# The exported real models are made by the build (test/models/export_models.py).
config.substitutions.append(("%models", config.kiln_models_dir))
# The model zoo, made by the build too (test/models/export_zoo.py).
config.substitutions.append(("%zoo", config.kiln_zoo_dir))
config.substitutions.append(("%example-ops", os.path.join(config.kiln_obj_root, "lib",
                                                          "libkiln_example_ops.so")))
# A plugin whose kilntest::scaled_gelu kernel throws (test/unittests/runtime/dispatch/plugins).
config.substitutions.append(("%throwing-ops", os.path.join(config.kiln_obj_root, "test", "unittests",
                                                           "runtime", "dispatch", "plugins",
                                                           "libkiln_throwing_ops.so")))
# A plugin whose kilnbad::cumsum0 has a deliberately wrong batching rule.
config.substitutions.append(("%bad-vmap-ops", os.path.join(config.kiln_obj_root, "test", "unittests",
                                                           "runtime", "dispatch", "plugins",
                                                           "libkiln_bad_vmap_ops.so")))
config.substitutions.append(("%batches", os.path.join(test_root, "data", "mlp_dynamic_batches")))
# Helper scripts (standard library only), see test/Inputs/.
for script in ["expect-exit", "pt2-edit", "make-npy", "check-duality"]:
    config.substitutions.append(
        ("%" + script, '"%s" %s' % (config.python_executable,
                                     os.path.join(test_root, "Inputs", script + ".py"))))

tools = [ToolSubst("kiln-opt", unresolved="fatal"),
         ToolSubst("kiln-compile", unresolved="fatal")]
# kiln-compile --target=cuda exists when kiln was built with KILN_ENABLE_CUDA
# (a CUDA toolkit present); test/Target/CUDA needs it.
if config.kiln_has_cuda:
    config.available_features.add("cuda-compiler")
# kiln-compile --target=rocm exists when kiln was built with KILN_ENABLE_ROCM
# (the ROCm device libraries present); test/Target/ROCm needs it.
if config.kiln_has_rocm:
    config.available_features.add("rocm-compiler")
# The runtime never needs CUDA installed; tests of its no-GPU paths point it
# at a driver library that does not exist, so they behave the same on a
# machine with a GPU.
config.substitutions.append(("%no-cuda-driver", "env KILN_CUDA_DRIVER=/nonexistent/libcuda.so.1"))
# The same for the HIP runtime (ROCm models).
config.substitutions.append(("%no-hip-runtime", "env KILN_HIP_RUNTIME=/nonexistent/libamdhip64.so"))
if config.kiln_has_runtime:
    config.available_features.add("kiln-runtime")
    tools.append(ToolSubst("kiln-reduce", unresolved="fatal"))
# `--param kiln_run_dir=DIR` runs the tests with DIR's kiln-run (a sanitizer
# build's, .ci/sanitize.sh) and everything else from this build.
kiln_run_dir = lit_config.params.get("kiln_run_dir")
llvm_config.add_tool_substitutions(tools, [config.kiln_tools_dir])
if config.kiln_has_runtime:
    llvm_config.add_tool_substitutions([ToolSubst("kiln-run", unresolved="fatal")],
                                       [kiln_run_dir or config.kiln_tools_dir])
