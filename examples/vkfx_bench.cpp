// vkfx-bench: times vkfx's kernels against what an engine would use instead, on any Vulkan device.
//
//   vkfx-bench [downsample|sort|blur] [--device NAME] [--quick] [--reps N] [--warmup N]
//              [--filter A,B,...] [--radii A,B,...] [--methods M,...] [--sizes WxH,...]
//              [--counts N,...] [--csv FILE] [--json FILE] [--no-evict] [--evict-mib N]
//              [--pipeline-stats] [--dispatches auto|one|two] [--sampler-filter]
//              [--copy-mib N] [--list] [--verbose]
//
// Blur (`vkfx-bench blur`). vkfx::Blurrer::record of a Gaussian blur (radius r = 1, 2, 4, .. 64
// taps each side on both axes, sigma = r / 3, clamp to edge, one layer) of a 3840x2160 and a
// 1920x1080 noise image, R8G8B8A8_UNORM, R16G16B16A16_SFLOAT, R32_SFLOAT (one channel: a quarter
// of the arithmetic), R32G32B32A32_SFLOAT and R8_UNORM (one channel), and B10G11R11_UFLOAT_PACK32
// (three channels; Auto at r = 1, 4, 16 and 64 only), into a second image of the format, with
// BlurMethod::Auto and the scratch scratchRequirements asks for (column "m": the method it took,
// "dir", "dec" or "2p"); rows "r18 direct", "r32 direct", "r64 direct" force the Direct method,
// "r24 decimated", "r192 decimated", "r600 decimated" the Decimated one and "r32 twopass", "r128
// twopass" the TwoPass one; against, in the same run on the
// same images, the two-pass blur engines write today: a compute pass that blurs horizontally (one
// texel per invocation, 2r + 1 texelFetch taps, 16x16 workgroups) into an intermediate image of the
// format, an image barrier, and the vertical pass into the destination (examples/bench/blur2.comp);
// and, as a reference, the same images copied source to destination through texelFetch and
// imageStore, each texel once, the instructions vkfx's kernels read and write images with
// (examples/bench/image_copy.comp). Each row gives the three medians, vkfx's minimum, its speed-up
// over the two-pass blur and its time in image copies, and vkfx's place under a roofline: the
// bandwidth time (the image read once and written once at the copy ceiling), the arithmetic time
// (2 (2r + 1) FMAs per channel per texel at the FMA rate, measured in the same run by
// examples/bench/fma.comp and printed in the header), their maximum and that over vkfx's median.
// Rows: "blur rgba8 3840x2160 r8".
// --radii 3,5,7: the Auto rows at those radii instead (and no rows that force a method);
// --methods auto,direct,decimated,twopass (with --radii): the rows of those methods at them.
// --quick: only 256x256 R8G8B8A8_UNORM at r = 1, 8, 32 (Auto) and 64 (Decimated), R32_SFLOAT and
// R8_UNORM at r = 8, R32G32B32A32_SFLOAT at r = 4 and 24 (Auto: the TwoPass method) and
// B10G11R11_UFLOAT_PACK32 at r = 4.
//
// Sort (`vkfx-bench sort`). vkfx::Sorter::record of n = 2^16 .. 2^28 uint32 and float32 keys,
// alone and with 32-bit values, on both paths (Onesweep, reduce-then-scan), plus recordIndirect
// rows (the count in a GPU buffer); the input is restored from an unsorted copy before every
// repetition, outside the timed region. Each row gives GKeys/s (median) and the fraction of the
// traffic floor of an 8-bit LSD sort (36 bytes per key, 68 with values; 64-bit keys 136 and 200)
// at the copy ceiling. --quick: 2^16 and 2^18 only. --counts 786432,1310720: rows of those counts
// instead (uint32, float32 and uint64, keys and pairs, both paths; the Sorter picks its tiles by
// the count).
//
// Downsample (the default mode). For every case (format, extent, layers, reduction) it builds
// the whole mip chain three ways, in the same run, on the same image:
//   vkfx   vkfx::Downsampler::record: every level of every layer in one dispatch (two on large
//          images: DownsampleDispatches::Auto, or --dispatches);
//   blit   a vkCmdBlitImage chain (linear filter, level k -> k+1) with one image barrier between
//          levels (TRANSFER_DST -> TRANSFER_SRC of the level just written): what most engines do;
//   chain  one compute dispatch per level (texelFetch of the 2x2 box of level k through a sampled
//          view, imageStore into level k+1 through a storage view) with a barrier between levels:
//          the straightforward compute approach (examples/bench/chain.comp);
// and, as a floor for any kernel, the bytes the chain must move (the base read once, every other
// level written once) moved by a plain buffer kernel (uint4 loads and stores,
// examples/bench/stream.comp; column "stream"): no image, no level waiting for another, the same
// eviction before each repetition.
// Rows "D32_SFLOAT WxH min" build a depth pyramid: a D32_SFLOAT depth image read into an
// R32_SFLOAT min chain whose level 0 is a copy of the depth (vkfx: depthFormat,
// DepthLevelZero::Copy; chain: one copy dispatch first; the bytes count level 0 written too).
// Level 0 holds hash noise (a constant image could be stored compressed). The layout transitions
// an engine does before and after generating the chain are outside the timed region for every
// method; the barriers between levels are inside it. R8_UNORM, R8G8_UNORM, R16_SFLOAT and
// A2B10G10R10_UNORM rows (average) come at 1920x1080 and 4096x4096 only. --sizes
// 1917x1079,4096x4096: every format's rows at those sizes instead of the table's.
//
// Timing. Each workload is recorded `warmup + reps` times into one command buffer, each repetition
// between two vkCmdWriteTimestamp(BOTTOM_OF_PIPE): the first is written once everything before it
// (the eviction pass) has completed, the second once the workload has. Times are the low
// timestampValidBits of the difference times timestampPeriod; the table gives the median and the
// minimum of the timed repetitions. Every repetition is separated from the next by a global
// barrier.
//
// L2 eviction. Before every repetition (warm-up included) a compute copy moves --evict-mib MiB
// (default 256) from one buffer into another, followed by a barrier, so the input level and the
// levels written by the last repetition are out of the L2 (50 MB on an H200) as in a real frame,
// where other work runs between the producer of an image and its mip chain. --no-evict turns it
// off (inputs may then start hot in L2).
//
// Copy ceiling. A compute copy of a --copy-mib MiB buffer (default 1024; uint4 loads and stores,
// grid-stride, examples/bench/copy.comp) into another: bytes read + bytes written over the median
// time. vkCmdCopyBuffer is not used: it is much slower than a compute copy on NVIDIA.
//
// --quick (CI, lavapipe): only 1920x1080, the 1024^2 cube and 2047^2, 3 repetitions after 1
// warm-up, a 64 MiB copy and a 16 MiB eviction copy, and no clock-raising copies before each row.
// --filter runs only the rows whose name ("R8G8B8A8_SRGB 1920x1080 avg", "R8G8B8A8_UNORM
// 1024x1024x6 avg") contains one of the comma-separated strings (any case).
//
// VKFX_BENCH_VALIDATION=1 enables the Khronos validation layer with synchronization validation;
// any message makes the exit status 1 (and the times mean nothing).
//
// Exit status: 0; 1 on a fatal error or validation messages; 2 when a workload failed (vkfx or a
// baseline returned an error: "error: ..." in its cell); 77 when VKFX_BENCH_VALIDATION=1 but the
// validation layer is not installed. Rows skipped for device limits (size, memory) and cells
// marked "n/a" (the device cannot) or "-" (the method cannot) are no failures.
#include "bench/gpu.hpp"
#include "bench/report.hpp"

#include <vkfx/spirv/bench.hpp>
#include <vkfx/spirv/bench_blur2.hpp>
#include <vkfx/spirv/bench_chain.hpp>
#include <vkfx/spirv/bench_fill.hpp>
#include <vkfx/spirv/bench_fma.hpp>
#include <vkfx/spirv/bench_image_copy.hpp>
#include <vkfx/spirv/bench_keys.hpp>
#include <vkfx/spirv/bench_stream.hpp>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <functional>
#include <initializer_list>
#include <iterator>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace {

using namespace bench;

constexpr VkDeviceSize kMiB = VkDeviceSize{1} << 20;
constexpr std::uint32_t kCopyGroupSize = 256; // local_size_x of copy.comp
constexpr std::uint32_t kCopyUnroll = 4;      // kUnroll of copy.comp
constexpr std::uint32_t kStreamUnits = 2;     // kUnits of stream.comp
constexpr std::uint32_t kTile = 8;            // local size of chain.comp and fill.comp
constexpr std::uint32_t kBlur2Tile = 16;      // local size of blur2.comp
constexpr std::uint32_t kBlur2MaxRadius = 1024; // kMaxRadius of blur2.comp
constexpr std::uint32_t kImageCopyColumns = 64;  // a workgroup's texels in image_copy.comp
constexpr std::uint32_t kImageCopyRows = 32;
// fma.comp: local_size_x, and FMAs per invocation per iteration (kUnroll * kChains * 4).
constexpr std::uint32_t kFmaGroupSize = 256;
constexpr std::uint32_t kFmaPerIteration = 8 * 4 * 4;
constexpr std::uint32_t kFmaIterations = 256;
constexpr double kFmaTargetUs = 2000; // the FMA grid grows until a repetition takes this long

// Push constants of blur2.comp and fma.comp.
struct Blur2Push {
    std::uint32_t radius;
    float weightScale; // -1 / (2 sigma^2)
    std::int32_t size[2];
};
struct FmaPush {
    std::uint32_t iterations;
    float m, c, never;
};

// The blur methods by the names --methods takes and the rows, CSV and JSON print.
constexpr vkfx::BlurMethod kBlurMethods[] = {vkfx::BlurMethod::Auto, vkfx::BlurMethod::Direct,
                                             vkfx::BlurMethod::Decimated,
                                             vkfx::BlurMethod::TwoPass};
const char *blurMethodName(vkfx::BlurMethod method) {
    switch (method) {
    case vkfx::BlurMethod::Auto:
        return "auto";
    case vkfx::BlurMethod::Direct:
        return "direct";
    case vkfx::BlurMethod::Decimated:
        return "decimated";
    case vkfx::BlurMethod::TwoPass:
        return "twopass";
    }
    return "?";
}

// --- options -------------------------------------------------------------------------------------

struct Options {
    std::string mode = "downsample"; // "downsample", "sort" or "blur"
    std::string device;
    bool quick = false;
    std::uint32_t reps = 30;
    std::uint32_t warmup = 3;
    std::vector<std::string> filters;
    std::vector<std::uint32_t> radii; // blur: --radii
    std::vector<vkfx::BlurMethod> methods{vkfx::BlurMethod::Auto}; // blur: --methods (with --radii)
    std::vector<VkExtent2D> sizes;    // downsample: --sizes
    std::vector<std::uint32_t> counts; // sort: --counts
    std::string csv, json;
    bool evict = true;
    std::uint32_t evictMiB = 256;
    std::uint32_t copyMiB = 1024;
    bool list = false;
    bool pipelineStats = false;
    bool verbose = false;
    vkfx::DownsampleDispatches dispatches = vkfx::DownsampleDispatches::Auto; // --dispatches
    bool samplerFilter = false; // --sampler-filter
};

