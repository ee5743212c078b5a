# cmake -DIN=file -DOUT=file.inc -P KilnEmbedBytes.cmake: writes IN's bytes as
# a comma-separated list of hex literals, to #include inside an array initializer.
file(READ "${IN}" hex HEX)
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," bytes "${hex}")
string(REGEX REPLACE "(0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,)" "\\1\n" bytes "${bytes}")
file(WRITE "${OUT}" "${bytes}\n")
