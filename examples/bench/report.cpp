#include "bench/report.hpp"

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <utility>

namespace bench {
namespace {

std::string sizeText(const Row &row) {
    char buf[48];
    if (row.layers > 1)
        std::snprintf(buf, sizeof(buf), "%ux%ux%u", unsigned(row.width), unsigned(row.height),
                      unsigned(row.layers));
    else
        std::snprintf(buf, sizeof(buf), "%ux%u", unsigned(row.width), unsigned(row.height));
    return buf;
}

std::string number(double v, int decimals) {
    char buf[64];
    std::snprintf(buf, sizeof(buf), "%.*f", decimals, v);
    return buf;
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

} // namespace

double vkfxGBps(const Row &row) {
    return row.vkfx.valid && row.vkfx.medianUs > 0 ? row.bytes / (row.vkfx.medianUs * 1e3) : 0.0;
}

double ceilingFraction(const Row &row, double ceilingGBps) {
    return ceilingGBps > 0 ? vkfxGBps(row) / ceilingGBps : 0.0;
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
    std::fprintf(out,
                 "ceiling    %.1f GB/s: compute copy of a %.0f MiB buffer, uint4 loads and stores, "
                 "bytes read + written over the median time (best %.1f GB/s)\n",
                 info.ceilingGBps, info.copyMiB, info.ceilingBestGBps);
    if (info.validation) {
        std::fprintf(
            out,
            "WARNING    validation layer on (VKFX_BENCH_VALIDATION=1): the times mean nothing\n");
    }
    std::fprintf(out, "\n");
}

void printTableHeader(std::FILE *out) {
    std::fprintf(out, "%-20s %-14s %-3s %3s | %10s %10s | %10s | %10s | %9s | %9s | %7s | %7s\n",
                 "format", "size", "red", "lvl", "vkfx med", "vkfx min", "blit med", "chain med",
                 "MB moved", "vkfx GB/s", "of ceil", "vs blit");
    std::fprintf(out, "%-20s %-14s %-3s %3s | %10s %10s | %10s | %10s | %9s | %9s | %7s | %7s\n",
                 "", "", "", "", "us", "us", "us", "us", "", "", "", "");
    std::fflush(out);
}

void printRow(std::FILE *out, const Row &row, double ceilingGBps) {
    std::fprintf(out, "%-20s %-14s %-3s %3u | ", row.format.c_str(), sizeText(row).c_str(),
                 row.reduction.c_str(), row.levels);
    if (!row.skipped.empty()) {
        std::fprintf(out, "skipped: %s\n", row.skipped.c_str());
        std::fflush(out);
        return;
    }
    const bool v = row.vkfx.valid;
    const double speedup = speedupOverBlit(row);
    std::fprintf(out, "%10s %10s | %10s | %10s | %9.2f | %9s | %7s | %7s\n",
                 timeCell(row.vkfx).c_str(), timeCell(row.vkfx, true).c_str(),
                 timeCell(row.blit).c_str(), timeCell(row.chain).c_str(), row.bytes / 1e6,
                 v ? number(vkfxGBps(row), vkfxGBps(row) < 10 ? 2 : 1).c_str() : "-",
                 v ? (number(100.0 * ceilingFraction(row, ceilingGBps), 1) + "%").c_str() : "-",
                 speedup > 0 ? (number(speedup, 2) + "x").c_str() : "-");
    const std::pair<const char *, const Timing *> cells[] = {
        {"vkfx", &row.vkfx}, {"blit", &row.blit}, {"chain", &row.chain}};
    for (const auto &[which, t] : cells) {
        if (t->note.find(':') != std::string::npos)
            std::fprintf(out, "    %s: %s\n", which, t->note.c_str());
    }
    std::fflush(out);
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
        "MB moved   level 0 read once + every other level written once, all layers (1e6 bytes)",
        "vkfx GB/s  MB moved / vkfx median; of ceil: that over the copy ceiling;",
        "           vs blit: blit median / vkfx median",
    };
    std::fprintf(out, "\n");
    for (const char *line : lines)
        std::fprintf(out, "%s\n", line);
}

bool writeCsv(const std::string &path, const RunInfo &info, const std::vector<Row> &rows) {
    std::FILE *f = openFile(path);
    if (!f)
        return false;
    std::fprintf(
        f, "device,driver,vulkan,date,ceiling_gbps,reps,warmup,eviction,format,width,height,layers,"
           "reduction,levels,mb_moved,vkfx_median_us,vkfx_min_us,blit_median_us,blit_min_us,"
           "chain_median_us,chain_min_us,vkfx_gbps,fraction_of_ceiling,speedup_over_blit,note\n");
    for (const Row &r : rows) {
        auto t = [](const Timing &x, bool useMin) {
            return x.valid ? number(useMin ? x.minUs : x.medianUs, 3) : std::string();
        };
        std::string note = r.skipped.empty() ? "" : "skipped: " + r.skipped;
        for (const Timing *x : {&r.vkfx, &r.blit, &r.chain}) {
            if (r.skipped.empty() && !x->valid && x->note != "-") {
                const char *which = x == &r.vkfx ? "vkfx" : x == &r.blit ? "blit" : "chain";
                note += std::string(note.empty() ? "" : "; ") + which + ": " + x->note;
            }
        }
        const bool v = r.vkfx.valid;
        const double speedup = speedupOverBlit(r);
        std::fprintf(
            f, "%s,%s,%s,%s,%.1f,%u,%u,%s,%s,%u,%u,%u,%s,%u,%.3f,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s\n",
            csvField(info.device).c_str(), csvField(info.driver).c_str(),
            csvField(info.vulkan).c_str(), csvField(info.date).c_str(), info.ceilingGBps, info.reps,
            info.warmup, csvField(info.eviction).c_str(), csvField(r.format).c_str(), r.width,
            r.height, r.layers, r.reduction.c_str(), r.levels, r.bytes / 1e6,
            t(r.vkfx, false).c_str(), t(r.vkfx, true).c_str(), t(r.blit, false).c_str(),
            t(r.blit, true).c_str(), t(r.chain, false).c_str(), t(r.chain, true).c_str(),
            v ? number(vkfxGBps(r), 2).c_str() : "",
            v ? number(ceilingFraction(r, info.ceilingGBps), 4).c_str() : "",
            speedup > 0 ? number(speedup, 3).c_str() : "", csvField(note).c_str());
    }
    return closeFile(f, path);
}

bool writeJson(const std::string &path, const RunInfo &info, const std::vector<Row> &rows) {
    std::FILE *f = openFile(path);
    if (!f)
        return false;
    std::fprintf(f, "{\n");
    std::fprintf(f, "  \"benchmark\": \"downsample\",\n");
    std::fprintf(f, "  \"device\": %s,\n", jsonString(info.device).c_str());
    std::fprintf(f, "  \"driver\": %s,\n", jsonString(info.driver).c_str());
    std::fprintf(f, "  \"vulkan\": %s,\n", jsonString(info.vulkan).c_str());
    std::fprintf(f, "  \"date\": %s,\n", jsonString(info.date).c_str());
    std::fprintf(f, "  \"timestamp_period_ns\": %.6g,\n", info.timestampPeriodNs);
    std::fprintf(f, "  \"reps\": %u,\n  \"warmup\": %u,\n", info.reps, info.warmup);
    std::fprintf(f, "  \"eviction\": %s,\n", jsonString(info.eviction).c_str());
    std::fprintf(f, "  \"copy_mib\": %.0f,\n", info.copyMiB);
    std::fprintf(f, "  \"ceiling_gbps\": %.3f,\n  \"ceiling_best_gbps\": %.3f,\n", info.ceilingGBps,
                 info.ceilingBestGBps);
    std::fprintf(f, "  \"quick\": %s,\n  \"validation\": %s,\n", info.quick ? "true" : "false",
                 info.validation ? "true" : "false");
    std::fprintf(f, "  \"rows\": [");
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
        std::fprintf(f, "\n     \"vkfx\": %s, \"blit\": %s, \"chain\": %s,\n",
                     jsonTiming(r.vkfx).c_str(), jsonTiming(r.blit).c_str(),
                     jsonTiming(r.chain).c_str());
        std::fprintf(
            f, "     \"vkfx_gbps\": %s, \"fraction_of_ceiling\": %s, \"speedup_over_blit\": %s}",
            jsonNumber(v, vkfxGBps(r), 3).c_str(),
            jsonNumber(v, ceilingFraction(r, info.ceilingGBps), 5).c_str(),
            jsonNumber(speedup > 0, speedup, 4).c_str());
    }
    std::fprintf(f, "\n  ]\n}\n");
    return closeFile(f, path);
}