void usage(std::FILE *out) {
    std::fprintf(
        out,
        "usage: vkfx-bench [downsample|sort|blur] [options]\n"
        "  downsample       (default) vkfx's mip chain against blit and compute chains\n"
        "  sort             vkfx's radix sort of 2^16 .. 2^28 keys\n"
        "  blur             vkfx's Gaussian blur against a two-pass compute blur, and its\n"
        "                   fraction of the roofline (copy ceiling, FMA rate)\n"
        "  --device NAME    run on the first device whose name contains NAME (any case);\n"
        "                   default: the first GPU, else lavapipe\n"
        "  --quick          small sizes only, 3 repetitions, small copy/eviction buffers, no\n"
        "                   clock-raising copies before each row (CI)\n"
        "  --reps N         timed repetitions per workload (default 30; --quick: 3)\n"
        "  --warmup N       untimed repetitions first (default 3; --quick: 1)\n"
        "  --filter A,B     only rows whose name contains A or B (any case), e.g.\n"
        "                   \"R32_SFLOAT\", \"4096x4096\", \"SRGB 1920x1080\", \" min\";\n"
        "                   sort: \"uint32 keys\", \"2^24\"; blur: \"rgba16f\", \"1920x1080 r8\"\n"
        "  --radii A,B      blur: the Auto rows (or --methods') at these radii instead of 1, 2,\n"
        "                   4 .. 64, and no other rows that force a method (not with --quick)\n"
        "  --methods M,...  blur, with --radii: rows of these methods (auto, direct, decimated,\n"
        "                   twopass; default auto) at each radius\n"
        "  --counts N,...   sort: rows of these key counts (uint32, float32, uint64; keys and "
        "pairs;\n"
        "                   both paths) instead of the table's powers of two, e.g. \"1310720\"\n"
        "  --sizes WxH,...  downsample: every format's rows at these sizes instead of the table's\n"
        "                   (no cube nor odd-size rows), e.g. \"1917x1079,2048x1\"\n"
        "  --csv FILE       also write the rows as CSV\n"
        "  --json FILE      also write the rows as JSON\n"
        "  --no-evict       do not push the input out of the L2 before each repetition\n"
        "  --evict-mib N    size of each buffer of the eviction copy (default 256; --quick: 16)\n"
        "  --copy-mib N     size of the buffer copied for the copy ceiling (default 1024;\n"
        "                   --quick: 64); capped by maxStorageBufferRange\n"
        "  --dispatches D   downsample: auto (default), one or two (DownsampleInfo::dispatches)\n"
        "  --sampler-filter downsample: vkfx with DownsamplerFlagSamplerFilter (one bilinear\n"
        "                   sample per footprint for every format; not exact)\n"
        "  --list           print the rows that would run, and exit\n"
        "  --pipeline-stats print the driver's statistics (registers, shared memory, ...) of\n"
        "                   each pipeline vkfx creates (VK_KHR_pipeline_executable_properties)\n"
        "  --verbose        print the wall time of each step to stderr\n"
        "environment: VKFX_BENCH_VALIDATION=1 enables the validation layer and\n"
        "             synchronization validation (the times then mean nothing)\n");
}

std::uint32_t parseCount(const char *flag, const char *text, std::uint32_t least, std::uint32_t most = 1000000) {
    char *end = nullptr;
    unsigned long v = std::strtoul(text, &end, 10);
    if (!*text || *end || v < least || v > most) {
        die(std::string(flag) + " wants a whole number from " + std::to_string(least) + " to " + std::to_string(most) +
            ", not '" + text + "'");
    }
    return static_cast<std::uint32_t>(v);
}

// "a,b,,c" -> {"a", "b", "", "c"}.
std::vector<std::string> splitCommas(const std::string &list) {
    std::vector<std::string> parts;
    std::size_t start = 0;
    while (start <= list.size()) {
        std::size_t comma = list.find(',', start);
        if (comma == std::string::npos)
            comma = list.size();
        parts.push_back(list.substr(start, comma - start));
        start = comma + 1;
    }
    return parts;
}

Options parseOptions(int argc, char **argv) {
    Options o;
    bool repsSet = false, warmupSet = false, evictSet = false, copySet = false, methodsSet = false;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        auto value = [&]() -> const char * {
            if (i + 1 >= argc)
                die(a + " needs a value (see --help)");
            return argv[++i];
        };
        if (a == "--help" || a == "-h") {
            usage(stdout);
            std::exit(0);
        } else if (a == "--device") {
            o.device = value();
        } else if (a == "--quick") {
            o.quick = true;
        } else if (a == "--reps") {
            o.reps = parseCount("--reps", value(), 1);
            repsSet = true;
        } else if (a == "--warmup") {
            o.warmup = parseCount("--warmup", value(), 0);
            warmupSet = true;
        } else if (a == "--filter") {
            for (const std::string &f : splitCommas(value()))
                if (!f.empty())
                    o.filters.push_back(lowerCase(f));
        } else if (a == "--radii") {
            for (const std::string &r : splitCommas(value()))
                o.radii.push_back(parseCount("--radii", r.c_str(), 1));
        } else if (a == "--methods") {
            o.methods.clear();
            methodsSet = true;
            for (const std::string &name : splitCommas(value())) {
                const std::string m = lowerCase(name);
                if (m.empty())
                    continue;
                const auto *method =
                    std::find_if(std::begin(kBlurMethods), std::end(kBlurMethods),
                                 [&](vkfx::BlurMethod b) { return m == blurMethodName(b); });
                if (method == std::end(kBlurMethods))
                    die("--methods: '" + name + "' is none of auto, direct, decimated, twopass");
                if (std::find(o.methods.begin(), o.methods.end(), *method) == o.methods.end())
                    o.methods.push_back(*method);
            }
            if (o.methods.empty())
                die("--methods needs at least one of auto, direct, decimated, twopass");
        } else if (a == "--counts") {
            for (const std::string &n : splitCommas(value()))
                o.counts.push_back(parseCount("--counts", n.c_str(), 2, vkfx::Sorter::kMaxCount));
        } else if (a == "--sizes") {
            for (const std::string &size : splitCommas(value())) {
                const std::size_t x = size.find('x');
                if (x == std::string::npos)
                    die("--sizes takes WxH, not '" + size + "'");
                o.sizes.push_back({parseCount("--sizes", size.substr(0, x).c_str(), 1),
                                   parseCount("--sizes", size.substr(x + 1).c_str(), 1)});
            }
        } else if (a == "--csv") {
            o.csv = value();
        } else if (a == "--json") {
            o.json = value();
        } else if (a == "--no-evict") {
            o.evict = false;
        } else if (a == "--evict-mib") {
            o.evictMiB = parseCount("--evict-mib", value(), 1);
            evictSet = true;
        } else if (a == "--copy-mib") {
            o.copyMiB = parseCount("--copy-mib", value(), 1);
            copySet = true;
        } else if (a == "--dispatches") {
            const std::string d = value();
            if (d == "auto")
                o.dispatches = vkfx::DownsampleDispatches::Auto;
            else if (d == "one")
                o.dispatches = vkfx::DownsampleDispatches::One;
            else if (d == "two")
                o.dispatches = vkfx::DownsampleDispatches::Two;
            else
                die("--dispatches takes auto, one or two, not '" + d + "'");
        } else if (a == "--sampler-filter") {
            o.samplerFilter = true;
        } else if (a == "--list") {
            o.list = true;
        } else if (a == "--pipeline-stats") {
            o.pipelineStats = true;
        } else if (a == "--verbose") {
            o.verbose = true;
        } else if (a == "sort" || a == "downsample" || a == "blur") {
            o.mode = a;
        } else {
            usage(stderr);
            die("unknown option '" + a + "'");
        }
    }
    if (methodsSet && (o.radii.empty() || o.quick))
        die("--methods applies to the rows of --radii (and not with --quick)");
    if (o.quick) {
        if (!repsSet)
            o.reps = 3;
        if (!warmupSet)
            o.warmup = 1;
        if (!evictSet)
            o.evictMiB = 16;
        if (!copySet)
            o.copyMiB = 64;
    }
    return o;
}

// --- cases ---------------------------------------------------------------------------------------

enum class Fill { Rgba8, Rgba16f, R32f, B10g11r11, Rgba32f, R8, Rg8, R16f, Rgb10a2 };
constexpr int kFills = 9;

struct Format {
    VkFormat format;
    const char *name;
    VkFormat storage; // format of the storage views (UNORM for sRGB)
    std::uint32_t bytesPerTexel;
    Fill fill;
};

const Format kRgba8{VK_FORMAT_R8G8B8A8_UNORM, "R8G8B8A8_UNORM", VK_FORMAT_R8G8B8A8_UNORM, 4,
                    Fill::Rgba8};
const Format kSrgba8{VK_FORMAT_R8G8B8A8_SRGB, "R8G8B8A8_SRGB", VK_FORMAT_R8G8B8A8_UNORM, 4,
                     Fill::Rgba8};
const Format kRgba16f{VK_FORMAT_R16G16B16A16_SFLOAT, "R16G16B16A16_SFLOAT",
                      VK_FORMAT_R16G16B16A16_SFLOAT, 8, Fill::Rgba16f};
const Format kR32f{VK_FORMAT_R32_SFLOAT, "R32_SFLOAT", VK_FORMAT_R32_SFLOAT, 4, Fill::R32f};
const Format kRgba32f{VK_FORMAT_R32G32B32A32_SFLOAT, "R32G32B32A32_SFLOAT",
                      VK_FORMAT_R32G32B32A32_SFLOAT, 16, Fill::Rgba32f};
const Format kR8{VK_FORMAT_R8_UNORM, "R8_UNORM", VK_FORMAT_R8_UNORM, 1, Fill::R8};
const Format kB10g11r11{VK_FORMAT_B10G11R11_UFLOAT_PACK32, "B10G11R11_UFLOAT",
                        VK_FORMAT_B10G11R11_UFLOAT_PACK32, 4, Fill::B10g11r11};
const Format kRg8{VK_FORMAT_R8G8_UNORM, "R8G8_UNORM", VK_FORMAT_R8G8_UNORM, 2, Fill::Rg8};
const Format kR16f{VK_FORMAT_R16_SFLOAT, "R16_SFLOAT", VK_FORMAT_R16_SFLOAT, 2, Fill::R16f};
const Format kRgb10a2{VK_FORMAT_A2B10G10R10_UNORM_PACK32, "A2B10G10R10_UNORM",
                      VK_FORMAT_A2B10G10R10_UNORM_PACK32, 4, Fill::Rgb10a2};
// Depth pyramids: a D32_SFLOAT depth image read into an R32_SFLOAT pyramid (`storage`) whose level
// 0 is a copy of the depth (DepthLevelZero::Copy); noise in [0, 1] as R32F fills it.
const Format kD32{VK_FORMAT_D32_SFLOAT, "D32_SFLOAT", VK_FORMAT_R32_SFLOAT, 4, Fill::R32f};
bool isDepth(const Format &f) { return f.format == VK_FORMAT_D32_SFLOAT; }

struct Case {
    Format format;
    vkfx::Reduction reduction;
    std::uint32_t width, height, layers;
    bool quick; // part of --quick
    std::string name;
};

// The table's rows, or (--sizes) every format's rows at the sizes asked for.
std::vector<Case> allCases(const std::vector<VkExtent2D> &asked) {
    struct Size {
        std::uint32_t w, h;
        bool quick;
    };
    std::vector<Size> sizes = {{1920, 1080, true},   {2560, 1440, false}, {3840, 2160, false},
                               {2048, 2048, false},  {4096, 4096, false}, {8192, 8192, false},
                               {16384, 16384, false}};
    if (!asked.empty()) {
        sizes.clear();
        for (const VkExtent2D &e : asked)
            sizes.push_back({e.width, e.height, true});
    }
    const std::pair<Format, vkfx::Reduction> groups[] = {
        {kRgba8, vkfx::Reduction::Average},    {kSrgba8, vkfx::Reduction::Average},
        {kRgba16f, vkfx::Reduction::Average},  {kR32f, vkfx::Reduction::Average},
        {kR32f, vkfx::Reduction::Min},         {kD32, vkfx::Reduction::Min},
        {kB10g11r11, vkfx::Reduction::Average}};
    std::vector<Case> cases;
    auto add = [&](const Format &f, vkfx::Reduction r, std::uint32_t w, std::uint32_t h,
                   std::uint32_t layers, bool quick) {
        std::string name = std::string(f.name) + " " + std::to_string(w) + "x" + std::to_string(h);
        if (layers > 1)
            name += "x" + std::to_string(layers);
        name += r == vkfx::Reduction::Min ? " min" : " avg";
        cases.push_back({f, r, w, h, layers, quick, name});
    };
    for (const auto &[format, reduction] : groups) {
        for (const Size &s : sizes)
            add(format, reduction, s.w, s.h, 1, s.quick);
    }
    // Formats beyond the table: at 1920x1080 and 4096^2 only, or at the sizes asked for.
    for (const Format &format : {kR8, kRg8, kR16f, kRgb10a2}) {
        for (const Size &s : sizes) {
            if (asked.empty() && !(s.w == 1920 && s.h == 1080) && !(s.w == 4096 && s.h == 4096))
                continue;
            add(format, vkfx::Reduction::Average, s.w, s.h, 1, s.quick);
        }
    }
    if (!asked.empty())
        return cases;
    add(kRgba8, vkfx::Reduction::Average, 1024, 1024, 6, true);  // a cube
    add(kRgba8, vkfx::Reduction::Average, 4096, 4096, 6, false); // a large cube (two dispatches)
    add(kRgba8, vkfx::Reduction::Average, 4095, 4095, 1, false); // odd sizes
    add(kRgba8, vkfx::Reduction::Average, 2047, 2047, 1, true);
    // The power of two below 2047^2 and 1920x1080 (the odd sizes' time per byte is compared with
    // that of the next power of two down).
    add(kRgba8, vkfx::Reduction::Average, 1024, 1024, 1, false);
    return cases;
}

