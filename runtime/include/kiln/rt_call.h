/* kiln — the runtime-call bridge, kept at its old path: it now lives in the ABI header set. */
#include "kiln/abi/rt_call.h"
