// kiln runtime — the LAPACK routines the eager linear-algebra kernels call
// (float64, column-major, Fortran calling convention). LAPACK is loaded with
// dlopen at the first call: liblapack.so.3 (Debian's liblapack3, or any
// LP64 LAPACK such as OpenBLAS), or the library $KILN_LAPACK names.
// Private to kernels/cpu.
#ifndef KILN_KERNELS_CPU_LAPACK_H
#define KILN_KERNELS_CPU_LAPACK_H

#include <cstddef>

namespace kiln::cpu {

/// Fortran character arguments carry a hidden length after the others.
using FLen = size_t;

struct Lapack {
  void (*dgetrf)(const int *m, const int *n, double *a, const int *lda, int *ipiv, int *info);
  void (*dgetrs)(const char *trans, const int *n, const int *nrhs, const double *a, const int *lda,
                 const int *ipiv, double *b, const int *ldb, int *info, FLen);
  void (*dpotrf)(const char *uplo, const int *n, double *a, const int *lda, int *info, FLen);
  void (*dpotrs)(const char *uplo, const int *n, const int *nrhs, const double *a, const int *lda,
                 double *b, const int *ldb, int *info, FLen);
  void (*dpotri)(const char *uplo, const int *n, double *a, const int *lda, int *info, FLen);
  void (*dsytrf)(const char *uplo, const int *n, double *a, const int *lda, int *ipiv,
                 double *work, const int *lwork, int *info, FLen);
  void (*dsytrs)(const char *uplo, const int *n, const int *nrhs, const double *a, const int *lda,
                 const int *ipiv, double *b, const int *ldb, int *info, FLen);
  void (*dtrtrs)(const char *uplo, const char *trans, const char *diag, const int *n,
                 const int *nrhs, const double *a, const int *lda, double *b, const int *ldb,
                 int *info, FLen, FLen, FLen);
  void (*dgeqrf)(const int *m, const int *n, double *a, const int *lda, double *tau, double *work,
                 const int *lwork, int *info);
  void (*dorgqr)(const int *m, const int *n, const int *k, double *a, const int *lda,
                 const double *tau, double *work, const int *lwork, int *info);
  void (*dormqr)(const char *side, const char *trans, const int *m, const int *n, const int *k,
                 const double *a, const int *lda, const double *tau, double *c, const int *ldc,
                 double *work, const int *lwork, int *info, FLen, FLen);
  void (*dsyevd)(const char *jobz, const char *uplo, const int *n, double *a, const int *lda,
                 double *w, double *work, const int *lwork, int *iwork, const int *liwork,
                 int *info, FLen, FLen);
  void (*dgesdd)(const char *jobz, const int *m, const int *n, double *a, const int *lda,
                 double *s, double *u, const int *ldu, double *vt, const int *ldvt, double *work,
                 const int *lwork, int *iwork, int *info, FLen);
};

/// LAPACK, loaded on first use; throws kiln::Error naming `op` and what was
/// tried when no LAPACK library can be loaded.
const Lapack &lapack(const char *op);

} // namespace kiln::cpu

#endif // KILN_KERNELS_CPU_LAPACK_H
