// kiln runtime — what the loader needs from the HIP backend beyond gpu::Backend.
#ifndef KILN_HIP_HIP_H
#define KILN_HIP_HIP_H

#include <string>

namespace kiln::hip {
/// Device 0's AMDGPU architecture (gfx90a, gfx942, ...); throws
/// kiln::Error(KILN_STATUS_DEVICE_ERROR) saying why HIP cannot be used here.
std::string deviceArch();
} // namespace kiln::hip

#endif // KILN_HIP_HIP_H
