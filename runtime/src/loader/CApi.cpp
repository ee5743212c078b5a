// kiln runtime — the C ABI of kiln.h over kiln::Tensor and kiln::Model. No exception escapes.
#include "kiln/kiln.h"

#include "../cpu/Threads.h"
#include "../gpu/Runtime.h"
#include "kiln/gpu.h"
#include "kiln/error.h"
#include "Model.h"

#include <atomic>
#include <cstring>
#include <new>

struct kiln_status {
  kiln_status_code_t code;
  std::string message;
};

struct kiln_tensor {
  std::atomic<int64_t> refs{1};
  kiln::Tensor tensor;  // always contiguous
};

namespace {

// Returned when even allocating a status fails; kiln_status_free ignores it.
kiln_status gOutOfMemory{KILN_STATUS_RESOURCE_EXHAUSTED, ""};

kiln_status_t makeStatus(kiln_status_code_t code, const std::string &message) {
  try {
    return new kiln_status{code, message};
  } catch (...) {
    return &gOutOfMemory;
  }
}

// Runs `fn`, turning any exception into a status.
template <typename Fn> kiln_status_t guarded(Fn &&fn) {
  try {
    fn();
    return nullptr;
  } catch (const kiln::Error &e) {
    return makeStatus(e.code(), e.what());
  } catch (const std::bad_alloc &) {
    return makeStatus(KILN_STATUS_RESOURCE_EXHAUSTED, "kiln: out of memory");
  } catch (const std::invalid_argument &e) {
    return makeStatus(KILN_STATUS_INVALID_ARGUMENT, e.what());
  } catch (const std::exception &e) {
    return makeStatus(KILN_STATUS_INTERNAL, e.what());
  } catch (...) {
    return makeStatus(KILN_STATUS_INTERNAL, "kiln: unknown internal error");
  }
}

[[noreturn]] void invalid(const std::string &msg) {
  throw kiln::Error(KILN_STATUS_INVALID_ARGUMENT, msg);
}

bool validDType(kiln_dtype_t d) { return (int)d >= 0 && (int)d < kiln::kNumDTypes; }

std::vector<int64_t> checkedSizes(const char *fn, size_t rank, const int64_t *sizes) {
  if (rank > 64) invalid(std::string(fn) + ": rank " + std::to_string(rank) + " is too large");
  if (rank && !sizes) invalid(std::string(fn) + ": sizes is NULL with rank > 0");
  std::vector<int64_t> v(sizes, sizes + rank);
  int64_t total = 1;
  for (size_t i = 0; i < rank; ++i) {
    if (v[i] < 0)
      invalid(std::string(fn) + ": negative size in " + kiln::shapeToString(v));
    if (__builtin_mul_overflow(total, v[i], &total) || total > (int64_t(1) << 56))
      invalid(std::string(fn) + ": shape " + kiln::shapeToString(v) + " is too large");
  }
  return v;
}

kiln_tensor_t newHandle(kiln::Tensor t) {
  auto *h = new kiln_tensor;
  h->tensor = std::move(t);
  return h;
}

// Metadata of one value, laid out for kiln_value_info_t.
struct InfoStore {
  std::string name;
  kiln_value_kind_t kind;
  kiln_dtype_t dtype;
  std::vector<int64_t> dims, mins, maxs;
  std::vector<std::string> symbols;
  std::vector<const char *> symbolPtrs;
  int mutated = 0;
};

InfoStore makeInfo(const kiln::Manifest &m, const kiln::ManifestValue &v) {
  InfoStore s;
  s.name = v.name;
  switch (v.kind) {
  case kiln::ValueKind::Input: s.kind = KILN_VALUE_INPUT; break;
  case kiln::ValueKind::Output: s.kind = KILN_VALUE_OUTPUT; break;
  case kiln::ValueKind::Param: s.kind = KILN_VALUE_PARAM; break;
  case kiln::ValueKind::Buffer: s.kind = KILN_VALUE_BUFFER; break;
  case kiln::ValueKind::Constant: s.kind = KILN_VALUE_CONSTANT; break;
  case kiln::ValueKind::Derived:  // never listed (not a param)
  case kiln::ValueKind::Rng:      // never listed (the loader fills it)
    s.kind = KILN_VALUE_CONSTANT;
    break;
  }
  s.dtype = (kiln_dtype_t)v.dtype;
  for (const kiln::ManifestValue &u : m.updates)
    if (u.kind == v.kind && u.name == v.name) s.mutated = 1;
  for (const kiln::ManifestDim &d : v.dims) {
    if (d.isStatic()) {
      s.dims.push_back(d.size);
      s.mins.push_back(d.size);
      s.maxs.push_back(d.size);
      s.symbols.push_back("");
    } else if (d.symbol >= 0) {
      const kiln::ManifestSymbol &sym = m.symbols[d.symbol];
      s.dims.push_back(-1);
      s.mins.push_back(sym.min);
      s.maxs.push_back(sym.max);
      s.symbols.push_back(sym.name);
    } else {
      s.dims.push_back(-1);
      s.mins.push_back(0);
      s.maxs.push_back(-1);
      s.symbols.push_back("?");
    }
  }
  return s;
}

} // namespace