using vkfx::detail::mipExtent;

// Sort: n = 2^16 .. 2^28 keys, uint32 and float32, keys alone and with 32-bit values, both
// paths; and GPU-side counts (recordIndirect).
struct SortCase {
    std::string name;
    vkfx::SortKey key;
    bool pairs;
    vkfx::SortPath path;
    bool indirect;
    std::uint32_t count;
    bool quick;
    bool low24 = false; // uint32 keys below 2^24: the top digit's pass moves nothing
};

// The key column of a sort row: "uint32", "float32", "uint64" or "uint24" (uint32 keys below 2^24).
const char *sortKeyLabel(vkfx::SortKey key, bool low24) {
    return key == vkfx::SortKey::Float32  ? "float32"
           : key == vkfx::SortKey::Uint64 ? "uint64"
           : low24                        ? "uint24"
                                          : "uint32";
}

// The table's rows, or with --counts those counts' (uint32, float32 and uint64, keys and pairs,
// both paths).
std::vector<SortCase> allSortCases(const std::vector<std::uint32_t> &counts) {
    std::vector<SortCase> cases;
    auto addCount = [&](vkfx::SortKey key, bool pairs, vkfx::SortPath path, bool indirect, std::uint32_t count,
                        bool low24 = false) {
        const std::string name = std::string(sortKeyLabel(key, low24)) + (pairs ? " pairs " : " keys ") +
                                 sortCountLabel(count) +
                                 (path == vkfx::SortPath::Onesweep ? " onesweep" : " reduce-then-scan") +
                                 (indirect ? " indirect" : "");
        cases.push_back({name, key, pairs, path, indirect, count, count <= (1u << 18), low24});
    };
    auto add = [&](vkfx::SortKey key, bool pairs, vkfx::SortPath path, bool indirect, std::uint32_t log2,
                   bool low24 = false) { addCount(key, pairs, path, indirect, 1u << log2, low24); };
    if (!counts.empty()) {
        for (std::uint32_t n : counts) {
            for (vkfx::SortKey key : {vkfx::SortKey::Uint32, vkfx::SortKey::Float32, vkfx::SortKey::Uint64}) {
                for (bool pairs : {false, true}) {
                    for (vkfx::SortPath path : {vkfx::SortPath::Onesweep, vkfx::SortPath::ReduceThenScan})
                        addCount(key, pairs, path, false, n);
                }
            }
        }
        return cases;
    }
    // Largest first: the long rows bring the GPU to its working clocks before the short ones.
    for (std::uint32_t log2 = 28; log2 >= 16; log2 -= 2) {
        for (vkfx::SortKey key : {vkfx::SortKey::Uint32, vkfx::SortKey::Float32}) {
            for (bool pairs : {false, true}) {
                for (vkfx::SortPath path : {vkfx::SortPath::Onesweep, vkfx::SortPath::ReduceThenScan})
                    add(key, pairs, path, false, log2);
            }
        }
    }
    for (std::uint32_t log2 : {24u, 16u}) {
        for (bool pairs : {false, true})
            add(vkfx::SortKey::Uint32, pairs, vkfx::SortPath::Onesweep, true, log2);
    }
    for (std::uint32_t log2 : {26u, 24u, 16u}) {
        for (bool pairs : {false, true}) {
            for (vkfx::SortPath path : {vkfx::SortPath::Onesweep, vkfx::SortPath::ReduceThenScan})
                add(vkfx::SortKey::Uint32, pairs, path, false, log2, true);
        }
    }
    return cases;
}

// Blur: a Gaussian of radius r (both axes, sigma = r / 3, clamp to edge) of one layer.
struct BlurCase {
    std::string name; // "blur rgba8 3840x2160 r8"
    Format format;
    std::uint32_t channels; // filtered channels: the arithmetic time's count
    std::uint32_t width, height;
    std::uint32_t radius;
    bool quick;
    vkfx::BlurMethod method = vkfx::BlurMethod::Auto;
    std::uint32_t layers = 1;
    float sigma() const { return static_cast<float>(radius) / 3.0f; }
};

// The full run's rows, or --quick's (256x256 RGBA8 at r = 1, 8, 32 and 64, R32F and R8 at r = 8,
// RGBA32F at r = 4 and 24, B10G11R11 at r = 4: seconds on lavapipe).
std::vector<BlurCase> allBlurCases(bool quick, const std::vector<std::uint32_t> &radii,
                                   const std::vector<vkfx::BlurMethod> &methods) {
    std::vector<BlurCase> cases;
    using M = vkfx::BlurMethod;
    auto add = [&](const Format &f, const char *label, std::uint32_t w, std::uint32_t h,
                   std::uint32_t r, M method = M::Auto) {
        // The channels a blur must filter (B10G11R11: three, though vkfx carries four).
        const std::uint32_t channels = f.fill == Fill::R32f || f.fill == Fill::R8 ? 1
                                       : f.fill == Fill::B10g11r11                ? 3
                                                                                  : 4;
        const std::string suffix =
            method == M::Auto ? "" : std::string(" ") + blurMethodName(method);
        const std::string name = std::string("blur ") + label + " " + std::to_string(w) + "x" +
                                 std::to_string(h) + " r" + std::to_string(r) + suffix;
        cases.push_back({name, f, channels, w, h, r, quick, method});
    };
    if (quick) {
        for (std::uint32_t r : {1u, 8u, 32u})
            add(kRgba8, "rgba8", 256, 256, r);
        add(kRgba8, "rgba8", 256, 256, 64, M::Decimated);
        add(kR32f, "r32f", 256, 256, 8);
        add(kR8, "r8", 256, 256, 8);
        add(kRgba32f, "rgba32f", 256, 256, 4);
        add(kRgba32f, "rgba32f", 256, 256, 24);
        add(kB10g11r11, "b10g11r11", 256, 256, 4);
        return cases;
    }
    const std::pair<Format, const char *> formats[] = {{kRgba8, "rgba8"},
                                                       {kRgba16f, "rgba16f"},
                                                       {kR32f, "r32f"},
                                                       {kRgba32f, "rgba32f"},
                                                       {kR8, "r8"}};
    const VkExtent2D sizes[] = {{3840, 2160}, {1920, 1080}};
    for (const auto &[format, label] : formats) {
        for (const VkExtent2D &size : sizes) {
            if (!radii.empty()) {
                for (std::uint32_t r : radii)
                    for (vkfx::BlurMethod m : methods)
                        add(format, label, size.width, size.height, r, m);
                continue;
            }
            for (std::uint32_t r = 1; r <= 64; r *= 2)
                add(format, label, size.width, size.height, r);
            for (std::uint32_t r : {18u, 32u, 64u})
                add(format, label, size.width, size.height, r, M::Direct);
            for (std::uint32_t r : {24u, 192u, 600u})
                add(format, label, size.width, size.height, r, M::Decimated);
            for (std::uint32_t r : {32u, 128u})
                add(format, label, size.width, size.height, r, M::TwoPass);
        }
    }
    // B10G11R11 (beyond the table): Auto at radii 1, 4, 16 and 64, or as the others with
    // --radii.
    for (const VkExtent2D &size : sizes) {
        for (std::uint32_t r : radii.empty() ? std::vector<std::uint32_t>{1u, 4u, 16u, 64u} : radii)
            for (vkfx::BlurMethod m : radii.empty() ? std::vector<M>{M::Auto} : methods)
                add(kB10g11r11, "b10g11r11", size.width, size.height, r, m);
    }
    return cases;
}

std::string utcNow() {
    std::time_t now = std::time(nullptr);
    char buf[32] = "unknown";
    if (const std::tm *t = std::gmtime(&now))
        std::strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%SZ", t);
    return buf;
}

std::string mib(VkDeviceSize bytes) { return std::to_string((bytes + kMiB - 1) / kMiB) + " MiB"; }

// --- the benchmark -------------------------------------------------------------------------------

// What one workload records. Only `work` is timed.
struct Method {
    std::function<void(VkCommandBuffer)> prologue;  // once, before the first repetition
    std::function<bool(VkCommandBuffer)> work;      // false: recording failed (vkfx::lastError())
    std::function<void(VkCommandBuffer)> afterEach; // after each repetition's closing barrier
    std::function<void(VkCommandBuffer)> epilogue;  // once, after the last repetition
    bool evict = true;
};

// A benchmark image: every level, its memory, and per level a sampled view (the image's format:
// sRGB decodes) and a storage view (UNORM for sRGB), both 2D_ARRAY over all layers.
struct TestImage {
    VkImage image = VK_NULL_HANDLE;
    VkDeviceMemory memory = VK_NULL_HANDLE;
    VkImageCreateInfo info{};
    std::vector<VkImageView> sampled, storage;
};

// An embedded SPIR-V module: its words and their size in bytes.
struct SpirvCode {
    const std::uint32_t *words;
    std::size_t bytes;
};
template <std::size_t N> SpirvCode spirvCode(const std::uint32_t (&words)[N]) {
    return {words, sizeof(words)};
}

class Runner {
  public:
    Runner(Gpu &gpu, const Options &options);
    ~Runner();
    Runner(const Runner &) = delete;
    Runner &operator=(const Runner &) = delete;

    // Measures the copy ceiling; fills `info` (ceiling, copy size).
    void measureCeiling(RunInfo *info);
    std::string evictionText() const;
    Row run(const Case &c);
    SortRow runSort(const SortCase &c);
    // Measures the fp32 FMA rate (examples/bench/fma.comp); fills `info` (fmaGPerS, fmaBestGPerS).
    void measureFmaRate(RunInfo *info);
    BlurRow runBlur(const BlurCase &c);

  private:
    // About 100-200 ms of copies (the eviction buffers), so that the GPU has left its idle clocks
    // when the first repetition starts; the CPU work between rows (buffers, pipelines) lets it
    // fall back to them. (H200: with 20 ms, the first rows of a run on an idle GPU, and the first
    // rows after a new format's pipelines were made, ran 2-5x slower.) None with --quick, whose
    // times are not figures (on lavapipe these copies took most of a --quick run).
    void heat(VkCommandBuffer cmd) const;
    Timing measure(const Method &m);
    void recordCopy(VkCommandBuffer cmd, const Buffer &src, const Buffer &dst,
                    VkDeviceSize bytes) const;
    VkDeviceSize storageBufferCap(VkDeviceSize wanted) const;
    // A 2D image of `levels` levels and `layers` layers (STORAGE, SAMPLED, TRANSFER_SRC and _DST;
    // a depth format: SAMPLED and TRANSFER_DST, sampled views of the depth aspect only), its memory
    // and its views; "" or why it cannot be created (device limits, memory).
    std::string createImage(const Format &format, std::uint32_t width, std::uint32_t height,
                            std::uint32_t layers, std::uint32_t levels, TestImage *out);
    void destroyImage(TestImage &image);
    void fillImage(const TestImage &image, Fill fill);
    // Depth rows: level 0 of `pyramid` (after fillImage) copied into `depth`; "" or why not.
    std::string fillDepth(const TestImage &pyramid, const TestImage &depth);
    // Whether compute shaders can texelFetch `f` through a sampled view and imageStore it
    // through a storage view (the compute baselines).
    bool computeReadWrite(const Format &f) const;
    // createKernel's kernel, kept in m_kernels for ~Runner to destroy.
    Kernel kernel(SpirvCode code, std::initializer_list<VkDescriptorType> bindings,
                  std::uint32_t pushBytes, const char *name);
    const Kernel &fillKernel(Fill f) const;
    const Kernel &chainKernel(const Case &c) const;
    // The Downsampler for (format, reduction) with at least `scratch` bytes of scratch.
    VkResult downsampler(const Case &c, VkDeviceSize scratch, const vkfx::Downsampler **out);

    // `depth`: the depth image of a depth row (`image` is then its pyramid), else null.
    Timing measureVkfx(const Case &c, const TestImage &image, const TestImage *depth,
                       std::uint32_t levels);
    Timing measureChain(const Case &c, const TestImage &image, const TestImage *depth,
                        std::uint32_t levels);
    Timing measureBlit(const Case &c, const TestImage &image, std::uint32_t levels);
    // The chain's bytes (`readBytes` of the base, `writeBytes` of the other levels) moved by
    // examples/bench/stream.comp between two buffers.
    Timing measureStream(double readBytes, double writeBytes);

