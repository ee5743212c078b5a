/* kiln ABI — element types: their codes (kiln_dtype_t) and manifest tokens.
 *
 * Plain C. The compiler writes the tokens into a model's manifest
 * (kiln/abi/model_format.h) and the codes into the records of runtime calls
 * (kiln/abi/rt_call.h); the runtime reads both, and its C API (kiln/kiln.h)
 * takes and returns the codes.
 */
#ifndef KILN_ABI_DTYPES_H
#define KILN_ABI_DTYPES_H

/* Element types, in the same order as the runtime's kiln::DType. */
typedef enum kiln_dtype_t {
  KILN_DTYPE_F32 = 0,
  KILN_DTYPE_F64 = 1,
  KILN_DTYPE_F16 = 2,
  KILN_DTYPE_BF16 = 3,
  KILN_DTYPE_I64 = 4,
  KILN_DTYPE_I32 = 5,
  KILN_DTYPE_I16 = 6,
  KILN_DTYPE_I8 = 7,
  KILN_DTYPE_U8 = 8,
  KILN_DTYPE_BOOL = 9,
  KILN_DTYPE_FORCE_32BIT = 0x7fffffff /* not a dtype: keeps any int value well-defined */
} kiln_dtype_t;

/* How each dtype is spelled in a manifest (and by kiln_dtype_name). */
#define KILN_DTYPE_TOKEN_F32 "f32"
#define KILN_DTYPE_TOKEN_F64 "f64"
#define KILN_DTYPE_TOKEN_F16 "f16"
#define KILN_DTYPE_TOKEN_BF16 "bf16"
#define KILN_DTYPE_TOKEN_I64 "i64"
#define KILN_DTYPE_TOKEN_I32 "i32"
#define KILN_DTYPE_TOKEN_I16 "i16"
#define KILN_DTYPE_TOKEN_I8 "i8"
#define KILN_DTYPE_TOKEN_U8 "u8"
#define KILN_DTYPE_TOKEN_BOOL "bool"

#endif /* KILN_ABI_DTYPES_H */
