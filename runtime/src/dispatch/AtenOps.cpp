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
  m.def("masked_select(Tensor self, Tensor mask) -> Tensor");
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
  m.def("erfinv(Tensor self) -> Tensor");
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
  // Linear algebra through LAPACK (kernels/cpu/LinearAlgebra*.cpp)
  m.def("linalg_lu_factor_ex(Tensor A, *, bool pivot=True, bool check_errors=False) -> "
        "(Tensor LU, Tensor pivots, Tensor info)");
  m.def("linalg_lu_factor(Tensor A, *, bool pivot=True) -> (Tensor LU, Tensor pivots)");
  m.def("_lu_with_info(Tensor self, bool pivot=True, bool check_errors=True) -> "
        "(Tensor LU, Tensor pivots, Tensor info)");
  m.def("lu_unpack(Tensor LU_data, Tensor LU_pivots, bool unpack_data=True, "
        "bool unpack_pivots=True) -> (Tensor P, Tensor L, Tensor U)");
  m.def("linalg_lu(Tensor A, *, bool pivot=True) -> (Tensor P, Tensor L, Tensor U)");
  m.def("linalg_lu_solve(Tensor LU, Tensor pivots, Tensor B, *, bool left=True, "
        "bool adjoint=False) -> Tensor");
  m.def("lu_solve(Tensor self, Tensor LU_data, Tensor LU_pivots) -> Tensor");
  m.def("_linalg_det(Tensor A) -> (Tensor result, Tensor LU, Tensor pivots)");
  m.def("linalg_det(Tensor A) -> Tensor");
  m.def("det(Tensor self) -> Tensor");
  m.def("_linalg_slogdet(Tensor A) -> (Tensor sign, Tensor logabsdet, Tensor LU, Tensor pivots)");
  m.def("linalg_slogdet(Tensor A) -> (Tensor sign, Tensor logabsdet)");
  m.def("slogdet(Tensor self) -> (Tensor sign, Tensor logabsdet)");
  m.def("logdet(Tensor self) -> Tensor");
  m.def("_linalg_solve_ex(Tensor A, Tensor B, *, bool left=True, bool check_errors=False) -> "
        "(Tensor result, Tensor LU, Tensor pivots, Tensor info)");
  m.def("linalg_solve_ex(Tensor A, Tensor B, *, bool left=True, bool check_errors=False) -> "
        "(Tensor result, Tensor info)");
  m.def("linalg_solve(Tensor A, Tensor B, *, bool left=True) -> Tensor");
  m.def("linalg_inv_ex(Tensor A, *, bool check_errors=False) -> (Tensor inverse, Tensor info)");
  m.def("linalg_inv(Tensor A) -> Tensor");
  m.def("inverse(Tensor self) -> Tensor");
  m.def("linalg_cholesky_ex(Tensor self, *, bool upper=False, bool check_errors=False) -> "
        "(Tensor L, Tensor info)");
  m.def("linalg_cholesky(Tensor self, *, bool upper=False) -> Tensor");
  m.def("cholesky(Tensor self, bool upper=False) -> Tensor");
  m.def("cholesky_solve(Tensor self, Tensor input2, bool upper=False) -> Tensor");
  m.def("cholesky_inverse(Tensor self, bool upper=False) -> Tensor");
  m.def("triangular_solve(Tensor self, Tensor A, bool upper=True, bool transpose=False, "
        "bool unitriangular=False) -> (Tensor solution, Tensor cloned_coefficient)");
  m.def("linalg_solve_triangular(Tensor self, Tensor B, *, bool upper, bool left=True, "
        "bool unitriangular=False) -> Tensor");
  m.def("linalg_matrix_power(Tensor self, int n) -> Tensor");
  m.def("matrix_power(Tensor self, int n) -> Tensor");
  m.def("linalg_tensorinv(Tensor self, int ind=2) -> Tensor");
  m.def("linalg_tensorsolve(Tensor self, Tensor other, int[]? dims=None) -> Tensor");
  m.def("linalg_ldl_factor_ex(Tensor self, *, bool hermitian=False, bool check_errors=False) -> "
        "(Tensor LD, Tensor pivots, Tensor info)");
  m.def("linalg_ldl_factor(Tensor self, *, bool hermitian=False) -> (Tensor LD, Tensor pivots)");
  m.def("linalg_ldl_solve(Tensor LD, Tensor pivots, Tensor B, *, bool hermitian=False) -> Tensor");
  m.def("linalg_matrix_exp(Tensor self) -> Tensor");
  m.def("matrix_exp(Tensor self) -> Tensor");
  m.def("linalg_qr(Tensor A, str mode='reduced') -> (Tensor Q, Tensor R)");
  m.def("qr(Tensor self, bool some=True) -> (Tensor Q, Tensor R)");
  m.def("geqrf(Tensor self) -> (Tensor a, Tensor tau)");
  m.def("linalg_householder_product(Tensor input, Tensor tau) -> Tensor");
  m.def("orgqr(Tensor self, Tensor input2) -> Tensor");
  m.def("ormqr(Tensor self, Tensor input2, Tensor input3, bool left=True, bool transpose=False) -> "
        "Tensor");
  m.def("_linalg_eigh(Tensor A, str UPLO='L', bool compute_v=True) -> "
        "(Tensor eigenvalues, Tensor eigenvectors)");
  m.def("linalg_eigh(Tensor self, str UPLO='L') -> (Tensor eigenvalues, Tensor eigenvectors)");
  m.def("linalg_eigvalsh(Tensor self, str UPLO='L') -> Tensor");
  m.def("_linalg_svd(Tensor A, bool full_matrices=False, bool compute_uv=True, *, "
        "str? driver=None) -> (Tensor U, Tensor S, Tensor Vh)");
  m.def("linalg_svd(Tensor A, bool full_matrices=True, *, str? driver=None) -> "
        "(Tensor U, Tensor S, Tensor Vh)");
  m.def("svd(Tensor self, bool some=True, bool compute_uv=True) -> (Tensor U, Tensor S, Tensor V)");
  m.def("linalg_svdvals(Tensor A, *, str? driver=None) -> Tensor");
  m.def("linalg_cond(Tensor self, Scalar? p=None) -> Tensor");
  m.def("linalg_matrix_norm.str_ord(Tensor self, str ord='fro', int[] dim=[-2,-1], "
        "bool keepdim=False, *, ScalarType? dtype=None) -> Tensor");
  m.def("linalg_pinv.atol_rtol_tensor(Tensor self, *, Tensor? atol=None, Tensor? rtol=None, "
        "bool hermitian=False) -> Tensor");
  m.def("linalg_pinv.atol_rtol_float(Tensor self, *, float? atol=None, float? rtol=None, "
        "bool hermitian=False) -> Tensor");
  m.def("pinverse(Tensor self, float rcond=1e-15) -> Tensor");
  m.def("linalg_matrix_rank.atol_rtol_tensor(Tensor input, *, Tensor? atol=None, "
        "Tensor? rtol=None, bool hermitian=False) -> Tensor");
  m.def("linalg_matrix_rank.atol_rtol_float(Tensor self, *, float? atol=None, float? rtol=None, "
        "bool hermitian=False) -> Tensor");
  // Selection along a dim (kernels/cpu/Selection.cpp)
  m.def("kthvalue(Tensor self, SymInt k, int dim=-1, bool keepdim=False) -> "
        "(Tensor values, Tensor indices)");
  m.def("median(Tensor self) -> Tensor");
  m.def("median.dim(Tensor self, int dim, bool keepdim=False) -> (Tensor values, Tensor indices)");
  m.def("nanmedian(Tensor self) -> Tensor");
  m.def("nanmedian.dim(Tensor self, int dim, bool keepdim=False) -> "
        "(Tensor values, Tensor indices)");
  m.def("mode(Tensor self, int dim=-1, bool keepdim=False) -> (Tensor values, Tensor indices)");
  m.def("cummax(Tensor self, int dim) -> (Tensor values, Tensor indices)");
  m.def("cummin(Tensor self, int dim) -> (Tensor values, Tensor indices)");
  // Windows, sampling and segment reductions (kernels/cpu/Resampling.cpp)
  m.def("adaptive_max_pool1d(Tensor self, int[1] output_size) -> (Tensor, Tensor)");
  m.def("adaptive_max_pool2d(Tensor self, int[2] output_size) -> (Tensor, Tensor)");
  m.def("adaptive_max_pool3d(Tensor self, int[3] output_size) -> (Tensor, Tensor)");
  for (const char *g : {"grid_sampler", "grid_sampler_2d", "grid_sampler_3d"})
    m.def(std::string(g) + "(Tensor input, Tensor grid, int interpolation_mode, int padding_mode, "
                           "bool align_corners) -> Tensor");
  m.def("index_reduce(Tensor self, int dim, Tensor index, Tensor source, str reduce, *, "
        "bool include_self=True) -> Tensor");
  m.def("segment_reduce(Tensor data, str reduce, *, Tensor? lengths=None, Tensor? indices=None, "
        "Tensor? offsets=None, int axis=0, bool unsafe=False, Scalar? initial=None) -> Tensor");
  // Composites the rule table cannot state (kernels/cpu/Structured.cpp)
  m.def("fft_fftshift(Tensor self, int[1]? dim=None) -> Tensor");
  m.def("fft_ifftshift(Tensor self, int[1]? dim=None) -> Tensor");
  m.def("diag(Tensor self, int diagonal=0) -> Tensor");
  m.def("diagflat(Tensor self, int offset=0) -> Tensor");
  m.def("diag_embed(Tensor self, int offset=0, int dim1=-2, int dim2=-1) -> Tensor");
  for (const char *t : {"trapezoid", "trapz", "cumulative_trapezoid"}) {
    m.def(std::string(t) + ".x(Tensor y, Tensor x, *, int dim=-1) -> Tensor");
    m.def(std::string(t) + ".dx(Tensor y, *, Scalar dx=1, int dim=-1) -> Tensor");
  }
  m.def("tensordot(Tensor self, Tensor other, int[] dims_self, int[] dims_other) -> Tensor");
  m.def("cross(Tensor self, Tensor other, int? dim=None) -> Tensor");
  m.def("linalg_vander(Tensor x, *, SymInt? N=None) -> Tensor");
  m.def("block_diag(Tensor[] tensors) -> Tensor");
  m.def("combinations(Tensor self, int r=2, bool with_replacement=False) -> Tensor");
  m.def("renorm(Tensor self, Scalar p, int dim, Scalar maxnorm) -> Tensor");
  m.def("_chunk_cat(Tensor[] tensors, int dim, int num_chunks) -> Tensor");
  m.def("put(Tensor self, Tensor index, Tensor source, bool accumulate=False) -> Tensor");
  m.def("as_strided_scatter(Tensor self, Tensor src, SymInt[] size, SymInt[] stride, "
        "SymInt? storage_offset=None) -> Tensor");
  m.def("histc(Tensor self, int bins=100, Scalar min=0, Scalar max=0) -> Tensor");
  m.def("im2col(Tensor self, int[2] kernel_size, int[2] dilation, int[2] padding, int[2] stride) "
        "-> Tensor");
  m.def("col2im(Tensor self, SymInt[2] output_size, int[2] kernel_size, int[2] dilation, "
        "int[2] padding, int[2] stride) -> Tensor");
  m.def("multi_margin_loss(Tensor self, Tensor target, Scalar p=1, Scalar margin=1, "
        "Tensor? weight=None, int reduction=1) -> Tensor");
  m.def("multilabel_margin_loss(Tensor self, Tensor target, int reduction=1) -> Tensor");
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