struct kiln_model {
  std::unique_ptr<kiln::Model> model;
  std::vector<InfoStore> inputs, outputs, params;
  void finish() {
    for (auto *list : {&inputs, &outputs, &params})
      for (InfoStore &s : *list)
        for (const std::string &sym : s.symbols) s.symbolPtrs.push_back(sym.c_str());
  }
};

/// kiln_tensor_wrap on a device (CPU or a GPU): `who` names the entry in errors.
static kiln_status_t wrapOn(const char *who, void *data, kiln::Device device, kiln_dtype_t dtype, size_t rank,
                            const int64_t *sizes, kiln_deleter_fn deleter, void *user, kiln_tensor_t *out) {
  return guarded([&] {
    if (!out) invalid(std::string(who) + ": out is NULL");
    if (!validDType(dtype)) invalid(std::string(who) + ": unknown dtype " + std::to_string((int)dtype));
    auto v = checkedSizes(who, rank, sizes);
    int64_t numel = 1;
    for (int64_t s : v) numel *= s;
    if (!data && numel) invalid(std::string(who) + ": data is NULL for a non-empty tensor");
    kiln::Storage::Deleter d;
    if (deleter) d = [deleter, user](void *p) { deleter(p, user); };
    // Build everything that can throw before the deleter is handed over, so a
    // failure leaves ownership with the caller as documented.
    auto *h = new kiln_tensor;
    try {
      h->tensor = kiln::Tensor::fromBlob(data, v, (kiln::DType)dtype, std::move(d), device);
    } catch (...) {
      delete h;
      throw;
    }
    *out = h;
  });
}

