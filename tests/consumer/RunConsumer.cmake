# RunConsumer.cmake - ctest driver for vkfx's packaging tests (run with `cmake -P`).
#
#   -DMODE=install       install the vkfx build tree VKFX_BUILD_DIR into a fresh PREFIX
#   -DMODE=installed     configure, build and run tests/consumer/installed against PREFIX
#   -DMODE=subdirectory  configure, build and run tests/consumer/subdirectory on VKFX_SOURCE_DIR
#   -DMODE=pkgconfig     compile and run tests/consumer/app.cpp with `pkg-config vkfx` from PREFIX
#
# Other variables: CONSUMER_DIR (tests/consumer), WORK_DIR (scratch build dir), GENERATOR,
# MAKE_PROGRAM, CXX_COMPILER, CONFIG, MULTI_CONFIG, EXPECTED_VERSION, PKG_CONFIG.

cmake_minimum_required(VERSION 3.25)

function(run)
    execute_process(COMMAND ${ARGV} RESULT_VARIABLE rc)
    if(NOT rc EQUAL 0)
        string(REPLACE ";" " " cmd "${ARGV}")
        message(FATAL_ERROR "Command failed (${rc}): ${cmd}")
    endif()
endfunction()

function(check_app_output exe)
    execute_process(COMMAND "${exe}" RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
    message(STATUS "${exe}: ${out}")
    if(NOT rc EQUAL 0)
        message(FATAL_ERROR "${exe} exited with ${rc}")
    endif()
    if(NOT out MATCHES "vkfx ${EXPECTED_VERSION}\n")
        message(FATAL_ERROR "${exe} did not print 'vkfx ${EXPECTED_VERSION}'")
    endif()
endfunction()

function(configure_build_run project_dir)
    file(REMOVE_RECURSE "${WORK_DIR}")
    set(args -S "${project_dir}" -B "${WORK_DIR}" -G "${GENERATOR}"
             "-DCMAKE_CXX_COMPILER=${CXX_COMPILER}"
             -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF
             -DCMAKE_FIND_USE_SYSTEM_PACKAGE_REGISTRY=OFF
             ${ARGN})
    if(MAKE_PROGRAM)
        list(APPEND args "-DCMAKE_MAKE_PROGRAM=${MAKE_PROGRAM}")
    endif()
    if(CONFIG AND NOT MULTI_CONFIG)
        list(APPEND args "-DCMAKE_BUILD_TYPE=${CONFIG}")
    endif()
    run("${CMAKE_COMMAND}" ${args})
    set(build_args --build "${WORK_DIR}")
    if(CONFIG)
        list(APPEND build_args --config "${CONFIG}")
    endif()
    run("${CMAKE_COMMAND}" ${build_args})
    # Single-config generators put app directly into WORK_DIR, multi-config ones below CONFIG.
    set(exe "${WORK_DIR}/app${CMAKE_EXECUTABLE_SUFFIX}")
    if(NOT EXISTS "${exe}")
        set(exe "${WORK_DIR}/${CONFIG}/app${CMAKE_EXECUTABLE_SUFFIX}")
    endif()
    check_app_output("${exe}")
endfunction()

if(MODE STREQUAL "install")
    file(REMOVE_RECURSE "${PREFIX}")
    set(args --install "${VKFX_BUILD_DIR}" --prefix "${PREFIX}")
    if(CONFIG)
        list(APPEND args --config "${CONFIG}")
    endif()
    run("${CMAKE_COMMAND}" ${args})
    foreach(f IN ITEMS include/vkfx/version.hpp include/vkfx/spirv/downsample.hpp include/vkfx/spirv/blur.hpp
                       share/cmake/vkfx/vkfxConfig.cmake share/cmake/vkfx/vkfxConfigVersion.cmake
                       share/cmake/vkfx/vkfxTargets.cmake share/pkgconfig/vkfx.pc)
        if(NOT EXISTS "${PREFIX}/${f}")
            message(FATAL_ERROR "Not installed: ${PREFIX}/${f}")
        endif()
    endforeach()

elseif(MODE STREQUAL "installed")
    configure_build_run("${CONSUMER_DIR}/installed" "-DCMAKE_PREFIX_PATH=${PREFIX}")

elseif(MODE STREQUAL "subdirectory")
    configure_build_run("${CONSUMER_DIR}/subdirectory" "-DVKFX_SOURCE_DIR=${VKFX_SOURCE_DIR}")

elseif(MODE STREQUAL "pkgconfig")
    set(ENV{PKG_CONFIG_PATH} "${PREFIX}/share/pkgconfig")
    execute_process(COMMAND "${PKG_CONFIG}" --print-errors --variable=includedir vkfx
                    RESULT_VARIABLE rc OUTPUT_VARIABLE includedir OUTPUT_STRIP_TRAILING_WHITESPACE)
    if(NOT rc EQUAL 0)
        message(FATAL_ERROR "pkg-config cannot find vkfx in ${PREFIX}/share/pkgconfig")
    endif()
    cmake_path(NORMAL_PATH includedir)
    cmake_path(SET expected NORMALIZE "${PREFIX}/include")
    if(NOT includedir STREQUAL expected)
        message(FATAL_ERROR "vkfx.pc: includedir is ${includedir}, expected ${expected}")
    endif()
    execute_process(COMMAND "${PKG_CONFIG}" --print-errors --cflags --libs vkfx
                    RESULT_VARIABLE rc OUTPUT_VARIABLE flags OUTPUT_STRIP_TRAILING_WHITESPACE)
    if(NOT rc EQUAL 0)
        message(FATAL_ERROR "pkg-config --cflags --libs vkfx failed")
    endif()
    message(STATUS "pkg-config --cflags --libs vkfx: ${flags}")
    separate_arguments(flags UNIX_COMMAND "${flags}")
    file(REMOVE_RECURSE "${WORK_DIR}")
    file(MAKE_DIRECTORY "${WORK_DIR}")
    set(exe "${WORK_DIR}/app${CMAKE_EXECUTABLE_SUFFIX}")
    run("${CXX_COMPILER}" -std=c++20 "${CONSUMER_DIR}/app.cpp" -o "${exe}" ${flags})
    check_app_output("${exe}")

else()
    message(FATAL_ERROR "RunConsumer.cmake: unknown MODE '${MODE}'")
endif()
