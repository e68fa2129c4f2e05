# cake_embedded_kernels(NAME <lib> MANIFEST <kernels/<lib>/<lib>.manifest.json> OUT <var>)
#
# The kernels of a CAKE library: every instantiation of its manifest (docs/libraries.md)
# built from its source with its parameters bound by the project's own compiler
# (`cake build SOURCE --manifest M --instance NAME`, BuildKernel.cmake; NVRTC, no GPU needed),
# and the manifest itself (entries, instantiations, dispatch rules) written as C++ beside
# them (EmbedKernels.cmake) into namespace cake::<lib>, declared by lib/<lib>/Embedded.h,
# so the library's dispatcher reads the same file as `cake`. Sets <var> to the generated
# EmbeddedKernels.cpp, to be compiled into the library. An optional instantiation that
# does not build leaves its variant reporting why (NOT_AVAILABLE with the build log)
# instead of breaking the build.
set(CAKE_LIBCORE_DIR ${CMAKE_CURRENT_LIST_DIR})

function(cake_embedded_kernels)
  cmake_parse_arguments(ARG "" "NAME;MANIFEST;OUT" "" ${ARGN})
  set(lib ${ARG_NAME})
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${ARG_MANIFEST})
  file(READ ${ARG_MANIFEST} manifest)
  get_filename_component(manifest_dir ${ARG_MANIFEST} DIRECTORY)
  string(JSON n_instances LENGTH "${manifest}" instantiations)
  message(STATUS "libcake_${lib}: ${n_instances} instantiations from ${ARG_MANIFEST}")
  file(GLOB runtime_headers ${CMAKE_SOURCE_DIR}/compiler/lower/runtime/*.cuh)
  set(embed_files "")
  set(embed_depends "")
  math(EXPR last "${n_instances} - 1")
  foreach(i RANGE ${last})
    string(JSON name GET "${manifest}" instantiations ${i} name)
    string(JSON source GET "${manifest}" instantiations ${i} source)
    set(source ${manifest_dir}/${source})
    string(JSON target ERROR_VARIABLE no_target GET "${manifest}" instantiations ${i} target)
    if(no_target)
      set(target sm_90a)
    endif()
    string(JSON optional ERROR_VARIABLE no_optional GET "${manifest}" instantiations ${i} optional)
    if(no_optional OR NOT optional)
      set(optional OFF)
    else()
      set(optional ON)
    endif()
    # sm_90a and sm_100a code is arch-specific: a cubin; sm_80 code runs on later GPUs too: PTX
    if(target STREQUAL "sm_80")
      set(cubin ${CMAKE_CURRENT_BINARY_DIR}/${name}.ptx)
    else()
      set(cubin ${CMAKE_CURRENT_BINARY_DIR}/${name}.cubin)
    endif()
    add_custom_command(OUTPUT ${cubin}
      COMMAND ${CMAKE_COMMAND} -DCAKE=$<TARGET_FILE:cake> -DSOURCE=${source} -DTARGET=${target}
              -DMANIFEST=${ARG_MANIFEST} -DINSTANCE=${name} -DLIBRARY=libcake_${lib}
              -DOUT=${cubin} -DOPTIONAL=${optional} -P ${CAKE_LIBCORE_DIR}/BuildKernel.cmake
      DEPENDS cake ${source} ${ARG_MANIFEST} ${runtime_headers} ${CAKE_LIBCORE_DIR}/BuildKernel.cmake
      COMMENT "cake build ${name} (${source}) --target ${target}"
      VERBATIM)
    list(APPEND embed_files "${name}=${source}=${cubin}=${target}")
    list(APPEND embed_depends ${cubin} ${source})
  endforeach()
  string(REPLACE ";" "|" embed_arg "${embed_files}") # one argument for the script
  set(out ${CMAKE_CURRENT_BINARY_DIR}/EmbeddedKernels.cpp)
  add_custom_command(OUTPUT ${out}
    COMMAND ${CMAKE_COMMAND} -DOUT=${out} -DROOT=${CMAKE_SOURCE_DIR} -DMANIFEST=${ARG_MANIFEST}
            -DNAMESPACE=${lib} -DHEADER=lib/${lib}/Embedded.h -DFILES=${embed_arg}
            -P ${CAKE_LIBCORE_DIR}/EmbedKernels.cmake
    DEPENDS ${embed_depends} ${ARG_MANIFEST} ${CAKE_LIBCORE_DIR}/EmbedKernels.cmake
    COMMENT "Embedding the kernels of libcake_${lib}"
    VERBATIM)
  set(${ARG_OUT} ${out} PARENT_SCOPE)
endfunction()

# cake_c_library(NAME <target> CORE <static library> SOURCES <C entry points> MAP <version script>)
#
# The shared library of a CAKE library: its C entry points over its static core, exporting the C API and
# nothing else (the version script): its own symbols and those of the static libraries it contains are
# hidden; built into <build>/lib.
function(cake_c_library)
  cmake_parse_arguments(ARG "" "NAME;CORE;MAP" "SOURCES" ${ARGN})
  add_library(${ARG_NAME} SHARED ${ARG_SOURCES})
  target_link_libraries(${ARG_NAME} PRIVATE ${ARG_CORE})
  set_target_properties(${ARG_NAME} PROPERTIES
    CXX_VISIBILITY_PRESET hidden
    VISIBILITY_INLINES_HIDDEN ON
    LIBRARY_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/lib)
  target_link_options(${ARG_NAME} PRIVATE -Wl,--version-script=${ARG_MAP} -Wl,--exclude-libs,ALL -Wl,--no-undefined)
  set_property(TARGET ${ARG_NAME} APPEND PROPERTY LINK_DEPENDS ${ARG_MAP})
endfunction()
