/* kiln tests — a hand-written stand-in for a compiled model .so, following
 * kiln/model_format.h. Variants are selected with -D:
 *   (default)            y = x * w + b[:, None] + 1, x: [s0, 4], b: [s0], s0 in [1, 16],
 *                        w an embedded weight; also returns x itself (aliases an
 *                        argument) and w itself (aliases the weight blob)
 *   KILN_FAKE_EXTERNAL   external weights: y = x + l3.bias, x: [?, 10] (l3.bias from
 *                        the mlp corpus archive)
 *   KILN_FAKE_NO_ENTRY   exports no kiln_model_entry
 *   KILN_FAKE_BAD_MANIFEST  a manifest with an unknown directive
 *   KILN_FAKE_DTYPES     one rank-1 input per dtype (f32 f64 f16 bf16 i64 i32 i16 i8
 *                        u8 bool, in that order, sizes ?), each returned as a fresh copy
 * In the default variant, b[0] == -999 makes the entry "fail" (no output buffer). */
#include <stdint.h>
#include <stdlib.h>

typedef struct { float *allocated, *aligned; int64_t offset, sizes[1], strides[1]; } desc1;
typedef struct { float *allocated, *aligned; int64_t offset, sizes[2], strides[2]; } desc2;

#if defined(KILN_FAKE_DTYPES)
#include <string.h>
const char kiln_model_manifest[] =
    "kiln-manifest 1\n"
    "name fake_dtypes\n"
    "weights embedded\n"
    "arg input a_f32 f32 1 ?\n" "arg input a_f64 f64 1 ?\n" "arg input a_f16 f16 1 ?\n"
    "arg input a_bf16 bf16 1 ?\n" "arg input a_i64 i64 1 ?\n" "arg input a_i32 i32 1 ?\n"
    "arg input a_i16 i16 1 ?\n" "arg input a_i8 i8 1 ?\n" "arg input a_u8 u8 1 ?\n"
    "arg input a_bool bool 1 ?\n"
    "out y_f32 f32 1 ?\n" "out y_f64 f64 1 ?\n" "out y_f16 f16 1 ?\n" "out y_bf16 bf16 1 ?\n"
    "out y_i64 i64 1 ?\n" "out y_i32 i32 1 ?\n" "out y_i16 i16 1 ?\n" "out y_i8 i8 1 ?\n"
    "out y_u8 u8 1 ?\n" "out y_bool bool 1 ?\n"
    "end\n";

typedef struct { char *allocated, *aligned; int64_t offset, sizes[1], strides[1]; } bdesc1;

void kiln_model_entry(void **args) {
  static const size_t elem[10] = {4, 8, 2, 2, 8, 4, 2, 1, 1, 1};
  bdesc1 *out = (bdesc1 *)args[0];
  for (int k = 0; k < 10; ++k) {
    bdesc1 *in = (bdesc1 *)args[1 + k];
    int64_t n = in->sizes[0];
    char *y = (char *)malloc((size_t)(n > 0 ? n : 1) * elem[k]);
    for (int64_t i = 0; i < n; ++i)
      memcpy(y + i * elem[k], in->aligned + (in->offset + i * in->strides[0]) * elem[k], elem[k]);
    out[k].allocated = out[k].aligned = y;
    out[k].offset = 0;
    out[k].sizes[0] = n;
    out[k].strides[0] = 1;
  }
}
#elif defined(KILN_FAKE_EXTERNAL)
const char kiln_model_manifest[] =
    "kiln-manifest 1\n"
    "name fake_external\n"
    "weights external\n"
    "arg param l3.bias f32 1 10\n"
    "arg input x f32 2 ? 10\n"
    "out y f32 2 ? 10\n"
    "end\n";

void kiln_model_entry(void **args) {
  desc2 *out = (desc2 *)args[0];
  desc1 *bias = (desc1 *)args[1];
  desc2 *x = (desc2 *)args[2];
  int64_t n = x->sizes[0];
  float *y = (float *)malloc((size_t)(n * 10 > 0 ? n * 10 : 1) * sizeof(float));
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < 10; ++j)
      y[i * 10 + j] = x->aligned[x->offset + i * x->strides[0] + j * x->strides[1]] +
                      bias->aligned[bias->offset + j * bias->strides[0]];
  out->allocated = out->aligned = y;
  out->offset = 0;
  out->sizes[0] = n;
  out->sizes[1] = 10;
  out->strides[0] = 10;
  out->strides[1] = 1;
}
#else

#if defined(KILN_FAKE_BAD_MANIFEST)
const char kiln_model_manifest[] = "kiln-manifest 1\nname bad\nfrobnicate 3\nend\n";
#else
const char kiln_model_manifest[] =
    "kiln-manifest 1\n"
    "name fake\n"
    "weights embedded\n"
    "sym s0 1 16\n"
    "arg param w f32 1 4 0 16\n"
    "arg input x f32 2 s0 4\n"
    "arg input b f32 1 s0\n"
    "out y f32 2 s0 4\n"
    "out x_again f32 2 s0 4\n"
    "out w_again f32 1 4\n"
    "end\n";
#endif

_Alignas(64) const float kiln_model_weights[16] = {1.0f, 2.0f, 3.0f, 4.0f};

#if !defined(KILN_FAKE_NO_ENTRY)
void kiln_model_entry(void **args) {
  /* Result block: y (rank 2), x_again (rank 2), w_again (rank 1), back to back. */
  desc2 *y_out = (desc2 *)args[0];
  desc2 *x_out = y_out + 1;
  desc1 *w_out = (desc1 *)(x_out + 1);
  desc1 *w = (desc1 *)args[1];
  desc2 *x = (desc2 *)args[2];
  desc1 *b = (desc1 *)args[3];
  int64_t n = x->sizes[0];
  const float *xp = x->aligned + x->offset, *wp = w->aligned + w->offset, *bp = b->aligned + b->offset;
  if (bp[0] == -999.0f) {
    y_out->allocated = y_out->aligned = NULL; /* "failure" */
    y_out->sizes[0] = n;
    y_out->sizes[1] = 4;
  } else {
    float *y = (float *)aligned_alloc(64, (size_t)((n * 4 * sizeof(float) + 63) / 64 * 64));
    for (int64_t i = 0; i < n; ++i)
      for (int64_t j = 0; j < 4; ++j)
        y[i * 4 + j] = xp[i * x->strides[0] + j * x->strides[1]] * wp[j * w->strides[0]] +
                       bp[i * b->strides[0]] + 1.0f;
    y_out->allocated = y_out->aligned = y;
    y_out->offset = 0;
    y_out->sizes[0] = n;
    y_out->sizes[1] = 4;
    y_out->strides[0] = 4;
    y_out->strides[1] = 1;
  }
  *x_out = *x; /* aliases argument x: the runtime must copy */
  *w_out = *w; /* aliases the weight blob: the runtime must copy */
}
#endif
#endif
