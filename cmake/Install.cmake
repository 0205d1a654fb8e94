# The installed package: public headers, two shared libraries and a CMake
# package, relocatable (everything relative to the prefix).
#
#   cmake --install build --prefix P
#   find_package(tgc CONFIG REQUIRED)        # with CMAKE_PREFIX_PATH=P
#   target_link_libraries(app PRIVATE tgc::tgc)       # trace, compile, run
#   target_link_libraries(app PRIVATE tgc::runtime)   # tensors, .npy files
#                                                     # and tgc::Artifact
#
# tgc::tgc (libtgc.so) holds the whole library: the public API of frontend/,
# tracing/ and frontend/onnx/ and everything behind it (compiler, runtime).
# tgc::runtime (libtgc_runtime.so) holds runtime/, the CPU kernels (oneDNN)
# and the CUDA runtime (which dlopens the driver, cuBLASLt and cuDNN only
# when a CUDA plan runs) and links no LLVM, MLIR or ONNX library: it runs
# ahead-of-time artifacts (tgc/Artifact.h). A program links one of the two.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(TGC_PUBLIC_LIBRARIES TgcFrontend TgcTracing TgcRuntime TgcRuntimeCpu TgcRuntimeCuda TgcOnnx)

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

add_library(tgc SHARED ${PROJECT_SOURCE_DIR}/runtime/Version.cpp)
tgc_whole_archive(tgc ${TGC_PUBLIC_LIBRARIES})
target_link_libraries(tgc PUBLIC absl::status absl::statusor)
add_library(tgc_runtime SHARED ${PROJECT_SOURCE_DIR}/runtime/Version.cpp)
tgc_whole_archive(tgc_runtime TgcRuntime TgcRuntimeCpu TgcRuntimeCuda)
target_link_libraries(tgc_runtime PUBLIC absl::status absl::statusor)
# Version.cpp is runtime code: compiled without LLVM's and MLIR's include
# directories, like the rest of runtime/ (test/package/runtime-layering.py).
foreach(lib tgc tgc_runtime)
  get_target_property(TGC_LIB_INCLUDES ${lib} INCLUDE_DIRECTORIES)
  list(REMOVE_ITEM TGC_LIB_INCLUDES ${LLVM_INCLUDE_DIRS} ${MLIR_INCLUDE_DIRS})
  set_target_properties(${lib} PROPERTIES INCLUDE_DIRECTORIES "${TGC_LIB_INCLUDES}")
endforeach()
foreach(lib tgc tgc_runtime)
  target_include_directories(${lib} INTERFACE
    $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}/include>
    $<BUILD_INTERFACE:${PROJECT_BINARY_DIR}/include>
    $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)
  set_target_properties(${lib} PROPERTIES
    VERSION ${PROJECT_VERSION}
    SOVERSION ${PROJECT_VERSION_MAJOR}.${PROJECT_VERSION_MINOR}
    # Installed: find LLVM/MLIR where Debian keeps them (not on the default
    # search path), and nothing of the build tree.
    INSTALL_RPATH "${LLVM_LIBRARY_DIR}"
    # Unresolved symbols are link errors here, not in the user's program.
    LINK_OPTIONS "-Wl,--no-undefined")
endforeach()
add_library(tgc::tgc ALIAS tgc)
add_library(tgc::runtime ALIAS tgc_runtime)
set_target_properties(tgc_runtime PROPERTIES EXPORT_NAME runtime)

install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/tgc
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR} FILES_MATCHING PATTERN "*.h")
install(FILES ${PROJECT_BINARY_DIR}/include/tgc/Version.h
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/tgc)
install(TARGETS tgc tgc_runtime EXPORT tgcTargets
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
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
