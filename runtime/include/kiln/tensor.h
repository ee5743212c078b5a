// kiln runtime — dtypes, devices, refcounted storage and strided tensors.
#ifndef KILN_TENSOR_H
#define KILN_TENSOR_H

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace kiln {

/// Element types, in the order of the C ABI's kiln_dtype_t.
enum class DType : uint8_t {
  Float32, Float64, Float16, BFloat16, Int64, Int32, Int16, Int8, UInt8, Bool
};
constexpr int kNumDTypes = 10;

/// Size of one element in bytes.
size_t dtypeSize(DType t);
/// Short name used in manifests and messages: f32 f64 f16 bf16 i64 i32 i16 i8 u8 bool.
const char *dtypeName(DType t);
/// PyTorch's spelling (torch.float32, ...), for messages aimed at PyTorch users.
const char *dtypeTorchName(DType t);
/// Parses a short name; false if unknown.
bool parseDType(const std::string &name, DType &out);
bool isFloatingPoint(DType t);

enum class DeviceType : uint8_t { CPU, CUDA, HIP, Meta };
struct Device {
  DeviceType type = DeviceType::CPU;
  int index = 0;
  bool operator==(const Device &o) const { return type == o.type && index == o.index; }
  bool operator!=(const Device &o) const { return !(*this == o); }
};
const char *deviceTypeName(DeviceType t);

/// Alignment of every buffer the runtime allocates.
constexpr size_t kAlignment = 64;
/// Aligned host allocation; never returns null (throws std::bad_alloc).
void *alignedAlloc(size_t nbytes);
void alignedFree(void *p);

/// A refcounted byte buffer (shared through std::shared_ptr).
class Storage {
public:
  using Deleter = std::function<void(void *)>;
  Storage(void *data, size_t nbytes, Device device, Deleter deleter)
      : data_(data), nbytes_(nbytes), device_(device), deleter_(std::move(deleter)) {}
  ~Storage() { if (deleter_ && data_) deleter_(data_); }
  Storage(const Storage &) = delete;
  Storage &operator=(const Storage &) = delete;
  void *data() const { return data_; }
  size_t nbytes() const { return nbytes_; }
  Device device() const { return device_; }
  /// Fresh aligned host storage (or data-less storage for the Meta device).
  static std::shared_ptr<Storage> allocate(size_t nbytes, Device device = {});

private:
  void *data_;
  size_t nbytes_;
  Device device_;
  Deleter deleter_;
};

/// A strided view of a Storage. Copying a Tensor shares its storage.
class Tensor {
public:
  Tensor() = default;
  /// Contiguous, uninitialised.
  static Tensor empty(const std::vector<int64_t> &sizes, DType dtype, Device device = {});
  static Tensor zeros(const std::vector<int64_t> &sizes, DType dtype);
  /// Wraps memory owned elsewhere; `deleter` (may be empty) runs when the last user goes.
  static Tensor fromBlob(void *data, const std::vector<int64_t> &sizes, DType dtype,
                         Storage::Deleter deleter = {}, Device device = {});
  /// A view with explicit strides and element offset into `storage`.
  static Tensor view(std::shared_ptr<Storage> storage, int64_t offset,
                     std::vector<int64_t> sizes, std::vector<int64_t> strides, DType dtype);

  bool defined() const { return storage_ != nullptr; }
  DType dtype() const { return dtype_; }
  Device device() const { return storage_ ? storage_->device() : Device{}; }
  int64_t dim() const { return (int64_t)sizes_.size(); }
  const std::vector<int64_t> &sizes() const { return sizes_; }
  const std::vector<int64_t> &strides() const { return strides_; }
  int64_t size(int64_t d) const { return sizes_[d < 0 ? d + dim() : d]; }
  int64_t stride(int64_t d) const { return strides_[d < 0 ? d + dim() : d]; }
  int64_t offset() const { return offset_; }
  int64_t numel() const;
  size_t nbytes() const { return (size_t)numel() * dtypeSize(dtype_); }
  bool isContiguous() const;
  const std::shared_ptr<Storage> &storage() const { return storage_; }
  /// Pointer to the first element (storage base + offset).
  void *rawData() const;
  template <typename T> T *data() const { return static_cast<T *>(rawData()); }
  /// This tensor if contiguous, else a contiguous copy.
  Tensor contiguous() const;
  /// A contiguous deep copy.
  Tensor clone() const;
  /// Copies `src` (same sizes and dtype, any strides) into this tensor.
  void copyFrom(const Tensor &src);
  /// Same storage, new sizes; requires contiguity. A -1 entry is inferred.
  Tensor reshape(std::vector<int64_t> sizes) const;
  bool requiresGrad() const { return requiresGrad_; }
  void setRequiresGrad(bool r) { requiresGrad_ = r; }
  /// "[2, 3, 4]"
  std::string shapeString() const;

  static std::vector<int64_t> contiguousStrides(const std::vector<int64_t> &sizes);

private:
  std::shared_ptr<Storage> storage_;
  int64_t offset_ = 0;
  std::vector<int64_t> sizes_, strides_;
  DType dtype_ = DType::Float32;
  bool requiresGrad_ = false;
};

std::string shapeToString(const std::vector<int64_t> &sizes);

} // namespace kiln

#endif // KILN_TENSOR_H