extern "C" {

uint32_t kiln_abi_version(void) {
  return (uint32_t)KILN_ABI_VERSION_MAJOR << 16 | KILN_ABI_VERSION_MINOR;
}

kiln_status_code_t kiln_status_code(kiln_status_t s) { return s ? s->code : KILN_STATUS_OK; }
const char *kiln_status_message(kiln_status_t s) {
  if (!s) return "";
  if (s == &gOutOfMemory) return "kiln: out of memory";
  return s->message.c_str();
}
void kiln_status_free(kiln_status_t s) {
  if (s && s != &gOutOfMemory) delete s;
}
const char *kiln_status_code_name(kiln_status_code_t code) {
  switch (code) {
  case KILN_STATUS_OK: return "OK";
  case KILN_STATUS_INVALID_ARGUMENT: return "INVALID_ARGUMENT";
  case KILN_STATUS_NOT_FOUND: return "NOT_FOUND";
  case KILN_STATUS_FAILED_PRECONDITION: return "FAILED_PRECONDITION";
  case KILN_STATUS_OUT_OF_RANGE: return "OUT_OF_RANGE";
  case KILN_STATUS_INTERNAL: return "INTERNAL";
  case KILN_STATUS_UNIMPLEMENTED: return "UNIMPLEMENTED";
  case KILN_STATUS_RESOURCE_EXHAUSTED: return "RESOURCE_EXHAUSTED";
  case KILN_STATUS_DEVICE_ERROR: return "DEVICE_ERROR";
  default: break;
  }
  return "UNKNOWN";
}

size_t kiln_dtype_size(kiln_dtype_t d) { return validDType(d) ? kiln::dtypeSize((kiln::DType)d) : 0; }
const char *kiln_dtype_name(kiln_dtype_t d) {
  return validDType(d) ? kiln::dtypeName((kiln::DType)d) : "?";
}

kiln_status_t kiln_tensor_create(kiln_dtype_t dtype, size_t rank, const int64_t *sizes,
                                 kiln_tensor_t *out) {
  return guarded([&] {
    if (!out) invalid("kiln_tensor_create: out is NULL");
    if (!validDType(dtype)) invalid("kiln_tensor_create: unknown dtype " + std::to_string((int)dtype));
    auto v = checkedSizes("kiln_tensor_create", rank, sizes);
    *out = newHandle(kiln::Tensor::zeros(v, (kiln::DType)dtype));
  });
}

kiln_status_t kiln_tensor_wrap(void *data, kiln_dtype_t dtype, size_t rank, const int64_t *sizes,
                               kiln_deleter_fn deleter, void *user, kiln_tensor_t *out) {
  return wrapOn("kiln_tensor_wrap", data, kiln::Device{}, dtype, rank, sizes, deleter, user, out);
}

void kiln_tensor_retain(kiln_tensor_t t) {
  if (t) t->refs.fetch_add(1, std::memory_order_relaxed);
}
void kiln_tensor_release(kiln_tensor_t t) {
  if (t && t->refs.fetch_sub(1, std::memory_order_acq_rel) == 1) delete t;
}
void *kiln_tensor_data(kiln_tensor_t t) { return t ? t->tensor.rawData() : nullptr; }
kiln_dtype_t kiln_tensor_dtype(kiln_tensor_t t) {
  return t ? (kiln_dtype_t)t->tensor.dtype() : KILN_DTYPE_F32;
}
size_t kiln_tensor_rank(kiln_tensor_t t) { return t ? (size_t)t->tensor.dim() : 0; }
const int64_t *kiln_tensor_sizes(kiln_tensor_t t) {
  return t ? t->tensor.sizes().data() : nullptr;
}
size_t kiln_tensor_nbytes(kiln_tensor_t t) { return t ? t->tensor.nbytes() : 0; }

void kiln_model_options_init(kiln_model_options_t *o) {
  if (!o) return;
  std::memset(o, 0, sizeof(*o));
  o->struct_size = sizeof(*o);
  o->seed = -1;
}

kiln_status_t kiln_model_load(const char *path, const kiln_model_options_t *options,
                              kiln_model_t *out) {
  return guarded([&] {
    if (!path) invalid("kiln_model_load: path is NULL");
    if (!out) invalid("kiln_model_load: out is NULL");
    kiln::ModelOptions mo;
    if (options) {
      // Read only the fields the caller's header version has.
      kiln_model_options_t o;
      kiln_model_options_init(&o);
      if (options->struct_size < offsetof(kiln_model_options_t, weights_path))
        invalid("kiln_model_load: options.struct_size is not set; call kiln_model_options_init");
      std::memcpy(&o, options, std::min(options->struct_size, sizeof(o)));
      if (o.weights_path) mo.weightsPath = o.weights_path;
      if (o.num_plugins && !o.plugin_paths)
        invalid("kiln_model_load: num_plugins > 0 but plugin_paths is NULL");
      for (size_t i = 0; i < o.num_plugins; ++i) {
        if (!o.plugin_paths[i]) invalid("kiln_model_load: plugin_paths[" + std::to_string(i) + "] is NULL");
        mo.plugins.push_back(o.plugin_paths[i]);
      }
      if (o.num_threads < 0 || o.num_threads > kiln::cpu::kMaxThreadCount)
        invalid("kiln_model_load: num_threads is " + std::to_string(o.num_threads) + ", expected 0 (default) or 1 to " +
                std::to_string(kiln::cpu::kMaxThreadCount));
      mo.threads = o.num_threads;
      if (o.seed < -1) invalid("kiln_model_load: seed is " + std::to_string(o.seed) + ", expected -1 (default) or 0 to 2^63-1");
      mo.seed = o.seed;
      if (o.num_weights && (!o.weight_names || !o.weight_tensors))
        invalid("kiln_model_load: num_weights > 0 but weight_names or weight_tensors is NULL");
      if (o.num_weights && o.weights_path)
        invalid("kiln_model_load: weights_path and weight_tensors are both given; give one");
      for (size_t i = 0; i < o.num_weights; ++i) {
        if (!o.weight_names[i] || !o.weight_tensors[i])
          invalid("kiln_model_load: weight_names[" + std::to_string(i) + "] or weight_tensors[" +
                  std::to_string(i) + "] is NULL");
        mo.weights.emplace_back(o.weight_names[i], o.weight_tensors[i]->tensor);
      }
    }
    auto h = std::make_unique<kiln_model>();
    h->model = kiln::Model::load(path, mo);
    const kiln::Model &m = *h->model;
    for (size_t i = 0; i < m.numInputs(); ++i) h->inputs.push_back(makeInfo(m.manifest(), m.input(i)));
    for (size_t i = 0; i < m.numOutputs(); ++i) h->outputs.push_back(makeInfo(m.manifest(), m.output(i)));
    for (size_t i = 0; i < m.numParams(); ++i) h->params.push_back(makeInfo(m.manifest(), m.param(i)));
    h->finish();
    *out = h.release();
  });
}

void kiln_model_free(kiln_model_t m) { delete m; }

const char *kiln_model_name(kiln_model_t m) {
  return m ? m->model->manifest().name.c_str() : "";
}
int kiln_model_num_threads(kiln_model_t m) { return m ? m->model->threads() : 0; }
size_t kiln_model_num_inputs(kiln_model_t m) { return m ? m->inputs.size() : 0; }
size_t kiln_model_num_outputs(kiln_model_t m) { return m ? m->outputs.size() : 0; }
size_t kiln_model_num_params(kiln_model_t m) { return m ? m->params.size() : 0; }

static kiln_status_t fillInfo(const char *fn, kiln_model_t m, const std::vector<InfoStore> *list,
                              size_t index, kiln_value_info_t *info) {
  return guarded([&] {
    if (!m) invalid(std::string(fn) + ": model is NULL");
    if (!info) invalid(std::string(fn) + ": info is NULL");
    if (info->struct_size < sizeof(size_t))
      invalid(std::string(fn) + ": info.struct_size is not set (use sizeof(kiln_value_info_t))");
    if (index >= list->size())
      throw kiln::Error(KILN_STATUS_OUT_OF_RANGE, std::string(fn) + ": index " +
                                                      std::to_string(index) + " but the model has " +
                                                      std::to_string(list->size()));
    const InfoStore &s = (*list)[index];
    kiln_value_info_t v;
    v.struct_size = info->struct_size;
    v.name = s.name.c_str();
    v.kind = s.kind;
    v.dtype = s.dtype;
    v.rank = s.dims.size();
    v.dims = s.dims.data();
    v.dim_min = s.mins.data();
    v.dim_max = s.maxs.data();
    v.dim_symbols = s.symbolPtrs.data();
    v.mutated = s.mutated;
    std::memcpy(info, &v, std::min(info->struct_size, sizeof(v)));
  });
}

kiln_status_t kiln_model_input_info(kiln_model_t m, size_t i, kiln_value_info_t *info) {
  return fillInfo("kiln_model_input_info", m, m ? &m->inputs : nullptr, i, info);
}
kiln_status_t kiln_model_output_info(kiln_model_t m, size_t i, kiln_value_info_t *info) {
  return fillInfo("kiln_model_output_info", m, m ? &m->outputs : nullptr, i, info);
}
kiln_status_t kiln_model_param_info(kiln_model_t m, size_t i, kiln_value_info_t *info) {
  return fillInfo("kiln_model_param_info", m, m ? &m->params : nullptr, i, info);
}

kiln_status_t kiln_model_param_read(kiln_model_t m, size_t i, kiln_tensor_t *out) {
  return guarded([&] {
    if (!m) invalid("kiln_model_param_read: model is NULL");
    if (!out) invalid("kiln_model_param_read: out is NULL");
    if (i >= m->params.size())
      throw kiln::Error(KILN_STATUS_OUT_OF_RANGE, "kiln_model_param_read: index " + std::to_string(i) +
                                                      " but the model has " +
                                                      std::to_string(m->params.size()));
    *out = newHandle(m->model->readParam(i));
  });
}

kiln_status_t kiln_model_run(kiln_model_t m, const kiln_tensor_t *inputs, size_t num_inputs,
                             kiln_tensor_t *outputs, size_t num_outputs) {
  return kiln_model_run_with_options(m, nullptr, inputs, num_inputs, outputs, num_outputs);
}

namespace {
kiln_device_type_t toC(kiln::DeviceType d) {
  return d == kiln::DeviceType::CUDA ? KILN_DEVICE_CUDA : d == kiln::DeviceType::HIP ? KILN_DEVICE_HIP : KILN_DEVICE_CPU;
}
/// The GPU device type of a C device value; CPU for KILN_DEVICE_CPU.
kiln::DeviceType fromC(kiln_device_type_t d, const char *who) {
  if (d == KILN_DEVICE_CPU) return kiln::DeviceType::CPU;
  if (d == KILN_DEVICE_CUDA) return kiln::DeviceType::CUDA;
  if (d == KILN_DEVICE_HIP) return kiln::DeviceType::HIP;
  invalid(std::string(who) + ": unknown device " + std::to_string((int)d));
  return kiln::DeviceType::CPU;
}
} // namespace

int kiln_model_is_random(kiln_model_t m) { return m && m->model->isRandom() ? 1 : 0; }

kiln_device_type_t kiln_model_device(kiln_model_t m) { return m ? toC(m->model->device()) : KILN_DEVICE_CPU; }

void kiln_run_options_init(kiln_run_options_t *o) {
  if (!o) return;
  std::memset(o, 0, sizeof(*o));
  o->struct_size = sizeof(*o);
  o->output_device = KILN_DEVICE_CPU;
  o->cuda_graphs = 1;
}

kiln_status_t kiln_model_run_with_options(kiln_model_t m, const kiln_run_options_t *options,
                                          const kiln_tensor_t *inputs, size_t num_inputs,
                                          kiln_tensor_t *outputs, size_t num_outputs) {
  return guarded([&] {
    if (!m) invalid("kiln_model_run: model is NULL");
    kiln_run_options_t o;
    kiln_run_options_init(&o);
    if (options) {
      if (options->struct_size < offsetof(kiln_run_options_t, stream))
        invalid("kiln_model_run_with_options: options.struct_size is not set; call kiln_run_options_init");
      std::memcpy(&o, options, std::min(options->struct_size, sizeof(o)));
    }
    kiln::RunOptions ro;
    ro.stream = o.stream;
    ro.cudaGraphs = o.cuda_graphs != 0;
    ro.rngState = o.rng_state;
    ro.rngStateUsed = o.rng_state_used;
    ro.staticInputs = o.static_inputs;
    if (o.output_device == KILN_DEVICE_CPU)
      ro.outputDevice = kiln::DeviceType::CPU;
    else if (o.output_device != KILN_DEVICE_CPU && o.output_device == toC(m->model->device()))
      ro.outputDevice = m->model->device();
    else
      invalid("kiln_model_run_with_options: output_device " + std::to_string((int)o.output_device) +
              " is neither the CPU nor the model's device (" + kiln::deviceTypeName(m->model->device()) + ")");
    if (num_inputs && !inputs) invalid("kiln_model_run: inputs is NULL");
    if (num_outputs != m->outputs.size())
      invalid("kiln_model_run: model '" + m->model->manifest().name + "' has " +
              std::to_string(m->outputs.size()) + " output(s), but num_outputs is " +
              std::to_string(num_outputs));
    if (num_outputs && !outputs) invalid("kiln_model_run: outputs is NULL");
    std::vector<kiln::Tensor> in;
    in.reserve(num_inputs);
    for (size_t i = 0; i < num_inputs; ++i) {
      if (!inputs[i]) invalid("kiln_model_run: inputs[" + std::to_string(i) + "] is NULL");
      in.push_back(inputs[i]->tensor);
    }
    std::vector<kiln::Tensor> out = m->model->run(in, ro);
    std::vector<kiln_tensor_t> handles;
    try {
      for (kiln::Tensor &t : out) handles.push_back(newHandle(std::move(t)));
    } catch (...) {
      for (kiln_tensor_t h : handles) kiln_tensor_release(h);
      throw;
    }
    for (size_t i = 0; i < handles.size(); ++i) outputs[i] = handles[i];
  });
}

kiln_status_t kiln_device_check(kiln_device_type_t device) {
  return guarded([&] {
    kiln::DeviceType d = fromC(device, "kiln_device_check");
    if (d == kiln::DeviceType::CPU) return;
    std::string why;
    if (!kiln::gpu::available(d, &why)) throw kiln::Error(KILN_STATUS_DEVICE_ERROR, why);
  });
}

kiln_status_t kiln_tensor_wrap_device(void *data, kiln_device_type_t device, kiln_dtype_t dtype, size_t rank,
                                      const int64_t *sizes, kiln_deleter_fn deleter, void *user,
                                      kiln_tensor_t *out) {
  kiln::Device d;
  if (kiln_status_t st = guarded([&] { d.type = fromC(device, "kiln_tensor_wrap_device"); })) return st;
  return wrapOn("kiln_tensor_wrap_device", data, d, dtype, rank, sizes, deleter, user, out);
}

kiln_device_type_t kiln_tensor_device(kiln_tensor_t t) {
  return t ? toC(t->tensor.device().type) : KILN_DEVICE_CPU;
}

kiln_status_t kiln_tensor_copy_to(kiln_tensor_t src, kiln_device_type_t device, void *stream,
                                  kiln_tensor_t *out) {
  return guarded([&] {
    if (!src) invalid("kiln_tensor_copy_to: src is NULL");
    if (!out) invalid("kiln_tensor_copy_to: out is NULL");
    kiln::DeviceType to = fromC(device, "kiln_tensor_copy_to");
    const kiln::Tensor &t = src->tensor;
    kiln::DeviceType from = t.device().type;
    bool fromGPU = from != kiln::DeviceType::CPU, toGPU = to != kiln::DeviceType::CPU;
    if (fromGPU && toGPU && from != to)
      invalid(std::string("kiln_tensor_copy_to: cannot copy a ") + kiln::deviceTypeName(from) + " tensor to " +
              kiln::deviceTypeName(to) + " directly; copy it to the cpu first");
    kiln::Tensor copy;
    if (!fromGPU && !toGPU) {
      copy = t.clone();
    } else {
      const kiln::gpu::Backend &b = kiln::gpu::backend(fromGPU ? from : to);
      void *s = stream ? stream : kiln::gpu::threadStream(b);
      if (!fromGPU)
        copy = kiln::gpu::toDevice(b, t, s);
      else if (!toGPU)
        copy = kiln::gpu::toHost(b, t, s);
      else {
        copy = kiln::gpu::cloneOnDevice(b, t, s);
        if (!stream) kiln::gpu::synchronize(b, s);
      }
    }
    *out = newHandle(std::move(copy));
  });
}

} // extern "C"
