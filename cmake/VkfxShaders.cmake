# VkfxShaders.cmake - compile GLSL compute shaders to SPIR-V and embed them as C++ headers.
#
#   vkfx_add_shader_group(GROUP <name> SOURCE <file.comp>
#                         VARIANTS "<variant>:<DEF=V>,<DEF=V>" ...
#                         [INCLUDE_DIRS <dir>...])
#
# For every variant:
#   1. glslangValidator --target-env vulkan1.2 -I<dirs> --depfile <dep> -D<DEF>=<V>... -o <spv> <source>
#      (the depfile makes edits to #included files rebuild the variant, with Ninja and Makefiles)
#   2. spirv-val --target-env vulkan1.2 <spv>                  (a failing validation fails the build)
#   3. cmake -P VkfxEmbedSpirv.cmake                           (.spv -> C++ header fragment)
# The fragments of a group are combined into
#   ${VKFX_GENERATED_DIR}/include/vkfx/spirv/<group>.hpp
# declaring `inline constexpr std::uint32_t vkfx::spirv::<group>_<variant>[]`.
# Intermediate files live in ${PROJECT_BINARY_DIR}/vkfx_shaders/<group>/; nothing is written into
# the source tree. Every group is a dependency of the custom target `vkfx_shaders`.
#
# INCLUDE_DIRS defaults to ${PROJECT_SOURCE_DIR}/shaders. VKFX_GENERATED_DIR must be set.

include_guard(GLOBAL)

find_program(VKFX_GLSLANG_VALIDATOR NAMES glslangValidator
             DOC "glslangValidator (GLSL -> SPIR-V compiler) used to build vkfx's shaders")
if(NOT VKFX_GLSLANG_VALIDATOR)
    message(FATAL_ERROR
        "vkfx: glslangValidator was not found; it compiles vkfx's GLSL shaders to SPIR-V.\n"
        "On Debian/Ubuntu install the package 'glslang-tools' (or run ./scripts/setup), "
        "or point -DVKFX_GLSLANG_VALIDATOR=<path> at it.")
endif()

find_program(VKFX_SPIRV_VAL NAMES spirv-val
             DOC "spirv-val (SPIR-V validator) used to check vkfx's shaders")
if(NOT VKFX_SPIRV_VAL)
    message(FATAL_ERROR
        "vkfx: spirv-val was not found; it validates vkfx's compiled SPIR-V shaders.\n"
        "On Debian/Ubuntu install the package 'spirv-tools' (or run ./scripts/setup), "
        "or point -DVKFX_SPIRV_VAL=<path> at it.")
endif()

# The depfile option appeared in glslang 11; check once per tool path.
if(NOT VKFX_GLSLANG_VALIDATOR_CHECKED STREQUAL VKFX_GLSLANG_VALIDATOR)
    execute_process(COMMAND "${VKFX_GLSLANG_VALIDATOR}" --help
                    OUTPUT_VARIABLE _vkfx_glslang_help ERROR_VARIABLE _vkfx_glslang_help
                    RESULT_VARIABLE _vkfx_glslang_rc)
    if(NOT _vkfx_glslang_help MATCHES "--depfile")
        message(FATAL_ERROR
            "vkfx: ${VKFX_GLSLANG_VALIDATOR} does not support --depfile (glslang 11 or newer is "
            "needed; Debian 12's 'glslang-tools' package has it).")
    endif()
    set(VKFX_GLSLANG_VALIDATOR_CHECKED "${VKFX_GLSLANG_VALIDATOR}" CACHE INTERNAL "")
    unset(_vkfx_glslang_help)
    unset(_vkfx_glslang_rc)
endif()

if(NOT TARGET vkfx_shaders)
    add_custom_target(vkfx_shaders ALL)
endif()

