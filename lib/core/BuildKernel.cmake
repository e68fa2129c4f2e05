# Compiles one kernel file of a library (lib/core/CakeLibrary.cmake) with the project's own compiler:
#   cmake -DCAKE=<cake> -DSOURCE=<file.cake> -DTARGET=sm_90a -DOUT=<file.cubin or file.ptx>
#         -DMANIFEST=<lib.manifest.json> -DINSTANCE=<name> -DOPTIONAL=ON|OFF -DLIBRARY=libcake_kmeans
#         -P BuildKernel.cmake
# `cake build` checks, lowers and compiles the instantiation with NVRTC (no GPU needed)
# and writes the cubin (or PTX, by OUT's extension). Its output goes to OUT.log. When it fails, a required
# file stops the build; an optional one (a kernel file still being written)
# leaves an empty cubin, and the library reports the log at run time.
get_filename_component(ext ${OUT} LAST_EXT)
set(partial ${OUT}.partial${ext})
execute_process(
  COMMAND ${CAKE} build ${SOURCE} --manifest ${MANIFEST} --instance ${INSTANCE} --target ${TARGET} --color never
          -o ${partial}
  RESULT_VARIABLE rc
  OUTPUT_VARIABLE out
  ERROR_VARIABLE out)
file(WRITE ${OUT}.log "${out}")
if(rc EQUAL 0)
  file(RENAME ${partial} ${OUT})
  return()
endif()
file(REMOVE ${partial})
if(OPTIONAL)
  message(WARNING "${LIBRARY}: ${SOURCE} did not build (the library will report it):\n${out}")
  file(WRITE ${OUT} "")
else()
  message(FATAL_ERROR "${LIBRARY}: cake build ${SOURCE} failed:\n${out}")
endif()