    // The Blurrer for `format` (created on first use).
    VkResult blurrer(VkFormat format, const vkfx::Blurrer **out);
    Timing measureBlurVkfx(const BlurCase &c, const TestImage &src, const TestImage &dst,
                           std::string *method);
    Timing measureTwoPass(const BlurCase &c, const TestImage &src, const TestImage &mid,
                          const TestImage &dst);
    Timing measureImageCopy(const BlurCase &c, const TestImage &src, const TestImage &dst);
    // Binds `k` reading `from` (its sampled view, in `layout`) and writing `to` (its storage view),
    // with the push constants: blur2.comp's passes and image_copy.comp.
    void bindImageToImage(VkCommandBuffer cmd, const Kernel &k, const TestImage &from, VkImageLayout layout,
                          const TestImage &to, const void *push, std::uint32_t pushBytes) const;

    Gpu &m_gpu;
    Options m_options;
    Kernel m_copy;
    Kernel m_stream;
    Kernel m_fill[kFills]; // indexed by Fill
    Kernel m_keys;
    // chain.comp: the mean by Fill (none for RGBA32F, which has no downsample rows), sRGB's, R32F's
    // minimum, and a depth image's level 0 copied into an R32F pyramid's (before the minimum).
    Kernel m_chainAvg[kFills];
    Kernel m_chainSrgb8, m_chainR32fMin, m_chainDepthCopy;
    // blur2.comp by Fill, [horizontal, vertical], and image_copy.comp by Fill (none for RG8, R16F
    // and A2B10G10R10, which have no blur rows).
    Kernel m_blur2[kFills][2];
    Kernel m_imageCopy[kFills];
    Kernel m_fma;
    std::vector<Kernel> m_kernels; // every kernel above (Runner::kernel), destroyed by ~Runner
    Buffer m_evictSrc, m_evictDst;
    VkQueryPool m_queries = VK_NULL_HANDLE;
    struct CachedDownsampler {
        vkfx::Downsampler downsampler;
        VkDeviceSize scratch = 0;
    };
    std::map<std::pair<VkFormat, vkfx::Reduction>, CachedDownsampler> m_downsamplers;
    std::map<VkFormat, vkfx::Blurrer> m_blurrers;
    std::uint32_t m_seed = 1;
};

Kernel Runner::kernel(SpirvCode code, std::initializer_list<VkDescriptorType> bindings,
                      std::uint32_t pushBytes, const char *name) {
    m_kernels.push_back(createKernel(m_gpu, code.words, code.bytes, bindings, pushBytes, name));
    return m_kernels.back();
}

Runner::Runner(Gpu &gpu, const Options &options) : m_gpu(gpu), m_options(options) {
    using namespace vkfx::spirv;
    const VkDescriptorType kBuf = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
    const VkDescriptorType kSampled = VK_DESCRIPTOR_TYPE_SAMPLED_IMAGE;
    const VkDescriptorType kStorage = VK_DESCRIPTOR_TYPE_STORAGE_IMAGE;
    m_copy = kernel(spirvCode(bench_copy), {kBuf, kBuf}, 4, "copy");
    m_stream = kernel(spirvCode(bench_stream_chain_bytes), {kBuf, kBuf}, 8, "stream");
    // fill.comp and chain.comp's mean, by Fill.
    const SpirvCode fills[kFills] = {spirvCode(bench_fill_rgba8),   spirvCode(bench_fill_rgba16f),
                                     spirvCode(bench_fill_r32f),    spirvCode(bench_fill_b10g11r11),
                                     spirvCode(bench_fill_rgba32f), spirvCode(bench_fill_r8),
                                     spirvCode(bench_fill_rg8),     spirvCode(bench_fill_r16f),
                                     spirvCode(bench_fill_rgb10a2)};
    const SpirvCode chains[kFills] = {spirvCode(bench_chain_rgba8_avg),
                                      spirvCode(bench_chain_rgba16f_avg),
                                      spirvCode(bench_chain_r32f_avg),
                                      spirvCode(bench_chain_b10g11r11_avg),
                                      SpirvCode{},
                                      spirvCode(bench_chain_r8_avg),
                                      spirvCode(bench_chain_rg8_avg),
                                      spirvCode(bench_chain_r16f_avg),
                                      spirvCode(bench_chain_rgb10a2_avg)};
    for (std::size_t f = 0; f < kFills; ++f) {
        m_fill[f] = kernel(fills[f], {kStorage}, 12, "fill");
        if (chains[f].words)
            m_chainAvg[f] = kernel(chains[f], {kSampled, kStorage}, 16, "chain");
    }
    m_keys = kernel(spirvCode(bench_keys_fill), {kBuf}, 12, "keys");
    m_chainSrgb8 = kernel(spirvCode(bench_chain_srgb8_avg), {kSampled, kStorage}, 16, "chain");
    m_chainR32fMin = kernel(spirvCode(bench_chain_r32f_min), {kSampled, kStorage}, 16, "chain");
    m_chainDepthCopy = kernel(spirvCode(bench_chain_r32f_copy), {kSampled, kStorage}, 16, "chain");
    // blur2.comp's two passes and image_copy.comp, by Fill.
    const SpirvCode blur2[kFills][2] = {
        {spirvCode(bench_blur2_rgba8_x), spirvCode(bench_blur2_rgba8_y)},
        {spirvCode(bench_blur2_rgba16f_x), spirvCode(bench_blur2_rgba16f_y)},
        {spirvCode(bench_blur2_r32f_x), spirvCode(bench_blur2_r32f_y)},
        {spirvCode(bench_blur2_b10g11r11_x), spirvCode(bench_blur2_b10g11r11_y)},
        {spirvCode(bench_blur2_rgba32f_x), spirvCode(bench_blur2_rgba32f_y)},
        {spirvCode(bench_blur2_r8_x), spirvCode(bench_blur2_r8_y)},
        {},
        {},
        {}};
    const SpirvCode imageCopy[kFills] = {spirvCode(bench_image_copy_rgba8),
                                         spirvCode(bench_image_copy_rgba16f),
                                         spirvCode(bench_image_copy_r32f),
                                         spirvCode(bench_image_copy_b10g11r11),
                                         spirvCode(bench_image_copy_rgba32f),
                                         spirvCode(bench_image_copy_r8),
                                         SpirvCode{},
                                         SpirvCode{},
                                         SpirvCode{}};
    for (std::size_t f = 0; f < kFills; ++f) {
        if (!imageCopy[f].words)
            continue;
        for (std::size_t pass = 0; pass < 2; ++pass) {
            m_blur2[f][pass] =
                kernel(blur2[f][pass], {kSampled, kStorage}, sizeof(Blur2Push), "blur2");
        }
        m_imageCopy[f] = kernel(imageCopy[f], {kSampled, kStorage}, 8, "image copy");
    }
    m_fma = kernel(spirvCode(bench_fma_rate), {kBuf}, sizeof(FmaPush), "fma");

    VkQueryPoolCreateInfo qpi{};
    qpi.sType = VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO;
    qpi.queryType = VK_QUERY_TYPE_TIMESTAMP;
    qpi.queryCount = 2 * (options.warmup + options.reps); // two per repetition
    check(vkCreateQueryPool(gpu.device, &qpi, nullptr, &m_queries), "vkCreateQueryPool");

    if (options.evict) {
        const VkDeviceSize bytes = storageBufferCap(VkDeviceSize{options.evictMiB} * kMiB);
        const VkBufferUsageFlags usage =
            VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT;
        check(createBuffer(gpu, bytes, usage, &m_evictSrc), "allocating the eviction buffer");
        check(createBuffer(gpu, bytes, usage, &m_evictDst), "allocating the eviction buffer");
        VkCommandBuffer cmd = beginCommands(gpu);
        vkCmdFillBuffer(cmd, m_evictSrc.buffer, 0, VK_WHOLE_SIZE, 0x3C3C3C3Cu);
        submitAndWait(gpu);
    }
}

Runner::~Runner() {
    vkDeviceWaitIdle(m_gpu.device);
    m_downsamplers.clear();
    m_blurrers.clear();
    destroyBuffer(m_gpu, m_evictSrc);
    destroyBuffer(m_gpu, m_evictDst);
    if (m_queries)
        vkDestroyQueryPool(m_gpu.device, m_queries, nullptr);
    for (Kernel &k : m_kernels)
        destroyKernel(m_gpu, k);
}

// A copy's size capped to what one storage-buffer descriptor may cover, in whole MiB.
VkDeviceSize Runner::storageBufferCap(VkDeviceSize wanted) const {
    VkDeviceSize cap =
        std::min<VkDeviceSize>(m_gpu.props.limits.maxStorageBufferRange, m_gpu.maxAllocation);
    cap = std::max(cap / kMiB, VkDeviceSize{1}) * kMiB;
    return std::min(wanted, cap);
}

std::string Runner::evictionText() const {
    if (!m_options.evict)
        return "none (--no-evict): inputs may start in the L2";
    return "before every repetition a compute copy of " + mib(m_evictSrc.size) + " into a second " +
           mib(m_evictSrc.size) +
           " buffer, then a barrier: the image is out of the L2 (50 MB on an H200) " +
           "when each repetition starts";
}

void Runner::recordCopy(VkCommandBuffer cmd, const Buffer &src, const Buffer &dst,
                        VkDeviceSize bytes) const {
    const VkDescriptorBufferInfo s{src.buffer, 0, bytes};
    const VkDescriptorBufferInfo d{dst.buffer, 0, bytes};
    const auto count = static_cast<std::uint32_t>(bytes / 16);
    bindKernel(m_gpu, cmd, m_copy, {bufferWrite(0, &s), bufferWrite(1, &d)}, &count, sizeof(count));
    const std::uint32_t perGroup = kCopyGroupSize * kCopyUnroll;
    std::uint32_t groups = (count + perGroup - 1) / perGroup;
    groups = std::clamp(groups, 1u, m_gpu.props.limits.maxComputeWorkGroupCount[0]);
    vkCmdDispatch(cmd, groups, 1, 1);
}

void Runner::heat(VkCommandBuffer cmd) const {
    if (!m_options.evict || m_options.quick)
        return;
    const double mib = static_cast<double>(m_evictSrc.size) / static_cast<double>(kMiB);
    // About 400 GiB (100-200 ms on an H200).
    const auto copies = static_cast<std::uint32_t>(std::clamp(400.0 * 1024.0 / mib, 1.0, 2000.0));
    for (std::uint32_t i = 0; i < copies; ++i) {
        recordCopy(cmd, m_evictSrc, m_evictDst, m_evictSrc.size);
        fullBarrier(cmd);
    }
}

Timing Runner::measure(const Method &m) {
    const std::uint32_t n = m_options.warmup + m_options.reps;
    VkCommandBuffer cmd = beginCommands(m_gpu);
    vkCmdResetQueryPool(cmd, m_queries, 0, 2 * n);
    if (m.prologue)
        m.prologue(cmd);
    bool ok = true;
    for (std::uint32_t i = 0; i < n && ok; ++i) {
        if (m.evict && m_options.evict) {
            recordCopy(cmd, m_evictSrc, m_evictDst, m_evictSrc.size);
            fullBarrier(cmd);
        }
        vkCmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, m_queries, 2 * i);
        ok = m.work(cmd);
        if (!ok)
            break;
        vkCmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, m_queries, 2 * i + 1);
        fullBarrier(cmd);
        if (m.afterEach)
            m.afterEach(cmd);
    }
    if (ok && m.epilogue)
        m.epilogue(cmd);
    submitAndWait(m_gpu);

    Timing t;
    if (!ok) {
        t.note = std::string("error: ") + vkfx::lastError();
        return t;
    }
    std::vector<std::uint64_t> stamps(2 * n);
    check(vkGetQueryPoolResults(m_gpu.device, m_queries, 0, 2 * n,
                                stamps.size() * sizeof(std::uint64_t), stamps.data(),
                                sizeof(std::uint64_t),
                                VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT),
          "vkGetQueryPoolResults");
    const std::uint64_t mask = m_gpu.timestampValidBits >= 64
                                   ? ~std::uint64_t{0}
                                   : (std::uint64_t{1} << m_gpu.timestampValidBits) - 1;
    std::vector<double> us;
    for (std::uint32_t i = m_options.warmup; i < n; ++i) {
        const std::uint64_t ticks = (stamps[2 * i + 1] - stamps[2 * i]) & mask;
        us.push_back(static_cast<double>(ticks) *
                     static_cast<double>(m_gpu.props.limits.timestampPeriod) / 1000.0);
    }
    std::sort(us.begin(), us.end());
    const std::size_t mid = us.size() / 2;
    t.valid = true;
    t.minUs = us.front();
    t.medianUs = us.size() % 2 ? us[mid] : 0.5 * (us[mid - 1] + us[mid]);
    return t;
}

