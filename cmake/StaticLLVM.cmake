# TgcMLIR: how a target links MLIR and LLVM. By default Debian's shared
# libMLIR.so and libLLVM.so (fast links: the tests). A target with the
# property TGC_STATIC_LLVM (tgc_static_llvm) links their static archives
# instead, of which the linker keeps only the objects it uses
# (--gc-sections): the tools and libtgc_compiler. Loading the shared
# libraries costs every process ~80 MiB of resident pages before it does
# anything (47 MiB of libLLVM, 31 MiB of libMLIR: their static
# constructors and relocations touch pages all over 230 MB of code, and
# each fault maps its neighbours too) and ~60 ms of start-up; the static
# tgc-run-full starts with 33 MiB (docs/cpu-backend.md, "Where the memory
# goes").
option(TGC_STATIC_LLVM
  "Link the tools and libtgc_compiler with MLIR's and LLVM's static archives"
  ON)

# Links `target` with MLIR's and LLVM's static archives (when
# TGC_STATIC_LLVM is on), dropping the sections it does not use. A shared
# library (libtgc_compiler) exports none of their symbols: its copy of
# LLVM never meets another in the program that loads it.
function(tgc_static_llvm target)
  if(TGC_STATIC_LLVM)
    set_target_properties(${target} PROPERTIES TGC_STATIC_LLVM ON)
    target_link_options(${target} PRIVATE "-Wl,--gc-sections")
    get_target_property(type ${target} TYPE)
    if(type STREQUAL "SHARED_LIBRARY")
      target_link_options(${target} PRIVATE
        "-Wl,--exclude-libs,${TGC_STATIC_LLVM_ARCHIVE_NAMES}")
    endif()
  endif()
endfunction()

add_library(TgcMLIR INTERFACE)
set(_tgc_static "$<BOOL:$<TARGET_PROPERTY:TGC_STATIC_LLVM>>")
target_link_libraries(TgcMLIR INTERFACE
  "$<$<NOT:${_tgc_static}>:MLIR>" "$<$<NOT:${_tgc_static}>:LLVM>")

if(TGC_STATIC_LLVM)
  file(GLOB _tgc_mlir_archives "${LLVM_LIBRARY_DIR}/libMLIR*.a")
  # The C API, Python, language-server and TableGen libraries: nothing of
  # tgc uses them.
  list(FILTER _tgc_mlir_archives EXCLUDE REGEX
       "libMLIR(CAPI|Python|Lsp|TableGen|TblgenLib)[^/]*\\.a$")
  file(GLOB _tgc_llvm_archives "${LLVM_LIBRARY_DIR}/libLLVM*.a")
  if(NOT _tgc_mlir_archives OR NOT _tgc_llvm_archives)
    message(STATUS "TGC_STATIC_LLVM: no MLIR / LLVM static archives in "
                   "${LLVM_LIBRARY_DIR}: the tools link the shared "
                   "libLLVM.so / libMLIR.so instead")
    set(TGC_STATIC_LLVM OFF CACHE BOOL "" FORCE)
    return()
  endif()
  # One group: the archives reference each other in every direction.
  string(JOIN "," _tgc_group ${_tgc_mlir_archives} ${_tgc_llvm_archives})
  # Their names, for a shared library that must not export their symbols.
  set(_tgc_names)
  foreach(archive ${_tgc_mlir_archives} ${_tgc_llvm_archives})
    get_filename_component(name ${archive} NAME)
    list(APPEND _tgc_names ${name})
  endforeach()
  string(JOIN ":" TGC_STATIC_LLVM_ARCHIVE_NAMES ${_tgc_names})
  # What LLVM's static libraries link (llvm-config --link-static
  # --system-libs); zstd by its runtime name, which has no -dev symlink.
  find_library(TGC_ZSTD_LIBRARY NAMES zstd libzstd.so.1)
  find_library(TGC_Z3_LIBRARY NAMES z3)
  find_library(TGC_XML2_LIBRARY NAMES xml2)
  find_library(TGC_Z_LIBRARY NAMES z)
  foreach(lib TGC_ZSTD_LIBRARY TGC_XML2_LIBRARY TGC_Z_LIBRARY)
    if(NOT ${lib})
      message(STATUS "TGC_STATIC_LLVM: ${lib} not found: the tools link "
                     "the shared libLLVM.so / libMLIR.so instead")
      set(TGC_STATIC_LLVM OFF CACHE BOOL "" FORCE)
      return()
    endif()
  endforeach()
  set(_tgc_system ${TGC_Z_LIBRARY} ${TGC_ZSTD_LIBRARY} ${TGC_XML2_LIBRARY})
  if(TGC_Z3_LIBRARY)
    list(APPEND _tgc_system ${TGC_Z3_LIBRARY})
  endif()
  list(APPEND _tgc_system rt dl m pthread)
  # libstdc++ right after the group: the archives' references to the
  # standard library's instantiations (std::string::push_back) must bind
  # there, not pull an object of a static library that happens to follow
  # and define them too (libtgc_compiler would get a second copy of
  # libtgc's runtime: test/package/lazy-compiler.py).
  list(PREPEND _tgc_system stdc++)
  target_link_libraries(TgcMLIR INTERFACE
    "$<${_tgc_static}:-Wl,--start-group,${_tgc_group},--end-group>")
  foreach(lib ${_tgc_system})
    target_link_libraries(TgcMLIR INTERFACE "$<${_tgc_static}:${lib}>")
  endforeach()
endif()
