"""Runs a command and succeeds only if it exits with the expected code.

usage: expect-exit.py CODE COMMAND [ARGS...]

The command's stdout and stderr pass through unchanged, so a test can pipe
them to FileCheck; a different exit code (or a crash) is reported on stderr
and makes this script exit 1.
"""
import subprocess
import sys

expected = int(sys.argv[1])
proc = subprocess.run(sys.argv[2:])
if proc.returncode != expected:
    how = (f"signal {-proc.returncode}" if proc.returncode < 0
           else f"exit code {proc.returncode}")
    sys.stderr.write(f"expect-exit: expected exit code {expected}, got {how}: "
                     f"{' '.join(sys.argv[2:])}\n")
    sys.exit(1)
