# Finds LLVM/MLIR 22 and sets up TableGen and the single-libMLIR link.
find_package(MLIR REQUIRED CONFIG
  HINTS /usr/lib/llvm-22/lib/cmake/mlir)
message(STATUS "kiln: MLIR from ${MLIR_DIR}, LLVM ${LLVM_PACKAGE_VERSION}")
list(APPEND CMAKE_MODULE_PATH "${MLIR_CMAKE_DIR}" "${LLVM_CMAKE_DIR}")
set(LLVM_RUNTIME_OUTPUT_INTDIR ${CMAKE_BINARY_DIR}/bin)
set(LLVM_LIBRARY_OUTPUT_INTDIR ${CMAKE_BINARY_DIR}/lib)
set(MLIR_BINARY_DIR ${CMAKE_BINARY_DIR})
include(TableGen)
include(AddLLVM)
include(AddMLIR)
include(HandleLLVMOptions)
# Link every MLIR component through the one libMLIR.so (MLIRConfig does not export this);
# KILN_STATIC_MLIR links the static component libraries instead, for a binary
# that must run where LLVM is not installed (a fuzz target on another machine).
if(KILN_STATIC_MLIR)
  set(MLIR_LINK_MLIR_DYLIB OFF)
  set(LLVM_LINK_LLVM_DYLIB OFF)
  # LLVMSupport's static link interface names zstd's imported target, which
  # only the LLVM build that exported it defined.
  if(NOT TARGET zstd::libzstd_shared)
    find_library(KILN_ZSTD_LIBRARY NAMES zstd libzstd.so.1 REQUIRED)
    add_library(zstd::libzstd_shared SHARED IMPORTED)
    set_target_properties(zstd::libzstd_shared PROPERTIES IMPORTED_LOCATION ${KILN_ZSTD_LIBRARY})
  endif()
  # MLIR's exported static libraries link "LLVM", the shared library (libLLVM.so needs z3, ICU, ...):
  # point that name at LLVM's static component libraries instead.
  llvm_map_components_to_libnames(KILN_LLVM_STATIC_LIBS Support Demangle TargetParser BinaryFormat)
  get_target_property(KILN_LLVM_SUPPORT_A LLVMSupport IMPORTED_LOCATION_RELWITHDEBINFO)
  set_target_properties(LLVM PROPERTIES
    IMPORTED_LOCATION_RELWITHDEBINFO "${KILN_LLVM_SUPPORT_A}" IMPORTED_SONAME_RELWITHDEBINFO ""
    INTERFACE_LINK_LIBRARIES "${KILN_LLVM_STATIC_LIBS}")
else()
  set(MLIR_LINK_MLIR_DYLIB ON)
endif()
separate_arguments(KILN_LLVM_DEFS NATIVE_COMMAND "${LLVM_DEFINITIONS}")

# The compiler's layers (docs/architecture.md, "Layers"). No include directory
# is global: each kiln library names its layer with kiln_layer(), which gives
# its sources exactly the headers that layer may include.
#   kiln_mlir_headers      LLVM and MLIR, with LLVM's definitions
#   kiln_dialect_headers   + dialects/ (the aten and autograd dialects)
#   kiln_compiler_headers  + include/ (lib/'s public headers) and the
#                            compiler-runtime ABI (kiln_abi, runtime/abi)
# The runtime's own headers (runtime/include) are in none of them.
add_library(kiln_mlir_headers INTERFACE)
target_include_directories(kiln_mlir_headers SYSTEM INTERFACE ${LLVM_INCLUDE_DIRS} ${MLIR_INCLUDE_DIRS})
target_compile_definitions(kiln_mlir_headers INTERFACE ${KILN_LLVM_DEFS})
add_library(kiln_dialect_headers INTERFACE)
target_include_directories(kiln_dialect_headers INTERFACE
  ${PROJECT_SOURCE_DIR}/dialects ${PROJECT_BINARY_DIR}/dialects)
target_link_libraries(kiln_dialect_headers INTERFACE kiln_mlir_headers)
add_library(kiln_compiler_headers INTERFACE)
target_include_directories(kiln_compiler_headers INTERFACE
  ${PROJECT_SOURCE_DIR}/include ${PROJECT_BINARY_DIR}/include)
target_link_libraries(kiln_compiler_headers INTERFACE kiln_dialect_headers kiln_abi)

# The runtime library for the compiler's one use of it, the C query API of
# kiln_abi: its file on the link line and nothing else (a plain link would
# bring its usage requirements, runtime/include among them).
if(TARGET kiln_runtime)
  add_library(kiln_runtime_link_only INTERFACE)
  target_link_libraries(kiln_runtime_link_only INTERFACE $<TARGET_FILE:kiln_runtime>)
  add_dependencies(kiln_runtime_link_only kiln_runtime)
endif()

# kiln_layer(<target> dialect|compiler): the headers a kiln library's sources
# may include, on the library and on the object library MLIR builds it from.
function(kiln_layer target layer)
  if(NOT layer MATCHES "^(dialect|compiler)$")
    message(FATAL_ERROR "kiln_layer(${target} ${layer}): the layer is dialect or compiler")
  endif()
  target_link_libraries(${target} PUBLIC kiln_${layer}_headers)
  if(TARGET obj.${target})
    target_link_libraries(obj.${target} kiln_${layer}_headers)
  endif()
endfunction()

# mlir-tblgen takes its -I from the directory: the folders that run it
# (dialects/, include/kiln/) call this.
macro(kiln_tablegen_includes)
  include_directories(SYSTEM ${MLIR_INCLUDE_DIRS} ${LLVM_INCLUDE_DIRS})
endmacro()
find_program(KILN_LIT NAMES lit HINTS ${LLVM_TOOLS_BINARY_DIR} /usr/lib/llvm-22/bin REQUIRED)
find_program(KILN_CLANG NAMES clang-22 clang HINTS ${LLVM_TOOLS_BINARY_DIR} REQUIRED)
