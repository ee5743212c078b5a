// kiln runtime — the part of cuDNN 9's API the runtime calls, declared here (cuDNN is loaded with dlopen).
#ifndef KILN_CUDA_CUDNNAPI_H
#define KILN_CUDA_CUDNNAPI_H

#include "Driver.h"

#include <cstddef>
#include <string>

namespace kiln::cuda::dnn {

using cudnnHandle_t = struct cudnnContext *;
using cudnnTensorDescriptor_t = struct cudnnTensorStruct *;
using cudnnFilterDescriptor_t = struct cudnnFilterStruct *;
using cudnnConvolutionDescriptor_t = struct cudnnConvolutionStruct *;
using cudnnActivationDescriptor_t = struct cudnnActivationStruct *;
using cudnnStatus_t = int;
// Enumerators of cuDNN 9's ABI (cudnn_graph.h, cudnn_cnn.h).
constexpr int CUDNN_DATA_FLOAT = 0, CUDNN_DATA_HALF = 2, CUDNN_DATA_BFLOAT16 = 9, CUDNN_TENSOR_NCHW = 0, CUDNN_TENSOR_NHWC = 1,
              CUDNN_CROSS_CORRELATION = 1, CUDNN_TENSOR_OP_MATH = 1, CUDNN_FMA_MATH = 3, CUDNN_DEFAULT_MATH = 0;
// cudnnActivationMode_t, cudnnNanPropagation_t and the one algorithm that runs
// a fused convolution with no activation (cudnnConvolutionBiasActivationForward).
constexpr int CUDNN_ACTIVATION_RELU = 1, CUDNN_ACTIVATION_IDENTITY = 5, CUDNN_PROPAGATE_NAN = 1,
              CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM = 1;

/// cudnnConvolutionFwdAlgoPerf_t (cudnnConvolutionBwdDataAlgoPerf_t and
/// cudnnConvolutionBwdFilterAlgoPerf_t have the same fields).
struct FwdAlgoPerf {
  int algo;
  cudnnStatus_t status;
  float time;
  size_t memory;
  int determinism;
  int mathType;
  int reserved[3];
};

/// The entry points of libcudnn that kiln calls.
struct Cudnn {
  cudnnStatus_t (*create)(cudnnHandle_t *);
  cudnnStatus_t (*setStream)(cudnnHandle_t, CUstream);
  const char *(*errorString)(cudnnStatus_t);
  size_t (*version)();
  cudnnStatus_t (*createTensor)(cudnnTensorDescriptor_t *);
  cudnnStatus_t (*setTensorNd)(cudnnTensorDescriptor_t, int, int, const int *, const int *);
  cudnnStatus_t (*createFilter)(cudnnFilterDescriptor_t *);
  cudnnStatus_t (*setFilterNd)(cudnnFilterDescriptor_t, int, int, int, const int *);
  cudnnStatus_t (*createConv)(cudnnConvolutionDescriptor_t *);
  cudnnStatus_t (*setConvNd)(cudnnConvolutionDescriptor_t, int, const int *, const int *, const int *, int, int);
  cudnnStatus_t (*setConvGroups)(cudnnConvolutionDescriptor_t, int);
  cudnnStatus_t (*setConvMath)(cudnnConvolutionDescriptor_t, int);
  cudnnStatus_t (*getFwdAlgo)(cudnnHandle_t, cudnnTensorDescriptor_t, cudnnFilterDescriptor_t,
                              cudnnConvolutionDescriptor_t, cudnnTensorDescriptor_t, int, int *, FwdAlgoPerf *);
  cudnnStatus_t (*getFwdAlgoMax)(cudnnHandle_t, int *);
  cudnnStatus_t (*getFwdWorkspace)(cudnnHandle_t, cudnnTensorDescriptor_t, cudnnFilterDescriptor_t,
                                   cudnnConvolutionDescriptor_t, cudnnTensorDescriptor_t, int, size_t *);
  /// Optional: runs each algorithm once and ranks them by time (x, w read; y and the workspace written).
  cudnnStatus_t (*findFwdAlgoEx)(cudnnHandle_t, cudnnTensorDescriptor_t, const void *, cudnnFilterDescriptor_t,
                                 const void *, cudnnConvolutionDescriptor_t, cudnnTensorDescriptor_t, void *, int,
                                 int *, FwdAlgoPerf *, void *, size_t);
  cudnnStatus_t (*forward)(cudnnHandle_t, const void *, cudnnTensorDescriptor_t, const void *,
                           cudnnFilterDescriptor_t, const void *, cudnnConvolutionDescriptor_t, int, void *, size_t,
                           const void *, cudnnTensorDescriptor_t, void *);
  // The gradients: backward data (w, dy -> dx) and backward filter (x, dy -> dw).
  cudnnStatus_t (*getBwdDataAlgo)(cudnnHandle_t, cudnnFilterDescriptor_t, cudnnTensorDescriptor_t,
                                  cudnnConvolutionDescriptor_t, cudnnTensorDescriptor_t, int, int *, FwdAlgoPerf *);
  cudnnStatus_t (*getBwdDataAlgoMax)(cudnnHandle_t, int *);
  cudnnStatus_t (*getBwdDataWorkspace)(cudnnHandle_t, cudnnFilterDescriptor_t, cudnnTensorDescriptor_t,
                                       cudnnConvolutionDescriptor_t, cudnnTensorDescriptor_t, int, size_t *);
  cudnnStatus_t (*backwardData)(cudnnHandle_t, const void *, cudnnFilterDescriptor_t, const void *,
                                cudnnTensorDescriptor_t, const void *, cudnnConvolutionDescriptor_t, int, void *,
                                size_t, const void *, cudnnTensorDescriptor_t, void *);
  cudnnStatus_t (*getBwdFilterAlgo)(cudnnHandle_t, cudnnTensorDescriptor_t, cudnnTensorDescriptor_t,
                                    cudnnConvolutionDescriptor_t, cudnnFilterDescriptor_t, int, int *, FwdAlgoPerf *);
  cudnnStatus_t (*getBwdFilterAlgoMax)(cudnnHandle_t, int *);
  cudnnStatus_t (*getBwdFilterWorkspace)(cudnnHandle_t, cudnnTensorDescriptor_t, cudnnTensorDescriptor_t,
                                         cudnnConvolutionDescriptor_t, cudnnFilterDescriptor_t, int, size_t *);
  cudnnStatus_t (*backwardFilter)(cudnnHandle_t, const void *, cudnnTensorDescriptor_t, const void *,
                                  cudnnTensorDescriptor_t, const void *, cudnnConvolutionDescriptor_t, int, void *,
                                  size_t, const void *, cudnnFilterDescriptor_t, void *);
  // The convolution with its bias and activation (and a scaled z added) in one
  // call: y = act(alpha1 * conv(x, w) + alpha2 * z + bias).
  cudnnStatus_t (*createActivation)(cudnnActivationDescriptor_t *);
  cudnnStatus_t (*setActivation)(cudnnActivationDescriptor_t, int, int, double);
  cudnnStatus_t (*biasActivationForward)(cudnnHandle_t, const void *, cudnnTensorDescriptor_t, const void *,
                                         cudnnFilterDescriptor_t, const void *, cudnnConvolutionDescriptor_t, int,
                                         void *, size_t, const void *, cudnnTensorDescriptor_t, const void *,
                                         cudnnTensorDescriptor_t, const void *, cudnnActivationDescriptor_t,
                                         cudnnTensorDescriptor_t, void *);
  /// The fallback of a fused call cuDNN refuses: y = alpha * a + beta * y
  /// (a broadcast along its unit dims) and y = act(x) in place.
  cudnnStatus_t (*addTensor)(cudnnHandle_t, const void *, cudnnTensorDescriptor_t, const void *, const void *,
                             cudnnTensorDescriptor_t, void *);
  cudnnStatus_t (*activationForward)(cudnnHandle_t, cudnnActivationDescriptor_t, const void *,
                                     cudnnTensorDescriptor_t, const void *, const void *, cudnnTensorDescriptor_t,
                                     void *);
  std::string error;  ///< why cuDNN cannot be used
};

} // namespace kiln::cuda::dnn

#endif // KILN_CUDA_CUDNNAPI_H
