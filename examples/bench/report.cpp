#include "bench/report.hpp"

#include <algorithm>
#include <bit>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <initializer_list>
#include <utility>

namespace bench {
namespace {

std::string sizeText(std::uint32_t width, std::uint32_t height, std::uint32_t layers) {
    char buf[48];
    if (layers > 1)
        std::snprintf(buf, sizeof(buf), "%ux%ux%u", unsigned(width), unsigned(height),
                      unsigned(layers));
    else
        std::snprintf(buf, sizeof(buf), "%ux%u", unsigned(width), unsigned(height));
    return buf;
}

std::string number(double v, int decimals) {
    char buf[64];
    std::snprintf(buf, sizeof(buf), "%.*f", decimals, v);
    return buf;
}

// A derived time in us (2 decimals below 10), or "-" when it was not measured (0).
std::string usCell(double us) { return us > 0 ? number(us, us < 10 ? 2 : 1) : "-"; }

// "12.3%", "1.25x", or "-" when the value was not measured (0).
std::string percentCell(double fraction) {
    return fraction > 0 ? number(100.0 * fraction, 1) + "%" : "-";
}
std::string timesCell(double ratio) { return ratio > 0 ? number(ratio, 2) + "x" : "-"; }

// The legend below a table: an empty line, then the lines.
template <std::size_t N> void printLines(std::FILE *out, const char *const (&lines)[N]) {
    std::fprintf(out, "\n");
    for (const char *line : lines)
        std::fprintf(out, "%s\n", line);
}

// A skipped row's reason in place of its cells (true), or nothing (false: the row was run).
bool printSkipped(std::FILE *out, const std::string &skipped) {
    if (skipped.empty())
        return false;
    std::fprintf(out, "skipped: %s\n", skipped.c_str());
    std::fflush(out);
    return true;
}

using NamedTiming = std::pair<const char *, const Timing *>;

// Below a row: the reason of every cell whose note has one ("n/a: ...", "error: ...").
void printNotes(std::FILE *out, std::initializer_list<NamedTiming> cells) {
    for (const auto &[which, t] : cells) {
        if (t->note.find(':') != std::string::npos)
            std::fprintf(out, "    %s: %s\n", which, t->note.c_str());
    }
    std::fflush(out);
}

// The CSV note of a row: why it was skipped, or the notes of its cells without a time (but "-").
std::string csvNote(const std::string &skipped, std::initializer_list<NamedTiming> cells) {
    std::string note = skipped.empty() ? "" : "skipped: " + skipped;
    for (const auto &[which, t] : cells) {
        if (skipped.empty() && !t->valid && t->note != "-")
            note += std::string(note.empty() ? "" : "; ") + which + ": " + t->note;
    }
    return note;
}

// A time, or the first word of the note ("-", "n/a", "error"): the reason goes below the row.
std::string timeCell(const Timing &t, bool useMin = false) {
    if (!t.valid)
        return t.note.empty() ? "-" : t.note.substr(0, t.note.find(':'));
    return number(useMin ? t.minUs : t.medianUs, 1);
}

std::string csvField(const std::string &s) {
    if (s.find_first_of(",\"\n") == std::string::npos)
        return s;
    std::string q = "\"";
    for (char c : s) {
        if (c == '"')
            q += '"';
        q += c;
    }
    return q + "\"";
}

std::string jsonString(const std::string &s) {
    std::string q = "\"";
    for (char c : s) {
        switch (c) {
        case '"':
            q += "\\\"";
            break;
        case '\\':
            q += "\\\\";
            break;
        case '\n':
            q += "\\n";
            break;
        case '\t':
            q += "\\t";
            break;
        default:
            if (static_cast<unsigned char>(c) < 0x20) {
                char buf[8];
                std::snprintf(buf, sizeof(buf), "\\u%04x",
                              static_cast<unsigned>(static_cast<unsigned char>(c)));
                q += buf;
            } else {
                q += c;
            }
        }
    }
    return q + "\"";
}

// A JSON number, or null when the value was not measured.
std::string jsonNumber(bool valid, double v, int decimals) {
    return valid ? number(v, decimals) : "null";
}

std::string jsonTiming(const Timing &t) {
    if (!t.valid)
        return "{\"median_us\": null, \"min_us\": null, \"note\": " + jsonString(t.note) + "}";
    return "{\"median_us\": " + number(t.medianUs, 3) + ", \"min_us\": " + number(t.minUs, 3) + "}";
}

// The CSV columns every mode starts its rows with, and their values.
const char *const kCsvRunColumns = "device,driver,vulkan,date,ceiling_gbps,reps,warmup,eviction";

std::string csvRunValues(const RunInfo &info) {
    return csvField(info.device) + "," + csvField(info.driver) + "," + csvField(info.vulkan) + "," +
           csvField(info.date) + "," + number(info.ceilingGBps, 1) + "," +
           std::to_string(info.reps) + "," + std::to_string(info.warmup) + "," +
           csvField(info.eviction);
}

// A CSV time cell: the median or minimum, empty when not measured.
std::string csvTime(const Timing &t, bool useMin) {
    return t.valid ? number(useMin ? t.minUs : t.medianUs, 3) : std::string();
}

// The opening of a JSON result file up to and including "rows": [ (the run's device, timing,
// eviction, ceiling and, where measured, FMA rate).
void jsonRunHeader(std::FILE *f, const char *benchmark, const RunInfo &info) {
    std::fprintf(f, "{\n");
    std::fprintf(f, "  \"benchmark\": \"%s\",\n", benchmark);
    std::fprintf(f, "  \"device\": %s,\n", jsonString(info.device).c_str());
    std::fprintf(f, "  \"driver\": %s,\n", jsonString(info.driver).c_str());
    std::fprintf(f, "  \"vulkan\": %s,\n", jsonString(info.vulkan).c_str());
    std::fprintf(f, "  \"date\": %s,\n", jsonString(info.date).c_str());
    std::fprintf(f, "  \"timestamp_period_ns\": %.6g,\n", info.timestampPeriodNs);
    std::fprintf(f, "  \"reps\": %u,\n  \"warmup\": %u,\n", info.reps, info.warmup);
    std::fprintf(f, "  \"eviction\": %s,\n", jsonString(info.eviction).c_str());
    std::fprintf(f, "  \"vkfx_flags\": %s,\n", jsonString(info.vkfxFlags).c_str());
    std::fprintf(f, "  \"copy_mib\": %.0f,\n", info.copyMiB);
    std::fprintf(f, "  \"ceiling_gbps\": %.3f,\n  \"ceiling_best_gbps\": %.3f,\n", info.ceilingGBps,
                 info.ceilingBestGBps);
    if (info.fmaGPerS > 0) {
        std::fprintf(f, "  \"fma_gfma_per_s\": %.3f,\n  \"fma_best_gfma_per_s\": %.3f,\n",
                     info.fmaGPerS, info.fmaBestGPerS);
    }
    std::fprintf(f, "  \"quick\": %s,\n  \"validation\": %s,\n", info.quick ? "true" : "false",
                 info.validation ? "true" : "false");
    std::fprintf(f, "  \"rows\": [");
}

bool closeFile(std::FILE *f, const std::string &path) {
    bool ok = std::ferror(f) == 0;
    ok = std::fclose(f) == 0 && ok;
    if (!ok)
        std::fprintf(stderr, "vkfx-bench: cannot write %s\n", path.c_str());
    return ok;
}

std::FILE *openFile(const std::string &path) {
    std::FILE *f = std::fopen(path.c_str(), "w");
    if (!f)
        std::fprintf(stderr, "vkfx-bench: cannot open %s: %s\n", path.c_str(),
                     std::strerror(errno));
    return f;
}

// openFile() for a CSV file, with its header line: the run's columns, then the mode's `columns`.
std::FILE *openCsv(const std::string &path, const char *columns) {
    std::FILE *f = openFile(path);
    if (f)
        std::fprintf(f, "%s,%s\n", kCsvRunColumns, columns);
    return f;
}

} // namespace

double vkfxGBps(const Row &row) {
    return row.vkfx.valid && row.vkfx.medianUs > 0 ? row.bytes / (row.vkfx.medianUs * 1e3) : 0.0;
}

double ceilingFraction(const Row &row, double ceilingGBps) {
    return ceilingGBps > 0 ? vkfxGBps(row) / ceilingGBps : 0.0;
}

double streamCeilingFraction(const Row &row, double ceilingGBps) {
    return row.stream.valid && row.stream.medianUs > 0 && ceilingGBps > 0
               ? row.bytes / (row.stream.medianUs * 1e3) / ceilingGBps
               : 0.0;
}

double speedupOverBlit(const Row &row) {
    return row.vkfx.valid && row.blit.valid && row.vkfx.medianUs > 0
               ? row.blit.medianUs / row.vkfx.medianUs
               : 0.0;
}

void printHeader(std::FILE *out, const RunInfo &info) {
    std::fprintf(out, "vkfx-bench: %s%s\n", info.mode.c_str(),
                 info.quick ? " (--quick: small sizes, few repetitions)" : "");
    std::fprintf(out, "device     %s\n", info.device.c_str());
    std::fprintf(out, "driver     %s\n", info.driver.c_str());
    std::fprintf(out, "vulkan     %s\n", info.vulkan.c_str());
    std::fprintf(out, "date       %s\n", info.date.c_str());
    std::fprintf(out,
                 "timing     GPU timestamps (period %.3g ns, %u valid bits): %u warm-up + %u timed "
                 "repetitions per workload; median and min\n",
                 info.timestampPeriodNs, info.timestampValidBits, info.warmup, info.reps);
    std::fprintf(out, "eviction   %s\n", info.eviction.c_str());
    if (!info.vkfxFlags.empty())
        std::fprintf(out, "vkfx       created with %s\n", info.vkfxFlags.c_str());
    std::fprintf(out,
                 "ceiling    %.1f GB/s: compute copy of a %.0f MiB buffer, uint4 loads and stores, "
                 "bytes read + written over the median time (best %.1f GB/s)\n",
                 info.ceilingGBps, info.copyMiB, info.ceilingBestGBps);
    if (info.fmaGPerS > 0) {
        std::fprintf(
            out,
            "fma rate   %.1f GFMA/s: fp32 multiply-adds (independent vec4 chains on registers, "
            "examples/bench/fma.comp) over the median time (best %.1f GFMA/s)\n",
            info.fmaGPerS, info.fmaBestGPerS);
    }
    if (info.validation) {
        std::fprintf(
            out,
            "WARNING    validation layer on (VKFX_BENCH_VALIDATION=1): the times mean nothing\n");
    }
    std::fprintf(out, "\n");
}

void printTableHeader(std::FILE *out) {
    std::fprintf(out,
                 "%-20s %-14s %-3s %3s | %10s %10s | %10s | %10s | %10s | %9s | %9s | %7s | %7s | "
                 "%7s\n",
                 "format", "size", "red", "lvl", "vkfx med", "vkfx min", "blit med", "chain med",
                 "stream med", "MB moved", "vkfx GB/s", "of ceil", "stream", "vs blit");
    std::fprintf(out,
                 "%-20s %-14s %-3s %3s | %10s %10s | %10s | %10s | %10s | %9s | %9s | %7s | %7s | "
                 "%7s\n",
                 "", "", "", "", "us", "us", "us", "us", "us", "", "", "", "of ceil", "");
    std::fflush(out);
}

void printRow(std::FILE *out, const Row &row, const RunInfo &info) {
    std::fprintf(out, "%-20s %-14s %-3s %3u | ", row.format.c_str(),
                 sizeText(row.width, row.height, row.layers).c_str(), row.reduction.c_str(),
                 row.levels);
    if (printSkipped(out, row.skipped))
        return;
    const double ceilingGBps = info.ceilingGBps;
    const bool v = row.vkfx.valid;
    const double speedup = speedupOverBlit(row);
    const bool s = row.stream.valid;
    std::fprintf(
        out, "%10s %10s | %10s | %10s | %10s | %9.2f | %9s | %7s | %7s | %7s\n",
        timeCell(row.vkfx).c_str(), timeCell(row.vkfx, true).c_str(), timeCell(row.blit).c_str(),
        timeCell(row.chain).c_str(), timeCell(row.stream).c_str(), row.bytes / 1e6,
        v ? number(vkfxGBps(row), vkfxGBps(row) < 10 ? 2 : 1).c_str() : "-",
        v ? (number(100.0 * ceilingFraction(row, ceilingGBps), 1) + "%").c_str() : "-",
        s ? (number(100.0 * streamCeilingFraction(row, ceilingGBps), 1) + "%").c_str() : "-",
        timesCell(speedup).c_str());
    printNotes(
        out,
        {{"vkfx", &row.vkfx}, {"blit", &row.blit}, {"chain", &row.chain}, {"stream", &row.stream}});
}

void printLegend(std::FILE *out) {
    static const char *const lines[] = {
        "vkfx       vkfx::Downsampler::record: every level (all layers) in one dispatch",
        "blit       vkCmdBlitImage chain, linear filter, level k -> k+1, one barrier",
        "           (TRANSFER_DST -> TRANSFER_SRC of level k+1) between levels;",
        "           \"-\": a blit cannot take a minimum",
        "chain      one compute dispatch per level: texelFetch of the 2x2 box of level k",
        "           (sampled view), imageStore into level k+1 (storage view), a barrier",
        "           between levels; odd edges drop their last row / column",
        "stream     the MB moved by a plain buffer kernel: level 0's bytes read and the",
        "           other levels' bytes written once, uint4 loads and stores, no image, no",
        "           level waiting for another (examples/bench/stream.comp): about the least",
        "           time a kernel that moves these bytes takes on this device",
        "MB moved   level 0 read once + every other level written once, all layers (1e6 bytes)",
        "D32_SFLOAT a depth pyramid: D32 depth read into an R32_SFLOAT min chain whose level 0",
        "           is a copy of the depth (vkfx: DepthLevelZero::Copy; chain: a copy dispatch",
        "           first), MB moved counting level 0 written too",
        "vkfx GB/s  MB moved / vkfx median; of ceil: that over the copy ceiling;",
        "           stream of ceil: MB moved / stream median over the copy ceiling;",
        "           vs blit: blit median / vkfx median",
    };
    printLines(out, lines);
}

bool writeCsv(const std::string &path, const RunInfo &info, const std::vector<Row> &rows) {
    std::FILE *f = openCsv(path, "format,width,height,layers,reduction,levels,mb_moved,"
                                 "vkfx_median_us,vkfx_min_us,blit_median_us,blit_min_us,"
                                 "chain_median_us,chain_min_us,vkfx_gbps,fraction_of_ceiling,"
                                 "speedup_over_blit,stream_median_us,stream_min_us,"
                                 "stream_fraction_of_ceiling,note");
    if (!f)
        return false;
    for (const Row &r : rows) {
        const std::string note = csvNote(
            r.skipped,
            {{"vkfx", &r.vkfx}, {"blit", &r.blit}, {"chain", &r.chain}, {"stream", &r.stream}});
        const bool v = r.vkfx.valid;
        const double speedup = speedupOverBlit(r);
        std::fprintf(
            f, "%s,%s,%u,%u,%u,%s,%u,%.3f,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s\n",
            csvRunValues(info).c_str(), csvField(r.format).c_str(), r.width, r.height, r.layers,
            r.reduction.c_str(), r.levels, r.bytes / 1e6, csvTime(r.vkfx, false).c_str(),
            csvTime(r.vkfx, true).c_str(), csvTime(r.blit, false).c_str(),
            csvTime(r.blit, true).c_str(), csvTime(r.chain, false).c_str(),
            csvTime(r.chain, true).c_str(), v ? number(vkfxGBps(r), 2).c_str() : "",
            v ? number(ceilingFraction(r, info.ceilingGBps), 4).c_str() : "",
            speedup > 0 ? number(speedup, 3).c_str() : "", csvTime(r.stream, false).c_str(),
            csvTime(r.stream, true).c_str(),
            r.stream.valid ? number(streamCeilingFraction(r, info.ceilingGBps), 4).c_str() : "",
            csvField(note).c_str());
    }
    return closeFile(f, path);
}

bool writeJson(const std::string &path, const RunInfo &info, const std::vector<Row> &rows) {
    std::FILE *f = openFile(path);
    if (!f)
        return false;
    jsonRunHeader(f, "downsample", info);
    for (std::size_t i = 0; i < rows.size(); ++i) {
        const Row &r = rows[i];
        const bool v = r.vkfx.valid;
        const double speedup = speedupOverBlit(r);
        std::fprintf(
            f,
            "%s\n    {\"name\": %s, \"format\": %s, \"width\": %u, \"height\": %u, \"layers\": %u, "
            "\"reduction\": %s, \"levels\": %u, \"bytes\": %.0f,",
            i ? "," : "", jsonString(r.name).c_str(), jsonString(r.format).c_str(), r.width,
            r.height, r.layers, jsonString(r.reduction).c_str(), r.levels, r.bytes);
        if (!r.skipped.empty()) {
            std::fprintf(f, " \"skipped\": %s}", jsonString(r.skipped).c_str());
            continue;
        }
        std::fprintf(f, "\n     \"vkfx\": %s, \"blit\": %s, \"chain\": %s, \"stream\": %s,\n",
                     jsonTiming(r.vkfx).c_str(), jsonTiming(r.blit).c_str(),
                     jsonTiming(r.chain).c_str(), jsonTiming(r.stream).c_str());
        std::fprintf(
            f,
            "     \"vkfx_gbps\": %s, \"fraction_of_ceiling\": %s, \"speedup_over_blit\": %s, "
            "\"stream_fraction_of_ceiling\": %s}",
            jsonNumber(v, vkfxGBps(r), 3).c_str(),
            jsonNumber(v, ceilingFraction(r, info.ceilingGBps), 5).c_str(),
            jsonNumber(speedup > 0, speedup, 4).c_str(),
            jsonNumber(r.stream.valid, streamCeilingFraction(r, info.ceilingGBps), 5).c_str());
    }
    std::fprintf(f, "\n  ]\n}\n");
    return closeFile(f, path);
}

std::string sortCountLabel(std::uint32_t count) {
    if (count != 0 && (count & (count - 1)) == 0)
        return "2^" + std::to_string(std::countr_zero(count));
    return std::to_string(count);
}

double sortGKeys(const SortRow &row) {
    return row.vkfx.valid ? row.count / (row.vkfx.medianUs * 1e3) : 0;
}

double floorFraction(const SortRow &row, double ceilingGBps) {
    if (!row.vkfx.valid || ceilingGBps <= 0)
        return 0;
    const double floorUs = row.count * row.bytesPerKey / (ceilingGBps * 1e3);
    return floorUs / row.vkfx.medianUs;
}

void printSortTableHeader(std::FILE *out) {
    std::fprintf(out, "\n%-8s %-6s %-9s %-17s %-8s | %9s %9s | %8s | %5s | %8s\n", "key", "kind", "n",
                 "path", "count", "median ms", "min ms", "GKeys/s", "B/key", "of floor");
    std::fprintf(out, "%s\n", std::string(103, '-').c_str());
}

void printSortRow(std::FILE *out, const SortRow &row, const RunInfo &info) {
    std::fprintf(out, "%-8s %-6s %-9s %-17s %-8s | ", row.key.c_str(), row.pairs ? "pairs" : "keys",
                 sortCountLabel(row.count).c_str(), row.path.c_str(), row.indirect ? "indirect" : "host");
    if (printSkipped(out, row.skipped))
        return;
    const double ceilingGBps = info.ceilingGBps;
    const bool v = row.vkfx.valid;
    std::fprintf(out, "%9s %9s | %8s | %5.0f | %8s\n", v ? number(row.vkfx.medianUs / 1e3, 3).c_str() : timeCell(row.vkfx).c_str(),
                 v ? number(row.vkfx.minUs / 1e3, 3).c_str() : "-", v ? number(sortGKeys(row), sortGKeys(row) < 1 ? 4 : 2).c_str() : "-",
                 row.bytesPerKey, v ? (number(100.0 * floorFraction(row, ceilingGBps), 1) + "%").c_str() : "-");
    printNotes(out, {{"vkfx", &row.vkfx}});
}

void printSortLegend(std::FILE *out) {
    static const char *const lines[] = {
        "vkfx::Sorter::record (recordIndirect for \"indirect\": the count read from a GPU buffer),",
        "in place, from the same unsorted input every repetition (restored outside the timed region)",
        "keys       uint32: hashed bits; float32: uniform in [-1, 1); pairs: + a 32-bit value (the index)",
        "           uint24: hashed bits below 2^24, sorted as uint32 (the top digit's pass only copies)",
        "           uint64 (--counts): hashed bits in both words",
        "GKeys/s    keys / median time (1e9 keys per second)",
        "B/key      the traffic floor of an 8-bit LSD sort: 36 bytes per key, 68 with 32-bit values",
        "           (64-bit keys: 136 and 200)",
        "of floor   (keys * B/key at the copy ceiling) / median time",
    };
    printLines(out, lines);
}

bool writeSortCsv(const std::string &path, const RunInfo &info, const std::vector<SortRow> &rows) {
    std::FILE *f = openCsv(path, "key,pairs,count,path,count_from,median_us,min_us,gkeys_per_s,"
                                 "bytes_per_key,fraction_of_floor,note");
    if (!f)
        return false;
    for (const SortRow &r : rows) {
        const bool v = r.vkfx.valid;
        const std::string note = !r.skipped.empty() ? "skipped: " + r.skipped : v ? "" : r.vkfx.note;
        std::fprintf(
            f, "%s,%s,%d,%.0f,%s,%s,%s,%s,%s,%.0f,%s,%s\n", csvRunValues(info).c_str(),
            r.key.c_str(), r.pairs ? 1 : 0, static_cast<double>(r.count),
            r.path.c_str(), r.indirect ? "gpu" : "host",
            v ? number(r.vkfx.medianUs, 3).c_str() : "", v ? number(r.vkfx.minUs, 3).c_str() : "",
            v ? number(sortGKeys(r), 3).c_str() : "", r.bytesPerKey,
            v ? number(floorFraction(r, info.ceilingGBps), 4).c_str() : "", csvField(note).c_str());
    }
    return closeFile(f, path);
}

bool writeSortJson(const std::string &path, const RunInfo &info, const std::vector<SortRow> &rows) {
    std::FILE *f = openFile(path);
    if (!f)
        return false;
    std::fprintf(f, "{\n  \"benchmark\": \"sort\",\n");
    std::fprintf(f, "  \"device\": %s,\n  \"driver\": %s,\n  \"vulkan\": %s,\n  \"date\": %s,\n",
                 jsonString(info.device).c_str(), jsonString(info.driver).c_str(), jsonString(info.vulkan).c_str(),
                 jsonString(info.date).c_str());
    std::fprintf(f, "  \"reps\": %u,\n  \"warmup\": %u,\n  \"eviction\": %s,\n", info.reps, info.warmup,
                 jsonString(info.eviction).c_str());
    std::fprintf(f, "  \"ceiling_gbps\": %.3f,\n  \"quick\": %s,\n  \"validation\": %s,\n  \"rows\": [",
                 info.ceilingGBps, info.quick ? "true" : "false", info.validation ? "true" : "false");
    for (std::size_t i = 0; i < rows.size(); ++i) {
        const SortRow &r = rows[i];
        std::fprintf(f,
                     "%s\n    {\"name\": %s, \"key\": %s, \"pairs\": %s, \"count\": %.0f, \"path\": %s, "
                     "\"count_from\": \"%s\", \"bytes_per_key\": %.0f,",
                     i ? "," : "", jsonString(r.name).c_str(), jsonString(r.key).c_str(), r.pairs ? "true" : "false",
                     static_cast<double>(r.count), jsonString(r.path).c_str(),
                     r.indirect ? "gpu" : "host", r.bytesPerKey);
        if (!r.skipped.empty()) {
            std::fprintf(f, " \"skipped\": %s}", jsonString(r.skipped).c_str());
            continue;
        }
        const bool v = r.vkfx.valid;
        std::fprintf(f, " \"vkfx\": %s, \"gkeys_per_s\": %s, \"fraction_of_floor\": %s}",
                     jsonTiming(r.vkfx).c_str(), jsonNumber(v, sortGKeys(r), 4).c_str(),
                     jsonNumber(v, floorFraction(r, info.ceilingGBps), 5).c_str());
    }
    std::fprintf(f, "\n  ]\n}\n");
    return closeFile(f, path);
}

double blurBandwidthUs(const BlurRow &row, const RunInfo &info) {
    return info.ceilingGBps > 0 ? row.bytes / (info.ceilingGBps * 1e3) : 0.0;
}

double blurArithmeticUs(const BlurRow &row, const RunInfo &info) {
    return info.fmaGPerS > 0 ? row.fmas / (info.fmaGPerS * 1e3) : 0.0;
}

double blurRooflineUs(const BlurRow &row, const RunInfo &info) {
    return std::max(blurBandwidthUs(row, info), blurArithmeticUs(row, info));
}

double rooflineFraction(const BlurRow &row, const RunInfo &info) {
    return row.vkfx.valid && row.vkfx.medianUs > 0 ? blurRooflineUs(row, info) / row.vkfx.medianUs
                                                   : 0.0;
}

double speedupOverTwoPass(const BlurRow &row) {
    return row.vkfx.valid && row.twoPass.valid && row.vkfx.medianUs > 0
               ? row.twoPass.medianUs / row.vkfx.medianUs
               : 0.0;
}

double imageCopies(const BlurRow &row) {
    return row.vkfx.valid && row.imageCopy.valid && row.imageCopy.medianUs > 0
               ? row.vkfx.medianUs / row.imageCopy.medianUs
               : 0.0;
}

void printBlurTableHeader(std::FILE *out) {
    const char *const format =
        "%-20s %-10s %3s %6s %-3s | %10s %10s | %10s | %9s | %9s %7s | %9s %9s %9s | %7s\n";
    std::fprintf(out, format, "format", "size", "r", "sigma", "m", "vkfx med", "vkfx min", "2-pass med",
                 "vs 2-pass", "copy med", "copies", "bandwidth", "arith", "roofline", "of roof");
    std::fprintf(out, format, "", "", "", "", "", "us", "us", "us", "", "us", "", "us", "us", "us", "");
    std::fflush(out);
}

void printBlurRow(std::FILE *out, const BlurRow &row, const RunInfo &info) {
    std::fprintf(out, "%-20s %-10s %3u %6.2f %-3s | ", row.format.c_str(),
                 sizeText(row.width, row.height, row.layers).c_str(), row.radius, row.sigma,
                 row.method == "decimated" ? "dec"
                 : row.method == "twopass" ? "2p"
                                           : "dir");
    if (printSkipped(out, row.skipped))
        return;
    std::fprintf(
        out, "%10s %10s | %10s | %9s | %9s %7s | %9s %9s %9s | %7s\n", timeCell(row.vkfx).c_str(),
        timeCell(row.vkfx, true).c_str(), timeCell(row.twoPass).c_str(),
        timesCell(speedupOverTwoPass(row)).c_str(), timeCell(row.imageCopy).c_str(),
        timesCell(imageCopies(row)).c_str(), usCell(blurBandwidthUs(row, info)).c_str(),
        usCell(blurArithmeticUs(row, info)).c_str(), usCell(blurRooflineUs(row, info)).c_str(),
        percentCell(rooflineFraction(row, info)).c_str());
    printNotes(out, {{"vkfx", &row.vkfx}, {"2-pass", &row.twoPass}, {"copy", &row.imageCopy}});
}

void printBlurLegend(std::FILE *out) {
    static const char *const lines[] = {
        "vkfx       vkfx::Blurrer::record: Gaussian, radius r both axes, sigma r / 3, clamp to "
        "edge,",
        "           BlurMethod::Auto with scratch (rows named after a method: that method)",
        "m          the method taken. dir: Direct (one dispatch, the horizontal result kept in",
        "           shared memory); dec: Decimated (three dispatches, the blur on a grid sigma / 3",
        "           apart, outputs interpolated; roofline = bandwidth); 2p: TwoPass (two",
        "           dispatches through scratch: fp16 for 8-bit RGBA / BGRA, else fp32)",
        "2-pass     a horizontal compute pass (texelFetch of the 2r + 1 taps) into an",
        "           intermediate image of the format, an image barrier, the vertical pass",
        "vs 2-pass  2-pass median / vkfx median",
        "copy       the source copied into the destination, each texel read once (texelFetch)",
        "           and written once (imageStore), as vkfx reads and writes images; copies:",
        "           vkfx median / copy median",
        "bandwidth  the source read once + the destination written once, at the copy ceiling",
        "arith      2 (2r + 1) FMAs per channel per texel, at the measured FMA rate (not dec)",
        "roofline   the larger of bandwidth and arith; of roof: roofline / vkfx median",
    };
    printLines(out, lines);
}

bool writeBlurCsv(const std::string &path, const RunInfo &info, const std::vector<BlurRow> &rows) {
    std::FILE *f = openCsv(path, "fma_gfma_per_s,format,width,height,layers,radius,sigma,method,channels,"
                                 "mb_moved,gfma,vkfx_median_us,vkfx_min_us,two_pass_median_us,"
                                 "two_pass_min_us,speedup_over_two_pass,image_copy_median_us,"
                                 "image_copy_min_us,vkfx_over_image_copy,bandwidth_us,arithmetic_us,"
                                 "roofline_us,fraction_of_roofline,note");
    if (!f)
        return false;
    for (const BlurRow &r : rows) {
        const bool run = r.skipped.empty();
        auto derived = [&](double v, int decimals) {
            return run && v > 0 ? number(v, decimals) : std::string();
        };
        std::fprintf(
            f,
            "%s,%.1f,%s,%u,%u,%u,%u,%.4f,%s,%u,%.3f,%.4f,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s\n",
            csvRunValues(info).c_str(), info.fmaGPerS, csvField(r.format).c_str(), r.width,
            r.height, r.layers, r.radius, r.sigma, r.method.c_str(), r.channels, r.bytes / 1e6,
            r.fmas / 1e9, csvTime(r.vkfx, false).c_str(), csvTime(r.vkfx, true).c_str(),
            csvTime(r.twoPass, false).c_str(), csvTime(r.twoPass, true).c_str(),
            derived(speedupOverTwoPass(r), 3).c_str(), csvTime(r.imageCopy, false).c_str(),
            csvTime(r.imageCopy, true).c_str(), derived(imageCopies(r), 3).c_str(),
            derived(blurBandwidthUs(r, info), 3).c_str(),
            derived(blurArithmeticUs(r, info), 3).c_str(),
            derived(blurRooflineUs(r, info), 3).c_str(),
            derived(rooflineFraction(r, info), 4).c_str(),
            csvField(csvNote(r.skipped,
                             {{"vkfx", &r.vkfx}, {"2-pass", &r.twoPass}, {"copy", &r.imageCopy}}))
                .c_str());
    }
    return closeFile(f, path);
}

bool writeBlurJson(const std::string &path, const RunInfo &info, const std::vector<BlurRow> &rows) {
    std::FILE *f = openFile(path);
    if (!f)
        return false;
    jsonRunHeader(f, "blur", info);
    for (std::size_t i = 0; i < rows.size(); ++i) {
        const BlurRow &r = rows[i];
        std::fprintf(
            f,
            "%s\n    {\"name\": %s, \"format\": %s, \"width\": %u, \"height\": %u, \"layers\": %u, "
            "\"radius\": %u, \"sigma\": %.6g, \"method\": \"%s\", \"channels\": %u, \"bytes\": "
            "%.0f, "
            "\"fmas\": %.0f,",
            i ? "," : "", jsonString(r.name).c_str(), jsonString(r.format).c_str(), r.width,
            r.height, r.layers, r.radius, r.sigma, r.method.c_str(), r.channels, r.bytes, r.fmas);
        if (!r.skipped.empty()) {
            std::fprintf(f, " \"skipped\": %s}", jsonString(r.skipped).c_str());
            continue;
        }
        const double speedup = speedupOverTwoPass(r), fraction = rooflineFraction(r, info);
        const double copies = imageCopies(r);
        std::fprintf(f, "\n     \"vkfx\": %s, \"two_pass\": %s, \"speedup_over_two_pass\": %s,\n",
                     jsonTiming(r.vkfx).c_str(), jsonTiming(r.twoPass).c_str(),
                     jsonNumber(speedup > 0, speedup, 4).c_str());
        std::fprintf(f, "     \"image_copy\": %s, \"vkfx_over_image_copy\": %s,\n",
                     jsonTiming(r.imageCopy).c_str(), jsonNumber(copies > 0, copies, 4).c_str());
        std::fprintf(f,
                     "     \"bandwidth_us\": %s, \"arithmetic_us\": %s, \"roofline_us\": %s, "
                     "\"fraction_of_roofline\": %s}",
                     jsonNumber(info.ceilingGBps > 0, blurBandwidthUs(r, info), 4).c_str(),
                     jsonNumber(info.fmaGPerS > 0, blurArithmeticUs(r, info), 4).c_str(),
                     jsonNumber(blurRooflineUs(r, info) > 0, blurRooflineUs(r, info), 4).c_str(),
                     jsonNumber(fraction > 0, fraction, 5).c_str());
    }
    std::fprintf(f, "\n  ]\n}\n");
    return closeFile(f, path);
}

} // namespace bench
