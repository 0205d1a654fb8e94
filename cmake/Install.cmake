# The installed package: public headers, shared libraries and a CMake
# package, relocatable (everything relative to the prefix).
#
#   cmake --install build --prefix P
#   find_package(tgc CONFIG REQUIRED)        # with CMAKE_PREFIX_PATH=P
#   target_link_libraries(app PRIVATE tgc::tgc)       # trace, compile, run
#   target_link_libraries(app PRIVATE tgc::runtime)   # tensors, .npy files
#                                                     # and tgc::Artifact
#
# tgc::tgc is libtgc.so: the whole public API. It holds the runtime and what
# of the API needs no compiler (tgc::Model's cached plans among it), and a
# stub for each function of the compiler's public libraries (frontend/,
# tracing/, frontend/onnx/). The compiler itself, with LLVM, MLIR and ONNX
# behind it, is libtgc_compiler.so beside it, which libtgc loads on the
# first call of a stub (frontend/CompilerLoader.cpp): a process that only
# runs cached plans never maps it. Programs do not link libtgc_compiler.
# tgc::runtime (libtgc_runtime.so) holds runtime/, the CPU kernels (oneDNN)
# and the CUDA runtime (which dlopens the driver, cuBLASLt and cuDNN only
# when a CUDA plan runs) and links no LLVM, MLIR or ONNX library: it runs
# ahead-of-time artifacts (tgc/Artifact.h). A program links one of the two.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

enable_language(ASM)

# libtgc's own code (no LLVM, MLIR or ONNX) and the compiler's public
# libraries, whose functions libtgc stubs.
set(TGC_RUNTIME_LIBRARIES TgcRuntime TgcRuntimeCpu TgcRuntimeCuda)
set(TGC_LIBTGC_LIBRARIES ${TGC_RUNTIME_LIBRARIES} TgcModel TgcModelCache TgcCalibration)
set(TGC_COMPILER_LIBRARIES TgcFrontend TgcTracing TgcOnnx)
set(TGC_COMPILER_FILE
  libtgc_compiler.so.${PROJECT_VERSION_MAJOR}.${PROJECT_VERSION_MINOR})

# Every object of the libraries behind the public API goes in (the static
# libraries follow for their own dependencies, which the linker pulls as
# needed).
function(tgc_whole_archive target)
  set(archives)
  foreach(lib ${ARGN})
    list(APPEND archives $<TARGET_FILE:${lib}>)
  endforeach()
  target_link_libraries(${target} PRIVATE
    -Wl,--whole-archive ${archives} -Wl,--no-whole-archive ${ARGN})
  add_dependencies(${target} ${ARGN})
endfunction()

set(TGC_STUBS ${PROJECT_BINARY_DIR}/CompilerStubs.S)
set(TGC_COMPILER_ARCHIVES)
foreach(lib ${TGC_COMPILER_LIBRARIES})
  list(APPEND TGC_COMPILER_ARCHIVES $<TARGET_FILE:${lib}>)
endforeach()
add_custom_command(OUTPUT ${TGC_STUBS}
  COMMAND ${Python3_EXECUTABLE} ${PROJECT_SOURCE_DIR}/cmake/CompilerStubs.py
          --nm ${CMAKE_NM} --output ${TGC_STUBS} ${TGC_COMPILER_ARCHIVES}
  DEPENDS ${TGC_COMPILER_LIBRARIES} ${PROJECT_SOURCE_DIR}/cmake/CompilerStubs.py
  COMMENT "Writing libtgc's stubs for libtgc_compiler's functions")

add_library(tgc SHARED ${PROJECT_SOURCE_DIR}/runtime/Version.cpp
  ${PROJECT_SOURCE_DIR}/frontend/CompilerLoader.cpp ${TGC_STUBS})
tgc_whole_archive(tgc ${TGC_LIBTGC_LIBRARIES})
target_compile_definitions(tgc PRIVATE
  TGC_COMPILER_LIBRARY="${TGC_COMPILER_FILE}")
