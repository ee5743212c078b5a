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
# Link every MLIR component through the one libMLIR.so (MLIRConfig does not export this).
set(MLIR_LINK_MLIR_DYLIB ON)
include_directories(SYSTEM ${LLVM_INCLUDE_DIRS} ${MLIR_INCLUDE_DIRS})
include_directories(${PROJECT_SOURCE_DIR}/include ${PROJECT_BINARY_DIR}/include
                    ${PROJECT_SOURCE_DIR}/dialects ${PROJECT_BINARY_DIR}/dialects
                    ${PROJECT_SOURCE_DIR}/runtime/include)
separate_arguments(KILN_LLVM_DEFS NATIVE_COMMAND "${LLVM_DEFINITIONS}")
add_definitions(${KILN_LLVM_DEFS})
find_program(KILN_LIT NAMES lit HINTS ${LLVM_TOOLS_BINARY_DIR} /usr/lib/llvm-22/bin REQUIRED)
find_program(KILN_CLANG NAMES clang-22 clang HINTS ${LLVM_TOOLS_BINARY_DIR} REQUIRED)
