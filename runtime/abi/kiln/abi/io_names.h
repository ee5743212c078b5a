/* kiln ABI — the names of the inputs and outputs that derivative programs add.
 *
 * Plain C. kiln-compile names the extra inputs and outputs of a --grad,
 * --jvp, --jacobian, --hessian, --hvp or --train-step program with these
 * (manifest `arg input <name>` and `out <name>` lines, kiln/abi/model_format.h);
 * kiln-run and the Python package find them by the same names
 * (docs/autograd.md).
 */
#ifndef KILN_ABI_IO_NAMES_H
#define KILN_ABI_IO_NAMES_H

/* An output with no name of its own: "output<i>". */
#define KILN_OUTPUT_PREFIX "output"

/* --grad and --train-step: one cotangent input per output, "cotangent<i>". */
#define KILN_COTANGENT_PREFIX "cotangent"
/* Gradients: "grads/input<i>" for user input i, "grads/<param name>" for a
 * parameter, "grads/arg<i>" for any other argument. */
#define KILN_GRADS_PREFIX "grads/"
#define KILN_GRADS_INPUT_PREFIX "grads/input"
#define KILN_GRADS_ARG_PREFIX "grads/arg"

/* --grad --split=forward|backward: the values the backward reads across the
 * cut. A result of the forward "residuals/<i>"; in the backward, that
 * argument, or "residuals/input<k>" for the forward's user input k (passed
 * as it is) or "residuals/output<k>" for its output k. */
#define KILN_RESIDUALS_PREFIX "residuals/"
#define KILN_RESIDUALS_INPUT_PREFIX "residuals/input"
#define KILN_RESIDUALS_OUTPUT_PREFIX "residuals/output"

/* --jvp and --hvp: one tangent (vector) input per floating-point user input,
 * "tangent<i>"; --jvp's tangent outputs are "tangents/output<i>". */
#define KILN_TANGENT_PREFIX "tangent"
#define KILN_TANGENTS_OUTPUT_PREFIX "tangents/output"

/* --jacobian: "jacobian/input<i>"; --hessian: "hessian/input<i>_input<j>";
 * --hvp: "hvp/input<i>". */
#define KILN_JACOBIAN_INPUT_PREFIX "jacobian/input"
#define KILN_HESSIAN_INPUT_PREFIX "hessian/input"
#define KILN_HVP_INPUT_PREFIX "hvp/input"

/* The folders of derivative outputs, as kiln-run writes them. */
#define KILN_TANGENTS_PREFIX "tangents/"
#define KILN_JACOBIAN_PREFIX "jacobian/"
#define KILN_HESSIAN_PREFIX "hessian/"
#define KILN_HVP_PREFIX "hvp/"

#endif /* KILN_ABI_IO_NAMES_H */
