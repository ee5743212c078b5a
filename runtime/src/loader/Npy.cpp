// kiln runtime — .npy reading (v1/v2/v3, C or Fortran order) and atomic writing.
#include "kiln/npy.h"
#include "kiln/half.h"

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <fstream>
#include <sstream>
#include <sys/stat.h>
#include <unistd.h>

namespace kiln {

namespace {

const char kMagic[] = "\x93NUMPY";

[[noreturn]] void fail(const std::string &name, const std::string &why) {
  throw NpyError("'" + name + "': " + why);
}

struct Header {
  std::string descr;
  bool fortran = false;
  std::vector<int64_t> shape;
};

// Parses the header: a Python dict literal with 'descr', 'fortran_order', 'shape'.
class DictParser {
public:
  DictParser(const std::string &s, const std::string &name) : s_(s), name_(name) {}

  Header parse() {
    Header h;
    bool haveDescr = false, haveFortran = false, haveShape = false;
    expect('{');
    while (true) {
      skip();
      if (peek() == '}') { ++p_; break; }
      std::string key = str();
      expect(':');
      skip();
      if (key == "descr") {
        h.descr = str();
        haveDescr = true;
      } else if (key == "fortran_order") {
        if (word("True")) h.fortran = true;
        else if (word("False")) h.fortran = false;
        else bad("fortran_order is not True or False");
        haveFortran = true;
      } else if (key == "shape") {
        h.shape = tuple();
        haveShape = true;
      } else {
        bad("unexpected key '" + key + "'");
      }
      skip();
      if (peek() == ',') { ++p_; continue; }
      skip();
      if (peek() == '}') { ++p_; break; }
      bad("expected ',' or '}'");
    }
    skip();
    if (p_ != s_.size()) bad("trailing characters after the dict");
    if (!haveDescr || !haveFortran || !haveShape)
      bad("missing one of 'descr', 'fortran_order', 'shape'");
    return h;
  }

private:
  [[noreturn]] void bad(const std::string &why) {
    fail(name_, "malformed .npy header (" + why + "): " + s_);
  }
  void skip() {
    while (p_ < s_.size() && (s_[p_] == ' ' || s_[p_] == '\t' || s_[p_] == '\n' || s_[p_] == '\r')) ++p_;
  }
  char peek() const { return p_ < s_.size() ? s_[p_] : '\0'; }
  void expect(char c) {
    skip();
    if (peek() != c) bad(std::string("expected '") + c + "'");
    ++p_;
  }
  bool word(const char *w) {
    size_t n = std::strlen(w);
    if (s_.compare(p_, n, w) != 0) return false;
    p_ += n;
    return true;
  }
  std::string str() {
    skip();
    char q = peek();
    if (q != '\'' && q != '"') bad("expected a string");
    size_t end = s_.find(q, p_ + 1);
    if (end == std::string::npos) bad("unterminated string");
    std::string v = s_.substr(p_ + 1, end - p_ - 1);
    p_ = end + 1;
    return v;
  }
  std::vector<int64_t> tuple() {
    std::vector<int64_t> v;
    expect('(');
    while (true) {
      skip();
      if (peek() == ')') { ++p_; break; }
      if (!(peek() >= '0' && peek() <= '9')) bad("shape entry is not a non-negative integer");
      int64_t n = 0;
      while (peek() >= '0' && peek() <= '9') {
        if (__builtin_mul_overflow(n, 10, &n) || __builtin_add_overflow(n, peek() - '0', &n))
          bad("shape entry overflows");
        ++p_;
      }
      if (peek() == 'L') ++p_;  // Python 2 long suffix
      v.push_back(n);
      skip();
      if (peek() == ',') { ++p_; continue; }
      skip();
      if (peek() == ')') { ++p_; break; }
      bad("expected ',' or ')' in shape");
    }
    return v;
  }

