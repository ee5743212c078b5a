# Prints the lines of a compiled model's manifest that start with one of the
# given directives (standard library only): manifest-lines.py MODEL.so DIRECTIVE...
import re, sys

data = open(sys.argv[1], "rb").read()
start = data.find(b"kiln-manifest ")
if start < 0:
    sys.exit("no manifest in " + sys.argv[1])
end = data.find(b"\nend\n", start)
for line in data[start:end].decode().split("\n"):
    if line.split(" ", 1)[0] in sys.argv[2:]:
        print(line)