double sortGKeys(const SortRow &row) {
    return row.vkfx.valid ? std::ldexp(1.0, static_cast<int>(row.log2Count)) / (row.vkfx.medianUs * 1e3) : 0;
}

double floorFraction(const SortRow &row, double ceilingGBps) {
    if (!row.vkfx.valid || ceilingGBps <= 0)
        return 0;
    const double floorUs = std::ldexp(1.0, static_cast<int>(row.log2Count)) * row.bytesPerKey / (ceilingGBps * 1e3);
    return floorUs / row.vkfx.medianUs;
}

void printSortTableHeader(std::FILE *out) {
    std::fprintf(out, "\n%-8s %-6s %-5s %-17s %-8s | %9s %9s | %8s | %5s | %8s\n", "key", "kind", "n",
                 "path", "count", "median ms", "min ms", "GKeys/s", "B/key", "of floor");
    std::fprintf(out, "%s\n", std::string(99, '-').c_str());
}

void printSortRow(std::FILE *out, const SortRow &row, double ceilingGBps) {
    std::fprintf(out, "%-8s %-6s 2^%-3u %-17s %-8s | ", row.key.c_str(), row.pairs ? "pairs" : "keys",
                 row.log2Count, row.path.c_str(), row.indirect ? "indirect" : "host");
    if (!row.skipped.empty()) {
        std::fprintf(out, "skipped: %s\n", row.skipped.c_str());
        std::fflush(out);
        return;
    }
    const bool v = row.vkfx.valid;
    std::fprintf(out, "%9s %9s | %8s | %5.0f | %8s\n", v ? number(row.vkfx.medianUs / 1e3, 3).c_str() : timeCell(row.vkfx).c_str(),
                 v ? number(row.vkfx.minUs / 1e3, 3).c_str() : "-", v ? number(sortGKeys(row), sortGKeys(row) < 1 ? 4 : 2).c_str() : "-",
                 row.bytesPerKey, v ? (number(100.0 * floorFraction(row, ceilingGBps), 1) + "%").c_str() : "-");
    if (row.vkfx.note.find(':') != std::string::npos)
        std::fprintf(out, "    vkfx: %s\n", row.vkfx.note.c_str());
    std::fflush(out);
}

