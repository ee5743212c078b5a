# Third-party libraries shared by the runtime and the compiler.

# libzip reads .pt2 archives. Debian's libzip-dev CMake package stops with a
# fatal error when the zip command-line tools (libzip-tools) are absent, so
# use it only when it can load, else define libzip::zip by hand.
if(NOT TARGET libzip::zip)
  find_program(KILN_ZIPCMP zipcmp)
  if(KILN_ZIPCMP)
    find_package(libzip REQUIRED)
  else()
    find_path(KILN_LIBZIP_INCLUDE_DIR zip.h REQUIRED)
    find_library(KILN_LIBZIP_LIBRARY NAMES zip REQUIRED)
    add_library(libzip::zip UNKNOWN IMPORTED GLOBAL)
    set_target_properties(libzip::zip PROPERTIES
      IMPORTED_LOCATION "${KILN_LIBZIP_LIBRARY}"
      INTERFACE_INCLUDE_DIRECTORIES "${KILN_LIBZIP_INCLUDE_DIR}")
  endif()
endif()