void Runner::measureCeiling(RunInfo *info) {
    VkDeviceSize bytes = storageBufferCap(VkDeviceSize{m_options.copyMiB} * kMiB);
    const VkBufferUsageFlags usage =
        VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT;
    Buffer src, dst;
    // Halve the size until both buffers fit in memory.
    for (;;) {
        VkResult r = createBuffer(m_gpu, bytes, usage, &src);
        if (r == VK_SUCCESS)
            r = createBuffer(m_gpu, bytes, usage, &dst);
        if (r == VK_SUCCESS)
            break;
        destroyBuffer(m_gpu, src);
        if (bytes <= 16 * kMiB)
            check(r, "allocating the copy-ceiling buffers");
        bytes /= 2;
    }
    VkCommandBuffer cmd = beginCommands(m_gpu);
    vkCmdFillBuffer(cmd, src.buffer, 0, VK_WHOLE_SIZE, 0x5A5A5A5Au);
    submitAndWait(m_gpu);

    Method copy;
    copy.evict = false; // the buffer is many times the L2 already
    copy.work = [&](VkCommandBuffer c) {
        recordCopy(c, src, dst, bytes);
        return true;
    };
    Timing t = measure(copy);
    destroyBuffer(m_gpu, src);
    destroyBuffer(m_gpu, dst);
    const double moved = 2.0 * static_cast<double>(bytes);
    info->copyMiB = static_cast<double>(bytes / kMiB);
    info->ceilingGBps = moved / (t.medianUs * 1e3);
    info->ceilingBestGBps = moved / (t.minUs * 1e3);
}

std::string Runner::createImage(const Format &format, std::uint32_t width, std::uint32_t height,
                                std::uint32_t layers, std::uint32_t levels, TestImage *out) {
    *out = TestImage{};
    const VkPhysicalDeviceLimits &limits = m_gpu.props.limits;
    if (std::max(width, height) > limits.maxImageDimension2D) {
        return "over maxImageDimension2D (" + std::to_string(limits.maxImageDimension2D) + ")";
    }
    const bool depth = isDepth(format);
    const bool srgb = !depth && format.storage != format.format;
    VkImageCreateInfo &ii = out->info;
    ii.sType = VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO;
    if (srgb)
        ii.flags |= VK_IMAGE_CREATE_MUTABLE_FORMAT_BIT | VK_IMAGE_CREATE_EXTENDED_USAGE_BIT;
    if (layers == 6 && width == height)
        ii.flags |= VK_IMAGE_CREATE_CUBE_COMPATIBLE_BIT;
    ii.imageType = VK_IMAGE_TYPE_2D;
    ii.format = format.format;
    ii.extent = {width, height, 1};
    ii.mipLevels = levels;
    ii.arrayLayers = layers;
    ii.samples = VK_SAMPLE_COUNT_1_BIT;
    ii.tiling = VK_IMAGE_TILING_OPTIMAL;
    ii.usage = depth ? VK_IMAGE_USAGE_SAMPLED_BIT | VK_IMAGE_USAGE_TRANSFER_DST_BIT
                     : VK_IMAGE_USAGE_STORAGE_BIT | VK_IMAGE_USAGE_SAMPLED_BIT |
                           VK_IMAGE_USAGE_TRANSFER_SRC_BIT | VK_IMAGE_USAGE_TRANSFER_DST_BIT;
    if (depth) {
        // A depth buffer is an attachment, which a driver may keep compressed (on an H200 the
        // pyramid of one took 6-11% longer than of an image only sampled).
        VkFormatProperties fp{};
        vkGetPhysicalDeviceFormatProperties(m_gpu.physical, format.format, &fp);
        if (fp.optimalTilingFeatures & VK_FORMAT_FEATURE_DEPTH_STENCIL_ATTACHMENT_BIT)
            ii.usage |= VK_IMAGE_USAGE_DEPTH_STENCIL_ATTACHMENT_BIT;
    }
    ii.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
    ii.initialLayout = VK_IMAGE_LAYOUT_UNDEFINED;

    VkImageFormatProperties ifp{};
    if (vkGetPhysicalDeviceImageFormatProperties(m_gpu.physical, ii.format, ii.imageType, ii.tiling,
                                                 ii.usage, ii.flags, &ifp) != VK_SUCCESS) {
        return "the device has no such image (format, usage, flags)";
    }
    if (ifp.maxExtent.width < width || ifp.maxExtent.height < height || ifp.maxMipLevels < levels ||
        ifp.maxArrayLayers < layers) {
        return "over the device's image limits for this format";
    }
    if (vkCreateImage(m_gpu.device, &ii, nullptr, &out->image) != VK_SUCCESS)
        return "vkCreateImage failed";
    VkMemoryRequirements req;
    vkGetImageMemoryRequirements(m_gpu.device, out->image, &req);
    const std::uint32_t type =
        findMemoryType(m_gpu, req.memoryTypeBits, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT);
    if (type == UINT32_MAX) {
        destroyImage(*out);
        return "no device-local memory type for the image";
    }
    const VkDeviceSize heap =
        m_gpu.memory.memoryHeaps[m_gpu.memory.memoryTypes[type].heapIndex].size;
    if (req.size > m_gpu.maxAllocation || req.size > heap / 10 * 7 ||
        req.size > ifp.maxResourceSize) {
        destroyImage(*out);
        return "needs " + mib(req.size) + " in one allocation (maxMemoryAllocationSize " +
               mib(m_gpu.maxAllocation) + ", heap " + mib(heap) + ")";
    }
    VkMemoryAllocateInfo ai{};
    ai.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO;
    ai.allocationSize = req.size;
    ai.memoryTypeIndex = type;
    if (vkAllocateMemory(m_gpu.device, &ai, nullptr, &out->memory) != VK_SUCCESS) {
        destroyImage(*out);
        return "out of device memory (" + mib(req.size) + ")";
    }
    check(vkBindImageMemory(m_gpu.device, out->image, out->memory, 0), "vkBindImageMemory");

    for (std::uint32_t level = 0; level < levels; ++level) {
        for (int storage = 0; storage < (depth ? 1 : 2); ++storage) {
            VkImageViewUsageCreateInfo viewUsage{};
            viewUsage.sType = VK_STRUCTURE_TYPE_IMAGE_VIEW_USAGE_CREATE_INFO;
            viewUsage.usage = storage ? VK_IMAGE_USAGE_STORAGE_BIT : VK_IMAGE_USAGE_SAMPLED_BIT;
            VkImageViewCreateInfo vi{};
            vi.sType = VK_STRUCTURE_TYPE_IMAGE_VIEW_CREATE_INFO;
            vi.pNext = &viewUsage;
            vi.image = out->image;
            vi.viewType = VK_IMAGE_VIEW_TYPE_2D_ARRAY;
            vi.format = storage ? format.storage : format.format;
            vi.subresourceRange = {depth ? VK_IMAGE_ASPECT_DEPTH_BIT : VK_IMAGE_ASPECT_COLOR_BIT,
                                   level, 1, 0, layers};
            VkImageView view;
            check(vkCreateImageView(m_gpu.device, &vi, nullptr, &view), "vkCreateImageView");
            (storage ? out->storage : out->sampled).push_back(view);
        }
    }
    return {};
}

void Runner::destroyImage(TestImage &image) {
    for (VkImageView v : image.sampled)
        vkDestroyImageView(m_gpu.device, v, nullptr);
    for (VkImageView v : image.storage)
        vkDestroyImageView(m_gpu.device, v, nullptr);
    if (image.image)
        vkDestroyImage(m_gpu.device, image.image, nullptr);
    if (image.memory)
        vkFreeMemory(m_gpu.device, image.memory, nullptr);
    image = TestImage{};
}

const Kernel &Runner::fillKernel(Fill f) const {
    return m_fill[static_cast<int>(f)];
}

const Kernel &Runner::chainKernel(const Case &c) const {
    if (c.format.format == VK_FORMAT_R8G8B8A8_SRGB)
        return m_chainSrgb8;
    if (c.reduction == vkfx::Reduction::Min) // the table's min rows: R32F and depth pyramids
        return m_chainR32fMin;
    return m_chainAvg[static_cast<int>(c.format.fill)];
}

// Every level of `image` from UNDEFINED to GENERAL, for compute reads and writes.
void recordToGeneral(VkCommandBuffer cmd, const TestImage &image) {
    const VkImageMemoryBarrier toGeneral = imageBarrier(
        image.image, 0, image.info.mipLevels, image.info.arrayLayers, VK_IMAGE_LAYOUT_UNDEFINED,
        VK_IMAGE_LAYOUT_GENERAL, 0, VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT);
    vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT,
                         VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, 0, 0, nullptr, 0, nullptr, 1,
                         &toGeneral);
}

// Level 0 gets noise; afterwards level 0 is in SHADER_READ_ONLY_OPTIMAL and the other levels in
// GENERAL: the state vkfx and the compute chain start from (and that the blit chain returns to).
void Runner::fillImage(const TestImage &image, Fill fill) {
    const std::uint32_t width = image.info.extent.width, height = image.info.extent.height;
    const std::uint32_t layers = image.info.arrayLayers;
    VkCommandBuffer cmd = beginCommands(m_gpu);
    recordToGeneral(cmd, image);
    const VkDescriptorImageInfo dst{VK_NULL_HANDLE, image.storage[0], VK_IMAGE_LAYOUT_GENERAL};
    const std::uint32_t push[3] = {width, height, m_seed++};
    bindKernel(m_gpu, cmd, fillKernel(fill),
               {imageWrite(0, VK_DESCRIPTOR_TYPE_STORAGE_IMAGE, &dst)}, push, sizeof(push));
    vkCmdDispatch(cmd, (width + kTile - 1) / kTile, (height + kTile - 1) / kTile, layers);
    VkImageMemoryBarrier toRead =
        imageBarrier(image.image, 0, 1, layers, VK_IMAGE_LAYOUT_GENERAL,
                     VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL, VK_ACCESS_SHADER_WRITE_BIT,
                     VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_TRANSFER_READ_BIT);
    vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                         VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT, 0,
                         0, nullptr, 0, nullptr, 1, &toRead);
    submitAndWait(m_gpu);
}

// A colour image cannot be copied into a depth image: level 0 goes through a buffer. Afterwards
// the depth image is in SHADER_READ_ONLY_OPTIMAL and every level of the pyramid in GENERAL (vkfx
// and the chain write its level 0).
std::string Runner::fillDepth(const TestImage &pyramid, const TestImage &depth) {
    const std::uint32_t width = pyramid.info.extent.width, height = pyramid.info.extent.height;
    const std::uint32_t layers = pyramid.info.arrayLayers;
    Buffer staging;
    const VkDeviceSize bytes = VkDeviceSize{width} * height * layers * sizeof(float);
    if (createBuffer(m_gpu, bytes,
                     VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT,
                     &staging) != VK_SUCCESS)
        return "no memory for the depth image's " + mib(bytes) + " upload";
    auto depthBarrier = [&](VkImageLayout from, VkImageLayout to, VkAccessFlags srcAccess,
                            VkAccessFlags dstAccess) {
        VkImageMemoryBarrier b =
            imageBarrier(depth.image, 0, 1, layers, from, to, srcAccess, dstAccess);
        b.subresourceRange.aspectMask = VK_IMAGE_ASPECT_DEPTH_BIT;
        return b;
    };
    VkCommandBuffer cmd = beginCommands(m_gpu);
    const VkImageMemoryBarrier toCopy[2] = {
        imageBarrier(pyramid.image, 0, 1, layers, VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL,
                     VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, 0, VK_ACCESS_TRANSFER_READ_BIT),
        depthBarrier(VK_IMAGE_LAYOUT_UNDEFINED, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, 0,
                     VK_ACCESS_TRANSFER_WRITE_BIT)};
    vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT,
                         VK_PIPELINE_STAGE_TRANSFER_BIT, 0, 0, nullptr, 0, nullptr, 2, toCopy);
    VkBufferImageCopy region{};
    region.imageSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, layers};
    region.imageExtent = {width, height, 1};
    vkCmdCopyImageToBuffer(cmd, pyramid.image, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, staging.buffer,
                           1, &region);
    VkBufferMemoryBarrier copied{};
    copied.sType = VK_STRUCTURE_TYPE_BUFFER_MEMORY_BARRIER;
    copied.srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT;
    copied.dstAccessMask = VK_ACCESS_TRANSFER_READ_BIT;
    copied.srcQueueFamilyIndex = copied.dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
    copied.buffer = staging.buffer;
    copied.size = VK_WHOLE_SIZE;
    vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT, 0, 0,
                         nullptr, 1, &copied, 0, nullptr);
    region.imageSubresource.aspectMask = VK_IMAGE_ASPECT_DEPTH_BIT;
    vkCmdCopyBufferToImage(cmd, staging.buffer, depth.image, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL,
                           1, &region);
    const VkImageMemoryBarrier toRead[2] = {
        imageBarrier(pyramid.image, 0, 1, layers, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL,
                     VK_IMAGE_LAYOUT_GENERAL, 0,
                     VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT),
        depthBarrier(VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL,
                     VK_ACCESS_TRANSFER_WRITE_BIT, VK_ACCESS_SHADER_READ_BIT)};
    vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                         0, 0, nullptr, 0, nullptr, 2, toRead);
    submitAndWait(m_gpu);
    destroyBuffer(m_gpu, staging);
    return {};
}