function(vkfx_add_shader_group)
    cmake_parse_arguments(PARSE_ARGV 0 arg "" "GROUP;SOURCE" "VARIANTS;INCLUDE_DIRS")
    if(arg_UNPARSED_ARGUMENTS)
        message(FATAL_ERROR "vkfx_add_shader_group: unknown arguments: ${arg_UNPARSED_ARGUMENTS}")
    endif()
    if(NOT arg_GROUP MATCHES "^[A-Za-z_][A-Za-z0-9_]*$")
        message(FATAL_ERROR
            "vkfx_add_shader_group: GROUP '${arg_GROUP}' must be a C++ identifier")
    endif()
    if(NOT arg_SOURCE)
        message(FATAL_ERROR "vkfx_add_shader_group(GROUP ${arg_GROUP}): SOURCE is required")
    endif()
    if(NOT arg_VARIANTS)
        message(FATAL_ERROR "vkfx_add_shader_group(GROUP ${arg_GROUP}): VARIANTS is required")
    endif()
    if(NOT VKFX_GENERATED_DIR)
        message(FATAL_ERROR "vkfx_add_shader_group: VKFX_GENERATED_DIR is not set")
    endif()
    if(TARGET vkfx_shaders_${arg_GROUP})
        message(FATAL_ERROR "vkfx_add_shader_group: group '${arg_GROUP}' was already added")
    endif()

    cmake_path(ABSOLUTE_PATH arg_SOURCE BASE_DIRECTORY "${CMAKE_CURRENT_SOURCE_DIR}"
               NORMALIZE OUTPUT_VARIABLE source)
    if(NOT EXISTS "${source}")
        message(FATAL_ERROR "vkfx_add_shader_group(GROUP ${arg_GROUP}): no such file: ${source}")
    endif()
    cmake_path(IS_PREFIX PROJECT_SOURCE_DIR "${source}" NORMALIZE _in_project)
    if(_in_project)
        file(RELATIVE_PATH source_name "${PROJECT_SOURCE_DIR}" "${source}")
    else()
        set(source_name "${source}")
    endif()

    if(NOT arg_INCLUDE_DIRS)
        set(arg_INCLUDE_DIRS "${PROJECT_SOURCE_DIR}/shaders")
    endif()
    set(include_args)
    foreach(dir IN LISTS arg_INCLUDE_DIRS)
        cmake_path(ABSOLUTE_PATH dir BASE_DIRECTORY "${CMAKE_CURRENT_SOURCE_DIR}" NORMALIZE)
        list(APPEND include_args "-I${dir}")
    endforeach()

    set(embed_script "${CMAKE_CURRENT_FUNCTION_LIST_DIR}/VkfxEmbedSpirv.cmake")
    set(work_dir "${PROJECT_BINARY_DIR}/vkfx_shaders/${arg_GROUP}")
    set(header "${VKFX_GENERATED_DIR}/include/vkfx/spirv/${arg_GROUP}.hpp")
    # glslangValidator does not create the output directory.
    file(MAKE_DIRECTORY "${work_dir}" "${VKFX_GENERATED_DIR}/include/vkfx/spirv")

    # Rebuild when the tools change (only when given as paths, as find_program() gives them).
    set(glslang_dep)
    set(spirv_val_dep)
    if(IS_ABSOLUTE "${VKFX_GLSLANG_VALIDATOR}")
        set(glslang_dep "${VKFX_GLSLANG_VALIDATOR}")
    endif()
    if(IS_ABSOLUTE "${VKFX_SPIRV_VAL}")
        set(spirv_val_dep "${VKFX_SPIRV_VAL}")
    endif()

    set(fragments)
    set(seen)
    foreach(spec IN LISTS arg_VARIANTS)
        if(NOT spec MATCHES "^([^:]+)(:(.*))?$")
            message(FATAL_ERROR "vkfx_add_shader_group(GROUP ${arg_GROUP}): bad variant '${spec}'")
        endif()
        set(variant "${CMAKE_MATCH_1}")
        set(defs "${CMAKE_MATCH_3}")
        if(NOT variant MATCHES "^[A-Za-z0-9_]+$")
            message(FATAL_ERROR
                "vkfx_add_shader_group(GROUP ${arg_GROUP}): variant name '${variant}' must "
                "consist of letters, digits and underscores")
        endif()
        if(variant IN_LIST seen)
            message(FATAL_ERROR
                "vkfx_add_shader_group(GROUP ${arg_GROUP}): duplicate variant '${variant}'")
        endif()
        list(APPEND seen "${variant}")

        set(define_args)
        if(NOT defs STREQUAL "")
            string(REPLACE "," ";" defs "${defs}")
            foreach(def IN LISTS defs)
                string(STRIP "${def}" def)
                if(NOT def MATCHES "^[A-Za-z_][A-Za-z0-9_]*(=.*)?$")
                    message(FATAL_ERROR
                        "vkfx_add_shader_group(GROUP ${arg_GROUP}): bad define '${def}' in "
                        "variant '${variant}'")
                endif()
                list(APPEND define_args "-D${def}")
            endforeach()
        endif()

        set(spv "${work_dir}/${variant}.spv")
        set(dep "${work_dir}/${variant}.spv.d")
        set(fragment "${work_dir}/${variant}.inc")
        set(symbol "${arg_GROUP}_${variant}")

        add_custom_command(
            OUTPUT "${spv}"
            COMMAND "${VKFX_GLSLANG_VALIDATOR}" --quiet --target-env vulkan1.2 ${include_args}
                    --depfile "${dep}" ${define_args} -o "${spv}" "${source}"
            MAIN_DEPENDENCY "${source}"
            DEPENDS ${glslang_dep}
            DEPFILE "${dep}"
            COMMENT "Compiling SPIR-V ${arg_GROUP}/${variant}"
            VERBATIM)

        # Validation and embedding share one rule: the fragment only appears once validation
        # passed, so a failing spirv-val keeps failing on every build until it is fixed.
        add_custom_command(
            OUTPUT "${fragment}"
            COMMAND "${VKFX_SPIRV_VAL}" --target-env vulkan1.2 "${spv}"
            COMMAND "${CMAKE_COMMAND}" -DVKFX_MODE=fragment "-DVKFX_SPV=${spv}"
                    "-DVKFX_SYMBOL=${symbol}" "-DVKFX_OUTPUT=${fragment}" -P "${embed_script}"
            DEPENDS "${spv}" "${embed_script}" ${spirv_val_dep}
            COMMENT "Validating and embedding SPIR-V ${arg_GROUP}/${variant}"
            VERBATIM)
        list(APPEND fragments "${fragment}")
    endforeach()

    string(REPLACE ";" "$<SEMICOLON>" fragment_arg "${fragments}")
    add_custom_command(
        OUTPUT "${header}"
        COMMAND "${CMAKE_COMMAND}" -DVKFX_MODE=header "-DVKFX_FRAGMENTS=${fragment_arg}"
                "-DVKFX_SOURCE_NAME=${source_name}" "-DVKFX_OUTPUT=${header}"
                -P "${embed_script}"
        DEPENDS ${fragments} "${embed_script}"
        COMMENT "Generating vkfx/spirv/${arg_GROUP}.hpp"
        VERBATIM)

    add_custom_target(vkfx_shaders_${arg_GROUP} DEPENDS "${header}")
    add_dependencies(vkfx_shaders vkfx_shaders_${arg_GROUP})
endfunction()
