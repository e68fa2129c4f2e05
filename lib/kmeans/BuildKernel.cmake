# Compiles one kernel file of libcake_kmeans with the project's own compiler:
#   cmake -DCAKE=<cake> -DSOURCE=<file.cake> -DTARGET=sm_90a -DOUT=<file.cubin>
#         -DOPTIONAL=ON|OFF -P BuildKernel.cmake
# `cake build` checks, lowers and compiles the file with NVRTC (no GPU needed)
# and writes the cubin. Its output goes to OUT.log. When it fails, a required
# file stops the build; an optional one (a kernel file still being written)
# leaves an empty cubin, and the library reports the log at run time.
execute_process(
  COMMAND ${CAKE} build ${SOURCE} --target ${TARGET} --color never -o ${OUT}.partial.cubin
  RESULT_VARIABLE rc
  OUTPUT_VARIABLE out
  ERROR_VARIABLE out)
file(WRITE ${OUT}.log "${out}")
if(rc EQUAL 0)
  file(RENAME ${OUT}.partial.cubin ${OUT})
  return()
endif()
file(REMOVE ${OUT}.partial.cubin)
if(OPTIONAL)
  message(WARNING "libcake_kmeans: ${SOURCE} did not build (the library will report it):\n${out}")
  file(WRITE ${OUT} "")
else()
  message(FATAL_ERROR "libcake_kmeans: cake build ${SOURCE} failed:\n${out}")
endif()