target_link_libraries(tgc PUBLIC absl::status absl::statusor PRIVATE dl)
add_library(tgc_runtime SHARED ${PROJECT_SOURCE_DIR}/runtime/Version.cpp)
tgc_whole_archive(tgc_runtime ${TGC_RUNTIME_LIBRARIES})
target_link_libraries(tgc_runtime PUBLIC absl::status absl::statusor)
# Version.cpp is runtime code: compiled without LLVM's and MLIR's include
# directories, like the rest of runtime/ (test/package/runtime-layering.py).
foreach(lib tgc tgc_runtime)
  tgc_without_compiler_includes(${lib})
endforeach()
foreach(lib tgc tgc_runtime)
  target_include_directories(${lib} INTERFACE
    $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}/include>
    $<BUILD_INTERFACE:${PROJECT_BINARY_DIR}/include>
    $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)
  set_target_properties(${lib} PROPERTIES
    VERSION ${PROJECT_VERSION}
    SOVERSION ${PROJECT_VERSION_MAJOR}.${PROJECT_VERSION_MINOR}
    # Unresolved symbols are link errors here, not in the user's program.
    LINK_OPTIONS "-Wl,--no-undefined")
endforeach()

# libtgc_compiler: the compiler's libraries and what they pull in, over
# libtgc's runtime (no runtime object is linked twice:
# test/package/lazy-compiler.py checks). Its calls to its own
# functions bind inside it, not to libtgc's stubs.
add_library(tgc_compiler SHARED ${PROJECT_SOURCE_DIR}/frontend/CompilerLibrary.cpp)
tgc_whole_archive(tgc_compiler ${TGC_COMPILER_LIBRARIES})
# After the archives' objects, not before: the linker drops a shared
# library that no object before it references, and then links the
# runtime's archives instead.
target_link_libraries(tgc_compiler PRIVATE tgc)
set_target_properties(tgc_compiler PROPERTIES
  VERSION ${PROJECT_VERSION}
  SOVERSION ${PROJECT_VERSION_MAJOR}.${PROJECT_VERSION_MINOR}
  # Installed: libtgc beside it, LLVM/MLIR where Debian keeps them (not on
  # the default search path), and nothing of the build tree.
  INSTALL_RPATH "$ORIGIN;${LLVM_LIBRARY_DIR}"
  LINK_OPTIONS "-Wl,--no-undefined;-Wl,-Bsymbolic-functions")
# LLVM and MLIR inside it (cmake/StaticLLVM.cmake; after LINK_OPTIONS, which
# this appends to): a program that loads it maps no libLLVM.so /
# libMLIR.so (~80 MiB of resident pages at load).
tgc_static_llvm(tgc_compiler)
# libtgc loads it at run time: a program linking tgc::tgc in this tree
# depends on it too (tgc_link_library).
function(tgc_link_library target)
  target_link_libraries(${target} PRIVATE tgc::tgc)
  add_dependencies(${target} tgc_compiler)
endfunction()
add_library(tgc::tgc ALIAS tgc)
add_library(tgc::runtime ALIAS tgc_runtime)
set_target_properties(tgc_runtime PROPERTIES EXPORT_NAME runtime)

install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/tgc
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR} FILES_MATCHING PATTERN "*.h")
install(FILES ${PROJECT_BINARY_DIR}/include/tgc/Version.h
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/tgc)
install(TARGETS tgc tgc_runtime EXPORT tgcTargets
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(TARGETS tgc_compiler LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(EXPORT tgcTargets NAMESPACE tgc::
  DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/tgc)
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/tgcConfig.cmake.in
  ${PROJECT_BINARY_DIR}/tgcConfig.cmake
  INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/tgc)
write_basic_package_version_file(${PROJECT_BINARY_DIR}/tgcConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/tgcConfig.cmake
  ${PROJECT_BINARY_DIR}/tgcConfigVersion.cmake
  DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/tgc)
