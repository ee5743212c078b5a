/* kiln — the model format, kept at its old path: it now lives in the ABI header set. */
#include "kiln/abi/model_format.h"
