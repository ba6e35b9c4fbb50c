# Checks that the build holds heapq's layers (run by ctest as `layering`): with each layer's
# include directories, its own headers compile and those of the layers above it, beside it,
# and the private ones of the layers below, are not found.
#
#   cmake -DCASES=FILE -DCXX=COMPILER -DWORK=DIR -P tests/layering.cmake
# FILE sets HEAPQ_LAYERING_CASES: "layer|header|found" or "layer|header|hidden" entries, and
# HEAPQ_INCLUDES_<layer>: the layer's include directories.
include(${CASES})
file(MAKE_DIRECTORY ${WORK})
set(failures 0)
foreach(case IN LISTS HEAPQ_LAYERING_CASES)
  string(REPLACE "|" ";" parts "${case}")
  list(GET parts 0 layer)
  list(GET parts 1 header)
  list(GET parts 2 expected)
  string(MAKE_C_IDENTIFIER "${layer}_${header}" name)
  file(WRITE ${WORK}/${name}.cc "#include \"${header}\"\n")
  set(flags)
  foreach(dir IN LISTS HEAPQ_INCLUDES_${layer})
    list(APPEND flags -I${dir})
  endforeach()
  execute_process(COMMAND ${CXX} -std=c++20 -fsyntax-only ${flags} ${WORK}/${name}.cc
                  RESULT_VARIABLE status ERROR_VARIABLE errors OUTPUT_QUIET)
  if(expected STREQUAL "found" AND NOT status EQUAL 0)
    message(SEND_ERROR "${layer} does not compile its own ${header}:\n${errors}")
    math(EXPR failures "${failures} + 1")
  elseif(expected STREQUAL "hidden" AND (status EQUAL 0 OR NOT errors MATCHES "No such file"))
    message(SEND_ERROR "${layer} reaches ${header}, which is not below it:\n${errors}")
    math(EXPR failures "${failures} + 1")
  endif()
endforeach()
list(LENGTH HEAPQ_LAYERING_CASES cases)
if(failures GREATER 0)
  message(FATAL_ERROR "layering: ${failures} of ${cases} cases failed")
endif()
message(STATUS "layering: ${cases} cases as expected")
