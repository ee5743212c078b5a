/* kiln ABI — what the compiler asks the runtime's dispatcher: plugins and op schemas.
 *
 * Plain C; the runtime implements it (runtime/src/dispatch/Query.cpp) and the
 * compiler's importer calls it (lib/Import/RuntimeOps.cpp), in the same
 * process: kiln-compile --plugin loads a plugin into the dispatcher, and the
 * importer asks it about every op it has no handler for. No C++ exception
 * crosses this interface. Fields are only ever added at the end of the
 * structs, and KILN_QUERY_VERSION grows when they are.
 */
#ifndef KILN_ABI_QUERY_H
#define KILN_ABI_QUERY_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define KILN_QUERY_VERSION 3

/* The kind of a literal default from a schema. */
typedef enum kiln_query_default_kind {
  KILN_QUERY_NO_DEFAULT = 0, /* the argument has no default (or one kiln cannot pass) */
  KILN_QUERY_DEFAULT_NONE = 1,
  KILN_QUERY_DEFAULT_INT = 2,        /* i */
  KILN_QUERY_DEFAULT_FLOAT = 3,      /* f */
  KILN_QUERY_DEFAULT_BOOL = 4,       /* i (0/1) */
  KILN_QUERY_DEFAULT_INT_LIST = 5,   /* count, ints */
  KILN_QUERY_DEFAULT_FLOAT_LIST = 6, /* count, floats */
  KILN_QUERY_DEFAULT_STRING = 7      /* str */
} kiln_query_default_kind;

/* One argument of an op's schema. */
typedef struct kiln_query_arg {
  const char *name;
  const char *type; /* the schema's spelling: "Tensor", "float", "int[]", "Tensor?", ... */
  int32_t is_tensor; /* a Tensor, Tensor? or Tensor[] */
  int32_t default_kind; /* kiln_query_default_kind */
  int64_t i;
  double f;
  int64_t count;
  const int64_t *ints;
  const double *floats;
  const char *str;
} kiln_query_arg;

/* What the dispatcher knows of one op. */
typedef struct kiln_query_op {
  const char *qualified_name; /* "ns::name" or "ns::name.overload" */
  int64_t num_args;
  const kiln_query_arg *args;
  int64_t num_returns;
  int32_t all_returns_tensors;
  int32_t has_fake;     /* a fake (meta) function is registered */
  int32_t has_backward; /* an autograd formula is registered (register_autograd) */
  int64_t num_kernel_keys;
  const char *const *kernel_keys; /* keys with kernels: "CPU", "Meta", ... */
  int32_t has_vmap;     /* a batching rule is registered (register_vmap; version 3) */
} kiln_query_op;

/* KILN_QUERY_VERSION of the runtime in this process. Thread-safe. */
int32_t kiln_query_version(void);

/* Loads a plugin shared library into the dispatcher. Returns 0 on success;
 * otherwise non-zero, and *error (if error is not NULL) points to a message
 * that stays valid until the next call of this function on the thread. */
int32_t kiln_query_load_plugin(const char *path, const char **error);

/* The op "ns::name" / "ns::name.overload", if the dispatcher defines it with
 * a schema: 0 and *op set (release it with kiln_query_op_free); otherwise
 * non-zero and *op set to NULL. Thread-safe. */
int32_t kiln_query_find_op(const char *qualified_name, kiln_query_op **op);

/* Releases what kiln_query_find_op returned (NULL is ignored). */
void kiln_query_op_free(kiln_query_op *op);

/* ---- Composite ops (version 2) -------------------------------------------
 * The runtime's decomposition table (runtime/src/decomp), the one both the
 * importer and the eager interpreter expand composite ATen ops with. Nodes
 * and tensor metadata travel as JSON text in torch.export's serialized graph
 * format. */

/* Non-zero if the table has a rule for the node target
 * ("torch.ops.aten.hardswish.default"); a rule may still not apply to a given
 * node. Thread-safe. */
int32_t kiln_query_has_decomposition(const char *target);

/* The metadata of tensor value `name` as JSON text (a tensor_values entry),
 * or "" if unknown; the text must stay valid until the next call. */
typedef const char *(*kiln_query_meta_fn)(void *ctx, const char *name);

/* One node expanded: the nodes computing its outputs, the metadata of each new
 * tensor value, and the rule that applied. */
typedef struct kiln_query_expansion {
  const char *nodes;         /* a JSON array of nodes */
  const char *tensor_values; /* a JSON object: name -> metadata */
  const char *rule;          /* e.g. "aten::hardswish (elementwise)" */
} kiln_query_expansion;

/* Expands node `node_json` with the first of its target's rules that applies.
 * Returns 0 and sets *out (release it with kiln_query_expansion_free) when a
 * rule applied; 1 when none applies (*out NULL); -1 when the node does not fit
 * its rule, with *error (if not NULL) pointing to a message naming the node
 * that stays valid until the next failing query call on the thread. */
int32_t kiln_query_decompose(const char *node_json, kiln_query_meta_fn meta, void *ctx,
                             kiln_query_expansion **out, const char **error);

/* Releases what kiln_query_decompose returned (NULL is ignored). */
void kiln_query_expansion_free(kiln_query_expansion *expansion);

/* Complex tensors as real pairs: rewrites a serialized graph
 * (graph_module.graph, JSON text) so that every complex value is a real one
 * with a trailing dim of 2 and every node on complex values real ATen nodes.
 * Returns 0 and sets *out (release it with kiln_query_string_free) when the
 * graph had complex values; 1 when it had none (*out NULL); -1 when a node
 * cannot be rewritten, with *error as for kiln_query_decompose. */
int32_t kiln_query_lower_complex(const char *graph_json, char **out, const char **error);

/* Releases a string the query API returned (NULL is ignored). */
void kiln_query_string_free(char *s);

#ifdef __cplusplus
}
#endif
#endif /* KILN_ABI_QUERY_H */
