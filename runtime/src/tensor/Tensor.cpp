// kiln runtime — dtypes, storage and tensors.
#include "kiln/tensor.h"
#include "kiln/abi/dtypes.h"

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <new>
#include <sstream>
#include <stdexcept>

namespace kiln {

// kiln::DType is numbered as the ABI's kiln_dtype_t (what compiled code passes).
static_assert((int)DType::Float32 == KILN_DTYPE_F32 && (int)DType::Float64 == KILN_DTYPE_F64 &&
              (int)DType::Float16 == KILN_DTYPE_F16 && (int)DType::BFloat16 == KILN_DTYPE_BF16 &&
              (int)DType::Int64 == KILN_DTYPE_I64 && (int)DType::Int32 == KILN_DTYPE_I32 &&
              (int)DType::Int16 == KILN_DTYPE_I16 && (int)DType::Int8 == KILN_DTYPE_I8 &&
              (int)DType::UInt8 == KILN_DTYPE_U8 && (int)DType::Bool == KILN_DTYPE_BOOL,
              "kiln::DType must follow kiln_dtype_t's codes");

namespace {
struct DTypeInfo {
  const char *name, *torchName;
  size_t size;
  bool isFloat;
};
const DTypeInfo kDTypes[kNumDTypes] = {
    {KILN_DTYPE_TOKEN_F32, "torch.float32", 4, true},   {KILN_DTYPE_TOKEN_F64, "torch.float64", 8, true},
    {KILN_DTYPE_TOKEN_F16, "torch.float16", 2, true},   {KILN_DTYPE_TOKEN_BF16, "torch.bfloat16", 2, true},
    {KILN_DTYPE_TOKEN_I64, "torch.int64", 8, false},    {KILN_DTYPE_TOKEN_I32, "torch.int32", 4, false},
    {KILN_DTYPE_TOKEN_I16, "torch.int16", 2, false},    {KILN_DTYPE_TOKEN_I8, "torch.int8", 1, false},
    {KILN_DTYPE_TOKEN_U8, "torch.uint8", 1, false},     {KILN_DTYPE_TOKEN_BOOL, "torch.bool", 1, false},
};
} // namespace

size_t dtypeSize(DType t) { return kDTypes[(int)t].size; }
const char *dtypeName(DType t) { return kDTypes[(int)t].name; }
const char *dtypeTorchName(DType t) { return kDTypes[(int)t].torchName; }
bool isFloatingPoint(DType t) { return kDTypes[(int)t].isFloat; }
bool parseDType(const std::string &name, DType &out) {
  for (int i = 0; i < kNumDTypes; ++i)
    if (name == kDTypes[i].name) {
      out = (DType)i;
      return true;
    }
  return false;
}

const char *deviceTypeName(DeviceType t) {
  switch (t) {
  case DeviceType::CPU: return "cpu";
  case DeviceType::CUDA: return "cuda";
  case DeviceType::HIP: return "hip";
  case DeviceType::Meta: return "meta";
  }
  return "?";
}

void *alignedAlloc(size_t nbytes) {
  if (nbytes > SIZE_MAX - kAlignment) throw std::bad_alloc();  // rounding up would wrap
  size_t rounded = (nbytes + kAlignment - 1) / kAlignment * kAlignment;
  void *p = std::aligned_alloc(kAlignment, rounded ? rounded : kAlignment);
  if (!p) throw std::bad_alloc();
  return p;
}
void alignedFree(void *p) { std::free(p); }

std::shared_ptr<Storage> Storage::allocate(size_t nbytes, Device device) {
  if (device.type == DeviceType::Meta)
    return std::make_shared<Storage>(nullptr, nbytes, device, Deleter{});
  if (device.type != DeviceType::CPU)
    throw std::runtime_error(std::string("kiln: cannot allocate host storage on device ") +
                             deviceTypeName(device.type));
  return std::make_shared<Storage>(alignedAlloc(nbytes), nbytes, device, alignedFree);
}

std::vector<int64_t> Tensor::contiguousStrides(const std::vector<int64_t> &sizes) {
  std::vector<int64_t> strides(sizes.size());
  int64_t s = 1;
  for (size_t i = sizes.size(); i-- > 0;) {
    strides[i] = s;
    if (__builtin_mul_overflow(s, sizes[i] > 0 ? sizes[i] : 1, &s) && i > 0)
      throw std::invalid_argument("kiln: tensor sizes " + shapeToString(sizes) + " overflow 64-bit strides");
  }
  return strides;
}

static int64_t numelOf(const std::vector<int64_t> &sizes) {
  int64_t n = 1;
  for (int64_t s : sizes) {
    if (s < 0) throw std::invalid_argument("kiln: negative tensor size in " + shapeToString(sizes));
    // More elements than an int64 holds (or bytes than memory) is an out-of-memory error.
    if (__builtin_mul_overflow(n, s, &n) || n > (INT64_MAX >> 4)) throw std::bad_alloc();
  }
  return n;
}

Tensor Tensor::empty(const std::vector<int64_t> &sizes, DType dtype, Device device) {
  Tensor t;
  t.storage_ = Storage::allocate((size_t)numelOf(sizes) * dtypeSize(dtype), device);
  t.sizes_ = sizes;
  t.strides_ = contiguousStrides(sizes);
  t.dtype_ = dtype;
  return t;
}

Tensor Tensor::zeros(const std::vector<int64_t> &sizes, DType dtype) {
  Tensor t = empty(sizes, dtype);
  std::memset(t.rawData(), 0, t.nbytes());
  return t;
}

Tensor Tensor::fromBlob(void *data, const std::vector<int64_t> &sizes, DType dtype,
                        Storage::Deleter deleter, Device device) {
  Tensor t;
  t.storage_ = std::make_shared<Storage>(data, (size_t)numelOf(sizes) * dtypeSize(dtype), device,
                                         std::move(deleter));
  t.sizes_ = sizes;
  t.strides_ = contiguousStrides(sizes);
  t.dtype_ = dtype;
  return t;
}

Tensor Tensor::view(std::shared_ptr<Storage> storage, int64_t offset, std::vector<int64_t> sizes,
                    std::vector<int64_t> strides, DType dtype) {
  if (sizes.size() != strides.size())
    throw std::invalid_argument("kiln: view needs one stride per size");
  Tensor t;
  t.storage_ = std::move(storage);
  t.offset_ = offset;
  t.sizes_ = std::move(sizes);
  t.strides_ = std::move(strides);
  t.dtype_ = dtype;
  return t;
}

int64_t Tensor::numel() const { return numelOf(sizes_); }

bool Tensor::isContiguous() const {
  if (numel() == 0) return true;  // no element to lay out (as PyTorch)
  int64_t expected = 1;
  for (size_t i = sizes_.size(); i-- > 0;) {
    if (sizes_[i] == 1) continue;
    if (strides_[i] != expected) return false;
    expected *= sizes_[i];
  }
  return true;
}

void *Tensor::rawData() const {
  if (!storage_ || !storage_->data()) return nullptr;
  return static_cast<char *>(storage_->data()) + offset_ * (int64_t)dtypeSize(dtype_);
}

namespace {
// Strided element copy, any rank: walks the destination in row-major order.
void stridedCopy(char *dst, const std::vector<int64_t> &dstStrides, const char *src,
                 const std::vector<int64_t> &srcStrides, const std::vector<int64_t> &sizes,
                 size_t elem) {
  int64_t n = numelOf(sizes);
  if (n == 0) return;
  size_t rank = sizes.size();
  std::vector<int64_t> idx(rank, 0);
  for (int64_t i = 0; i < n; ++i) {
    int64_t so = 0, d = 0;
    for (size_t k = 0; k < rank; ++k) {
      so += idx[k] * srcStrides[k];
      d += idx[k] * dstStrides[k];
    }
    std::memcpy(dst + d * (int64_t)elem, src + so * (int64_t)elem, elem);
    for (size_t k = rank; k-- > 0;) {
      if (++idx[k] < sizes[k]) break;
      idx[k] = 0;
    }
  }
}
} // namespace

void Tensor::copyFrom(const Tensor &src) {
  if (src.sizes_ != sizes_ || src.dtype_ != dtype_)
    throw std::invalid_argument("kiln: copyFrom needs equal shape and dtype, got " +
                                src.shapeString() + " into " + shapeString());
  if (isContiguous() && src.isContiguous()) {
    if (nbytes()) std::memcpy(rawData(), src.rawData(), nbytes());
    return;
  }
  stridedCopy(static_cast<char *>(rawData()), strides_, static_cast<const char *>(src.rawData()),
              src.strides_, sizes_, dtypeSize(dtype_));
}

Tensor Tensor::clone() const {
  Tensor out = empty(sizes_, dtype_, device());
  if (device().type != DeviceType::Meta) out.copyFrom(*this);
  return out;
}

Tensor Tensor::contiguous() const { return isContiguous() ? *this : clone(); }

Tensor Tensor::reshape(std::vector<int64_t> sizes) const {
  int64_t known = 1, inferAt = -1;
  for (size_t i = 0; i < sizes.size(); ++i) {
    if (sizes[i] == -1) {
      if (inferAt >= 0) throw std::invalid_argument("kiln: reshape with more than one -1");
      inferAt = (int64_t)i;
    } else {
      known *= sizes[i];
    }
  }
  if (inferAt >= 0) sizes[inferAt] = known ? numel() / known : 0;
  if (numelOf(sizes) != numel())
    throw std::invalid_argument("kiln: cannot reshape " + shapeString() + " to " +
                                shapeToString(sizes));
  Tensor base = contiguous();
  return view(base.storage_, base.offset_, sizes, contiguousStrides(sizes), dtype_);
}

std::string shapeToString(const std::vector<int64_t> &sizes) {
  std::ostringstream os;
  os << "[";
  for (size_t i = 0; i < sizes.size(); ++i) os << (i ? ", " : "") << sizes[i];
  os << "]";
  return os.str();
}
std::string Tensor::shapeString() const { return shapeToString(sizes_); }

} // namespace kiln