VkResult Runner::downsampler(const Case &c, VkDeviceSize scratch, const vkfx::Downsampler **out) {
    CachedDownsampler &cached = m_downsamplers[{c.format.format, c.reduction}];
    if (!cached.downsampler.valid() || cached.scratch < scratch) {
        vkfx::DownsamplerCreateInfo info;
        info.format = c.format.format;
        info.reduction = c.reduction;
        if (isDepth(c.format)) { // level 0 a copy of the depth (DepthLevelZero::Copy)
            info.format = c.format.storage;
            info.depthFormat = c.format.format;
        }
        info.flags = m_options.samplerFilter ? vkfx::DownsamplerFlagSamplerFilter : 0u;
        info.scratchSize = std::max(info.scratchSize, scratch);
        cached.downsampler = vkfx::Downsampler{}; // the old one first: no work is pending
        VkResult r = vkfx::Downsampler::create(m_gpu.vkfx, info, &cached.downsampler);
        if (r != VK_SUCCESS) {
            m_downsamplers.erase({c.format.format, c.reduction});
            return r;
        }
        cached.scratch = info.scratchSize;
    }
    *out = &cached.downsampler;
    return VK_SUCCESS;
}

// The cell of a vkfx call that failed: "n/a: <reason>" where the format is not supported, else
// "error: <reason>" (vkfx::lastError()).
Timing vkfxFailure(VkResult r) {
    Timing failed;
    failed.note =
        std::string(r == VK_ERROR_FORMAT_NOT_SUPPORTED ? "n/a: " : "error: ") + vkfx::lastError();
    return failed;
}

Timing Runner::measureVkfx(const Case &c, const TestImage &image, const TestImage *depth,
                           std::uint32_t levels) {
    const vkfx::Downsampler *spd = nullptr;
    VkResult r = downsampler(c, 0, &spd);
    // Levels written: a depth row writes level 0 too.
    const std::uint32_t written = depth ? levels : levels - 1;
    if (r == VK_SUCCESS) {
        // Large images need more than the default scratch (16384^2, big cubes): ask, and grow it.
        const VkDeviceSize need =
            spd->scratchRequirements({c.width, c.height}, c.layers, written).size;
        r = downsampler(c, need, &spd);
    }
    if (r != VK_SUCCESS)
        return vkfxFailure(r);
    vkfx::DownsampleTarget target;
    vkfx::DownsampleTargetCreateInfo ti;
    ti.image = image.image;
    ti.format = image.info.format;
    ti.extent = {c.width, c.height};
    ti.mipLevels = levels;
    ti.usage = image.info.usage;
    ti.flags = image.info.flags;
    ti.layerCount = c.layers;
    if (depth)
        ti.depth = {depth->image, depth->info.format, {c.width, c.height}, depth->info.usage};
    r = vkfx::DownsampleTarget::create(m_gpu.vkfx, ti, &target);
    if (r != VK_SUCCESS)
        return vkfxFailure(r);
    Method m;
    m.work = [&](VkCommandBuffer cmd) {
        vkfx::DownsampleInfo di;
        di.target = &target;
        di.sourceLayout = VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL;
        di.dispatches = m_options.dispatches;
        return spd->record(cmd, di) == VK_SUCCESS;
    };
    return measure(m);
}

bool Runner::computeReadWrite(const Format &f) const {
    VkFormatProperties sampled{}, storage{};
    vkGetPhysicalDeviceFormatProperties(m_gpu.physical, f.format, &sampled);
    vkGetPhysicalDeviceFormatProperties(m_gpu.physical, f.storage, &storage);
    return (sampled.optimalTilingFeatures & VK_FORMAT_FEATURE_SAMPLED_IMAGE_BIT) &&
           (storage.optimalTilingFeatures & VK_FORMAT_FEATURE_STORAGE_IMAGE_BIT);
}

Timing Runner::measureStream(double readBytes, double writeBytes) {
    // In uint4 elements: four quarters of the source (its last 0-63 bytes left out), and a
    // destination of at most as many (its last 0-15 bytes left out; a chain writes less than its
    // base, a third in 2D).
    const auto quarter = static_cast<std::uint32_t>(readBytes / 64.0);
    const auto writes = std::min(static_cast<std::uint32_t>(writeBytes / 16.0), 4 * quarter);
    const VkDeviceSize srcBytes = VkDeviceSize{quarter} * 64, dstBytes = VkDeviceSize{writes} * 16;
    Timing na;
    if (writes == 0 || storageBufferCap(srcBytes) < srcBytes) {
        na.note = "n/a";
        return na;
    }
    const VkBufferUsageFlags usage =
        VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT;
    Buffer src, dst;
    VkResult r = createBuffer(m_gpu, srcBytes, usage, &src);
    if (r == VK_SUCCESS)
        r = createBuffer(m_gpu, dstBytes, usage, &dst);
    if (r != VK_SUCCESS) {
        destroyBuffer(m_gpu, src);
        na.note = "n/a";
        return na;
    }
    VkCommandBuffer cmd = beginCommands(m_gpu);
    vkCmdFillBuffer(cmd, src.buffer, 0, VK_WHOLE_SIZE, 0x5A5A5A5Au);
    submitAndWait(m_gpu);

    Method m;
    m.work = [&](VkCommandBuffer c) {
        const VkDescriptorBufferInfo s{src.buffer, 0, srcBytes};
        const VkDescriptorBufferInfo d{dst.buffer, 0, dstBytes};
        const std::uint32_t push[2] = {quarter, writes};
        bindKernel(m_gpu, c, m_stream, {bufferWrite(0, &s), bufferWrite(1, &d)}, push,
                   sizeof(push));
        const std::uint32_t perGroup = kCopyGroupSize * kStreamUnits;
        const std::uint32_t groups = std::min((quarter + perGroup - 1) / perGroup,
                                              m_gpu.props.limits.maxComputeWorkGroupCount[0]);
        vkCmdDispatch(c, groups, 1, 1);
        return true;
    };
    Timing t = measure(m);
    destroyBuffer(m_gpu, src);
    destroyBuffer(m_gpu, dst);
    return t;
}

Timing Runner::measureChain(const Case &c, const TestImage &image, const TestImage *depth,
                            std::uint32_t levels) {
    Timing na;
    if (!computeReadWrite(depth ? kR32f : c.format)) {
        na.note = "n/a";
        return na;
    }
    const Kernel &k = chainKernel(c);
    Method m;
    m.work = [&](VkCommandBuffer cmd) {
        const Kernel *bound = nullptr;
        // Level `level` of the chain from `src` (level - 1; for level 0 of a depth row, the depth
        // image, a texel an invocation), then a barrier before the next level reads it.
        auto step = [&](const Kernel &kernel, VkImageView src, VkImageLayout srcLayout,
                        std::uint32_t level) {
            if (bound != &kernel) {
                vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, kernel.pipeline);
                bound = &kernel;
            }
            const VkDescriptorImageInfo from{VK_NULL_HANDLE, src, srcLayout};
            const VkDescriptorImageInfo to{VK_NULL_HANDLE, image.storage[level],
                                           VK_IMAGE_LAYOUT_GENERAL};
            const VkWriteDescriptorSet writes[2] = {
                imageWrite(0, VK_DESCRIPTOR_TYPE_SAMPLED_IMAGE, &from),
                imageWrite(1, VK_DESCRIPTOR_TYPE_STORAGE_IMAGE, &to)};
            m_gpu.vkfx.fn().vkCmdPushDescriptorSetKHR(cmd, VK_PIPELINE_BIND_POINT_COMPUTE,
                                                      kernel.layout, 0, 2, writes);
            const std::uint32_t w = mipExtent(c.width, level), h = mipExtent(c.height, level);
            const std::uint32_t read = level == 0 ? 0 : level - 1;
            const std::uint32_t push[4] = {w, h, mipExtent(c.width, read),
                                           mipExtent(c.height, read)};
            vkCmdPushConstants(cmd, kernel.layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof(push),
                               push);
            vkCmdDispatch(cmd, (w + kTile - 1) / kTile, (h + kTile - 1) / kTile, c.layers);
            if (level + 1 < levels) {
                VkImageMemoryBarrier b = imageBarrier(
                    image.image, level, 1, c.layers, VK_IMAGE_LAYOUT_GENERAL,
                    VK_IMAGE_LAYOUT_GENERAL, VK_ACCESS_SHADER_WRITE_BIT, VK_ACCESS_SHADER_READ_BIT);
                vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                                     VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, 0, 0, nullptr, 0,
                                     nullptr, 1, &b);
            }
        };
        if (depth)
            step(m_chainDepthCopy, depth->sampled[0], VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL, 0);
        for (std::uint32_t level = 1; level < levels; ++level) {
            step(k, image.sampled[level - 1],
                 level == 1 && !depth ? VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL
                                      : VK_IMAGE_LAYOUT_GENERAL,
                 level);
        }
        return true;
    };
    return measure(m);
}

Timing Runner::measureBlit(const Case &c, const TestImage &image, std::uint32_t levels) {
    Timing na;
    if (c.reduction != vkfx::Reduction::Average) {
        na.note = "-"; // a blit filters linearly: no minimum
        return na;
    }
    VkFormatProperties fp{};
    vkGetPhysicalDeviceFormatProperties(m_gpu.physical, c.format.format, &fp);
    const VkFormatFeatureFlags need = VK_FORMAT_FEATURE_BLIT_SRC_BIT |
                                      VK_FORMAT_FEATURE_BLIT_DST_BIT |
                                      VK_FORMAT_FEATURE_SAMPLED_IMAGE_FILTER_LINEAR_BIT;
    if (!m_gpu.graphicsQueue || (fp.optimalTilingFeatures & need) != need) {
        na.note = "n/a";
        return na;
    }
    const VkImage img = image.image;
    const std::uint32_t L = c.layers;
    const VkPipelineStageFlags kCompute = VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT;
    const VkPipelineStageFlags kTransfer = VK_PIPELINE_STAGE_TRANSFER_BIT;
    auto barriers = [](VkCommandBuffer cmd, VkPipelineStageFlags src, VkPipelineStageFlags dst,
                       std::vector<VkImageMemoryBarrier> list) {
        vkCmdPipelineBarrier(cmd, src, dst, 0, 0, nullptr, 0, nullptr,
                             static_cast<std::uint32_t>(list.size()), list.data());
    };
    Method m;
    // From the compute state (level 0 read-only, levels 1.. GENERAL) to the blit chain's start:
    // level 0 TRANSFER_SRC, levels 1.. TRANSFER_DST.
    m.prologue = [&](VkCommandBuffer cmd) {
        barriers(
            cmd, kCompute | kTransfer, kTransfer,
            {imageBarrier(img, 0, 1, L, VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL,
                          VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, 0, VK_ACCESS_TRANSFER_READ_BIT),
             imageBarrier(img, 1, levels - 1, L, VK_IMAGE_LAYOUT_GENERAL,
                          VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL,
                          VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT,
                          VK_ACCESS_TRANSFER_WRITE_BIT)});
    };
    m.work = [&](VkCommandBuffer cmd) {
        for (std::uint32_t level = 1; level < levels; ++level) {
            VkImageBlit region{};
            region.srcSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, level - 1, 0, L};
            region.srcOffsets[1] = {static_cast<std::int32_t>(mipExtent(c.width, level - 1)),
                                    static_cast<std::int32_t>(mipExtent(c.height, level - 1)), 1};
            region.dstSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, level, 0, L};
            region.dstOffsets[1] = {static_cast<std::int32_t>(mipExtent(c.width, level)),
                                    static_cast<std::int32_t>(mipExtent(c.height, level)), 1};
            vkCmdBlitImage(cmd, img, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, img,
                           VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, 1, &region, VK_FILTER_LINEAR);
            if (level + 1 < levels) {
                barriers(cmd, kTransfer, kTransfer,
                         {imageBarrier(img, level, 1, L, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL,
                                       VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL,
                                       VK_ACCESS_TRANSFER_WRITE_BIT, VK_ACCESS_TRANSFER_READ_BIT)});
            }
        }
        return true;
    };
    // Back to the start for the next repetition: levels 1..n-2 were turned into TRANSFER_SRC.
    m.afterEach = [&](VkCommandBuffer cmd) {
        std::vector<VkImageMemoryBarrier> list;
        if (levels > 2) {
            list.push_back(imageBarrier(img, 1, levels - 2, L, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL,
                                        VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL,
                                        VK_ACCESS_TRANSFER_WRITE_BIT,
                                        VK_ACCESS_TRANSFER_WRITE_BIT));
        }
        list.push_back(imageBarrier(img, levels - 1, 1, L, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL,
                                    VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL,
                                    VK_ACCESS_TRANSFER_WRITE_BIT, VK_ACCESS_TRANSFER_WRITE_BIT));
        barriers(cmd, kTransfer, kTransfer, std::move(list));
    };
    // Back to the compute state.
    m.epilogue = [&](VkCommandBuffer cmd) {
        barriers(cmd, kTransfer, kCompute | kTransfer,
                 {imageBarrier(img, 0, 1, L, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL,
                               VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL, 0,
                               VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_TRANSFER_READ_BIT),
                  imageBarrier(img, 1, levels - 1, L, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL,
                               VK_IMAGE_LAYOUT_GENERAL, VK_ACCESS_TRANSFER_WRITE_BIT,
                               VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT)});
    };
    return measure(m);
}

