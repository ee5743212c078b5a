"""kiln: compile PyTorch programs ahead of time into shared objects, and run them.

    import kiln
    m = kiln.compile(torch.export.export(model, (x,)))   # or a path to a .pt2
    y = m(x)
    torch.compile(model, backend="kiln")                  # Dynamo backend
"""
from ._kiln import KilnError, ABI_VERSION
from .compiler import CompileError, Module, NotCompiled, compile, compile_times, load, stats
from . import debug, library, offline

__all__ = ["CompileError", "KilnError", "Module", "NotCompiled", "compile", "compile_times", "debug",
           "load", "library", "offline", "stats", "ABI_VERSION"]