void printSortLegend(std::FILE *out) {
    static const char *const lines[] = {
        "vkfx::Sorter::record (recordIndirect for \"indirect\": the count read from a GPU buffer),",
        "in place, from the same unsorted input every repetition (restored outside the timed region)",
        "keys       uint32: hashed bits; float32: uniform in [-1, 1); pairs: + a 32-bit value (the index)",
        "           uint24: hashed bits below 2^24, sorted as uint32 (the top digit's pass only copies)",
        "GKeys/s    keys / median time (1e9 keys per second)",
        "B/key      the traffic floor of an 8-bit LSD sort: 36 bytes per key, 68 with 32-bit values",
        "of floor   (keys * B/key at the copy ceiling) / median time",
    };
    std::fprintf(out, "\n");
    for (const char *line : lines)
        std::fprintf(out, "%s\n", line);
}

bool writeSortCsv(const std::string &path, const RunInfo &info, const std::vector<SortRow> &rows) {
    std::FILE *f = openFile(path);
    if (!f)
        return false;
    std::fprintf(f, "device,driver,vulkan,date,ceiling_gbps,reps,warmup,eviction,key,pairs,count,path,count_from,"
                    "median_us,min_us,gkeys_per_s,bytes_per_key,fraction_of_floor,note\n");
    for (const SortRow &r : rows) {
        const bool v = r.vkfx.valid;
        const std::string note = !r.skipped.empty() ? "skipped: " + r.skipped : v ? "" : r.vkfx.note;
        std::fprintf(f, "%s,%s,%s,%s,%.1f,%u,%u,%s,%s,%d,%.0f,%s,%s,%s,%s,%s,%.0f,%s,%s\n",
                     csvField(info.device).c_str(), csvField(info.driver).c_str(), csvField(info.vulkan).c_str(),
                     csvField(info.date).c_str(), info.ceilingGBps, info.reps, info.warmup,
                     csvField(info.eviction).c_str(), r.key.c_str(), r.pairs ? 1 : 0,
                     std::ldexp(1.0, static_cast<int>(r.log2Count)), r.path.c_str(), r.indirect ? "gpu" : "host",
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
                     std::ldexp(1.0, static_cast<int>(r.log2Count)), jsonString(r.path).c_str(),
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

} // namespace bench
