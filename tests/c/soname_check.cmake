# SPDX-License-Identifier: MIT
# cmake -P script (ctest c_api.soname): the built libsrs_c follows docs/c-api.md's policy.
#   1. its SONAME is libsrs_c.so.MAJOR and its file libsrs_c.so.MAJOR.MINOR.PATCH, with MAJOR,
#      MINOR, PATCH the SRS_C_API_VERSION_* of include/srs/c/srs.h (read here, not from CMake);
#   2. every function a published header declares (SRS_C_API) is exported: the current header's
#      and each frozen one (tests/c/abi/srs_*.h), so no symbol of an older version disappears
#      while MAJOR stays.
# Run: cmake -DLIB=<libsrs_c file> -DHEADER=<srs.h> "-DFROZEN=<headers>" -DREADELF=<readelf> -DNM=<nm> -P soname_check.cmake
cmake_minimum_required(VERSION 3.21)
foreach(v LIB HEADER FROZEN READELF NM)
  if(NOT DEFINED ${v})
    message(FATAL_ERROR "soname_check.cmake needs -D${v}=...")
  endif()
endforeach()

foreach(part MAJOR MINOR PATCH)
  file(STRINGS "${HEADER}" line REGEX "^#define SRS_C_API_VERSION_${part} [0-9]+$")
  if(NOT line MATCHES "([0-9]+)$")
    message(FATAL_ERROR "${HEADER}: no #define SRS_C_API_VERSION_${part}")
  endif()
  set(${part} "${CMAKE_MATCH_1}")
endforeach()

get_filename_component(name "${LIB}" NAME)
if(NOT name STREQUAL "libsrs_c.so.${MAJOR}.${MINOR}.${PATCH}")
  message(FATAL_ERROR "the library file is ${name}, expected libsrs_c.so.${MAJOR}.${MINOR}.${PATCH}")
endif()
execute_process(COMMAND "${READELF}" -d "${LIB}" OUTPUT_VARIABLE dynamic RESULT_VARIABLE rc)
if(NOT rc EQUAL 0 OR NOT dynamic MATCHES "Library soname: \\[([^]]*)\\]")
  message(FATAL_ERROR "${READELF} -d ${name}: no SONAME")
endif()
set(soname "${CMAKE_MATCH_1}")
if(NOT soname STREQUAL "libsrs_c.so.${MAJOR}")
  message(FATAL_ERROR "SONAME is ${soname}, expected libsrs_c.so.${MAJOR} (C API ${MAJOR}.${MINOR}.${PATCH})")
endif()

execute_process(COMMAND "${NM}" -D --defined-only "${LIB}" OUTPUT_VARIABLE symbols RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${NM} -D ${name} failed")
endif()
set(count 0)
foreach(h IN LISTS HEADER FROZEN)
  file(READ "${h}" text)
  string(REGEX MATCHALL "SRS_C_API [^;(]*[ *](srs_[a-z0-9_]+)\\(" decls "${text}")
  if(NOT decls)
    message(FATAL_ERROR "${h}: no SRS_C_API function found")
  endif()
  foreach(d IN LISTS decls)
    string(REGEX MATCH "(srs_[a-z0-9_]+)\\($" fn "${d}")
    set(fn "${CMAKE_MATCH_1}")
    if(NOT symbols MATCHES "[ \t]T ${fn}\n")
      get_filename_component(hn "${h}" NAME)
      message(FATAL_ERROR "${name} does not export ${fn}, declared by ${hn}")
    endif()
    math(EXPR count "${count} + 1")
  endforeach()
endforeach()
message(STATUS "${name}: SONAME ${soname}; ${count} declared functions exported")
