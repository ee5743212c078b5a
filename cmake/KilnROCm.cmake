# KILN_ROCM_PATH: the root kiln-compile --target=rocm uses by default, and
# KILN_ENABLE_ROCM (on when one is found). A ROCm installation (/opt/rocm)
# is used as it is; otherwise the ROCm device libraries' bitcode folder and
# LLVM 22's ld.lld are linked into ${PROJECT_BINARY_DIR}/rocm.
set(_kiln_rocm_default "")
if(EXISTS "/opt/rocm/amdgcn/bitcode/ocml.bc" AND EXISTS "/opt/rocm/llvm/bin/ld.lld")
  set(_kiln_rocm_default "/opt/rocm")
else()
  find_path(KILN_ROCM_DEVICE_LIBS ocml.bc
    PATHS /usr/lib/x86_64-linux-gnu/amdgcn/bitcode /usr/lib/amdgcn/bitcode
          /opt/rocm/amdgcn/bitcode
    NO_DEFAULT_PATH DOC "Folder of the ROCm device libraries (ocml.bc, ockl.bc)")
  find_program(KILN_ROCM_LLD NAMES ld.lld-22 ld.lld
    PATHS /usr/lib/llvm-22/bin DOC "ld.lld that links AMDGPU code objects")
  if(KILN_ROCM_DEVICE_LIBS AND KILN_ROCM_LLD)
    set(_kiln_rocm_view "${PROJECT_BINARY_DIR}/rocm")
    file(MAKE_DIRECTORY "${_kiln_rocm_view}/amdgcn" "${_kiln_rocm_view}/llvm/bin")
    file(CREATE_LINK "${KILN_ROCM_DEVICE_LIBS}" "${_kiln_rocm_view}/amdgcn/bitcode" SYMBOLIC)
    file(CREATE_LINK "${KILN_ROCM_LLD}" "${_kiln_rocm_view}/llvm/bin/ld.lld" SYMBOLIC)
    set(_kiln_rocm_default "${_kiln_rocm_view}")
  endif()
endif()
set(KILN_ROCM_PATH "${_kiln_rocm_default}" CACHE PATH
    "ROCm root for kiln-compile --target=rocm (amdgcn/bitcode, llvm/bin/ld.lld)")
set(_kiln_rocm_on OFF)
if(KILN_ROCM_PATH AND EXISTS "${KILN_ROCM_PATH}/amdgcn/bitcode/ocml.bc")
  set(_kiln_rocm_on ON)
endif()
# Build folders configured before the backend existed cached this option as
# OFF (it did nothing then): decide it afresh once.
if(NOT DEFINED KILN_ROCM_DETECTED)
  unset(KILN_ENABLE_ROCM CACHE)
  set(KILN_ROCM_DETECTED ON CACHE INTERNAL "KILN_ENABLE_ROCM was decided by detection")
endif()
option(KILN_ENABLE_ROCM "Build the ROCm compiler backend (on when the ROCm device libraries are found)"
       ${_kiln_rocm_on})