  const std::string &s_, &name_;
  size_t p_ = 0;
};

bool dtypeFromDescr(const std::string &d, DType &out) {
  if (d.size() != 3) return false;
  char order = d[0];
  std::string code = d.substr(1);
  bool byteSized = code == "i1" || code == "u1" || code == "b1";
  if (!(order == '<' || order == '=' || order == '|' || (byteSized && order == '>'))) return false;
  if (order == '|' && !byteSized) return false;
  static const struct { const char *code; DType t; } table[] = {
      {"f4", DType::Float32}, {"f8", DType::Float64}, {"f2", DType::Float16},
      {"i8", DType::Int64},   {"i4", DType::Int32},   {"i2", DType::Int16},
      {"i1", DType::Int8},    {"u1", DType::UInt8},   {"b1", DType::Bool}};
  for (const auto &e : table)
    if (code == e.code) {
      out = e.t;
      return true;
    }
  return false;
}

const char *descrOf(DType t) {
  switch (t) {
  case DType::Float32: return "<f4";
  case DType::Float64: return "<f8";
  case DType::Float16: return "<f2";
  case DType::Int64: return "<i8";
  case DType::Int32: return "<i4";
  case DType::Int16: return "<i2";
  case DType::Int8: return "|i1";
  case DType::UInt8: return "|u1";
  case DType::Bool: return "|b1";
  case DType::BFloat16: return nullptr;
  }
  return nullptr;
}

// The umask without the racy umask() set-and-restore dance: read it from /proc.
mode_t processUmask() {
  static const mode_t mask = [] {
    std::ifstream f("/proc/self/status");
    std::string line;
    while (std::getline(f, line))
      if (line.rfind("Umask:", 0) == 0) return (mode_t)std::strtol(line.c_str() + 6, nullptr, 8);
    return (mode_t)022;
  }();
  return mask;
}

} // namespace

Tensor parseNpy(const void *data, size_t size, const std::string &name) {
  const auto *b = static_cast<const unsigned char *>(data);
  if (size < 10 || std::memcmp(b, kMagic, 6) != 0) fail(name, "not a .npy file (bad magic)");
  int major = b[6], minor = b[7];
  size_t headerLen, start;
  if (major == 1) {
    headerLen = b[8] | (size_t)b[9] << 8;
    start = 10;
  } else if (major == 2 || major == 3) {
    if (size < 12) fail(name, "truncated .npy header");
    headerLen = b[8] | (size_t)b[9] << 8 | (size_t)b[10] << 16 | (size_t)b[11] << 24;
    start = 12;
  } else {
    fail(name, "unsupported .npy format version " + std::to_string(major) + "." +
                   std::to_string(minor) + " (kiln reads 1.0, 2.0 and 3.0)");
  }
  if (headerLen > size - start) fail(name, "truncated .npy header");
  std::string header(reinterpret_cast<const char *>(b + start), headerLen);
  Header h = DictParser(header, name).parse();
  DType dtype;
  if (!dtypeFromDescr(h.descr, dtype))
    fail(name, "unsupported .npy dtype '" + h.descr +
                   "' (kiln reads little-endian <f4 <f8 <f2 <i8 <i4 <i2 |i1 |u1 |b1)");
  size_t elem = dtypeSize(dtype);
  int64_t numel = 1;
  for (int64_t s : h.shape)
    if (__builtin_mul_overflow(numel, s, &numel) || numel > (int64_t(1) << 56))
      fail(name, "shape " + shapeToString(h.shape) + " is too large");
  size_t offset = start + headerLen;
  size_t need = (size_t)numel * elem;
  size_t have = size - offset;
  if (have < need)
    fail(name, "data is truncated: shape " + shapeToString(h.shape) + " of " + h.descr +
                   " needs " + std::to_string(need) + " bytes, the file has " + std::to_string(have));
  if (have > need)
    fail(name, std::to_string(have - need) + " unexpected trailing bytes after the data");
  Tensor t = Tensor::empty(h.shape, dtype);
  if (!h.fortran || h.shape.size() < 2) {
    if (need) std::memcpy(t.rawData(), b + offset, need);
  } else {
    // Column-major on disk: view it with reversed strides and copy into C order.
    auto storage = Storage::allocate(need);
    if (need) std::memcpy(storage->data(), b + offset, need);
    std::vector<int64_t> strides(h.shape.size());
    int64_t s = 1;
    for (size_t d = 0; d < h.shape.size(); ++d) {
      strides[d] = s;
      s *= h.shape[d] ? h.shape[d] : 1;
    }
    t.copyFrom(Tensor::view(storage, 0, h.shape, strides, dtype));
  }
  if (dtype == DType::Bool) {
    auto *p = t.data<uint8_t>();
    for (int64_t i = 0; i < numel; ++i) p[i] = p[i] != 0;
  }
  return t;
}

Tensor readNpy(const std::string &path) {
  std::ifstream f(path, std::ios::binary);
  struct stat st;
  if (::stat(path.c_str(), &st) != 0) fail(path, "file does not exist");
  if (!S_ISREG(st.st_mode)) fail(path, "not a regular file");
  if (!f) fail(path, std::string("cannot open: ") + std::strerror(errno));
  std::string bytes((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  if (f.bad()) fail(path, "read error");
  return parseNpy(bytes.data(), bytes.size(), path);
}

Tensor bf16ToF32(const Tensor &t) {
  if (t.dtype() != DType::BFloat16)
    throw NpyError(std::string("bf16ToF32: tensor is ") + dtypeName(t.dtype()) + ", not bf16");
  Tensor c = t.contiguous();
  Tensor out = Tensor::empty(c.sizes(), DType::Float32);
  const uint16_t *src = c.data<uint16_t>();
  float *dst = out.data<float>();
  for (int64_t i = 0, n = c.numel(); i < n; ++i) dst[i] = bf16BitsToFloat(src[i]);
  return out;
}

Tensor f32ToBf16(const Tensor &t) {
  if (t.dtype() != DType::Float32)
    throw NpyError(std::string("f32ToBf16: tensor is ") + dtypeName(t.dtype()) + ", not f32");
  Tensor c = t.contiguous();
  Tensor out = Tensor::empty(c.sizes(), DType::BFloat16);
  const uint32_t *src = c.data<uint32_t>();
  uint16_t *dst = out.data<uint16_t>();
  for (int64_t i = 0, n = c.numel(); i < n; ++i) dst[i] = floatToBF16Bits(bitsToFloat(src[i]));
  return out;
}

Tensor readNpyFor(const std::string &path, DType want) {
  Tensor t = readNpy(path);
  if (want == DType::BFloat16 && t.dtype() == DType::Float32) return f32ToBf16(t);
  return t;
}

std::string serializeNpy(const Tensor &t0) {
  // bf16 has no NumPy dtype: it is written as f32, which holds every bf16 exactly.
  const Tensor &t = t0.dtype() == DType::BFloat16 ? bf16ToF32(t0) : t0;
  const char *descr = descrOf(t.dtype());
  if (!descr)
    throw NpyError(std::string("cannot write ") + dtypeName(t.dtype()) + " as .npy");
  std::string shape = "(";
  for (size_t i = 0; i < t.sizes().size(); ++i) {
    shape += std::to_string(t.sizes()[i]);
    if (i + 1 < t.sizes().size() || t.sizes().size() == 1) shape += ",";
    if (i + 1 < t.sizes().size()) shape += " ";
  }
  shape += ")";
  std::string dict = std::string("{'descr': '") + descr + "', 'fortran_order': False, 'shape': " +
                     shape + ", }";
  // Pad so magic + version + length + dict + '\n' is a multiple of 64.
  bool v2 = dict.size() + 1 + 10 > 65535;
  size_t pre = v2 ? 12 : 10;
  size_t total = pre + dict.size() + 1;
  size_t padded = (total + 63) / 64 * 64;
  dict.append(padded - total, ' ');
  dict += '\n';
  std::string out(kMagic, 6);
  out += (char)(v2 ? 2 : 1);
  out += (char)0;
  size_t len = dict.size();
  out += (char)(len & 0xff);
  out += (char)((len >> 8) & 0xff);
  if (v2) {
    out += (char)((len >> 16) & 0xff);
    out += (char)((len >> 24) & 0xff);
  }
  out += dict;
  Tensor c = t.contiguous();
  if (c.nbytes()) out.append(static_cast<const char *>(c.rawData()), c.nbytes());
  return out;
}

void writeNpy(const std::string &path, const Tensor &t) {
  std::string bytes;
  try {
    bytes = serializeNpy(t);
  } catch (const NpyError &e) {
    fail(path, e.what());
  }
  std::string tmpl = path + ".tmp.XXXXXX";
  std::vector<char> name(tmpl.begin(), tmpl.end());
  name.push_back('\0');
  int fd = ::mkstemp(name.data());
  if (fd < 0) fail(path, std::string("cannot create a temporary file: ") + std::strerror(errno));
  std::string tmp(name.data());
  auto cleanupFail = [&](const std::string &why) {
    ::close(fd);
    ::unlink(tmp.c_str());
    fail(path, why);
  };
  // mkstemp creates 0600; give the file the permissions a plain create would.
  ::fchmod(fd, 0666 & ~processUmask());
  size_t off = 0;
  while (off < bytes.size()) {
    ssize_t n = ::write(fd, bytes.data() + off, bytes.size() - off);
    if (n < 0) {
      if (errno == EINTR) continue;
      cleanupFail(std::string("write failed: ") + std::strerror(errno));
    }
    off += (size_t)n;
  }
  if (::close(fd) != 0) {
    ::unlink(tmp.c_str());
    fail(path, std::string("write failed: ") + std::strerror(errno));
  }
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    int e = errno;
    ::unlink(tmp.c_str());
    fail(path, std::string("cannot rename the temporary file into place: ") + std::strerror(e));
  }
}

} // namespace kiln
