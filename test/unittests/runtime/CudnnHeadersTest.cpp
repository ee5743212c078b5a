// kiln tests — the cuDNN API the runtime declares itself (runtime/src/cuda/CudnnApi.h) against cuDNN 9's headers.
//
// The runtime loads libcudnn with dlopen and so needs no cuDNN headers to
// build; this test, built where cudnn.h is installed (the CUDA toolkit's
// include directory), checks at compile time that every constant kiln uses
// has cuDNN's value, that the algorithm record has cuDNN's layout, and that
// every entry point kiln calls has cuDNN's arity, parameter sizes and return
// size.
#include <cudnn.h>

#include "CudnnApi.h"

#include "AbiShape.h"

#include <gtest/gtest.h>

#include <cstddef>
#include <tuple>

namespace {

namespace dnn = kiln::cuda::dnn;

using kiln::test::sameShape;

#define KILN_CHECK_ENTRY(field, symbol)                                                           \
  static_assert(sameShape<decltype(dnn::Cudnn::field), decltype(&::symbol)>(),                   \
                "kiln's declaration of " #symbol " differs from cuDNN's");
KILN_CHECK_ENTRY(create, cudnnCreate)
KILN_CHECK_ENTRY(setStream, cudnnSetStream)
KILN_CHECK_ENTRY(errorString, cudnnGetErrorString)
KILN_CHECK_ENTRY(version, cudnnGetVersion)
KILN_CHECK_ENTRY(createTensor, cudnnCreateTensorDescriptor)
KILN_CHECK_ENTRY(setTensorNd, cudnnSetTensorNdDescriptor)
KILN_CHECK_ENTRY(createFilter, cudnnCreateFilterDescriptor)
KILN_CHECK_ENTRY(setFilterNd, cudnnSetFilterNdDescriptor)
KILN_CHECK_ENTRY(createConv, cudnnCreateConvolutionDescriptor)
KILN_CHECK_ENTRY(setConvNd, cudnnSetConvolutionNdDescriptor)
KILN_CHECK_ENTRY(setConvGroups, cudnnSetConvolutionGroupCount)
KILN_CHECK_ENTRY(setConvMath, cudnnSetConvolutionMathType)
KILN_CHECK_ENTRY(getFwdAlgo, cudnnGetConvolutionForwardAlgorithm_v7)
KILN_CHECK_ENTRY(getFwdAlgoMax, cudnnGetConvolutionForwardAlgorithmMaxCount)
KILN_CHECK_ENTRY(getFwdWorkspace, cudnnGetConvolutionForwardWorkspaceSize)
KILN_CHECK_ENTRY(forward, cudnnConvolutionForward)
#undef KILN_CHECK_ENTRY

TEST(CudnnHeaders, ConstantsHaveCudnnsValues) {
  EXPECT_EQ(dnn::CUDNN_DATA_FLOAT, static_cast<int>(::CUDNN_DATA_FLOAT));
  EXPECT_EQ(dnn::CUDNN_DATA_HALF, static_cast<int>(::CUDNN_DATA_HALF));
  EXPECT_EQ(dnn::CUDNN_DATA_BFLOAT16, static_cast<int>(::CUDNN_DATA_BFLOAT16));
  EXPECT_EQ(dnn::CUDNN_TENSOR_NCHW, static_cast<int>(::CUDNN_TENSOR_NCHW));
  EXPECT_EQ(dnn::CUDNN_TENSOR_NHWC, static_cast<int>(::CUDNN_TENSOR_NHWC));
  EXPECT_EQ(dnn::CUDNN_CROSS_CORRELATION, static_cast<int>(::CUDNN_CROSS_CORRELATION));
  EXPECT_EQ(dnn::CUDNN_DEFAULT_MATH, static_cast<int>(::CUDNN_DEFAULT_MATH));
  EXPECT_EQ(dnn::CUDNN_TENSOR_OP_MATH, static_cast<int>(::CUDNN_TENSOR_OP_MATH));
  EXPECT_EQ(dnn::CUDNN_FMA_MATH, static_cast<int>(::CUDNN_FMA_MATH));
  EXPECT_EQ(0, static_cast<int>(::CUDNN_STATUS_SUCCESS));  // kiln tests a status against 0
}

TEST(CudnnHeaders, AlgorithmRecordHasCudnnsLayout) {
  EXPECT_EQ(sizeof(dnn::FwdAlgoPerf), sizeof(cudnnConvolutionFwdAlgoPerf_t));
  EXPECT_EQ(offsetof(dnn::FwdAlgoPerf, algo), offsetof(cudnnConvolutionFwdAlgoPerf_t, algo));
  EXPECT_EQ(offsetof(dnn::FwdAlgoPerf, status), offsetof(cudnnConvolutionFwdAlgoPerf_t, status));
  EXPECT_EQ(offsetof(dnn::FwdAlgoPerf, time), offsetof(cudnnConvolutionFwdAlgoPerf_t, time));
  EXPECT_EQ(offsetof(dnn::FwdAlgoPerf, memory), offsetof(cudnnConvolutionFwdAlgoPerf_t, memory));
  EXPECT_EQ(offsetof(dnn::FwdAlgoPerf, determinism), offsetof(cudnnConvolutionFwdAlgoPerf_t, determinism));
  EXPECT_EQ(offsetof(dnn::FwdAlgoPerf, mathType), offsetof(cudnnConvolutionFwdAlgoPerf_t, mathType));
  EXPECT_EQ(sizeof(dnn::cudnnStatus_t), sizeof(::cudnnStatus_t));
}

} // namespace
