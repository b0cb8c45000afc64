// vkfx: Vulkan compute building blocks. Include this header for everything, or one operation's
// header alone (vkfx/downsample.hpp). It declares nothing itself: core.hpp (Device, errors),
// downsample.hpp, sort.hpp, blur.hpp, and vkfx/version.hpp, which vkfx's build generates
// (VKFX_VERSION_MAJOR, _MINOR, _PATCH, VKFX_VERSION = major * 10000 + minor * 100 + patch, and
// VKFX_VERSION_STRING).
#pragma once

#include <vkfx/blur.hpp>
#include <vkfx/core.hpp>
#include <vkfx/downsample.hpp>
#include <vkfx/sort.hpp>
#include <vkfx/version.hpp>