// --verbose: the wall time of each step of a row on stderr ("<row>: <step> took N ms (wall)").
class Laps {
  public:
    Laps(bool verbose, const std::string &row) : m_verbose(verbose), m_row(row) {}
    void operator()(const char *step) {
        const auto now = std::chrono::steady_clock::now();
        if (m_verbose) {
            std::fprintf(stderr, "vkfx-bench: %s: %s took %.0f ms (wall)\n", m_row.c_str(), step,
                         std::chrono::duration<double, std::milli>(now - m_start).count());
        }
        m_start = now;
    }

  private:
    bool m_verbose;
    std::string m_row;
    std::chrono::steady_clock::time_point m_start = std::chrono::steady_clock::now();
};

// The fields of a row that every image mode's case gives the same way.
template <typename RowT, typename CaseT> RowT imageRow(const CaseT &c) {
    RowT row;
    row.name = c.name;
    row.format = c.format.name;
    row.width = c.width;
    row.height = c.height;
    row.layers = c.layers;
    return row;
}

Row Runner::run(const Case &c) {
    Row row = imageRow<Row>(c);
    row.reduction = c.reduction == vkfx::Reduction::Min ? "min" : "avg";
    row.levels = vkfx::fullMipLevels({c.width, c.height});
    const bool depth = isDepth(c.format);
    // Level 0 read once (and written once into a depth row's pyramid).
    double texels = double(c.width) * double(c.height) * (depth ? 2 : 1);
    for (std::uint32_t level = 1; level < row.levels; ++level) {
        texels +=
            double(mipExtent(c.width, level)) * double(mipExtent(c.height, level)); // written once
    }
    row.bytes = texels * c.format.bytesPerTexel * c.layers;
    const double baseBytes = double(c.width) * double(c.height) * c.format.bytesPerTexel * c.layers;

    TestImage image, depthImage; // a depth row: its pyramid and the depth image read
    row.skipped =
        createImage(depth ? kR32f : c.format, c.width, c.height, c.layers, row.levels, &image);
    if (depth && row.skipped.empty())
        row.skipped = createImage(c.format, c.width, c.height, c.layers, 1, &depthImage);
    Laps lap(m_options.verbose, c.name);
    if (row.skipped.empty()) {
        fillImage(image, c.format.fill);
        if (depth)
            row.skipped = fillDepth(image, depthImage);
        lap("fill");
    }
    if (!row.skipped.empty()) {
        destroyImage(image);
        destroyImage(depthImage);
        return row;
    }
    const TestImage *depthRead = depth ? &depthImage : nullptr;
    row.vkfx = measureVkfx(c, image, depthRead, row.levels);
    lap("vkfx");
    row.chain = measureChain(c, image, depthRead, row.levels);
    lap("chain");
    row.blit = measureBlit(c, image, row.levels);
    lap("blit");
    destroyImage(image);
    destroyImage(depthImage);
    row.stream = measureStream(baseBytes, row.bytes - baseBytes);
    lap("stream");
    return row;
}

SortRow Runner::runSort(const SortCase &c) {
    SortRow row;
    row.name = c.name;
    row.key = sortKeyLabel(c.key, c.low24);
    row.pairs = c.pairs;
    row.indirect = c.indirect;
    row.path = c.path == vkfx::SortPath::Onesweep ? "onesweep" : "reduce-then-scan";
    row.count = c.count;
    // 8-bit LSD traffic: the histogram reads the keys, each pass reads and writes keys and values.
    const std::uint32_t keyWords = c.key == vkfx::SortKey::Uint64 ? 2 : 1;
    const std::uint32_t passes = 4 * keyWords;
    row.bytesPerKey = 4 * keyWords + passes * 8 * (keyWords + (c.pairs ? 1 : 0));
    const std::uint32_t n = c.count;
    // Words of the keys and of the values (one per key).
    const std::uint32_t words[2] = {n * keyWords, n};
    const VkDeviceSize partBytes[2] = {VkDeviceSize{words[0]} * 4, VkDeviceSize{words[1]} * 4};
    if (partBytes[0] > m_gpu.props.limits.maxStorageBufferRange || partBytes[0] > m_gpu.maxAllocation) {
        row.skipped = sortCountLabel(n) + " keys exceed maxStorageBufferRange or maxMemoryAllocationSize";
        return row;
    }
    vkfx::Sorter sorter;
    VkResult r = vkfx::Sorter::create(m_gpu.vkfx,
                                      {.key = c.key,
                                       .values = c.pairs ? vkfx::SortValues::Bits32 : vkfx::SortValues::None,
                                       .maxCount = n,
                                       .path = c.path},
                                      &sorter);
    if (r != VK_SUCCESS) {
        row.skipped = std::string("vkfx::Sorter::create: ") + vkfx::lastError();
        return row;
    }
    const VkBufferUsageFlags usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT;
    Buffer pristine[2], work[2], count;
    const int parts = c.pairs ? 2 : 1;
    r = createBuffer(m_gpu, 4, usage, &count);
    for (int i = 0; i < parts && r == VK_SUCCESS; ++i) {
        r = createBuffer(m_gpu, partBytes[i], usage, &pristine[i]);
        if (r == VK_SUCCESS)
            r = createBuffer(m_gpu, partBytes[i], usage, &work[i]);
    }
    auto release = [&] {
        for (Buffer *b : {&pristine[0], &pristine[1], &work[0], &work[1], &count})
            destroyBuffer(m_gpu, *b);
    };
    if (r != VK_SUCCESS) {
        release();
        row.skipped = "not enough device memory for " + sortCountLabel(n) + " keys";
        return row;
    }
    {
        VkCommandBuffer cmd = beginCommands(m_gpu);
        for (int i = 0; i < parts; ++i) {
            const VkDescriptorBufferInfo out{pristine[i].buffer, 0, partBytes[i]};
            const std::uint32_t push[3] = {words[i], m_seed++,
                                           i == 1                              ? 2u
                                           : c.key == vkfx::SortKey::Float32 ? 1u
                                           : c.low24                           ? 3u
                                                                               : 0u};
            bindKernel(m_gpu, cmd, m_keys, {bufferWrite(0, &out)}, push, sizeof(push));
            vkCmdDispatch(cmd, std::min<std::uint32_t>((words[i] + 255) / 256, 65535), 1, 1);
        }
        vkCmdFillBuffer(cmd, count.buffer, 0, 4, n);
        submitAndWait(m_gpu);
    }
    // The unsorted input back in place, outside the timed region.
    auto restore = [&](VkCommandBuffer cmd) {
        for (int i = 0; i < parts; ++i)
            recordCopy(cmd, pristine[i], work[i], partBytes[i]);
        fullBarrier(cmd);
    };
    Method m;
    m.prologue = [&](VkCommandBuffer cmd) {
        heat(cmd);
        restore(cmd);
    };
    m.afterEach = restore;
    m.work = [&](VkCommandBuffer cmd) {
        const vkfx::SortBuffer keys{work[0].buffer, 0};
        const vkfx::SortBuffer values = c.pairs ? vkfx::SortBuffer{work[1].buffer, 0} : vkfx::SortBuffer{};
        if (c.indirect)
            return sorter.recordIndirect(cmd, {.keys = keys, .values = values, .countBuffer = {count.buffer, 0}}) ==
                   VK_SUCCESS;
        return sorter.record(cmd, {.keys = keys, .values = values, .count = n}) == VK_SUCCESS;
    };
    row.vkfx = measure(m);
    release();
    return row;
}

void Runner::measureFmaRate(RunInfo *info) {
    Buffer sink;
    check(createBuffer(m_gpu, 16, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT, &sink),
          "allocating the FMA sink");
    const VkDescriptorBufferInfo out{sink.buffer, 0, 16};
    const FmaPush push{kFmaIterations, 0.999f, 0.001f, -1.0f};
    const std::uint32_t maxGroups = m_gpu.props.limits.maxComputeWorkGroupCount[0];
    std::uint32_t groups = 16;
    Method fma;
    fma.evict = false; // no memory traffic
    fma.work = [&](VkCommandBuffer cmd) {
        bindKernel(m_gpu, cmd, m_fma, {bufferWrite(0, &out)}, &push, sizeof(push));
        vkCmdDispatch(cmd, groups, 1, 1);
        return true;
    };
    // Grow the grid until a repetition takes kFmaTargetUs: many waves of workgroups on any device.
    Timing t = measure(fma);
    while (t.valid && t.medianUs < kFmaTargetUs && groups < maxGroups) {
        const double grow = std::clamp(kFmaTargetUs / std::max(t.medianUs, 1.0), 2.0, 64.0);
        groups = static_cast<std::uint32_t>(
            std::min(static_cast<double>(groups) * grow, double(maxGroups)));
        t = measure(fma);
    }
    destroyBuffer(m_gpu, sink);
    if (!t.valid)
        die("measuring the FMA rate failed: " + t.note);
    const double fmas = double(groups) * kFmaGroupSize * kFmaIterations * kFmaPerIteration;
    info->fmaGPerS = fmas / (t.medianUs * 1e3);
    info->fmaBestGPerS = fmas / (t.minUs * 1e3);
}

VkResult Runner::blurrer(VkFormat format, const vkfx::Blurrer **out) {
    auto found = m_blurrers.find(format);
    if (found == m_blurrers.end()) {
        vkfx::Blurrer created;
        const VkResult r = vkfx::Blurrer::create(m_gpu.vkfx, {.format = format}, &created);
        if (r != VK_SUCCESS)
            return r;
        found = m_blurrers.emplace(format, std::move(created)).first;
    }
    *out = &found->second;
    return VK_SUCCESS;
}

// `method`: set to the method the record took (Blurrer::methodFor), "direct", "decimated" or
// "twopass" (Auto takes Decimated or TwoPass where given scratch, which the bench gives wherever
// scratchRequirements asks for it).
Timing Runner::measureBlurVkfx(const BlurCase &c, const TestImage &src, const TestImage &dst,
                               std::string *method) {
    const vkfx::Blurrer *blur = nullptr;
    VkResult r = blurrer(c.format.format, &blur);
    vkfx::BlurTarget source, destination;
    for (auto [image, target] : {std::pair{&src, &source}, std::pair{&dst, &destination}}) {
        if (r == VK_SUCCESS) {
            r = vkfx::BlurTarget::create(
                m_gpu.vkfx,
                {.image = image->image,
                 .format = image->info.format,
                 .extent = {image->info.extent.width, image->info.extent.height},
                 .mipLevels = image->info.mipLevels,
                 .usage = image->info.usage,
                 .flags = image->info.flags,
                 .layerCount = image->info.arrayLayers},
                target);
        }
    }
    if (r != VK_SUCCESS)
        return vkfxFailure(r);
    vkfx::BlurInfo info{.source = &source,
                        .destination = &destination,
                        .filter = vkfx::BlurFilter::Gaussian,
                        .sigmaX = c.sigma(),
                        .sigmaY = c.sigma(),
                        .radiusX = c.radius,
                        .radiusY = c.radius,
                        .border = vkfx::BlurBorder::ClampToEdge,
                        .sourceLayout = VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL,
                        .method = c.method};
    Buffer scratch;
    const vkfx::ScratchRequirements req = blur->scratchRequirements(info);
    if (req.size > 0) {
        r = createBuffer(m_gpu, req.size, req.usage, &scratch);
        if (r != VK_SUCCESS)
            return vkfxFailure(r);
        info.scratchBuffer = scratch.buffer;
    }
    vkfx::BlurMethod taken{};
    r = blur->methodFor(info, &taken);
    if (r != VK_SUCCESS) {
        destroyBuffer(m_gpu, scratch);
        return vkfxFailure(r);
    }
    *method = blurMethodName(taken);
    Method m;
    m.prologue = [&](VkCommandBuffer cmd) { heat(cmd); };
    m.work = [&](VkCommandBuffer cmd) { return blur->record(cmd, info) == VK_SUCCESS; };
    Timing t = measure(m);
    destroyBuffer(m_gpu, scratch);
    return t;
}

