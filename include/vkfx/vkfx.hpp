// vkfx: Vulkan compute building blocks. Include this header for everything, or one operation's
// header alone (vkfx/downsample.hpp).
#pragma once

#include <vkfx/blur.hpp>
#include <vkfx/core.hpp>
#include <vkfx/downsample.hpp>
#include <vkfx/sort.hpp>
#include <vkfx/version.hpp>
