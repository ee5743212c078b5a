"""The environment that points kiln's runtime at the cuDNN of PyTorch's pip
packages, shared by the GPU scripts (bench/gpu_models.py and its users,
test/gpu/check.py); the packing scripts copy this file beside them. Needs
only Python 3."""
import importlib.util
import os


def cudnn_env(env):
    """Points kiln's runtime at the cuDNN of PyTorch's pip packages (for the
    convolutions) unless KILN_CUDNN is already set."""
    if env.get("KILN_CUDNN"):
        return env
    try:
        spec = importlib.util.find_spec("nvidia.cudnn")
        lib = os.path.join(list(spec.submodule_search_locations)[0], "lib")
    except Exception:
        return env
    if os.path.exists(os.path.join(lib, "libcudnn.so.9")):
        env["KILN_CUDNN"] = os.path.join(lib, "libcudnn.so.9")
        env["LD_LIBRARY_PATH"] = env.get("LD_LIBRARY_PATH", "") + ":" + lib
    return env