void Runner::bindImageToImage(VkCommandBuffer cmd, const Kernel &k, const TestImage &from, VkImageLayout layout,
                              const TestImage &to, const void *push, std::uint32_t pushBytes) const {
    const VkDescriptorImageInfo read{VK_NULL_HANDLE, from.sampled[0], layout};
    const VkDescriptorImageInfo write{VK_NULL_HANDLE, to.storage[0], VK_IMAGE_LAYOUT_GENERAL};
    bindKernel(m_gpu, cmd, k,
               {imageWrite(0, VK_DESCRIPTOR_TYPE_SAMPLED_IMAGE, &read),
                imageWrite(1, VK_DESCRIPTOR_TYPE_STORAGE_IMAGE, &write)},
               push, pushBytes);
}

Timing Runner::measureTwoPass(const BlurCase &c, const TestImage &src, const TestImage &mid,
                              const TestImage &dst) {
    Timing na;
    if (!computeReadWrite(c.format) || c.radius > kBlur2MaxRadius) {
        na.note = "n/a";
        return na;
    }
    const Kernel(&passes)[2] = m_blur2[static_cast<int>(c.format.fill)];
    const float sigma = c.sigma();
    const Blur2Push push{c.radius,
                         static_cast<float>(-1.0 / (2.0 * double(sigma) * double(sigma))),
                         {static_cast<std::int32_t>(c.width), static_cast<std::int32_t>(c.height)}};
    // One axis: `from` (its sampled view, in `layout`) blurred into `to` (its storage view).
    auto pass = [&](VkCommandBuffer cmd, const Kernel &k, const TestImage &from,
                    VkImageLayout layout, const TestImage &to) {
        bindImageToImage(cmd, k, from, layout, to, &push, sizeof(push));
        vkCmdDispatch(cmd, (c.width + kBlur2Tile - 1) / kBlur2Tile,
                      (c.height + kBlur2Tile - 1) / kBlur2Tile, to.info.arrayLayers);
    };
    Method m;
    m.prologue = [&](VkCommandBuffer cmd) { heat(cmd); };
    m.work = [&](VkCommandBuffer cmd) {
        pass(cmd, passes[0], src, VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL, mid);
        const VkImageMemoryBarrier b = imageBarrier(
            mid.image, 0, 1, mid.info.arrayLayers, VK_IMAGE_LAYOUT_GENERAL, VK_IMAGE_LAYOUT_GENERAL,
            VK_ACCESS_SHADER_WRITE_BIT, VK_ACCESS_SHADER_READ_BIT);
        vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                             VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, 0, 0, nullptr, 0, nullptr, 1,
                             &b);
        pass(cmd, passes[1], mid, VK_IMAGE_LAYOUT_GENERAL, dst);
        return true;
    };
    return measure(m);
}

Timing Runner::measureImageCopy(const BlurCase &c, const TestImage &src, const TestImage &dst) {
    Timing na;
    if (!computeReadWrite(c.format)) {
        na.note = "n/a";
        return na;
    }
    const Kernel &k = m_imageCopy[static_cast<int>(c.format.fill)];
    const std::int32_t size[2] = {static_cast<std::int32_t>(c.width), static_cast<std::int32_t>(c.height)};
    Method m;
    m.prologue = [&](VkCommandBuffer cmd) { heat(cmd); };
    m.work = [&](VkCommandBuffer cmd) {
        bindImageToImage(cmd, k, src, VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL, dst, size, sizeof(size));
        vkCmdDispatch(cmd, (c.width + kImageCopyColumns - 1) / kImageCopyColumns,
                      (c.height + kImageCopyRows - 1) / kImageCopyRows, dst.info.arrayLayers);
        return true;
    };
    return measure(m);
}

BlurRow Runner::runBlur(const BlurCase &c) {
    BlurRow row = imageRow<BlurRow>(c);
    row.radius = c.radius;
    row.sigma = static_cast<double>(c.sigma());
    row.channels = c.channels;
    const double texels = double(c.width) * double(c.height) * c.layers;
    row.bytes = 2.0 * texels * c.format.bytesPerTexel;
    row.method =
        blurMethodName(c.method == vkfx::BlurMethod::Auto ? vkfx::BlurMethod::Direct : c.method);

    // The source (noise, SHADER_READ_ONLY_OPTIMAL), the two-pass blur's intermediate and the
    // destination (GENERAL).
    TestImage src, mid, dst;
    for (TestImage *image : {&src, &mid, &dst}) {
        if (row.skipped.empty())
            row.skipped = createImage(c.format, c.width, c.height, c.layers, 1, image);
    }
    if (row.skipped.empty()) {
        Laps lap(m_options.verbose, c.name);
        fillImage(src, c.format.fill);
        VkCommandBuffer cmd = beginCommands(m_gpu);
        recordToGeneral(cmd, mid);
        recordToGeneral(cmd, dst);
        submitAndWait(m_gpu);
        lap("fill");
        row.vkfx = measureBlurVkfx(c, src, dst, &row.method);
        lap("vkfx");
        row.twoPass = measureTwoPass(c, src, mid, dst);
        lap("2-pass");
        row.imageCopy = measureImageCopy(c, src, dst);
        lap("image copy");
    }
    for (TestImage *image : {&src, &mid, &dst})
        destroyImage(*image);
    // The Decimated method's roofline is the bandwidth floor alone (its arithmetic does not grow
    // with r).
    row.fmas = row.method == "decimated" ? 0.0 : 2.0 * (2.0 * c.radius + 1.0) * c.channels * texels;
    return row;
}

bool envFlag(const char *name) {
    const char *v = std::getenv(name);
    return v && std::strcmp(v, "1") == 0;
}

// Matches --filter (any of the comma-separated strings, any case).
bool selected(const Options &options, const std::string &name) {
    if (options.filters.empty())
        return true;
    const std::string lower = lowerCase(name);
    return std::any_of(options.filters.begin(), options.filters.end(),
                       [&](const std::string &f) { return lower.find(f) != std::string::npos; });
}

// Opens the device the options name (validation with VKFX_BENCH_VALIDATION=1).
void openBenchGpu(const Options &options, Gpu *gpu) {
    GpuOptions go;
    go.deviceName = options.device;
    go.validation = envFlag("VKFX_BENCH_VALIDATION");
    go.pipelineStats = options.pipelineStats;
    openGpu(go, gpu);
}

// Closes the device; the exit status: 1 on validation messages or unwritable files, 2 when a
// workload failed, else 0.
int finish(Gpu &gpu, bool filesOk, std::size_t failed) {
    closeGpu(gpu);
    const std::size_t messages = validationMessages();
    if (messages) {
        std::fprintf(stderr, "vkfx-bench: %zu validation message(s)\n", messages);
        return 1;
    }
    if (!filesOk)
        return 1;
    return failed ? 2 : 0;
}

RunInfo runInfo(const Gpu &gpu, const Options &options) {
    RunInfo info;
    info.mode = options.mode;
    char ids[64];
    std::snprintf(ids, sizeof(ids), ", vendor 0x%04x, device 0x%04x", gpu.props.vendorID, gpu.props.deviceID);
    info.device = std::string(gpu.props.deviceName) + " (" + deviceTypeText(gpu.props.deviceType) + ids + ")";
    info.driver = driverVersionText(gpu);
    info.vulkan = versionText(gpu.props.apiVersion) + " (device), instance " + versionText(gpu.instanceVersion);
    info.date = utcNow();
    info.timestampPeriodNs = gpu.props.limits.timestampPeriod;
    info.timestampValidBits = gpu.timestampValidBits;
    info.reps = options.reps;
    info.warmup = options.warmup;
    info.quick = options.quick;
    info.validation = gpu.validation;
    if (options.mode == "downsample" && options.samplerFilter)
        info.vkfxFlags = "DownsamplerFlagSamplerFilter";
    return info;
}

// One mode of the benchmark: its cases and how its rows are run, printed, judged and written.
template <typename CaseT, typename RowT> struct Mode {
    std::vector<CaseT> cases;
    RowT (Runner::*run)(const CaseT &);
    void (*tableHeader)(std::FILE *);
    void (*printRow)(std::FILE *, const RowT &, const RunInfo &);
    void (*legend)(std::FILE *);
    bool (*failed)(const RowT &); // a workload of a row that was not skipped returned an error
    bool (*csv)(const std::string &, const RunInfo &, const std::vector<RowT> &);
    bool (*json)(const std::string &, const RunInfo &, const std::vector<RowT> &);
    // What the mode measures before its rows besides the copy ceiling (into the info), or null.
    void (Runner::*measureRates)(RunInfo *);
};

// Selects the mode's cases (--quick, --filter), lists them or runs them: the table on stdout,
// the counts, the files; the exit status of finish().
template <typename CaseT, typename RowT> int runMode(const Options &options, const Mode<CaseT, RowT> &mode) {
    std::vector<CaseT> cases;
    for (const CaseT &c : mode.cases) {
        if ((!options.quick || c.quick) && selected(options, c.name))
            cases.push_back(c);
    }
    if (options.list) {
        for (const CaseT &c : cases)
            std::printf("%s\n", c.name.c_str());
        return 0;
    }
    if (cases.empty())
        die("no row matches --filter (see --list)");

    Gpu gpu;
    openBenchGpu(options, &gpu);
    RunInfo info = runInfo(gpu, options);
    std::vector<RowT> rows;
    {
        Runner runner(gpu, options);
        info.eviction = runner.evictionText();
        runner.measureCeiling(&info);
        if (mode.measureRates)
            (runner.*mode.measureRates)(&info);
        printHeader(stdout, info);
        mode.tableHeader(stdout);
        for (const CaseT &c : cases) {
            rows.push_back((runner.*mode.run)(c));
            mode.printRow(stdout, rows.back(), info);
        }
    }
    mode.legend(stdout);

    std::size_t measured = 0, skipped = 0, failed = 0;
    for (const RowT &r : rows)
        ++(!r.skipped.empty() ? skipped : mode.failed(r) ? failed : measured);
    std::printf("\nrows: %zu measured, %zu skipped (device limits), %zu failed\n", measured, skipped, failed);

    bool filesOk = true;
    if (!options.csv.empty())
        filesOk = mode.csv(options.csv, info, rows) && filesOk;
    if (!options.json.empty())
        filesOk = mode.json(options.json, info, rows) && filesOk;
    return finish(gpu, filesOk, failed);
}

// A workload of the row failed: a cell's note is an error ("n/a", the device cannot, and "-", the
// method cannot, are no failures).
bool anyError(std::initializer_list<const Timing *> cells) {
    return std::any_of(cells.begin(), cells.end(),
                       [](const Timing *t) { return t->note.rfind("error", 0) == 0; });
}

bool downsampleFailed(const Row &r) { return anyError({&r.vkfx, &r.blit, &r.chain, &r.stream}); }

bool sortFailed(const SortRow &r) { return !r.vkfx.valid; }

bool blurFailed(const BlurRow &r) { return anyError({&r.vkfx, &r.twoPass, &r.imageCopy}); }

} // namespace

int main(int argc, char **argv) {
    const Options options = parseOptions(argc, argv);
    if (options.mode == "sort") {
        return runMode<SortCase, SortRow>(
            options, {allSortCases(options.counts), &Runner::runSort, printSortTableHeader, printSortRow,
                      printSortLegend, sortFailed, writeSortCsv, writeSortJson, nullptr});
    }
    if (options.mode == "blur") {
        return runMode<BlurCase, BlurRow>(
            options, {allBlurCases(options.quick, options.radii, options.methods), &Runner::runBlur,
                      printBlurTableHeader, printBlurRow, printBlurLegend, blurFailed, writeBlurCsv,
                      writeBlurJson, &Runner::measureFmaRate});
    }
    return runMode<Case, Row>(options,
                              {allCases(options.sizes), &Runner::run, printTableHeader, printRow, printLegend,
                               downsampleFailed, writeCsv, writeJson, nullptr});
}
