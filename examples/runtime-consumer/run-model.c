/* Loads a compiled model, runs it once on inputs filled with 1 (the static
 * size of each dim, or 1 for a dynamic one) and prints each output's shape
 * and sum: the whole C ABI round trip a shipping application makes. */
#include <kiln/kiln.h>

#include <stdio.h>
#include <stdlib.h>

static int check(kiln_status_t s, const char *what) {
  if (!s) return 0;
  fprintf(stderr, "run-model: %s: %s\n", what, kiln_status_message(s));
  kiln_status_free(s);
  return 1;
}

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: run-model MODEL.so\n");
    return 2;
  }
  kiln_model_t model = NULL;
  if (check(kiln_model_load(argv[1], NULL, &model), "load")) return 1;
  size_t nin = kiln_model_num_inputs(model), nout = kiln_model_num_outputs(model);
  kiln_tensor_t *inputs = calloc(nin ? nin : 1, sizeof *inputs);
  kiln_tensor_t *outputs = calloc(nout ? nout : 1, sizeof *outputs);
  int rc = 0;
  for (size_t i = 0; i < nin && !rc; ++i) {
    kiln_value_info_t info = {sizeof info};
    if ((rc = check(kiln_model_input_info(model, i, &info), "input info"))) break;
    int64_t sizes[16];
    if (info.rank > 16 || info.dtype != KILN_DTYPE_F32) {
      fprintf(stderr, "run-model: input %zu is not a float32 tensor of rank <= 16\n", i);
      rc = 1;
      break;
    }
    size_t numel = 1;
    for (size_t d = 0; d < info.rank; ++d) numel *= (size_t)(sizes[d] = info.dims[d] < 0 ? 1 : info.dims[d]);
    if ((rc = check(kiln_tensor_create(info.dtype, info.rank, sizes, &inputs[i]), "tensor"))) break;
    float *x = kiln_tensor_data(inputs[i]);
    for (size_t k = 0; k < numel; ++k) x[k] = 1.0f;
  }
  if (!rc) rc = check(kiln_model_run(model, inputs, nin, outputs, nout), "run");
  for (size_t o = 0; o < nout && !rc; ++o) {
    size_t rank = kiln_tensor_rank(outputs[o]);
    const int64_t *sizes = kiln_tensor_sizes(outputs[o]);
    printf("output %zu: [", o);
    size_t numel = 1;
    for (size_t d = 0; d < rank; ++d) {
      printf("%s%lld", d ? ", " : "", (long long)sizes[d]);
      numel *= (size_t)sizes[d];
    }
    double sum = 0;
    if (kiln_tensor_dtype(outputs[o]) == KILN_DTYPE_F32) {
      const float *y = kiln_tensor_data(outputs[o]);
      for (size_t k = 0; k < numel; ++k) sum += y[k];
    }
    printf("] sum %.6g\n", sum);
  }
  for (size_t i = 0; i < nin; ++i) kiln_tensor_release(inputs[i]);
  for (size_t o = 0; o < nout; ++o) kiln_tensor_release(outputs[o]);
  free(inputs);
  free(outputs);
  kiln_model_free(model);
  return rc;
}
