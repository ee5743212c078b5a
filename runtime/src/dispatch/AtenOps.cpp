// kiln runtime — the schemas of the aten ops kiln knows, in ATen's own
// spelling so the compiler and compiled code can look them up by name.
// Kernels live in kernels/<device>/<Family>.cpp.
#include "kiln/library.h"

KILN_LIBRARY(aten, m) {
  // Elementwise
  m.def("relu(Tensor self) -> Tensor");
  m.def("gelu(Tensor self, *, str approximate='none') -> Tensor");
  m.def("add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor");
  m.def("mul.Tensor(Tensor self, Tensor other) -> Tensor");
  // Linear algebra
  m.def("linear(Tensor input, Tensor weight, Tensor? bias=None) -> Tensor");
  m.def("mm(Tensor self, Tensor mat2) -> Tensor");
  m.def("addmm(Tensor self, Tensor mat1, Tensor mat2, *, Scalar beta=1, Scalar alpha=1) -> Tensor");
  // Convolution
  m.def("conv2d(Tensor input, Tensor weight, Tensor? bias=None, SymInt[2] stride=1, "
        "SymInt[2] padding=0, SymInt[2] dilation=1, SymInt groups=1) -> Tensor");
  m.def("convolution(Tensor input, Tensor weight, Tensor? bias, SymInt[] stride, "
        "SymInt[] padding, SymInt[] dilation, bool transposed, SymInt[] output_padding, "
        "SymInt groups) -> Tensor");
  // Normalization
  m.def("batch_norm(Tensor input, Tensor? weight, Tensor? bias, Tensor? running_mean, "
        "Tensor? running_var, bool training, float momentum, float eps, bool cudnn_enabled) -> Tensor");
  m.def("_native_batch_norm_legit_no_training(Tensor input, Tensor? weight, Tensor? bias, "
        "Tensor running_mean, Tensor running_var, float momentum, float eps) -> (Tensor, Tensor, Tensor)");
  m.def("native_layer_norm(Tensor input, SymInt[] normalized_shape, Tensor? weight, Tensor? bias, "
        "float eps) -> (Tensor, Tensor, Tensor)");
  m.def("_softmax(Tensor self, int dim, bool half_to_float) -> Tensor");
  m.def("_log_softmax(Tensor self, int dim, bool half_to_float) -> Tensor");
  // Pooling
  m.def("max_pool2d(Tensor self, int[2] kernel_size, int[2] stride=[], int[2] padding=0, "
        "int[2] dilation=1, bool ceil_mode=False) -> Tensor");
  m.def("max_pool2d_with_indices(Tensor self, int[2] kernel_size, int[2] stride=[], "
        "int[2] padding=0, int[2] dilation=1, bool ceil_mode=False) -> (Tensor, Tensor)");
  m.def("adaptive_avg_pool2d(Tensor self, SymInt[2] output_size) -> Tensor");
  // Reduction
  m.def("mean.dim(Tensor self, int[1]? dim, bool keepdim=False, *, ScalarType? dtype=None) -> Tensor");
  // Distances
  m.def("_cdist_forward(Tensor x1, Tensor x2, float p, int? compute_mode) -> Tensor");
  m.def("cdist(Tensor x1, Tensor x2, float p=2., int? compute_mode=None) -> Tensor");
  m.def("_pdist_forward(Tensor self, float p=2.) -> Tensor");
  m.def("pdist(Tensor self, float p=2.) -> Tensor");
  // Indexing
  m.def("masked_scatter(Tensor self, Tensor mask, Tensor source) -> Tensor");
  m.def("_embedding_bag(Tensor weight, Tensor indices, Tensor offsets, bool scale_grad_by_freq=False, "
        "int mode=0, bool sparse=False, Tensor? per_sample_weights=None, "
        "bool include_last_offset=False, int padding_idx=-1) -> (Tensor, Tensor, Tensor, Tensor)");
  m.def("_embedding_bag_forward_only(Tensor weight, Tensor indices, Tensor offsets, "
        "bool scale_grad_by_freq=False, int mode=0, bool sparse=False, "
        "Tensor? per_sample_weights=None, bool include_last_offset=False, int padding_idx=-1) -> "
        "(Tensor, Tensor, Tensor, Tensor)");
  m.def("embedding_bag.padding_idx(Tensor weight, Tensor indices, Tensor offsets, "
        "bool scale_grad_by_freq, int mode, bool sparse, Tensor? per_sample_weights, "
        "bool include_last_offset, int? padding_idx) -> (Tensor, Tensor, Tensor, Tensor)");
  // Sorting
  m.def("sort(Tensor self, int dim=-1, bool descending=False) -> (Tensor values, Tensor indices)");
  m.def("sort.stable(Tensor self, *, bool? stable, int dim=-1, bool descending=False) -> "
        "(Tensor values, Tensor indices)");
  m.def("topk(Tensor self, SymInt k, int dim=-1, bool largest=True, bool sorted=True) -> "
        "(Tensor values, Tensor indices)");
  m.def("argsort(Tensor self, int dim=-1, bool descending=False) -> Tensor");
  m.def("argsort.stable(Tensor self, *, bool stable, int dim=-1, bool descending=False) -> Tensor");
  m.def("msort(Tensor self) -> Tensor");
  m.def("searchsorted.Tensor(Tensor sorted_sequence, Tensor self, *, bool out_int32=False, "
        "bool right=False, str? side=None, Tensor? sorter=None) -> Tensor");
  // Data movement (views)
  m.def("flatten.using_ints(Tensor(a) self, int start_dim=0, int end_dim=-1) -> Tensor(a)");
  m.def("permute(Tensor(a) self, int[] dims) -> Tensor(a)");
  m.def("view(Tensor(a) self, SymInt[] size) -> Tensor(a)");
  m.def("reshape(Tensor(a) self, SymInt[] shape) -> Tensor(a)");
  m.def("t(Tensor(a) self) -> Tensor(a)");
  m.def("transpose.int(Tensor(a) self, int dim0, int dim1) -> Tensor(a)");
  m.def("sum.dim_IntList(Tensor self, int[1]? dim, bool keepdim=False, *, ScalarType? dtype=None) -> Tensor");
  // Special functions (kernels/cpu/Special.cpp)
  m.def("lgamma(Tensor self) -> Tensor");
  m.def("special_gammaln(Tensor self) -> Tensor");
  m.def("digamma(Tensor self) -> Tensor");
  m.def("special_digamma(Tensor self) -> Tensor");
  m.def("special_psi(Tensor self) -> Tensor");
  m.def("i0(Tensor self) -> Tensor");
  m.def("special_i0(Tensor self) -> Tensor");
  m.def("special_i0e(Tensor self) -> Tensor");
  m.def("special_i1(Tensor self) -> Tensor");
  m.def("special_i1e(Tensor self) -> Tensor");
  m.def("special_modified_bessel_i0(Tensor self) -> Tensor");
  m.def("special_modified_bessel_i1(Tensor self) -> Tensor");
  m.def("special_modified_bessel_k0(Tensor self) -> Tensor");
  m.def("special_modified_bessel_k1(Tensor self) -> Tensor");
  m.def("special_bessel_j0(Tensor self) -> Tensor");
  m.def("special_bessel_j1(Tensor self) -> Tensor");
  m.def("special_bessel_y0(Tensor self) -> Tensor");
  m.def("special_bessel_y1(Tensor self) -> Tensor");
  m.def("special_erfcx(Tensor self) -> Tensor");
  m.def("special_log_ndtr(Tensor self) -> Tensor");
  m.def("special_ndtri(Tensor self) -> Tensor");
  m.def("special_scaled_modified_bessel_k0(Tensor x) -> Tensor");
  m.def("special_scaled_modified_bessel_k1(Tensor x) -> Tensor");
  m.def("special_spherical_bessel_j0(Tensor x) -> Tensor");
  m.def("special_airy_ai(Tensor x) -> Tensor");
  m.def("polygamma(int n, Tensor self) -> Tensor");
  m.def("special_polygamma(int n, Tensor self) -> Tensor");
  m.def("mvlgamma(Tensor self, int p) -> Tensor");
  m.def("special_multigammaln(Tensor self, int p) -> Tensor");
  m.def("special_zeta(Tensor self, Tensor other) -> Tensor");
  m.def("special_zeta.self_scalar(Scalar self, Tensor other) -> Tensor");
  m.def("special_zeta.other_scalar(Tensor self, Scalar other) -> Tensor");
  m.def("igamma(Tensor self, Tensor other) -> Tensor");
  m.def("igammac(Tensor self, Tensor other) -> Tensor");
  m.def("special_gammainc(Tensor self, Tensor other) -> Tensor");
  m.def("special_gammaincc(Tensor self, Tensor other) -> Tensor");
  m.def("nextafter(Tensor self, Tensor other) -> Tensor");
  m.def("frexp.Tensor(Tensor self) -> (Tensor mantissa, Tensor exponent)");
  // The orthogonal polynomials, each with its Scalar overloads.
  for (const char *p : {"chebyshev_polynomial_t",
                        "chebyshev_polynomial_u",
                        "chebyshev_polynomial_v",
                        "chebyshev_polynomial_w",
                        "hermite_polynomial_h",
                        "hermite_polynomial_he",
                        "laguerre_polynomial_l",
                        "legendre_polynomial_p",
                        "shifted_chebyshev_polynomial_t",
                        "shifted_chebyshev_polynomial_u",
                        "shifted_chebyshev_polynomial_v",
                        "shifted_chebyshev_polynomial_w"}) {
    std::string n = std::string("special_") + p;
    m.def(n + "(Tensor x, Tensor n) -> Tensor");
    m.def(n + ".x_scalar(Scalar x, Tensor n) -> Tensor");
    m.def(n + ".n_scalar(Tensor x, Scalar n) -> Tensor");
  }
  // Backward ops: what the autograd formulas (kernels/autograd) are written in.
  m.def("threshold_backward(Tensor grad_output, Tensor self, Scalar threshold) -> Tensor");
  m.def("gelu_backward(Tensor grad_output, Tensor self, *, str approximate='none') -> Tensor");
  m.def("convolution_backward(Tensor grad_output, Tensor input, Tensor weight, SymInt[]? bias_sizes, "
        "SymInt[] stride, SymInt[] padding, SymInt[] dilation, bool transposed, "
        "SymInt[] output_padding, SymInt groups, bool[3] output_mask) -> (Tensor, Tensor, Tensor)");
  m.def("max_pool2d_with_indices_backward(Tensor grad_output, Tensor self, int[2] kernel_size, "
        "int[2] stride, int[2] padding, int[2] dilation, bool ceil_mode, Tensor indices) -> Tensor");
  m.def("_adaptive_avg_pool2d_backward(Tensor grad_output, Tensor self) -> Tensor");
}
