# VkfxInstall.cmake - install rules and package files for the header-only vkfx::vkfx.
# Included from the top-level CMakeLists.txt when VKFX_INSTALL is ON.
#
# Layout (relative to the install prefix):
#   include/vkfx/**.hpp                       public headers (source tree)
#   include/vkfx/version.hpp                  generated
#   include/vkfx/spirv/<group>.hpp            generated (embedded SPIR-V)
#   share/cmake/vkfx/vkfx{Config,ConfigVersion,Targets}.cmake
#   share/pkgconfig/vkfx.pc
#   share/doc/vkfx/{LICENSE,README.md,CHANGELOG.md}

include(CMakePackageConfigHelpers)

set(VKFX_INSTALL_CMAKEDIR "${CMAKE_INSTALL_DATADIR}/cmake/vkfx"
    CACHE STRING "Where vkfx's CMake package files are installed (relative to the prefix)")
set(VKFX_INSTALL_PKGCONFIGDIR "${CMAKE_INSTALL_DATADIR}/pkgconfig"
    CACHE STRING "Where vkfx.pc is installed (relative to the prefix)")
mark_as_advanced(VKFX_INSTALL_CMAKEDIR VKFX_INSTALL_PKGCONFIGDIR)

install(TARGETS vkfx EXPORT vkfxTargets)

install(DIRECTORY "${PROJECT_SOURCE_DIR}/include/"
        DESTINATION "${CMAKE_INSTALL_INCLUDEDIR}"
        FILES_MATCHING PATTERN "*.hpp" PATTERN "*.h" PATTERN "*.inl")
# vkfx/version.hpp and vkfx/spirv/*.hpp
install(DIRECTORY "${VKFX_GENERATED_DIR}/include/"
        DESTINATION "${CMAKE_INSTALL_INCLUDEDIR}"
        FILES_MATCHING PATTERN "*.hpp")

install(EXPORT vkfxTargets
        NAMESPACE vkfx::
        DESTINATION "${VKFX_INSTALL_CMAKEDIR}")

configure_package_config_file(
    "${PROJECT_SOURCE_DIR}/cmake/vkfxConfig.cmake.in"
    "${PROJECT_BINARY_DIR}/vkfxConfig.cmake"
    INSTALL_DESTINATION "${VKFX_INSTALL_CMAKEDIR}")
# 0.x releases break compatibility with every minor version.
write_basic_package_version_file(
    "${PROJECT_BINARY_DIR}/vkfxConfigVersion.cmake"
    VERSION "${PROJECT_VERSION}"
    COMPATIBILITY SameMinorVersion
    ARCH_INDEPENDENT)
install(FILES "${PROJECT_BINARY_DIR}/vkfxConfig.cmake"
              "${PROJECT_BINARY_DIR}/vkfxConfigVersion.cmake"
        DESTINATION "${VKFX_INSTALL_CMAKEDIR}")

# pkg-config file, relocatable: prefix is computed from the .pc file's own location.
if(IS_ABSOLUTE "${VKFX_INSTALL_PKGCONFIGDIR}")
    message(FATAL_ERROR "VKFX_INSTALL_PKGCONFIGDIR must be relative to the install prefix")
endif()
file(RELATIVE_PATH VKFX_PC_PREFIX_FROM_PCDIR
     "/prefix/${VKFX_INSTALL_PKGCONFIGDIR}" "/prefix")
string(REGEX REPLACE "/$" "" VKFX_PC_PREFIX_FROM_PCDIR "${VKFX_PC_PREFIX_FROM_PCDIR}")
if(IS_ABSOLUTE "${CMAKE_INSTALL_INCLUDEDIR}")
    set(VKFX_PC_INCLUDEDIR "${CMAKE_INSTALL_INCLUDEDIR}")
else()
    set(VKFX_PC_INCLUDEDIR "\${prefix}/${CMAKE_INSTALL_INCLUDEDIR}")
endif()
configure_file("${PROJECT_SOURCE_DIR}/cmake/vkfx.pc.in" "${PROJECT_BINARY_DIR}/vkfx.pc" @ONLY)
install(FILES "${PROJECT_BINARY_DIR}/vkfx.pc" DESTINATION "${VKFX_INSTALL_PKGCONFIGDIR}")

# The licence, README and changelog beside the package (share/doc/vkfx).
install(FILES "${PROJECT_SOURCE_DIR}/LICENSE" "${PROJECT_SOURCE_DIR}/README.md"
              "${PROJECT_SOURCE_DIR}/CHANGELOG.md"
        DESTINATION "${CMAKE_INSTALL_DOCDIR}")
