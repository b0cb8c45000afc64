// vkfx-bench: results and their output (the stdout table, CSV, JSON).
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

namespace bench {

// One workload's GPU time over the timed repetitions.
struct Timing {
    bool valid = false;
    double medianUs = 0;
    double minUs = 0;
    // Why there is no time when !valid: "-" (the method cannot do this reduction), "n/a" (the
    // device cannot), or an error.
    std::string note;
};

// One downsample case: an image, a format and a reduction, every method measured in one run.
struct Row {
    std::string name;   // "R8G8B8A8_UNORM 1920x1080 avg": what --filter matches
    std::string format; // "R8G8B8A8_UNORM"
    std::uint32_t width = 0, height = 0, layers = 1;
    std::string reduction;    // "avg" or "min"
    std::uint32_t levels = 0; // levels of the full chain, level 0 included
    double bytes = 0;         // base read once + every other level written once, all layers
    Timing vkfx, blit, chain;
    // The same bytes moved by a plain buffer kernel (examples/bench/stream.comp): about the least
    // time a kernel that reads the base and writes the other levels takes on this device.
    Timing stream;
    std::string skipped; // non-empty: the case was not run, and why
};

// vkfx's throughput (GB/s, bytes over the median time) and fraction of the copy ceiling; its
// speed-up over the blit chain (medians); each 0 when not measured.
double vkfxGBps(const Row &row);
double ceilingFraction(const Row &row, double ceilingGBps);
double speedupOverBlit(const Row &row);
// The stream kernel's fraction of the copy ceiling (the row's bytes over its median), 0 when not
// measured.
double streamCeilingFraction(const Row &row, double ceilingGBps);

struct RunInfo {
    std::string mode = "downsample"; // "downsample", "sort" or "blur"
    std::string device; // name (type, vendor / device id)
    std::string driver;
    std::string vulkan; // device API version
    std::string date;   // UTC, ISO 8601
    double timestampPeriodNs = 0;
    std::uint32_t timestampValidBits = 0;
    std::uint32_t reps = 0, warmup = 0;
    std::string eviction;   // how inputs are kept out of the L2 between repetitions
    double ceilingGBps = 0; // median of the copy repetitions (bytes read + written)
    double ceilingBestGBps = 0;
    double copyMiB = 0; // size of the buffer copied to measure the ceiling
    // The fp32 multiply-add rate (1e9 FMAs per second) over the median (best) time of
    // examples/bench/fma.comp; measured by the modes that need it (blur), else 0.
    double fmaGPerS = 0;
    double fmaBestGPerS = 0;
    bool quick = false;
    bool validation = false;
    std::string vkfxFlags; // the flags vkfx's objects were created with, where not the default
};

void printHeader(std::FILE *out, const RunInfo &info);
void printTableHeader(std::FILE *out);
void printRow(std::FILE *out, const Row &row, const RunInfo &info);
void printLegend(std::FILE *out);

// Write every row with the run's device, driver, date, ceiling and repetitions. False (and a
// reason on stderr) when the file cannot be written.
bool writeCsv(const std::string &path, const RunInfo &info, const std::vector<Row> &rows);
bool writeJson(const std::string &path, const RunInfo &info, const std::vector<Row> &rows);

// One sort case: a key type, with or without 32-bit values, a count and a path, timed in one run.
struct SortRow {
    std::string name;  // "uint32 pairs 2^24 onesweep": what --filter matches
    std::string key;   // "uint32" / "float32"
    bool pairs = false;
    bool indirect = false; // the count comes from a GPU buffer (recordIndirect)
    std::string path;      // "onesweep" / "reduce-then-scan"
    std::uint32_t count = 0;
    double bytesPerKey = 0; // the traffic floor assumed: 36 (keys), 68 (with 32-bit values)
    Timing vkfx;
    std::string skipped;
};

// "2^20" for powers of two, else the number.
std::string sortCountLabel(std::uint32_t count);
// Keys per second (1e9) over the median; the floor's time (count * bytesPerKey at the copy
// ceiling) over the median.
double sortGKeys(const SortRow &row);
double floorFraction(const SortRow &row, double ceilingGBps);

void printSortTableHeader(std::FILE *out);
void printSortRow(std::FILE *out, const SortRow &row, const RunInfo &info);
void printSortLegend(std::FILE *out);
bool writeSortCsv(const std::string &path, const RunInfo &info, const std::vector<SortRow> &rows);
bool writeSortJson(const std::string &path, const RunInfo &info, const std::vector<SortRow> &rows);

// One blur case: a format, an extent and a Gaussian radius; vkfx and the two-pass baseline timed
// in one run, on the same images.
struct BlurRow {
    std::string name;   // "blur rgba8 3840x2160 r8": what --filter matches
    std::string format; // "R8G8B8A8_UNORM"
    std::uint32_t width = 0, height = 0, layers = 1;
    std::uint32_t radius = 0; // taps each side, both axes
    double sigma = 0;         // radius / 3
    std::uint32_t channels = 0;
    double bytes = 0; // the source read once + the destination written once
    double fmas = 0;  // 2 (2 radius + 1) multiply-adds per channel per texel (0 Decimated)
    std::string method = "direct"; // the method vkfx ran: direct, decimated or twopass
    Timing vkfx, twoPass;
    Timing imageCopy; // the source copied into the destination (texelFetch, imageStore)
    std::string skipped;
};

// Times (us) of the row's bytes at the copy ceiling, of its FMAs at the FMA rate (0 when the rate
// or ceiling was not measured), and the roofline: the larger of the two.
double blurBandwidthUs(const BlurRow &row, const RunInfo &info);
double blurArithmeticUs(const BlurRow &row, const RunInfo &info);
double blurRooflineUs(const BlurRow &row, const RunInfo &info);
// The roofline over vkfx's median; the two-pass median over vkfx's; each 0 when not measured.
double rooflineFraction(const BlurRow &row, const RunInfo &info);
double speedupOverTwoPass(const BlurRow &row);
// vkfx's median over the image copy's (0 when either was not measured).
double imageCopies(const BlurRow &row);

void printBlurTableHeader(std::FILE *out);
void printBlurRow(std::FILE *out, const BlurRow &row, const RunInfo &info);
void printBlurLegend(std::FILE *out);
bool writeBlurCsv(const std::string &path, const RunInfo &info, const std::vector<BlurRow> &rows);
bool writeBlurJson(const std::string &path, const RunInfo &info, const std::vector<BlurRow> &rows);

} // namespace bench
